#include "track_record.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <span>

#include "format.h"
#include "hardware.h"
#include "parallel_software.h"
#include "validation.h"

namespace napkin {

namespace {

using enum FrameworkFamily;
using enum ChipGeneration;

constexpr std::array kSets{
    TrackRecordSet{"korthikanti-2022-table5", megatron, ampere},
    TrackRecordSet{"narayanan-2021-table1", megatron, ampere},
    TrackRecordSet{"vtrain-single-node", deepspeed, ampere},
    TrackRecordSet{"vtrain-multi-node", deepspeed, ampere},
    TrackRecordSet{"megatron-core-0.8-h100", megatron, hopper},
    TrackRecordSet{"megatron-bridge-h100", megatron, hopper},
    TrackRecordSet{"megatron-bridge-b200", megatron, blackwell},
    TrackRecordSet{"megatron-bridge-gb200", megatron, blackwell},
    TrackRecordSet{"megatron-bridge-gb300", megatron, blackwell},
    TrackRecordSet{"megatron-bridge-moe-h100", megatron, hopper},
    TrackRecordSet{"dgxc-h100", megatron, hopper},
    TrackRecordSet{"dgxc-h100-25.04", megatron, hopper},
    TrackRecordSet{"dgxc-gb200", megatron, blackwell},
    TrackRecordSet{"nemo-24.07-h100", megatron, hopper},
    TrackRecordSet{"torchtitan-a100", fsdp, ampere},
    TrackRecordSet{"torchtitan-h100", fsdp, hopper},
    TrackRecordSet{"torchtitan-h100-2025", fsdp, hopper},
    TrackRecordSet{"torchtitan-h200", fsdp, hopper},
    TrackRecordSet{"llm-foundry-a100", fsdp, ampere},
    TrackRecordSet{"llm-foundry-h100", fsdp, hopper},
    TrackRecordSet{"maxtext-tpu-v5e", xla, tpu},
    TrackRecordSet{"maxtext-tpu-v5p", xla, tpu},
};

constexpr std::array<std::string_view, 2> kExcluded{
    "torchtitan-h200-memory",
    "torchtitan-h100-memory",
};

// The serving latency set: a static batch's first token, every row's chip named.
constexpr std::array<std::string_view, 1> kFirstTokenKeys{"serving-trtllm-first-token"};

// The serving throughput sets, and whether their models are MoE.
struct ServingSet {
  std::string_view key;
  bool moe;
};
constexpr std::array kServingSets{
    ServingSet{"serving-trtllm-throughput", false},
    ServingSet{"serving-trtllm-throughput-v0.5", false},
    ServingSet{"serving-trtllm-offline-v1.0", false},
    ServingSet{"serving-trtllm-offline-v1.0-fp4", false},
    ServingSet{"serving-trtllm-offline-v0.17", false},
    ServingSet{"serving-trtllm-offline-v0.17-moe", true},
};

// One published run: its set (an index into the keys it was read from), the
// generation of its chip where the row names one, and Napkin's error of the
// MFU or throughput (a step time's or a latency's ratio inverted).
struct RunError {
  std::size_t set = 0;
  ChipGeneration generation = other;
  double error = 0;
};

std::vector<RunError> run_errors_of(std::span<const std::string_view> keys) {
  std::vector<RunError> out;
  for (std::size_t i = 0; i < keys.size(); ++i)
    for (const ValidationSet& set : public_validation_sets(keys[i]))
      for (const ValidationRow& row : set.rows) {
        const double ratio =
            set.lower_is_optimistic ? row.measured / row.predicted : row.predicted / row.measured;
        if (!std::isfinite(ratio) || ratio <= 0) continue;
        const ChipGeneration g = row.chip.empty() ? other : chip_generation(chip_by_name(row.chip));
        out.push_back({i, g, ratio - 1.0});
      }
  return out;
}

template <std::size_t N, typename Entry>
constexpr std::array<std::string_view, N> keys_of(const std::array<Entry, N>& sets) {
  std::array<std::string_view, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = sets[i].key;
  return out;
}

constexpr auto kTrainingKeys = keys_of(kSets);
constexpr auto kServingKeys = keys_of(kServingSets);

// Every run of every training-speed set, and of every serving throughput
// set, predicted once per process.
const std::vector<RunError>& run_errors() {
  static const std::vector<RunError> errors = run_errors_of(kTrainingKeys);
  return errors;
}
const std::vector<RunError>& serving_run_errors() {
  static const std::vector<RunError> errors = run_errors_of(kServingKeys);
  return errors;
}
const std::vector<RunError>& first_token_run_errors() {
  static const std::vector<RunError> errors = run_errors_of(kFirstTokenKeys);
  return errors;
}

// The weighted quantile of ascending (value, weight) pairs: each value sits
// at the middle of its weight on the cumulative scale, linear between.
double weighted_quantile(const std::vector<std::pair<double, double>>& sorted, double q) {
  double total = 0;
  for (const auto& [v, w] : sorted) total += w;
  double below = 0, prev_at = 0, prev_v = sorted.front().first;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const auto& [v, w] = sorted[i];
    const double at = (below + w / 2) / total;
    if (q <= at) {
      if (i == 0) return v;
      return prev_v + (v - prev_v) * (q - prev_at) / (at - prev_at);
    }
    below += w;
    prev_at = at;
    prev_v = v;
  }
  return sorted.back().first;
}

std::string family_scope(FrameworkFamily f) {
  switch (f) {
    case megatron: return "Megatron-family frameworks";
    case deepspeed: return "Megatron-DeepSpeed";
    case fsdp: return "PyTorch FSDP frameworks";
    case xla: return "JAX/XLA frameworks";
  }
  return {};
}

// The record of `runs` (each a set's index into `keys` and its error), every
// set weighing one whatever its row count.
TrackRecord summarised(const std::vector<std::pair<std::size_t, double>>& runs,
                       std::span<const std::string_view> keys, std::string scope) {
  TrackRecord r;
  r.scope = std::move(scope);
  std::vector<std::size_t> rows_of(keys.size(), 0);
  for (const auto& [set, error] : runs) ++rows_of[set];
  std::vector<std::pair<double, double>> weighted;
  double total = 0;
  for (const auto& [set, error] : runs) {
    const double w = 1.0 / static_cast<double>(rows_of[set]);
    weighted.emplace_back(error, w);
    r.mean_abs_error += w * std::abs(error);
    r.mean_signed_error += w * error;
    total += w;
  }
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (rows_of[i] > 0) r.sets.emplace_back(keys[i]);
  r.rows = weighted.size();
  if (r.rows == 0) return r;
  r.mean_abs_error /= total;
  r.mean_signed_error /= total;
  std::sort(weighted.begin(), weighted.end());
  r.p10_error = weighted_quantile(weighted, 0.10);
  r.p90_error = weighted_quantile(weighted, 0.90);
  return r;
}

// The runs of `errors` (read from the sets `keys`) that `keep` takes.
template <typename Keep>
TrackRecord record_where(const std::vector<RunError>& errors,
                         std::span<const std::string_view> keys, Keep keep, std::string scope) {
  std::vector<std::pair<std::size_t, double>> runs;
  for (const RunError& e : errors)
    if (keep(e)) runs.emplace_back(e.set, e.error);
  return summarised(runs, keys, std::move(scope));
}

// The training runs of the sets `sets` (indices into kSets).
TrackRecord record_of(const std::vector<std::size_t>& sets, std::string scope) {
  return record_where(
      run_errors(), kTrainingKeys,
      [&](const RunError& e) { return std::find(sets.begin(), sets.end(), e.set) != sets.end(); },
      std::move(scope));
}

bool on(ChipGeneration generation, const RunError& e) {
  return generation == other || e.generation == generation;
}

// The serving runs of one model kind, on one generation (`other`: every chip).
TrackRecord serving_record_of(bool moe, ChipGeneration generation, std::string scope) {
  return record_where(
      serving_run_errors(), kServingKeys,
      [&](const RunError& e) { return kServingSets[e.set].moe == moe && on(generation, e); },
      std::move(scope));
}

std::string first_token_scope(ChipGeneration generation) {
  return "TensorRT-LLM first token, dense models on " +
         (generation == other ? std::string("every GPU")
                              : std::string(to_string(generation)) + " GPUs");
}

// The first-token runs on one generation (`other`: every chip).
TrackRecord first_token_record_of(ChipGeneration generation) {
  return record_where(
      first_token_run_errors(), kFirstTokenKeys,
      [&](const RunError& e) { return on(generation, e); }, first_token_scope(generation));
}

// What a serving plan's record stands in for: its engine's runs where the
// scoreboard has none, and the reasons `more` adds; "" when nothing.
std::string serving_fallback(std::string_view engine, std::string more) {
  if (engine.starts_with("tensorrt-llm")) return more;
  const std::string why = "no published run of " + std::string(engine) +
                          " in the scoreboard: TensorRT-LLM's, timed by the same "
                          "per-kernel model";
  return more.empty() ? why : why + "; " + more;
}

std::string serving_scope(bool moe, ChipGeneration generation) {
  return std::string("TensorRT-LLM serving ") + (moe ? "MoE" : "dense") + " models on " +
         (generation == other ? std::string("every GPU")
                              : std::string(to_string(generation)) + " GPUs");
}

// The serving scopes as serving_track_record_scopes() computes them, stored:
// the offline sets behind them simulate ~40,000 requests (about a second on
// two cores), too slow to repeat in every `serve` and every panel's first
// view. The tests recompute them and fail, naming this table, when the model
// moves them (napkin-cli validate --track-record prints the new values).
struct StoredServingScope {
  bool moe;
  ChipGeneration generation;  // other: every GPU
  std::size_t rows;
  double mean_abs_error, mean_signed_error, p10_error, p90_error;
  std::array<std::string_view, 5> sets;  // empty keys unused
  TrackRecord record(std::string scope) const {
    TrackRecord r;
    r.scope = std::move(scope);
    for (std::string_view k : sets)
      if (!k.empty()) r.sets.emplace_back(k);
    r.rows = rows;
    r.mean_abs_error = mean_abs_error;
    r.mean_signed_error = mean_signed_error;
    r.p10_error = p10_error;
    r.p90_error = p90_error;
    return r;
  }
};
// moe, generation, rows, mean |error|, mean signed error, 10th and 90th
// percentile, the sets read.
// clang-format off
constexpr std::array<StoredServingScope, 7> kServingScopes{{
    {false, ampere, 55, 0.05948098982341329, -0.007395018448664482, -0.09060910627986218, 0.0746647757245969, {"serving-trtllm-throughput", "serving-trtllm-throughput-v0.5", "serving-trtllm-offline-v0.17", "", ""}},
    {false, hopper, 181, 0.054626374643458514, -0.004196982261379369, -0.09210262830678347, 0.06630614648959288, {"serving-trtllm-throughput", "serving-trtllm-throughput-v0.5", "serving-trtllm-offline-v1.0", "serving-trtllm-offline-v0.17", ""}},
    {false, blackwell, 40, 0.3408977558923606, 0.3408977558923606, 0.1795823378259206, 0.49274055650398474, {"serving-trtllm-offline-v1.0-fp4", "", "", "", ""}},
    {false, other, 276, 0.11162507966336649, 0.0644543340862552, -0.07668058896545002, 0.3313456045335968, {"serving-trtllm-throughput", "serving-trtllm-throughput-v0.5", "serving-trtllm-offline-v1.0", "serving-trtllm-offline-v1.0-fp4", "serving-trtllm-offline-v0.17"}},
    {true, ampere, 36, 0.13678693589553195, 0.12826829790905597, 0.028796113901711853, 0.20353343121928763, {"serving-trtllm-offline-v0.17-moe", "", "", "", ""}},
    {true, hopper, 90, 0.11426421301108698, 0.09752276339054385, -0.019966809975033972, 0.21927012708430643, {"serving-trtllm-offline-v0.17-moe", "", "", "", ""}},
    {true, other, 126, 0.12069927669235715, 0.1063072018244046, -0.017492986205156123, 0.21804424046861143, {"serving-trtllm-offline-v0.17-moe", "", "", "", ""}},
}};
// clang-format on

}  // namespace

FrameworkFamily framework_family(std::string_view software_preset) {
  (void)software_by_name(software_preset);  // throws naming the presets
  if (software_preset.starts_with("megatron-deepspeed")) return deepspeed;
  if (software_preset.starts_with("fsdp")) return fsdp;
  if (software_preset == "maxtext") return xla;
  return megatron;
}

std::string_view to_string(ChipGeneration g) {
  switch (g) {
    case ampere: return "Ampere";
    case hopper: return "Hopper";
    case blackwell: return "Blackwell";
    case tpu: return "TPU";
    case other: return "other";
  }
  return "other";
}

ChipGeneration chip_generation(const Chip& chip) {
  auto of = [](std::string_view name) {
    if (name.starts_with("A100")) return ampere;
    if (name.starts_with("H100") || name == "H200" || name == "H800") return hopper;
    if (name == "B200" || name == "B300" || name == "GB200" || name == "GB300") return blackwell;
    if (name.starts_with("TPU")) return tpu;
    return other;
  };
  const ChipGeneration g = of(chip.name);
  return g != other || chip.device_memory_as.empty() ? g : of(chip.device_memory_as);
}

std::span<const TrackRecordSet> track_record_sets() { return kSets; }

std::span<const std::string_view> track_record_excluded_sets() { return kExcluded; }

std::vector<std::string_view> serving_track_record_keys() {
  return {kServingKeys.begin(), kServingKeys.end()};
}

double TrackRecord::measured_low(double predicted) const { return predicted / (1.0 + p90_error); }
double TrackRecord::measured_high(double predicted) const { return predicted / (1.0 + p10_error); }
double TrackRecord::measured_time_low(double predicted_seconds, double fixed_seconds) const {
  return fixed_seconds + (predicted_seconds - fixed_seconds) * (1.0 + p10_error);
}
double TrackRecord::measured_time_high(double predicted_seconds, double fixed_seconds) const {
  return fixed_seconds + (predicted_seconds - fixed_seconds) * (1.0 + p90_error);
}

std::string TrackRecord::text(double mfu) const {
  if (empty()) return {};
  return "published runs like it (" + scope + ": " + format_grouped(static_cast<double>(rows)) +
         " runs in " + std::to_string(sets.size()) + (sets.size() == 1 ? " table" : " tables") +
         ") measured " + format_percent(measured_low(mfu), 1) + " – " +
         format_percent(measured_high(mfu), 1) + " where Napkin predicts " +
         format_percent(mfu, 1) + " (10th–90th percentile; mean error " +
         format_percent(mean_abs_error, 1) + ", signed " +
         format_signed(mean_signed_error * 100.0, 1) + " %)";
}

namespace {

// The generations a record is kept for (`other`: every chip), and where a
// value sits in such a list.
constexpr std::array kGenerations{ampere, hopper, blackwell, tpu, other};
std::size_t index_of(const auto& list, auto value) {
  return static_cast<std::size_t>(std::find(list.begin(), list.end(), value) - list.begin());
}

// " on Hopper GPUs", " on TPUs"; "" for every chip.
std::string on_chips(ChipGeneration g) {
  if (g == other) return "";
  return g == tpu ? " on TPUs" : " on " + std::string(to_string(g)) + " GPUs";
}

// The serving sets are GPU engines': a TPU has no scope of its own there.
ChipGeneration serving_generation(const Chip& chip) {
  const ChipGeneration g = chip_generation(chip);
  return g == tpu ? other : g;
}

// The record of `family` on `generation`, widened as training_track_record
// says (for `other`, the reason is the caller's: it names the chip).
TrackRecord widened_record(FrameworkFamily family, ChipGeneration generation) {
  auto sets_where = [](auto keep) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < kSets.size(); ++i)
      if (keep(kSets[i])) out.push_back(i);
    return out;
  };
  const std::string gpus = on_chips(generation);
  TrackRecord r = record_of(sets_where([&](const TrackRecordSet& s) {
                              return s.family == family && s.generation == generation;
                            }),
                            family_scope(family) + gpus);
  if (r.rows >= kTrackRecordMinRows) return r;
  // Wider: the GPUs' runs (a TPU's are its own scope's alone).
  r = record_of(sets_where([&](const TrackRecordSet& s) {
                  return s.family == family && s.generation != tpu;
                }),
                family_scope(family) + " on every GPU");
  if (r.rows < kTrackRecordMinRows && generation != other)
    r = record_of(sets_where([&](const TrackRecordSet& s) { return s.generation == generation; }),
                  "every framework" + gpus);
  if (r.rows < kTrackRecordMinRows)
    r = record_of(sets_where([](const TrackRecordSet& s) { return s.generation != tpu; }),
                  "every framework on every GPU");
  if (generation != other)
    r.fallback = "fewer than " + std::to_string(kTrackRecordMinRows) + " published runs of " +
                 family_scope(family) + gpus;
  return r;
}

}  // namespace

TrackRecord training_track_record(std::string_view software_preset, const Chip& chip) {
  // Every family on every generation, computed once: a panel asks on every
  // change of its inputs.
  constexpr std::array kFamilies{megatron, deepspeed, fsdp, xla};
  static const auto table = [&] {
    std::array<std::array<TrackRecord, kGenerations.size()>, kFamilies.size()> t;
    for (std::size_t f = 0; f < kFamilies.size(); ++f)
      for (std::size_t g = 0; g < kGenerations.size(); ++g)
        t[f][g] = widened_record(kFamilies[f], kGenerations[g]);
    return t;
  }();
  const FrameworkFamily family = framework_family(software_preset);
  const ChipGeneration generation = chip_generation(chip);
  TrackRecord r = table[index_of(kFamilies, family)][index_of(kGenerations, generation)];
  if (generation == other)
    r.fallback = "no published run on " + std::string(chip.name) + "'s kind of chip";
  return r;
}

std::vector<TrackRecord> track_record_scopes() {
  std::vector<TrackRecord> out;
  for (FrameworkFamily f : {megatron, deepspeed, fsdp, xla})
    for (ChipGeneration g : {ampere, hopper, blackwell, tpu}) {
      std::vector<std::size_t> sets;
      for (std::size_t i = 0; i < kSets.size(); ++i)
        if (kSets[i].family == f && kSets[i].generation == g) sets.push_back(i);
      TrackRecord r = record_of(sets, family_scope(f) + on_chips(g));
      if (!r.empty()) out.push_back(std::move(r));
    }
  return out;
}

TrackRecord serving_track_record(std::string_view engine, bool moe, const Chip& chip,
                                 std::int64_t expert_parallel) {
  if (engine == "ideal") return {};
  const ChipGeneration generation = serving_generation(chip);
  auto stored = [&](ChipGeneration g) {
    for (const StoredServingScope& k : kServingScopes)
      if (k.moe == moe && k.generation == g) return k.record(serving_scope(moe, g));
    return TrackRecord{};
  };
  TrackRecord r;
  std::string why;
  if (generation != other) {
    r = stored(generation);
    if (r.rows < kTrackRecordMinRows)
      why = "fewer than " + std::to_string(kTrackRecordMinRows) + " published runs of " +
            serving_scope(moe, generation);
  } else {
    why = "no published serving run on " + std::string(chip.name) + "'s kind of chip";
  }
  if (r.rows < kTrackRecordMinRows) r = stored(other);
  if (moe && expert_parallel > 1) {
    // The MoE sets (TensorRT-LLM v0.17's Mixtral) split the experts TP ways.
    const std::string ep =
        "every published MoE run split its experts by tensor parallelism; none "
        "ran expert parallelism with attention data parallelism, as this plan";
    why = why.empty() ? ep : why + "; " + ep;
  }
  r.fallback = serving_fallback(engine, why);
  return r;
}

std::vector<TrackRecord> serving_track_record_scopes() {
  std::vector<TrackRecord> out;
  for (bool moe : {false, true})
    for (ChipGeneration g : kGenerations) {
      TrackRecord r = serving_record_of(moe, g, serving_scope(moe, g));
      if (!r.empty()) out.push_back(std::move(r));
    }
  return out;
}

std::vector<TrackRecord> stored_serving_track_record_scopes() {
  std::vector<TrackRecord> out;
  for (const StoredServingScope& k : kServingScopes)
    out.push_back(k.record(serving_scope(k.moe, k.generation)));
  return out;
}

TrackRecord first_token_track_record(std::string_view engine, bool moe, const Chip& chip) {
  if (engine == "ideal") return {};
  static const auto table = [] {
    std::array<TrackRecord, kGenerations.size()> t;
    for (std::size_t g = 0; g < kGenerations.size(); ++g)
      t[g] = first_token_record_of(kGenerations[g]);
    return t;
  }();
  const ChipGeneration generation = serving_generation(chip);
  const auto at = [](ChipGeneration g) { return table[index_of(kGenerations, g)]; };
  TrackRecord r = at(generation);
  std::string why;
  if (generation == other)
    why = "no published first-token run on " + std::string(chip.name) + "'s kind of chip";
  else if (r.rows < kTrackRecordMinRows)
    why = "fewer than " + std::to_string(kTrackRecordMinRows) + " published first-token runs on " +
          std::string(to_string(generation)) + " GPUs";
  if (r.rows < kTrackRecordMinRows) r = at(other);
  if (moe) {
    const std::string moe_why = "no published first-token run of an MoE model: the dense models'";
    why = why.empty() ? moe_why : moe_why + "; " + why;
  }
  r.fallback = serving_fallback(engine, why);
  return r;
}

std::vector<TrackRecord> first_token_track_record_scopes() {
  std::vector<TrackRecord> out;
  for (ChipGeneration g : kGenerations) {
    TrackRecord r = first_token_record_of(g);
    if (!r.empty()) out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::string_view> first_token_track_record_keys() {
  return {kFirstTokenKeys.begin(), kFirstTokenKeys.end()};
}

}  // namespace napkin
