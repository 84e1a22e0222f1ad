// The MoE panel's inputs as part of the scenario document: the router run
// of record and the link and pipeline knobs.
//
// Plain structs with in-class defaults (each the panel's default on first
// launch) and a validate() that throws std::invalid_argument naming the field,
// its unit and the accepted range.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "moe.h"

namespace napkin {

// The MoE panel's router run (CollapseParams minus the fixed toy constants)
// and its link and pipeline knobs.
struct MoeSettings {
  std::int64_t n_experts = 8;
  std::int64_t top_k = 2;
  std::int64_t tokens_per_batch = 256;
  std::uint64_t seed = 0;
  // The panel opens on a router left alone (α off) so the collapse shows.
  bool aux_on = false;
  double aux_weight = 0.01;  // α, used when aux_on
  bool z_on = true;
  double z_weight = 0.001;  // γ, used when z_on
  double capacity_factor = 1.25;
  double learning_rate = 30.0;
  bool shared_expert = false;
  bool renormalize = true;
  // The run of record: the panel replays this many steps from step 0 on
  // open, and the headline drop rate is read at its last step.
  std::int64_t steps = 300;
  // The step the panel shows (its scrub position) in the run of record, so a
  // file reopens on the step that was being looked at; 0 follows the run's
  // last step (live). In [0, steps].
  std::int64_t shown_step = 0;
  // Link and pipeline (the communication tab).
  std::int64_t prefill_tokens = 8192;
  double link_gbps = 100;
  double latency_us = 5;
  std::int64_t pipeline_chunks = 8;
  std::int64_t pipeline_stages = 4;
  double compute_ms = 50;
  double transfer_ms = 20;

  void validate() const;
  CollapseParams collapse_params() const;
  PipelineInputs pipeline_inputs() const;
  bool operator==(const MoeSettings&) const = default;
};

}  // namespace napkin
