#include "serving.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "collectives.h"
#include "format.h"
#include "model_presets.h"
#include "serving_eval.h"
#include "validate.h"

namespace napkin {

namespace {

// Largest slice a layout may name (2^20 chips).
constexpr std::int64_t kMaxSliceChips = std::int64_t{1} << 20;

using detail::ceil_div;

}  // namespace

// ------------------------------------------------------ the model as served

KvGeometry kv_geometry(const ModelShape& shape) {
  // MLA caches one compressed latent (kv_lora_rank) and the shared RoPE key
  // (qk_rope_head_dim) per token and layer, shared by every head: one group
  // that tensor parallelism cannot shard (DeepSeek-V2 §2.1).
  if (shape.is_mla()) return {1, kv_cache_elements_per_token_per_layer(shape)};
  // GQA / MHA / MQA: a K and a V vector of d_head values per KV head.
  return {shape.n_kv_heads, checked_mul(2, shape.d_head, "KV elements per head")};
}

double attention_flops_per_pair_per_layer(const ModelShape& shape) {
  // QKᵀ over the query-key width and A·V over the value width, 2 FLOPs per
  // multiply-add, per head: 2·H·(d_qk + d_v); 4·H·d_head without MLA.
  const double heads = static_cast<double>(shape.n_heads);
  if (shape.is_mla())
    return 2.0 * heads *
           static_cast<double>(shape.qk_nope_head_dim + shape.qk_rope_head_dim + shape.v_head_dim);
  return 4.0 * heads * static_cast<double>(shape.d_head);
}

double ServingModel::total_params() const {
  return layer_params + input_embedding_params + (tied_embeddings ? 0.0 : output_embedding_params);
}

double ServingModel::active_params() const { return active_layer_params + output_embedding_params; }

void ServingModel::validate() const {
  require_real(layer_params, "layer parameters", "parameters", 0.0, 1e18, true);
  require_real(routed_expert_params, "routed expert parameters", "parameters", 0.0, layer_params);
  require_real(active_layer_params, "active layer parameters", "parameters", 0.0, layer_params,
               true);
  require_real(active_routed_expert_params, "active routed expert parameters", "parameters", 0.0,
               routed_expert_params);
  require_real(input_embedding_params, "input embedding parameters", "parameters", 0.0, 1e18);
  require_real(output_embedding_params, "output embedding parameters", "parameters", 0.0, 1e18);
  require_count(n_layers, "layers", "blocks", 1, 100'000);
  require_count(n_moe_layers, "MoE layers", "blocks", 0, n_layers);
  require_count(d_model, "d_model", "elements", 1, 1'000'000);
  require_count(n_heads, "heads", "attention heads", 1, 100'000);
  require_count(n_kv_heads, "kv_heads", "KV heads", 1, n_heads);
  require_count(d_head, "head_dim", "elements", 1, 100'000);
  require_count(n_experts, "experts", "routed experts", 0, 100'000);
  require_count(top_k, "top_k", "experts per token", 0, std::max<std::int64_t>(n_experts, 0));
  require_count(kv.groups, "KV groups", "groups per token per layer", 1, 100'000);
  require_count(kv.elements_per_group, "KV elements per group", "elements", 1, 10'000'000);
  require_real(attention_flops_per_pair_per_layer, "attention FLOPs per pair", "FLOPs", 0.0, 1e15);
}

ServingModel serving_model(const ModelShape& s) {
  const ParamCount c = count_params(s);
  ServingModel m;
  const double table = static_cast<double>(checked_mul(s.vocab, s.d_model, "embedding table"));
  m.input_embedding_params = table;
  m.output_embedding_params = table;
  m.tied_embeddings = s.tied_embeddings;
  m.layer_params = static_cast<double>(c.non_embedding_total);
  m.active_layer_params = static_cast<double>(c.non_embedding_active);
  m.n_layers = s.n_layers;
  m.d_model = s.d_model;
  m.n_heads = s.n_heads;
  m.n_kv_heads = s.n_kv_heads;
  m.d_head = s.d_head;
  if (!s.is_moe() && s.kv_lora_rank == 0) {
    m.d_ff = s.d_ff;
    m.gated = s.gated;
  }
  if (s.is_moe() && s.n_experts > s.top_k) {
    // total − active = MoE layers × (experts − top_k) × one routed expert.
    const double idle = static_cast<double>(c.total - c.active);
    m.routed_expert_params =
        idle * static_cast<double>(s.n_experts) / static_cast<double>(s.n_experts - s.top_k);
    m.active_routed_expert_params =
        m.routed_expert_params * static_cast<double>(s.top_k) / static_cast<double>(s.n_experts);
    m.n_experts = s.n_experts;
    m.top_k = s.top_k;
    m.n_moe_layers = s.n_layers - s.n_dense_layers;
    if (!s.is_mla()) {
      m.gated = s.gated;
      m.expert_d_ff = s.effective_expert_d_ff();
      m.shared_d_ff = s.shared_experts * s.effective_shared_expert_d_ff();
      m.dense_layer_d_ff = s.n_dense_layers > 0 ? s.d_ff : 0;
    }
  }
  m.kv = kv_geometry(s);
  m.attention_flops_per_pair_per_layer = attention_flops_per_pair_per_layer(s);
  m.validate();
  return m;
}

bool tables_in_16_bit(std::string_view engine, Dtype weights) {
  return engine_by_name(engine).per_kernel && bytes_per_element(weights) < 2.0;
}

ModelShape serving_shape_for_params(double n_params) {
  ModelShape s = dense_shape_for_params(n_params);
  // d_model is a multiple of 128, so any power of two up to 128 divides it.
  const double ideal = static_cast<double>(s.d_model) / 128.0;
  std::int64_t heads = 1;
  while (heads < 128 && static_cast<double>(heads * 2) <= ideal * std::sqrt(2.0)) heads *= 2;
  s.n_heads = heads;
  s.d_head = s.d_model / heads;
  s.n_kv_heads = std::min<std::int64_t>(8, heads);
  return s;
}

ServingModel serving_model(double n_params) {
  require_real(n_params, "params", "parameters", 1e6, 1e14);
  const ModelShape s = serving_shape_for_params(n_params);
  ServingModel m;
  m.layer_params = n_params;
  m.active_layer_params = n_params;
  m.n_layers = s.n_layers;
  m.d_model = s.d_model;
  m.n_heads = s.n_heads;
  m.n_kv_heads = s.n_kv_heads;
  m.d_head = s.d_head;
  m.d_ff = s.d_ff;
  m.gated = s.gated;
  m.kv = kv_geometry(s);
  m.attention_flops_per_pair_per_layer = attention_flops_per_pair_per_layer(s);
  m.shape_assumed = true;
  m.validate();
  return m;
}

// -------------------------------------------------------------- the layout

void validate_layout(const ServingModel& m, const ServingLayout& l, std::string_view tp_name,
                     std::string_view pp_name, std::string_view ep_name) {
  require_count(l.tp, tp_name, "tensor-parallel ranks", 1, m.n_heads);
  if (m.n_heads % l.tp != 0)
    throw std::invalid_argument(
        std::string(tp_name) + " (tensor-parallel ranks) must divide the model's " +
        std::to_string(m.n_heads) + " attention heads; got " + std::to_string(l.tp));
  require_count(l.pp, pp_name, "pipeline stages, at most the layers", 1, m.n_layers);
  if (m.is_moe()) {
    require_count(l.ep, ep_name, "expert-parallel ranks", 1, m.n_experts);
    if (m.n_experts % l.ep != 0)
      throw std::invalid_argument(
          std::string(ep_name) + " (expert-parallel ranks) must divide the model's " +
          std::to_string(m.n_experts) + " routed experts; got " + std::to_string(l.ep));
  } else {
    require_count(l.ep, ep_name, "expert-parallel ranks, 1 for a dense model", 1, 1);
  }
  if (l.tp * l.pp > kMaxSliceChips / l.ep)
    throw_out_of_range(
        "chips", "tp × pp × ep", "at most " + std::to_string(kMaxSliceChips),
        std::to_string(l.tp) + " × " + std::to_string(l.pp) + " × " + std::to_string(l.ep));
}

double kv_bytes_per_token_per_chip(const ServingModel& m, const ServingLayout& l, Dtype kv) {
  validate_layout(m, l);
  const std::int64_t groups = ceil_div(m.kv.groups, l.tp);
  const std::int64_t layers = ceil_div(m.n_layers, l.pp);
  return static_cast<double>(groups * m.kv.elements_per_group) * static_cast<double>(layers) *
         bytes_per_element(kv);
}

// ---------------------------------------------------------- the assumptions

ServingAssumptions ServingAssumptions::napkin() {
  ServingAssumptions a;
  a.communication = false;
  a.kv_cache = false;
  a.attention_flops = false;
  a.matmul_efficiency = 1.0;
  a.hbm_efficiency = 1.0;
  a.hbm_usable_fraction = 1.0;
  return a;
}

double ServingAssumptions::hbm_efficiency_on(const Chip& chip) const {
  return hbm_efficiency.value_or(chip.hbm_stream_efficiency);
}

void ServingAssumptions::validate() const {
  if (matmul_efficiency)
    require_real(*matmul_efficiency, "matmul_efficiency", "fraction of peak", 0.0, 1.0, true);
  if (hbm_efficiency)
    require_real(*hbm_efficiency, "hbm_efficiency", "fraction of HBM bandwidth", 0.0, 1.0, true);
  require_real(hbm_usable_fraction, "hbm_usable_fraction", "fraction of HBM", 0.0, 1.0, true);
  if (engine_memory_fraction)
    require_real(*engine_memory_fraction, "memory_fraction", "fraction of memory", 0.0, 1.0, true);
}

std::string_view to_string(ServingPool pool) {
  switch (pool) {
    case ServingPool::colocated: return "colocated";
    case ServingPool::prefill: return "prefill";
    case ServingPool::decode: return "decode";
  }
  return "colocated";
}

void ServingInputs::validate() const {
  (void)chip_by_name(chip);
  require_count(layout.tp, "tp", "tensor-parallel ranks", 1, kMaxSliceChips);
  require_count(layout.pp, "pp", "pipeline stages", 1, kMaxSliceChips);
  require_count(layout.ep, "ep", "expert-parallel ranks", 1, kMaxSliceChips);
  require_count(batch, "batch", "requests", 1, 1'000'000);
  require_count(prompt_tokens, "prompt_tokens", "tokens", 1, 100'000'000);
  require_count(cached_tokens, "cached_tokens", "tokens", 0, 1'000'000'000);
  require_count(decode_tokens, "decode_tokens", "tokens", 1, 100'000'000);
  require_real(overhead_seconds, "overhead_seconds", "s", 0.0, 1e6);
  (void)engine_by_name(engine);
  assume.validate();
  require_real(cost.price_per_chip_hour_dollars, "price", "$ per chip-hour", 0.0, 1e4, true);
  require_real(cost.kwh_price_dollars, "kwh_price", "$ per kWh", 0.0, 100.0);
  require_real(cost.pue, "pue", "facility W per IT W", 1.0, 5.0);
}

// ----------------------------------------------------------------- results

std::vector<TimePart> PhaseTime::parts() const {
  std::vector<TimePart> out;
  auto add = [&](std::string_view label, double s) {
    if (s > 0) out.push_back({label, s});
  };
  if (per_kernel) {
    add("GEMMs", gemm_seconds);
    add("attention", attention_seconds);
    add("element-wise", elementwise_seconds);
    add("kernel launches", launch_seconds);
  } else if (bound == Bound::compute || memory_seconds <= 0) {
    add("compute", roofline_seconds);
  } else {
    // Stages may differ in their bound; the reads share the roofline part in
    // proportion so the parts still sum to the whole.
    const double w = roofline_seconds * weights_read_seconds / memory_seconds;
    add("weights read", w);
    add("KV cache read", roofline_seconds - w);
  }
  add("tensor-parallel all-reduce", tp_comm_seconds);
  add("expert all-to-all", ep_comm_seconds);
  add("pipeline hops", pipeline_hop_seconds);
  add("pipeline bubble", pipeline_bubble_seconds);
  add("engine host work", host_seconds);
  return out;
}

std::vector<TimePart> ServingResult::turn_parts() const {
  std::vector<TimePart> out;
  auto add = [&](std::string_view label, double s) {
    if (s > 0) out.push_back({label, s});
  };
  add("overhead", overhead_seconds);
  add("prefill", prefill_seconds);
  add("KV transfer", kv_transfer_seconds);
  add("decode", decode_seconds);
  add("other requests' prefills", interference_seconds);
  return out;
}

TokenCost token_cost(const Chip& chip, double tokens_per_second_per_chip, const CostInputs& cost,
                     double dram_bits_per_token) {
  require_positive(tokens_per_second_per_chip, "tokens_per_second_per_chip", "tokens/s");
  require_real(cost.price_per_chip_hour_dollars, "price", "$ per chip-hour", 0.0, 1e4, true);
  require_real(cost.kwh_price_dollars, "kwh_price", "$ per kWh", 0.0, 100.0);
  require_real(cost.pue, "pue", "facility W per IT W", 1.0, 5.0);
  require_real(dram_bits_per_token, "dram_bits_per_token", "bits", 0.0, 1e21);
  TokenCost t;
  const double tokens_per_hour = tokens_per_second_per_chip * 3600.0;
  t.dollars_per_million_tokens = cost.price_per_chip_hour_dollars / tokens_per_hour * 1e6;
  t.joules_per_token = chip.watts * cost.pue / tokens_per_second_per_chip;
  t.energy_dollars_per_million_tokens = t.joules_per_token * 1e6 / 3.6e6 * cost.kwh_price_dollars;
  const double energy_per_hour = chip.watts * cost.pue / 1000.0 * cost.kwh_price_dollars;
  const double share = energy_per_hour / cost.price_per_chip_hour_dollars;
  t.price_below_energy = share > 1.0;
  t.energy_share_of_bill = std::min(share, 1.0);
  t.chip_hour_dollars_for_99_percent = energy_per_hour / 0.99;
  t.dram_joules_per_token = dram_bits_per_token * kDramPicojoulesPerBit * 1e-12;
  return t;
}

std::string energy_share_text(const Chip& chip, const CostInputs& cost) {
  const TokenCost t = token_cost(chip, 1.0, cost);
  const double energy_per_hour = chip.watts * cost.pue / 1000.0 * cost.kwh_price_dollars;
  std::string s = "Energy is " + format_percent(t.energy_share_of_bill) + " of a " +
                  format_dollars(cost.price_per_chip_hour_dollars, 2) +
                  " chip-hour: " + format_grouped(chip.watts, 0) + " W x PUE " +
                  format_grouped(cost.pue, 2) + " x " + format_dollars(cost.kwh_price_dollars, 2) +
                  "/kWh = " + format_dollars(energy_per_hour, 3) +
                  " per chip-hour (the chip at full power, cooling and power delivery; not host "
                  "CPUs, networking or storage).";
  if (t.price_below_energy)
    s += " The chip-hour price is below its energy cost.";
  else
    s += " For energy to be 99 % of the bill, a chip-hour would have to cost " +
         format_dollars(t.chip_hour_dollars_for_99_percent, 3) + ".";
  return s;
}

ServingResult evaluate_serving(const ServingModel& model, const ServingInputs& in) {
  const detail::LayoutEval eval(model, in);
  return eval.at(in.batch);
}

StaticBatchResult evaluate_static_batch(const ServingModel& model, const ServingInputs& in) {
  const detail::LayoutEval eval(model, in);
  return eval.static_batch(in.batch);
}

}  // namespace napkin
