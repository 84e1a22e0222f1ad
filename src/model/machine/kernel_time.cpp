#include "kernel_time.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "validate.h"

namespace napkin {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

void require_gemm(const Gemm& g) {
  require_count(g.m, "GEMM m", "rows");
  require_count(g.n, "GEMM n", "columns");
  require_count(g.k, "GEMM k", "inner dimension");
  require_count(g.batch, "GEMM batch", "products");
}

}  // namespace

KernelRates kernel_rates(const Chip& chip, bool fp8_matmuls) {
  KernelRates r;
  r.matmul_flops_per_s = chip.peak_flops_per_s * chip.efficiency.matmul;
  if (fp8_matmuls) {
    if (chip.fp8_peak_flops_per_s <= 0 || chip.efficiency.matmul_fp8 <= 0)
      throw std::invalid_argument("fp8 matmuls need a chip with an FP8 peak; " +
                                  std::string(chip.name) + " has none");
    r.matmul_flops_per_s = chip.fp8_peak_flops_per_s * chip.efficiency.matmul_fp8;
  }
  r.attention_flops_per_s = chip.peak_flops_per_s * chip.efficiency.attention;
  r.hbm_bytes_per_s = chip.hbm_bytes_per_s * chip.efficiency.hbm;
  r.compute_units = chip.compute_units;
  r.tile_long = chip.gemm_tile_long;
  r.tile_short = chip.gemm_tile_short;
  if (chip.compute_units > 0) r.epilogue_seconds_per_element = 2.0 / chip.hbm_bytes_per_s;
  return r;
}

double gemm_flops(const Gemm& g) {
  return 2.0 * static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k) *
         static_cast<double>(g.batch);
}

std::int64_t gemm_split_k(const Gemm& g, std::int64_t units, std::int64_t tile_m,
                          std::int64_t tile_n) {
  require_gemm(g);
  require_count(tile_m, "tile rows", "elements");
  require_count(tile_n, "tile columns", "elements");
  if (units <= 0) return 1;
  const double tiles = static_cast<double>(ceil_div(g.m, tile_m)) *
                       static_cast<double>(ceil_div(g.n, tile_n)) * static_cast<double>(g.batch);
  if (tiles >= static_cast<double>(units)) return 1;
  const std::int64_t by_units = static_cast<std::int64_t>(static_cast<double>(units) / tiles);
  const std::int64_t by_k = g.k / 256;
  return std::max<std::int64_t>(1, std::min(by_units, by_k));
}

namespace {

double oriented_efficiency(const Gemm& g, std::int64_t units, std::int64_t tm, std::int64_t tn) {
  const std::int64_t split = gemm_split_k(g, units, tm, tn);
  const double tiles = static_cast<double>(ceil_div(g.m, tm)) *
                       static_cast<double>(ceil_div(g.n, tn)) * static_cast<double>(g.batch) *
                       static_cast<double>(split);
  const double waves = std::ceil(tiles / static_cast<double>(units));
  return static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.batch) *
         static_cast<double>(split) /
         (waves * static_cast<double>(units) * static_cast<double>(tm) * static_cast<double>(tn));
}

}  // namespace

double gemm_wave_efficiency(const Gemm& g, std::int64_t units, std::int64_t tile_long,
                            std::int64_t tile_short) {
  require_gemm(g);
  require_count(tile_long, "tile long side", "elements");
  require_count(tile_short, "tile short side", "elements", 1, tile_long);
  require_count(units, "compute units", "SMs", 0);
  if (units == 0) {
    auto pad = [&](std::int64_t d) {
      return static_cast<double>(d) / static_cast<double>(ceil_div(d, tile_short) * tile_short);
    };
    return pad(g.m) * pad(g.n) * pad(g.k);
  }
  return std::max(oriented_efficiency(g, units, tile_long, tile_short),
                  oriented_efficiency(g, units, tile_short, tile_long));
}

double overlapped_kernel_seconds(double compute_seconds, double memory_seconds,
                                 std::int64_t compute_units) {
  require_real(compute_seconds, "compute time", "s", 0);
  require_real(memory_seconds, "memory time", "s", 0);
  if (compute_units <= 0) return std::max(compute_seconds, memory_seconds);
  return std::sqrt(compute_seconds * compute_seconds + memory_seconds * memory_seconds);
}

double gemm_seconds(const KernelRates& r, const Gemm& g, double extra_bytes,
                    double bytes_per_element) {
  require_gemm(g);
  require_positive(r.matmul_flops_per_s, "matmul rate", "FLOP/s");
  require_positive(r.hbm_bytes_per_s, "HBM rate", "bytes/s");
  require_real(extra_bytes, "extra bytes", "bytes", 0);
  require_real(r.epilogue_seconds_per_element, "epilogue time", "s per output element", 0);
  const double eff = gemm_wave_efficiency(g, r.compute_units, r.tile_long, r.tile_short);
  const double m = static_cast<double>(g.m), n = static_cast<double>(g.n),
               k = static_cast<double>(g.k), b = static_cast<double>(g.batch);
  const double operand_bytes = bytes_per_element * b * (m * k + k * n);
  double bytes = operand_bytes + bytes_per_element * b * m * n + extra_bytes;
  const std::int64_t split = std::max(gemm_split_k(g, r.compute_units, r.tile_long, r.tile_short),
                                      gemm_split_k(g, r.compute_units, r.tile_short, r.tile_long));
  if (split > 1) bytes += 2.0 * 4.0 * static_cast<double>(split) * m * n * b;  // fp32 partials
  const double epilogue = r.epilogue_seconds_per_element * m * n * b * static_cast<double>(split);
  const double flops_seconds = gemm_flops(g) / r.matmul_flops_per_s;
  // The main loop's math against its operand loads, overlapped as far as the
  // pipeline lets them (only the math: padding and partial waves leave SMs
  // idle while the loads run), then the epilogue; never faster than the
  // padded compute or than all the bytes at the HBM rate.
  const double main_loop =
      overlapped_kernel_seconds(flops_seconds, operand_bytes / r.hbm_bytes_per_s, r.compute_units);
  return std::max(
      {flops_seconds / eff + epilogue, main_loop + epilogue, bytes / r.hbm_bytes_per_s});
}

double grouped_gemm_seconds(const KernelRates& rates, const Gemm& g, double rows_spread,
                            double bytes_per_element) {
  require_real(rows_spread, "grouped GEMM rows spread", "rows", 0);
  if (rows_spread == 0) return gemm_seconds(rates, g, 0, bytes_per_element);
  // The standard normal's quantiles at (i − 1/2)/8, i = 1…8: the midpoints
  // of eight bins of equal probability, which keep the expectation of a
  // step function (whole tiles) where nodes at the mean would not.
  constexpr std::array<double, 8> kPoints{-1.5341, -0.8871, -0.4888, -0.1573,
                                          0.1573,  0.4888,  0.8871,  1.5341};
  double sum = 0;
  for (const double z : kPoints) {
    Gemm at = g;
    at.m = std::max<std::int64_t>(1, std::llround(static_cast<double>(g.m) + z * rows_spread));
    sum += gemm_seconds(rates, at, 0, bytes_per_element);
  }
  return sum / static_cast<double>(kPoints.size());
}

double attention_length_factor(AttentionCurve curve, std::int64_t seq_tokens) {
  require_count(seq_tokens, "attention sequence length", "tokens");
  if (curve == AttentionCurve::flat) return 1.0;
  // TFLOP/s at 2^9 ... 2^14 tokens (kernel_time.h).
  constexpr std::array<double, 6> kFa3{292, 423, 521, 579, 602, 616};
  constexpr std::array<double, 6> kFa2{191, 260, 298, 319, 333, 335};
  const auto& rate = curve == AttentionCurve::flash_attention_3 ? kFa3 : kFa2;
  constexpr std::size_t kAt8K = 4;  // 2^13 tokens, four doublings from 512
  const double x = std::clamp(std::log2(static_cast<double>(seq_tokens)) - 9.0, 0.0,
                              static_cast<double>(rate.size() - 1));
  const std::size_t i = std::min(static_cast<std::size_t>(x), rate.size() - 2);
  const double at = rate[i] + (rate[i + 1] - rate[i]) * (x - static_cast<double>(i));
  return at / rate[kAt8K];
}

AttentionCurve best_attention_curve(const Chip& chip) {
  if (chip.compute_units <= 0) return AttentionCurve::flat;
  return chip.efficiency.attention_best_is_fa2 ? AttentionCurve::flash_attention_2
                                               : AttentionCurve::flash_attention_3;
}

double streaming_seconds(const KernelRates& r, double bytes) {
  require_real(bytes, "bytes moved", "bytes", 0);
  require_positive(r.hbm_bytes_per_s, "HBM rate", "bytes/s");
  return bytes / r.hbm_bytes_per_s;
}

}  // namespace napkin
