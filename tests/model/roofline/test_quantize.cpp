#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "quantize.h"
#include "rng.h"

using namespace napkin;

// ------------------------------------------------------ the affine quantizer

TEST(Quantize, TheSeedsAffineExample) {
  // Seed Claim 5: w = [0.12, -0.45, 0.88, -0.03, 0.51, -0.77, 0.20, 0.05] at 4 bits.
  const std::vector<double> w = {0.12, -0.45, 0.88, -0.03, 0.51, -0.77, 0.20, 0.05};
  const AffineQuantized q = quantize_affine(w, 4);
  EXPECT_EQ(q.codes, (std::vector<std::int64_t>{8, 3, 15, 7, 12, 0, 9, 7}));
  EXPECT_NEAR(q.scale, 1.65 / 15, 1e-15);  // 16 levels over a range of 1.65: a step of 0.11
  EXPECT_DOUBLE_EQ(q.zero, -0.77);
  const std::vector<double> recon = dequantize_affine(q.codes, q.scale, q.zero);
  EXPECT_NEAR(max_abs_error(w, recon), 0.05, 1e-12);  // printed "0.05"
  EXPECT_LE(max_abs_error(w, recon), q.scale / 2);    // "half a step (0.055)"
}

TEST(Quantize, DegenerateGroupIsExact) {
  const std::vector<double> w(5, 0.3);
  const AffineQuantized q = quantize_affine(w, 4);
  EXPECT_EQ(q.codes, std::vector<std::int64_t>(5, 0));
  EXPECT_DOUBLE_EQ(q.scale, 1.0);
  EXPECT_DOUBLE_EQ(q.zero, 0.3);
  EXPECT_EQ(max_abs_error(w, dequantize_affine(q.codes, q.scale, q.zero)), 0.0);
}

TEST(Quantize, TiesRoundToEvenAsPython) {
  // One bit over [0, 1]: 0.5 is exactly half a step; Python's round(0.5) is 0.
  const std::vector<double> w = {0.0, 0.5, 1.0};
  EXPECT_EQ(quantize_affine(w, 1).codes, (std::vector<std::int64_t>{0, 0, 1}));
  // Two bits over [0, 3]: 1.5 → 2 and 2.5 → 2.
  const std::vector<double> v = {0.0, 1.5, 2.5, 3.0};
  EXPECT_EQ(quantize_affine(v, 2).codes, (std::vector<std::int64_t>{0, 2, 2, 3}));
}

TEST(QuantizeProperty, MaxErrorIsAtMostHalfAStep) {
  Rng rng(20240515);
  for (int trial = 0; trial < 2000; ++trial) {
    const int bits = 1 + static_cast<int>(rng.next() % 8);
    const std::size_t n = 1 + rng.next() % 256;
    const double spread = std::pow(10.0, -3.0 + 6.0 * rng.uniform());
    const double centre = (rng.uniform() - 0.5) * 10.0;
    std::vector<double> w(n);
    for (double& x : w) x = centre + spread * rng.normal();
    const AffineQuantized q = quantize_affine(w, bits);
    const std::vector<double> recon = dequantize_affine(q.codes, q.scale, q.zero);
    const double err = max_abs_error(w, recon);
    // Half a step, plus the rounding of doubles at the group's magnitude.
    const double slack = 1e-12 * (std::abs(centre) + 10 * spread);
    EXPECT_LE(err, q.scale / 2 + slack) << "trial " << trial << " bits " << bits;
    for (std::int64_t c : q.codes) {
      EXPECT_GE(c, 0);
      EXPECT_LE(c, (std::int64_t{1} << bits) - 1);
    }
  }
}

TEST(Quantize, BadInputNamesTheParameter) {
  const std::vector<double> w = {0.1, 0.2};
  EXPECT_THROW(quantize_affine(std::vector<double>{}, 4), std::invalid_argument);
  EXPECT_THROW(quantize_affine(w, 0), std::invalid_argument);
  EXPECT_THROW(quantize_affine(w, 17), std::invalid_argument);
  EXPECT_THROW(quantize_affine(std::vector<double>{0.1, NAN}, 4), std::invalid_argument);
  try {
    quantize_affine(w, 33);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bits"), std::string::npos);
  }
  EXPECT_THROW(dequantize_affine(std::vector<std::int64_t>{1}, 0.0, 0.0), std::invalid_argument);
  EXPECT_THROW(max_abs_error(w, std::vector<double>{0.1}), std::invalid_argument);
}

// ------------------------------------------------------------ number formats

TEST(Dtype, BitsCountTheGroupScales) {
  EXPECT_DOUBLE_EQ(bits_per_element(Dtype::fp32), 32);
  EXPECT_DOUBLE_EQ(bits_per_element(Dtype::bf16), 16);
  EXPECT_DOUBLE_EQ(bits_per_element(Dtype::fp8), 8 + 32.0 / 16384);  // fp32 scale per 128×128
  EXPECT_DOUBLE_EQ(bits_per_element(Dtype::int8), 8.125);            // bf16 scale per 128
  EXPECT_DOUBLE_EQ(bits_per_element(Dtype::int4), 4.125);            // bf16 scale per 128
  EXPECT_DOUBLE_EQ(bytes_per_element(Dtype::int4), 0.515625);
  EXPECT_DOUBLE_EQ(bits_per_element(Dtype::fp4), 4.5);  // E4M3 scale per 16 (NVFP4)
  for (const DtypeStorage& d : dtype_table()) {
    EXPECT_EQ(parse_dtype(d.name), d.dtype);
    EXPECT_EQ(to_string(d.dtype), d.name);
    EXPECT_FALSE(d.source.empty());
  }
}

TEST(Dtype, UnknownNameNamesTheFlagAndTheChoices) {
  try {
    parse_dtype("fp6", "--weight-precision");
    FAIL();
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("--weight-precision"), std::string::npos) << msg;
    EXPECT_NE(msg.find("bf16, fp8, int8, int4, fp4"), std::string::npos) << msg;
    EXPECT_NE(msg.find("\"fp6\""), std::string::npos) << msg;
  }
}

TEST(Dtype, FromBytesPerParam) {
  EXPECT_EQ(dtype_for_bytes_per_param(2), Dtype::bf16);
  EXPECT_EQ(dtype_for_bytes_per_param(1), Dtype::int8);
  EXPECT_EQ(dtype_for_bytes_per_param(0.5), Dtype::int4);
  EXPECT_EQ(dtype_for_bytes_per_param(4), Dtype::fp32);
  EXPECT_THROW(dtype_for_bytes_per_param(3), std::invalid_argument);
}

// NVFP4 runs on Blackwell's FP4 tensor cores at the datasheets' dense peaks
// (9 PFLOP/s per B200, 10 per GB200, 15 per GB300); elsewhere it is a
// weight-only format like int4.
TEST(Dtype, Fp4ComputeOnlyWhereTheChipHasIt) {
  EXPECT_DOUBLE_EQ(compute_peak_flops_per_s(chip_by_name("B200"), Dtype::fp4), 9000e12);
  EXPECT_DOUBLE_EQ(compute_peak_flops_per_s(chip_by_name("GB200"), Dtype::fp4), 10000e12);
  EXPECT_DOUBLE_EQ(compute_peak_flops_per_s(chip_by_name("GB300"), Dtype::fp4), 15000e12);
  EXPECT_TRUE(uses_fp4_compute(chip_by_name("B200"), Dtype::fp4));
  EXPECT_FALSE(uses_fp4_compute(chip_by_name("B200"), Dtype::fp8));
  const Chip& h100 = chip_by_name("H100");
  EXPECT_FALSE(uses_fp4_compute(h100, Dtype::fp4));
  EXPECT_DOUBLE_EQ(compute_peak_flops_per_s(h100, Dtype::fp4), h100.peak_flops_per_s);
  for (const Chip& c : hardware_table()) {
    if (c.fp4_peak_flops_per_s > 0) {
      EXPECT_GT(c.fp4_peak_flops_per_s, c.fp8_peak_flops_per_s) << c.name;
    }
  }
}

TEST(Dtype, Fp8ComputeOnlyWhereTheChipHasIt) {
  const Chip& h100 = chip_by_name("H100");
  const Chip& a100 = chip_by_name("A100-80");
  const Chip& v5e = chip_by_name("TPU v5e");
  EXPECT_DOUBLE_EQ(compute_peak_flops_per_s(h100, Dtype::fp8), h100.fp8_peak_flops_per_s);
  EXPECT_TRUE(uses_fp8_compute(h100, Dtype::fp8));
  // Weight-only formats and chips without FP8 tensor cores compute in bf16.
  EXPECT_DOUBLE_EQ(compute_peak_flops_per_s(h100, Dtype::int4), h100.peak_flops_per_s);
  EXPECT_DOUBLE_EQ(compute_peak_flops_per_s(h100, Dtype::int8), h100.peak_flops_per_s);
  EXPECT_DOUBLE_EQ(compute_peak_flops_per_s(a100, Dtype::fp8), a100.peak_flops_per_s);
  EXPECT_DOUBLE_EQ(compute_peak_flops_per_s(v5e, Dtype::fp8), v5e.peak_flops_per_s);
  EXPECT_FALSE(uses_fp8_compute(v5e, Dtype::fp8));
}

// ------------------------------------------------------- decode energy

TEST(DecodeEnergy, TheSeedsTable) {
  // Claim 5: a 70B model, 20 pJ per DRAM bit, 1B tokens/day at $0.12/kWh.
  EXPECT_DOUBLE_EQ(kDramPicojoulesPerBit, 20.0);
  const std::vector<DecodeEnergyRow> rows = decode_energy_table();
  ASSERT_EQ(rows.size(), 4u);
  const double mj[] = {44800, 22400, 11200, 5600};
  const double dollars[] = {1493, 747, 373, 187};
  const char* names[] = {"FP32", "BF16", "FP8", "INT4"};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(rows[i].name, names[i]);
    EXPECT_NEAR(rows[i].joules_per_token * 1000, mj[i], 1e-6) << names[i];
    EXPECT_NEAR(rows[i].dollars_per_day, dollars[i], 0.5) << names[i];
  }
  EXPECT_NEAR(rows[0].dollars_per_day, 1493.333, 0.001);
  // "FP32→INT4 is an 8× reduction in the dominant cost term."
  EXPECT_DOUBLE_EQ(rows[0].joules_per_token / rows[3].joules_per_token, 8.0);
}

TEST(DecodeEnergy, BatchingSharesTheWeightRead) {
  const double one = decode_energy_joules(70e9, 16);
  EXPECT_DOUBLE_EQ(batched_decode_energy_joules(70e9, 16, 1), one);
  EXPECT_DOUBLE_EQ(batched_decode_energy_joules(70e9, 16, 32), one / 32);
  // Each request still reads its own cache: 2.7 GB of bf16 KV at 8k context.
  const double kv_bits = 2.7e9 * 8;
  EXPECT_NEAR(batched_decode_energy_joules(70e9, 16, 32, kv_bits), one / 32 + kv_bits * 20e-12,
              1e-12);
  double last = one;
  for (std::int64_t b = 2; b <= 4096; b *= 2) {
    const double e = batched_decode_energy_joules(70e9, 4.125, b, kv_bits);
    EXPECT_LE(e, last);
    last = e;
  }
  // Group scales cost energy too: int4 at 4.125 bits is 5,775 mJ, not 5,600.
  EXPECT_NEAR(decode_energy_joules(70e9, bits_per_element(Dtype::int4)), 5.775, 1e-9);
}

TEST(DecodeEnergy, DollarsPerDay) {
  EXPECT_NEAR(energy_dollars_per_day(22.4, 1e9, 0.12), 746.667, 0.001);
  EXPECT_DOUBLE_EQ(energy_dollars_per_day(3.6e6, 1, 1), 1.0);  // one kWh
  EXPECT_THROW(energy_dollars_per_day(-1, 1, 1), std::invalid_argument);
  EXPECT_THROW(decode_energy_joules(0, 16), std::invalid_argument);
  EXPECT_THROW(batched_decode_energy_joules(70e9, 16, 0), std::invalid_argument);
}
