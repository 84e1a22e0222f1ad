#include "hardware_json.h"

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "read_file.h"
#include "validate.h"

namespace napkin {

namespace {

constexpr std::int64_t kMaxHardwareFileBytes = 64 * 1024;
constexpr std::size_t kMaxHardwareFiles = 256;

[[noreturn]] void bad(const std::string& what, const std::string& key, const std::string& why) {
  throw std::invalid_argument(what + ": key \"" + key + "\": " + why);
}

QJsonObject object_of(const std::string& text, const std::string& what) {
  QJsonParseError err{};
  const QJsonDocument doc =
      QJsonDocument::fromJson(QByteArray(text.data(), static_cast<qsizetype>(text.size())), &err);
  if (err.error != QJsonParseError::NoError || !doc.isObject())
    throw std::invalid_argument(what + ": not a JSON object (" + err.errorString().toStdString() +
                                " at offset " + std::to_string(err.offset) + ")");
  return doc.object();
}

void known_keys(const QJsonObject& o, const std::string& what,
                const std::vector<std::string>& keys) {
  for (auto it = o.begin(); it != o.end(); ++it) {
    const std::string k = it.key().toStdString();
    if (std::find(keys.begin(), keys.end(), k) != keys.end()) continue;
    std::string list;
    for (const std::string& n : keys) list += (list.empty() ? "\"" : ", \"") + n + "\"";
    bad(what, k, "unknown key (keys: " + list + ")");
  }
}

std::string name_of(const QJsonObject& o, const std::string& what) {
  const QJsonValue v = o.value(QLatin1String("name"));
  if (!v.isString() || v.toString().trimmed().isEmpty() || v.toString().size() > 64)
    bad(what, "name", "expected a name of 1 to 64 characters");
  return v.toString().trimmed().toStdString();
}

// A value with its provenance: {"value": x, "kind": ..., "source": ...}.
struct Marked {
  double value = 0;
  std::string note;  // "989 TFLOP/s (datasheet: NVIDIA ...)"
};

// "scale_up_topology": "switch" or "full_mesh" (Network::full_mesh); absent:
// nullopt.
std::optional<bool> full_mesh_of(const QJsonObject& o, const std::string& what) {
  const QJsonValue v = o.value(QLatin1String("scale_up_topology"));
  if (v.isUndefined()) return std::nullopt;
  const QString t = v.toString();
  if (t == QLatin1String("switch")) return false;
  if (t == QLatin1String("full_mesh")) return true;
  bad(what, "scale_up_topology", "expected \"switch\" or \"full_mesh\"");
}

std::optional<Marked> marked(const QJsonObject& o, const char* key, const std::string& what,
                             double lo, double hi, const char* unit, bool required) {
  const QJsonValue v = o.value(QLatin1String(key));
  if (v.isUndefined()) {
    if (required) bad(what, key, std::string("is required (") + unit + ")");
    return std::nullopt;
  }
  const QJsonObject m = v.toObject();
  if (!v.isObject())
    bad(what, key,
        "expected {\"value\": number, \"kind\": \"datasheet\" | \"measured\" | \"calibrated\", "
        "\"source\": where it comes from}");
  known_keys(m, what + ": key \"" + key + "\"", {"value", "kind", "source"});
  const QJsonValue x = m.value(QLatin1String("value"));
  const double value = x.toDouble(std::nan(""));
  if (!x.isDouble() || !std::isfinite(value) || value < lo || value > hi)
    bad(what, std::string(key) + ".value",
        "expected a number in [" + format_value(lo) + ", " + format_value(hi) + "] " + unit);
  const std::string kind = m.value(QLatin1String("kind")).toString().toStdString();
  if (kind != "datasheet" && kind != "measured" && kind != "calibrated")
    bad(what, std::string(key) + ".kind", "expected \"datasheet\", \"measured\" or \"calibrated\"");
  const QJsonValue s = m.value(QLatin1String("source"));
  if (!s.isString() || s.toString().trimmed().isEmpty() || s.toString().size() > 500)
    bad(what, std::string(key) + ".source",
        "expected where the value comes from (1 to 500 characters)");
  return Marked{value, std::string(key) + " " + format_value(value) + " " + unit + " (" + kind +
                           ": " + s.toString().trimmed().toStdString() + ")"};
}

}  // namespace

Chip ChipFile::chip() const {
  Chip c = row;
  c.name = name;
  c.source = source;
  c.network.source = network_source;
  c.efficiency.source = efficiency_source;
  return c;
}

ClusterPreset ClusterPresetFile::preset() const {
  ClusterPreset p = row;
  p.name = name;
  p.description = description;
  p.network.source = source;
  return p;
}

ChipFile parse_chip_json(const std::string& text, const std::string& what) {
  const QJsonObject o = object_of(text, what);
  known_keys(
      o, what,
      {"name", "like", "peak_tflops", "fp8_peak_tflops", "fp4_peak_tflops", "hbm_gb",
       "hbm_gb_per_s", "watts", "gpus_per_node", "scale_up_gb_per_s", "scale_out_gb_per_s",
       "matmul_efficiency", "hbm_efficiency", "link_efficiency", "attention_efficiency",
       "attention_fa2_efficiency", "compute_units", "scale_up_topology", "power_limit_watts"});
  ChipFile f;
  f.name = name_of(o, what);
  Chip like{};
  bool has_like = false;
  if (o.contains(QLatin1String("like"))) {
    const std::string l = o.value(QLatin1String("like")).toString().toStdString();
    try {
      like = chip_by_name(l);
    } catch (const std::invalid_argument& e) {
      bad(what, "like", e.what());
    }
    has_like = true;
  }
  f.row = like;
  if (o.contains(QLatin1String("power_limit_watts")) && !has_like)
    bad(what, "power_limit_watts", "needs \"like\": the chip whose peaks the limit lowers");
  std::vector<std::string> notes, net_notes, eff_notes;
  auto take = [&](const char* key, double lo, double hi, const char* unit, bool required,
                  std::vector<std::string>& into) -> std::optional<double> {
    const std::optional<Marked> m = marked(o, key, what, lo, hi, unit, required && !has_like);
    if (!m) return std::nullopt;
    into.push_back(m->note);
    return m->value;
  };
  if (auto v = take("peak_tflops", 1e-3, 1e6, "TFLOP/s", true, notes))
    f.row.peak_flops_per_s = *v * 1e12;
  if (auto v = take("fp8_peak_tflops", 0, 1e6, "TFLOP/s", false, notes))
    f.row.fp8_peak_flops_per_s = *v * 1e12;
  if (auto v = take("fp4_peak_tflops", 0, 1e6, "TFLOP/s", false, notes))
    f.row.fp4_peak_flops_per_s = *v * 1e12;
  if (auto v = take("hbm_gb", 1e-3, 1e6, "GB", true, notes))
    f.row.hbm_bytes = static_cast<std::int64_t>(std::llround(*v * 1e9));
  else if (has_like)  // the like chip's memory, and what CUDA reports of it
    f.row.device_memory_as = like.device_memory_as.empty() ? like.name : like.device_memory_as;
  if (auto v = take("hbm_gb_per_s", 1e-3, 1e7, "GB/s", true, notes))
    f.row.hbm_bytes_per_s = *v * 1e9;
  if (auto v = take("watts", 1, 1e6, "W", true, notes)) f.row.watts = *v;
  // A power limit below the like chip's: its peaks by the datasheets' power
  // law (power_limited_share), its power the limit.
  if (o.contains(QLatin1String("power_limit_watts"))) {
    for (const char* k : {"peak_tflops", "fp8_peak_tflops", "fp4_peak_tflops", "watts"})
      if (o.contains(QLatin1String(k)))
        bad(what, "power_limit_watts",
            std::string("sets the peaks and the power; give it or \"") + k + "\", not both");
    const std::optional<double> limit = take("power_limit_watts", 1, 1e6, "W", false, notes);
    double share = 1;
    try {
      share = power_limited_share(like, *limit);
    } catch (const std::invalid_argument& e) {
      std::string why = e.what();
      const std::string prefix = "power_limit_watts: ";
      if (why.rfind(prefix, 0) == 0) why.erase(0, prefix.size());
      bad(what, "power_limit_watts.value", why);
    }
    f.row.peak_flops_per_s = like.peak_flops_per_s * share;
    f.row.fp8_peak_flops_per_s = like.fp8_peak_flops_per_s * share;
    f.row.fp4_peak_flops_per_s = like.fp4_peak_flops_per_s * share;
    f.row.watts = *limit;
    notes.push_back("peaks x " + format_value(std::round(share * 1000) / 1000) + " of " +
                    std::string(like.name) + "'s by " + std::string(power_law_of(like)->source));
  }
  if (auto v = take("compute_units", 0, 1e6, "units", false, notes)) {
    if (*v != std::floor(*v)) bad(what, "compute_units.value", "expected a whole number");
    f.row.compute_units = static_cast<std::int64_t>(*v);
  }
  if (auto v = take("gpus_per_node", 1, 100'000, "GPUs", true, net_notes)) {
    if (*v != std::floor(*v)) bad(what, "gpus_per_node.value", "expected a whole number");
    f.row.network.chips_per_node = static_cast<std::int64_t>(*v);
  }
  if (auto v = take("scale_up_gb_per_s", 0.1, 100'000, "GB/s", true, net_notes))
    f.row.network.intra_node_bytes_per_s = *v * 1e9;
  if (auto v = take("scale_out_gb_per_s", 0.1, 100'000, "GB/s", true, net_notes))
    f.row.network.inter_node_bytes_per_s = *v * 1e9;
  if (const std::optional<bool> mesh = full_mesh_of(o, what)) {
    f.row.network.full_mesh = *mesh;
    net_notes.push_back(*mesh ? "a full mesh in the node" : "a switch in the node");
  }
  if (auto v = take("matmul_efficiency", 0.01, 1, "of peak", false, eff_notes))
    f.row.efficiency.matmul = *v;
  if (auto v = take("hbm_efficiency", 0.01, 1, "of HBM bandwidth", false, eff_notes))
    f.row.efficiency.hbm = *v;
  if (auto v = take("link_efficiency", 0.01, 1, "of link bandwidth", false, eff_notes))
    f.row.efficiency.link = *v;
  if (auto v = take("attention_efficiency", 0.01, 1, "of peak", false, eff_notes)) {
    f.row.efficiency.attention = *v;
    f.row.efficiency.attention_fa2 = 0;  // the measured figure, not the like chip's FA-2 one
  }
  if (auto v = take("attention_fa2_efficiency", 0.01, 1, "of peak", false, eff_notes))
    f.row.efficiency.attention_fa2 = *v;
  auto joined = [](const std::vector<std::string>& v) {
    std::string out;
    for (const std::string& s : v) out += (out.empty() ? "" : "; ") + s;
    return out;
  };
  const std::string from = has_like ? "; the rest as " + std::string(like.name) : std::string();
  f.source = "user chip " + what + ": " + joined(notes) + from;
  f.network_source = net_notes.empty() ? std::string(like.network.source)
                                       : "user chip " + what + ": " + joined(net_notes) + from;
  f.efficiency_source =
      eff_notes.empty() ? (has_like ? std::string(like.efficiency.source)
                                    : std::string("default efficiencies (hardware.h Efficiency)"))
                        : "user chip " + what + ": " + joined(eff_notes) + from;
  return f;
}

ClusterPresetFile parse_cluster_preset_json(const std::string& text, const std::string& what) {
  const QJsonObject o = object_of(text, what);
  known_keys(o, what,
             {"name", "gpus_per_node", "scale_up_gb_per_s", "scale_out_gb_per_s",
              "scale_up_latency_us", "scale_out_latency_us", "scale_up_topology"});
  ClusterPresetFile f;
  f.name = name_of(o, what);
  // Latencies not given: a DGX H100's (hardware.h), said in the source.
  f.row.network = cluster_by_name("dgx-h100").network;
  std::vector<std::string> notes;
  auto take = [&](const char* key, double lo, double hi, const char* unit,
                  bool required) -> std::optional<double> {
    const std::optional<Marked> m = marked(o, key, what, lo, hi, unit, required);
    if (!m) return std::nullopt;
    notes.push_back(m->note);
    return m->value;
  };
  Network& n = f.row.network;
  const double gpus = *take("gpus_per_node", 1, 100'000, "GPUs", true);
  if (gpus != std::floor(gpus)) bad(what, "gpus_per_node.value", "expected a whole number");
  n.chips_per_node = static_cast<std::int64_t>(gpus);
  n.intra_node_bytes_per_s = *take("scale_up_gb_per_s", 0.1, 100'000, "GB/s", true) * 1e9;
  n.inter_node_bytes_per_s = *take("scale_out_gb_per_s", 0.1, 100'000, "GB/s", true) * 1e9;
  if (const std::optional<bool> mesh = full_mesh_of(o, what)) {
    n.full_mesh = *mesh;
    notes.push_back(*mesh ? "a full mesh in the node" : "a switch in the node");
  }
  bool default_latency = false;
  if (auto v = take("scale_up_latency_us", 0, 10'000, "µs", false))
    n.intra_node_latency_seconds = *v * 1e-6;
  else
    default_latency = true;
  if (auto v = take("scale_out_latency_us", 0, 10'000, "µs", false))
    n.inter_node_latency_seconds = *v * 1e-6;
  else
    default_latency = true;
  for (const std::string& s : notes) f.source += (f.source.empty() ? "" : "; ") + s;
  f.source = "user cluster " + what + ": " + f.source +
             (default_latency ? "; latencies not given: a DGX H100's" : "");
  f.description = "user cluster (" + what + ")";
  return f;
}

ChipFile read_chip_file(const std::string& path) {
  std::string text, error;
  if (!read_file_capped(path, kMaxHardwareFileBytes, &text, &error))
    throw std::invalid_argument(error);
  return parse_chip_json(text, path);
}

const Chip& register_chip_file(const std::string& path) {
  const ChipFile f = read_chip_file(path);
  try {
    return add_user_chip(f.chip());
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(path + ": key \"name\": " + e.what());
  }
}

std::string user_data_folder() {
  if (const char* d = std::getenv("NAPKIN_DATA_DIR"); d && *d) return d;
  std::string base;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x == '/')
    base = x;
  else if (const char* h = std::getenv("HOME"); h && *h)
    base = std::string(h) + "/.local/share";
  return base.empty() ? std::string() : base + "/Napkin/Napkin";
}

UserHardware load_user_hardware(const std::string& folder) {
  UserHardware out;
  if (folder.empty()) return out;
  namespace fs = std::filesystem;
  auto files = [&](const char* sub) {
    std::vector<fs::path> paths;
    std::error_code ec;
    const fs::path dir = fs::path(folder) / sub;
    if (!fs::is_directory(dir, ec)) return paths;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() != ".json") continue;
      if (paths.size() == kMaxHardwareFiles) {
        out.refused.push_back(dir.string() + ": more than " + std::to_string(kMaxHardwareFiles) +
                              " files; the rest are not read");
        break;
      }
      paths.push_back(it->path());
    }
    std::sort(paths.begin(), paths.end());
    return paths;
  };
  // Messages of the parse name the file; a taken name is said with it here.
  for (const fs::path& p : files("chips")) {
    try {
      out.chips.push_back(std::string(register_chip_file(p.string()).name));
    } catch (const std::invalid_argument& e) {
      out.refused.push_back(e.what());
    }
  }
  for (const fs::path& p : files("clusters")) {
    try {
      std::string text, error;
      if (!read_file_capped(p.string(), kMaxHardwareFileBytes, &text, &error))
        throw std::invalid_argument(error);
      const ClusterPresetFile f = parse_cluster_preset_json(text, p.string());
      try {
        out.clusters.push_back(std::string(add_user_cluster(f.preset()).name));
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(p.string() + ": key \"name\": " + e.what());
      }
    } catch (const std::invalid_argument& e) {
      out.refused.push_back(e.what());
    }
  }
  return out;
}

}  // namespace napkin
