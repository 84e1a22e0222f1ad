#include "parallel_settings.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "validate.h"

namespace napkin {

std::string_view to_string(MfuSource s) {
  return s == MfuSource::predicted ? "predicted" : "assumed";
}

MfuSource parse_mfu_source(std::string_view text) {
  for (MfuSource m : {MfuSource::assumed, MfuSource::predicted})
    if (text == to_string(m)) return m;
  throw_out_of_range("mfu_source", "name", "assumed or predicted", text);
}

namespace {

// The ranges of a layout's axes, shared by the locks and the chosen layout.
constexpr std::int64_t kMaxTp = kLayoutLimits.tp;
constexpr std::int64_t kMaxPp = kLayoutLimits.pp;
constexpr std::int64_t kMaxVpp = kLayoutLimits.vpp;
constexpr std::int64_t kMaxCp = kLayoutLimits.cp;
constexpr std::int64_t kMaxEp = kLayoutLimits.ep;
constexpr std::int64_t kMaxMicroBatch = kLayoutLimits.micro_batch;
constexpr std::int64_t kMaxRecomputeLayers = kLayoutLimits.recompute_layers;

void require_lock(const std::optional<std::int64_t>& v, std::string_view name,
                  std::string_view unit, std::int64_t hi) {
  if (v) require_count(*v, name, unit, 1, hi);
}

}  // namespace

void ParallelSettings::validate() const {
  require_count(global_batch_tokens, "global_batch_tokens", "tokens per step",
                1);  // range: inputs.cpp
  (void)software_by_name(software);
  if (!cluster.empty() && cluster != "custom") (void)cluster_by_name(cluster);
  require_count(gpus_per_node, "gpus_per_node", "GPUs", 1, 100'000);  // ranges: inputs.cpp
  require_real(scale_up_gb_per_s, "scale_up_gb_per_s", "GB/s", 0.1, 100'000);
  require_real(scale_out_gb_per_s, "scale_out_gb_per_s", "GB/s", 0.1, 100'000);
  require_real(non_tensor_gb, "non_tensor_gb", "GB per GPU", 0, 1'000);
  require_lock(tp, "tp", "tensor-parallel ranks", kMaxTp);
  require_lock(pp, "pp", "pipeline stages", kMaxPp);
  require_lock(vpp, "vpp", "model chunks per pipeline rank", kMaxVpp);
  require_lock(cp, "cp", "context-parallel ranks", kMaxCp);
  require_lock(ep, "ep", "expert-parallel ranks", kMaxEp);
  require_lock(etp, "etp", "expert tensor-parallel ranks", kMaxTp);
  require_lock(micro_batch, "micro_batch", "sequences per micro-batch", kMaxMicroBatch);
  if (zero) require_count(*zero, "zero", "ZeRO stage", 0, 3);
  if (shard)
    require_count(*shard, "shard", "ranks in ZeRO's group (0: all DP × CP ranks)", 0,
                  kLayoutLimits.dp);
  // What lock_recompute sets, for a document written by hand.
  const bool full = recompute == Checkpointing::full;
  require_count(recompute_layers, "recompute_layers",
                "layers of each chunk (full:N; 0: every layer)", 0, full ? kMaxRecomputeLayers : 0);
  require_count(recompute_group, "recompute_group", "layers to a checkpoint (uniform:N)", 1,
                full && recompute_layers == 0 ? kMaxRecomputeLayers : 1);
  if (recompute_modules != 0) {
    if (recompute != Checkpointing::selective)
      throw std::invalid_argument(
          "recompute_modules: modules are named only with a selective "
          "recompute lock; got \"" +
          recompute_modules_text(recompute_modules) + "\"");
    if (parse_recompute_modules(recompute_modules_text(recompute_modules)) != recompute_modules)
      throw std::invalid_argument("recompute_modules: unknown module bits " +
                                  std::to_string(recompute_modules));
  }
  if (chosen) {
    const Layout& l = *chosen;
    require_count(l.tp, "chosen.tp", "tensor-parallel ranks", 1, kMaxTp);
    require_count(l.pp, "chosen.pp", "pipeline stages", 1, kMaxPp);
    require_count(l.vpp, "chosen.vpp", "model chunks per pipeline rank", 1, kMaxVpp);
    require_count(l.dp, "chosen.dp", "data-parallel replicas", 1, kLayoutLimits.dp);
    require_count(l.cp, "chosen.cp", "context-parallel ranks", 1, kMaxCp);
    require_count(l.ep, "chosen.ep", "expert-parallel ranks", 1, kMaxEp);
    require_count(l.etp, "chosen.etp", "expert tensor-parallel ranks (0 = tp)", 0, kMaxTp);
    require_count(l.zero, "chosen.zero", "ZeRO stage", 0, 3);
    require_count(l.shard, "chosen.shard", "ranks in ZeRO's group (0: all DP × CP ranks)", 0,
                  kLayoutLimits.dp);
    require_count(l.micro_batch, "chosen.micro_batch", "sequences per micro-batch", 1,
                  kMaxMicroBatch);
    (void)l.chips();  // throws on overflow
  }
}

SearchOptions ParallelSettings::search_options() const {
  SearchOptions o;
  o.tp = tp;
  o.pp = pp;
  o.vpp = vpp;
  o.cp = cp;
  o.ep = ep;
  o.etp = etp;
  o.micro_batch = micro_batch;
  o.zero = zero;
  o.shard = shard;
  o.recompute = recompute;
  o.recompute_layers = recompute_layers;
  o.recompute_group = recompute_group;
  o.recompute_modules = recompute_modules;
  o.even_stages = even_stages;
  o.tp_within_node = tp_within_node;
  return o;
}

std::string ParallelSettings::recompute_lock_text() const {
  if (!recompute) return {};
  Layout l;
  l.recompute = *recompute;
  l.recompute_layers = recompute_layers;
  l.recompute_group = recompute_group;
  l.recompute_modules = recompute_modules;
  return recompute_text(l);
}

std::string ParallelSettings::locks_text() const {
  std::string s;
  const auto add = [&s](std::string_view key, const std::string& value) {
    if (!s.empty()) s += ',';
    s.append(key).append("=").append(value);
  };
  const auto add_count = [&add](std::string_view key, std::optional<std::int64_t> v) {
    if (v) add(key, std::to_string(*v));
  };
  add_count("tp", tp);
  add_count("pp", pp);
  add_count("vpp", vpp);
  add_count("cp", cp);
  add_count("ep", ep);
  add_count("etp", etp);
  add_count("zero", zero);
  add_count("shard", shard);
  add_count("mb", micro_batch);
  if (recompute) add("recompute", recompute_lock_text());
  return s;
}

void ParallelSettings::lock_recompute(std::string_view text) {
  if (text.empty() || text == "auto") {
    recompute.reset();
    recompute_layers = 0;
    recompute_group = 1;
    recompute_modules = 0;
    return;
  }
  Layout l;
  parse_recompute_text(text, l);
  recompute = l.recompute;
  recompute_layers = l.recompute_layers;
  recompute_group = l.recompute_group;
  recompute_modules = l.recompute_modules;
}

std::optional<Network> ParallelSettings::network(const Chip& chip) const {
  if (cluster.empty()) return std::nullopt;
  if (cluster != "custom") return cluster_by_name(cluster).network;
  return custom_network(gpus_per_node, scale_up_gb_per_s, scale_out_gb_per_s, chip.network);
}

void ParallelSettings::choose_cluster(const std::string& name, const Chip& chip) {
  if (name == "custom" && cluster != "custom") {
    const Network n = network_in_use(chip);
    gpus_per_node = n.chips_per_node;
    scale_up_gb_per_s = n.intra_node_bytes_per_s / 1e9;
    scale_out_gb_per_s = n.inter_node_bytes_per_s / 1e9;
  }
  cluster = name;
}

std::string ParallelSettings::cluster_text(const Chip& chip) const {
  const Network n = network_in_use(chip);
  auto gb = [](double bytes_per_s) {
    std::string t = std::to_string(bytes_per_s / 1e9);
    t.erase(t.find_last_not_of('0') + 1);
    if (t.back() == '.') t.pop_back();
    return t;
  };
  const DomainNames names = domain_names(chip);
  const std::string numbers = std::to_string(n.chips_per_node) + " " +
                              std::string(names.per_domain) + ", " + gb(n.intra_node_bytes_per_s) +
                              " / " + gb(n.inter_node_bytes_per_s) + " GB/s per " +
                              std::string(names.member) +
                              (n.full_mesh ? " (a full mesh: a group of r GPUs in a node uses "
                                             "the r - 1 links between them)"
                                           : "");
  std::string profile;
  if (calibrated) {
    profile = "; calibrated on " + std::to_string(calibrated->runs) + " runs";
    if (!calibrated->framework.empty()) profile += " under " + calibrated->framework;
    if (const std::string w = calibration_warning(); !w.empty()) profile += " (" + w + ")";
  }
  if (cluster.empty())
    return std::string(chip.name) + "'s usual " + std::string(names.system) + ": " + numbers +
           profile;
  return (cluster == "custom" ? std::string("custom") : cluster) + ": " + numbers + profile;
}

std::string calibration_warning(const CalibratedConstants& k, std::string_view software) {
  if (k.software.empty() || k.software == software) return {};
  return "fitted under " + (k.framework.empty() ? std::string() : k.framework + ", ") +
         "software " + k.software + ", used with software " + std::string(software) +
         ": its host time and efficiencies may not carry over; calibrate on runs of this software";
}

std::string ParallelSettings::calibration_warning() const {
  return calibrated ? napkin::calibration_warning(*calibrated, software) : std::string();
}

}  // namespace napkin
