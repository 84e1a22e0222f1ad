// Measured training runs: what a user's cluster actually did, read from
//  - a runs CSV: one run per row, columns (case and spacing ignored; a unit
//    in parentheses is read: "iteration time (ms)")
//      chip, chips, layers, d_model, heads, d_ff, vocab, seq, global_batch,
//      tp, pp, dp, micro_batch, recompute, framework
//    optional kv_heads, gated, cp, ep, vpp, zero, sp, config (a config.json
//    path instead of the shape), and at least one measurement:
//      step_seconds (or step_ms), tflops_per_gpu, tokens_per_second_per_chip,
//      peak_memory_bytes (or peak_memory_gb / peak_memory_gib).
//    Common spellings are accepted ("# GPUs", "hidden size", "tensor
//    parallelism", ...); other columns are kept as notes. A column the file
//    lacks can be given once for every row (RunDefaults: chip=A100).
//  - a training log: Megatron-LM's iteration lines ("elapsed time per
//    iteration (ms)", "throughput per GPU (TFLOP/s/GPU)", "max allocated"),
//    torchtitan's step lines ("memory: 34.03GiB(35.8%)  tps: 1,234  tflops:
//    123.4  mfu: 12.5%") and DeepSpeed's throughput lines
//    ("CurrSamplesPerSec=…, MaxMemAllocated=…GB"); the run's layout from the
//    arguments the log prints (Megatron-LM) or from a config given with it.
// A row that cannot be a run is skipped with its line and the reason; a file
// that cannot be read at all throws one line naming the line or column.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "framework_config.h"
#include "parallel.h"

namespace napkin {

struct Measurement {
  std::optional<double> step_seconds;
  std::optional<double> tflops_per_gpu;  // achieved model TFLOP/s per GPU, as the framework counts
  std::optional<double> tokens_per_second_per_chip;
  std::optional<double> peak_memory_bytes;
  bool any() const {
    return step_seconds || tflops_per_gpu || tokens_per_second_per_chip || peak_memory_bytes;
  }
};

struct MeasuredRun {
  std::int64_t line = 0;  // the row (or the log's first measurement line)
  std::string label;      // "line 12" or the log file's name
  TrainingJob job;        // shape, chip, chips, sequence, batch, software
  Layout layout;
  std::string framework;  // as written
  Measurement measured;
  std::vector<std::pair<std::string, std::string>> notes;  // other columns, as written
};

struct SkippedRun {
  std::int64_t line = 0;
  std::string reason;
};

struct MeasuredRuns {
  std::string source;
  std::vector<MeasuredRun> runs;
  std::vector<SkippedRun> skipped;
  std::vector<std::string> notes;  // columns taken from defaults, framework presets used
};

// Values for columns the file does not have, by column name ("chip" → "A100").
using RunDefaults = std::map<std::string, std::string>;

// The software preset a framework name runs with: a software_presets() name
// as is; "megatron-deepspeed" and "deepspeed" → megatron-2021 (the 2021
// Megatron-LM code DeepSpeed forked: blocking TP all-reduces, the DP reduce
// after the backward); "megatron", "megatron-lm", "nemo", "torchtitan",
// "fsdp" → modern. Throws naming the accepted names.
std::string software_for_framework(std::string_view framework);

MeasuredRuns read_runs_csv(std::string_view text, std::string_view source,
                           const RunDefaults& defaults = {});
// `config` gives the layout when the log does not print its arguments.
MeasuredRuns read_training_log(std::string_view text, std::string_view source,
                               const RunDefaults& defaults = {},
                               const std::optional<TrainingConfig>& config = std::nullopt);
// A CSV (by a .csv name or a header line with commas) or a log; at most 64 MiB.
MeasuredRuns load_runs_file(const std::string& path, const RunDefaults& defaults = {},
                            const std::optional<TrainingConfig>& config = std::nullopt);

}  // namespace napkin
