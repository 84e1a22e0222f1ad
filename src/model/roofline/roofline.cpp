#include "roofline.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "roofline_detail.h"
#include "validate.h"

namespace napkin {

namespace {

PlacedOperation place(const Chip& chip, std::string name, double flops, double bytes) {
  const RooflinePoint p = roofline_point(chip, flops, bytes);
  return {std::move(name),    p.flops, p.bytes, p.intensity, p.attainable_flops_per_s,
          p.fraction_of_peak, p.bound};
}

}  // namespace

// ------------------------------------------------------------------- roofline

double arithmetic_intensity(double flops, double bytes) {
  require_real(flops, "flops", "FLOPs", 0.0);
  require_positive(bytes, "bytes", "bytes moved");
  return flops / bytes;
}

double attainable_flops_per_s(const Chip& chip, double intensity) {
  require_real(intensity, "intensity", "FLOP/byte", 0.0);
  return std::min(chip.peak_flops_per_s, chip.hbm_bytes_per_s * intensity);
}

std::string_view to_string(Bound bound) { return bound == Bound::memory ? "memory" : "compute"; }

std::string_view lever(Bound bound) {
  return bound == Bound::memory ? "reduce bytes moved" : "reduce FLOPs";
}

RooflinePoint roofline_point(const Chip& chip, double flops, double bytes) {
  RooflinePoint p;
  p.flops = flops;
  p.bytes = bytes;
  p.intensity = arithmetic_intensity(flops, bytes);
  p.ridge_flops_per_byte = ridge_point_flops_per_byte(chip);
  p.attainable_flops_per_s = attainable_flops_per_s(chip, p.intensity);
  p.fraction_of_peak = p.attainable_flops_per_s / chip.peak_flops_per_s;
  p.seconds = std::max(flops / chip.peak_flops_per_s, bytes / chip.hbm_bytes_per_s);
  p.bound = detail::bound_at(chip, p.intensity);
  return p;
}

std::vector<RooflineCurvePoint> roofline_curve(const Chip& chip, double min_intensity,
                                               double max_intensity, std::int64_t n_points) {
  require_positive(min_intensity, "min_intensity", "FLOP/byte");
  require_real(max_intensity, "max_intensity", "FLOP/byte", min_intensity, 1e300, true);
  require_count(n_points, "n_points", "points", 2, 1'000'000);
  const double ridge = ridge_point_flops_per_byte(chip);
  const double log_lo = std::log(min_intensity);
  const double step = (std::log(max_intensity) - log_lo) / static_cast<double>(n_points - 1);
  std::vector<RooflineCurvePoint> out;
  out.reserve(static_cast<std::size_t>(n_points) + 1);
  bool ridge_added = !(ridge > min_intensity && ridge < max_intensity);
  for (std::int64_t i = 0; i < n_points; ++i) {
    const double x =
        i + 1 == n_points ? max_intensity : std::exp(log_lo + step * static_cast<double>(i));
    if (!ridge_added && ridge <= x) {
      if (ridge < x) out.push_back({ridge, attainable_flops_per_s(chip, ridge)});
      ridge_added = true;
    }
    out.push_back({x, attainable_flops_per_s(chip, x)});
  }
  return out;
}

// ------------------------------------------------------- operations to place

void OperationSetting::validate() const {
  require_count(matmul_dim, "matmul_dim", "elements", 1, 1'000'000);
  require_count(prompt_tokens, "prompt_tokens", "tokens", 1, 100'000'000);
  require_count(decode_batch, "decode_batch", "requests", 1, 100'000'000);
  require_count(context_tokens, "context_tokens", "tokens", 1, 100'000'000);
  detail::require_bytes_per_param(bytes_per_param);
  require_count(bytes_per_elem, "bytes_per_elem", "bytes", 1, 8);
}

std::vector<PlacedOperation> place_operations(const Chip& chip, const ModelShape& shape,
                                              const OperationSetting& s) {
  s.validate();
  const ParamCount params = count_params(shape);
  const double n = static_cast<double>(params.active);
  const double weight_bytes = n * s.bytes_per_param;
  const std::int64_t b = s.bytes_per_elem;
  std::vector<PlacedOperation> out;
  out.reserve(5);

  // A d×d @ d×d matmul moves A, B and C once: intensity 2d / (3b).
  const std::int64_t d = s.matmul_dim;
  out.push_back(place(chip, "large matmul", static_cast<double>(matmul_flops(d, d, d)),
                      static_cast<double>(checked_mul({3, d, d, b}, "matmul bytes"))));

  // Prefill reads the weights once for the whole prompt and writes its KV cache.
  const std::int64_t prompt_kv = kv_cache_bytes(shape, s.prompt_tokens, 1, b);
  out.push_back(place(chip, "prefill", inference_flops(n, static_cast<double>(s.prompt_tokens)),
                      weight_bytes + static_cast<double>(prompt_kv)));

  // One decode step of the batch: the weights once, every request's cache.
  const std::int64_t decode_kv = kv_cache_bytes(shape, s.context_tokens, s.decode_batch, b);
  const double decode_flops = inference_flops(n, static_cast<double>(s.decode_batch));
  const double decode_intensity =
      decode_arithmetic_intensity(n, decode_kv, s.decode_batch, s.bytes_per_param);
  out.push_back(place(chip, "decode", decode_flops, decode_flops / decode_intensity));

  // A layernorm over prompt × d_model activations: ~5 FLOPs per element (mean,
  // variance, normalise, scale, shift), read once and written once — the
  // seed's count, which gives intensity 1.25 at bf16 (printed "1.2").
  const std::int64_t elems = checked_mul(s.prompt_tokens, shape.d_model, "layernorm elements");
  out.push_back(place(chip, "layernorm",
                      static_cast<double>(checked_mul(5, elems, "layernorm FLOPs")),
                      static_cast<double>(checked_mul({2, elems, b}, "layernorm bytes"))));

  // One decode step's attention: QKᵀ and A·V are 4·H·d_h FLOPs per cached
  // token per layer per request, reading that request's K and V.
  const std::int64_t attn_flops = checked_mul(
      {4, shape.n_layers, shape.n_heads, shape.d_head, s.context_tokens, s.decode_batch},
      "attention FLOPs");
  out.push_back(
      place(chip, "attention", static_cast<double>(attn_flops), static_cast<double>(decode_kv)));
  return out;
}

// ----------------------------------------------------------------------- MFU

double mfu(double model_flops, double seconds, const Chip& chip, std::int64_t n_chips) {
  require_real(model_flops, "model_flops", "FLOPs", 0.0);
  require_positive(seconds, "seconds", "s");
  require_count(n_chips, "n_chips", "chips", 1, detail::kMaxChips);
  const double capacity = seconds * chip.peak_flops_per_s * static_cast<double>(n_chips);
  if (model_flops > capacity)
    throw_out_of_range(
        "model_flops", "FLOPs",
        "at most seconds × peak × chips = " + format_value(capacity) + " (MFU cannot exceed 1)",
        format_value(model_flops));
  return model_flops / capacity;
}

double hfu(double model_flops, double seconds, const Chip& chip, std::int64_t n_chips,
           double recompute) {
  require_real(recompute, "recompute_factor", "hardware FLOPs per model FLOP", 1.0, 10.0);
  const double model = mfu(model_flops, seconds, chip, n_chips);
  const double capacity = seconds * chip.peak_flops_per_s * static_cast<double>(n_chips);
  const double hardware_flops = model_flops * recompute;
  if (hardware_flops > capacity)
    throw_out_of_range("recompute_factor", "hardware FLOPs per model FLOP",
                       "at most 1 / MFU = " + format_value(1.0 / model) + " (HFU cannot exceed 1)",
                       format_value(recompute));
  return hardware_flops / capacity;
}

void MfuBudgetInputs::validate() const {
  require_real(matmul_seconds, "matmul_seconds", "s", 0.0);
  require_real(vector_seconds, "vector_seconds", "s", 0.0);
  require_real(memory_seconds, "memory_seconds", "s", 0.0);
  require_real(comms_seconds, "comms_seconds", "s", 0.0);
  require_real(optimizer_seconds, "optimizer_seconds", "s", 0.0);
  const double total =
      matmul_seconds + vector_seconds + memory_seconds + comms_seconds + optimizer_seconds;
  if (!(total > 0) || !std::isfinite(total))
    throw_out_of_range(
        "matmul_seconds + vector_seconds + memory_seconds + comms_seconds + "
        "optimizer_seconds",
        "s", "a finite number > 0", format_value(total));
}

std::string_view to_string(MfuLever l) {
  switch (l) {
    case MfuLever::vector: return "vector";
    case MfuLever::memory: return "memory";
    case MfuLever::comms: return "comms";
    case MfuLever::optimizer: return "optimizer";
    case MfuLever::none: return "none";
  }
  return "none";
}

MfuBudget mfu_budget(const MfuBudgetInputs& in) {
  in.validate();
  MfuBudget b;
  b.total_seconds = in.matmul_seconds + in.vector_seconds + in.memory_seconds + in.comms_seconds +
                    in.optimizer_seconds;
  b.mfu = in.matmul_seconds / b.total_seconds;
  b.vector_fraction = in.vector_seconds / b.total_seconds;
  b.memory_fraction = in.memory_seconds / b.total_seconds;
  b.comms_fraction = in.comms_seconds / b.total_seconds;
  b.optimizer_fraction = in.optimizer_seconds / b.total_seconds;
  double worst = 0;
  const std::pair<MfuLever, double> losses[] = {{MfuLever::vector, in.vector_seconds},
                                                {MfuLever::memory, in.memory_seconds},
                                                {MfuLever::comms, in.comms_seconds},
                                                {MfuLever::optimizer, in.optimizer_seconds}};
  for (const auto& [which, seconds] : losses)
    if (seconds > worst) {
      worst = seconds;
      b.biggest_lever = which;
    }
  b.biggest_lever_fraction = worst / b.total_seconds;
  return b;
}

MfuBudget mfu_budget_without(const MfuBudgetInputs& in, MfuLever lever) {
  MfuBudgetInputs without = in;
  switch (lever) {
    case MfuLever::vector: without.vector_seconds = 0; break;
    case MfuLever::memory: without.memory_seconds = 0; break;
    case MfuLever::comms: without.comms_seconds = 0; break;
    case MfuLever::optimizer: without.optimizer_seconds = 0; break;
    case MfuLever::none: break;
  }
  return mfu_budget(without);
}

std::vector<MfuAgendaItem> mfu_agenda(const MfuBudget& b) {
  std::vector<MfuAgendaItem> items = {{MfuLever::vector, b.vector_fraction},
                                      {MfuLever::memory, b.memory_fraction},
                                      {MfuLever::comms, b.comms_fraction},
                                      {MfuLever::optimizer, b.optimizer_fraction}};
  std::stable_sort(items.begin(), items.end(), [](const MfuAgendaItem& x, const MfuAgendaItem& y) {
    return x.fraction > y.fraction;
  });
  return items;
}

// ------------------------------------------------------- prefill and decode

std::int64_t prefill_attention_flops(std::int64_t n_layers, std::int64_t n_heads,
                                     std::int64_t d_head, std::int64_t new_tokens,
                                     std::int64_t prior_context_tokens, CausalMask mask) {
  require_count(n_layers, "layers", "blocks");
  require_count(n_heads, "heads", "attention heads");
  require_count(d_head, "head_dim", "elements");
  require_count(new_tokens, "new_tokens", "tokens");
  require_count(prior_context_tokens, "prior_context_tokens", "tokens", 0);
  const char* what = "prefill attention FLOPs";
  std::int64_t pairs = 0;
  if (mask == CausalMask::full_matrix) {
    pairs = checked_mul(new_tokens, checked_add(prior_context_tokens, new_tokens, what), what);
  } else {
    // New token i (0-based) attends to the prior context and i + 1 new keys.
    const std::int64_t t = new_tokens;
    const std::int64_t triangle =
        t % 2 == 0 ? checked_mul(t / 2, t + 1, what) : checked_mul(t, (t + 1) / 2, what);
    pairs = checked_add(checked_mul(t, prior_context_tokens, what), triangle, what);
  }
  return checked_mul({4, n_layers, n_heads, d_head, pairs}, what);
}

double prefill_seconds(std::int64_t n_tokens, double n_params, const Chip& chip,
                       std::int64_t n_chips, double mfu_fraction, std::int64_t attention_flops) {
  require_count(n_tokens, "n_tokens", "tokens");
  detail::require_params(n_params);
  require_count(n_chips, "n_chips", "chips", 1, detail::kMaxChips);
  require_real(mfu_fraction, "mfu", "fraction of peak", 0.0, 1.0, true);
  require_count(attention_flops, "attention_flops", "FLOPs", 0);
  const double flops = inference_flops(n_params, static_cast<double>(n_tokens)) +
                       static_cast<double>(attention_flops);
  return flops / (static_cast<double>(n_chips) * chip.peak_flops_per_s * mfu_fraction);
}

double decode_seconds(std::int64_t n_tokens, double n_params, const Chip& chip,
                      std::int64_t n_chips, double bytes_per_param, std::int64_t batch,
                      std::int64_t kv_bytes_per_request, double bandwidth_efficiency) {
  require_count(n_tokens, "n_tokens", "tokens", 0);
  detail::require_params(n_params);
  require_count(n_chips, "n_chips", "chips", 1, detail::kMaxChips);
  detail::require_bytes_per_param(bytes_per_param);
  require_count(batch, "batch", "requests", 1, 1'000'000'000);
  require_count(kv_bytes_per_request, "kv_bytes_per_request", "bytes", 0);
  require_real(bandwidth_efficiency, "bandwidth_efficiency", "fraction of HBM bandwidth", 0.0, 1.0,
               true);
  const double bytes_per_step =
      n_params * bytes_per_param +
      static_cast<double>(batch) * static_cast<double>(kv_bytes_per_request);
  return static_cast<double>(n_tokens) * bytes_per_step /
         (static_cast<double>(n_chips) * chip.hbm_bytes_per_s * bandwidth_efficiency);
}

std::int64_t chips_to_hold_weights(double n_params, const Chip& chip, double bytes_per_param) {
  detail::require_params(n_params);
  detail::require_bytes_per_param(bytes_per_param);
  return static_cast<std::int64_t>(
      std::ceil(n_params * bytes_per_param / static_cast<double>(chip.hbm_bytes)));
}

void TurnInputs::validate() const {
  (void)chip_by_name(chip);
  require_count(n_chips, "n_chips", "chips", 1, detail::kMaxChips);
  detail::require_params(n_params);
  require_real(n_resident_params, "n_resident_params", "parameters (0 = n_params)", 0.0,
               detail::kMaxParams);
  require_count(prefill_tokens, "prefill_tokens", "tokens", 1, 1'000'000'000);
  require_count(decode_tokens, "decode_tokens", "tokens", 0, 1'000'000'000);
  require_count(batch, "batch", "requests", 1, 1'000'000'000);
  detail::require_bytes_per_param(bytes_per_param);
  require_count(kv_bytes_per_request, "kv_bytes_per_request", "bytes", 0);
  require_count(prefill_attention_flops, "prefill_attention_flops", "FLOPs", 0);
  require_real(prefill_mfu, "prefill_mfu", "fraction of peak", 0.0, 1.0, true);
  require_real(decode_bandwidth_efficiency, "decode_bandwidth_efficiency",
               "fraction of HBM bandwidth", 0.0, 1.0, true);
  require_real(overhead_seconds, "overhead_seconds", "s", 0.0, 1e9);
  require_real(budget_seconds, "budget_seconds", "s", 0.0, 1e9, true);
  require_real(per_step_floor_seconds, "per_step_floor_seconds", "s per decode step", 0.0, 1e3);
  require_count(max_chips, "max_chips", "chips", 1, detail::kMaxChips);
}

TurnLatency interactive_latency(const TurnInputs& in) {
  in.validate();
  return interactive_latency(in, in.n_chips);
}

TurnLatency interactive_latency(const TurnInputs& in, std::int64_t n_chips) {
  in.validate();
  const Chip& chip = chip_by_name(in.chip);
  TurnLatency t;
  t.n_chips = n_chips;
  t.prefill_seconds = prefill_seconds(in.prefill_tokens, in.n_params, chip, n_chips, in.prefill_mfu,
                                      in.prefill_attention_flops);
  t.decode_seconds =
      decode_seconds(in.decode_tokens, in.n_params, chip, n_chips, in.bytes_per_param, in.batch,
                     in.kv_bytes_per_request, in.decode_bandwidth_efficiency) +
      static_cast<double>(in.decode_tokens) * in.per_step_floor_seconds;
  t.overhead_seconds = in.overhead_seconds;
  t.total_seconds = t.prefill_seconds + t.decode_seconds + t.overhead_seconds;
  t.meets_budget = t.total_seconds <= in.budget_seconds;
  return t;
}

std::optional<std::int64_t> chips_for_latency_budget(const TurnInputs& in) {
  in.validate();
  if (in.budget_seconds <= in.overhead_seconds)
    throw_out_of_range("budget_seconds", "s",
                       "greater than overhead_seconds = " + format_value(in.overhead_seconds) +
                           " (the scaffolding alone uses the whole budget)",
                       format_value(in.budget_seconds));
  // Prefill is never free, so a budget at or below what no chip count can
  // shrink is unreachable at any slice size.
  const double floor_seconds =
      in.overhead_seconds + static_cast<double>(in.decode_tokens) * in.per_step_floor_seconds;
  if (in.budget_seconds <= floor_seconds) return std::nullopt;
  for (std::int64_t c = 1; c <= in.max_chips; c *= 2)
    if (interactive_latency(in, c).meets_budget) return c;
  return std::nullopt;
}

std::int64_t chips_to_hold_weights(const TurnInputs& in) {
  in.validate();
  const double resident = in.n_resident_params > 0 ? in.n_resident_params : in.n_params;
  return chips_to_hold_weights(resident, chip_by_name(in.chip), in.bytes_per_param);
}

ServingNeed serving_need(const TurnInputs& in) {
  in.validate();
  ServingNeed n;
  n.chips_to_hold_weights = chips_to_hold_weights(in);
  if (in.budget_seconds <= in.overhead_seconds) {
    n.verdict = LatencyVerdict::below_overhead;
    return n;
  }
  n.chips_for_budget = chips_for_latency_budget(in);
  if (!n.chips_for_budget) {
    n.verdict = LatencyVerdict::no_slice;
    return n;
  }
  n.verdict = LatencyVerdict::meets;
  n.deploy_chips = std::max(*n.chips_for_budget, n.chips_to_hold_weights);
  n.deploy_latency_bound = *n.chips_for_budget >= n.chips_to_hold_weights;
  return n;
}

std::vector<TurnLatency> latency_vs_chips(const TurnInputs& in, std::int64_t max_chips) {
  in.validate();
  std::vector<TurnLatency> out;
  for (std::int64_t c : powers_of_two(1, max_chips)) out.push_back(interactive_latency(in, c));
  return out;
}

std::vector<ModelSizePoint> model_size_sweep(const TurnInputs& in,
                                             const std::vector<double>& n_params) {
  in.validate();
  std::vector<ModelSizePoint> out;
  out.reserve(n_params.size());
  TurnInputs t = in;
  for (double n : n_params) {
    t.n_params = n;
    t.n_resident_params = 0;
    ModelSizePoint p;
    p.n_params = n;
    const ServingNeed need = serving_need(t);
    p.chips_for_budget = need.chips_for_budget;
    p.chips_to_hold_weights = need.chips_to_hold_weights;
    p.single_chip_seconds = interactive_latency(t, 1).total_seconds;
    out.push_back(p);
  }
  return out;
}

ServableSizes largest_servable(const std::vector<ModelSizePoint>& sweep) {
  ServableSizes out;
  for (const ModelSizePoint& m : sweep) {
    if (m.chips_for_budget && *m.chips_for_budget == 1) out.largest_on_one_chip = m.n_params;
    if (m.chips_for_budget) out.largest_on_any = m.n_params;
  }
  return out;
}

}  // namespace napkin
