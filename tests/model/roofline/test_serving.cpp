#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "model_presets.h"
#include "rng.h"
#include "roofline.h"
#include "serving.h"
#include "serving_test_util.h"

using namespace napkin;

namespace {

// The seed's latency napkin (Claim 14): 70B on TPU v5e, 8k prompt, 128 out.
ServingInputs napkin_turn(std::int64_t tp, std::int64_t pp = 1) {
  ServingInputs in;
  in.chip = "TPU v5e";
  in.layout = {tp, pp, 1};
  in.assume = ServingAssumptions::napkin();
  return in;
}

double sum(const std::vector<TimePart>& parts) {
  double s = 0;
  for (const TimePart& p : parts) s += p.seconds;
  return s;
}

}  // namespace

// ------------------------------------------------------ the model as served

TEST(ServingModel, FromAShapeSplitsTablesAndExperts) {
  const ServingModel m = serving_model(kLlama3_70B);
  EXPECT_DOUBLE_EQ(m.total_params(), 70'553'706'496.0);
  EXPECT_DOUBLE_EQ(m.input_embedding_params, 128256.0 * 8192);
  EXPECT_DOUBLE_EQ(m.routed_expert_params, 0);
  // FLOPs count the unembedding, not the input row gather.
  EXPECT_DOUBLE_EQ(m.active_params(), 70'553'706'496.0 - 128256.0 * 8192);
  EXPECT_EQ(m.kv.groups, 8);
  EXPECT_EQ(m.kv.elements_per_group, 256);

  const ModelShape mixtral = preset("Mixtral-8x7B");
  const ServingModel x = serving_model(mixtral);
  const ParamCount c = count_params(mixtral);
  EXPECT_DOUBLE_EQ(x.total_params(), static_cast<double>(c.total));
  // 32 layers × 8 experts × 3 × 4096 × 14336 routed; 2 of 8 active.
  EXPECT_DOUBLE_EQ(x.routed_expert_params, 32.0 * 8 * 3 * 4096 * 14336);
  EXPECT_DOUBLE_EQ(x.active_routed_expert_params, x.routed_expert_params / 4);
  EXPECT_EQ(x.n_moe_layers, 32);
  EXPECT_TRUE(x.is_moe());
}

TEST(ServingModel, BareCountIsTheNapkinsN) {
  for (double n : {8e9, 17e9, 35e9, 70e9, 405e9}) {
    const ServingModel m = serving_model(n);
    EXPECT_DOUBLE_EQ(m.total_params(), n);
    EXPECT_DOUBLE_EQ(m.active_params(), n);
    EXPECT_TRUE(m.shape_assumed);
    // A power-of-two head count so power-of-two TP degrees divide it.
    EXPECT_EQ(m.n_heads & (m.n_heads - 1), 0) << n;
    EXPECT_EQ(m.n_heads * m.d_head, m.d_model) << n;
  }
  EXPECT_EQ(serving_model(70e9).n_heads, 64);
  EXPECT_THROW(serving_model(1e3), std::invalid_argument);
}

// -------------------------------------------------------------- memory

TEST(ServingMemory, WeightsAndKvPerChip) {
  // Llama-3-70B on 8 H100, TP 8, bf16, 8 requests of 8,192 + 128 tokens.
  const ServingModel m = serving_model(kLlama3_70B);
  ServingInputs in;
  in.chip = "H100";
  in.layout = {8, 1, 1};
  in.batch = 8;
  const ServingResult r = evaluate_serving(m, in);
  EXPECT_NEAR(r.memory.weights_bytes, 70'553'706'496.0 * 2 / 8, 1);
  // 2 · 80 layers · 1 KV head per chip · 128 · 8,320 tokens · 2 bytes × 8 requests.
  EXPECT_NEAR(r.memory.kv_bytes, 2.0 * 80 * 128 * 8320 * 2 * 8, 1);
  EXPECT_EQ(r.memory.kv_groups_per_chip, 1);
  EXPECT_DOUBLE_EQ(r.memory.usable_bytes, 0.9 * 80e9);
  EXPECT_TRUE(r.fits);
  // int4 weights with their scales: 4.125 bits.
  in.weights = Dtype::int4;
  EXPECT_NEAR(evaluate_serving(m, in).memory.weights_bytes, 70'553'706'496.0 * 4.125 / 8 / 8, 1);
  // One chip cannot hold 141 GB of bf16 weights.
  in.weights = Dtype::bf16;
  in.layout = {1, 1, 1};
  EXPECT_FALSE(evaluate_serving(m, in).fits);
}

TEST(ServingMemoryProperty, TpPastTheKvHeadsStopsShrinkingTheCache) {
  // 8 KV heads: TP 1…8 halves the cache per chip, TP 16…64 replicates heads.
  const ServingModel m = serving_model(kLlama3_70B);
  double last = kv_bytes_per_token_per_chip(m, {1, 1, 1}, Dtype::bf16);
  EXPECT_DOUBLE_EQ(last, 2.0 * 80 * 8 * 128 * 2);
  for (std::int64_t tp = 2; tp <= 64; tp *= 2) {
    const double kv = kv_bytes_per_token_per_chip(m, {tp, 1, 1}, Dtype::bf16);
    if (tp <= 8)
      EXPECT_DOUBLE_EQ(kv, last / 2) << tp;
    else
      EXPECT_DOUBLE_EQ(kv, last) << tp;
    last = kv;
  }
  // Pipeline stages split the layers instead.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token_per_chip(m, {64, 4, 1}, Dtype::bf16), last / 4);
  // fp8 cache: about half (its block scales included).
  EXPECT_NEAR(kv_bytes_per_token_per_chip(m, {8, 1, 1}, Dtype::fp8) /
                  kv_bytes_per_token_per_chip(m, {8, 1, 1}, Dtype::bf16),
              (8 + 32.0 / 16384) / 16, 1e-15);
}

// ---------------------------------------------------- the seed's napkin

TEST(PhaseTime, RooflineShareIsTheRooflinesPartOfThePhase) {
  PhaseTime p;
  EXPECT_EQ(p.roofline_share(), 0);  // a phase that takes no time: 0, never NaN
  p.seconds = 0.010;
  p.roofline_seconds = 0.0075;
  p.tp_comm_seconds = 0.0025;
  EXPECT_DOUBLE_EQ(p.roofline_share(), 0.75);
  // With communication off the roofline is the whole phase.
  const ServingResult r = evaluate_serving(serving_model(70e9), napkin_turn(16));
  EXPECT_DOUBLE_EQ(r.prefill.roofline_share(), 1.0);
  EXPECT_DOUBLE_EQ(r.decode_step.roofline_share(), 1.0);
}

TEST(ServingNapkin, ReproducesTheLatencyTableWithCommunicationOff) {
  // Seed Phase 03 ch. 6 / Claim 14: 1, 4, 16, 64 chips of TPU v5e.
  struct Row {
    std::int64_t chips;
    double prefill, decode, total;
  };
  const Row rows[] = {{1, 5.822, 21.880, 27.952},
                      {4, 1.455, 5.470, 7.176},
                      {16, 0.364, 1.368, 1.981},
                      {64, 0.091, 0.342, 0.683}};
  const ServingModel m = serving_model(70e9);
  for (const Row& row : rows) {
    const ServingResult r = evaluate_serving(m, napkin_turn(row.chips));
    EXPECT_NEAR(r.prefill_seconds, row.prefill, 0.0006) << row.chips;
    EXPECT_NEAR(r.decode_seconds, row.decode, 0.0006) << row.chips;
    EXPECT_NEAR(r.turn_seconds, row.total, 0.0011) << row.chips;
    EXPECT_EQ(r.comm_seconds_per_step, 0);
  }
  // The same numbers as the roofline module's napkin, to rounding.
  TurnInputs t;
  t.n_chips = 16;
  const TurnLatency seed = interactive_latency(t);
  const ServingResult r = evaluate_serving(m, napkin_turn(16));
  EXPECT_NEAR(r.prefill_seconds, seed.prefill_seconds, 1e-12);
  EXPECT_NEAR(r.decode_seconds, seed.decode_seconds, 1e-12);
  EXPECT_NEAR(r.turn_seconds, seed.total_seconds, 1e-12);
}

TEST(ServingNapkin, PipelineStagesDoNotSpeedUpBatchOneDecode) {
  // The seed's 128-chip row assumes every chip shares the weight read; with
  // 64 heads TP stops at 64 and a second pipeline stage only adds a stage to
  // every token's trip (Claim 12: "a pipeline here just adds S−1 hops").
  const ServingModel m = serving_model(70e9);
  const ServingResult tp64 = evaluate_serving(m, napkin_turn(64));
  const ServingResult pp2 = evaluate_serving(m, napkin_turn(64, 2));
  // (79 layers: the fuller stage holds 40, so a trip is 80/79 of one stage's.)
  ASSERT_EQ(m.n_layers, 79);
  EXPECT_NEAR(pp2.decode_seconds, tp64.decode_seconds * 80 / 79, 1e-12);
  // Prefill chunks do stream through the two stages: near half the time.
  EXPECT_LT(pp2.prefill_seconds, 0.6 * tp64.prefill_seconds);
  EXPECT_GT(pp2.prefill_seconds, 0.5 * tp64.prefill_seconds);
  EXPECT_GT(pp2.prefill_chunks, 1);
}

TEST(ServingNapkin, CommunicationMovesTheRightWay) {
  const ServingModel m = serving_model(70e9);
  for (std::int64_t tp : {2, 4, 16, 64}) {
    ServingInputs off = napkin_turn(tp);
    ServingInputs on = off;
    on.assume.communication = true;
    const ServingResult a = evaluate_serving(m, off), b = evaluate_serving(m, on);
    EXPECT_GT(b.prefill_seconds, a.prefill_seconds) << tp;
    EXPECT_GT(b.decode_step_seconds, a.decode_step_seconds) << tp;
    EXPECT_GT(b.comm_seconds_per_step, 0) << tp;
    EXPECT_NEAR(b.decode_step_seconds - a.decode_step_seconds, b.comm_seconds_per_step, 1e-15);
  }
  // One chip talks to nobody.
  ServingInputs one = napkin_turn(1);
  one.assume.communication = true;
  EXPECT_EQ(evaluate_serving(m, one).comm_seconds_per_step, 0);
}

// -------------------------------------------------------------- times

TEST(ServingTimes, PartsSumToTheWhole) {
  const ServingModel m = serving_model(preset("Mixtral-8x7B"));
  ServingInputs in;
  in.chip = "H100";
  in.batch = 24;
  for (const ServingLayout l : {ServingLayout{2, 2, 2}, ServingLayout{8, 1, 1},
                                ServingLayout{1, 4, 4}, ServingLayout{4, 1, 8}}) {
    in.layout = l;
    const ServingResult r = evaluate_serving(m, in);
    EXPECT_NEAR(sum(r.prefill.parts()), r.prefill_seconds, 1e-12);
    EXPECT_NEAR(sum(r.decode_step.parts()), r.decode_step_seconds, 1e-12);
    EXPECT_NEAR(sum(r.turn_parts()), r.turn_seconds, 1e-9);
    EXPECT_NEAR(r.turn_seconds, r.ttft_seconds + 128 * r.tpot_seconds, 1e-9);
    EXPECT_GE(r.prefill.roofline_seconds, r.prefill.compute_seconds - 1e-15);
    EXPECT_GE(r.prefill.roofline_seconds, r.prefill.memory_seconds - 1e-15);
  }
}

TEST(ServingTimes, PrefillCountsAttentionsQuadraticTerm) {
  const ServingModel m = serving_model(kLlama3_70B);
  ServingInputs in;
  in.chip = "H100";
  in.layout = {8, 1, 1};
  in.assume.communication = false;
  in.assume.matmul_efficiency = 1.0;
  ServingInputs no_attn = in;
  no_attn.assume.attention_flops = false;
  for (std::int64_t prompt : {1024, 32768, 1'048'576}) {
    in.prompt_tokens = no_attn.prompt_tokens = prompt;
    const double with = evaluate_serving(m, in).prefill.compute_seconds;
    const double without = evaluate_serving(m, no_attn).prefill.compute_seconds;
    // Causal pairs T(T+1)/2 × 4·L·H·d_h FLOPs, over 8 chips at the peak.
    const double p = static_cast<double>(prompt);
    const double attn = 4.0 * 80 * 64 * 128 * p * (p + 1) / 2 / (8 * 990e12);
    EXPECT_NEAR(with - without, attn, 1e-9 * with) << prompt;
  }
  // At a million tokens attention is most of the work.
  EXPECT_GT(evaluate_serving(m, in).prefill.compute_seconds,
            3 * evaluate_serving(m, no_attn).prefill.compute_seconds);
}

TEST(ServingTimes, Fp8WeightsUseTheFp8PeakOnlyWhereTheChipHasOne) {
  const ServingModel m = serving_model(kLlama3_70B);
  ServingInputs in;
  in.chip = "H100";
  in.layout = {8, 1, 1};
  in.weights = Dtype::fp8;
  const ServingResult h = evaluate_serving(m, in);
  EXPECT_TRUE(h.fp8_compute);
  EXPECT_DOUBLE_EQ(h.compute_flops_per_s, 1979e12 * chip_by_name("H100").efficiency.matmul);
  in.weights = Dtype::int4;
  EXPECT_FALSE(evaluate_serving(m, in).fp8_compute);
  in.chip = "A100-80";
  in.weights = Dtype::fp8;
  const ServingResult a = evaluate_serving(m, in);
  EXPECT_FALSE(a.fp8_compute);
  EXPECT_DOUBLE_EQ(a.compute_flops_per_s, 312e12 * chip_by_name("A100-80").efficiency.matmul);
}

TEST(ServingTimes, MoeDecodeReadsOnlyTheExpertsItsTokensTouch) {
  const ServingModel m = serving_model(preset("Mixtral-8x7B"));
  ServingInputs in;
  in.chip = "H100";
  in.layout = {2, 1, 1};
  in.assume.communication = false;
  in.assume.kv_cache = false;
  in.assume.hbm_efficiency = 1.0;  // the datasheet 3.35 TB/s: the test counts bytes
  in.batch = 1;
  const double one = evaluate_serving(m, in).decode_step.weights_read_seconds;
  // Batch 1 reads 2 of 8 experts; the always-read weights are the rest (less
  // the input table, of which a step gathers one row).
  const double dense = m.total_params() - m.input_embedding_params - m.routed_expert_params;
  const double expect = (dense + m.routed_expert_params * 2 / 8) * 2 / 2 / 3.35e12;
  EXPECT_NEAR(one, expect, 1e-9);
  in.batch = 256;
  const double many = evaluate_serving(m, in).decode_step.weights_read_seconds;
  EXPECT_NEAR(many, (m.total_params() - m.input_embedding_params) * 2 / 2 / 3.35e12, 1e-6 * many);
}

TEST(ServingTimes, ColocatedPrefillsStallTheBatchesSteps) {
  const ServingModel m = serving_model(kLlama3_70B);
  ServingInputs in;
  in.chip = "H100";
  in.layout = {8, 1, 1};
  in.batch = 16;
  const ServingResult shared = evaluate_serving(m, in);
  EXPECT_NEAR(shared.interference_seconds, 15 * shared.prefill_seconds, 1e-12);
  in.pool = ServingPool::decode;
  const ServingResult decode = evaluate_serving(m, in);
  EXPECT_EQ(decode.interference_seconds, 0);
  EXPECT_NEAR(decode.tpot_seconds, decode.decode_step_seconds, 1e-15);
  EXPECT_GT(shared.tpot_seconds, decode.tpot_seconds);
  EXPECT_NEAR(decode.tokens_per_second_per_chip, 16 / (8 * decode.decode_step_seconds), 1e-9);
  in.pool = ServingPool::prefill;
  const ServingResult prefill = evaluate_serving(m, in);
  EXPECT_GT(prefill.kv_transfer_seconds, 0);
  EXPECT_NEAR(prefill.ttft_seconds,
              in.overhead_seconds + prefill.prefill_seconds + prefill.kv_transfer_seconds, 1e-12);
  EXPECT_NEAR(prefill.tokens_per_second_per_chip, 8192 / (8 * prefill.prefill_seconds), 1e-9);
}

TEST(ServingTimes, OverlappedPrefillCommunicationLiesBetweenNoneAndSerial) {
  const ServingModel m = serving_model(70e9);
  ServingInputs serial;
  serial.layout = {16, 1, 1};
  ServingInputs overlap = serial, none = serial;
  overlap.assume.overlap_prefill_comm = true;
  none.assume.communication = false;
  const double s = evaluate_serving(m, serial).prefill_seconds;
  const double o = evaluate_serving(m, overlap).prefill_seconds;
  const double n = evaluate_serving(m, none).prefill_seconds;
  EXPECT_LE(n, o);
  EXPECT_LT(o, s);
}

TEST(ServingTimesProperty, CommunicationNeverMakesAStepFaster) {
  const ServingModel models[] = {serving_model(kLlama3_70B), serving_model(preset("Mixtral-8x7B")),
                                 serving_model(preset("DeepSeek-V3")), serving_model(8e9)};
  const char* chips[] = {"H100", "TPU v5e", "MI300X", "A100-40", "TPU v5p"};
  Rng rng(15);
  for (int trial = 0; trial < 600; ++trial) {
    const ServingModel& m = models[rng.below(4)];
    ServingInputs on;
    on.chip = chips[rng.below(5)];
    std::int64_t tp = std::int64_t{1} << rng.below(7);
    while (m.n_heads % tp != 0) tp /= 2;
    const std::int64_t pp = std::min<std::int64_t>(m.n_layers, std::int64_t{1} << rng.below(6));
    std::int64_t ep = m.is_moe() ? std::int64_t{1} << rng.below(5) : 1;
    while (m.is_moe() && m.n_experts % ep != 0) ep /= 2;
    on.layout = {tp, pp, ep};
    on.batch = 1 + static_cast<std::int64_t>(rng.below(512));
    on.prompt_tokens = 1 + static_cast<std::int64_t>(rng.below(65536));
    on.decode_tokens = 1 + static_cast<std::int64_t>(rng.below(2048));
    on.assume.overlap_prefill_comm = rng.below(2) == 1;
    ServingInputs off = on;
    off.assume.communication = false;
    const ServingResult a = evaluate_serving(m, on), b = evaluate_serving(m, off);
    EXPECT_GE(a.decode_step_seconds, b.decode_step_seconds) << trial;
    EXPECT_GE(a.prefill_seconds, b.prefill_seconds) << trial;
    EXPECT_GE(a.turn_seconds, b.turn_seconds) << trial;
    EXPECT_TRUE(std::isfinite(a.turn_seconds) && std::isfinite(a.cost.joules_per_token));
  }
}

// --------------------------------------------------- validated against the world

TEST(ServingValidation, Llama33_70B_Fp8_Tp2_H100_IsALowerBoundWithinTwoX) {
  // NVIDIA NIM LLM benchmarking guide (v1.0.0 "Performance" page):
  // Llama-3.3-70B-Instruct, NIM 1.8.0, 2 × H100 80GB, fp8, TP2, concurrency 1.
  //   5,000 in / 500 out: TTFT 406.77 ms, ITL 18.58 ms
  //   500 in / 2,000 out: TTFT 47.77 ms, ITL 18.91 ms
  // The arithmetic here is the roofline with the datasheet bandwidth and the
  // calibrated matmul efficiency: a real engine (kernel launches, sampling,
  // the scheduler) is slower, never faster. Not fitted to these rows.
  const ServingModel m = serving_model(kLlama3_70B);
  ServingInputs in;
  in.chip = "H100";
  in.layout = {2, 1, 1};
  in.weights = Dtype::fp8;
  in.kv = Dtype::fp8;
  in.overhead_seconds = 0;
  struct Row {
    std::int64_t in, out;
    double ttft, itl;
  };
  for (const Row row : {Row{5000, 500, 0.40677, 0.01858}, Row{500, 2000, 0.04777, 0.01891}}) {
    in.prompt_tokens = row.in;
    in.decode_tokens = row.out;
    const ServingResult r = evaluate_serving(m, in);
    EXPECT_TRUE(r.fits);
    EXPECT_LT(r.ttft_seconds, row.ttft) << row.in;
    EXPECT_GT(r.ttft_seconds, 0.5 * row.ttft) << row.in;
    EXPECT_LT(r.tpot_seconds, row.itl) << row.in;
    EXPECT_GT(r.tpot_seconds, 0.5 * row.itl) << row.in;
  }
}

// ------------------------------------------------------------ the cost of a token

TEST(TokenCost, FromPriceAndPower) {
  const Chip& h100 = chip_by_name("H100");
  const TokenCost c = token_cost(h100, 100.0, CostInputs{2.5, 0.12, 1.2}, 1e9);
  EXPECT_NEAR(c.dollars_per_million_tokens, 2.5 / 360000 * 1e6, 1e-9);
  EXPECT_NEAR(c.joules_per_token, 700 * 1.2 / 100, 1e-12);
  EXPECT_NEAR(c.energy_dollars_per_million_tokens, 8.4 * 1e6 / 3.6e6 * 0.12, 1e-9);
  EXPECT_NEAR(c.energy_share_of_bill, 0.7 * 1.2 * 0.12 / 2.5, 1e-12);  // 4.0 %
  EXPECT_NEAR(c.chip_hour_dollars_for_99_percent, 0.1008 / 0.99, 1e-12);
  EXPECT_FALSE(c.price_below_energy);
  EXPECT_NEAR(c.dram_joules_per_token, 1e9 * 20e-12, 1e-15);
  // A price below the energy bill caps the share at 1 and says so.
  const TokenCost cheap = token_cost(h100, 100.0, CostInputs{0.05, 0.12, 1.2});
  EXPECT_TRUE(cheap.price_below_energy);
  EXPECT_DOUBLE_EQ(cheap.energy_share_of_bill, 1.0);
  EXPECT_THROW(token_cost(h100, 0.0, CostInputs{}), std::invalid_argument);
  const std::string text = energy_share_text(h100, CostInputs{});
  EXPECT_NE(text.find("4.0 %"), std::string::npos) << text;
  EXPECT_NE(text.find("PUE"), std::string::npos) << text;
  EXPECT_NE(text.find("not host CPUs"), std::string::npos) << text;
}

TEST(TokenCost, BatchingCutsTheCostOfAToken) {
  const ServingModel m = serving_model(kLlama3_70B);
  ServingInputs in;
  in.chip = "H100";
  in.layout = {8, 1, 1};
  in.pool = ServingPool::decode;
  double last = 1e300;
  for (std::int64_t b = 1; b <= 64; b *= 2) {
    in.batch = b;
    const ServingResult r = evaluate_serving(m, in);
    EXPECT_LT(r.cost.dollars_per_million_tokens, last) << b;
    last = r.cost.dollars_per_million_tokens;
    EXPECT_NEAR(r.cost.joules_per_token, 700 * 1.2 / r.tokens_per_second_per_chip, 1e-9);
  }
}

// ---------------------------------------------------------------- bad input

TEST(ServingInput, BadLayoutsNameTheParameter) {
  const ServingModel m = serving_model(kLlama3_70B);
  auto message = [&](ServingLayout l) {
    try {
      validate_layout(m, l, "--tp", "--pp", "--ep");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message({3, 1, 1}).find("--tp"), std::string::npos);
  EXPECT_NE(message({3, 1, 1}).find("64 attention heads"), std::string::npos);
  EXPECT_NE(message({128, 1, 1}).find("--tp"), std::string::npos);
  EXPECT_NE(message({8, 81, 1}).find("--pp"), std::string::npos);
  EXPECT_NE(message({8, 1, 2}).find("--ep"), std::string::npos);  // dense: EP is 1
  EXPECT_EQ(message({64, 80, 1}), "");
  const ServingModel x = serving_model(preset("Mixtral-8x7B"));
  EXPECT_NO_THROW(validate_layout(x, {4, 1, 8}));
  EXPECT_THROW(validate_layout(x, {4, 1, 16}), std::invalid_argument);

  ServingInputs in;
  in.layout = {3, 1, 1};
  EXPECT_THROW(evaluate_serving(m, in), std::invalid_argument);
  in.layout = {8, 1, 1};
  in.chip = "Z80";
  EXPECT_THROW(evaluate_serving(m, in), std::invalid_argument);
  in.chip = "H100";
  in.batch = 0;
  EXPECT_THROW(evaluate_serving(m, in), std::invalid_argument);
  in.batch = 1;
  in.decode_tokens = 0;
  EXPECT_THROW(evaluate_serving(m, in), std::invalid_argument);
  in.decode_tokens = 1;
  in.assume.hbm_efficiency = 0;
  EXPECT_THROW(evaluate_serving(m, in), std::invalid_argument);
  in.assume.hbm_efficiency = 1;
  in.cost.price_per_chip_hour_dollars = 0;
  EXPECT_THROW(evaluate_serving(m, in), std::invalid_argument);
}

TEST(ServingInput, Deterministic) {
  const ServingModel m = serving_model(preset("DeepSeek-V3"));
  ServingInputs in;
  in.chip = "H800";
  in.layout = {8, 2, 16};
  in.batch = 300;
  const ServingResult a = evaluate_serving(m, in), b = evaluate_serving(m, in);
  EXPECT_EQ(a.turn_seconds, b.turn_seconds);
  EXPECT_EQ(a.memory.total_bytes, b.memory.total_bytes);
  EXPECT_EQ(a.cost.dollars_per_million_tokens, b.cost.dollars_per_million_tokens);
}

TEST(ServingTimes, TheUnembeddingSitsOnTheLastStageOnly) {
  // Napkin assumptions on the real shape: a batch-1 token crosses both stages,
  // so its step reads exactly what one stage would (80 layers split evenly).
  const ServingModel m = serving_model(kLlama3_70B);
  ServingInputs in;
  in.chip = "H100";
  in.assume = ServingAssumptions::napkin();
  in.layout = {8, 1, 1};
  const double one_stage = evaluate_serving(m, in).decode_step_seconds;
  in.layout = {8, 2, 1};
  const ServingResult two = evaluate_serving(m, in);
  EXPECT_NEAR(two.decode_step_seconds, one_stage, 1e-12);
  EXPECT_EQ(two.decode_step.pipeline_bubble_seconds, 0);
  // Two micro-batches in flight: the last stage serves both, and its extra
  // table read each time is the imbalance.
  in.batch = 2;
  const ServingResult busy = evaluate_serving(m, in);
  EXPECT_EQ(busy.micro_batches, 2);
  const double table = 128256.0 * 8192 * 2 / 8 / 3.35e12;
  EXPECT_NEAR(busy.decode_step.pipeline_bubble_seconds, table, 1e-9);
}

TEST(ServingBandwidth, DefaultsToTheChipsStreamingReadFraction) {
  // Unset, the HBM fraction is the hardware table's streaming-read (copy)
  // fraction: H100 ~3.0 of 3.35 TB/s, A100 ~1.8 of 2.04 TB/s.
  const ServingModel m = serving_model(kLlama3_70B);
  ServingInputs in;
  in.chip = "H100";
  in.layout = {8, 1, 1};
  const ServingResult h100 = evaluate_serving(m, in);
  EXPECT_DOUBLE_EQ(h100.hbm_efficiency, 0.90);
  EXPECT_DOUBLE_EQ(h100.hbm_bytes_per_s, 3.35e12 * 0.90);
  in.chip = "A100-80";
  EXPECT_DOUBLE_EQ(evaluate_serving(m, in).hbm_efficiency, 0.88);
  // Given, it wins; the ideal (napkin) assumptions use the datasheet.
  in.assume.hbm_efficiency = 1.0;
  EXPECT_DOUBLE_EQ(evaluate_serving(m, in).hbm_bytes_per_s, 2.03e12);
  EXPECT_DOUBLE_EQ(ServingAssumptions::napkin().hbm_efficiency_on(chip_by_name("H100")), 1.0);
  // A memory-bound step takes 1 ÷ 0.9 as long as at the datasheet figure.
  in.chip = "H100";
  in.assume.hbm_efficiency = 1.0;
  const ServingResult ideal = evaluate_serving(m, in);
  EXPECT_NEAR(h100.decode_step.memory_seconds, ideal.decode_step.memory_seconds / 0.9, 1e-15);
  for (const Chip& c : hardware_table()) {
    EXPECT_GT(c.hbm_stream_efficiency, 0.5) << c.name;
    EXPECT_LE(c.hbm_stream_efficiency, 1.0) << c.name;
    EXPECT_GE(c.hbm_stream_efficiency, c.efficiency.hbm) << c.name;  // a copy beats fused kernels
    EXPECT_FALSE(c.hbm_stream_source.empty()) << c.name;
  }
}

TEST(ServingStaticBatch, OnePrefillOfTheBatchThenOutputMinusOneSteps) {
  const ServingModel m = serving_model(kLlama3_70B);
  ServingInputs in;
  in.chip = "H100";
  in.layout = {4, 1, 1};
  in.prompt_tokens = 2048;
  in.decode_tokens = 128;
  in.overhead_seconds = 0;
  in.batch = 1;
  ServingInputs pre = in;
  pre.pool = ServingPool::prefill;
  const StaticBatchResult one = evaluate_static_batch(m, in);
  EXPECT_DOUBLE_EQ(one.prefill_seconds, evaluate_serving(m, pre).prefill_seconds);
  in.batch = 16;
  const StaticBatchResult b = evaluate_static_batch(m, in);
  // The weights are read once for the batch; FLOPs (linear, attention, logits)
  // and the KV traffic scale with it.
  EXPECT_DOUBLE_EQ(b.prefill.weights_read_seconds, one.prefill.weights_read_seconds);
  EXPECT_NEAR(b.prefill.compute_seconds, 16 * one.prefill.compute_seconds, 1e-12);
  EXPECT_NEAR(b.prefill.kv_read_seconds, 16 * one.prefill.kv_read_seconds, 1e-12);
  EXPECT_GT(b.prefill.tp_comm_seconds, one.prefill.tp_comm_seconds);
  EXPECT_EQ(b.decode_steps, 127);
  EXPECT_DOUBLE_EQ(b.mean_context_tokens, 2048 + 64);
  EXPECT_DOUBLE_EQ(b.total_seconds, b.prefill_seconds + 127 * b.decode_step_seconds);
  EXPECT_DOUBLE_EQ(b.tokens_per_second_per_chip, 16.0 * 128 / (b.total_seconds * 4));
  EXPECT_EQ(b.fits, evaluate_serving(m, in).fits);
  // One output token: the context phase alone.
  in.decode_tokens = 1;
  const StaticBatchResult first = evaluate_static_batch(m, in);
  EXPECT_EQ(first.decode_steps, 0);
  EXPECT_DOUBLE_EQ(first.total_seconds, first.prefill_seconds);
}

TEST(ServingAttention, PreXqaKernelsReadTheCacheOncePerQueryHead) {
  // Llama-3-70B at TP 8: one KV head and 8 query heads per chip, so a
  // per-query-head kernel reads the cache 8 times; the weights are unchanged.
  const ServingModel m = serving_model(kLlama3_70B);
  ServingInputs in;
  in.chip = "H100";
  in.layout = {8, 1, 1};
  in.batch = 32;
  const ServingResult base = evaluate_serving(m, in);
  in.assume.kv_reads_per_query_head = true;
  const ServingResult pre = evaluate_serving(m, in);
  EXPECT_NEAR(pre.decode_step.kv_read_seconds, 8 * base.decode_step.kv_read_seconds, 1e-15);
  EXPECT_DOUBLE_EQ(pre.decode_step.weights_read_seconds, base.decode_step.weights_read_seconds);
  EXPECT_DOUBLE_EQ(pre.memory.kv_bytes, base.memory.kv_bytes);  // the cache held is the same
  // MHA (a KV head per query head): nothing to re-read.
  const ServingModel mha = serving_model(ModelShape{});
  in.layout = {1, 1, 1};
  in.assume.kv_reads_per_query_head = false;
  const double mha_kv = evaluate_serving(mha, in).decode_step.kv_read_seconds;
  in.assume.kv_reads_per_query_head = true;
  EXPECT_DOUBLE_EQ(evaluate_serving(mha, in).decode_step.kv_read_seconds, mha_kv);
}
