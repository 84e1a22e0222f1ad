// The scoreboard's bounds: every public training set predicted with what its
// source states and nothing else, within the error the training-fidelity
// issue asks for, and a mean signed error within ±5 % for every set.
#include "validation.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "parallel.h"
#include "training_validation.h"
#include "validation_data.h"

using namespace napkin;

namespace {

// One set by its key, predicted once per test process and only from the data
// it comes from (each test runs in a process of its own).
const ValidationSet& set_of(const std::string& key) {
  static std::map<std::string, ValidationSet> cache;
  auto it = cache.find(key);
  if (it == cache.end()) {
    std::vector<ValidationSet> built = public_validation_sets(key);
    if (built.size() != 1) throw std::runtime_error("no set " + key);
    it = cache.emplace(key, std::move(built.front())).first;
  }
  return it->second;
}

ValidationSummary checked(const std::string& key, std::size_t rows, double max_mean_abs) {
  const ValidationSet& s = set_of(key);
  const ValidationSummary m = summarize(s);
  std::printf("%-26s %5zu rows  mean |err| %5.1f %%  signed %+5.1f %%  optimistic %zu\n",
              key.c_str(), m.rows, 100 * m.mean_abs_error, 100 * m.mean_signed_error,
              m.optimistic_rows);
  EXPECT_EQ(m.rows, rows) << key;
  EXPECT_LE(m.mean_abs_error, max_mean_abs) << key;
  EXPECT_LE(std::abs(m.mean_signed_error), 0.05) << key;
  return m;
}

// A set that is not yet within the bounds: its rows, each with its setting,
// and its summary printed, for the caller to bound so it cannot drift unseen.
ValidationSummary held_out(const std::string& key, std::size_t rows, const std::string& setting) {
  const ValidationSet& s = set_of(key);
  EXPECT_EQ(s.rows.size(), rows) << key;
  const ValidationSummary m = summarize(s);
  std::printf("%s mean |err| %.1f %% signed %+.1f %%\n", key.c_str(), 100 * m.mean_abs_error,
              100 * m.mean_signed_error);
  for (const ValidationRow& r : s.rows) EXPECT_EQ(r.setting, setting) << r.label;
  return m;
}

}  // namespace

TEST(Validation, EveryDataSetIsCompiledIn) {
  for (const char* name : {"parallelism/published_runs.csv", "vtrain/single_node_runs.csv",
                           "vtrain/multi_node_runs_public.csv", "serving/published_serving.csv",
                           "serving/trtllm_offline_v1.csv", "serving/trtllm_offline_v0_17.csv"})
    EXPECT_GT(validation_data(name).size(), 1000u) << name;
  EXPECT_GT(validation_data("megatron_bridge/h100_pretraining.csv").size(), 500u);
  EXPECT_GT(validation_data("megatron_lm/h100_scaling_r0_8.csv").size(), 500u);
  EXPECT_GT(validation_data("llm_foundry/mpt_throughput.csv").size(), 10000u);
  EXPECT_GT(validation_data("megatron_bridge/b200_pretraining.csv").size(), 200u);
  EXPECT_GT(validation_data("megatron_bridge/gb200_pretraining.csv").size(), 400u);
  EXPECT_GT(validation_data("megatron_bridge/gb300_pretraining.csv").size(), 400u);
  EXPECT_GT(validation_data("megatron_bridge/h100_moe_pretraining.csv").size(), 200u);
  EXPECT_GT(validation_data("nemo/h100_pretraining_24_07.csv").size(), 500u);
  EXPECT_GT(validation_data("torchtitan/a100_fsdp2.csv").size(), 500u);
  EXPECT_GT(validation_data("torchtitan/h100_202412.csv").size(), 1000u);
  EXPECT_GT(validation_data("torchtitan/h100_202506_async_tp.csv").size(), 1000u);
  EXPECT_GT(validation_data("torchtitan/h200_202506_trainy.csv").size(), 300u);
  EXPECT_TRUE(validation_data("nope.csv").empty());
}

TEST(Validation, KorthikantiTable5WithinFivePercent) {
  checked("korthikanti-2022-table5", 8, 0.05);
}

TEST(Validation, NarayananTable1WithinFivePercent) {
  // Megatron-LM 2021's gradient path as its code runs it (autograd adds each
  // micro-batch's fp16 gradient with a kernel of its own; the local DDP's and
  // the fp16 optimizer's copies) took the set from +2.5 % signed, 9 of 10
  // rows optimistic, to about -0.4 %, 4 of 10.
  const ValidationSummary m = checked("narayanan-2021-table1", 10, 0.05);
  EXPECT_LE(std::abs(m.mean_signed_error), 0.02);
  EXPECT_LE(m.optimistic_rows, 6u);
}

TEST(Validation, VtrainSingleNodeWithinTenPercent) { checked("vtrain-single-node", 1440, 0.10); }

TEST(Validation, VtrainMultiNodePublicRowsWithinTenPercent) {
  checked("vtrain-multi-node", 52, 0.10);
}

// H100 in FP8 at today's layouts (Megatron Bridge's published Llama 3 70B and
// 3.1 405B runs): the FP8 GEMM rate is the bf16 in-step share of the MAMF
// times the FP8 MAMF, the epilogue term from a published K-sweep, nothing
// from these rows.
TEST(Validation, MegatronBridgeH100Fp8IsHeldOut) {
  // The recipe's documented properties (current scaling's amax passes, the
  // bf16 head, FP8 saved inputs, the edge-counting pipeline split) as the
  // performance scripts run them: every transformer layer in FP8
  // (first_last_layers_bf16 = False since Megatron Bridge v0.1.0; pricing
  // the training recipes' two bf16 edge layers had put every row 4-8 %
  // under). About 5.5 % under on every row: these 2025-26 containers run FP8
  // faster than the in-step fraction (at standalone CUTLASS's 0.62 they
  // read +0.7 %). Bounded so that it cannot drift unseen, nor turn
  // optimistic on average.
  const ValidationSummary m = held_out("megatron-bridge-h100", 11, "megatron-core-fp8");
  EXPECT_LE(m.mean_abs_error, 0.07);
  EXPECT_LE(m.mean_signed_error, 0.0);
  EXPECT_LE(std::abs(m.worst_error), 0.10);
}

TEST(Validation, MegatronBridgeB200IsHeldOut) {
  // Two rows on B200, held out: its FP8 GEMM efficiency comes from the
  // published MAMF sweeps (Hopper's in-step FP8 fraction x the FP8 MAMF
  // ratio: 0.600), its bf16 GEMMs (0.39) and attention (FlashAttention-4,
  // 0.432) from a training step measured by kernel, its NVLink from
  // nccl-tests' ring (0.76); its HBM fraction is still Hopper's. 8 % over
  // since the interleaved schedule's sends run beside the compute (they were
  // 7 % of its step when charged in full, which had put it within 1 %): the
  // FP8 fraction is derived, not measured inside a step. Bounded so that it
  // cannot grow unseen.
  const ValidationSummary m = held_out("megatron-bridge-b200", 2, "megatron-core-fp8");
  EXPECT_LE(m.mean_abs_error, 0.09);
}

TEST(Validation, MegatronBridgeGb200IsHeldOut) {
  // Six containers' runs of one layout on 256 GB200, held out: the chip is
  // B200's die at the GB200 NVL72 datasheet's peaks, B200's in-step GEMM
  // fractions scaled by GB200's MAMF rows. The prediction is one number and
  // the runs got faster release by release (793 to 864 tokens/s): within
  // 3 % on average. Bounded so that it cannot drift unseen.
  const ValidationSummary m = held_out("megatron-bridge-gb200", 6, "megatron-core-fp8");
  EXPECT_LE(m.mean_abs_error, 0.06);
  EXPECT_LE(std::abs(m.mean_signed_error), 0.06);
  EXPECT_LE(std::abs(m.worst_error), 0.11);
}

TEST(Validation, MegatronBridgeGb300IsHeldOut) {
  // Six runs of Llama 3.1 405B on 256 GB300 (TP 4 PP 8 or TP 2 PP 8 CP 2),
  // held out: Blackwell Ultra at the GB300 NVL72 datasheet's peaks with
  // GB200's fractions (no GB300 MAMF published; its doubled softmax
  // exponential rate and its 1,400 W unpriced): about 16 % under, never
  // above (10 % at standalone CUTLASS's FP8 fraction). Bounded so that it
  // cannot drift unseen, nor turn optimistic.
  const ValidationSummary m = held_out("megatron-bridge-gb300", 6, "megatron-core-fp8");
  EXPECT_LE(m.mean_abs_error, 0.18);
  EXPECT_EQ(m.optimistic_rows, 0u);
  EXPECT_LE(std::abs(m.worst_error), 0.21);
}

TEST(Validation, MegatronBridgeMoeH100IsHeldOut) {
  // Qwen3-235B-A22B on 256 H100 with EP 32 folded over TP 2, the layout
  // Napkin could not express before expert TP was an axis. Held out: about
  // 7 % optimistic on every row, the expert all-to-alls half the step. Bounded
  // so that it cannot grow unseen.
  const ValidationSummary m =
      held_out("megatron-bridge-moe-h100", 5, "megatron-core-fp8 (EP overlap, TP overlap off)");
  EXPECT_LE(m.mean_abs_error, 0.10);
  EXPECT_LE(std::abs(m.worst_error), 0.13);
  for (const ValidationRow& r : set_of("megatron-bridge-moe-h100").rows)
    EXPECT_NE(r.label.find("ep=32 etp=1"), std::string::npos) << r.label;
}

namespace {

// A set's rows split by precision: {the BF16 rows, the rows whose label
// contains `fp8_marker`}, each a copy of the set with those rows alone.
std::pair<ValidationSet, ValidationSet> bf16_and_fp8(const ValidationSet& s,
                                                     const std::string& fp8_marker) {
  ValidationSet bf16 = s, fp8 = s;
  bf16.rows.clear();
  fp8.rows.clear();
  for (const ValidationRow& r : s.rows)
    (r.label.find(fp8_marker) != std::string::npos ? fp8 : bf16).rows.push_back(r);
  return {bf16, fp8};
}

}  // namespace

TEST(Validation, DgxcH100IsHeldOutButItsCalibrationRow) {
  // NVIDIA's DGX Cloud Benchmarking recipes of release 24.11.1 on H100: 64
  // rows of Llama 3.1, Nemotron4 and GPT-3 175B, BF16 and FP8, 8 to 2,048
  // GPUs. One row, Llama 3.1 8B in BF16 on one DGX H100, set the H100's
  // in-step bf16 GEMM fraction (chip_efficiency.h); it is not on the scoreboard
  // and Napkin reproduces it. The 31 held-out BF16 rows (15B to 405B, 16 to
  // 2,048 GPUs) are within 2 % on average; the 32 FP8 rows (Transformer
  // Engine 1.x, delayed scaling) about 2 % over with Hopper's FP8 fraction
  // at the same in-step share of its MAMF (8 % over at standalone CUTLASS's
  // 0.62).
  const ValidationSet& s = set_of("dgxc-h100");
  ASSERT_EQ(s.rows.size(), 63u);
  std::size_t flash_attention_2 = 0;
  for (const ValidationRow& r : s.rows) {
    EXPECT_EQ(r.setting.rfind("nemo-1.0", 0), 0u) << r.label;
    EXPECT_EQ(r.label.find("BF16: Llama3.1-8B on 8:"), std::string::npos) << r.label;
    if (r.setting.find("FlashAttention-2") != std::string::npos) ++flash_attention_2;
  }
  const auto [bf16, fp8] = bf16_and_fp8(s, " FP8: ");
  EXPECT_EQ(flash_attention_2, 20u);  // GPT-3 175B and Nemotron4 340B: NVTE_FUSED_ATTN=0
  ASSERT_EQ(bf16.rows.size(), 31u);
  ASSERT_EQ(fp8.rows.size(), 32u);
  const ValidationSummary b = summarize(bf16), f = summarize(fp8);
  std::printf("dgxc-h100 BF16 %.1f %% / %+.1f %%, FP8 %.1f %% / %+.1f %%\n", 100 * b.mean_abs_error,
              100 * b.mean_signed_error, 100 * f.mean_abs_error, 100 * f.mean_signed_error);
  EXPECT_LE(b.mean_abs_error, 0.04);
  EXPECT_LE(std::abs(b.mean_signed_error), 0.03);
  EXPECT_LE(f.mean_abs_error, 0.07);
  EXPECT_LE(std::abs(f.mean_signed_error), 0.05);
  EXPECT_LE(std::abs(summarize(s).worst_error), 0.25);

  const ValidationSet cal =
      dgxc_h100_calibration_rows(validation_data("dgxc/h100_pretraining_24_11.csv"));
  ASSERT_EQ(cal.rows.size(), 1u);
  EXPECT_EQ(cal.rows[0].label.rfind("24.09 BF16: Llama3.1-8B on 8:", 0), 0u);
  EXPECT_NEAR(cal.rows[0].predicted / cal.rows[0].measured, 1.0, 0.01);
}

namespace {

// Edits `file`'s text (`from` → `to`) and expects `set` to refuse it with a
// message containing `says`.
template <typename MakeSet>
void expect_refused(MakeSet set, const char* file, const std::string& from, const std::string& to,
                    const std::string& says) {
  std::string edited(validation_data(file));
  edited.replace(edited.find(from), from.size(), to);
  try {
    set(edited);
    ADD_FAILURE() << to << " accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(Validation, DgxcRowsNameWhatIsWrong) {
  // A precision the recipes do not run, or a model the shapes do not know,
  // is refused with the file, the line and the value.
  const char* file = "dgxc/h100_pretraining_24_11.csv";
  expect_refused(dgxc_h100_validation_set, file, ",bf16,8,", ",fp4,8,",
                 "line 2: precision must be bf16 or fp8; got \"fp4\"");
  expect_refused(dgxc_h100_validation_set, file, "Llama3.1-8B", "Llama9-8B",
                 "line 2: no model named Llama9-8B");
}

TEST(Validation, DgxcGb200IsHeldOut) {
  // DGX Cloud Benchmarking 25.05 on GB200 (NeMo 25.04 / 25.04.01): Nemotron4
  // 340B weak and strong scaling and Llama 3.1 405B, BF16 and FP8, 128-512
  // GPUs, held out. BF16 reads 6-12 % slow with B200's bf16 GEMMs at the
  // step decomposition's 0.39 with the bias it showed on Hopper taken out
  // (0.464; at the raw 0.39 these rows read 20-25 % slow). FP8 reads 15-30 %
  // fast: the same model on the same GB200 racks ran 23-32 % faster in
  // Megatron Bridge's later containers (megatron-bridge-gb200, within 6 %),
  // and the 25.04 container's delayed-scaling FP8 has no published term that
  // says why. Bounded so that neither side can drift unseen.
  const ValidationSet& s = set_of("dgxc-gb200");
  ASSERT_EQ(s.rows.size(), 18u);
  EXPECT_FALSE(s.lower_is_optimistic);
  for (const ValidationRow& r : s.rows) {
    EXPECT_EQ(r.setting.rfind("megatron-core-fp8", 0), 0u) << r.label;
    EXPECT_NE(r.setting.find("bf16 gradients"), std::string::npos) << r.label;
  }
  const auto [bf16, fp8] = bf16_and_fp8(s, " FP8 ");
  ASSERT_EQ(bf16.rows.size(), 9u);
  ASSERT_EQ(fp8.rows.size(), 9u);
  const ValidationSummary b = summarize(bf16), f = summarize(fp8);
  std::printf("dgxc-gb200 BF16 %.1f %% / %+.1f %%, FP8 %.1f %% / %+.1f %%\n",
              100 * b.mean_abs_error, 100 * b.mean_signed_error, 100 * f.mean_abs_error,
              100 * f.mean_signed_error);
  EXPECT_EQ(b.optimistic_rows, 0u);
  EXPECT_GT(b.mean_signed_error, -0.12);
  EXPECT_LT(b.mean_signed_error, -0.04);
  EXPECT_EQ(f.optimistic_rows, 9u);
  EXPECT_GT(f.mean_signed_error, 0.15);
  EXPECT_LT(f.mean_signed_error, 0.30);
  // Napkin's FP8 step against its BF16 step, row for row, beside the tables'
  // (1.45-1.53x): 1.9-2.2x (2.3-2.5x with bf16 at the raw 0.39, FP8 GEMMs
  // then 3.1x the bf16 ones on one chip).
  for (std::size_t i = 0; i < 9; ++i) {
    const double napkin = fp8.rows[i].predicted / bf16.rows[i].predicted;
    const double measured = fp8.rows[i].measured / bf16.rows[i].measured;
    EXPECT_GT(measured, 1.4) << fp8.rows[i].label;
    EXPECT_LT(measured, 1.6) << fp8.rows[i].label;
    EXPECT_GT(napkin, measured) << fp8.rows[i].label;
    EXPECT_LT(napkin, 2.25) << fp8.rows[i].label;
  }
}

TEST(Validation, DgxcH100OnNemo2IsHeldOut) {
  // DGX Cloud Benchmarking 25.04.01 on H100 (NeMo 25.02.01, NeMo 2.0's
  // performance scripts): Llama 3.1 8B, 70B and 405B, BF16 and FP8, 8 to
  // 2,048 GPUs, held out. The H100's bf16 fraction came from the 24.11
  // release's single-node row (12.91 s); this release ran the same layout in
  // 12.27 s, and every BF16 row here is within 5 % below the measurement or
  // 1 % above it. FP8 reads −9 % to +4 % (70B at TP 4 PP 8 slowest). Bounded
  // so that it cannot drift unseen.
  const ValidationSet& s = set_of("dgxc-h100-25.04");
  ASSERT_EQ(s.rows.size(), 28u);
  const ValidationSummary m = summarize(s);
  std::printf("dgxc-h100-25.04 mean |err| %.1f %% signed %+.1f %%\n", 100 * m.mean_abs_error,
              100 * m.mean_signed_error);
  EXPECT_LE(m.mean_abs_error, 0.06);
  EXPECT_GT(m.mean_signed_error, -0.06);
  EXPECT_LT(m.mean_signed_error, 0.0);
  for (const ValidationRow& r : s.rows) {
    EXPECT_NE(r.setting.find("native fused cross-entropy"), std::string::npos) << r.label;
    const double error = r.predicted / r.measured - 1;
    if (r.label.find(" BF16 ") != std::string::npos) {
      EXPECT_LE(error, 0.01) << r.label;
      EXPECT_GT(error, -0.06) << r.label;
    } else {
      EXPECT_LT(std::abs(error), 0.14) << r.label;
    }
  }
}

TEST(Validation, DgxcGb200RowsNameWhatIsWrong) {
  const char* file = "dgxc/gb200_pretraining_25_05.csv";
  expect_refused(dgxc_gb200_validation_set, file, ",bf16,weak,128,", ",nvfp4,weak,128,",
                 "gb200_pretraining_25_05.csv, line 2: precision must be bf16 or fp8; got "
                 "\"nvfp4\"");
  expect_refused(dgxc_gb200_validation_set, file, "Nemotron4-340B", "Nemotron9-340B",
                 "line 2: no model named Nemotron9-340B");
  expect_refused(dgxc_h100_25_04_validation_set, "dgxc/h100_pretraining_25_04.csv", ",native,",
                 ",liger,",
                 "h100_pretraining_25_04.csv, line 2: cross_entropy must be native or te; got "
                 "\"liger\"");
}

TEST(Validation, Nemo2407H100IsHeldOut) {
  // NeMo 24.07's twelve FP8 runs on DGX-H100, from GPT-3 5B on 64 GPUs to
  // Nemotron 340B on 128, held out: nothing is set from them. The narrow
  // models (d_model 4,096) are 4-15 % optimistic, the widest (GPT-3 175B,
  // Nemotron 340B) 9-17 % pessimistic: Napkin's GEMM rate depends on the
  // shape less than these runs do. Bounded so that it cannot drift unseen.
  const ValidationSet& s = set_of("nemo-24.07-h100");
  ASSERT_EQ(s.rows.size(), 12u);
  const ValidationSummary m = summarize(s);
  std::printf("nemo-24.07-h100 mean |err| %.1f %% signed %+.1f %%\n", 100 * m.mean_abs_error,
              100 * m.mean_signed_error);
  EXPECT_LE(m.mean_abs_error, 0.12);
  EXPECT_LE(m.mean_signed_error, 0.08);
  EXPECT_LE(std::abs(m.worst_error), 0.30);
  // Each row with its launcher configuration's TP overlap (on where the
  // configuration turns userbuffers on) and optimizer dtypes (bf16 for
  // Nemotron 340B alone).
  std::size_t with_overlap = 0, bf16_states = 0;
  for (const ValidationRow& r : s.rows) {
    EXPECT_EQ(r.setting.rfind("nemo-1.0 FP8", 0), 0u) << r.label;
    if (r.setting.find("userbuffers") != std::string::npos) ++with_overlap;
    if (r.setting.find("bf16 optimizer") != std::string::npos) ++bf16_states;
  }
  EXPECT_EQ(with_overlap, 5u);
  EXPECT_EQ(bf16_states, 1u);
}

TEST(Validation, TorchtitanFsdp2IsStillOptimistic) {
  // ZeRO-3 alone on 64 A100 (FSDP2, eager), every row: none, full, "selective
  // layer" (every second block whole: half the layers recomputed) and
  // "selective op" (torchtitan's op-level policy). Before eager PyTorch's
  // element-wise work and FSDP2's copies were priced the rows were 13-21 %
  // optimistic; then +7 %, every row above the measurement; with the 70B
  // configurations' eager RMSNorm (norm_type "rmsnorm"; 8B and 13B ran the
  // Triton kernel) +5 %, the 70B rows within 3 % (what remains is listed in
  // the README). Bounded on both sides so that it cannot drift unseen.
  const ValidationSet& s = set_of("torchtitan-a100");
  ASSERT_EQ(s.rows.size(), 8u);
  const ValidationSummary m = summarize(s);
  EXPECT_LE(m.mean_abs_error, 0.08);
  EXPECT_GE(m.mean_signed_error, 0.0);
  EXPECT_LE(std::abs(m.worst_error), 0.13);
  for (const ValidationRow& r : s.rows) {
    const bool seventy = r.label.find("70b") != std::string::npos;
    EXPECT_EQ(r.setting, seventy ? "fsdp, eager RMSNorm" : "fsdp") << r.label;
    if (seventy) {
      EXPECT_LE(std::abs(r.predicted / r.measured - 1), 0.04) << r.label;
    }
  }
  EXPECT_EQ(std::count_if(s.rows.begin(), s.rows.end(),
                          [](const ValidationRow& r) {
                            return r.label.find("full recompute of") != std::string::npos;
                          }),
            2);
  EXPECT_EQ(std::count_if(s.rows.begin(), s.rows.end(),
                          [](const ValidationRow& r) {
                            return r.label.find("selective:op") != std::string::npos;
                          }),
            3);
}

TEST(Validation, TorchtitanH100MemoryIsUnderTheMeasurement) {
  // The largest rank's peak reserved memory of torchtitan's December 2024
  // H100 runs with full checkpointing (expandable segments on). Held out:
  // 1-2 % under on the 8B rows (the eager loss's freed bf16 logits counted as
  // a reserved block), 3-9 % on 70B, 14-24 % on 405B; every row optimistic
  // (what may be missing is listed in the README). Bounded on both sides so
  // that it cannot drift unseen.
  // The op-level rows without Float8 (four) run bf16, two of them eager.
  const ValidationSet& s = set_of("torchtitan-h100-memory");
  ASSERT_EQ(s.rows.size(), 15u);
  std::size_t op = 0, fp8 = 0;
  for (const ValidationRow& r : s.rows) {
    const bool is_op = r.label.find("selective:op") != std::string::npos;
    op += is_op ? 1 : 0;
    fp8 += r.setting == "fsdp-compile, FP8, loss eager" ? 1 : 0;
    if (is_op) {
      EXPECT_EQ(r.setting, r.label.find(" eager") != std::string::npos
                               ? "fsdp, loss eager, eager RMSNorm"
                               : "fsdp-compile, loss eager")
          << r.label;
    }
  }
  EXPECT_EQ(op, 4u);
  EXPECT_EQ(fp8, 11u);
  const ValidationSummary m = summarize(s);
  EXPECT_TRUE(set_of("torchtitan-h100-memory").lower_is_optimistic);
  EXPECT_LE(m.mean_abs_error, 0.12);
  EXPECT_LE(m.mean_signed_error, 0.0);
  EXPECT_LE(std::abs(m.worst_error), 0.30);
}

TEST(Validation, TorchtitanH100ThroughputIsOptimistic) {
  // The same December 2024 rows' tokens/s per GPU, held out. Bf16 GEMMs at
  // a training step's rate (0.53 of the peak, not the MAMF's 0.80) took the
  // set from +42 % to +32 %, the runs' own HBM2e (2.4 TB/s, H100-HBM2e) to
  // +28 %, the rate NeMo reached on one DGX H100 (0.63) back to +32 %, FP8
  // at the same in-step share of its MAMF to +29 %, FlashAttention-2 at its
  // in-step share of its standalone rate to +25 %, the peaks at the runs'
  // 500 W limit (0.903 of the SXM's, the datasheets' SXM and NVL points) to
  // +15 %, the eager rows' RMSNorm as separate ops to +13 %, PyTorch's
  // context_parallel as its code runs it (K, V expanded to every query head
  // and all-gathered once per call, dK, dV passed on in fp32, fp32 running
  // sums) to +9 %. What is left is context parallelism: the rows without it
  // are within −11 % to +11 %, the rows with it over 64K-262K tokens +1 % to
  // +43 % (README). Bounded so that it cannot drift unseen, and it fails if
  // the set ever turns pessimistic.
  const ValidationSet& s = set_of("torchtitan-h100");
  ASSERT_EQ(s.rows.size(), set_of("torchtitan-h100-memory").rows.size());
  for (std::size_t i = 0; i < s.rows.size(); ++i)
    EXPECT_EQ(s.rows[i].label, set_of("torchtitan-h100-memory").rows[i].label);
  EXPECT_FALSE(s.lower_is_optimistic);
  const ValidationSummary m = summarize(s);
  EXPECT_GE(m.optimistic_rows, 10u);
  EXPECT_GT(m.mean_signed_error, 0.06);
  EXPECT_LE(m.mean_abs_error, 0.15);
  EXPECT_LE(std::abs(m.worst_error), 0.50);
  double without_cp_abs = 0;
  std::size_t without_cp = 0;
  for (const ValidationRow& r : s.rows) {
    if (r.label.find(" cp=") != std::string::npos) continue;
    without_cp_abs += std::abs(r.predicted / r.measured - 1);
    ++without_cp;
  }
  ASSERT_EQ(without_cp, 9u);
  EXPECT_LE(without_cp_abs / static_cast<double>(without_cp), 0.12);
}

TEST(Validation, LlmFoundryMptTablesAreHeldOut) {
  // MosaicML's MPT throughput tables, every row with what llm-foundry ran
  // (FSDP1, Triton FlashAttention at half FlashAttention-2's rate or
  // FlashAttention-2, DEFAULT or PURE mixed precision); nothing set from
  // them. A100 (139 rows): about +8 % at every sequence length, as
  // torchtitan's FSDP2 rows on A100. H100 (70 rows): +5 % on average, MPT-1B
  // and 3B on 128-512 GPUs 20-36 % over (their measured throughput falls
  // with the GPU count; Napkin's is flat). Before the Triton kernel's rate
  // and the training step's GEMM rate the long-sequence rows were 50-70 %
  // optimistic. Bounded so that neither set drifts unseen.
  const ValidationSet& a100 = set_of("llm-foundry-a100");
  const ValidationSet& h100 = set_of("llm-foundry-h100");
  EXPECT_EQ(a100.rows.size(), 139u);
  EXPECT_EQ(h100.rows.size(), 70u);
  std::size_t triton = 0;
  for (const ValidationSet* s : {&a100, &h100})
    for (const ValidationRow& r : s->rows) {
      EXPECT_EQ(r.setting.rfind("llm-foundry (fsdp, ", 0), 0u) << r.label;
      triton += r.setting.find("Triton") != std::string::npos ? 1 : 0;
    }
  EXPECT_EQ(triton, 139u + 52u);
  const ValidationSummary a = summarize(a100), h = summarize(h100);
  EXPECT_LE(a.mean_abs_error, 0.10);
  EXPECT_GT(a.mean_signed_error, 0.0);
  EXPECT_LE(a.mean_signed_error, 0.10);
  EXPECT_LE(h.mean_abs_error, 0.10);
  EXPECT_LE(std::abs(h.mean_signed_error), 0.08);
  EXPECT_LE(std::abs(a.worst_error), 0.45);
  EXPECT_LE(std::abs(h.worst_error), 0.40);
}

TEST(Validation, ServingSetsAreOnTheScoreboard) {
  // The published TensorRT-LLM rows (issue 24's bounds live with the serving
  // tests; here: they are on the board, every row with its engine preset).
  // The whole board, once: the keys each data file declares are the keys its
  // sets carry, in scoreboard order, and a key builds its set alone.
  const std::vector<ValidationSet> all = public_validation_sets();
  const std::vector<std::string_view>& keys = public_validation_keys();
  ASSERT_EQ(all.size(), keys.size());
  for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].key, keys[i]);
  for (const ValidationSet& s : all) {
    if (s.key.rfind("serving-", 0) != 0) continue;
    EXPECT_GT(s.rows.size(), 10u) << s.key;
    for (const ValidationRow& r : s.rows) EXPECT_FALSE(r.setting.empty()) << r.label;
  }
  EXPECT_TRUE(public_validation_sets("no-such-set").empty());
  const std::vector<ValidationSet> one = public_validation_sets("serving-trtllm-first-token");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one.front().rows.size(), 18u);
}

TEST(Validation, TimesCountFasterAsOptimistic) {
  const ValidationSet& k = set_of("korthikanti-2022-table5");
  EXPECT_TRUE(k.lower_is_optimistic);
  EXPECT_FALSE(set_of("narayanan-2021-table1").lower_is_optimistic);
  for (const ValidationRow& r : k.rows) EXPECT_EQ(r.setting, "megatron-2022");
}

TEST(Validation, AMalformedDataSetIsRefusedNamingIt) {
  EXPECT_THROW(megatron_validation_sets("run_id,model\nx,y\n"), std::invalid_argument);
  EXPECT_THROW(vtrain_validation_sets("a,b\n", "a,b\n"), std::invalid_argument);
  // An llm-foundry row whose attention, sharding or GPU the set does not know
  // is refused with its line and column.
  const std::string header =
      "table,model,layers,d_model,heads,seq_len,gpus,gpu,micro_batch,grad_accum,global_batch,"
      "tokens_per_s_per_gpu,precision,mp_mode,sharding,activation_checkpointing,num_params,"
      "attn_impl\n";
  const std::string row = "h100_bf16,1b,24,2048,16,2048,8,GPU,14,1,112,45455,amp_bf16,DEFAULT,";
  auto refusal = [&](const std::string& gpu, const std::string& sharding, const std::string& attn) {
    std::string text = row;
    text.replace(text.find("GPU"), 3, gpu);
    try {
      llm_foundry_validation_sets(header + text + sharding + ",False,1315950592," + attn + "\n");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal("h100_80gb", "FULL_SHARD", "flash"), "accepted");
  EXPECT_NE(refusal("h100_80gb", "FULL_SHARD", "torch").find("line 2, column attn_impl: 'torch'"),
            std::string::npos);
  EXPECT_NE(refusal("h100_80gb", "HYBRID_SHARD", "flash").find("column sharding"),
            std::string::npos);
  EXPECT_NE(refusal("v100_32gb", "FULL_SHARD", "flash").find("column gpu: 'v100_32gb'"),
            std::string::npos);
}

TEST(Validation, Korthikanti530BOn2240GpusMfu) {
  // The headline run of Korthikanti et al.: Table 5's 530B layout replicated
  // over DP = 8 (280 sequences of one per replica, as Table 5), MFU 54.2 %
  // with selective recomputation and 42.1 % with full (the paper's abstract).
  TrainingJob j;
  j.shape = ModelShape{105, 20480, 4 * 20480, 128, 128, 160, 51200};
  j.shape.gated = false;
  j.shape.tied_embeddings = true;
  j.shape.qkv_bias = j.shape.o_bias = j.shape.mlp_bias = true;
  j.chip = "A100-80";
  j.n_chips = 2240;
  j.seq_len = 2048;
  j.global_batch = 280 * 8;
  j.software = software_by_name("megatron-2022");
  for (auto [recompute, sp, reported] : {std::tuple{Checkpointing::selective, true, 54.2},
                                         std::tuple{Checkpointing::full, false, 42.1}}) {
    Layout l;
    l.tp = 8;
    l.pp = 35;
    l.vpp = 3;
    l.dp = 8;
    l.zero = 0;
    l.sequence_parallel = sp;
    l.recompute = recompute;
    const LayoutResult r = evaluate_layout(j, l);
    ASSERT_TRUE(r.valid) << r.reason;
    // Megatron's MFU counts 72·B·s·l·h²·(1 + s/6h + V/12lh).
    const double mfu = 100 * megatron_step_flops(j) / (r.step_seconds * 312e12 * 2240);
    EXPECT_NEAR(mfu, reported, 0.10 * reported);
  }
}
