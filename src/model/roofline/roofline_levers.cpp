// The decode wall (decode intensity and the KV cache's share of the bytes as
// the batch grows) and the co-design levers of the seed's Phase 03: tile
// padding, GQA, depth against width. The roofline, MFU and the latency
// napkin are in roofline.cpp.
#include "roofline.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "roofline_detail.h"
#include "validate.h"

namespace napkin {

// ------------------------------------------------------------ the decode wall

void DecodeShape::validate() const {
  detail::require_params(n_params);
  require_count(n_layers, "layers", "blocks", 1, 100'000);
  require_count(n_kv_heads, "kv_heads", "KV heads", 1, 100'000);
  require_count(d_head, "head_dim", "elements", 1, 100'000);
  require_count(seq_len, "seq_len", "tokens", 1, 1'000'000'000);
  detail::require_bytes_per_param(bytes_per_param);
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
double kv_share_of_bytes(double weight_bytes, double kv_bytes) {
  require_real(weight_bytes, "weight_bytes", "bytes", 0.0);
  require_real(kv_bytes, "kv_bytes", "bytes", 0.0);
  const double total = weight_bytes + kv_bytes;
  return total > 0 ? kv_bytes / total : 0.0;
}

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
  p.kv_share_of_bytes = kv_share_of_bytes(p.weight_bytes, static_cast<double>(p.kv_bytes));
  p.fraction_of_ridge = p.intensity / ridge_point_flops_per_byte(chip);
  p.attainable_flops_per_s = attainable_flops_per_s(chip, p.intensity);
  p.bound = detail::bound_at(chip, p.intensity);
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
  require_count(lo, "lo", "count", 1, detail::kMaxChips);
  require_count(hi, "hi", "count", lo, detail::kMaxChips);
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
  detail::require_params(n_params);
  require_count(n_layers, "layers", "blocks", 1, 100'000);
  require_count(n_query_heads, "n_query_heads", "query heads", 1, 100'000);
  require_count(d_head, "head_dim", "elements", 1, 100'000);
  require_count(seq_len, "seq_len", "tokens", 1, 1'000'000'000);
  require_count(batch, "batch", "requests", 1, 1'000'000'000);
  (void)chip_by_name(chip);
  require_count(n_chips, "n_chips", "chips", 1, 1'000'000);
  detail::require_bytes_per_param(bytes_per_param);
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
  detail::require_params(n_params);
  (void)chip_by_name(chip);
  require_count(n_chips, "n_chips", "chips", 1, detail::kMaxChips);
  detail::require_bytes_per_param(bytes_per_param);
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

}  // namespace napkin
