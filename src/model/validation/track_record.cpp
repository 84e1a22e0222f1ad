#include "track_record.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

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
};

constexpr std::array<std::string_view, 8> kExcluded{
    "torchtitan-h200-memory",       "torchtitan-h100-memory",
    "serving-trtllm-throughput",    "serving-trtllm-throughput-v0.5",
    "serving-trtllm-first-token",   "serving-trtllm-offline-v1.0",
    "serving-trtllm-offline-v0.17", "serving-trtllm-offline-v0.17-moe",
};

// One published run: its set (index into kSets) and Napkin's MFU error.
struct RunError {
  std::size_t set = 0;
  double error = 0;
};

// Every run of every training-speed set, predicted once per process.
const std::vector<RunError>& run_errors() {
  static const std::vector<RunError> errors = [] {
    std::vector<RunError> out;
    for (std::size_t i = 0; i < kSets.size(); ++i)
      for (const ValidationSet& set : public_validation_sets(kSets[i].key))
        for (const ValidationRow& row : set.rows) {
          // MFU ∝ throughput ∝ 1 / step time.
          const double ratio =
              set.lower_is_optimistic ? row.measured / row.predicted : row.predicted / row.measured;
          out.push_back({i, ratio - 1.0});
        }
    return out;
  }();
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
  }
  return {};
}

TrackRecord record_of(const std::vector<std::size_t>& sets, std::string scope) {
  TrackRecord r;
  r.scope = std::move(scope);
  std::vector<std::size_t> rows_of(kSets.size(), 0);
  for (const RunError& e : run_errors())
    if (std::find(sets.begin(), sets.end(), e.set) != sets.end()) ++rows_of[e.set];
  std::vector<std::pair<double, double>> weighted;
  double total = 0;
  for (const RunError& e : run_errors()) {
    if (rows_of[e.set] == 0) continue;
    const double w = 1.0 / static_cast<double>(rows_of[e.set]);
    weighted.emplace_back(e.error, w);
    r.mean_abs_error += w * std::abs(e.error);
    r.mean_signed_error += w * e.error;
    total += w;
  }
  for (std::size_t i = 0; i < kSets.size(); ++i)
    if (rows_of[i] > 0) r.sets.emplace_back(kSets[i].key);
  r.rows = weighted.size();
  if (r.rows == 0) return r;
  r.mean_abs_error /= total;
  r.mean_signed_error /= total;
  std::sort(weighted.begin(), weighted.end());
  r.p10_error = weighted_quantile(weighted, 0.10);
  r.p90_error = weighted_quantile(weighted, 0.90);
  return r;
}

}  // namespace

std::string_view to_string(FrameworkFamily f) {
  switch (f) {
    case megatron: return "megatron";
    case deepspeed: return "deepspeed";
    case fsdp: return "fsdp";
  }
  return "megatron";
}

FrameworkFamily framework_family(std::string_view software_preset) {
  (void)software_by_name(software_preset);  // throws naming the presets
  if (software_preset.starts_with("megatron-deepspeed")) return deepspeed;
  if (software_preset.starts_with("fsdp")) return fsdp;
  return megatron;
}

std::string_view to_string(ChipGeneration g) {
  switch (g) {
    case ampere: return "Ampere";
    case hopper: return "Hopper";
    case blackwell: return "Blackwell";
    case other: return "other";
  }
  return "other";
}

ChipGeneration chip_generation(const Chip& chip) {
  auto of = [](std::string_view name) {
    if (name.starts_with("A100")) return ampere;
    if (name.starts_with("H100") || name == "H200" || name == "H800") return hopper;
    if (name == "B200" || name == "B300" || name == "GB200" || name == "GB300") return blackwell;
    return other;
  };
  const ChipGeneration g = of(chip.name);
  return g != other || chip.device_memory_as.empty() ? g : of(chip.device_memory_as);
}

std::span<const TrackRecordSet> track_record_sets() { return kSets; }

std::span<const std::string_view> track_record_excluded_sets() { return kExcluded; }

double TrackRecord::low_mfu(double mfu) const { return mfu / (1.0 + p90_error); }
double TrackRecord::high_mfu(double mfu) const { return mfu / (1.0 + p10_error); }

std::string TrackRecord::text(double mfu) const {
  if (empty()) return {};
  return "published runs like it (" + scope + ": " + format_grouped(static_cast<double>(rows)) +
         " runs in " + std::to_string(sets.size()) + (sets.size() == 1 ? " table" : " tables") +
         ") measured " + format_percent(low_mfu(mfu), 1) + " – " +
         format_percent(high_mfu(mfu), 1) + " where Napkin predicts " + format_percent(mfu, 1) +
         " (10th–90th percentile; mean error " + format_percent(mean_abs_error, 1) + ", signed " +
         format_signed(mean_signed_error * 100.0, 1) + " %)";
}

TrackRecord training_track_record(std::string_view software_preset, const Chip& chip) {
  const FrameworkFamily family = framework_family(software_preset);
  const ChipGeneration generation = chip_generation(chip);
  auto sets_where = [](auto keep) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < kSets.size(); ++i)
      if (keep(kSets[i])) out.push_back(i);
    return out;
  };
  const std::string gpus =
      generation == other ? "" : " on " + std::string(to_string(generation)) + " GPUs";
  TrackRecord r = record_of(sets_where([&](const TrackRecordSet& s) {
                              return s.family == family && s.generation == generation;
                            }),
                            family_scope(family) + gpus);
  if (r.rows >= kTrackRecordMinRows) return r;
  const std::string why = generation == other
                              ? "no published run on " + std::string(chip.name) + "'s kind of chip"
                              : "fewer than " + std::to_string(kTrackRecordMinRows) +
                                    " published runs of " + family_scope(family) + gpus;
  r = record_of(sets_where([&](const TrackRecordSet& s) { return s.family == family; }),
                family_scope(family) + " on every GPU");
  if (r.rows < kTrackRecordMinRows && generation != other)
    r = record_of(sets_where([&](const TrackRecordSet& s) { return s.generation == generation; }),
                  "every framework" + gpus);
  if (r.rows < kTrackRecordMinRows)
    r = record_of(sets_where([](const TrackRecordSet&) { return true; }),
                  "every framework on every GPU");
  r.fallback = why;
  return r;
}

std::vector<TrackRecord> track_record_scopes() {
  std::vector<TrackRecord> out;
  for (FrameworkFamily f : {megatron, deepspeed, fsdp})
    for (ChipGeneration g : {ampere, hopper, blackwell}) {
      std::vector<std::size_t> sets;
      for (std::size_t i = 0; i < kSets.size(); ++i)
        if (kSets[i].family == f && kSets[i].generation == g) sets.push_back(i);
      TrackRecord r =
          record_of(sets, family_scope(f) + " on " + std::string(to_string(g)) + " GPUs");
      if (!r.empty()) out.push_back(std::move(r));
    }
  return out;
}

}  // namespace napkin
