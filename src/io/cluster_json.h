// A cluster described in a JSON file, for --cluster FILE and the GUI:
//   {"name": "site-a", "gpus_per_node": 8, "scale_up_gb_per_s": 300,
//    "scale_out_gb_per_s": 12.5,
//    "scale_up_latency_us": 3, "scale_out_latency_us": 6}   (latencies optional)
// Bandwidths are per GPU and direction in GB/s (10^9 bytes/s). Unknown keys
// are refused by name, so a misspelt key is not silently ignored.
#pragma once

#include <string>

#include "hardware.h"

namespace napkin {

struct ClusterFile {
  std::string name;  // the file's "name", or its file name
  Network network;   // source: "cluster file"
};

// Parses JSON text; throws std::invalid_argument naming `what` and the key.
ClusterFile parse_cluster_json(const std::string& text, const std::string& what);
// Reads a file (at most 64 KiB) and parses it; throws naming the path.
ClusterFile read_cluster_file(const std::string& path);

}  // namespace napkin
