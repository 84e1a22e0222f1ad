// Quantization: number formats for weights and the KV cache, the seed's
// affine quantizer, and the decode-energy model of the seed's Claim 5
// ("quantization is the primary energy lever").
//
// A format's storage counts its group-wise scales: int4 with one 16-bit scale
// per group of 128 weights is 4 + 16/128 = 4.125 bits per weight. Whether a
// format also changes the matmul rate is compute_peak_flops_per_s()'s
// question, not the format's.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hardware.h"

namespace napkin {

// ------------------------------------------------------------ number formats

enum class Dtype { fp32, bf16, fp8, int8, int4, fp4 };

// How a format stores a tensor: `element_bits` per value plus, for every
// `group_size` consecutive values, one scale of `scale_bits` (and a zero point
// of `zero_bits` for an asymmetric scheme). group_size 0: no scales.
struct DtypeStorage {
  Dtype dtype = Dtype::bf16;
  std::string_view name;  // as the CLI and scenario files spell it
  int element_bits = 16;
  std::int64_t group_size = 0;
  int scale_bits = 0;
  int zero_bits = 0;
  std::string_view source;
};

// The storage table, in the order fp32, bf16, fp8, int8, int4, fp4:
//   fp32, bf16: 32 and 16 bits, no scales;
//   fp8 (E4M3): one fp32 scale per 128×128 block = 16,384 values (the
//     DeepSeek-V3 recipe, §3.3) → 8.002 bits;
//   int8: symmetric, one bf16 scale per group of 128 → 8.125 bits;
//   int4: symmetric, one bf16 scale per group of 128 (GPTQ / AWQ group size)
//     → 4.125 bits;
//   fp4 (NVFP4): E2M1 values, one FP8 E4M3 scale per block of 16 (and one
//     fp32 scale per tensor, not counted) → 4.5 bits.
std::span<const DtypeStorage> dtype_table();
const DtypeStorage& dtype_storage(Dtype dtype);
std::string_view to_string(Dtype dtype);
// Parses "fp32", "bf16", "fp8", "int8", "int4" or "fp4". `param` names the input in
// the error (e.g. "--weight-precision"), which lists the accepted names.
Dtype parse_dtype(std::string_view name, std::string_view param = "precision");
// Comma-separated accepted names, for help text.
std::string dtype_names();

// Bits per stored value including the group's scale and zero point.
double bits_per_element(Dtype dtype);
double bytes_per_element(Dtype dtype);
// The format whose nominal width is `bytes_per_param` (4, 2, 1 or 0.5 bytes;
// 1 byte reads as int8) — for scenarios that carry a width, not a name.
// Throws for any other width.
Dtype dtype_for_bytes_per_param(double bytes_per_param);

// The matmul peak a layer runs at: the chip's FP8 peak when the weights are
// fp8 and the chip has FP8 tensor cores (W8A8 fp8 GEMMs), its FP4 peak when
// they are fp4 and it has FP4 tensor cores (Blackwell: NVFP4 weights and
// activations); otherwise the bf16 peak — int8 and int4, and fp4 on a chip
// without FP4 tensor cores, are weight-only here: they cut bytes, not FLOPs.
double compute_peak_flops_per_s(const Chip& chip, Dtype weights);
// True when compute_peak_flops_per_s() uses the FP8 peak.
bool uses_fp8_compute(const Chip& chip, Dtype weights);
// True when compute_peak_flops_per_s() uses the FP4 peak.
bool uses_fp4_compute(const Chip& chip, Dtype weights);

// ------------------------------------------------------ the affine quantizer

struct AffineQuantized {
  std::vector<std::int64_t> codes;  // in [0, 2^bits − 1]
  double scale = 1.0;               // real value of one code step
  double zero = 0.0;                // real value of code 0
};

// Asymmetric (affine) quantization of one group onto 2^bits levels, the
// seed's quantize_affine (Claim 5): scale = (max − min) / (2^bits − 1),
// zero = min, code = clamp(round((v − zero) / scale)); ties round to even, as
// Python's round does. A group of identical values gives codes 0, scale 1,
// zero = the value. Throws for an empty group, a non-finite value or bits
// outside [1, 16].
AffineQuantized quantize_affine(std::span<const double> values, int bits = 4);
// code × scale + zero (the seed's dequantize_affine).
std::vector<double> dequantize_affine(std::span<const std::int64_t> codes, double scale,
                                      double zero);
// max |value − reconstruction|; at most scale / 2 by construction.
double max_abs_error(std::span<const double> values, std::span<const double> reconstructed);

// ------------------------------------------------------- decode energy

// Energy of reading one bit from DRAM: 640 pJ per 32-bit read at 45 nm
// (Horowitz, "Computing's energy problem", ISSCC 2014), as the seed rounds
// it: 640 / 32 = 20 pJ per bit (Claim 5).
inline constexpr double kDramPicojoulesPerBit = 640.0 / 32.0;

// The seed's marginal energy of one decoded token: every weight read once
// from DRAM, N × bits × 20 pJ (Claim 5). A deliberate over-estimate (no batch
// shares the read) and under-estimate (DRAM traffic only).
double decode_energy_joules(double n_params, double bits_per_param);

// The batched version: one read of the weights serves the `batch` requests of
// a step, and each request still reads its own KV cache:
// (N × bits / batch + KV bits per request) × 20 pJ per generated token.
double batched_decode_energy_joules(double n_params, double bits_per_param, std::int64_t batch,
                                    double kv_bits_per_request = 0.0);

// Dollars per day of `joules_per_token` at `tokens_per_day` and a $/kWh price
// (1 kWh = 3.6e6 J): the seed's "$747/day at 1B tokens/day" for BF16.
double energy_dollars_per_day(double joules_per_token, double tokens_per_day,
                              double kwh_price_dollars);

struct DecodeEnergyRow {
  std::string name;             // "FP32", "BF16", "FP8", "INT4"
  double bits_per_param = 0;    // nominal width, as the seed counts it
  double joules_per_token = 0;  // unbatched
  double dollars_per_day = 0;
};

// The seed's table (Claim 5): FP32 / BF16 / FP8 / INT4 at nominal widths.
// Defaults give 44,800 / 22,400 / 11,200 / 5,600 mJ per token and
// $1,493 / $747 / $373 / $187 per day.
std::vector<DecodeEnergyRow> decode_energy_table(double n_params = 70e9,
                                                 double tokens_per_day = 1e9,
                                                 double kwh_price_dollars = 0.12);

}  // namespace napkin
