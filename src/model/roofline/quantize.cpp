#include "quantize.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "validate.h"

namespace napkin {

namespace {

// clang-format off
constexpr std::array kDtypes{
    DtypeStorage{Dtype::fp32, "fp32", 32, 0, 0, 0, "IEEE 754 binary32"},
    DtypeStorage{Dtype::bf16, "bf16", 16, 0, 0, 0, "bfloat16: 8-bit exponent, 7-bit mantissa"},
    DtypeStorage{Dtype::fp8, "fp8", 8, 128 * 128, 32, 0,
                 "FP8 E4M3 with one fp32 scale per 128x128 block (DeepSeek-V3 technical report "
                 "§3.3; Micikevicius et al. 2022, FP8 formats)"},
    DtypeStorage{Dtype::int8, "int8", 8, 128, 16, 0,
                 "symmetric int8, one bf16 scale per group of 128"},
    DtypeStorage{Dtype::int4, "int4", 4, 128, 16, 0,
                 "symmetric int4, one bf16 scale per group of 128 (the GPTQ / AWQ group size; "
                 "Frantar et al. 2022, Lin et al. 2023)"},
    DtypeStorage{Dtype::fp4, "fp4", 4, 16, 8, 0,
                 "NVFP4: FP4 E2M1 with one FP8 E4M3 scale per block of 16 and an fp32 scale per "
                 "tensor (NVIDIA, 'Introducing NVFP4 for efficient and accurate low-precision "
                 "inference', 2025); Blackwell's FP4 tensor cores take it directly"},
};
// clang-format on

}  // namespace

// ------------------------------------------------------------ number formats

std::span<const DtypeStorage> dtype_table() { return kDtypes; }

const DtypeStorage& dtype_storage(Dtype dtype) {
  for (const DtypeStorage& d : kDtypes)
    if (d.dtype == dtype) return d;
  throw std::invalid_argument("precision: unknown number format");
}

std::string_view to_string(Dtype dtype) { return dtype_storage(dtype).name; }

std::string dtype_names() {
  std::string out;
  for (const DtypeStorage& d : kDtypes) {
    if (!out.empty()) out += ", ";
    out += d.name;
  }
  return out;
}

Dtype parse_dtype(std::string_view name, std::string_view param) {
  for (const DtypeStorage& d : kDtypes)
    if (d.name == name) return d.dtype;
  throw_unknown_name(param, name, kDtypes, [](const DtypeStorage& d) { return d.name; });
}

double bits_per_element(Dtype dtype) {
  const DtypeStorage& d = dtype_storage(dtype);
  double bits = d.element_bits;
  if (d.group_size > 0)
    bits += static_cast<double>(d.scale_bits + d.zero_bits) / static_cast<double>(d.group_size);
  return bits;
}

double bytes_per_element(Dtype dtype) { return bits_per_element(dtype) / 8.0; }

Dtype dtype_for_bytes_per_param(double b) {
  if (b == 4.0) return Dtype::fp32;
  if (b == 2.0) return Dtype::bf16;
  if (b == 1.0) return Dtype::int8;
  if (b == 0.5) return Dtype::int4;
  throw_out_of_range("bytes_per_param", "bytes",
                     "one of 4 (fp32), 2 (bf16), 1 (int8) or 0.5 (int4)", format_value(b));
}

bool uses_fp8_compute(const Chip& chip, Dtype weights) {
  return weights == Dtype::fp8 && chip.fp8_peak_flops_per_s > 0;
}

bool uses_fp4_compute(const Chip& chip, Dtype weights) {
  return weights == Dtype::fp4 && chip.fp4_peak_flops_per_s > 0;
}

double compute_peak_flops_per_s(const Chip& chip, Dtype weights) {
  if (uses_fp4_compute(chip, weights)) return chip.fp4_peak_flops_per_s;
  return uses_fp8_compute(chip, weights) ? chip.fp8_peak_flops_per_s : chip.peak_flops_per_s;
}

// ------------------------------------------------------ the affine quantizer

AffineQuantized quantize_affine(std::span<const double> values, int bits) {
  require_count(bits, "bits", "bits per code", 1, 16);
  if (values.empty()) throw std::invalid_argument("values must hold at least one number; got none");
  for (double v : values) require_real(v, "values", "real numbers", -1e300, 1e300);
  const std::int64_t qmax = (std::int64_t{1} << bits) - 1;
  const auto [lo_it, hi_it] = std::minmax_element(values.begin(), values.end());
  const double lo = *lo_it, hi = *hi_it;
  AffineQuantized q;
  q.codes.assign(values.size(), 0);
  if (hi == lo) {  // a degenerate group: every value identical
    q.scale = 1.0;
    q.zero = lo;
    return q;
  }
  q.scale = (hi - lo) / static_cast<double>(qmax);
  q.zero = lo;
  for (std::size_t i = 0; i < values.size(); ++i) {
    // nearbyint rounds half to even in the default rounding mode, as Python's round().
    const double c = std::nearbyint((values[i] - q.zero) / q.scale);
    q.codes[i] = std::clamp<std::int64_t>(static_cast<std::int64_t>(c), 0, qmax);
  }
  return q;
}

std::vector<double> dequantize_affine(std::span<const std::int64_t> codes, double scale,
                                      double zero) {
  require_real(scale, "scale", "value per code step", 0.0, 1e300, true);
  require_real(zero, "zero", "value of code 0", -1e300, 1e300);
  std::vector<double> out(codes.size());
  for (std::size_t i = 0; i < codes.size(); ++i)
    out[i] = static_cast<double>(codes[i]) * scale + zero;
  return out;
}

double max_abs_error(std::span<const double> values, std::span<const double> reconstructed) {
  if (values.size() != reconstructed.size())
    throw std::invalid_argument("reconstructed values must be as many as the values (" +
                                std::to_string(values.size()) + "); got " +
                                std::to_string(reconstructed.size()));
  double worst = 0;
  for (std::size_t i = 0; i < values.size(); ++i)
    worst = std::max(worst, std::abs(values[i] - reconstructed[i]));
  return worst;
}

// ------------------------------------------------------- decode energy

double decode_energy_joules(double n_params, double bits_per_param) {
  return batched_decode_energy_joules(n_params, bits_per_param, 1, 0.0);
}

double batched_decode_energy_joules(double n_params, double bits_per_param, std::int64_t batch,
                                    double kv_bits_per_request) {
  require_real(n_params, "n_params", "parameters", 0.0, 1e18, true);
  require_real(bits_per_param, "bits_per_param", "bits", 0.0, 64.0, true);
  require_count(batch, "batch", "requests", 1, 1'000'000'000);
  require_real(kv_bits_per_request, "kv_bits_per_request", "bits", 0.0, 1e21);
  const double bits = n_params * bits_per_param / static_cast<double>(batch) + kv_bits_per_request;
  return bits * kDramPicojoulesPerBit * 1e-12;
}

double energy_dollars_per_day(double joules_per_token, double tokens_per_day,
                              double kwh_price_dollars) {
  require_real(joules_per_token, "joules_per_token", "J", 0.0, 1e12);
  require_real(tokens_per_day, "tokens_per_day", "tokens", 0.0, 1e18);
  require_real(kwh_price_dollars, "kwh_price", "$ per kWh", 0.0, 100.0);
  return joules_per_token * tokens_per_day / 3.6e6 * kwh_price_dollars;
}

std::vector<DecodeEnergyRow> decode_energy_table(double n_params, double tokens_per_day,
                                                 double kwh_price_dollars) {
  std::vector<DecodeEnergyRow> rows;
  const std::pair<const char*, double> widths[] = {
      {"FP32", 32}, {"BF16", 16}, {"FP8", 8}, {"INT4", 4}};
  for (const auto& [name, bits] : widths) {
    DecodeEnergyRow r;
    r.name = name;
    r.bits_per_param = bits;
    r.joules_per_token = decode_energy_joules(n_params, bits);
    r.dollars_per_day =
        energy_dollars_per_day(r.joules_per_token, tokens_per_day, kwh_price_dollars);
    rows.push_back(r);
  }
  return rows;
}

}  // namespace napkin
