#include "measured_runs.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "config_import.h"
#include "csv_ladder_detail.h"
#include "format.h"
#include "framework_text.h"
#include "hardware.h"
#include "read_file.h"

namespace napkin {

namespace {

using csv_detail::Record;
using csv_detail::Table;

// Header words: lower case, '#' dropped, a "(unit)" split off, spaces and
// dashes as underscores ("# GPUs" → "gpus", "iteration time (ms)" →
// "iteration_time" with unit "ms").
std::string canonical(std::string_view header, std::string* unit) {
  std::string h(header);
  unit->clear();
  const std::size_t open = h.find('(');
  if (open != std::string::npos && h.back() == ')') {
    *unit = h.substr(open + 1, h.size() - open - 2);
    h.resize(open);
  }
  std::string out;
  for (char c : h) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '#') continue;
    if (std::isalnum(u))
      out += static_cast<char>(std::tolower(u));
    else if (!out.empty() && out.back() != '_')
      out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  std::transform(unit->begin(), unit->end(), unit->begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

// Each role and the header words that name it.
const std::vector<std::pair<std::string, std::vector<std::string>>>& roles() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> r = {
      {"chip", {"chip", "gpu", "accelerator"}},
      {"chips", {"chips", "gpus", "num_gpus", "n_gpus", "world_size"}},
      {"layers", {"layers", "num_layers", "n_layers"}},
      {"d_model", {"d_model", "hidden_size", "hidden"}},
      {"heads", {"heads", "attention_heads", "num_attention_heads", "n_heads"}},
      {"d_ff", {"d_ff", "ffn_hidden_size", "intermediate_size"}},
      {"vocab", {"vocab", "vocab_size"}},
      {"seq", {"seq", "seq_len", "sequence_length", "seq_length"}},
      {"global_batch", {"global_batch", "global_batch_size"}},
      {"micro_batch", {"micro_batch", "micro_batch_size", "mb"}},
      {"tp", {"tp", "tensor_parallelism", "tensor_parallel", "tensor_model_parallel_size"}},
      {"pp", {"pp", "pipeline_parallelism", "pipeline_parallel", "pipeline_model_parallel_size"}},
      {"dp", {"dp", "data_parallelism", "data_parallel", "data_parallel_size"}},
      {"recompute", {"recompute", "recompute_granularity", "checkpointing"}},
      {"framework", {"framework", "software"}},
      {"kv_heads", {"kv_heads", "num_query_groups", "n_kv_heads"}},
      {"gated", {"gated", "swiglu"}},
      {"cp", {"cp", "context_parallel_size"}},
      {"ep", {"ep", "expert_model_parallel_size"}},
      {"etp", {"etp", "expert_tensor_parallel_size"}},
      {"vpp", {"vpp", "virtual_pipeline_model_parallel_size"}},
      {"zero", {"zero", "zero_stage"}},
      {"shard", {"shard", "zero_shard"}},
      {"sp", {"sp", "sequence_parallel"}},
      {"config", {"config"}},
      {"step_seconds", {"step_seconds", "step_s", "step_time", "iteration_time", "step"}},
      {"step_ms", {"step_ms", "iteration_time_ms"}},
      {"tflops_per_gpu", {"tflops_per_gpu", "tflops"}},
      {"tokens_per_second_per_chip", {"tokens_per_second_per_chip", "tps"}},
      {"peak_memory_bytes", {"peak_memory_bytes", "peak_memory"}},
      {"peak_memory_gb", {"peak_memory_gb"}},
      {"peak_memory_gib", {"peak_memory_gib"}},
  };
  return r;
}

const std::vector<std::string> kRequired = {
    "chip",         "chips", "layers", "d_model", "heads",       "vocab",     "seq",
    "global_batch", "tp",    "pp",     "dp",      "micro_batch", "recompute", "framework"};

struct Column {
  std::size_t index = 0;
  std::string header;
  double scale = 1;
};

double unit_scale(const std::string& unit, const std::string& role) {
  if (unit.empty()) return 1;
  if (unit == "ms") return 1e-3;
  if (unit == "s" || unit == "seconds" || unit == "bytes") return 1;
  if (unit == "gb") return 1e9;
  if (unit == "gib") return 1073741824.0;
  if (unit == "mb") return 1e6;
  if (unit == "mib") return 1048576.0;
  (void)role;
  return 1;
}

bool parse_number(std::string_view s, double* out) {
  s = csv_detail::trim(s);
  std::string clean;
  for (char c : s)
    if (c != ',' && c != '_') clean += c;
  const auto [p, ec] = std::from_chars(clean.data(), clean.data() + clean.size(), *out);
  return ec == std::errc() && p == clean.data() + clean.size() && std::isfinite(*out);
}

class RowReader {
 public:
  RowReader(const std::map<std::string, Column>& cols, const Record& rec,
            const RunDefaults& defaults)
      : cols_(cols), rec_(rec), defaults_(defaults) {}

  // The text of `role` (row, else default); nullopt when neither.
  std::optional<std::string> text(const std::string& role) const {
    const auto it = cols_.find(role);
    if (it != cols_.end() && it->second.index < rec_.fields.size()) {
      const std::string v(csv_detail::trim(rec_.fields[it->second.index].text));
      if (!v.empty()) return v;
    }
    const auto d = defaults_.find(role);
    if (d != defaults_.end()) return d->second;
    return std::nullopt;
  }
  std::string where(const std::string& role) const {
    const auto it = cols_.find(role);
    return it != cols_.end() ? "column \"" + it->second.header + "\"" : "default " + role;
  }
  double number(const std::string& role) const {
    const auto v = text(role);
    if (!v) throw std::invalid_argument("no value for " + role);
    double d = 0;
    if (!parse_number(*v, &d))
      throw std::invalid_argument(where(role) + ": not a number: " + csv_detail::shown(*v));
    const auto it = cols_.find(role);
    return d * (it != cols_.end() ? it->second.scale : 1.0);
  }
  std::int64_t whole(const std::string& role, std::int64_t lo, std::int64_t hi) const {
    const double d = number(role);
    if (d != std::floor(d) || d < static_cast<double>(lo) || d > static_cast<double>(hi))
      throw std::invalid_argument(where(role) + ": expected a whole number in [" +
                                  format_grouped(lo) + ", " + format_grouped(hi) + "], found " +
                                  csv_detail::shown(*text(role)));
    return static_cast<std::int64_t>(d);
  }
  std::int64_t whole_or(const std::string& role, std::int64_t fallback, std::int64_t lo,
                        std::int64_t hi) const {
    return text(role) ? whole(role, lo, hi) : fallback;
  }
  std::optional<double> positive(const std::string& role) const {
    if (!text(role)) return std::nullopt;
    const double d = number(role);
    if (d <= 0) throw std::invalid_argument(where(role) + ": must be > 0");
    return d;
  }
  bool flag(const std::string& role, bool fallback) const {
    auto v = text(role);
    if (!v) return fallback;
    std::string s = *v;
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    if (s == "true" || s == "1" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "0" || s == "no" || s == "off") return false;
    throw std::invalid_argument(where(role) + ": expected true or false, found " +
                                csv_detail::shown(*v));
  }

 private:
  const std::map<std::string, Column>& cols_;
  const Record& rec_;
  const RunDefaults& defaults_;
};

// --layout's recompute values (none, selective, selective:M1+M2, full,
// full:N), and true, false and off, in any case.
void parse_recompute(const std::string& v, const std::string& where, Layout& l) {
  std::string s = v;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  if (s == "true") s = "full";
  if (s == "false" || s == "off") s = "none";
  try {
    parse_recompute_text(s, l);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where + ": " + e.what());
  }
}

std::string folder_of(std::string_view source) {
  const std::size_t slash = source.find_last_of('/');
  return slash == std::string_view::npos ? "" : std::string(source.substr(0, slash + 1));
}

MeasuredRun run_from_row(const RowReader& r, std::string_view source) {
  MeasuredRun run;
  TrainingJob& job = run.job;
  if (auto cfg = r.text("config")) {
    const std::string path = (*cfg)[0] == '/' ? *cfg : folder_of(source) + *cfg;
    job.shape = import_hf_config_file(path).shape;
  } else {
    ModelShape& s = job.shape;
    s.n_layers = r.whole("layers", 1, 100'000);
    s.d_model = r.whole("d_model", 1, 1'000'000);
    s.n_heads = r.whole("heads", 1, 100'000);
    s.n_kv_heads = r.whole_or("kv_heads", s.n_heads, 1, s.n_heads);
    if (s.d_model % s.n_heads != 0)
      throw std::invalid_argument(r.where("d_model") + " is not a multiple of the heads");
    s.d_head = s.d_model / s.n_heads;
    s.gated = r.flag("gated", false);
    // Megatron-LM's default MLP width: 4h, or 4h·2/3 rounded down to 64 gated.
    s.d_ff = r.whole_or("d_ff", s.gated ? (4 * s.d_model * 2 / 3) / 64 * 64 : 4 * s.d_model, 1,
                        100'000'000);
    s.vocab = r.whole("vocab", 1, 100'000'000);
    s.tied_embeddings = true;  // Megatron-LM's default (no --untie-embeddings-and-output-weights)
  }
  job.chip = *r.text("chip");
  (void)chip_by_name(job.chip);
  job.n_chips = r.whole("chips", 1, 10'000'000);
  job.seq_len = r.whole("seq", 1, 100'000'000);
  job.global_batch = r.whole("global_batch", 1, 1'000'000'000);
  run.framework = *r.text("framework");
  job.software = software_by_name(software_for_framework(run.framework));
  Layout& l = run.layout;
  l.tp = r.whole("tp", 1, 1'000'000);
  l.pp = r.whole("pp", 1, 1'000'000);
  l.dp = r.whole("dp", 1, 10'000'000);
  l.cp = r.whole_or("cp", 1, 1, 1'000'000);
  l.ep = r.whole_or("ep", 1, 1, 1'000'000);
  l.etp = r.whole_or("etp", l.tp, 1, 1'000'000);
  if (l.etp == l.tp) l.etp = 0;
  l.vpp = r.whole_or("vpp", 1, 1, 1000);
  l.zero = static_cast<int>(r.whole_or("zero", 0, 0, 3));
  l.shard = r.whole_or("shard", 0, 1, 10'000'000);  // hybrid sharding's group; absent: all
  if (l.shard == l.dp * l.cp) l.shard = 0;
  l.micro_batch = r.whole("micro_batch", 1, 1'000'000);
  l.sequence_parallel = r.flag("sp", false);
  parse_recompute(*r.text("recompute"), r.where("recompute"), l);
  if (l.tp * l.pp * l.dp * l.cp != job.n_chips)
    throw std::invalid_argument("tp × pp × dp × cp = " + std::to_string(l.tp * l.pp * l.dp * l.cp) +
                                " is not the " + std::to_string(job.n_chips) + " chips");
  job.validate();
  if (auto why = layout_problem(job, l)) throw std::invalid_argument(*why);
  Measurement& m = run.measured;
  m.step_seconds = r.positive("step_seconds");
  if (!m.step_seconds) m.step_seconds = r.positive("step_ms");
  if (m.step_seconds && !r.text("step_seconds")) *m.step_seconds *= 1e-3;
  m.tflops_per_gpu = r.positive("tflops_per_gpu");
  m.tokens_per_second_per_chip = r.positive("tokens_per_second_per_chip");
  m.peak_memory_bytes = r.positive("peak_memory_bytes");
  if (auto gb = r.positive("peak_memory_gb")) m.peak_memory_bytes = *gb * 1e9;
  if (auto gib = r.positive("peak_memory_gib")) m.peak_memory_bytes = *gib * 1073741824.0;
  if (!m.any())
    throw std::invalid_argument(
        "no measurement (step_seconds, tflops_per_gpu, tokens_per_second_per_chip or "
        "peak_memory_bytes)");
  return run;
}

}  // namespace

std::string software_for_framework(std::string_view framework) {
  std::string f(framework);
  std::transform(f.begin(), f.end(), f.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const SoftwarePreset& p : software_presets())
    if (p.name == f) return f;
  if (f == "deepspeed") return "megatron-deepspeed";
  if (f == "torchtitan") return "fsdp";
  if (f == "megatron" || f == "megatron-lm" || f == "nemo") return "modern";
  std::string names;
  for (const SoftwarePreset& p : software_presets()) names += std::string(p.name) + ", ";
  throw std::invalid_argument("framework " + csv_detail::shown(framework) + " is not one of " +
                              names +
                              "megatron-deepspeed, deepspeed, megatron, megatron-lm, nemo, "
                              "torchtitan, fsdp");
}

MeasuredRuns read_runs_csv(std::string_view text, std::string_view source,
                           const RunDefaults& defaults) {
  const Table t = csv_detail::read_table(text, source, kMaxCsvBytes, true);
  MeasuredRuns out;
  out.source = std::string(source);
  std::map<std::string, Column> cols;
  std::vector<std::pair<std::string, std::string>> note_columns;  // index as text, header
  std::vector<bool> used(t.header.size(), false);
  for (std::size_t i = 0; i < t.header.size(); ++i) {
    std::string unit;
    const std::string c = canonical(t.header[i], &unit);
    for (const auto& [role, names] : roles()) {
      if (std::find(names.begin(), names.end(), c) == names.end()) continue;
      if (cols.count(role))
        csv_detail::fail(source, 1,
                         "columns " + csv_detail::shown(cols[role].header) + " and " +
                             csv_detail::shown(t.header[i]) + " both give " + role + "; keep one");
      cols[role] = Column{i, t.header[i], unit_scale(unit, role)};
      used[i] = true;
      break;
    }
  }
  for (const std::string& role : kRequired) {
    if (cols.count(role) || defaults.count(role)) continue;
    if (cols.count("config") &&
        (role == "layers" || role == "d_model" || role == "heads" || role == "vocab"))
      continue;
    csv_detail::fail(source, 1,
                     "no column for " + role + " (and no default given: --set " + role +
                         "=VALUE); the header has " + csv_detail::listed(t.header));
  }
  for (const auto& [role, value] : defaults) {
    if (cols.count(role)) continue;
    out.notes.push_back(role + " = " + value + " for every row (not a column of the file)");
  }
  if (!cols.count("d_ff") && !defaults.count("d_ff") && !cols.count("config"))
    out.notes.push_back(
        "d_ff: no column; Megatron-LM's default 4 × d_model (4h·2/3 rounded to 64 when gated)");
  if (!cols.count("gated") && !defaults.count("gated") && !cols.count("config"))
    out.notes.push_back("gated: no column; a plain two-matrix MLP (Megatron-LM's default)");
  const std::size_t n_fields = t.header.size();
  for (const Record& rec : t.records) {
    if (!rec.error.empty()) {
      out.skipped.push_back({rec.line, rec.error});
      continue;
    }
    if (rec.fields.size() != n_fields) {
      out.skipped.push_back({rec.line, "ragged row: " + std::to_string(rec.fields.size()) +
                                           " fields, the header has " + std::to_string(n_fields)});
      continue;
    }
    try {
      MeasuredRun run = run_from_row(RowReader(cols, rec, defaults), source);
      run.line = rec.line;
      run.label = "line " + std::to_string(rec.line);
      for (std::size_t i = 0; i < n_fields; ++i)
        if (!used[i]) run.notes.emplace_back(t.header[i], rec.fields[i].text);
      out.runs.push_back(std::move(run));
    } catch (const std::invalid_argument& e) {
      out.skipped.push_back({rec.line, e.what()});
    }
  }
  return out;
}

// ------------------------------------------------------------------- logs

namespace {

// The number after `key` on `line`, commas dropped ("tps: 1,234" → 1234).
std::optional<double> number_after(std::string_view line, std::string_view key) {
  const std::size_t at = line.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t i = at + key.size();
  while (i < line.size() && (line[i] == ' ' || line[i] == '=' || line[i] == ':')) ++i;
  std::string digits;
  while (i < line.size() && (std::isdigit(static_cast<unsigned char>(line[i])) || line[i] == '.' ||
                             line[i] == ',' || line[i] == 'e' || line[i] == 'E' ||
                             ((line[i] == '+' || line[i] == '-') && !digits.empty() &&
                              (digits.back() == 'e' || digits.back() == 'E'))))
    digits += line[i++];
  if (!digits.empty() && digits.back() == ',') digits.pop_back();
  double d = 0;
  if (!parse_number(digits, &d)) return std::nullopt;
  return d;
}

std::string strip_ansi(std::string_view l) {
  std::string out;
  for (std::size_t i = 0; i < l.size(); ++i) {
    if (l[i] == '\x1b') {
      while (i < l.size() && !std::isalpha(static_cast<unsigned char>(l[i]))) ++i;
      continue;
    }
    out += l[i];
  }
  return out;
}

// The median of the steady state: every value after the first (warm-up) one.
std::optional<double> steady(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  if (v.size() > 1) v.erase(v.begin());
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

MeasuredRuns read_training_log(std::string_view text, std::string_view source,
                               const RunDefaults& defaults,
                               const std::optional<TrainingConfig>& config) {
  MeasuredRuns out;
  out.source = std::string(source);
  std::vector<double> step_ms, tflops, mem_mb, tps, titan_mem_gib, ds_samples, ds_mem_gb;
  std::int64_t first = 0, n = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string line = strip_ansi(text.substr(start, end - start));
    start = end + 1;
    ++n;
    bool hit = false;
    if (line.find("elapsed time per iteration (ms)") != std::string::npos) {
      if (auto v = number_after(line, "elapsed time per iteration (ms)")) step_ms.push_back(*v);
      if (auto v = number_after(line, "(TFLOP/s/GPU)")) tflops.push_back(*v);
      hit = true;
    } else if (line.find("memory (MB)") != std::string::npos) {
      if (auto v = number_after(line, "max allocated")) mem_mb.push_back(*v);
    } else if (line.find("step:") != std::string::npos && line.find("tps:") != std::string::npos) {
      if (auto v = number_after(line, "tps:")) tps.push_back(*v);
      if (auto v = number_after(line, "tflops:")) tflops.push_back(*v);
      if (auto v = number_after(line, "memory:")) titan_mem_gib.push_back(*v);
      hit = true;
    } else if (line.find("CurrSamplesPerSec") != std::string::npos) {
      if (auto v = number_after(line, "CurrSamplesPerSec")) ds_samples.push_back(*v);
      if (auto v = number_after(line, "MaxMemAllocated")) ds_mem_gb.push_back(*v);
      hit = true;
    }
    if (hit && first == 0) first = n;
  }
  if (first == 0)
    throw std::invalid_argument(
        std::string(source) +
        ": no measurement line (Megatron-LM \"elapsed time per iteration (ms)\", torchtitan "
        "\"step: … tps: …\" or DeepSpeed \"CurrSamplesPerSec=…\")");
  TrainingConfig c;
  if (has_printed_arguments(text))
    c = import_training_config(text, source, TrainingFramework::megatron);
  else if (config)
    c = *config;
  else
    throw std::invalid_argument(std::string(source) +
                                ": the log does not print its arguments; give the run's config "
                                "with it (--config FILE)");
  if (!c.complete())
    throw std::invalid_argument(std::string(source) + ": the run's settings are incomplete (" +
                                c.missing.front() + "); give the run as a CSV row instead");
  const auto chip = defaults.find("chip");
  if (chip == defaults.end())
    throw std::invalid_argument(std::string(source) +
                                ": a log does not name the chip; give --set chip=NAME");
  MeasuredRun run;
  run.line = first;
  run.label = std::string(source.substr(source.find_last_of('/') + 1));
  run.job.shape = c.shape;
  run.job.chip = chip->second;
  (void)chip_by_name(run.job.chip);
  run.job.n_chips = *c.n_chips;
  run.job.seq_len = *c.seq_len;
  run.job.global_batch = *c.global_batch;
  const auto fw = defaults.find("framework");
  run.framework = fw != defaults.end() ? fw->second : std::string(to_string(c.framework));
  run.job.software = software_by_name(software_for_framework(run.framework));
  run.layout = c.layout;
  Measurement& m = run.measured;
  if (auto s = steady(step_ms)) m.step_seconds = *s * 1e-3;
  m.tflops_per_gpu = steady(tflops);
  if (auto v = steady(mem_mb)) m.peak_memory_bytes = *v * 1048576.0;  // Megatron's MB are MiB
  m.tokens_per_second_per_chip = steady(tps);
  if (auto v = steady(titan_mem_gib)) m.peak_memory_bytes = *v * 1073741824.0;
  if (auto v = steady(ds_samples))
    m.step_seconds = static_cast<double>(run.job.global_batch) / *v;  // samples/s of the whole job
  if (auto v = steady(ds_mem_gb)) m.peak_memory_bytes = *v * 1073741824.0;
  if (!m.step_seconds && m.tokens_per_second_per_chip)
    m.step_seconds = static_cast<double>(run.job.global_batch * run.job.seq_len) /
                     (*m.tokens_per_second_per_chip * static_cast<double>(run.job.n_chips));
  out.notes.push_back("each measurement is the median of the logged steps after the first");
  out.runs.push_back(std::move(run));
  return out;
}

MeasuredRuns load_runs_file(const std::string& path, const RunDefaults& defaults,
                            const std::optional<TrainingConfig>& config) {
  std::string text, error;
  if (!read_file_capped(path, kMaxCsvBytes, &text, &error)) throw std::invalid_argument(error);
  const bool csv = path.size() > 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
  if (csv) return read_runs_csv(text, path, defaults);
  return read_training_log(text, path, defaults, config);
}

}  // namespace napkin
