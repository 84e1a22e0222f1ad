// The Parallelism panel's inputs as part of the scenario document: the step,
// the software, the search's locks and the chosen layout.
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

#include "parallel.h"

namespace napkin {

// Where the Budget planner's MFU comes from: the MFU slider (an assumption),
// or the predicted MFU of the layout the Parallelism panel runs.
enum class MfuSource { assumed, predicted };
std::string_view to_string(MfuSource s);  // "assumed" | "predicted"
MfuSource parse_mfu_source(std::string_view text);

// The Parallelism panel's inputs: the step, the software generation, the
// search's locks and the layout the user picked. The model, chips, chip,
// sequence length and optimizer come from the scenario itself.
// "" unless constants fitted under one software preset are used with
// another (`software`): then a sentence naming both (the fitted host time and
// kernel efficiencies are the framework's as much as the cluster's).
std::string calibration_warning(const CalibratedConstants& k, std::string_view software);

struct ParallelSettings {
  MfuSource mfu_source = MfuSource::assumed;
  // Tokens per optimizer step; sequences per step = this ÷ training.seq_len
  // (at least 1). 4 Mi tokens: Llama-3-70B's early batch.
  std::int64_t global_batch_tokens = 4'194'304;
  std::string software = "modern";  // a name of software_presets()
  // The pipeline schedule; unset: the software preset's (1F1B for most,
  // DualPipe for deepseek-v3).
  std::optional<PipeSchedule> pipe_schedule;
  // How routed tokens reach their experts (alltoall, or flex: DeepEP /
  // HybridEP, deduplicated); unset: the software preset's.
  std::optional<EpDispatch> ep_dispatch;
  // The cluster: "" the chip's usual node (its hardware table row), a name of
  // cluster_presets(), or "custom": the three numbers below (per GPU, one
  // direction; registered inputs parallel.gpus_per_node, ...).
  std::string cluster;
  std::int64_t gpus_per_node = 8;
  double scale_up_gb_per_s = 450;
  double scale_out_gb_per_s = 50;
  // A cluster profile (napkin-cli calibrate -o FILE): its path as the user
  // gave it ("" none) and the constants read from it, which replace the
  // datasheet efficiencies and host time per kernel of the scenario's
  // training job. The document stores the path; the reader loads the file.
  std::string cluster_profile;
  std::optional<CalibratedConstants> calibrated;
  std::optional<CalibratedInterval> calibrated_interval;  // the fit's 90 % corners
  // Device memory outside the tensors measured on the cluster, GB per GPU
  // (registered input parallel.non_tensor_gb); 0: Napkin's itemised estimate.
  double non_tensor_gb = 0;
  bool even_stages = true;     // PP divides the layers
  bool tp_within_node = true;  // TP inside one fast domain
  // Locks: axes the search keeps fixed; unset: searched.
  std::optional<std::int64_t> tp, pp, vpp, cp, ep, micro_batch;
  std::optional<std::int64_t> etp;  // experts' TP; 1 folds EP over TP
  std::optional<int> zero;
  std::optional<std::int64_t> shard;  // ZeRO's group (Layout::shard); 0: all DP × CP ranks
  // The recompute lock: the kind, and with it what --layout's recompute value
  // adds (Layout::recompute_layers for "full:N", recompute_group for
  // "uniform:N", recompute_modules for "selective:M1+M2"); the three keep
  // their defaults while unlocked or with a plain kind.
  std::optional<Checkpointing> recompute;
  std::int64_t recompute_layers = 0;
  std::int64_t recompute_group = 1;
  std::uint32_t recompute_modules = 0;
  // The layout picked from the table; unset: the fastest layout that fits.
  std::optional<Layout> chosen;

  void validate() const;
  // The recompute lock as --layout writes it ("full", "full:4",
  // "selective:op", "uniform:2"); "" unlocked.
  std::string recompute_lock_text() const;
  // Sets the recompute lock from that text ("" or "auto" unlocks). Throws
  // std::invalid_argument as parse_recompute_text does, the lock unchanged.
  void lock_recompute(std::string_view text);
  // The locks as a partial --layout ("tp=8,pp=4,mb=1,recompute=full:3"): the
  // axes napkin-cli parallel would then keep, the rest searched; "" none.
  std::string locks_text() const;
  SearchOptions search_options() const;
  // The network a plan on `chip` runs on; nullopt: the chip's own node.
  std::optional<Network> network(const Chip& chip) const;
  // The network in use: network(chip), or the chip's own node.
  Network network_in_use(const Chip& chip) const { return network(chip).value_or(chip.network); }
  // "DGX H100 (the H100's node)", "dgx-a100", "custom: 8 GPUs, 300 / 12.5 GB/s".
  std::string cluster_text(const Chip& chip) const;
  // Sets `cluster` to `name`; switching to "custom" from anything else starts
  // the custom numbers from the network in use, so what the user edits is
  // what the plan ran on.
  void choose_cluster(const std::string& name, const Chip& chip);
  // calibration_warning(*calibrated, software); "" without a profile.
  std::string calibration_warning() const;
  bool operator==(const ParallelSettings&) const = default;
};

}  // namespace napkin
