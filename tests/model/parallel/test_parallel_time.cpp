#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "collectives.h"
#include "model_presets.h"
#include "parallel.h"
#include "parallel_settings.h"
#include "parallel_test_util.h"
#include "validate.h"

namespace napkin {
namespace {

TrainingJob llama70b(std::int64_t chips = 1024, std::int64_t batch = 512) {
  TrainingJob j{.shape = testing_util::preset_shape("Llama-3-70B"),
                .chip = "H100",
                .n_chips = chips,
                .seq_len = 8192,
                .global_batch = batch};
  return j;
}

Layout layout(std::int64_t tp, std::int64_t pp, std::int64_t dp, std::int64_t vpp = 1,
              Checkpointing rc = Checkpointing::selective) {
  Layout l;
  l.tp = tp, l.pp = pp, l.dp = dp, l.vpp = vpp, l.recompute = rc;
  return l;
}

double parts(const StepTime& t) {
  return t.compute_seconds + t.recompute_seconds + t.tp_comm_seconds + t.pp_bubble_seconds +
         t.pp_comm_seconds + t.dp_comm_seconds + t.ep_comm_seconds + t.cp_comm_seconds +
         t.optimizer_seconds;
}

void expect_sane(const LayoutResult& r) {
  ASSERT_TRUE(r.valid) << r.reason;
  const StepTime& t = r.time;
  for (double x : {t.compute_seconds, t.recompute_seconds, t.tp_comm_seconds, t.pp_bubble_seconds,
                   t.pp_comm_seconds, t.dp_comm_seconds, t.ep_comm_seconds, t.cp_comm_seconds,
                   t.optimizer_seconds}) {
    EXPECT_TRUE(std::isfinite(x));
    EXPECT_GE(x, 0);
  }
  EXPECT_NEAR(parts(t), r.step_seconds, 1e-9 * r.step_seconds);
  EXPECT_GT(r.mfu, 0);
  EXPECT_LT(r.mfu, 1);
  EXPECT_GE(r.hfu, r.mfu);
  EXPECT_GT(r.days, 0);
}

TEST(ParallelTime, PartsAddUpForEveryPresetAndLayout) {
  for (const ModelPreset& p : model_presets()) {
    TrainingJob j = llama70b();
    j.shape = p.shape;
    for (const Layout& l : {layout(8, 4, 32), layout(4, 1, 256), layout(1, 8, 128, 1),
                            layout(8, 8, 16, 2, Checkpointing::full)}) {
      if (l.pp > 1 && p.shape.n_layers % (l.pp * l.vpp) != 0 && l.vpp > 1) continue;
      Layout x = l;
      if (p.shape.is_moe()) x.ep = 8;
      const LayoutResult r = evaluate_layout(j, x);
      if (!r.valid) continue;
      expect_sane(r);
    }
  }
}

TEST(ParallelTime, BubbleAndExposedCommSharesOfTheStep) {
  StepTime t;
  EXPECT_EQ(t.bubble_share(), 0);  // a step that takes no time: 0, never NaN
  EXPECT_EQ(t.exposed_comm_share(), 0);
  t.compute_seconds = 6;
  t.pp_bubble_seconds = 1;
  t.tp_comm_seconds = 0.5;
  t.pp_comm_seconds = 0.25;
  t.dp_comm_seconds = 0.25;
  t.ep_comm_seconds = 0.5;
  t.cp_comm_seconds = 0.5;
  t.optimizer_seconds = 1;
  EXPECT_DOUBLE_EQ(t.total_seconds(), 10);
  EXPECT_DOUBLE_EQ(t.exposed_comm_seconds(), 2);
  EXPECT_DOUBLE_EQ(t.bubble_share(), 0.1);
  EXPECT_DOUBLE_EQ(t.exposed_comm_share(), 0.2);
  // A real layout: the step is its parts, so the shares are of the step.
  const LayoutResult r = evaluate_layout(llama70b(), layout(8, 4, 32));
  ASSERT_TRUE(r.valid);
  EXPECT_DOUBLE_EQ(r.time.bubble_share(), r.time.pp_bubble_seconds / r.step_seconds);
  EXPECT_GT(r.time.bubble_share(), 0);
  EXPECT_LT(r.time.bubble_share() + r.time.exposed_comm_share(), 1);
}

TEST(ParallelTime, ThroughputMfuAndDaysFollowTheStep) {
  const TrainingJob j = llama70b();
  const LayoutResult r = evaluate_layout(j, layout(8, 4, 32));
  expect_sane(r);
  const double tokens = 512.0 * 8192;
  EXPECT_NEAR(r.tokens_per_second_per_chip * 1024 * r.step_seconds, tokens, 1e-6 * tokens);
  EXPECT_NEAR(r.mfu, step_model_flops(j) / (r.step_seconds * 1024 * 990e12), 1e-12);
  EXPECT_NEAR(r.days, 15e12 / (tokens / r.step_seconds) / 86400, 1e-9 * r.days);
  EXPECT_EQ(r.micro_batches, 512 / 32);
}

TEST(ParallelTime, StepModelFlopsMatchesMegatronsFormula) {
  // 72·B·s·l·h²·(1 + s/6h + V/12lh) for GPT-3 175B; biases and norms add ~0.01 %.
  TrainingJob j{.shape = gpt_shape(96, 12288, 96), .seq_len = 2048, .global_batch = 1536};
  const double B = 1536, s = 2048, l = 96, h = 12288, V = 51200;
  const double megatron = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
  EXPECT_NEAR(step_model_flops(j), megatron, 2e-4 * megatron);
  EXPECT_DOUBLE_EQ(megatron_step_flops(j), megatron);
}

// Megatron-LM 2021 adds each micro-batch's fp16 weight gradient into .grad
// with a kernel of its own (read both, write one: 6 bytes per parameter) on
// every micro-batch after the first; fp32 main_grad (10 bytes) on every one.
// Fused (the GEMM's epilogue) it costs nothing beyond the GEMM.
TEST(ParallelTime, UnfusedGradientAccumulationStreamsTheStagesParameters) {
  TrainingJob j{.shape = gpt_shape(8, 12288, 96), .chip = "A100-80", .n_chips = 8, .seq_len = 2048};
  Layout l = layout(8, 1, 1, 1, Checkpointing::full);
  l.zero = 0;
  l.sequence_parallel = false;  // Megatron-LM 2021 had none
  const double h = 12288, V = 51200;
  const double params = 8 * 12 * h * h / 8 + V * h / 8;  // biases and norms: < 0.1 %
  const double hbm = kernel_rates(chip_by_name("A100-80")).hbm_bytes_per_s;
  auto extra = [&](bool fp32_grads, std::int64_t batch) {
    j.global_batch = batch;
    j.software = software_by_name("megatron-2021");
    j.software.fp32_grads = fp32_grads;
    const double unfused = evaluate_layout(j, l).step_seconds;
    j.software.fused_grad_accumulation = true;
    return unfused - evaluate_layout(j, l).step_seconds;
  };
  EXPECT_NEAR(extra(false, 1), 0.0, 1e-12);
  EXPECT_NEAR(extra(false, 8), 7 * 6 * params / hbm, 2e-3 * 7 * 6 * params / hbm);
  EXPECT_NEAR(extra(true, 1), 10 * params / hbm, 2e-3 * 10 * params / hbm);
  EXPECT_TRUE(software_by_name("megatron-2022").fused_grad_accumulation);
  EXPECT_FALSE(software_by_name("megatron-deepspeed").fused_grad_accumulation);
}

TEST(ParallelTime, BubbleFallsAsMicroBatchesGrow) {
  double prev = 1;
  for (std::int64_t batch : {32, 64, 128, 256, 512, 1024}) {
    const TrainingJob j = llama70b(256, batch);
    const LayoutResult r = evaluate_layout(j, layout(8, 8, 4));
    expect_sane(r);
    const double fraction = r.time.pp_bubble_seconds / r.step_seconds;
    EXPECT_LT(fraction, prev) << batch;
    prev = fraction;
  }
}

TEST(ParallelTime, InterleavingShrinksTheBubble) {
  const TrainingJob j = llama70b(256, 256);
  double prev = 1e30;
  for (std::int64_t v : {1, 2, 5}) {
    const LayoutResult r = evaluate_layout(j, layout(8, 8, 4, v));
    expect_sane(r);
    EXPECT_LT(r.time.pp_bubble_seconds, prev) << v;
    prev = r.time.pp_bubble_seconds;
  }
}

TEST(ParallelTime, SlowerLinksNeverMakeAStepFaster) {
  // H800 is H100 with NVLink cut to 200 GB/s: same compute, HBM and network.
  for (const Layout& l : {layout(8, 4, 32), layout(4, 2, 128), layout(2, 1, 512),
                          layout(8, 16, 8, 1, Checkpointing::full)}) {
    TrainingJob h100 = llama70b();
    TrainingJob h800 = h100;
    h800.chip = "H800";
    const LayoutResult a = evaluate_layout(h100, l), b = evaluate_layout(h800, l);
    expect_sane(a);
    expect_sane(b);
    EXPECT_GE(b.step_seconds, a.step_seconds) << to_string(l);
    // Communication only adds: never below the step without it.
    EXPECT_GE(a.step_seconds,
              a.time.compute_seconds + a.time.recompute_seconds + a.time.optimizer_seconds);
  }
}

// MI300X's node is a full mesh (hardware.h Network::full_mesh): a TP group of
// two GPUs has one of each GPU's seven links, eight have all seven. Per byte
// of activations, TP 2's collectives take about 7 × (1/2)/(7/8) = 4 times as
// long as TP 8's; behind NVSwitch (H100) they take 4/7 as long. The panel's
// cluster text says so.
TEST(ParallelTime, AFullMeshNodeSlowsSmallTpGroups) {
  TrainingJob j = llama70b(64, 64);
  j.chip = "MI300X";
  const LayoutResult tp2 = evaluate_layout(j, layout(2, 1, 32, 1, Checkpointing::full));
  const LayoutResult tp8 = evaluate_layout(j, layout(8, 1, 8, 1, Checkpointing::full));
  expect_sane(tp2);
  expect_sane(tp8);
  // The same activations per rank, layer and sequence either way; a TP 2
  // rank runs 2 of the 64 sequences, a TP 8 rank 8.
  auto per_sequence = [](const LayoutResult& r, double sequences) {
    return r.time.tp_comm_seconds / sequences;
  };
  EXPECT_GT(per_sequence(tp2, 2), 3.0 * per_sequence(tp8, 8));
  TrainingJob h = j;
  h.chip = "H100";
  const LayoutResult h2 = evaluate_layout(h, layout(2, 1, 32, 1, Checkpointing::full));
  const LayoutResult h8 = evaluate_layout(h, layout(8, 1, 8, 1, Checkpointing::full));
  EXPECT_LT(per_sequence(h2, 2), per_sequence(h8, 8));
  ParallelSettings s;
  EXPECT_NE(s.cluster_text(chip_by_name("MI300X")).find("a full mesh"), std::string::npos);
  EXPECT_EQ(s.cluster_text(chip_by_name("H100")).find("mesh"), std::string::npos);
}

TEST(ParallelTime, OverlapOnlyHelps) {
  TrainingJob j = llama70b();
  std::map<TpOverlap, double> step;
  for (TpOverlap o : {TpOverlap::none, TpOverlap::backward, TpOverlap::full}) {
    j.software.tp_overlap = o;
    step[o] = evaluate_layout(j, layout(8, 4, 32)).step_seconds;
  }
  EXPECT_LE(step[TpOverlap::full], step[TpOverlap::backward]);
  EXPECT_LE(step[TpOverlap::backward], step[TpOverlap::none]);
  j = llama70b();
  const double overlapped = evaluate_layout(j, layout(8, 1, 128)).time.dp_comm_seconds;
  j.software.overlap_dp_comm = false;
  EXPECT_LT(overlapped, evaluate_layout(j, layout(8, 1, 128)).time.dp_comm_seconds);
}

// ZeRO-2 (FSDP's gradient accumulation with communication) reduce-scatters
// every micro-batch's gradients: the scale-out link carries the stage's whole
// gradient once per micro-batch, so a slow link bounds the step; the traffic
// hides behind the layer's backward and the next micro-batch's forward, so it
// is exposed less per micro-batch when there are more of them.
TEST(ParallelTime, ZeroTwoReduceScattersEveryMicroBatchOverTheLink) {
  TrainingJob j = llama70b();
  Network slow = cluster_by_name("dgx-h100").network;
  slow.inter_node_bytes_per_s = 5e9;
  j.network = slow;
  Layout l = layout(8, 4, 32, 1, Checkpointing::none);
  l.zero = 2;
  const LayoutResult many = evaluate_layout(j, l);
  expect_sane(many);
  ASSERT_EQ(many.micro_batches, 16);
  // Each rank's reduce-scatter moves (dp − 1) shards of its gradient.
  const double per_micro_batch = static_cast<double>(l.dp - 1) *
                                 static_cast<double>(many.memory.grads_bytes) /
                                 slow.inter_node_bytes_per_s;
  EXPECT_GE(many.step_seconds, 16 * per_micro_batch);
  // Bound by the link: little beyond it (the fill carries no gradients, the
  // drain's idle time takes the last reduce-scatters).
  EXPECT_LT(many.step_seconds, 1.35 * 16 * per_micro_batch);
  TrainingJob one = j;
  one.global_batch = 32;  // one micro-batch per step
  const LayoutResult single = evaluate_layout(one, l);
  expect_sane(single);
  ASSERT_EQ(single.micro_batches, 1);
  EXPECT_LT(many.time.dp_comm_seconds / 16, single.time.dp_comm_seconds);
  // ZeRO-1 reduces once per step: far less traffic than ZeRO-2 here.
  l.zero = 1;
  EXPECT_LT(evaluate_layout(j, l).step_seconds, many.step_seconds);
  // ZeRO-2 holds one layer's whole gradient until its reduce-scatter: its
  // buffers exceed ZeRO-1's by that layer's fp32 gradient.
  const StageMemory z1 = evaluate_layout(j, l).memory;
  l.zero = 2;
  const StageMemory z2 = evaluate_layout(j, l).memory;
  EXPECT_GT(z2.buffers_bytes, z1.buffers_bytes);
  EXPECT_LT(z2.grads_bytes, z1.grads_bytes);
}

TEST(ParallelTime, RecomputationCostsTimeAndCountsInHfu) {
  const TrainingJob j = llama70b();
  const LayoutResult none = evaluate_layout(j, layout(8, 4, 32, 1, Checkpointing::none));
  const LayoutResult full = evaluate_layout(j, layout(8, 4, 32, 1, Checkpointing::full));
  expect_sane(none);
  expect_sane(full);
  EXPECT_EQ(none.time.recompute_seconds, 0);
  EXPECT_GT(full.time.recompute_seconds, 0.2 * full.time.compute_seconds);
  EXPECT_GT(full.step_seconds, none.step_seconds);
  EXPECT_DOUBLE_EQ(none.hfu, none.mfu);
  EXPECT_GT(full.hfu, full.mfu);
  EXPECT_LT(full.memory.activations_bytes, none.memory.activations_bytes);
}

TEST(ParallelTime, Fp8MatmulsShortenCompute) {
  TrainingJob j = llama70b();
  const double bf16 = evaluate_layout(j, layout(8, 4, 32)).time.compute_seconds;
  j.software.fp8_matmuls = true;
  EXPECT_LT(evaluate_layout(j, layout(8, 4, 32)).time.compute_seconds, 0.8 * bf16);
  j.chip = "A100-80";
  EXPECT_THROW_NAMING(evaluate_layout(j, layout(8, 4, 32)), "fp8");
}

TEST(ParallelTime, MoeLayoutsPayForTheAllToAll) {
  TrainingJob j = llama70b(256, 256);
  j.shape = testing_util::preset_shape("Mixtral-8x7B");
  j.seq_len = 4096;
  Layout l = layout(1, 1, 256);
  l.ep = 1;
  const LayoutResult e1 = evaluate_layout(j, l);
  l.ep = 8;
  const LayoutResult e8 = evaluate_layout(j, l);
  expect_sane(e1);
  expect_sane(e8);
  EXPECT_EQ(e1.time.ep_comm_seconds, 0);
  EXPECT_GT(e8.time.ep_comm_seconds, 0);
  EXPECT_LT(e8.memory.weights_bytes, e1.memory.weights_bytes);
}

TEST(ParallelTime, ContextParallelismExchangesKeysAndValues) {
  TrainingJob j = llama70b(1024, 64);
  j.seq_len = 131072;
  const LayoutResult r = evaluate_layout(j, [] {
    Layout l = layout(8, 8, 1);
    l.cp = 16;
    return l;
  }());
  expect_sane(r);
  EXPECT_GE(r.time.cp_comm_seconds, 0);
  j.software.flash_attention = false;
  Layout l = layout(8, 8, 1);
  l.cp = 16;
  const LayoutResult bad = evaluate_layout(j, l);
  EXPECT_FALSE(bad.valid);
  EXPECT_NE(bad.reason.find("flash"), std::string::npos) << bad.reason;
}

TEST(ParallelTime, InvalidLayoutsSayWhy) {
  const TrainingJob j = llama70b();
  auto reason = [&](Layout l) {
    const LayoutResult r = evaluate_layout(j, l);
    EXPECT_FALSE(r.valid);
    EXPECT_FALSE(r.fits);
    return r.reason;
  };
  EXPECT_NE(reason(layout(8, 4, 31)).find("dp × tp × pp × cp = 992 must equal chips = 1,024"),
            std::string::npos);
  EXPECT_NE(reason(layout(128, 1, 8)).find("tp (tensor-parallel ranks) must be at most heads"),
            std::string::npos);
  EXPECT_NE(reason(layout(1, 128, 8)).find("pp (pipeline stages) must be at most layers"),
            std::string::npos);
  // 80 layers in 4 × 3 chunks is an uneven interleaved schedule (valid); in
  // 4 × 32 chunks some would hold no layer.
  EXPECT_TRUE(evaluate_layout(j, layout(8, 4, 32, 3)).valid);
  EXPECT_NE(reason(layout(8, 4, 32, 32)).find("pp × vpp = 128 model chunks must be at most layers"),
            std::string::npos);
  Layout mb = layout(8, 4, 32);
  mb.micro_batch = 3;
  EXPECT_NE(reason(mb).find("global_batch"), std::string::npos);
  Layout ep = layout(8, 4, 32);
  ep.ep = 2;
  EXPECT_NE(reason(ep).find("ep (expert-parallel ranks) must be 1 for a dense model"),
            std::string::npos);
}

TEST(ParallelTime, BadJobsThrowNamingTheField) {
  TrainingJob j = llama70b();
  j.n_chips = 0;
  EXPECT_THROW_NAMING(evaluate_layout(j, layout(1, 1, 1)), "chips");
  j = llama70b();
  j.seq_len = 0;
  EXPECT_THROW_NAMING(evaluate_layout(j, layout(8, 4, 32)), "seq");
  j = llama70b();
  j.chip = "Z100";
  EXPECT_THROW_NAMING(evaluate_layout(j, layout(8, 4, 32)), "chip must be one of");
  j = llama70b();
  j.software.moe_load_imbalance = 0.5;
  EXPECT_THROW_NAMING(evaluate_layout(j, layout(8, 4, 32)), "moe_load_imbalance");
  EXPECT_THROW_NAMING(software_by_name("megatron-2019"), "software must be one of");
  j = llama70b();
  j.software.fp8_gemm_speedup = 0;
  EXPECT_THROW_NAMING(evaluate_layout(j, layout(8, 4, 32)), "fp8_gemm_speedup");
}

// The job takes every run a plan can ask for, up to the one token limit
// (kMaxTrainTokens, which Scenario::validate applies to the plan's tokens).
TEST(ParallelTime, TheLargestRunAPlanCanAskForIsAJob) {
  TrainingJob j = llama70b();
  j.train_tokens = kMaxTrainTokens;
  EXPECT_NO_THROW(j.validate());
  j.train_tokens = std::nextafter(kMaxTrainTokens, 1e300);
  EXPECT_THROW_NAMING(j.validate(), "tokens");
}

TEST(ParallelTime, EvaluationIsDeterministic) {
  const TrainingJob j = llama70b();
  const LayoutResult a = evaluate_layout(j, layout(8, 4, 32)),
                     b = evaluate_layout(j, layout(8, 4, 32));
  EXPECT_EQ(a.step_seconds, b.step_seconds);
  EXPECT_EQ(a.memory.total_bytes, b.memory.total_bytes);
}

TEST(ParallelLayout, ParseAndPrint) {
  const Layout l = parse_layout("tp=8,pp=4,vpp=2,cp=1,ep=1,zero=1,mb=2,sp=on,recompute=full", 1024);
  EXPECT_EQ(l.tp, 8);
  EXPECT_EQ(l.pp, 4);
  EXPECT_EQ(l.vpp, 2);
  EXPECT_EQ(l.dp, 32);
  EXPECT_EQ(l.micro_batch, 2);
  EXPECT_EQ(l.recompute, Checkpointing::full);
  EXPECT_EQ(to_string(l), "tp=8,pp=4,vpp=2,dp=32,cp=1,ep=1,zero=1,mb=2,sp=on,recompute=full");
  EXPECT_EQ(parse_layout(to_string(l), 1024), l);
  // Missing keys keep the base; dp is derived.
  EXPECT_EQ(parse_layout("tp=2", 16).dp, 8);
  EXPECT_THROW_NAMING(parse_layout("tp=3", 16), "--layout tp × pp × cp = 3 must divide --chips 16");
  EXPECT_THROW_NAMING(parse_layout("tp=2,dp=4", 16), "must equal --chips 16");
  EXPECT_THROW_NAMING(parse_layout("tp=x", 16), "--layout tp");
  EXPECT_THROW_NAMING(parse_layout("foo=1", 16), "--layout key");
  EXPECT_THROW_NAMING(parse_layout("tp", 16), "key=value");
  EXPECT_THROW_NAMING(parse_layout("zero=4", 16), "--layout zero");
  EXPECT_THROW_NAMING(parse_layout("sp=maybe", 16), "--layout sp");
  EXPECT_THROW_NAMING(parse_layout("tp=0", 16), "--layout tp must be in 1 – 65,536; got 0");
  // The limits are the file's and the locks' (kLayoutLimits).
  EXPECT_THROW_NAMING(parse_layout("vpp=1025", 16), "--layout vpp must be in 1 – 1,024");
  EXPECT_THROW_NAMING(parse_layout("mb=1000001", 16), "--layout mb must be in 1 – 1,000,000");
  EXPECT_THROW_NAMING(parse_layout("recompute=full:100001", 16), "N in 1 – 100,000");
  EXPECT_EQ(parse_layout("vpp=1024", 16).vpp, 1024);
  EXPECT_THROW_NAMING(parse_layout("tp=1", 0), "chips");
}

TEST(ParallelLayout, AxesTextNamesOnlyTheAxesThatSplit) {
  EXPECT_EQ(layout_axes_text(parse_layout("tp=8,pp=4", 1024)), "TP 8 · PP 4 · DP 32");
  EXPECT_EQ(layout_axes_text(parse_layout("tp=2,pp=5,vpp=8,cp=4", 1000)),
            "TP 2 · PP 5×8 · DP 25 · CP 4");
  Layout moe = parse_layout("tp=2,pp=8,ep=32,etp=1", 256);
  EXPECT_EQ(layout_axes_text(moe), "TP 2 · PP 8 · DP 16 · EP 32 · ETP 1");
  moe.etp = moe.tp;  // the experts split as the dense layers: no ETP
  EXPECT_EQ(layout_axes_text(moe), "TP 2 · PP 8 · DP 16 · EP 32");
  EXPECT_EQ(layout_axes_text(Layout{}), "TP 1 · PP 1 · DP 1");
}

TEST(ParallelSchedule, UniformOneFOneBMatchesTheClassicFormula) {
  // p stages of forward f and backward b: (m + p − 1)(f + b), bubble (p − 1)/(m + p − 1).
  const std::vector<double> f(4, 1.0), b(4, 2.0);
  const PipelineSchedule s = simulate_pipeline(f, b, 8, 1, 0.0);
  EXPECT_DOUBLE_EQ(s.makespan_seconds, (8 + 4 - 1) * 3.0);
  EXPECT_NEAR(s.bubble_fraction, 3.0 / 11.0, 1e-12);
  EXPECT_EQ(s.ops.size(), 2u * 8 * 4);
}

TEST(ParallelSchedule, InterleavedCutsTheBubbleByV) {
  // v chunks of f/v and b/v: (m + (p − 1)/v)(f + b).
  const std::vector<double> f(4, 0.5), b(4, 1.0);
  const PipelineSchedule s = simulate_pipeline(f, b, 8, 2, 0.0);
  EXPECT_NEAR(s.makespan_seconds, (8 + 3.0 / 2) * 3.0, 1e-9);
  EXPECT_EQ(s.ops.size(), 2u * 8 * 2 * 4);
  EXPECT_LT(s.bubble_fraction, 3.0 / 11.0);
  EXPECT_THROW_NAMING(simulate_pipeline(f, b, 6, 2, 0.0), "multiple of the stages");
}

TEST(ParallelSchedule, BarsRespectDependenciesAndNeverOverlapOnAStage) {
  const std::vector<double> f{1.0, 1.2, 0.9, 1.1}, b{2.0, 2.1, 1.8, 2.4};
  for (std::int64_t v : {1, 3}) {
    const PipelineSchedule s = simulate_pipeline(f, b, 8, v, 0.05);
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, bool>, ScheduleOp> at;
    for (const ScheduleOp& op : s.ops) at[{op.stage, op.chunk, op.micro_batch, op.forward}] = op;
    for (std::size_t i = 1; i < s.ops.size(); ++i) {
      if (s.ops[i].stage == s.ops[i - 1].stage) {
        EXPECT_GE(s.ops[i].start_seconds, s.ops[i - 1].end_seconds - 1e-12);
      }
    }
    for (const ScheduleOp& op : s.ops) {
      const std::int64_t vs = op.chunk * 4 + op.stage;
      if (op.forward && vs > 0) {
        const ScheduleOp& prev = at[{(vs - 1) % 4, (vs - 1) / 4, op.micro_batch, true}];
        EXPECT_GE(op.start_seconds, prev.end_seconds + 0.05 - 1e-12);
      }
      if (!op.forward) {
        const ScheduleOp& fwd = at[{op.stage, op.chunk, op.micro_batch, true}];
        EXPECT_GE(op.start_seconds, fwd.end_seconds - 1e-12);
      }
    }
  }
}

TEST(ParallelSchedule, JobScheduleAgreesWithTheStepTime) {
  const TrainingJob j = llama70b(256, 256);
  const Layout l = layout(8, 8, 4, 2);
  const LayoutResult r = evaluate_layout(j, l);
  const PipelineSchedule s = pipeline_schedule(j, l);
  const double pipeline = r.step_seconds - r.time.dp_comm_seconds - r.time.optimizer_seconds;
  EXPECT_NEAR(s.makespan_seconds, pipeline, 0.05 * pipeline);
  EXPECT_EQ(s.stages, 8);
  EXPECT_EQ(s.chunks, 2);
  EXPECT_EQ(pipeline_schedule(j, l, 16).micro_batches, 16);
}

TEST(ParallelTime, UnevenInterleavedChunksShortenTheEdgesAsLlama3) {
  // Llama 3 405B: 126 layers on 16 stages; the first and the last stage give
  // up a layer (Dubey et al. 2024 §3.3.2).
  const std::vector<std::int64_t> chunks = chunk_layers(126, 16 * 4);
  EXPECT_EQ(chunks.front(), 1);
  EXPECT_EQ(chunks.back(), 1);
  EXPECT_EQ(std::count(chunks.begin(), chunks.end(), 2), 62);
  EXPECT_EQ(chunk_layers(80, 8), std::vector<std::int64_t>(8, 10));
  EXPECT_EQ(chunk_layers(10, 4), (std::vector<std::int64_t>{2, 3, 3, 2}));
  EXPECT_EQ(chunk_layers(7, 4), (std::vector<std::int64_t>{1, 2, 2, 2}));
  EXPECT_THROW_NAMING(chunk_layers(3, 4), "pp × vpp");

  TrainingJob j{.shape = testing_util::preset_shape("Llama-3.1-405B"),
                .chip = "H100",
                .n_chips = 16384,
                .seq_len = 8192,
                .global_batch = 2048};
  Layout l;
  l.tp = 8, l.pp = 16, l.vpp = 4, l.dp = 128, l.zero = 1, l.micro_batch = 1;
  l.recompute = Checkpointing::full;
  const LayoutResult r = evaluate_layout(j, l);
  ASSERT_TRUE(r.valid) << r.reason;
  EXPECT_TRUE(r.fits) << r.reason;
  const std::vector<StageMemory> stages = memory_by_stage(j, l);
  EXPECT_EQ(stages.front().layers, 7);
  EXPECT_EQ(stages[1].layers, 8);
  EXPECT_EQ(stages.back().layers, 7);
  // Meta reports 41 % MFU for this layout (Dubey et al. Table 4, 400 TFLOP/s
  // per GPU of BF16); Napkin's bf16 GEMMs at the rate of a training step
  // (0.53 of the peak) and full recomputation put it near 27 %; a 1F1B
  // schedule would be charged a much larger bubble.
  EXPECT_GT(r.mfu, 0.25);
  EXPECT_LT(r.mfu, 0.41);
}

TEST(ParallelTime, ComputeByKernelAddsUpToComputeAndRecompute) {
  for (const char* software : {"modern", "megatron-2022", "megatron-deepspeed"}) {
    TrainingJob j = llama70b();
    j.software = software_by_name(software);
    for (Checkpointing rc : {Checkpointing::none, Checkpointing::selective, Checkpointing::full}) {
      Layout l = layout(8, 4, 32);
      l.recompute = rc;
      const LayoutResult r = evaluate_layout(j, l);
      ASSERT_TRUE(r.valid) << r.reason;
      const ComputeMix& k = r.time.kernels;
      EXPECT_NEAR(k.total_seconds(), r.time.compute_seconds + r.time.recompute_seconds,
                  1e-9 * r.step_seconds)
          << software;
      EXPECT_GT(k.gemm_seconds, k.elementwise_seconds) << software;
      EXPECT_GT(k.attention_seconds, 0) << software;
      EXPECT_GE(k.host_wait_seconds, 0) << software;
    }
  }
}

TEST(ParallelTime, DeepSpeedPipelineSendsArePartitionedOverTensorRanksBothWays) {
  // DeepSpeed's pipeline engine (since October 2021) partitions the
  // activations and their gradients over the TP ranks: each rank sends 1/t
  // across the nodes and the receiver all-gathers the whole inside its node.
  TrainingJob j{.shape = gpt_shape(48, 8192, 64),
                .chip = "A100-80",
                .n_chips = 512,
                .seq_len = 2048,
                .global_batch = 1536,
                .software = software_by_name("megatron-deepspeed"),
                .network = custom_network(8, 300, 12.5, cluster_by_name("dgx-a100").network)};
  EXPECT_TRUE(j.software.pipeline_scatter_gather);
  EXPECT_TRUE(j.software.pipeline_grad_scatter_gather);
  Layout l;
  l.tp = 8, l.pp = 16, l.dp = 4, l.zero = 0, l.micro_batch = 4, l.sequence_parallel = false;
  l.recompute = Checkpointing::full;
  const LayoutResult r = evaluate_layout(j, l);
  ASSERT_TRUE(r.valid) << r.reason;
  const Chip& chip = chip_by_name("A100-80");
  const Link inter = inter_node_link(chip, *j.network), intra = intra_node_link(chip, *j.network);
  const double bytes = 2.0 * 4 * 2048 * 8192;
  const double gather = collective_seconds(Collective::all_gather, bytes, 8, intra);
  const double one = inter.latency_seconds + bytes / 8 / inter.bytes_per_s + gather;
  const double m = static_cast<double>(r.micro_batches);
  EXPECT_NEAR(r.time.pp_comm_seconds, m * 2 * one, 1e-9 * r.time.pp_comm_seconds);
  // Whole gradients back (DeepSpeed before October 2021): 7/8 more bytes
  // across the nodes, no gather.
  j.software.pipeline_grad_scatter_gather = false;
  const LayoutResult whole = evaluate_layout(j, l);
  EXPECT_NEAR(whole.time.pp_comm_seconds - r.time.pp_comm_seconds,
              m * (bytes * 7 / 8 / inter.bytes_per_s - gather), 1e-9 * r.time.pp_comm_seconds);
  // Sequence parallelism sends the rank's own 1/t of the sequence: no gather.
  j.software.pipeline_grad_scatter_gather = true;
  l.sequence_parallel = true;
  EXPECT_NEAR(evaluate_layout(j, l).time.pp_comm_seconds, m * 2 * (one - gather),
              1e-9 * r.time.pp_comm_seconds);
}

TEST(ParallelTime, SmallLayersWaitForTheHost) {
  // A 1,024-wide GPT layer split 8 ways runs kernels of a few microseconds:
  // an eager framework's dispatch, not the GPU, sets the pace.
  TrainingJob j{.shape = gpt_shape(24, 1024, 16),
                .chip = "A100-80",
                .n_chips = 8,
                .seq_len = 1024,
                .global_batch = 16,
                .software = software_by_name("megatron-deepspeed")};
  Layout l;
  l.tp = 8, l.dp = 1, l.zero = 0, l.micro_batch = 1, l.sequence_parallel = false;
  l.recompute = Checkpointing::full;
  const LayoutResult slow = evaluate_layout(j, l);
  ASSERT_TRUE(slow.valid) << slow.reason;
  EXPECT_GT(slow.time.kernels.host_wait_seconds, 0.5 * slow.time.compute_seconds);
  j.software.host_dispatch_seconds = 0;
  EXPECT_LT(evaluate_layout(j, l).step_seconds, 0.5 * slow.step_seconds);
}

}  // namespace
}  // namespace napkin
