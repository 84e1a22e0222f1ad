#include "config_import.h"

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <cmath>
#include <stdexcept>

#include "read_file.h"
#include "validate.h"

namespace napkin {

namespace {

constexpr qint64 kMaxConfigBytes = 16 * 1024 * 1024;

struct Family {
  const char* model_type;
  bool tied_default;
  bool qkv_bias;  // fixed by the architecture (Qwen2), not a key
  bool moe;
};

constexpr Family kFamilies[] = {
    {"llama", false, false, false},  {"mistral", false, false, false},
    {"mixtral", false, false, true}, {"qwen2", false, true, false},
    {"gemma", true, false, false},
};

class Reader {
 public:
  Reader(const QJsonObject& o, std::string_view source) : obj_(o), source_(source) {}

  [[noreturn]] void fail(const QString& key, const std::string& found,
                         const std::string& expected) const {
    throw std::invalid_argument(std::string(source_) + ": key \"" + key.toStdString() +
                                "\": expected " + expected + ", found " + found);
  }

  static std::string describe(const QJsonValue& v) {
    switch (v.type()) {
      case QJsonValue::Null: return "null";
      case QJsonValue::Bool: return v.toBool() ? "true" : "false";
      case QJsonValue::Double: return format_value(v.toDouble());
      case QJsonValue::String: {
        std::string s = v.toString().left(40).toStdString();
        return "the string \"" + s + "\"";
      }
      case QJsonValue::Array: return "an array";
      case QJsonValue::Object: return "an object";
      case QJsonValue::Undefined: return "nothing";
    }
    return "nothing";
  }

  bool has(const char* key) const {
    const QJsonValue v = obj_.value(QLatin1String(key));
    return !v.isUndefined() && !v.isNull();
  }

  std::int64_t integer(const char* key, std::int64_t lo, std::int64_t hi) const {
    const QString k = QLatin1String(key);
    const QJsonValue v = obj_.value(k);
    const std::string expected =
        "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    if (v.isUndefined() || v.isNull()) fail(k, "nothing (the key is required)", expected);
    if (!v.isDouble()) fail(k, describe(v), expected);
    const double d = v.toDouble();
    if (!std::isfinite(d) || d != std::floor(d) || d < static_cast<double>(lo) ||
        d > static_cast<double>(hi))
      fail(k, describe(v), expected);
    return static_cast<std::int64_t>(d);
  }

  std::int64_t integer_or(const char* key, std::int64_t fallback, std::int64_t lo,
                          std::int64_t hi) const {
    return has(key) ? integer(key, lo, hi) : fallback;
  }

  bool boolean_or(const char* key, bool fallback) const {
    const QString k = QLatin1String(key);
    const QJsonValue v = obj_.value(k);
    if (v.isUndefined() || v.isNull()) return fallback;
    if (!v.isBool()) fail(k, describe(v), "true or false");
    return v.toBool();
  }

  std::string string(const char* key) const {
    const QString k = QLatin1String(key);
    const QJsonValue v = obj_.value(k);
    if (v.isUndefined() || v.isNull())
      fail(k, "nothing (the key is required)", "one of " + supported_config_families());
    if (!v.isString()) fail(k, describe(v), "a string");
    return v.toString().toStdString();
  }

 private:
  const QJsonObject& obj_;
  std::string_view source_;
};

}  // namespace

std::string supported_config_families() {
  std::string out;
  for (const Family& f : kFamilies) {
    if (!out.empty()) out += ", ";
    out += f.model_type;
  }
  return out;
}

ImportedConfig import_hf_config(std::string_view bytes, std::string_view source) {
  if (static_cast<qint64>(bytes.size()) > kMaxConfigBytes)
    throw std::invalid_argument(std::string(source) + ": file is larger than 16 MiB; " +
                                "a config.json is a few kB");
  QJsonParseError err{};
  const QJsonDocument doc =
      QJsonDocument::fromJson(QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size())), &err);
  if (err.error != QJsonParseError::NoError)
    throw std::invalid_argument(std::string(source) + ": not valid JSON at byte " +
                                std::to_string(err.offset) + ": " +
                                err.errorString().toStdString());
  if (!doc.isObject())
    throw std::invalid_argument(std::string(source) + ": expected a JSON object at the top level");
  const QJsonObject obj = doc.object();
  const Reader r(obj, source);

  ImportedConfig out;
  out.family = r.string("model_type");
  const Family* fam = nullptr;
  for (const Family& f : kFamilies)
    if (out.family == f.model_type) fam = &f;
  if (fam == nullptr)
    r.fail(QStringLiteral("model_type"), "\"" + out.family.substr(0, 40) + "\"",
           "one of " + supported_config_families());

  ModelShape& s = out.shape;
  constexpr std::int64_t kBig = 10'000'000;
  s.d_model = r.integer("hidden_size", 1, 1'000'000);
  s.d_ff = r.integer("intermediate_size", 1, kBig);
  s.n_heads = r.integer("num_attention_heads", 1, 100'000);
  s.n_layers = r.integer("num_hidden_layers", 1, 100'000);
  s.vocab = r.integer("vocab_size", 1, 100'000'000);
  if (!r.has("num_key_value_heads")) out.notes.push_back("num_key_value_heads omitted: MHA");
  s.n_kv_heads = r.integer_or("num_key_value_heads", s.n_heads, 1, s.n_heads);
  if (s.n_heads % s.n_kv_heads != 0)
    r.fail(QStringLiteral("num_key_value_heads"), std::to_string(s.n_kv_heads),
           "a divisor of num_attention_heads = " + std::to_string(s.n_heads));
  if (r.has("head_dim")) {
    s.d_head = r.integer("head_dim", 1, 100'000);
  } else {
    if (s.d_model % s.n_heads != 0)
      r.fail(QStringLiteral("head_dim"), "nothing",
             "head_dim, since hidden_size is not a multiple of num_attention_heads");
    s.d_head = s.d_model / s.n_heads;
    out.notes.push_back("head_dim omitted: hidden_size / num_attention_heads");
  }
  if (!r.has("tie_word_embeddings"))
    out.notes.push_back(std::string("tie_word_embeddings omitted: ") +
                        (fam->tied_default ? "true" : "false") + " for " + fam->model_type);
  s.tied_embeddings = r.boolean_or("tie_word_embeddings", fam->tied_default);
  s.gated = true;  // SwiGLU (Llama, Mistral, Mixtral, Qwen2) and GeGLU (Gemma)
  const bool attention_bias = r.boolean_or("attention_bias", false);
  s.qkv_bias = fam->qkv_bias || attention_bias;
  s.o_bias = attention_bias;  // Llama's attention_bias covers W_o too; Qwen2's bias does not
  s.mlp_bias = r.boolean_or("mlp_bias", false);
  if (fam->moe) {
    s.n_experts = r.integer("num_local_experts", 1, 100'000);
    s.top_k = r.integer_or("num_experts_per_tok", 2, 1, s.n_experts);
  }
  try {
    s.validate();
    (void)count_params(s);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(source) + ": " + e.what());
  }
  return out;
}

ImportedConfig import_hf_config_file(const std::string& path) {
  std::string data, error;
  // Streams too (a pipe, /dev/stdin); a larger file is refused before it is read.
  if (!read_file_capped(path, kMaxConfigBytes, &data, &error))
    throw std::invalid_argument(
        error + (error.find("limit is") != std::string::npos ? "; a config.json is a few kB" : ""));
  return import_hf_config(data, path);
}

}  // namespace napkin
