// What each framework can run at all (TrainingSoftware::zero_stages and
// after): a layout it cannot run is refused with the framework's name, and
// the search never proposes one.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "model_presets.h"
#include "parallel.h"
#include "parallel_test_util.h"

namespace napkin {
namespace {

TrainingJob llama_70b(std::string_view software) {
  TrainingJob j{.shape = testing_util::preset_shape("Llama-3-70B"),
                .chip = "H100",
                .n_chips = 256,
                .seq_len = 8192,
                .global_batch = 512,
                .software = software_by_name(software)};
  return j;
}

Layout layout(std::int64_t tp, std::int64_t pp, std::int64_t vpp, std::int64_t cp, int zero) {
  Layout l;
  l.tp = tp, l.pp = pp, l.vpp = vpp, l.cp = cp, l.zero = zero;
  l.dp = 256 / (tp * pp * cp);
  l.micro_batch = 1;
  l.sequence_parallel = false;
  l.recompute = Checkpointing::full;
  return l;
}

std::string refusal(std::string_view software, const Layout& l) {
  return layout_problem(llama_70b(software), l).value_or("");
}

TEST(ParallelCapabilities, EachPresetOffersTheZeroStagesOfItsFramework) {
  // stages without pipeline parallelism, then with it
  struct Case {
    const char* software;
    const char* alone;
    const char* piped;
  };
  for (const Case& c :
       {Case{"modern", "0, 1, 2 and 3", "0, 1, 2 and 3"}, Case{"megatron-2021", "0", "0"},
        Case{"megatron-2022", "0 and 1", "0 and 1"},
        Case{"megatron-deepspeed", "0, 1, 2 and 3", "0 and 1"},
        Case{"megatron-deepspeed-bf16", "1", "1"}, Case{"nemo-1.0", "1", "1"},
        Case{"fsdp", "0, 2 and 3", "0, 2 and 3"}, Case{"deepseek-v3", "1", "1"},
        Case{"llama3", "2", "2"}}) {
    const TrainingSoftware& s = software_by_name(c.software);
    EXPECT_EQ(offered_zero_stages(s, false), c.alone) << c.software;
    EXPECT_EQ(offered_zero_stages(s, true), c.piped) << c.software;
  }
  EXPECT_FALSE(offers_zero(software_by_name("modern"), 4, false));
  EXPECT_FALSE(offers_zero(software_by_name("modern"), -1, false));
}

TEST(ParallelCapabilities, ALayoutTheFrameworkCannotRunIsRefusedNamingIt) {
  EXPECT_EQ(refusal("megatron-deepspeed", layout(8, 4, 1, 1, 2)),
            "zero (ZeRO stage) 2: DeepSpeed's pipeline engine (megatron-deepspeed) runs ZeRO 0 "
            "and 1 with pipeline parallelism only");
  EXPECT_EQ(refusal("megatron-deepspeed", layout(8, 4, 2, 1, 1)),
            "vpp (model chunks per stage) must be 1: DeepSpeed's pipeline engine "
            "(megatron-deepspeed) has no interleaved pipeline schedule; got 2");
  EXPECT_EQ(refusal("megatron-2022", layout(8, 1, 1, 2, 1)),
            "cp (context-parallel ranks) must be 1: Megatron-LM 2022 has no context "
            "parallelism; got 2");
  EXPECT_EQ(refusal("fsdp", layout(8, 1, 1, 1, 1)),
            "zero (ZeRO stage) 1: PyTorch FSDP2 (torchtitan) runs ZeRO 0, 2 and 3 only");
  EXPECT_EQ(refusal("megatron-2021", layout(8, 4, 1, 1, 1)),
            "zero (ZeRO stage) 1: Megatron-LM 2021 runs ZeRO 0 only");
  // Megatron-LM before sequence parallelism, selective recomputation and MoE.
  Layout sp = layout(8, 4, 1, 1, 0);
  sp.sequence_parallel = true;
  EXPECT_EQ(refusal("megatron-2021", sp),
            "sp (sequence parallelism) must be off: Megatron-LM 2021 has no sequence parallelism");
  EXPECT_EQ(refusal("megatron-2022", sp), "");
  Layout selective = layout(8, 4, 1, 1, 0);
  selective.recompute = Checkpointing::selective;
  EXPECT_EQ(refusal("megatron-2021", selective),
            "recompute=selective: Megatron-LM 2021 recomputes whole layers only (recompute=full "
            "or none)");
  TrainingJob moe = llama_70b("megatron-2022");
  moe.shape = testing_util::preset_shape("Mixtral-8x7B");
  Layout ep = layout(1, 4, 1, 1, 1);
  ep.ep = 8;
  EXPECT_EQ(layout_problem(moe, ep).value_or(""),
            "ep (expert-parallel ranks) must be 1: Megatron-LM 2022 has no expert parallelism; "
            "got 8");
  moe.software = software_by_name("modern");
  EXPECT_EQ(layout_problem(moe, ep).value_or(""), "");
  // What they can run passes: ZeRO-3 without a pipeline under DeepSpeed, any
  // stage where nothing is sharded (one data-parallel rank).
  EXPECT_EQ(refusal("megatron-deepspeed", layout(8, 1, 1, 1, 3)), "");
  EXPECT_EQ(refusal("megatron-2021", layout(8, 32, 1, 1, 2)), "");
  EXPECT_EQ(refusal("fsdp", layout(8, 4, 2, 2, 3)), "");
}

TEST(ParallelCapabilities, TheSearchProposesOnlyWhatTheFrameworkRuns) {
  for (const SoftwarePreset& p : software_presets()) {
    const TrainingJob j = llama_70b(p.name);
    SearchOptions o;
    o.max_vpp = 2;
    const SearchResult r = search_layouts(j, o);
    ASSERT_FALSE(r.layouts.empty()) << p.name << ": " << r.none_reason;
    for (const LayoutResult& x : r.layouts) {
      const Layout& l = x.layout;
      if (l.dp * l.cp > 1) {
        EXPECT_TRUE(offers_zero(p.software, l.zero, l.pp > 1)) << p.name;
      }
      if (!p.software.interleaved_pipeline) {
        EXPECT_EQ(l.vpp, 1) << p.name;
      }
      if (!p.software.context_parallel) {
        EXPECT_EQ(l.cp, 1) << p.name;
      }
      if (!p.software.sequence_parallel) {
        EXPECT_FALSE(l.sequence_parallel) << p.name;
      }
      if (!p.software.selective_recompute) {
        EXPECT_NE(l.recompute, Checkpointing::selective) << p.name;
      }
    }
  }
  // Experts stay whole on every rank where the framework has no EP.
  TrainingJob moe = llama_70b("megatron-2022");
  moe.shape = testing_util::preset_shape("Mixtral-8x7B");
  const SearchResult m = search_layouts(moe);
  ASSERT_FALSE(m.layouts.empty()) << m.none_reason;
  for (const LayoutResult& x : m.layouts) EXPECT_EQ(x.layout.ep, 1);
  // A lock on a stage the framework does not run with a pipeline leaves the
  // splits without one.
  SearchOptions o;
  o.zero = 2;
  const SearchResult r = search_layouts(llama_70b("megatron-deepspeed"), o);
  ASSERT_FALSE(r.layouts.empty()) << r.none_reason;
  for (const LayoutResult& x : r.layouts) EXPECT_EQ(x.layout.pp, 1);
}

TEST(ParallelCapabilities, Fp8NeedsAFrameworkWithFp8Gemms) {
  // Megatron-LM took Transformer Engine's FP8 in December 2022.
  TrainingJob j = llama_70b("megatron-2022");
  j.software.fp8_matmuls = true;
  try {
    j.validate();
    ADD_FAILURE() << "fp8 under megatron-2022 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "training precision fp8: Megatron-LM 2022 has no FP8 GEMMs; train in bf16 or "
              "choose newer software");
  }
  j.software = software_by_name("megatron-core-fp8");
  EXPECT_NO_THROW(j.validate());
}

TEST(ParallelCapabilities, ALockTheFrameworkCannotHonourSaysSo) {
  // Sequence parallelism locked on under Megatron-LM 2021: no layout at any
  // TP (not the TP 1 splits, where it would mean nothing), and why.
  SearchOptions o;
  o.sequence_parallel = true;
  const SearchResult r = search_layouts(llama_70b("megatron-2021"), o);
  EXPECT_TRUE(r.layouts.empty());
  EXPECT_EQ(r.none_reason, "Megatron-LM 2021 has no sequence parallelism (sp must be off)");
  o.sequence_parallel = false;
  EXPECT_FALSE(search_layouts(llama_70b("megatron-2021"), o).layouts.empty());
}

TEST(ParallelCapabilities, WithNoSplitLeftTheSearchSaysWhichRuleStopsIt) {
  SearchOptions o;
  o.zero = 1;
  const TrainingJob j = llama_70b("fsdp");
  const SearchResult r = search_layouts(j, o);
  EXPECT_TRUE(r.layouts.empty());
  EXPECT_NE(r.none_reason.find("PyTorch FSDP2 (torchtitan) runs ZeRO 0, 2 and 3 only"),
            std::string::npos)
      << r.none_reason;
}

}  // namespace
}  // namespace napkin
