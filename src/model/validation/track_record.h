// How far published runs like a plan's landed from Napkin's prediction: the
// scoreboard's training-speed sets (`napkin-cli validate`) read back as an
// error band. A predicted MFU is a point; the runs Napkin was checked against
// say how far from it a measurement falls for the same family of frameworks
// on the same generation of chips, optimism included.
#pragma once

#include <cstdint>
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
  xla,        // JAX and XLA: MaxText
};
// The family of a software preset (parallel_software.h); throws
// std::invalid_argument naming the presets for an unknown name.
FrameworkFamily framework_family(std::string_view software_preset);

enum class ChipGeneration { ampere, hopper, blackwell, tpu, other };
std::string_view to_string(ChipGeneration g);
// A100 → Ampere; H100, H200, H800 → Hopper; B200, B300, GB200, GB300 →
// Blackwell; TPU v5e, v5p, v6e → TPU; a user's chip by the built-in one
// whose memory it shares; other.
ChipGeneration chip_generation(const Chip& chip);

// One training-speed set of the scoreboard and the runs it holds.
struct TrackRecordSet {
  std::string_view key;  // public_validation_keys()
  FrameworkFamily family;
  ChipGeneration generation;
};
// Every training-speed set (throughput, MFU or step time), in scoreboard order.
std::span<const TrackRecordSet> track_record_sets();
// The serving throughput sets (serving_track_record below).
std::vector<std::string_view> serving_track_record_keys();
// The serving latency sets (first_token_track_record below).
std::vector<std::string_view> first_token_track_record_keys();
// The scoreboard's sets none of them reads (memory): every key is in exactly
// one of the four lists.
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
  // The measurement the percentiles imply for a prediction (an MFU, or a
  // serving throughput): low at the 90th percentile (Napkin optimistic),
  // high at the 10th.
  double measured_low(double predicted) const;
  double measured_high(double predicted) const;
  // The same for a predicted time (a latency; its error is that of the rate,
  // 1 ÷ the time): the 10th percentile's time and the 90th's. `fixed_seconds`
  // of the prediction are the user's own (a stated overhead), outside the
  // model the runs checked: the band spans the rest.
  double measured_time_low(double predicted_seconds, double fixed_seconds = 0) const;
  double measured_time_high(double predicted_seconds, double fixed_seconds = 0) const;
  // One sentence: the scope, the tables and runs, the band around an MFU,
  // the mean absolute and signed error.
  std::string text(double mfu) const;
};

// The record for a plan run by `software_preset` on `chip`: the sets of the
// same family on the same generation; with fewer than kTrackRecordMinRows
// runs there, the family on every chip, then every family on the generation,
// then every set (`fallback` says which and why). The training sets are
// predicted once per process (about 12 ms the first time), each family's
// record on each generation kept.
TrackRecord training_track_record(std::string_view software_preset, const Chip& chip);
// The record of every family on every generation that has published runs,
// by family then generation (`napkin-cli validate --track-record`).
std::vector<TrackRecord> track_record_scopes();

// The serving side: the scoreboard's throughput sets (TensorRT-LLM's static
// and offline tables; its first-token set is a latency and is not read) by
// model kind and by the generation of each row's chip, the error that of the
// output tokens/s. Every published serving run is TensorRT-LLM's: a plan on
// another engine reads them for the per-kernel model the engines share, and
// `fallback` says so; the `ideal` engine (a bound, not a prediction) has none.
// Fewer than kTrackRecordMinRows runs of the kind on the generation: the
// kind on every chip. Every published MoE run split its experts by tensor
// parallelism: a MoE plan with expert parallelism (`expert_parallel` > 1, its
// EP rank groups attention data-parallel replicas) reads them and `fallback`
// says so.
TrackRecord serving_track_record(std::string_view engine, bool moe, const Chip& chip,
                                 std::int64_t expert_parallel = 1);
// Dense and MoE on every generation that has published serving runs, and on
// every GPU, computed from the scoreboard (about a second: the offline sets'
// simulations); serving_track_record reads them as stored in the library,
// which stored_serving_track_record_scopes() returns (a test keeps the two equal).
std::vector<TrackRecord> serving_track_record_scopes();
std::vector<TrackRecord> stored_serving_track_record_scopes();

// The first-token latency of a static batch (a prompt prefilled, its first
// token out): TensorRT-LLM's first-token set read back by the generation of
// each row's chip, the error that of the latency's inverse (> 0: Napkin's
// time below the measurement, optimistic), so a prediction's band is
// measured_time_low / _high. Every published first-token run is of a dense
// model on TensorRT-LLM v0.5: an MoE plan or another engine reads them and
// `fallback` says so; `ideal` has none. A queue's wait (offline and server
// runs) is outside what the runs measured. Fewer than kTrackRecordMinRows
// runs on the generation: every GPU.
TrackRecord first_token_track_record(std::string_view engine, bool moe, const Chip& chip);
// Every generation with published first-token runs, then every GPU.
std::vector<TrackRecord> first_token_track_record_scopes();
inline constexpr std::size_t kTrackRecordMinRows = 8;

}  // namespace napkin
