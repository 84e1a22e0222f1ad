#include "roofline.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "validate.h"

namespace napkin {

namespace {

// Largest parameter count any napkin here accepts: keeps every derived count
// (chips, bytes) far inside a 64-bit integer.
constexpr double kMaxParams = 1e18;
// Largest chip count a slice, sweep or search may name (2^40).
constexpr std::int64_t kMaxChips = std::int64_t{1} << 40;

void require_params(double n, std::string_view name = "n_params") {
  require_real(n, name, "parameters", 0.0, kMaxParams, true);
}

void require_bytes_per_param(double b) {
  require_real(b, "bytes_per_param", "bytes", 0.0, 8.0, true);
}

Bound bound_at(const Chip& chip, double intensity) {
  // The same product attainable_flops_per_s() compares, so the verdict and
  // the roof can never disagree at the ridge.
  return chip.hbm_bytes_per_s * intensity < chip.peak_flops_per_s ? Bound::memory : Bound::compute;
}

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
  p.bound = bound_at(chip, p.intensity);
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
  require_bytes_per_param(bytes_per_param);
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
  require_count(n_chips, "n_chips", "chips", 1, kMaxChips);
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
  return b;
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
  require_params(n_params);
  require_count(n_chips, "n_chips", "chips", 1, kMaxChips);
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
  require_params(n_params);
  require_count(n_chips, "n_chips", "chips", 1, kMaxChips);
  require_bytes_per_param(bytes_per_param);
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
  require_params(n_params);
  require_bytes_per_param(bytes_per_param);
  return static_cast<std::int64_t>(
      std::ceil(n_params * bytes_per_param / static_cast<double>(chip.hbm_bytes)));
}

void TurnInputs::validate() const {
  (void)chip_by_name(chip);
  require_count(n_chips, "n_chips", "chips", 1, kMaxChips);
  require_params(n_params);
  require_real(n_resident_params, "n_resident_params", "parameters (0 = n_params)", 0.0,
               kMaxParams);
  require_count(prefill_tokens, "prefill_tokens", "tokens", 1, 1'000'000'000);
  require_count(decode_tokens, "decode_tokens", "tokens", 0, 1'000'000'000);
  require_count(batch, "batch", "requests", 1, 1'000'000'000);
  require_bytes_per_param(bytes_per_param);
  require_count(kv_bytes_per_request, "kv_bytes_per_request", "bytes", 0);
  require_count(prefill_attention_flops, "prefill_attention_flops", "FLOPs", 0);
  require_real(prefill_mfu, "prefill_mfu", "fraction of peak", 0.0, 1.0, true);
  require_real(decode_bandwidth_efficiency, "decode_bandwidth_efficiency",
               "fraction of HBM bandwidth", 0.0, 1.0, true);
  require_real(overhead_seconds, "overhead_seconds", "s", 0.0, 1e9);
  require_real(budget_seconds, "budget_seconds", "s", 0.0, 1e9, true);
  require_real(per_step_floor_seconds, "per_step_floor_seconds", "s per decode step", 0.0, 1e3);
  require_count(max_chips, "max_chips", "chips", 1, kMaxChips);
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
    p.chips_for_budget = chips_for_latency_budget(t);
    p.chips_to_hold_weights = chips_to_hold_weights(t);
    p.single_chip_seconds = interactive_latency(t, 1).total_seconds;
    out.push_back(p);
  }
  return out;
}

// ------------------------------------------------------------ the decode wall

void DecodeShape::validate() const {
  require_params(n_params);
  require_count(n_layers, "layers", "blocks", 1, 100'000);
  require_count(n_kv_heads, "kv_heads", "KV heads", 1, 100'000);
  require_count(d_head, "head_dim", "elements", 1, 100'000);
  require_count(seq_len, "seq_len", "tokens", 1, 1'000'000'000);
  require_bytes_per_param(bytes_per_param);
  require_count(kv_bytes_per_elem, "kv_bytes_per_elem", "bytes", 1, 8);
  require_count(kv_bytes_per_token, "kv_bytes_per_token", "bytes (0 = from the heads)", 0,
                1'000'000'000'000);
}

namespace {
// The batch's KV cache: the shape's own bytes per token when given (MLA).
std::int64_t decode_kv_bytes(const DecodeShape& s, std::int64_t batch) {
  if (s.kv_bytes_per_token > 0)
    return checked_mul({s.kv_bytes_per_token, s.seq_len, batch}, "KV cache bytes");
  return kv_cache_bytes(s.n_layers, s.n_kv_heads, s.d_head, s.seq_len, batch, s.kv_bytes_per_elem);
}
}  // namespace

double decode_batch_intensity(const DecodeShape& s, std::int64_t batch) {
  s.validate();
  require_count(batch, "batch", "requests");
  const std::int64_t kv = decode_kv_bytes(s, batch);
  return decode_arithmetic_intensity(s.n_params, kv, batch, s.bytes_per_param);
}

DecodeIntensityPoint decode_intensity_point(const Chip& chip, const DecodeShape& s,
                                            std::int64_t batch) {
  s.validate();
  DecodeIntensityPoint p;
  p.batch = batch;
  require_count(batch, "batch", "requests");
  p.kv_bytes = decode_kv_bytes(s, batch);
  p.intensity = decode_arithmetic_intensity(s.n_params, p.kv_bytes, batch, s.bytes_per_param);
  p.weight_bytes = s.n_params * s.bytes_per_param;
  p.kv_share_of_bytes =
      static_cast<double>(p.kv_bytes) / (p.weight_bytes + static_cast<double>(p.kv_bytes));
  p.fraction_of_ridge = p.intensity / ridge_point_flops_per_byte(chip);
  p.attainable_flops_per_s = attainable_flops_per_s(chip, p.intensity);
  p.bound = bound_at(chip, p.intensity);
  return p;
}

std::vector<DecodeIntensityPoint> decode_intensity_sweep(const Chip& chip, const DecodeShape& s,
                                                         const std::vector<std::int64_t>& batches) {
  std::vector<DecodeIntensityPoint> out;
  out.reserve(batches.size());
  for (std::int64_t b : batches) out.push_back(decode_intensity_point(chip, s, b));
  return out;
}

std::vector<std::int64_t> powers_of_two(std::int64_t lo, std::int64_t hi) {
  require_count(lo, "lo", "count", 1, kMaxChips);
  require_count(hi, "hi", "count", lo, kMaxChips);
  std::vector<std::int64_t> out;
  for (std::int64_t v = lo; v <= hi; v *= 2) out.push_back(v);
  return out;
}

// -------------------------------------------------------- co-design levers

double tile_efficiency(std::int64_t dim, std::int64_t tile) {
  require_count(dim, "dim", "elements", 1, 100'000'000);
  require_count(tile, "tile", "elements per side", 1, 65'536);
  // A (dim × tile) @ (tile × tile) matmul: only `dim` is padded.
  return matmul_tile_efficiency(dim, tile, tile, tile);
}

double matmul_tile_efficiency(std::int64_t m, std::int64_t k, std::int64_t n, std::int64_t tile) {
  return static_cast<double>(matmul_flops(m, k, n)) /
         static_cast<double>(padded_matmul_flops(m, k, n, tile));
}

std::vector<TilePoint> tile_efficiency_sweep(std::int64_t lo, std::int64_t hi, std::int64_t tile) {
  require_count(lo, "dim_lo", "elements", 1, 100'000'000);
  require_count(hi, "dim_hi", "elements", lo, std::min<std::int64_t>(lo + 999'999, 100'000'000));
  require_count(tile, "tile", "elements per side", 1, 65'536);
  std::vector<TilePoint> out;
  out.reserve(static_cast<std::size_t>(hi - lo + 1));
  for (std::int64_t d = lo; d <= hi; ++d)
    out.push_back({d, (d + tile - 1) / tile * tile, tile_efficiency(d, tile)});
  return out;
}

double gqa_saving(std::int64_t n_query_heads, std::int64_t n_kv_heads) {
  require_count(n_query_heads, "n_query_heads", "query heads", 1, 100'000);
  require_count(n_kv_heads, "n_kv_heads", "KV heads (at most n_query_heads)", 1, n_query_heads);
  if (n_query_heads % n_kv_heads != 0)
    throw std::invalid_argument(
        "n_kv_heads (KV heads) must divide n_query_heads = " + std::to_string(n_query_heads) +
        "; got " + std::to_string(n_kv_heads));
  return static_cast<double>(n_query_heads) / static_cast<double>(n_kv_heads);
}

void KvServing::validate() const {
  require_params(n_params);
  require_count(n_layers, "layers", "blocks", 1, 100'000);
  require_count(n_query_heads, "n_query_heads", "query heads", 1, 100'000);
  require_count(d_head, "head_dim", "elements", 1, 100'000);
  require_count(seq_len, "seq_len", "tokens", 1, 1'000'000'000);
  require_count(batch, "batch", "requests", 1, 1'000'000'000);
  (void)chip_by_name(chip);
  require_count(n_chips, "n_chips", "chips", 1, 1'000'000);
  require_bytes_per_param(bytes_per_param);
  require_count(kv_bytes_per_elem, "kv_bytes_per_elem", "bytes", 1, 8);
  require_count(workspace_bytes, "workspace_bytes", "bytes", 0);
}

GqaPoint gqa_point(const KvServing& s, std::int64_t n_kv_heads) {
  s.validate();
  GqaPoint p;
  p.saving = gqa_saving(s.n_query_heads, n_kv_heads);
  p.n_kv_heads = n_kv_heads;
  p.group_size = s.n_query_heads / n_kv_heads;
  p.kv_bytes_per_request =
      kv_cache_bytes(s.n_layers, n_kv_heads, s.d_head, s.seq_len, 1, s.kv_bytes_per_elem);
  p.kv_bytes_batch =
      kv_cache_bytes(s.n_layers, n_kv_heads, s.d_head, s.seq_len, s.batch, s.kv_bytes_per_elem);
  const std::int64_t hbm =
      checked_mul(s.n_chips, chip_by_name(s.chip).hbm_bytes, "total HBM bytes");
  p.concurrent_requests = max_concurrent_requests(hbm, s.n_params, p.kv_bytes_per_request,
                                                  s.bytes_per_param, s.workspace_bytes);
  return p;
}

std::vector<GqaPoint> kv_heads_sweep(const KvServing& s) {
  s.validate();
  std::vector<GqaPoint> out;
  for (std::int64_t kv = s.n_query_heads; kv >= 1; --kv)
    if (s.n_query_heads % kv == 0) out.push_back(gqa_point(s, kv));
  return out;
}

void DepthWidthInputs::validate() const {
  require_params(n_params);
  (void)chip_by_name(chip);
  require_count(n_chips, "n_chips", "chips", 1, kMaxChips);
  require_bytes_per_param(bytes_per_param);
  require_count(tile, "tile", "elements per side", 1, 65'536);
  require_real(per_layer_serial_seconds, "per_layer_serial_seconds", "s per layer", 0.0, 1.0);
}

DepthWidthPoint depth_vs_width(const DepthWidthInputs& in, std::int64_t n_layers) {
  in.validate();
  require_count(n_layers, "n_layers", "blocks", 1, 100'000);
  const double d_exact = std::sqrt(in.n_params / (12.0 * static_cast<double>(n_layers)));
  if (d_exact > 100'000'000)
    throw_out_of_range("n_params", "parameters", "small enough that sqrt(N / 12L) <= 1e8 elements",
                       format_value(in.n_params));
  const Chip& chip = chip_by_name(in.chip);
  DepthWidthPoint p;
  p.n_layers = n_layers;
  p.d_model = std::max<std::int64_t>(1, std::llround(d_exact));
  p.aspect_ratio = static_cast<double>(p.d_model) / static_cast<double>(n_layers);
  p.tile_efficiency = tile_efficiency(p.d_model, in.tile);
  p.weight_bytes_per_layer = in.n_params * in.bytes_per_param / static_cast<double>(n_layers);
  p.serial_seconds_per_step = static_cast<double>(n_layers) * in.per_layer_serial_seconds;
  p.decode_step_seconds = decode_seconds(1, in.n_params, chip, in.n_chips, in.bytes_per_param) +
                          p.serial_seconds_per_step;
  return p;
}

std::vector<DepthWidthPoint> depth_vs_width_sweep(const DepthWidthInputs& in,
                                                  const std::vector<std::int64_t>& layers) {
  std::vector<DepthWidthPoint> out;
  out.reserve(layers.size());
  for (std::int64_t l : layers) out.push_back(depth_vs_width(in, l));
  return out;
}

// ------------------------------------------------------------ the whole panel

RooflinePanelData roofline_panel(const RooflineScenario& sc) {
  const Chip& chip = chip_by_name(sc.chip);
  sc.operations.validate();
  require_real(sc.recompute, "recompute_factor", "hardware FLOPs per model FLOP", 1.0, 10.0);
  const ParamCount params = count_params(sc.shape);
  const double active = static_cast<double>(params.active);
  const double total = static_cast<double>(params.total);
  const OperationSetting& ops = sc.operations;
  const ModelShape& shape = sc.shape;

  RooflinePanelData d;
  d.ridge_flops_per_byte = ridge_point_flops_per_byte(chip);
  // 0.1 … 1e5 FLOP/byte spans batch-1 decode to the largest matmuls.
  d.roofline = roofline_curve(chip, 0.1, 1e5, 64);
  for (const std::string& other : sc.overlay_chips)
    d.overlays.push_back(roofline_curve(chip_by_name(other), 0.1, 1e5, 64));
  d.operations = place_operations(chip, shape, ops);

  DecodeShape decode;
  decode.n_params = active;
  decode.n_layers = shape.n_layers;
  decode.n_kv_heads = shape.n_kv_heads;
  decode.d_head = shape.d_head;
  decode.kv_bytes_per_token = kv_cache_bytes_per_token(shape, ops.bytes_per_elem);
  decode.seq_len = ops.context_tokens;
  decode.bytes_per_param = ops.bytes_per_param;
  decode.kv_bytes_per_elem = ops.bytes_per_elem;
  d.decode_wall = decode_intensity_sweep(chip, decode, powers_of_two(1, sc.max_batch));

  d.mfu_budget = mfu_budget(sc.mfu);
  d.hfu_over_mfu = sc.recompute;

  TurnInputs turn = sc.turn;
  turn.chip = std::string(chip.name);
  turn.n_params = active;
  turn.n_resident_params = total;
  turn.prefill_tokens = ops.prompt_tokens;
  turn.batch = ops.decode_batch;
  turn.bytes_per_param = ops.bytes_per_param;
  turn.kv_bytes_per_request = kv_cache_bytes(shape, ops.context_tokens, 1, ops.bytes_per_elem);
  d.turn = interactive_latency(turn);
  d.latency = latency_vs_chips(turn, sc.max_chips_plotted);
  d.chips_for_budget = chips_for_latency_budget(turn);
  d.chips_to_hold_weights = chips_to_hold_weights(turn);

  std::vector<double> sizes = sc.model_sizes;
  if (sizes.empty())
    for (int i = 0; i <= 30; ++i) sizes.push_back(std::pow(10.0, 9.0 + 0.1 * i));
  d.model_sizes = model_size_sweep(turn, sizes);

  d.tiles = tile_efficiency_sweep(sc.tile_dim_lo, sc.tile_dim_hi, sc.tile);

  KvServing kv = sc.kv;
  kv.n_params = total;
  kv.n_layers = shape.n_layers;
  kv.n_query_heads = shape.n_heads;
  kv.d_head = shape.d_head;
  kv.seq_len = ops.context_tokens;
  kv.batch = ops.decode_batch;
  kv.bytes_per_param = ops.bytes_per_param;
  kv.kv_bytes_per_elem = ops.bytes_per_elem;
  d.kv_heads = kv_heads_sweep(kv);

  DepthWidthInputs dw = sc.depth_width;
  dw.n_params = static_cast<double>(params.non_embedding_total);
  dw.chip = std::string(chip.name);
  dw.n_chips = turn.n_chips;
  dw.bytes_per_param = ops.bytes_per_param;
  dw.tile = sc.tile;
  d.depth_width = depth_vs_width_sweep(dw, sc.depth_options);
  return d;
}

}  // namespace napkin
