#include <gtest/gtest.h>
#include <cmath>

#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include "hardware.h"

using namespace napkin;

TEST(Hardware, TableHoldsTheSeedChipsAndTheNewerOnes) {
  std::set<std::string> names;
  for (const Chip& c : hardware_table()) {
    names.insert(std::string(c.name));
    EXPECT_GT(c.peak_flops_per_s, 0);
    EXPECT_GT(c.hbm_bytes, 0);
    EXPECT_GT(c.hbm_bytes_per_s, 0);
    EXPECT_GT(c.watts, 0);
    EXPECT_FALSE(c.source.empty()) << c.name;
  }
  for (const char* n :
       {"H100", "A100-80", "TPU v5e", "TPU v5p", "H200", "B200", "MI300X", "TPU v6e"})
    EXPECT_TRUE(names.count(n)) << n;
}

TEST(Hardware, SeedRows) {
  const Chip& h = chip_by_name("H100");
  EXPECT_DOUBLE_EQ(h.peak_flops_per_s, 990e12);
  EXPECT_EQ(h.hbm_bytes, 80'000'000'000);
  EXPECT_DOUBLE_EQ(h.hbm_bytes_per_s, 3.35e12);
  EXPECT_DOUBLE_EQ(h.watts, 700);
  EXPECT_DOUBLE_EQ(chip_by_name("TPU v5e").hbm_bytes_per_s, 0.819e12);
}

TEST(Hardware, Gb200IsB200sDieAtTheNvl72DatasheetsPeaks) {
  // GB200 NVL72 datasheet over its 72 GPUs, dense: 360/2/72 PFLOP/s bf16,
  // 720/2/72 FP8, 13.4 TB and 576 TB/s of HBM3e.
  const Chip& g = chip_by_name("GB200");
  const Chip& b = chip_by_name("B200");
  EXPECT_DOUBLE_EQ(g.peak_flops_per_s, 2.5e15);
  EXPECT_DOUBLE_EQ(g.fp8_peak_flops_per_s, 5e15);
  EXPECT_EQ(g.hbm_bytes, 186'000'000'000);
  EXPECT_DOUBLE_EQ(g.hbm_bytes_per_s, 8e12);
  EXPECT_DOUBLE_EQ(g.watts, 1200);
  EXPECT_EQ(g.compute_units, b.compute_units);
  // B200's in-step fractions scaled by the MAMF rows: bf16 0.464 x
  // 72.9/77.6, FP8 Hopper's in-step FP8 fraction x 72.3/70.9 (B200's own FP8
  // fraction is Hopper's x 76.3/70.9 by the same rule).
  const double hopper_fp8 = chip_by_name("H100").efficiency.matmul_fp8;
  // B200's bf16: the step decomposition's 0.39 with the bias it showed on
  // H100 (0.53 where a single DGX H100 row gave 0.63) taken out.
  EXPECT_NEAR(b.efficiency.matmul, 0.39 * 0.63 / 0.53, 0.001);
  EXPECT_NEAR(b.efficiency.matmul / chip_by_name("H100").efficiency.matmul, 0.39 / 0.53, 0.002);
  EXPECT_NEAR(g.efficiency.matmul, b.efficiency.matmul * 72.9 / 77.6, 0.001);
  EXPECT_NEAR(g.efficiency.matmul_fp8, hopper_fp8 * 72.3 / 70.9, 0.001);
  EXPECT_NEAR(b.efficiency.matmul_fp8, hopper_fp8 * 76.3 / 70.9, 0.001);
  EXPECT_DOUBLE_EQ(g.efficiency.attention, b.efficiency.attention);
  // The ceiling is GB200's own MAMF row: 1,822 of 2,500 TFLOP/s.
  EXPECT_NEAR(g.efficiency.matmul_best, 1822.0 / 2500, 0.001);
  EXPECT_EQ(g.network.chips_per_node, 72);
  EXPECT_EQ(g.network, cluster_by_name("gb200-nvl72").network);
}

TEST(Hardware, GrandTetonsH100IsTheSxmWithHbm2eAtItsPowerLimitedClock) {
  // torchtitan's December 2024 page: 96 GB of HBM2e at 2.4 TB/s, a 500 W
  // default limit, a peak "between SXM and NVL" without a value. The peak
  // follows the limit as a power law through NVIDIA's two datasheet points
  // for the same die (SXM 989 TFLOP/s at 700 W, NVL 835 at 400 W).
  const Chip& g = chip_by_name("H100-HBM2e");
  const Chip& h = chip_by_name("H100");
  EXPECT_EQ(g.hbm_bytes, 96'000'000'000);
  EXPECT_DOUBLE_EQ(g.hbm_bytes_per_s, 2.4e12);
  EXPECT_DOUBLE_EQ(g.watts, 500);
  const double b = std::log(989.0 / 835.0) / std::log(700.0 / 400.0);
  const double share = std::pow(500.0 / 700.0, b);
  EXPECT_NEAR(share, 0.903, 0.001);
  EXPECT_NEAR(power_limited_share(h, 500), share, 1e-12);
  EXPECT_NEAR(g.peak_flops_per_s / h.peak_flops_per_s, share, 1e-4);
  EXPECT_NEAR(g.fp8_peak_flops_per_s / h.fp8_peak_flops_per_s, share, 1e-4);
  // Between the NVL's and the SXM's peaks, as the page says.
  EXPECT_GT(g.peak_flops_per_s, 835e12);
  EXPECT_LT(g.peak_flops_per_s, 989e12);
  EXPECT_DOUBLE_EQ(g.efficiency.matmul, h.efficiency.matmul);
  EXPECT_EQ(g.network, h.network);
}

TEST(Hardware, BlackwellUltraAtItsDatasheetsPeaks) {
  // DGX B300 per GPU: B200's peaks, 288 GB, 1,000 W, 800 Gb/s out; its own
  // MAMF rows scale B200's in-step fractions (1,769.0 of 2,250 bf16, 3,353.3
  // of 4,500 FP8). GB300 NVL72 per GPU: GB200's peaks and fractions, 279 GB,
  // 1,400 W, 72 GPUs per NVLink domain, 800 Gb/s out.
  const Chip& b3 = chip_by_name("B300");
  const Chip& b2 = chip_by_name("B200");
  EXPECT_DOUBLE_EQ(b3.peak_flops_per_s, b2.peak_flops_per_s);
  EXPECT_DOUBLE_EQ(b3.fp8_peak_flops_per_s, b2.fp8_peak_flops_per_s);
  EXPECT_EQ(b3.hbm_bytes, 288'000'000'000);
  EXPECT_DOUBLE_EQ(b3.watts, 1000);
  EXPECT_EQ(b3.compute_units, 160);
  EXPECT_NEAR(b3.efficiency.matmul_best, 1769.0 / 2250, 0.001);
  EXPECT_NEAR(b3.efficiency.matmul, b2.efficiency.matmul * 78.6 / 77.6, 0.001);
  EXPECT_NEAR(b3.efficiency.matmul, 0.470, 0.001);
  EXPECT_NEAR(b3.efficiency.matmul_fp8, chip_by_name("H100").efficiency.matmul_fp8 * 74.5 / 70.9,
              0.001);
  EXPECT_DOUBLE_EQ(b3.network.inter_node_bytes_per_s, 100e9);
  EXPECT_EQ(b3.network, cluster_by_name("dgx-b300").network);
  const Chip& g3 = chip_by_name("GB300");
  const Chip& g2 = chip_by_name("GB200");
  EXPECT_DOUBLE_EQ(g3.peak_flops_per_s, g2.peak_flops_per_s);
  EXPECT_DOUBLE_EQ(g3.fp8_peak_flops_per_s, g2.fp8_peak_flops_per_s);
  EXPECT_EQ(g3.hbm_bytes, 279'000'000'000);
  EXPECT_DOUBLE_EQ(g3.watts, 1400);
  EXPECT_DOUBLE_EQ(g3.efficiency.matmul, g2.efficiency.matmul);
  EXPECT_DOUBLE_EQ(g3.efficiency.matmul_fp8, g2.efficiency.matmul_fp8);
  EXPECT_DOUBLE_EQ(g3.efficiency.attention, g2.efficiency.attention);
  EXPECT_DOUBLE_EQ(g3.efficiency.matmul_best, g2.efficiency.matmul_best);
  EXPECT_EQ(g3.network.chips_per_node, 72);
  EXPECT_DOUBLE_EQ(g3.network.inter_node_bytes_per_s, 100e9);
  EXPECT_EQ(g3.network, cluster_by_name("gb300-nvl72").network);
}

TEST(Hardware, RidgePoints) {
  // Seed Phase 00 ch. 9 ("~295") and Phase 03 ch. 2 (296, 154, 241, 166).
  EXPECT_NEAR(ridge_point_flops_per_byte(chip_by_name("H100")), 296, 0.5);
  EXPECT_NEAR(ridge_point_flops_per_byte(chip_by_name("A100-80")), 154, 0.5);
  EXPECT_NEAR(ridge_point_flops_per_byte(chip_by_name("TPU v5e")), 241, 0.5);
  EXPECT_NEAR(ridge_point_flops_per_byte(chip_by_name("TPU v5p")), 166, 0.5);
}

TEST(Hardware, UnknownChipNamesTheChoices) {
  try {
    chip_by_name("h100");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("chip must be one of H100, A100-80"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("got \"h100\"; did you mean \"H100\"?"), std::string::npos)
        << e.what();
  }
}

TEST(Hardware, EveryChipHasANetworkAndEfficiencies) {
  for (const Chip& c : hardware_table()) {
    EXPECT_GE(c.network.chips_per_node, 1) << c.name;
    EXPECT_GT(c.network.intra_node_bytes_per_s, c.network.inter_node_bytes_per_s) << c.name;
    EXPECT_GT(c.network.inter_node_bytes_per_s, 0) << c.name;
    EXPECT_GT(c.network.intra_node_latency_seconds, 0) << c.name;
    EXPECT_GE(c.network.inter_node_latency_seconds, c.network.intra_node_latency_seconds) << c.name;
    EXPECT_FALSE(c.network.source.empty()) << c.name;
    EXPECT_GT(c.efficiency.matmul, 0.3) << c.name;
    EXPECT_LE(c.efficiency.matmul, 1.0) << c.name;
    EXPECT_GT(c.efficiency.link, 0.3) << c.name;
    EXPECT_LE(c.efficiency.link, 1.0) << c.name;
    EXPECT_FALSE(c.efficiency.source.empty()) << c.name;
    EXPECT_GE(c.fp8_peak_flops_per_s, 0) << c.name;
  }
}

TEST(Hardware, NetworkRowsFromDatasheets) {
  // NVLink 4: 900 GB/s bidirectional → 450 GB/s per direction; NDR 400 Gb/s → 50 GB/s.
  const Chip& h = chip_by_name("H100");
  EXPECT_EQ(h.network.chips_per_node, 8);
  EXPECT_DOUBLE_EQ(h.network.intra_node_bytes_per_s, 450e9);
  EXPECT_DOUBLE_EQ(h.network.inter_node_bytes_per_s, 50e9);
  EXPECT_DOUBLE_EQ(h.fp8_peak_flops_per_s, 1979e12);
  // The published runs' chips: A100 (NVLink 3, HDR 200 Gb/s), H800 (NVLink 400 GB/s).
  EXPECT_DOUBLE_EQ(chip_by_name("A100-80").network.intra_node_bytes_per_s, 300e9);
  EXPECT_DOUBLE_EQ(chip_by_name("A100-80").network.inter_node_bytes_per_s, 25e9);
  EXPECT_DOUBLE_EQ(chip_by_name("H800").network.intra_node_bytes_per_s, 200e9);
  EXPECT_EQ(chip_by_name("A100-40").hbm_bytes, 40'000'000'000);
  EXPECT_DOUBLE_EQ(chip_by_name("A100-80").fp8_peak_flops_per_s, 0);
}

TEST(Hardware, DeviceMemoryIsTheDriversTotal) {
  // CUDA's total on the shipping parts: above the decimal datasheet figure,
  // within the binary capacity of the HBM stacks.
  for (const char* name : {"H100", "H800", "H200", "B200", "A100-80"}) {
    const Chip& c = chip_by_name(name);
    const DeviceMemory d = device_memory(c);
    EXPECT_GE(d.bytes, c.hbm_bytes * 95 / 100) << name;
    EXPECT_LE(static_cast<double>(d.bytes), 1.074 * static_cast<double>(c.hbm_bytes)) << name;
    EXPECT_FALSE(d.source.empty()) << name;
  }
  EXPECT_EQ(device_memory(chip_by_name("H100")).bytes, 85'027'979'264);  // 81,089 MiB
  // vLLM's start-up log on H100: "79.18 GiB" total (llm-d-benchmark).
  EXPECT_NEAR(static_cast<double>(device_memory(chip_by_name("H100")).bytes) / (1 << 30), 79.18,
              0.01);
  // Below what nvidia-smi prints, which includes the driver's own memory.
  EXPECT_LT(device_memory(chip_by_name("H200")).bytes, 143'771LL << 20);
  EXPECT_LT(device_memory(chip_by_name("B200")).bytes, 183'359LL << 20);
  // TPUs: the binary capacity the parts hold, as Google's pages state it and
  // JAX reports it (the seed's table keeps 16 GB and 95 GB for its napkins).
  EXPECT_EQ(device_memory(chip_by_name("TPU v5e")).bytes, 16LL << 30);
  EXPECT_EQ(device_memory(chip_by_name("TPU v5p")).bytes, 95LL << 30);
  EXPECT_EQ(device_memory(chip_by_name("TPU v6e")).bytes, 34'359'738'368);
  EXPECT_EQ(chip_by_name("TPU v5e").hbm_bytes, 16'000'000'000);
  // No published reading: the datasheet capacity, never more.
  const Chip& mi300x = chip_by_name("MI300X");
  EXPECT_EQ(device_memory(mi300x).bytes, mi300x.hbm_bytes);
}

// Fractions set from published measurements, recomputed here from the
// figures the table cites (hardware.cpp).
TEST(Hardware, MeasuredFractionsFollowTheirSources) {
  const Chip& mi300x = chip_by_name("MI300X");
  // aiter's asm FlashAttention on MI300X, causal 8K: forward 550.67, backward
  // 474.02 TFLOP/s; the backward has 2.5x the forward's FLOPs. Inside a step
  // at Hopper's in-step share of its kernels' rate (521 of ~560 TFLOP/s).
  const double fwd_bwd = 3.5 / (1 / 550.67 + 2.5 / 474.02);
  EXPECT_NEAR(mi300x.efficiency.attention, fwd_bwd / 1307.4 * 521.0 / 560.0, 0.005);
  // The MAMF table's MI300X row, 668.4 of 1,300 TFLOP/s, is the ceiling; a
  // training step's GEMMs take the H100's in-step share of its MAMF.
  EXPECT_NEAR(mi300x.efficiency.matmul_best, 668.4 / 1300, 0.001);
  const Efficiency& h100 = chip_by_name("H100").efficiency;
  EXPECT_NEAR(mi300x.efficiency.matmul,
              mi300x.efficiency.matmul_best * h100.matmul / h100.matmul_best, 0.005);
  EXPECT_NEAR(mi300x.efficiency.matmul_fp8,
              mi300x.efficiency.matmul_best * h100.matmul_fp8 / h100.matmul_best, 0.005);
  // Hopper's FP8 fraction is its bf16 in-step share of the MAMF times the FP8
  // MAMF (1,402.6 of 1,979 TFLOP/s), below standalone CUTLASS's 0.62.
  EXPECT_NEAR(h100.matmul_fp8, h100.matmul / h100.matmul_best * 1402.6 / 1979, 0.001);
  EXPECT_LT(h100.matmul_fp8, 0.62);
  // RCCL all_reduce_perf on 8 MI300X: 310-319 GB/s of the 448 the links give.
  EXPECT_NEAR(mi300x.efficiency.link * 448, 314.5, 5);
  EXPECT_TRUE(mi300x.network.full_mesh);
  EXPECT_FALSE(chip_by_name("H100").network.full_mesh);
  EXPECT_FALSE(chip_by_name("B200").network.full_mesh);
}

TEST(Hardware, TheH200sMemoryFractionsAreTheH100sScaledByOneSuitesCopies) {
  // BabelStream copies in one suite (Azure AI-benchmarking-guide): 2.90 of
  // 3.35 TB/s on an H100, 4.01 of 4.8 on an H200.
  const Chip& h100 = chip_by_name("H100");
  const Chip& h200 = chip_by_name("H200");
  const double ratio = (4.01 / 4.8) / (2.90 / 3.35);
  EXPECT_NEAR(ratio, 0.965, 0.001);
  EXPECT_NEAR(h200.hbm_stream_efficiency, h100.hbm_stream_efficiency * ratio, 0.001);
  EXPECT_NEAR(h200.efficiency.hbm, h100.efficiency.hbm * ratio, 0.001);
  // A faster memory, a smaller fraction of it, and still more bytes per second.
  EXPECT_LT(h200.hbm_stream_efficiency, h100.hbm_stream_efficiency);
  EXPECT_GT(h200.hbm_stream_efficiency * h200.hbm_bytes_per_s,
            h100.hbm_stream_efficiency * h100.hbm_bytes_per_s);
  EXPECT_NE(h200.hbm_stream_source.find("4.01 of 4.8"), std::string_view::npos);
  // The compute side is the H100's: the same die and kernels.
  EXPECT_DOUBLE_EQ(h200.efficiency.matmul, h100.efficiency.matmul);
  EXPECT_DOUBLE_EQ(h200.efficiency.matmul_fp8, h100.efficiency.matmul_fp8);
  EXPECT_DOUBLE_EQ(h200.efficiency.attention, h100.efficiency.attention);
  EXPECT_DOUBLE_EQ(h200.efficiency.link, h100.efficiency.link);
}

TEST(Hardware, PeaksFollowAPowerLimitOnlyWhereTwoDatasheetRowsSayHow) {
  // Hopper: the same die at 700 W (SXM, 989 TFLOP/s) and 400 W (NVL, 835);
  // Blackwell: 1,000 W (B200, 2,250) and 1,200 W (GB200, 2,500).
  const std::optional<PowerLaw> hopper = power_law_of(chip_by_name("H200"));
  ASSERT_TRUE(hopper.has_value());
  EXPECT_NEAR(hopper->exponent, 0.302, 0.001);
  EXPECT_DOUBLE_EQ(hopper->lowest_watts, 400);
  // The law passes through both datasheet rows.
  EXPECT_NEAR(989 * power_limited_share(chip_by_name("H100"), 400), 835, 0.5);
  EXPECT_NEAR(2500 * power_limited_share(chip_by_name("GB200"), 1000), 2250, 0.5);
  EXPECT_DOUBLE_EQ(power_limited_share(chip_by_name("H100"), 700), 1);
  // Monotone: less power, lower peak.
  double last = 0;
  for (double w = 400; w <= 700; w += 50) {
    const double s = power_limited_share(chip_by_name("H100"), w);
    EXPECT_GT(s, last);
    last = s;
  }
  // Outside the two rows, or on a chip without them: refused by name.
  for (double w : {399.0, 701.0, std::nan("")})
    EXPECT_THROW(power_limited_share(chip_by_name("H100"), w), std::invalid_argument) << w;
  EXPECT_FALSE(power_law_of(chip_by_name("MI300X")).has_value());
  EXPECT_FALSE(power_law_of(chip_by_name("A100-80")).has_value());
  EXPECT_FALSE(power_law_of(chip_by_name("TPU v5p")).has_value());
  try {
    power_limited_share(chip_by_name("A100-80"), 300);
    ADD_FAILURE() << "A100 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(
        std::string(e.what()).rfind("power_limit_watts: A100-80 has no two datasheet rows", 0), 0u)
        << e.what();
  }
}

TEST(Hardware, ATpusFastDomainIsItsIciSlice) {
  EXPECT_EQ(domain_names(chip_by_name("H100")).per_domain, "GPUs per node");
  EXPECT_EQ(domain_names(chip_by_name("MI300X")).member, "GPU");
  EXPECT_EQ(domain_names(chip_by_name("TPU v5e")).per_domain, "chips per ICI slice");
  EXPECT_EQ(domain_names(chip_by_name("TPU v6e")).member, "chip");
  EXPECT_EQ(domain_names(chip_by_name("B200")).system, "node");
  EXPECT_EQ(domain_names(chip_by_name("TPU v5p")).system, "pod");
}
