#include "scenario_json.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <set>
#include <span>
#include <stdexcept>
#include <vector>

#include "atomic_writer.h"
#include "json_strict.h"
#include "read_file.h"
#include "scenario_json_detail.h"
#include "validate.h"

namespace napkin {

using json_detail::q;
using json_detail::Reader;
using json_detail::settings_from_json;
using json_detail::settings_to_json;

namespace {

constexpr qint64 kMaxScenarioBytes = 16 * 1024 * 1024;

// Puts `value` at `path` under `o`, making the objects on the way.
void insert_at(QJsonObject& o, std::span<const std::string> path, const QJsonValue& value) {
  const QString key = q(path.front());
  if (path.size() == 1) {
    o.insert(key, value);
    return;
  }
  QJsonObject inner = o.value(key).toObject();
  insert_at(inner, path.subspan(1), value);
  o.insert(key, inner);
}

// The path of a registered input or choice: its section's objects
// ("roofline.serving_layout"), then its key.
std::vector<std::string> document_path(std::string_view section, std::string_view json_key) {
  std::vector<std::string> path;
  for (std::string_view rest = section; !rest.empty();) {
    const std::size_t dot = rest.find('.');
    path.emplace_back(rest.substr(0, dot));
    rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
  }
  path.emplace_back(json_key);
  return path;
}

// Every registered input (inputs.h), choice (choices.h) and switch
// (switches.h) at its place in
// the document: inside its section's objects under its JSON key, a count as
// a JSON integer, an input or a choice left unset as null, a choice as its
// option's name. The registries are the one description of these keys; the writers
// below add what they do not hold (switches, locks, ladders, other choices).
void inputs_to_json(const Scenario& s, QJsonObject& doc) {
  for (const ScenarioChoice& c : scenario_choices()) {
    const std::string name = c.get(s);
    insert_at(doc, document_path(c.section, c.json_key),
              name.empty() && !c.unset_label.empty() ? QJsonValue() : QJsonValue(q(name)));
  }
  for (const ScenarioSwitch& w : scenario_switches()) {
    const bool on = w.get(s);
    insert_at(doc, document_path(w.section, w.json_key),
              w.json_on.empty() ? QJsonValue(on) : QJsonValue(q(on ? w.json_on : w.json_off)));
  }
  for (const ScenarioInput& in : scenario_inputs()) {
    const std::vector<std::string> path = document_path(in.section, in.json_key);
    const double v = in.get(s);
    const QJsonValue value = in.is_set && !in.is_set(s) ? QJsonValue()
                             : in.type == InputType::count
                                 ? QJsonValue(static_cast<qint64>(std::llround(v)))
                                 : QJsonValue(v);
    insert_at(doc, path, value);
  }
}

// The shape's biases and the fields of modern checkpoints; its sizes and its
// gated and tied switches are registered.
QJsonObject shape_to_json(const ModelShape& m) {
  QJsonObject o{{QStringLiteral("qkv_bias"), m.qkv_bias},
                {QStringLiteral("o_bias"), m.o_bias},
                {QStringLiteral("mlp_bias"), m.mlp_bias}};
  {  // modern checkpoints' fields (version 2)
    o[QStringLiteral("q_lora_rank")] = static_cast<qint64>(m.q_lora_rank);
    o[QStringLiteral("kv_lora_rank")] = static_cast<qint64>(m.kv_lora_rank);
    o[QStringLiteral("qk_nope_head_dim")] = static_cast<qint64>(m.qk_nope_head_dim);
    o[QStringLiteral("qk_rope_head_dim")] = static_cast<qint64>(m.qk_rope_head_dim);
    o[QStringLiteral("v_head_dim")] = static_cast<qint64>(m.v_head_dim);
    o[QStringLiteral("shared_expert_d_ff")] = static_cast<qint64>(m.shared_expert_d_ff);
    o[QStringLiteral("shared_expert_gate")] = m.shared_expert_gate;
    o[QStringLiteral("router_bias")] = m.router_bias;
    o[QStringLiteral("qk_norm")] = q(to_string(m.qk_norm));
    o[QStringLiteral("norms_per_layer")] = static_cast<qint64>(m.norms_per_layer);
    o[QStringLiteral("norm_bias")] = m.norm_bias;
    o[QStringLiteral("parallel_blocks")] = m.parallel_blocks;
    o[QStringLiteral("mtp_modules")] = static_cast<qint64>(m.mtp_modules);
  }
  return o;
}

// Arrays holding only numbers (a ladder's [N, D, loss, budget] rows) on one
// line each: Qt's indented writer puts every number on its own line, which
// makes an embedded ladder a thousand lines long. Strings are skipped intact.
std::string compact_number_arrays(const QByteArray& json) {
  std::string out;
  out.reserve(static_cast<std::size_t>(json.size()));
  const qsizetype n = json.size();
  bool in_string = false;
  for (qsizetype i = 0; i < n; ++i) {
    const char c = json[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < n)
        out += json[++i];
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c != '[') {
      out += c;
      continue;
    }
    qsizetype j = i + 1;
    while (j < n && json[j] != ']' && json[j] != '[' && json[j] != '{' && json[j] != '"') ++j;
    if (j >= n || json[j] != ']') {
      out += c;
      continue;
    }
    std::string items = "[";
    bool space = false;
    for (qsizetype k = i + 1; k < j; ++k) {
      const char d = json[k];
      if (d == ' ' || d == '\n' || d == '\r' || d == '\t') {
        space = true;
        continue;
      }
      if (space && items.size() > 1 && items.back() == ',') items += ' ';
      space = false;
      items += d;
    }
    out += items + "]";
    i = j;
  }
  return out;
}

}  // namespace

std::string scenario_to_json(const Scenario& s) {
  QJsonObject hardware{{QStringLiteral("chip"), q(s.chip)}};
  QJsonObject model = shape_to_json(s.shape);
  model[QStringLiteral("name")] = q(s.model_name);
  const TrainingSetup& t = s.training;
  QJsonObject training{{QStringLiteral("zero_stage"), t.zero_stage}};
  const ServingSetup& v = s.serving;
  QJsonObject serving{{QStringLiteral("limit_model"), v.limit_model},
                      {QStringLiteral("chip"), q(v.chip)}};
  const RangeSetup& rs = s.ranges;
  auto spread = [](const std::optional<Spread>& sp) {
    return sp ? QJsonValue(QJsonObject{{QStringLiteral("low"), sp->low},
                                       {QStringLiteral("high"), sp->high}})
              : QJsonValue();
  };
  QJsonObject ranges{
      {QStringLiteral("seed"), static_cast<qint64>(rs.seed)},
      {QStringLiteral("mfu"), spread(rs.mfu)},
      {QStringLiteral("interruptions_per_1000_chip_days"),
       spread(rs.interruptions_per_1000_chip_days)},
      {QStringLiteral("restart_minutes"), spread(rs.restart_minutes)},
      {QStringLiteral("price_per_chip_hour_dollars"), spread(rs.price_per_chip_hour_dollars)},
      {QStringLiteral("tokens_available"), spread(rs.tokens_available)}};
  // The plan's and goodput's fields are all registered: inputs_to_json
  // writes their objects.
  QJsonObject doc{{QStringLiteral("format"), QStringLiteral("napkin-scenario")},
                  {QStringLiteral("version"), kScenarioFormatVersion},
                  {QStringLiteral("hardware"), hardware},
                  {QStringLiteral("model"), model},
                  {QStringLiteral("training"), training},
                  {QStringLiteral("serving"), serving},
                  {QStringLiteral("ranges"), ranges}};
  settings_to_json(s, doc);
  inputs_to_json(s, doc);
  for (const ForeignField& f : s.foreign_fields) {
    // Read back from the compact text written when the file was opened.
    const QJsonDocument wrapped =
        QJsonDocument::fromJson(QByteArray::fromStdString("[" + f.json + "]"));
    if (!f.path.empty() && wrapped.isArray()) insert_at(doc, f.path, wrapped.array().at(0));
  }
  return compact_number_arrays(QJsonDocument(doc).toJson(QJsonDocument::Indented));
}

namespace {

// The document's top level after checking that it is JSON, a Napkin scenario
// and of a version this build reads.
QJsonObject parse_document(std::string_view json, std::string_view source) {
  if (static_cast<qint64>(json.size()) > kMaxScenarioBytes)
    throw std::invalid_argument(std::string(source) + ": larger than 16 MiB; not a scenario");
  // An empty or binary file is not a cut-off scenario: say what it is.
  if (json.find_first_not_of(" \t\r\n") == std::string_view::npos)
    throw std::invalid_argument(std::string(source) + ": the file is empty; not a scenario");
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(json[i]); };
  if (json.size() >= 2 && ((byte(0) == 0xFF && byte(1) == 0xFE) ||
                           (byte(0) == 0xFE && byte(1) == 0xFF) || byte(0) == 0 || byte(1) == 0))
    throw std::invalid_argument(std::string(source) +
                                ": UTF-16 text, not a scenario; save it as UTF-8");
  if (const std::size_t nul = json.find('\0'); nul != std::string_view::npos)
    throw std::invalid_argument(std::string(source) + ": binary data (a zero byte at byte " +
                                std::to_string(nul) + "); not a scenario");
  QJsonParseError err{};
  const QJsonDocument doc =
      QJsonDocument::fromJson(QByteArray(json.data(), static_cast<qsizetype>(json.size())), &err);
  if (err.error != QJsonParseError::NoError) {
    // Only a document that stops mid-way may be a truncated file.
    const bool cut = err.error == QJsonParseError::UnterminatedObject ||
                     err.error == QJsonParseError::UnterminatedArray ||
                     err.error == QJsonParseError::UnterminatedString ||
                     err.offset >= static_cast<int>(json.find_last_not_of(" \t\r\n"));
    throw std::invalid_argument(
        std::string(source) + ": not valid JSON at byte " + std::to_string(err.offset) + " (" +
        err.errorString().toStdString() + ")" + (cut ? "; the file may be truncated" : ""));
  }
  if (!doc.isObject())
    throw std::invalid_argument(std::string(source) + ": expected a JSON object at the top level");
  const QJsonObject root = doc.object();
  const Reader top(root, "", source);
  std::string format;
  top.text("format", format);
  if (format != "napkin-scenario")
    top.fail("format", format.empty() ? "nothing" : "\"" + format + "\"", "\"napkin-scenario\"");
  std::int64_t version = 0;
  if (!top.has("version"))
    top.fail("version", "nothing",
             "the format's version (1 to " + std::to_string(kScenarioFormatVersion) + ")");
  top.integer("version", version, 1, 1'000'000);
  if (version > kScenarioFormatVersion)
    top.fail("version", std::to_string(version),
             "a version up to " + std::to_string(kScenarioFormatVersion) +
                 " (the file was written by a newer Napkin)");

  return root;
}

void read_hardware_and_budget(const Reader& top, Scenario& s, std::string_view source) {
  const Reader hw(top.object("hardware"), "hardware.", source);
  hw.text("chip", s.chip);
  try {
    (void)chip_by_name(s.chip);
  } catch (const std::invalid_argument&) {
    hw.fail("chip", "\"" + s.chip + "\"", "one of " + chip_names());
  }
  hw.inputs(s);

  const Reader b(top.object("budget"), "budget.", source);
  b.inputs(s);
}

void read_model(const Reader& top, Scenario& s, std::string_view source) {
  const Reader m(top.object("model"), "model.", source);
  ModelShape& sh = s.shape;
  m.text("name", s.model_name);
  // The registered numbers of the shape (inputs.h), then the rest.
  m.inputs(s);
  m.switches(s);
  m.boolean("qkv_bias", sh.qkv_bias);
  m.boolean("o_bias", sh.o_bias);
  m.boolean("mlp_bias", sh.mlp_bias);
  // Version 2 fields; a version-1 document leaves them at their defaults.
  m.integer("q_lora_rank", sh.q_lora_rank, 0, kMaxModelWidth);
  m.integer("kv_lora_rank", sh.kv_lora_rank, 0, kMaxModelWidth);
  m.integer("qk_nope_head_dim", sh.qk_nope_head_dim, 0, kMaxHeads);
  m.integer("qk_rope_head_dim", sh.qk_rope_head_dim, 0, kMaxHeads);
  m.integer("v_head_dim", sh.v_head_dim, 0, kMaxHeads);
  m.integer("shared_expert_d_ff", sh.shared_expert_d_ff, 0, kMaxFfnWidth);
  m.boolean("shared_expert_gate", sh.shared_expert_gate);
  m.boolean("router_bias", sh.router_bias);
  m.choice<QkNorm>("qk_norm", sh.qk_norm, parse_qk_norm);
  m.integer("norms_per_layer", sh.norms_per_layer, 0, 8);
  m.boolean("norm_bias", sh.norm_bias);
  m.boolean("parallel_blocks", sh.parallel_blocks);
  m.integer("mtp_modules", sh.mtp_modules, 0, 100);
}

void read_training_and_serving(const Reader& top, Scenario& s, std::string_view source) {
  const Reader t(top.object("training"), "training.", source);
  t.choices(s);
  t.integer("zero_stage", s.training.zero_stage, 0, 3);
  t.inputs(s);

  const Reader v(top.object("serving"), "serving.", source);
  v.inputs(s);
  // Before serving precisions were named, documents stored bytes per parameter.
  if (top.object("serving").contains(QStringLiteral("bytes_per_param"))) {
    double bytes = 2;
    v.real("bytes_per_param", bytes, 0.125, 8);
    if (bytes >= 4)
      s.serving.weight_dtype = Dtype::fp32;
    else if (bytes >= 2)
      s.serving.weight_dtype = Dtype::bf16;
    else if (bytes >= 1)
      s.serving.weight_dtype = Dtype::int8;
    else
      s.serving.weight_dtype = Dtype::int4;
  }
  v.choices(s);
  v.boolean("limit_model", s.serving.limit_model);
  v.choice<std::string>("chip", s.serving.chip, [](std::string_view name) {
    return name.empty() ? std::string() : std::string(chip_by_name(std::string(name)).name);
  });
}

void read_goodput_ranges_and_plan(const Reader& top, Scenario& s, std::string_view source) {
  // Version 2: goodput, ranges and the plan mode (absent in version 1 files,
  // which keep the defaults).
  const Reader g(top.object("goodput"), "goodput.", source);
  g.inputs(s);
  g.switches(s);  // the checkpoint mode

  const Reader r(top.object("ranges"), "ranges.", source);
  RangeSetup& rs = s.ranges;
  r.choices(s);
  std::int64_t seed = static_cast<std::int64_t>(rs.seed);
  r.integer("seed", seed, 0, std::int64_t{1} << 53);
  rs.seed = static_cast<std::uint64_t>(seed);
  r.spread("mfu", rs.mfu, 1e-6, 1.0);
  r.spread("interruptions_per_1000_chip_days", rs.interruptions_per_1000_chip_days, 0, 1e6);
  r.spread("restart_minutes", rs.restart_minutes, 0, 1e7);
  r.spread("price_per_chip_hour_dollars", rs.price_per_chip_hour_dollars, 0, 1e4);
  r.spread("tokens_available", rs.tokens_available, 1, kMaxTrainTokens);

  const Reader p(top.object("plan"), "plan.", source);
  p.choices(s);
  p.inputs(s);
}

// The fields of `o` (under `path`) that no Reader looked up, with their
// values. An object none of whose keys were looked up is one unknown field
// itself, not each of its own.
void unknown_fields(const QJsonObject& o, const std::vector<std::string>& path,
                    const std::set<std::string>& read, std::vector<ForeignField>& out) {
  std::string prefix;
  for (const std::string& k : path) prefix += k + ".";
  for (auto it = o.begin(); it != o.end(); ++it) {
    std::vector<std::string> key = path;
    key.push_back(it.key().toStdString());
    if (!read.count(prefix + key.back())) {
      // The value as compact JSON (wrapped: a document holds an array or an object).
      const QByteArray wrapped =
          QJsonDocument(QJsonArray{it.value()}).toJson(QJsonDocument::Compact);
      out.push_back({key, wrapped.mid(1, wrapped.size() - 2).toStdString()});
    } else if (it.value().isObject()) {
      unknown_fields(it.value().toObject(), key, read, out);
    }
  }
}

std::string dotted(const std::vector<std::string>& path) {
  std::string s;
  for (const std::string& k : path) s += (s.empty() ? "" : ".") + k;
  return s;
}

// The known key nearest to `key` in spelling (at most two edits), or "".
std::string nearest_key(const std::string& key, const std::set<std::string>& read) {
  const std::string folder = key.substr(0, key.rfind('.') + 1);
  std::string best;
  std::size_t best_distance = 3;
  for (const std::string& k : read) {
    if (k.size() <= folder.size() || k.compare(0, folder.size(), folder) != 0 ||
        k.find('.', folder.size()) != std::string::npos)
      continue;
    const std::string a = key.substr(folder.size()), b = k.substr(folder.size());
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      std::size_t diagonal = row[0];
      row[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j) {
        const std::size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
        diagonal = up;
      }
    }
    if (row[b.size()] < best_distance) {
      best_distance = row[b.size()];
      best = k;
    }
  }
  return best;
}

}  // namespace

Scenario scenario_from_json(std::string_view json, std::string_view source,
                            std::vector<std::string>* warnings) {
  const QJsonObject root = parse_document(json, source);
  check_strict_json(json, source);  // what Qt's parser lets through
  const Reader top(root, "", source);
  Scenario s;
  Reader::KeysRead read;
  read.keys.insert("format");  // checked by parse_document
  read.keys.insert("version");
  read_hardware_and_budget(top, s, source);
  read_model(top, s, source);
  read_training_and_serving(top, s, source);
  read_goodput_ranges_and_plan(top, s, source);
  settings_from_json(top, s);
  // A field this build does not know (a newer version's, or misspelt) is
  // kept as written and written back on save, so that opening and saving
  // loses nothing; `warnings` names each one (with the known field a
  // misspelt one resembles, whose value stays as it was).
  unknown_fields(root, {}, read.keys, s.foreign_fields);
  if (warnings && !s.foreign_fields.empty()) {
    std::string m =
        std::string(source) + ": kept " +
        (s.foreign_fields.size() == 1 ? std::string("a field")
                                      : std::to_string(s.foreign_fields.size()) + " fields") +
        " that this version (format " + std::to_string(kScenarioFormatVersion) +
        ") does not read; saving writes " + (s.foreign_fields.size() == 1 ? "it" : "them") +
        " back unchanged:";
    constexpr std::size_t kNamed = 10;  // one line, however many
    for (std::size_t i = 0; i < s.foreign_fields.size() && i < kNamed; ++i) {
      const std::string key = dotted(s.foreign_fields[i].path);
      const std::string near = nearest_key(key, read.keys);
      m += std::string(i ? ", " : " ") + "\"" + key + "\"";
      if (!near.empty()) m += " (did you mean \"" + near + "\"?)";
    }
    if (s.foreign_fields.size() > kNamed)
      m += " and " + std::to_string(s.foreign_fields.size() - kNamed) + " more";
    warnings->push_back(m);
  }

  try {
    s.validate();
    (void)count_params(s.shape);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(source) + ": " + e.what());
  }
  return s;
}

Scenario load_scenario_file(const std::string& path, std::vector<std::string>* warnings) {
  std::string data, error;
  // Streams too (a pipe, /dev/stdin); a larger file is refused before it is read.
  if (!read_file_capped(path, kMaxScenarioBytes, &data, &error))
    throw std::runtime_error(
        error + (error.find("limit is") != std::string::npos ? "; not a scenario" : ""));
  try {
    return scenario_from_json(data, path, warnings);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
}

void save_scenario_file(const Scenario& s, const std::string& path) {
  const std::string text = scenario_to_json(s);
  QString error;
  if (!write_file_atomically(QString::fromStdString(path),
                             QByteArray(text.data(), static_cast<qsizetype>(text.size())), &error))
    throw std::runtime_error(error.toStdString());
}

}  // namespace napkin
