#include "scenario.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "hardware.h"
#include "validate.h"

namespace napkin {

namespace {

// Each panel's settings, with the panel named in front of the field.
void validate_panel_settings(const Scenario& s) {
  auto named = [](const char* panel, const auto& settings) {
    try {
      settings.validate();
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string(panel) + " settings: " + e.what());
    }
  };
  named("IsoFLOPs", s.isoflops);
  named("MoE", s.moe);
  named("Roofline", s.roofline);
  named("Parallelism", s.parallel);
}

}  // namespace

void Scenario::validate() const {
  budget_inputs().validate();
  shape.validate();
  require_count(training.zero_stage, "zero_stage", "ZeRO stage", 0, 3);
  require_count(training.dp_degree, "dp_degree", "data-parallel replicas", 1, 10'000'000);
  require_count(training.micro_batch, "micro_batch", "sequences per device", 1, 1'000'000);
  require_count(training.seq_len, "seq_len", "tokens", 1, 100'000'000);
  require_count(serving.context_len, "context_len", "tokens", 1, 100'000'000);
  require_real(serving.served_tokens, "served_tokens", "tokens", 0.0, 1e22);
  require_count(serving.batch, "serving_batch", "requests", 1, 1'000'000);
  require_count(serving.prompt_tokens, "prompt_tokens", "tokens", 1, 100'000'000);
  require_count(serving.decode_tokens, "decode_tokens", "tokens", 1, 100'000'000);
  require_real(serving.latency_budget_seconds, "latency_budget", "seconds", 0.0, 1e6, true);
  require_real(serving.overhead_seconds, "overhead", "seconds", 0.0, 1e6);
  validate_panel_settings(*this);
  require_count(serving.chips, "serving_chips", "chips", 1, 1024);
  goodput.validate();
  require_real(plan.train_tokens, "train_tokens", "tokens (0 = tokens per parameter x N)", 0.0,
               1e18);
  (void)plan_ranges(train_inputs());
  // The run must make progress, so that every view of a valid scenario computes.
  if (plan.mode == PlanMode::train_model)
    (void)train_run(train_inputs());
  else
    (void)budget_goodput(budget_inputs());
}

std::string_view to_string(PlanMode mode) {
  return mode == PlanMode::budget ? "budget" : "train_model";
}

PlanMode parse_plan_mode(std::string_view text) {
  if (text == "budget") return PlanMode::budget;
  if (text == "train_model") return PlanMode::train_model;
  throw std::invalid_argument("plan mode must be one of budget, train_model; got \"" +
                              std::string(text.substr(0, 40)) + "\"");
}

bool RangeSetup::any() const {
  return mfu || interruptions_per_1000_chip_days || restart_minutes ||
         price_per_chip_hour_dollars || tokens_available;
}

TrainInputs Scenario::train_inputs() const {
  const ParamCount p = count_params(shape);
  TrainInputs t;
  t.chip = chip;
  t.n_chips = n_chips;
  t.mfu = mfu;
  t.n_params = static_cast<double>(p.total);
  t.active_params = p.active < p.total ? static_cast<double>(p.active) : 0.0;
  t.train_tokens = plan.train_tokens;
  t.tokens_per_param = tokens_per_param;
  t.tokens_available = tokens_available;
  t.cost.price_per_chip_hour_dollars = price_per_chip_hour_dollars;
  t.cost.kwh_price_dollars = kwh_price_dollars;
  t.cost.pue = pue;
  t.goodput = goodput;
  t.optimizer = training.optimizer;
  t.precision = training.precision;
  return t;
}

PlanRanges Scenario::plan_ranges(const TrainInputs& t) const {
  PlanRanges r = point_ranges(t);
  // A spread keeps the plan's own value as the likely one.
  auto set = [](Range& range, const std::optional<Spread>& s) {
    if (s) range = Range{s->low, range.likely, s->high};
  };
  set(r.mfu, ranges.mfu);
  set(r.interruptions_per_1000_chip_days, ranges.interruptions_per_1000_chip_days);
  set(r.restart_minutes, ranges.restart_minutes);
  set(r.price_per_chip_hour_dollars, ranges.price_per_chip_hour_dollars);
  set(r.tokens_available, ranges.tokens_available);
  r.shape = ranges.shape;
  r.seed = ranges.seed;
  r.validate();
  return r;
}

BudgetInputs Scenario::budget_inputs() const {
  BudgetInputs in;
  in.chip = chip;
  in.n_chips = n_chips;
  in.days = days;
  in.mfu = mfu;
  in.cost.price_per_chip_hour_dollars = price_per_chip_hour_dollars;
  in.cost.kwh_price_dollars = kwh_price_dollars;
  in.cost.pue = pue;
  in.tokens_per_param = tokens_per_param;
  in.tokens_available = tokens_available;
  in.served_tokens = serving.served_tokens;
  in.optimizer = training.optimizer;
  in.precision = training.precision;
  in.serving_node_chips = serving.chips;
  in.goodput = goodput;
  in.serving_latency.enabled = serving.limit_model;
  in.serving_latency.prompt_tokens = serving.prompt_tokens;
  in.serving_latency.decode_tokens = serving.decode_tokens;
  in.serving_latency.batch = serving.batch;
  in.serving_latency.latency_budget_seconds = serving.latency_budget_seconds;
  in.serving_latency.overhead_seconds = serving.overhead_seconds;
  in.serving_latency.bytes_per_param = serving.bytes_per_param();
  return in;
}

namespace {

ModelShape moe(ModelShape s, std::int64_t experts, std::int64_t k, std::int64_t shared,
               std::int64_t expert_ff, std::int64_t dense_layers) {
  s.n_experts = experts;
  s.top_k = k;
  s.shared_experts = shared;
  s.expert_d_ff = expert_ff;
  s.n_dense_layers = dense_layers;
  return s;
}

// deepseek-ai/DeepSeek-V3 config.json (tests/data/configs/deepseek-v3.json):
// MLA with q_lora_rank 1536, kv_lora_rank 512, head dims 128 + 64 (RoPE) and
// values of 128; 3 dense layers then 58 MoE layers of 256 routed experts
// (top 8) and 1 shared, each 2048 wide; sigmoid routing with a bias per
// expert; one MTP module.
ModelShape deepseek_v3() {
  ModelShape s = moe(ModelShape{61, 7168, 18432, 128, 128, 192, 129280}, 256, 8, 1, 2048, 3);
  s.q_lora_rank = 1536;
  s.kv_lora_rank = 512;
  s.qk_nope_head_dim = 128;
  s.qk_rope_head_dim = 64;
  s.v_head_dim = 128;
  s.router_bias = true;
  s.mtp_modules = 1;
  return s;
}

// Qwen/Qwen3-30B-A3B config.json (tests/data/configs/qwen3-30b-a3b.json):
// GQA 32/4 heads of 128 with per-head QK-norm, 48 MoE layers of 128 experts
// (top 8), each 768 wide, no shared expert.
ModelShape qwen3_30b_a3b() {
  ModelShape s = moe(ModelShape{48, 2048, 6144, 32, 4, 128, 151936}, 128, 8, 0, 768, 0);
  s.qk_norm = QkNorm::per_head;
  return s;
}

const std::array kPresets{
    // layers, d_model, d_ff, heads, kv heads, head dim, vocab
    ModelPreset{"Llama-2-7B", ModelShape{32, 4096, 11008, 32, 32, 128, 32000},
                "meta-llama/Llama-2-7b-hf config.json (6,738,415,616 parameters)"},
    ModelPreset{"Llama-3-8B", ModelShape{32, 4096, 14336, 32, 8, 128, 128256},
                "meta-llama/Meta-Llama-3-8B config.json (8,030,261,248 parameters)"},
    ModelPreset{"Llama-3-70B", ModelShape{80, 8192, 28672, 64, 8, 128, 128256},
                "meta-llama/Meta-Llama-3-70B config.json (70,553,706,496 parameters)"},
    ModelPreset{"Mixtral-8x7B", moe(ModelShape{32, 4096, 14336, 32, 8, 128, 32000}, 8, 2, 0, 0, 0),
                "mistralai/Mixtral-8x7B-v0.1 config.json (46,702,792,704 parameters)"},
    ModelPreset{"Qwen3-30B-A3B", qwen3_30b_a3b(),
                "Qwen/Qwen3-30B-A3B config.json (30,532,122,624 parameters, 3.35B active)"},
    ModelPreset{"DeepSeek-V3", deepseek_v3(),
                "deepseek-ai/DeepSeek-V3 config.json (671,026,419,200 parameters, 37.6B active; "
                "its MTP module adds 11.6B, counted apart)"},
};

}  // namespace

std::span<const ModelPreset> model_presets() { return kPresets; }

ModelShape dense_shape_for_params(double n_params, std::int64_t vocab) {
  require_real(n_params, "n_params", "parameters", 1e6, 1e14);
  require_count(vocab, "vocab", "tokens", 1, 100'000'000);
  // Per layer ≈ 2·d² (GQA-8 attention, roughly) + 3·d·3.5d = 12.5 d²; with
  // L = d/100: N ≈ 0.125 d³.
  const double body =
      std::max(n_params - 2.0 * static_cast<double>(vocab) * 1024.0, n_params * 0.5);
  double d = std::cbrt(body / 0.125);
  std::int64_t d_model = std::max<std::int64_t>(256, std::llround(d / 128.0) * 128);
  ModelShape s;
  s.d_model = d_model;
  s.d_head = 128;
  s.n_heads = d_model / 128;
  s.n_kv_heads = s.n_heads % 8 == 0 ? 8 : (s.n_heads % 4 == 0 ? 4 : 1);
  s.d_ff =
      std::max<std::int64_t>(256, std::llround(3.5 * static_cast<double>(d_model) / 256.0) * 256);
  s.vocab = vocab;
  s.n_layers = 1;
  const std::int64_t per_layer = params_per_layer(s, false).total;
  const std::int64_t fixed = count_params(s).total - per_layer;
  const double layers = (n_params - static_cast<double>(fixed)) / static_cast<double>(per_layer);
  s.n_layers = std::clamp<std::int64_t>(std::llround(layers), 1, 100'000);
  return s;
}

}  // namespace napkin
