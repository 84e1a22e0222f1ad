// A model folder: config.json plus model.safetensors.index.json, whose
// metadata.total_size (bytes) ÷ bytes per parameter is the checkpoint's
// stored count. The difference from the computed count is shown with what it
// is made of, read from the index's tensor names.
#include <QByteArray>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <set>
#include <stdexcept>

#include "config_import.h"
#include "config_reader.h"
#include "format.h"
#include "read_file.h"
#include "validate.h"

namespace napkin {

namespace {

// DeepSeek-V3's index is ~9 MB (91,991 tensors); leave room for larger ones.
constexpr qint64 kMaxIndexBytes = 64 * 1024 * 1024;

std::int64_t bytes_for_dtype(const std::string& dtype) {
  if (dtype == "bfloat16" || dtype == "float16") return 2;
  if (dtype == "float32") return 4;
  return 0;
}

std::string params_text(std::int64_t n) { return format_grouped(n); }

QByteArray read_small_file(const QString& path, qint64 limit, const char* what) {
  std::string data, error;
  if (!read_file_capped(path.toStdString(), limit, &data, &error))
    throw std::invalid_argument(error + "; not " + what);
  return QByteArray(data.data(), static_cast<qsizetype>(data.size()));
}

}  // namespace

namespace {

// The index's top-level object: refused when too large, not JSON or not an
// object, naming `source`.
QJsonObject index_root(std::string_view index_json, std::string_view source) {
  if (static_cast<qint64>(index_json.size()) > kMaxIndexBytes)
    throw std::invalid_argument(std::string(source) + ": larger than 64 MiB; not an index");
  QJsonParseError err{};
  const QJsonDocument doc = QJsonDocument::fromJson(
      QByteArray(index_json.data(), static_cast<qsizetype>(index_json.size())), &err);
  if (err.error != QJsonParseError::NoError)
    throw std::invalid_argument(std::string(source) + ": not valid JSON at byte " +
                                std::to_string(err.offset) + ": " +
                                err.errorString().toStdString());
  if (!doc.isObject())
    throw std::invalid_argument(std::string(source) + ": expected a JSON object at the top level");
  return doc.object();
}

// What the tensor names say the checkpoint holds beyond the counted model.
struct TensorCensus {
  std::set<std::int64_t> extra_layers;  // layer indices at or past num_hidden_layers
  std::int64_t head_copies = 0;         // embedding and output-head copies in those layers
  std::int64_t inv_freq = 0, vision = 0, scales = 0;
};

TensorCensus tensor_census(const QJsonObject& weights, std::int64_t n_layers) {
  const QRegularExpression layer_re(QStringLiteral("layers\\.(\\d+)\\."));
  TensorCensus t;
  for (auto it = weights.begin(); it != weights.end(); ++it) {
    const QString name = it.key();
    const auto match = layer_re.match(name);
    if (match.hasMatch()) {
      const std::int64_t layer = match.captured(1).toLongLong();
      if (layer >= n_layers) {
        t.extra_layers.insert(layer);
        if (name.endsWith(QStringLiteral(".embed_tokens.weight")) ||
            name.endsWith(QStringLiteral(".shared_head.head.weight")))
          ++t.head_copies;
      }
    }
    if (name.endsWith(QStringLiteral("rotary_emb.inv_freq"))) ++t.inv_freq;
    if (name.contains(QStringLiteral("vision_tower")) ||
        name.contains(QStringLiteral("vision_model")) ||
        name.contains(QStringLiteral("multi_modal_projector")))
      ++t.vision;
    if (name.endsWith(QStringLiteral("_scale_inv"))) ++t.scales;
  }
  return t;
}

// The census's items as notes of `c`, each counted into c.explained where it
// is a number of parameters.
void explain_extras(CheckpointCheck& c, const TensorCensus& t, const ModelShape& s,
                    const ParamCount& count, bool lm_head_stored) {
  const std::int64_t table = checked_mul(s.vocab, s.d_model, "parameters");
  if (!t.extra_layers.empty()) {
    if (count.mtp > 0 && static_cast<std::int64_t>(t.extra_layers.size()) == s.mtp_modules) {
      const std::int64_t copies = checked_mul(t.head_copies, table, "parameters");
      c.explained =
          checked_add(c.explained, checked_add(count.mtp, copies, "parameters"), "parameters");
      c.notes.push_back(
          std::to_string(s.mtp_modules) + " multi-token-prediction module(s) (layer " +
          std::to_string(*t.extra_layers.begin()) + "): " + params_text(count.mtp) +
          " parameters of their own, counted apart from the total" +
          (t.head_copies > 0
               ? ", plus " + std::to_string(t.head_copies) +
                     " stored copies of the embedding and output head (" + params_text(copies) + ")"
               : std::string()));
    } else {
      c.notes.push_back("tensors of " + std::to_string(t.extra_layers.size()) +
                        " layer(s) beyond num_hidden_layers are stored (from layer " +
                        std::to_string(*t.extra_layers.begin()) + ")");
    }
  }
  if (s.tied_embeddings && lm_head_stored) {
    c.explained = checked_add(c.explained, table, "parameters");
    c.notes.push_back("lm_head.weight is stored although the embeddings are tied: a copy of the " +
                      params_text(table) + "-parameter input table");
  }
  if (t.inv_freq > 0) {
    // Each rotary_emb.inv_freq buffer holds head_dim / 2 fp32 values.
    const std::int64_t bytes = checked_mul({t.inv_freq, s.d_head / 2, 4}, "bytes");
    const std::int64_t as_params = bytes / c.bytes_per_param;
    c.explained = checked_add(c.explained, as_params, "parameters");
    c.notes.push_back(std::to_string(t.inv_freq) +
                      " rotary inv_freq buffers (fp32, head_dim / 2 values each) are stored with "
                      "the weights: " +
                      params_text(bytes) + " bytes, " + params_text(as_params) + " in " + c.dtype +
                      " units; they are not parameters");
  }
  if (t.vision > 0)
    c.notes.push_back(std::to_string(t.vision) +
                      " vision-tower tensors are stored; the language model alone is counted");
  if (t.scales > 0)
    c.notes.push_back(std::to_string(t.scales) + " quantization scale tensors are stored");
}

// The verdict on the stored count against the counted one: exact, accounted
// for by the items above, or the part left unexplained.
std::string difference_note(const CheckpointCheck& c) {
  const std::int64_t unexplained = c.difference - c.explained;
  if (c.difference == 0) return "the checkpoint holds exactly the counted parameters";
  if (unexplained == 0)
    return "the difference of " + params_text(c.difference) +
           " is accounted for by the items above";
  const double ratio = static_cast<double>(c.stored_params) / static_cast<double>(c.counted_params);
  std::string why =
      "unexplained difference: " + params_text(unexplained) + " parameters (" +
      format_percent(static_cast<double>(unexplained) / static_cast<double>(c.counted_params), 3) +
      " of the count)";
  if (std::abs(ratio - 2.0) < 0.01 || std::abs(ratio - 0.5) < 0.01)
    why += "; the shards may be stored in another dtype than torch_dtype " + c.dtype + " says";
  return why;
}

}  // namespace

CheckpointCheck compare_checkpoint_index(std::string_view index_json, const ImportedConfig& config,
                                         std::string_view source) {
  const QJsonObject root = index_root(index_json, source);
  const Reader top(root, source);
  const QJsonValue meta = top.raw("metadata");
  if (!meta.isObject())
    top.fail(QStringLiteral("metadata"), Reader::describe(meta), "an object with total_size");
  const QJsonObject meta_obj = meta.toObject();
  const Reader m(meta_obj, source, "metadata.");

  CheckpointCheck c;
  c.index_source = std::string(source);
  c.total_size_bytes = m.integer("total_size", 0, 1'000'000'000'000'000);
  const ModelShape& s = config.shape;
  const ParamCount count = count_params(s);
  c.counted_params = count.total;
  c.dtype = config.dtype;
  const QJsonValue wm = top.raw("weight_map");
  const QJsonObject weights = wm.isObject() ? wm.toObject() : QJsonObject{};
  c.tensors = weights.size();

  if (!config.quantization.empty()) {
    c.notes.push_back("quantized checkpoint (quant_method " + config.quantization +
                      "): " + params_text(c.total_size_bytes) +
                      " bytes mix 1-byte weights, their scales and 16-bit norms, so they do not "
                      "divide into parameters");
    return c;
  }
  c.bytes_per_param = bytes_for_dtype(c.dtype);
  if (c.bytes_per_param == 0) {
    c.notes.push_back("torch_dtype " + (c.dtype.empty() ? std::string("absent") : c.dtype) +
                      ": the bytes per parameter are unknown, so " +
                      params_text(c.total_size_bytes) + " bytes do not convert to parameters");
    return c;
  }
  c.stored_params = c.total_size_bytes / c.bytes_per_param;
  c.difference = c.stored_params - c.counted_params;
  if (c.total_size_bytes % c.bytes_per_param != 0)
    c.notes.push_back("total_size is not a whole number of " + c.dtype +
                      " values: tensors of other dtypes are stored too");
  explain_extras(c, tensor_census(weights, s.n_layers), s, count,
                 weights.contains(QStringLiteral("lm_head.weight")));
  c.notes.push_back(difference_note(c));
  return c;
}

ImportedConfig import_model_dir(const std::string& dir) {
  const QDir d(QString::fromStdString(dir));
  if (!d.exists()) throw std::invalid_argument(dir + ": no such folder");
  const QString config_path = d.filePath(QStringLiteral("config.json"));
  if (!QFileInfo::exists(config_path))
    throw std::invalid_argument(dir + ": no config.json in this folder");
  ImportedConfig out = import_hf_config_file(config_path.toStdString());
  const QString index_path = d.filePath(QStringLiteral("model.safetensors.index.json"));
  if (QFileInfo::exists(index_path)) {
    const QByteArray data = read_small_file(index_path, kMaxIndexBytes, "an index");
    out.checkpoint = compare_checkpoint_index(
        std::string_view(data.constData(), static_cast<std::size_t>(data.size())), out,
        index_path.toStdString());
  } else {
    out.notes.push_back("no model.safetensors.index.json in the folder: nothing to compare with");
  }
  return out;
}

ImportedConfig import_model_path(const std::string& path) {
  if (QFileInfo(QString::fromStdString(path)).isDir()) return import_model_dir(path);
  return import_hf_config_file(path);
}

}  // namespace napkin
