// Chips and clusters the user describes (issue 25, item 3): one JSON file
// each, in the data folder's chips/ and clusters/ (or a chip given with
// --chip-file), listed after the built-in hardware table. Every number says
// where it comes from:
//   {"name": "H100-site-a",
//    "peak_tflops":  {"value": 989, "kind": "datasheet", "source": "NVIDIA H100 SXM5 datasheet"},
//    "hbm_gb":       {"value": 80, "kind": "datasheet", "source": "..."},
//    "hbm_gb_per_s": {"value": 3350, "kind": "datasheet", "source": "..."},
//    "watts":        {"value": 700, "kind": "datasheet", "source": "..."},
//    "gpus_per_node": {...}, "scale_up_gb_per_s": {...}, "scale_out_gb_per_s": {...},
//    optional: "fp8_peak_tflops", "fp4_peak_tflops", "matmul_efficiency", "hbm_efficiency",
//    "link_efficiency", "attention_efficiency", "compute_units" (each
//    {"value", "kind", "source"}), "scale_up_topology": "switch" or
//    "full_mesh" (Network::full_mesh) and "like": a built-in chip whose row
//    gives what the file leaves out (the efficiencies, the GEMM tile, the
//    latencies, the topology); with "like", "power_limit_watts" (in place of
//    the peaks and "watts") lowers the like chip's peaks by its family's
//    datasheet power law (power_limited_share)}
// "kind" is "datasheet", "measured" or "calibrated"; "source" is not empty.
// A cluster file: "name" and "gpus_per_node", "scale_up_gb_per_s",
// "scale_out_gb_per_s" (optional "scale_up_latency_us", "scale_out_latency_us")
// in the same form, and optional "scale_up_topology" (default "switch").
// Unknown keys are refused by name.
#pragma once

#include <string>
#include <vector>

#include "hardware.h"

namespace napkin {

// An owned chip description; register it with add_user_chip(chip()).
struct ChipFile {
  std::string name, source, network_source, efficiency_source;
  Chip row{};
  // The row with its text pointing into this object.
  Chip chip() const;
};
struct ClusterPresetFile {
  std::string name, description, source;
  ClusterPreset row{};
  ClusterPreset preset() const;
};

// Throw std::invalid_argument "what: key \"K\": reason".
ChipFile parse_chip_json(const std::string& text, const std::string& what);
ClusterPresetFile parse_cluster_preset_json(const std::string& text, const std::string& what);
// Read (at most 64 KiB) and parse; throw naming the path.
ChipFile read_chip_file(const std::string& path);
// Read, parse and register (add_user_chip) the chip a file describes; throw
// std::invalid_argument naming the path, and the key "name" when the name is
// taken. Returns the registered chip.
const Chip& register_chip_file(const std::string& path);

// The user's data folder: $NAPKIN_DATA_DIR, else the app's data location
// ($XDG_DATA_HOME or ~/.local/share, then Napkin/Napkin, as Qt's
// AppDataLocation names it for the app), "" when none can be named.
std::string user_data_folder();

struct UserHardware {
  std::vector<std::string> chips, clusters;  // names registered
  std::vector<std::string> refused;          // "file: key \"K\": reason", one per file
};
// Registers every chips/*.json and clusters/*.json of `folder` (in name order,
// at most 256 of each, 64 KiB each); a malformed file or a taken name is
// refused with why, the others still load. A missing folder is no error.
UserHardware load_user_hardware(const std::string& folder);

}  // namespace napkin
