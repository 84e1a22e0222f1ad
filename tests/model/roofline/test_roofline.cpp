#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "roofline.h"
#include "roofline_test_util.h"

namespace napkin {
namespace {

// ------------------------------------------------------------------- roofline

TEST(Roofline, RidgePointsOfTheSeedChips) {
  // Seed Phase 03 ch. 2: 296 / 154 / 241 / 166 FLOP/byte.
  EXPECT_NEAR(ridge_point_flops_per_byte(h100()), 296, 0.5);
  EXPECT_NEAR(ridge_point_flops_per_byte(chip_by_name("A100-80")), 154, 0.5);
  EXPECT_NEAR(ridge_point_flops_per_byte(v5e()), 241, 0.5);
  EXPECT_NEAR(ridge_point_flops_per_byte(chip_by_name("TPU v5p")), 166, 0.5);
}

TEST(Roofline, NewerChipHasHigherRidgeBecauseComputeOutgrewBandwidth) {
  const Chip& a100 = chip_by_name("A100-80");
  EXPECT_GT(ridge_point_flops_per_byte(h100()), ridge_point_flops_per_byte(a100));
  EXPECT_NEAR(h100().peak_flops_per_s / a100.peak_flops_per_s, 3.2, 0.05);  // "3.2×"
  EXPECT_NEAR(h100().hbm_bytes_per_s / a100.hbm_bytes_per_s, 1.7, 0.05);    // "1.7×"
}

TEST(Roofline, ArithmeticIntensityAndInvalidInput) {
  EXPECT_DOUBLE_EQ(arithmetic_intensity(140e9, 140e9), 1.0);
  EXPECT_DOUBLE_EQ(arithmetic_intensity(0, 10), 0.0);
  EXPECT_THROW_NAMING(arithmetic_intensity(1, 0), "bytes");
  EXPECT_THROW_NAMING(arithmetic_intensity(1, -5), "bytes");
  EXPECT_THROW_NAMING(arithmetic_intensity(-1, 5), "flops");
  EXPECT_THROW_NAMING(arithmetic_intensity(NAN, 5), "flops");
  EXPECT_THROW_NAMING(attainable_flops_per_s(h100(), -1), "intensity");
  EXPECT_THROW_NAMING(attainable_flops_per_s(h100(), INFINITY), "intensity");
}

TEST(Roofline, ContinuousAtTheRidgeForEveryChip) {
  for (const Chip& c : hardware_table()) {
    const double ridge = ridge_point_flops_per_byte(c);
    const double below = attainable_flops_per_s(c, ridge * (1 - 1e-12));
    const double at = attainable_flops_per_s(c, ridge);
    const double above = attainable_flops_per_s(c, ridge * (1 + 1e-12));
    EXPECT_NEAR(below / c.peak_flops_per_s, 1.0, 1e-9) << c.name;
    EXPECT_NEAR(at / c.peak_flops_per_s, 1.0, 1e-12) << c.name;
    EXPECT_DOUBLE_EQ(above, c.peak_flops_per_s) << c.name;
    EXPECT_EQ(roofline_point(c, ridge * 0.99, 1).bound, Bound::memory) << c.name;
    EXPECT_EQ(roofline_point(c, ridge * 1.01, 1).bound, Bound::compute) << c.name;
  }
}

TEST(Roofline, SlopeIsBandwidthAndRoofIsPeak) {
  EXPECT_DOUBLE_EQ(attainable_flops_per_s(h100(), 10), 10 * h100().hbm_bytes_per_s);
  EXPECT_DOUBLE_EQ(attainable_flops_per_s(h100(), 1e6), h100().peak_flops_per_s);
  double last = 0;
  for (double i = 0.01; i < 1e5; i *= 1.3) {
    const double a = attainable_flops_per_s(h100(), i);
    EXPECT_GE(a, last);
    last = a;
  }
}

TEST(Roofline, VerdictNamesTheLever) {
  EXPECT_EQ(to_string(Bound::memory), "memory");
  EXPECT_EQ(to_string(Bound::compute), "compute");
  EXPECT_EQ(lever(Bound::memory), "reduce bytes moved");
  EXPECT_EQ(lever(Bound::compute), "reduce FLOPs");
}

TEST(Roofline, HalvingBandwidthDoublesMemoryBoundTimeOnly) {
  Chip slow = h100();
  slow.hbm_bytes_per_s /= 2;
  const RooflinePoint mem = roofline_point(h100(), 140e9, 140e9);
  const RooflinePoint mem_slow = roofline_point(slow, 140e9, 140e9);
  EXPECT_EQ(mem.bound, Bound::memory);
  EXPECT_DOUBLE_EQ(mem_slow.seconds, 2 * mem.seconds);
  // A matmul far above both ridges does not notice.
  const RooflinePoint mm = roofline_point(h100(), 1e15, 1e9);
  const RooflinePoint mm_slow = roofline_point(slow, 1e15, 1e9);
  EXPECT_EQ(mm_slow.bound, Bound::compute);
  EXPECT_DOUBLE_EQ(mm_slow.seconds, mm.seconds);
}

TEST(Roofline, CurveContainsTheRidgeAndSpansTheRange) {
  const auto curve = roofline_curve(h100(), 0.1, 1e5, 64);
  ASSERT_EQ(curve.size(), 65u);  // 64 samples + the ridge
  EXPECT_DOUBLE_EQ(curve.front().intensity, 0.1);
  EXPECT_DOUBLE_EQ(curve.back().intensity, 1e5);
  bool has_ridge = false;
  for (std::size_t i = 1; i < curve.size(); ++i) {
    EXPECT_GT(curve[i].intensity, curve[i - 1].intensity);
    EXPECT_GE(curve[i].attainable_flops_per_s, curve[i - 1].attainable_flops_per_s);
    if (curve[i].intensity == ridge_point_flops_per_byte(h100())) has_ridge = true;
  }
  EXPECT_TRUE(has_ridge);
  EXPECT_EQ(roofline_curve(h100(), 1000, 1e5, 10).size(), 10u);  // ridge outside
  EXPECT_THROW_NAMING(roofline_curve(h100(), 0, 10, 10), "min_intensity");
  EXPECT_THROW_NAMING(roofline_curve(h100(), 10, 10, 10), "max_intensity");
  EXPECT_THROW_NAMING(roofline_curve(h100(), 1, 10, 1), "n_points");
}

// ------------------------------------------------------- operations to place

TEST(RooflineOperations, TheSeedsThreeOperationsOnH100) {
  // Seed Phase 03 ch. 3: matmul 2730.7 compute 100.0 %; decode batch 1 AI 1.0
  // memory 0.3 %; layernorm 8k × 8k AI 1.2 memory 0.4 %.
  const auto ops = place_operations(h100(), llama3_70b());
  ASSERT_EQ(ops.size(), 5u);
  const auto& mm = op(ops, "large matmul");
  EXPECT_NEAR(mm.intensity, 2730.7, 0.05);
  EXPECT_EQ(mm.bound, Bound::compute);
  EXPECT_NEAR(mm.fraction_of_peak, 1.000, 0.0005);
  EXPECT_EQ(lever(mm.bound), "reduce FLOPs");
  EXPECT_DOUBLE_EQ(mm.flops, 2.0 * 8192.0 * 8192.0 * 8192.0);

  const auto& dec = op(ops, "decode");
  EXPECT_NEAR(dec.intensity, 1.0, 0.05);
  EXPECT_EQ(dec.bound, Bound::memory);
  EXPECT_NEAR(dec.fraction_of_peak, 0.003, 0.0005);
  EXPECT_EQ(lever(dec.bound), "reduce bytes moved");

  const auto& ln = op(ops, "layernorm");
  // 5 FLOPs over 4 bytes per element: exactly 1.25, which the seed's "%.1f"
  // prints as "1.2".
  EXPECT_DOUBLE_EQ(ln.intensity, 1.25);
  char printed[16];
  std::snprintf(printed, sizeof printed, "%.1f", ln.intensity);
  EXPECT_STREQ(printed, "1.2");
  EXPECT_EQ(ln.bound, Bound::memory);
  EXPECT_NEAR(ln.fraction_of_peak, 0.004, 0.0005);
}

TEST(RooflineOperations, PrefillIsComputeBoundAndAttentionIntensityIsTheGroupSize) {
  const auto ops = place_operations(h100(), llama3_70b());
  const auto& pre = op(ops, "prefill");
  EXPECT_EQ(pre.bound, Bound::compute);
  EXPECT_GT(pre.intensity, 5000);  // ~T FLOP/byte at bf16
  // 2·H·d_h per cached token per request over 2·kv·d_h·b bytes: group / (b/2).
  EXPECT_DOUBLE_EQ(op(ops, "attention").intensity, 8.0);
  ModelShape mha = llama3_70b();
  mha.n_kv_heads = 64;
  EXPECT_DOUBLE_EQ(op(place_operations(h100(), mha), "attention").intensity, 1.0);
}

TEST(RooflineOperations, DecodeMatchesThePhase00Intensity) {
  OperationSetting s;
  s.decode_batch = 64;
  const ModelShape shape = llama3_70b();
  const double n = static_cast<double>(count_params(shape).active);
  const std::int64_t kv = kv_cache_bytes(80, 8, 128, 8192, 64);
  EXPECT_NEAR(op(place_operations(h100(), shape, s), "decode").intensity,
              decode_arithmetic_intensity(n, kv, 64), 1e-12);
}

TEST(RooflineOperations, InvalidSettingNamesTheField) {
  OperationSetting s;
  s.decode_batch = 0;
  EXPECT_THROW_NAMING(place_operations(h100(), llama3_70b(), s), "decode_batch");
  s = {};
  s.bytes_per_param = 0;
  EXPECT_THROW_NAMING(place_operations(h100(), llama3_70b(), s), "bytes_per_param");
  ModelShape bad = llama3_70b();
  bad.n_kv_heads = 7;
  EXPECT_THROW_NAMING(place_operations(h100(), bad), "kv_heads");
}

// ----------------------------------------------------------------------- MFU

TEST(RooflineMfu, TheSeedsBudgetIs35Point7PercentAndTheLeverIsMemory) {
  const MfuBudget b = mfu_budget({});  // 100 / 45 / 60 / 50 / 25 s
  EXPECT_NEAR(b.mfu, 0.357, 0.0005);
  EXPECT_NEAR(b.vector_fraction, 0.161, 0.0005);
  EXPECT_NEAR(b.memory_fraction, 0.214, 0.0005);
  EXPECT_NEAR(b.comms_fraction, 0.179, 0.0005);
  EXPECT_NEAR(b.optimizer_fraction, 0.089, 0.0005);
  EXPECT_EQ(b.biggest_lever, MfuLever::memory);
  EXPECT_EQ(to_string(b.biggest_lever), "memory");
  EXPECT_DOUBLE_EQ(b.total_seconds, 280);
  // An accounting identity: it sums to 1.
  EXPECT_NEAR(
      b.mfu + b.vector_fraction + b.memory_fraction + b.comms_fraction + b.optimizer_fraction, 1.0,
      1e-12);
}

TEST(RooflineMfu, PerfectMfuOnlyWhenOnlyMatmulRuns) {
  const MfuBudget b = mfu_budget({10, 0, 0, 0, 0});
  EXPECT_DOUBLE_EQ(b.mfu, 1.0);
  EXPECT_EQ(b.biggest_lever, MfuLever::none);
  EXPECT_LT(mfu_budget({10, 0, 0, 0, 1e-9}).mfu, 1.0);
}

TEST(RooflineMfu, TiesGoToTheFirstLoss) {
  EXPECT_EQ(mfu_budget({1, 5, 5, 5, 5}).biggest_lever, MfuLever::vector);
  EXPECT_EQ(mfu_budget({1, 1, 2, 3, 3}).biggest_lever, MfuLever::comms);
  EXPECT_EQ(mfu_budget({1, 1, 2, 3, 4}).biggest_lever, MfuLever::optimizer);
}

TEST(RooflineMfu, BudgetRejectsNegativeAndEmptyTime) {
  EXPECT_THROW_NAMING(mfu_budget({1, -1, 0, 0, 0}), "vector_seconds");
  EXPECT_THROW_NAMING(mfu_budget({0, 0, 0, 0, 0}), "matmul_seconds + vector_seconds");
  EXPECT_THROW_NAMING(mfu_budget({NAN, 0, 0, 0, 0}), "matmul_seconds");
}

TEST(RooflineMfu, MfuIs11Point8AndHfuIs15Point7) {
  // The seed prints the result, not its inputs; 70B trained on 1e9 tokens in
  // an hour on 1000 H100 is a run at exactly that MFU.
  const double model_flops = training_flops(70e9, 1e9);
  const double m = mfu(model_flops, 3600, h100(), 1000);
  const double h = hfu(model_flops, 3600, h100(), 1000);
  EXPECT_NEAR(m, 0.118, 0.0005);
  EXPECT_NEAR(h, 0.157, 0.0005);
  EXPECT_NEAR(h / m, 8.0 / 6.0, 1e-12);  // ~33 % apart, for free
}

TEST(RooflineMfu, HfuIsAlwaysAtLeastMfu) {
  for (double factor : {1.0, 6.5 / 6.0, 8.0 / 6.0, 1.5})
    for (double frac : {0.01, 0.3, 0.6}) {
      const double flops = frac * 3600 * h100().peak_flops_per_s * 64;
      EXPECT_GE(hfu(flops, 3600, h100(), 64, factor), mfu(flops, 3600, h100(), 64));
    }
  EXPECT_DOUBLE_EQ(hfu(1e18, 3600, h100(), 64, 1.0), mfu(1e18, 3600, h100(), 64));
}

TEST(RooflineMfu, ImpossibleUtilisationThrows) {
  const double cap = 3600 * h100().peak_flops_per_s;
  EXPECT_DOUBLE_EQ(mfu(cap, 3600, h100(), 1), 1.0);
  EXPECT_THROW_NAMING(mfu(cap * 1.01, 3600, h100(), 1), "model_flops");
  EXPECT_THROW_NAMING(hfu(cap * 0.9, 3600, h100(), 1), "recompute_factor");
  EXPECT_THROW_NAMING(hfu(1e18, 3600, h100(), 1, 0.9), "recompute_factor");
  EXPECT_THROW_NAMING(mfu(1e18, 0, h100(), 1), "seconds");
  EXPECT_THROW_NAMING(mfu(1e18, 1, h100(), 0), "n_chips");
}

// ------------------------------------------------------- the latency napkin

TEST(RooflineLatency, PrefillReproducesTheTalksNumber) {
  // Claim 14 / Phase 03 ch. 6: 5.822 s for Llama3-70B's 8k prefill on one v5e.
  EXPECT_NEAR(prefill_seconds(8192, 70e9, v5e(), 1), 5.822, 0.0005);
  // 8k tokens of prefill is 1.1 PFLOPs.
  EXPECT_NEAR(inference_flops(70e9, 8192) / 1e15, 1.1, 0.05);
}

TEST(RooflineLatency, PrefillIsTwoNNotSixN) {
  const double s = prefill_seconds(8192, 70e9, v5e(), 1);
  EXPECT_DOUBLE_EQ(s * v5e().peak_flops_per_s, 2.0 * 70e9 * 8192);
  EXPECT_NEAR(training_flops(70e9, 8192) / v5e().peak_flops_per_s / s, 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(prefill_seconds(8192, 70e9, v5e(), 1, 0.5), 2 * s);
}

TEST(RooflineLatency, TheSeedsChipTable) {
  // Phase 03 ch. 6 (prefill / decode / total, 250 ms scaffolding, OK at ≤ 1 s).
  struct Row {
    std::int64_t chips;
    double prefill, decode, total;
    bool ok;
  };
  const Row rows[] = {{1, 5.822, 21.880, 27.952, false},
                      {4, 1.455, 5.470, 7.176, false},
                      {16, 0.364, 1.368, 1.981, false},
                      {64, 0.091, 0.342, 0.683, true},
                      {128, 0.045, 0.171, 0.466, true}};
  TurnInputs in;
  for (const Row& r : rows) {
    const TurnLatency t = interactive_latency(in, r.chips);
    EXPECT_EQ(t.n_chips, r.chips);
    EXPECT_NEAR(t.prefill_seconds, r.prefill, 0.0005) << r.chips;
    EXPECT_NEAR(t.decode_seconds, r.decode, 0.0005) << r.chips;
    EXPECT_NEAR(t.total_seconds, r.total, 0.0005) << r.chips;
    EXPECT_DOUBLE_EQ(t.overhead_seconds, 0.25);
    EXPECT_EQ(t.meets_budget, r.ok) << r.chips;
  }
  in.n_chips = 64;
  EXPECT_NEAR(interactive_latency(in).total_seconds, 0.683, 0.0005);
}

TEST(RooflineLatency, AFourByFourStationBringsPrefillUnderTheHalfSecondLimit) {
  EXPECT_LT(prefill_seconds(8192, 70e9, v5e(), 16), 0.5);
  EXPECT_GT(prefill_seconds(8192, 70e9, v5e(), 8), 0.5);
}

TEST(RooflineLatency, DecodeCostsAbout3Point8TimesPrefillAtBatch1) {
  const double d = decode_seconds(128, 70e9, v5e(), 1);
  EXPECT_NEAR(d / prefill_seconds(8192, 70e9, v5e(), 1), 3.8, 0.05);
  // 128 tokens × 140 GB = 17.9 TB of memory traffic.
  EXPECT_NEAR(d * v5e().hbm_bytes_per_s / 1e12, 17.9, 0.05);
}

TEST(RooflineLatency, DecodeHasNoPeakFlopsInIt) {
  Chip fast = v5e();
  fast.peak_flops_per_s *= 10;
  EXPECT_EQ(decode_seconds(128, 70e9, fast, 4, 2.0, 8, 1'000'000),
            decode_seconds(128, 70e9, v5e(), 4, 2.0, 8, 1'000'000));
  Chip slow = v5e();
  slow.hbm_bytes_per_s /= 2;
  EXPECT_DOUBLE_EQ(decode_seconds(128, 70e9, slow, 4, 2.0, 8, 1'000'000),
                   2 * decode_seconds(128, 70e9, v5e(), 4, 2.0, 8, 1'000'000));
}

TEST(RooflineLatency, DecodeSharesWeightsAcrossTheBatchAndPaysKvPerRequest) {
  const double one = decode_seconds(1, 70e9, v5e(), 1, 2.0, 1);
  EXPECT_DOUBLE_EQ(decode_seconds(1, 70e9, v5e(), 1, 2.0, 64), one);  // no KV: batch is free
  const std::int64_t kv = kv_cache_bytes(80, 8, 128, 8192, 1);
  const double with_kv = decode_seconds(1, 70e9, v5e(), 1, 2.0, 64, kv);
  EXPECT_DOUBLE_EQ(with_kv * v5e().hbm_bytes_per_s, 140e9 + 64.0 * static_cast<double>(kv));
  EXPECT_DOUBLE_EQ(decode_seconds(1, 70e9, v5e(), 1, 1.0), one / 2);  // int8 halves it
  EXPECT_DOUBLE_EQ(decode_seconds(0, 70e9, v5e(), 1), 0.0);
  EXPECT_THROW_NAMING(decode_seconds(1, 70e9, v5e(), 1, 2.0, 0), "batch");
  EXPECT_THROW_NAMING(decode_seconds(1, 70e9, v5e(), 1, 0.0), "bytes_per_param");
  EXPECT_THROW_NAMING(decode_seconds(1, 70e9, v5e(), 1, 2.0, 1, 0, 1.5), "bandwidth_efficiency");
}

TEST(RooflineLatency, ChipsToHoldTheWeights) {
  // 140 GB on 16 GB chips: 9 (Phase 03 ch. 6); 70 / 34 / 16 GB: 5 / 3 / 1.
  EXPECT_EQ(chips_to_hold_weights(70e9, v5e()), 9);
  EXPECT_EQ(chips_to_hold_weights(35e9, v5e()), 5);
  EXPECT_EQ(chips_to_hold_weights(17e9, v5e()), 3);
  EXPECT_EQ(chips_to_hold_weights(8e9, v5e()), 1);  // exactly 16 GB: one chip
  EXPECT_EQ(chips_to_hold_weights(8e9, v5e(), 1.0), 1);
  EXPECT_EQ(chips_to_hold_weights(70e9, h100()), 2);
  EXPECT_THROW_NAMING(chips_to_hold_weights(0, v5e()), "n_params");
}

TEST(RooflineLatency, ChipsForAOneSecondTurnShrinkWithTheModel) {
  // Phase 03 ch. 6: 70 / 35 / 17 / 8 B → 64 / 32 / 16 / 8 chips (9 / 5 / 3 / 1 to hold).
  TurnInputs in;
  const auto sweep = model_size_sweep(in, {70e9, 35e9, 17e9, 8e9});
  const std::int64_t chips[] = {64, 32, 16, 8};
  const std::int64_t hold[] = {9, 5, 3, 1};
  ASSERT_EQ(sweep.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    ASSERT_TRUE(sweep[i].chips_for_budget.has_value()) << i;
    EXPECT_EQ(*sweep[i].chips_for_budget, chips[i]);
    EXPECT_EQ(sweep[i].chips_to_hold_weights, hold[i]);
  }
  EXPECT_NEAR(sweep[0].single_chip_seconds, 27.952, 0.0005);
  EXPECT_EQ(chips_for_latency_budget(in), 64);
}

TEST(RooflineLatency, ASmallerModelNeverNeedsMoreChips) {
  TurnInputs in;
  std::vector<double> sizes;
  for (double n = 1e9; n <= 1e12; n *= 1.25) sizes.push_back(n);
  const auto sweep = model_size_sweep(in, sizes);
  for (std::size_t i = 1; i < sweep.size(); ++i) {
    ASSERT_TRUE(sweep[i].chips_for_budget && sweep[i - 1].chips_for_budget);
    EXPECT_GE(*sweep[i].chips_for_budget, *sweep[i - 1].chips_for_budget);
    EXPECT_GE(sweep[i].chips_to_hold_weights, sweep[i - 1].chips_to_hold_weights);
  }
}

TEST(RooflineLatency, BudgetMetExactlyCounts) {
  TurnInputs in;
  in.budget_seconds = interactive_latency(in, 64).total_seconds;
  EXPECT_TRUE(interactive_latency(in, 64).meets_budget);
  EXPECT_EQ(chips_for_latency_budget(in), 64);
  in.budget_seconds = std::nextafter(in.budget_seconds, 0.0);
  EXPECT_EQ(chips_for_latency_budget(in), 128);
}

TEST(RooflineLatency, UnreachableBudgetReturnsNoneAndTerminates) {
  TurnInputs in;
  in.budget_seconds = 0.25 + 1e-9;  // would need ~3e10 chips
  EXPECT_EQ(chips_for_latency_budget(in), std::nullopt);
  in.max_chips = std::int64_t{1} << 40;  // the largest search ends, with an absurd slice
  EXPECT_EQ(chips_for_latency_budget(in), std::int64_t{1} << 35);
  in.budget_seconds = 0.25 + 1e-15;  // ~3e16 chips: more than any search
  EXPECT_EQ(chips_for_latency_budget(in), std::nullopt);
  // A serial floor per decode step no chip count shrinks: 128 × 6 ms + 250 ms > 1 s.
  TurnInputs floor;
  floor.per_step_floor_seconds = 0.006;
  EXPECT_EQ(chips_for_latency_budget(floor), std::nullopt);
  // A smaller floor is reachable, but it costs chips.
  floor.per_step_floor_seconds = 0.003;
  ASSERT_TRUE(chips_for_latency_budget(floor).has_value());
  EXPECT_EQ(*chips_for_latency_budget(floor), 128);
  // And max_chips caps the answer.
  TurnInputs capped;
  capped.max_chips = 32;
  EXPECT_EQ(chips_for_latency_budget(capped), std::nullopt);
}

TEST(RooflineLatency, BudgetAtOrBelowOverheadRaises) {
  TurnInputs in;
  in.budget_seconds = 0.2;
  EXPECT_THROW_NAMING(chips_for_latency_budget(in), "budget_seconds");
  in.budget_seconds = 0.25;
  EXPECT_THROW_NAMING(chips_for_latency_budget(in), "overhead_seconds");
  in.budget_seconds = 0;
  EXPECT_THROW_NAMING(chips_for_latency_budget(in), "budget_seconds");
}

TEST(RooflineLatency, InvalidTurnNamesTheField) {
  TurnInputs in;
  in.chip = "TPU v9";
  EXPECT_THROW_NAMING(interactive_latency(in), "chip");
  in = {};
  in.n_params = -1;
  EXPECT_THROW_NAMING(interactive_latency(in), "n_params");
  in = {};
  in.prefill_mfu = 0;
  EXPECT_THROW_NAMING(interactive_latency(in), "prefill_mfu");
  in = {};
  in.overhead_seconds = NAN;
  EXPECT_THROW_NAMING(interactive_latency(in), "overhead_seconds");
  in = {};
  EXPECT_THROW_NAMING(interactive_latency(in, 0), "n_chips");
}

TEST(RooflineLatency, LatencyVsChipsStacksAndHalves) {
  TurnInputs in;
  const auto pts = latency_vs_chips(in, 1024);
  ASSERT_EQ(pts.size(), 11u);
  for (std::size_t i = 0; i < pts.size(); ++i) {
    EXPECT_EQ(pts[i].n_chips, std::int64_t{1} << i);
    EXPECT_DOUBLE_EQ(pts[i].total_seconds,
                     pts[i].prefill_seconds + pts[i].decode_seconds + pts[i].overhead_seconds);
    if (i > 0) {
      EXPECT_NEAR(pts[i].prefill_seconds * 2, pts[i - 1].prefill_seconds, 1e-12);
    }
  }
  EXPECT_FALSE(pts[5].meets_budget);  // 32 chips
  EXPECT_TRUE(pts[6].meets_budget);   // 64 chips
}

TEST(RooflineLatency, HalvingNHalvesBothColumns) {
  TurnInputs big, half;
  half.n_params = 35e9;
  const TurnLatency a = interactive_latency(big, 16), b = interactive_latency(half, 16);
  EXPECT_DOUBLE_EQ(a.prefill_seconds, 2 * b.prefill_seconds);
  EXPECT_DOUBLE_EQ(a.decode_seconds, 2 * b.decode_seconds);
}

// ---------------------------------------------- extension: long-prompt attention

TEST(RooflineAttention, CountsQueryKeyPairs) {
  EXPECT_EQ(prefill_attention_flops(1, 1, 1, 3, 0), 4 * 9);
  EXPECT_EQ(prefill_attention_flops(1, 1, 1, 3, 0, CausalMask::causal_half), 4 * 6);
  EXPECT_EQ(prefill_attention_flops(1, 1, 1, 3, 10, CausalMask::causal_half), 4 * (30 + 6));
  EXPECT_EQ(prefill_attention_flops(2, 3, 5, 4, 10), 4 * 2 * 3 * 5 * 4 * 14);
  EXPECT_THROW_NAMING(prefill_attention_flops(1, 1, 1, 0, 0), "new_tokens");
  EXPECT_THROW_NAMING(prefill_attention_flops(1, 1, 1, 1, -1), "prior_context_tokens");
}

TEST(RooflineAttention, At128kContextTheNapkinsConclusionChanges) {
  // 8k new tokens after 120k already cached, on Llama3-70B's 64 × 128 heads.
  const std::int64_t attn = prefill_attention_flops(80, 64, 128, 8192, 131072 - 8192);
  EXPECT_GT(static_cast<double>(attn), 2 * inference_flops(70e9, 8192));  // attention dominates
  EXPECT_GT(prefill_seconds(8192, 70e9, v5e(), 1, 1.0, attn),
            3 * prefill_seconds(8192, 70e9, v5e(), 1));
  // The 0.5 s prefill station grows from 16 chips to 64.
  auto station = [&](std::int64_t a) {
    std::int64_t c = 1;
    while (prefill_seconds(8192, 70e9, v5e(), c, 1.0, a) >= 0.5) c *= 2;
    return c;
  };
  EXPECT_EQ(station(0), 16);
  EXPECT_EQ(station(attn), 64);
  TurnInputs in;
  in.prefill_attention_flops = attn;
  EXPECT_GT(interactive_latency(in, 64).total_seconds, interactive_latency({}, 64).total_seconds);
}

}  // namespace
}  // namespace napkin
