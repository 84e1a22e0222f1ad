// How far published runs like a plan's landed from Napkin's prediction: the
// scoreboard's training-speed sets (`napkin-cli validate`) read back as an
// error band. A predicted MFU is a point; the runs Napkin was checked against
// say how far from it a measurement falls for the same family of frameworks
// on the same generation of chips, optimism included.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace napkin {

struct Chip;

// The frameworks whose published runs differ in the same ways (their
// kernels, schedules and communication); every software preset is one.
enum class FrameworkFamily {
  megatron,   // Megatron-LM, Megatron Core, NeMo, Megatron Bridge (and the presets built on them)
  deepspeed,  // Megatron-DeepSpeed: DeepSpeed's pipeline engine
  fsdp,       // PyTorch FSDP: torchtitan, LLM Foundry (Composer)
};
std::string_view to_string(FrameworkFamily f);
// The family of a software preset (parallel_software.h); throws
// std::invalid_argument naming the presets for an unknown name.
FrameworkFamily framework_family(std::string_view software_preset);

enum class ChipGeneration { ampere, hopper, blackwell, other };
std::string_view to_string(ChipGeneration g);
// A100 → Ampere; H100, H200, H800 → Hopper; B200, B300, GB200, GB300 →
// Blackwell; a user's chip by the built-in one whose memory it shares; other.
ChipGeneration chip_generation(const Chip& chip);

// One training-speed set of the scoreboard and the runs it holds.
struct TrackRecordSet {
  std::string_view key;  // public_validation_keys()
  FrameworkFamily family;
  ChipGeneration generation;
};
// Every training-speed set (throughput, MFU or step time), in scoreboard order.
std::span<const TrackRecordSet> track_record_sets();
// The scoreboard's sets that say nothing about training speed (memory,
// serving): every key is in one list or the other.
std::span<const std::string_view> track_record_excluded_sets();

// The error of the MFU (or throughput: the same ratio) on the published runs
// of one scope, every table weighted equally whatever its row count. Error =
// predicted / measured − 1 in MFU terms (a step time's ratio inverted): > 0
// means Napkin was above the measurement, optimistic.
struct TrackRecord {
  std::string scope;              // e.g. "Megatron-family frameworks on Hopper GPUs"
  std::string fallback;           // why the scope is wider than the plan's, or ""
  std::vector<std::string> sets;  // the sets' keys
  std::size_t rows = 0;
  double mean_abs_error = 0;
  double mean_signed_error = 0;
  double p10_error = 0;  // 10th and 90th percentiles of the signed error
  double p90_error = 0;
  bool empty() const { return rows == 0; }
  // The measured MFU the percentiles imply for a predicted `mfu`: low at the
  // 90th percentile (Napkin optimistic), high at the 10th.
  double low_mfu(double mfu) const;
  double high_mfu(double mfu) const;
  // One sentence: the scope, the tables and runs, the band around `mfu`, the
  // mean absolute and signed error.
  std::string text(double mfu) const;
};

// The record for a plan run by `software_preset` on `chip`: the sets of the
// same family on the same generation; with fewer than kMinRows runs there,
// the family on every chip, then every family on the generation, then every
// set (`fallback` says which and why). The scoreboard's sets are predicted
// once per process (about a second's work on one core the first time).
TrackRecord training_track_record(std::string_view software_preset, const Chip& chip);
// The record of every family on every generation that has published runs,
// by family then generation (`napkin-cli validate --track-record`).
std::vector<TrackRecord> track_record_scopes();
inline constexpr std::size_t kTrackRecordMinRows = 8;

}  // namespace napkin
