// The user's chips and clusters (issue 25, item 3): a JSON file each, every
// value with its kind and source; listed after the built-in table and found
// by name; a malformed file refused with the key and the reason.
#include <gtest/gtest.h>

#include <QDir>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "atomic_writer.h"
#include "hardware.h"
#include "hardware_json.h"

using namespace napkin;

namespace {

std::string value(double v, const char* kind = "datasheet", const char* source = "a datasheet") {
  return "{\"value\": " + std::to_string(v) + ", \"kind\": \"" + kind + "\", \"source\": \"" +
         source + "\"}";
}

// A whole chip: an H100-like part whose HBM bandwidth was measured.
std::string chip_json(const std::string& name) {
  return "{\"name\": \"" + name + "\", \"peak_tflops\": " + value(989) +
         ", \"hbm_gb\": " + value(80) +
         ", \"hbm_gb_per_s\": " + value(3000, "measured", "STREAM copy on node 7") +
         ", \"watts\": " + value(700) + ", \"gpus_per_node\": " + value(8) +
         ", \"scale_up_gb_per_s\": " + value(450) + ", \"scale_out_gb_per_s\": " + value(50) +
         ", \"matmul_efficiency\": " + value(0.7, "calibrated", "our profile of 2026-11") + "}";
}

std::string message(const std::string& text) {
  try {
    parse_chip_json(text, "c.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

void write(const QString& path, const std::string& text) {
  QString error;
  ASSERT_TRUE(write_file_atomically(path, QByteArray::fromStdString(text), &error))
      << error.toStdString();
}

}  // namespace

TEST(HardwareJson, AChipFileReadsWithItsProvenance) {
  const ChipFile f = parse_chip_json(chip_json("Site-H100"), "site.json");
  const Chip c = f.chip();
  EXPECT_EQ(c.name, "Site-H100");
  EXPECT_DOUBLE_EQ(c.peak_flops_per_s, 989e12);
  EXPECT_EQ(c.hbm_bytes, 80'000'000'000);
  EXPECT_DOUBLE_EQ(c.hbm_bytes_per_s, 3000e9);
  EXPECT_DOUBLE_EQ(c.watts, 700);
  EXPECT_EQ(c.network.chips_per_node, 8);
  EXPECT_DOUBLE_EQ(c.network.intra_node_bytes_per_s, 450e9);
  EXPECT_DOUBLE_EQ(c.network.inter_node_bytes_per_s, 50e9);
  EXPECT_DOUBLE_EQ(c.efficiency.matmul, 0.7);
  EXPECT_NE(c.source.find("hbm_gb_per_s 3000 GB/s (measured: STREAM copy on node 7)"),
            std::string::npos)
      << c.source;
  EXPECT_NE(c.efficiency.source.find("(calibrated: our profile of 2026-11)"), std::string::npos)
      << c.efficiency.source;
  // "like": a built-in row gives what the file leaves out.
  // The chip's text points into its file object: keep the file alive.
  const ChipFile capped = parse_chip_json(
      "{\"name\": \"A100-capped\", \"like\": \"A100-80\", "
      "\"watts\": " +
          value(300, "measured", "nvidia-smi power cap") + "}",
      "capped.json");
  const Chip l = capped.chip();
  EXPECT_DOUBLE_EQ(l.watts, 300);
  EXPECT_DOUBLE_EQ(l.peak_flops_per_s, chip_by_name("A100-80").peak_flops_per_s);
  EXPECT_EQ(l.compute_units, 108);
  EXPECT_NE(l.source.find("the rest as A100-80"), std::string::npos) << l.source;
  EXPECT_DOUBLE_EQ(l.fp4_peak_flops_per_s, 0);
  // A Blackwell-like chip keeps its FP4 tensor cores unless the file gives its own.
  const ChipFile site = parse_chip_json(
      "{\"name\": \"Site-B200\", \"like\": \"B200\", "
      "\"fp4_peak_tflops\": " +
          value(8000, "measured", "cuBLASLt NVFP4 on node 3") + "}",
      "b200.json");
  EXPECT_DOUBLE_EQ(site.chip().fp4_peak_flops_per_s, 8000e12);
  const ChipFile like_b200 = parse_chip_json(
      "{\"name\": \"B200-copy\", \"like\": \"B200\", \"watts\": " + value(1000) + "}", "copy.json");
  EXPECT_DOUBLE_EQ(like_b200.chip().fp4_peak_flops_per_s, 9000e12);
}

TEST(HardwareJson, AMeasuredAttentionFigureIsNotOverriddenByTheLikeChipsFlashAttention2) {
  // "like": "H100" carries H100's FlashAttention-2 fraction (0.307 inside a
  // step, what PyTorch's SDPA runs there); a file that measured its own attention
  // fraction gets it for every kernel, unless it gives FlashAttention-2's too.
  auto chip_with = [](const std::string& extra) {
    return parse_chip_json("{\"name\": \"Site-H100\", \"like\": \"H100\"" + extra + "}",
                           "site.json");
  };
  EXPECT_DOUBLE_EQ(chip_with("").chip().efficiency.attention_fa2, 0.307);
  const ChipFile measured =
      chip_with(", \"attention_efficiency\": " + value(0.45, "measured", "our FA-2 sweep"));
  EXPECT_DOUBLE_EQ(measured.chip().efficiency.attention, 0.45);
  EXPECT_DOUBLE_EQ(measured.chip().efficiency.attention_fa2, 0);  // attention is used
  const ChipFile both =
      chip_with(", \"attention_efficiency\": " + value(0.55, "measured", "cuDNN sweep") +
                ", \"attention_fa2_efficiency\": " + value(0.36, "measured", "FA-2 sweep"));
  EXPECT_DOUBLE_EQ(both.chip().efficiency.attention, 0.55);
  EXPECT_DOUBLE_EQ(both.chip().efficiency.attention_fa2, 0.36);
}

TEST(HardwareJson, AMalformedChipIsRefusedWithTheKeyAndTheReason) {
  std::string t = chip_json("X");
  EXPECT_NE(message("{").find("c.json: not a JSON object"), std::string::npos);
  // A bare number: no provenance.
  t = chip_json("X");
  t.replace(t.find(value(700)), value(700).size(), "700");
  EXPECT_NE(message(t).find("c.json: key \"watts\": expected {\"value\""), std::string::npos)
      << message(t);
  t = chip_json("X");
  t.replace(t.find("\"kind\": \"datasheet\""), 19, "\"kind\": \"guess\"");
  EXPECT_NE(message(t).find("key \"peak_tflops.kind\": expected \"datasheet\", \"measured\" or "
                            "\"calibrated\""),
            std::string::npos)
      << message(t);
  t = chip_json("X");
  t.replace(t.find("\"source\": \"a datasheet\""), 23, "\"source\": \" \"");
  EXPECT_NE(message(t).find("key \"peak_tflops.source\""), std::string::npos) << message(t);
  t = chip_json("X");
  t.replace(t.find(value(80)), value(80).size(), value(-80));
  EXPECT_NE(message(t).find("key \"hbm_gb.value\": expected a number in"), std::string::npos)
      << message(t);
  t = chip_json("X");
  t.replace(t.find("\"watts\""), 7, "\"wats\"");
  EXPECT_NE(message(t).find("key \"wats\": unknown key"), std::string::npos) << message(t);
  t = chip_json("X");
  t.erase(t.find(", \"watts\""), (", \"watts\": " + value(700)).size());
  EXPECT_NE(message(t).find("key \"watts\": is required (W)"), std::string::npos) << message(t);
  EXPECT_NE(message("{\"name\": \"\"}").find("key \"name\""), std::string::npos);
  EXPECT_NE(
      message("{\"name\": \"Y\", \"like\": \"Z80\"}").find("key \"like\": chip must be one of"),
      std::string::npos);
}

// A chip "like" a TPU runs its steps as XLA programs as the TPU does (no
// CUDA context, NCCL buffers or caching allocator); a chip of its own does not.
TEST(HardwareJson, AChipLikeATpuIsXlaCompiled) {
  EXPECT_TRUE(parse_chip_json("{\"name\": \"Site-v5e\", \"like\": \"TPU v5e\"}", "t.json")
                  .chip()
                  .xla_compiled);
  EXPECT_FALSE(parse_chip_json(chip_json("Own-X"), "o.json").chip().xla_compiled);
}

// An Infinity Fabric node is a full mesh: "scale_up_topology" says so; a
// chip "like" MI300X inherits it; anything else is refused by name.
TEST(HardwareJson, TheScaleUpTopologyIsReadOrInherited) {
  std::string t = chip_json("Mesh-X");
  t.insert(t.size() - 1, ", \"scale_up_topology\": \"full_mesh\"");
  EXPECT_TRUE(parse_chip_json(t, "m.json").chip().network.full_mesh);
  EXPECT_FALSE(parse_chip_json(chip_json("Switch-X"), "s.json").chip().network.full_mesh);
  const std::string like = "{\"name\": \"Site-MI300X\", \"like\": \"MI300X\"}";
  EXPECT_TRUE(parse_chip_json(like, "l.json").chip().network.full_mesh);
  t = chip_json("Bad-X");
  t.insert(t.size() - 1, ", \"scale_up_topology\": \"ring\"");
  EXPECT_NE(message(t).find("key \"scale_up_topology\": expected \"switch\" or \"full_mesh\""),
            std::string::npos)
      << message(t);
  const std::string cluster = "{\"name\": \"mesh-site\", \"gpus_per_node\": " + value(8) +
                              ", \"scale_up_gb_per_s\": " + value(448) +
                              ", \"scale_out_gb_per_s\": " + value(50) +
                              ", \"scale_up_topology\": \"full_mesh\"}";
  const ClusterPresetFile c = parse_cluster_preset_json(cluster, "c.json");
  EXPECT_TRUE(c.preset().network.full_mesh);
  EXPECT_NE(c.source.find("a full mesh in the node"), std::string::npos) << c.source;
}

TEST(HardwareJson, TheDataFolderAddsChipsAndClustersAndRefusesBadFiles) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  ASSERT_TRUE(QDir(dir.path()).mkpath(QStringLiteral("chips")));
  ASSERT_TRUE(QDir(dir.path()).mkpath(QStringLiteral("clusters")));
  write(dir.filePath(QStringLiteral("chips/a-site.json")), chip_json("Folder-H100"));
  write(dir.filePath(QStringLiteral("chips/b-bad.json")), "{\"name\": \"Bad\"}");
  write(dir.filePath(QStringLiteral("chips/c-taken.json")), chip_json("H100"));
  write(dir.filePath(QStringLiteral("chips/notes.txt")), "not read");
  write(dir.filePath(QStringLiteral("clusters/site.json")),
        "{\"name\": \"site-a\", \"gpus_per_node\": " + value(8) +
            ", \"scale_up_gb_per_s\": " + value(300) + ", \"scale_out_gb_per_s\": " +
            value(12.5, "measured", "nccl-tests all_reduce_perf across 2 nodes") + "}");
  const UserHardware u = load_user_hardware(dir.path().toStdString());
  EXPECT_EQ(u.chips, std::vector<std::string>{"Folder-H100"});
  EXPECT_EQ(u.clusters, std::vector<std::string>{"site-a"});
  ASSERT_EQ(u.refused.size(), 2u);
  EXPECT_NE(u.refused[0].find("b-bad.json: key \"peak_tflops\": is required"), std::string::npos)
      << u.refused[0];
  EXPECT_NE(u.refused[1].find("c-taken.json: key \"name\": chip name \"H100\" is already taken"),
            std::string::npos)
      << u.refused[1];
  // Listed after the built-in table, found by name like a built-in row.
  const std::vector<const Chip*> chips = chip_list();
  EXPECT_EQ(chips.front()->name, "H100");
  EXPECT_TRUE(std::any_of(chips.begin(), chips.end(),
                          [](const Chip* c) { return c->name == "Folder-H100"; }));
  EXPECT_DOUBLE_EQ(chip_by_name("Folder-H100").hbm_bytes_per_s, 3000e9);
  EXPECT_NE(chip_names().find("Folder-H100"), std::string::npos);
  const ClusterPreset& site = cluster_by_name("site-a");
  EXPECT_DOUBLE_EQ(site.network.inter_node_bytes_per_s, 12.5e9);
  EXPECT_NE(std::string(site.network.source).find("(measured: nccl-tests"), std::string::npos);
  EXPECT_NE(cluster_names().find("site-a"), std::string::npos);
  // A folder that is not there is no error.
  EXPECT_TRUE(
      load_user_hardware(dir.filePath(QStringLiteral("none")).toStdString()).refused.empty());
}

TEST(HardwareJson, APowerLimitLowersTheLikeChipsPeaksByTheDatasheetsLaw) {
  // An H100 capped at 500 W: its peaks x (500/700)^b, b from the SXM (989
  // TFLOP/s at 700 W) and the NVL (835 at 400 W), and 500 W of power; the
  // rest as H100. The same share as the table's Grand Teton part.
  const std::string text = "{\"name\": \"H100-500W\", \"like\": \"H100\", \"power_limit_watts\": " +
                           value(500, "measured", "nvidia-smi -pl 500 on our nodes") + "}";
  const ChipFile f = parse_chip_json(text, "capped.json");
  const Chip c = f.chip();
  const Chip& h = chip_by_name("H100");
  const double b = std::log(989.0 / 835.0) / std::log(700.0 / 400.0);
  EXPECT_NEAR(c.peak_flops_per_s / h.peak_flops_per_s, std::pow(500.0 / 700.0, b), 1e-12);
  EXPECT_NEAR(c.fp8_peak_flops_per_s / h.fp8_peak_flops_per_s, std::pow(500.0 / 700.0, b), 1e-12);
  EXPECT_NEAR(c.peak_flops_per_s / h.peak_flops_per_s,
              chip_by_name("H100-HBM2e").peak_flops_per_s / h.peak_flops_per_s, 1e-4);
  EXPECT_DOUBLE_EQ(c.watts, 500);
  EXPECT_DOUBLE_EQ(c.hbm_bytes_per_s, h.hbm_bytes_per_s);
  EXPECT_DOUBLE_EQ(c.efficiency.matmul, h.efficiency.matmul);
  // The same HBM: what CUDA reports of the H100's, not the datasheet's 80 GB.
  EXPECT_EQ(device_memory(c).bytes, device_memory(h).bytes);
  EXPECT_GT(device_memory(c).bytes, c.hbm_bytes);
  EXPECT_NE(c.source.find("power_limit_watts 500 W (measured: nvidia-smi -pl 500 on our nodes)"),
            std::string::npos)
      << c.source;
  EXPECT_NE(c.source.find("H100 NVL 835 at 400 W"), std::string::npos) << c.source;
  // At the chip's own limit nothing moves.
  const ChipFile same = parse_chip_json(
      "{\"name\": \"H100-700W\", \"like\": \"H100\", \"power_limit_watts\": " + value(700) + "}",
      "same.json");
  EXPECT_DOUBLE_EQ(same.chip().peak_flops_per_s, h.peak_flops_per_s);
}

TEST(HardwareJson, AChipLikeAnotherWithItsOwnMemoryKeepsItsOwnTotal) {
  const ChipFile f = parse_chip_json(
      "{\"name\": \"H100-96\", \"like\": \"H100\", \"hbm_gb\": " + value(96) + "}", "m.json");
  EXPECT_EQ(device_memory(f.chip()).bytes, 96'000'000'000);
}

TEST(HardwareJson, APowerLimitOutsideTheLawOrBesideAPeakIsRefused) {
  auto capped = [](const std::string& like, double watts, const std::string& extra = "") {
    return message("{\"name\": \"X\", \"like\": \"" + like +
                   "\", \"power_limit_watts\": " + value(watts) + extra + "}");
  };
  EXPECT_EQ(capped("H100", 300),
            "c.json: key \"power_limit_watts.value\": expected 400 to 700 W for H100 (from the "
            "lower datasheet row's limit to the chip's own), got 300 W");
  EXPECT_NE(capped("H100", 800).find("expected 400 to 700 W for H100"), std::string::npos);
  EXPECT_NE(capped("MI300X", 600).find("MI300X has no two datasheet rows of its die"),
            std::string::npos);
  EXPECT_NE(capped("A100-80", 300).find("has no two datasheet rows"), std::string::npos);
  EXPECT_EQ(capped("H100", 500, ", \"peak_tflops\": " + value(900)),
            "c.json: key \"power_limit_watts\": sets the peaks and the power; give it or "
            "\"peak_tflops\", not both");
  EXPECT_NE(capped("H100", 500, ", \"watts\": " + value(500)).find("\"watts\", not both"),
            std::string::npos);
  EXPECT_EQ(message("{\"name\": \"X\", \"power_limit_watts\": " + value(500) + "}"),
            "c.json: key \"power_limit_watts\": needs \"like\": the chip whose peaks the limit "
            "lowers");
  // GB200 (1,200 W) can be lowered to B200's 1,000 W, by Blackwell's pair.
  const ChipFile g = parse_chip_json(
      "{\"name\": \"GB200-1000W\", \"like\": \"GB200\", \"power_limit_watts\": " + value(1000) +
          "}",
      "g.json");
  EXPECT_NEAR(g.chip().peak_flops_per_s, 2250e12, 1e9);
}
