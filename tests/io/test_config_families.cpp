// config.json import of the modern families (issue 17): never a silent guess.
// A config relabelled to another family's model_type either counts exactly
// what the checkpoint holds or fails naming the key it cannot model; keys
// that change the count are modelled or refused; a model folder's index is
// compared with the count.
#include <gtest/gtest.h>

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <stdexcept>
#include <string>
#include <vector>

#include "config_import.h"
#include "io_test_util.h"

using namespace io_test;

using namespace napkin;

namespace {

QJsonObject load(const std::string& name) {
  QFile f(QString::fromStdString(config_data(name)));
  EXPECT_TRUE(f.open(QIODevice::ReadOnly)) << name;
  return QJsonDocument::fromJson(f.readAll()).object();
}

std::string text(const QJsonObject& o) {
  return QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString();
}

// The error message, or "" when the import succeeds.

const char* const kConfigs[] = {
    "llama-2-7b.json",
    "llama-3-8b.json",
    "llama-3-70b.json",
    "mistral-7b-v0.1.json",
    "mixtral-8x7b.json",
    "qwen2-7b.json",
    "qwen2-0.5b.json",
    "gemma-7b.json",
    "gemma-2b.json",
    "deepseek-v2-lite.json",
    "deepseek-v2.json",
    "deepseek-v3.json",
    "qwen1.5-moe-a2.7b.json",
    "qwen2-57b-a14b.json",
    "qwen3-0.6b.json",
    "qwen3-8b.json",
    "qwen3-32b.json",
    "qwen3-30b-a3b.json",
    "qwen3-235b-a22b.json",
    "gemma-2-2b.json",
    "gemma-2-9b.json",
    "gemma-2-27b.json",
    "gemma-3-1b-pt.json",
    "phi-3-mini-4k-instruct.json",
    "phi-4.json",
    "olmo-2-1124-7b.json",
    "olmo-2-1124-13b.json",
    "falcon-7b.json",
    "falcon-40b.json",
};

const char* const kFamilies[] = {"llama",       "mistral",     "mixtral",     "qwen2",
                                 "gemma",       "deepseek_v2", "deepseek_v3", "qwen2_moe",
                                 "qwen3",       "qwen3_moe",   "gemma2",      "gemma3",
                                 "gemma3_text", "phi3",        "olmo2",       "falcon"};

// The relabelled config must fail naming a key, or count what the checkpoint holds.
void expect_named_key_or_exact(const QJsonObject& relabelled, std::int64_t truth,
                               const std::string& what) {
  try {
    const ImportedConfig c = import_hf_config(text(relabelled), "test.json");
    EXPECT_EQ(count_params(c.shape).total, truth)
        << what << ": a wrong count with no error (family " << c.family << ")";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("key \""), std::string::npos) << what << ": " << e.what();
  }
}

}  // namespace

// ------------------------------------------------------------ relabelling

class Relabel : public ::testing::TestWithParam<const char*> {};

// Every real config relabelled to this family, its `architectures` kept.
TEST_P(Relabel, EveryOtherFamilysConfigFailsNamingAKeyOrCountsExactly) {
  const std::string target = GetParam();
  for (const char* file : kConfigs) {
    QJsonObject o = load(file);
    const std::int64_t truth = count_params(import_hf_config(text(o), file).shape).total;
    if (o.value(QStringLiteral("model_type")).toString().toStdString() == target) continue;
    o[QStringLiteral("model_type")] = QString::fromStdString(target);
    expect_named_key_or_exact(o, truth, std::string(file) + " as " + target);
  }
}

// The same with `architectures` removed too: then only the keys can tell.
// The pairs whose architectures differ in parts no config key names (Qwen2's
// fixed q/k/v biases, Gemma's tied default and extra norms, Qwen3's and
// OLMo-2's QK-norm) are caught by `architectures` alone; they are listed here
// so that every other pair is held to the rule.
bool keyless_difference(const std::string& from, const std::string& to) {
  const auto llama_like = [](const std::string& f) {
    return f == "llama" || f == "mistral" || f == "phi3" || f == "qwen2" || f == "qwen3" ||
           f == "olmo2" || f == "gemma" || f == "gemma2" || f == "gemma3_text";
  };
  return llama_like(from) && llama_like(to);
}

TEST_P(Relabel, WithoutArchitecturesTheCountChangingKeysStillTell) {
  const std::string target = GetParam();
  for (const char* file : kConfigs) {
    QJsonObject o = load(file);
    const std::string from = o.value(QStringLiteral("model_type")).toString().toStdString();
    const std::int64_t truth = count_params(import_hf_config(text(o), file).shape).total;
    if (from == target || keyless_difference(from, target)) continue;
    o.remove(QStringLiteral("architectures"));
    o[QStringLiteral("model_type")] = QString::fromStdString(target);
    expect_named_key_or_exact(o, truth,
                              std::string(file) + " as " + target + " (no architectures)");
  }
}

INSTANTIATE_TEST_SUITE_P(Families, Relabel, ::testing::ValuesIn(kFamilies),
                         [](const auto& test) { return std::string(test.param); });

TEST(Relabel, TheIssuesExamplesNameTheKey) {
  // Qwen2-57B-A14B read as qwen2 used to give 7.61B with exit 0.
  QJsonObject q = load("qwen2-57b-a14b.json");
  q.remove(QStringLiteral("architectures"));
  q[QStringLiteral("model_type")] = QStringLiteral("qwen2");
  std::string e = import_error(text(q));
  EXPECT_NE(e.find("key \"num_experts\" (found 64) changes the parameter count"), std::string::npos)
      << e;
  EXPECT_NE(e.find("is model_type right?"), std::string::npos) << e;
  // DeepSeek-V3 read as llama used to give 38.6B.
  QJsonObject d = load("deepseek-v3.json");
  d.remove(QStringLiteral("architectures"));
  d[QStringLiteral("model_type")] = QStringLiteral("llama");
  e = import_error(text(d));
  EXPECT_NE(e.find("key \""), std::string::npos) << e;
  EXPECT_FALSE(e.empty());
  // With architectures kept, the class names the mismatch.
  d = load("deepseek-v3.json");
  d[QStringLiteral("model_type")] = QStringLiteral("llama");
  e = import_error(text(d));
  EXPECT_NE(e.find("key \"architectures\""), std::string::npos) << e;
  EXPECT_NE(e.find("DeepseekV3ForCausalLM"), std::string::npos) << e;
}

// ---------------------------------------------------------- family details

TEST(ConfigFamilies, FalconMultiQueryWinsOverNumKvHeadsInTheOriginalArchitecture) {
  QJsonObject o = load("falcon-7b.json");
  EXPECT_EQ(import_hf_config(text(o)).shape.n_kv_heads, 1);
  // The converted falcon-7b config of newer transformers lists num_kv_heads 71.
  o[QStringLiteral("num_kv_heads")] = 71;
  const ImportedConfig c = import_hf_config(text(o));
  EXPECT_EQ(c.shape.n_kv_heads, 1);
  EXPECT_EQ(count_params(c.shape).total, 6'921'720'704);
  bool noted = false;
  for (const std::string& n : c.notes) noted = noted || n.find("multi_query") != std::string::npos;
  EXPECT_TRUE(noted);
  // Without multi_query, num_kv_heads is used.
  o[QStringLiteral("multi_query")] = false;
  EXPECT_EQ(import_hf_config(text(o)).shape.n_kv_heads, 71);
  // Falcon-40B: the new decoder architecture uses its 8 KV groups although
  // FalconConfig's multi_query defaults to true.
  const ImportedConfig f40 = import_hf_config_file(config_data("falcon-40b.json"));
  EXPECT_EQ(f40.shape.n_kv_heads, 8);
  EXPECT_EQ(f40.shape.norms_per_layer, 2);  // ln_attn and ln_mlp
  EXPECT_EQ(import_hf_config_file(config_data("falcon-7b.json")).shape.norms_per_layer, 1);
}

TEST(ConfigFamilies, FalconSequentialBlocksBiasesAndRwNames) {
  // falcon-rw style: sequential blocks, biases everywhere, the RW key names.
  const std::string rw =
      R"({"model_type":"falcon","architectures":["FalconForCausalLM"],"n_embed":64,"n_layer":2,
          "n_head":4,"vocab_size":100,"multi_query":false,"parallel_attn":false,"bias":true,
          "alibi":true})";
  const ImportedConfig c = import_hf_config(rw);
  EXPECT_EQ(c.shape.n_kv_heads, 4);
  EXPECT_EQ(c.shape.norms_per_layer, 2);
  const LayerParams l = params_per_layer(c.shape, false);
  EXPECT_EQ(l.attn, 64 * 3 * 64 + 3 * 64 + 64 * 64 + 64);
  EXPECT_EQ(l.mlp, 2 * 64 * 256 + 256 + 64);
  EXPECT_EQ(l.norms, 2 * 2 * 64);
}

TEST(ConfigFamilies, QwenMoeLayoutFromMlpOnlyLayersAndSparseStep) {
  QJsonObject o = load("qwen3-30b-a3b.json");
  o[QStringLiteral("mlp_only_layers")] = QJsonArray{0, 1};
  EXPECT_EQ(import_hf_config(text(o)).shape.n_dense_layers, 2);
  o[QStringLiteral("mlp_only_layers")] = QJsonArray{};
  o[QStringLiteral("decoder_sparse_step")] = 2;  // layers 1, 3, 5, ... sparse
  EXPECT_EQ(import_hf_config(text(o)).shape.n_dense_layers, 24);
  o[QStringLiteral("mlp_only_layers")] = QJsonArray{48};
  EXPECT_NE(import_error(text(o)).find("key \"mlp_only_layers\""), std::string::npos);
}

TEST(ConfigFamilies, DeepSeekLayoutAndRouterBias) {
  const ImportedConfig v3 = import_hf_config_file(config_data("deepseek-v3.json"));
  EXPECT_EQ(v3.shape.n_dense_layers, 3);
  EXPECT_TRUE(v3.shape.router_bias);
  EXPECT_EQ(v3.shape.mtp_modules, 1);
  EXPECT_EQ(v3.shape.d_head, 192);
  EXPECT_EQ(v3.quantization, "fp8");
  const ImportedConfig lite = import_hf_config_file(config_data("deepseek-v2-lite.json"));
  EXPECT_FALSE(lite.shape.router_bias);  // greedy top-k
  EXPECT_EQ(lite.shape.q_lora_rank, 0);
  QJsonObject o = load("deepseek-v2.json");
  o[QStringLiteral("moe_layer_freq")] = 2;  // layers 2, 4, ..., 58 routed
  EXPECT_EQ(import_hf_config(text(o)).shape.n_dense_layers, 60 - 29);
  // An MTP module in a V2 config is not modelled by the V2 importer.
  o = load("deepseek-v2.json");
  o[QStringLiteral("num_nextn_predict_layers")] = 1;
  EXPECT_NE(import_error(text(o)).find("key \"num_nextn_predict_layers\""), std::string::npos);
  o = load("deepseek-v3.json");
  o[QStringLiteral("attention_bias")] = true;
  EXPECT_NE(import_error(text(o)).find("key \"attention_bias\""), std::string::npos);
  o = load("deepseek-v3.json");
  o.remove(QStringLiteral("kv_lora_rank"));
  EXPECT_NE(import_error(text(o)).find("key \"kv_lora_rank\""), std::string::npos);
}

TEST(ConfigFamilies, Gemma3MultimodalCountsTheLanguageModelAndSaysSo) {
  const std::string mm =
      R"({"model_type":"gemma3","architectures":["Gemma3ForConditionalGeneration"],
          "text_config":{"model_type":"gemma3_text","hidden_size":1152,"intermediate_size":6912,
            "num_hidden_layers":26,"num_attention_heads":4,"num_key_value_heads":1,
            "head_dim":256,"vocab_size":262144},
          "vision_config":{"model_type":"siglip_vision_model","hidden_size":1152}})";
  const ImportedConfig c = import_hf_config(mm);
  EXPECT_EQ(count_params(c.shape).total, 999'885'952);  // the gemma-3-1b text model
  bool noted = false;
  for (const std::string& n : c.notes) noted = noted || n.find("vision") != std::string::npos;
  EXPECT_TRUE(noted);
  // Omitted text keys take Gemma3TextConfig's defaults, each noted.
  const ImportedConfig d = import_hf_config(
      R"({"model_type":"gemma3","text_config":{"hidden_size":2560,"intermediate_size":10240,
          "num_hidden_layers":34}})");
  EXPECT_EQ(d.shape.n_heads, 8);
  EXPECT_EQ(d.shape.vocab, 262'208);
  EXPECT_GE(d.notes.size(), 4u);
  EXPECT_NE(import_error(R"({"model_type":"gemma3","text_config":3})").find("key \"text_config\""),
            std::string::npos);
  // A text model with a count-changing key it does not model.
  EXPECT_NE(import_error(R"({"model_type":"gemma3","text_config":{"hidden_size":64,
      "intermediate_size":128,"num_hidden_layers":2,"num_experts":4}})")
                .find("key \"text_config.num_experts\""),
            std::string::npos);
}

TEST(ConfigFamilies, ArchitecturesMustNameTheFamilysClass) {
  QJsonObject o = load("gemma-2-9b.json");
  o[QStringLiteral("architectures")] = QJsonArray{QStringLiteral("Gemma2ForMultiCausalLM")};
  EXPECT_NE(import_error(text(o)).find("key \"architectures\""), std::string::npos);
  o[QStringLiteral("architectures")] = QJsonArray{QStringLiteral("Gemma2Model")};
  EXPECT_EQ(import_error(text(o)), "");
  o[QStringLiteral("architectures")] = 7;
  EXPECT_NE(import_error(text(o)).find("a list of class names"), std::string::npos);
  o.remove(QStringLiteral("architectures"));
  const ImportedConfig c = import_hf_config(text(o));
  bool noted = false;
  for (const std::string& n : c.notes)
    noted = noted || n.find("architectures") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_EQ(import_error(R"({"model_type":"falcon","architectures":["RWForCausalLM"],
      "hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":10})"),
            "");
}

TEST(ConfigFamilies, CountChangingKeysOutsideTheFamilyAreRefused) {
  const std::string base = R"({"model_type":"mistral","hidden_size":64,"intermediate_size":256,
      "num_attention_heads":4,"num_hidden_layers":2,"vocab_size":100)";
  // Mistral's attention has no biases: false is harmless, true is refused.
  EXPECT_EQ(import_error(base + R"(,"attention_bias":false})"), "");
  EXPECT_NE(import_error(base + R"(,"attention_bias":true})").find("key \"attention_bias\""),
            std::string::npos);
  EXPECT_NE(import_error(base + R"(,"num_local_experts":8})").find("key \"num_local_experts\""),
            std::string::npos);
  EXPECT_EQ(import_error(base + R"(,"num_local_experts":null,"mlp_only_layers":[]})"), "");
  EXPECT_NE(import_error(base + R"(,"vision_config":{}})").find("key \"vision_config\""),
            std::string::npos);
  EXPECT_NE(import_error(base + R"(,"kv_lora_rank":512})").find("key \"kv_lora_rank\""),
            std::string::npos);
  // Qwen3 always normalises queries and keys.
  QJsonObject q = load("qwen3-8b.json");
  q[QStringLiteral("use_qk_norm")] = false;
  EXPECT_NE(import_error(text(q)).find("key \"use_qk_norm\""), std::string::npos);
  // A Qwen2-MoE config must give its shared expert's width.
  q = load("qwen1.5-moe-a2.7b.json");
  q.remove(QStringLiteral("shared_expert_intermediate_size"));
  EXPECT_NE(import_error(text(q)).find("key \"shared_expert_intermediate_size\""),
            std::string::npos);
}

TEST(ConfigFamilies, FamilyDefaultsAreNoted) {
  const ImportedConfig g = import_hf_config_file(config_data("gemma-2-9b.json"));
  EXPECT_TRUE(g.shape.tied_embeddings);
  EXPECT_EQ(g.shape.norms_per_layer, 4);
  const ImportedConfig o = import_hf_config_file(config_data("olmo-2-1124-7b.json"));
  EXPECT_EQ(o.shape.qk_norm, QkNorm::full_width);
  EXPECT_EQ(o.dtype, "float32");
  const ImportedConfig p = import_hf_config_file(config_data("phi-4.json"));
  EXPECT_EQ(p.shape.n_kv_heads, 10);
  const ImportedConfig f = import_hf_config_file(config_data("falcon-7b.json"));
  EXPECT_FALSE(f.shape.gated);
  EXPECT_TRUE(f.shape.norm_bias);
  EXPECT_TRUE(f.shape.parallel_blocks);
  EXPECT_EQ(f.shape.d_ff, 4 * 4544);
}

// ------------------------------------------------------------- model folder

namespace {

// A folder with `config` as config.json and, when given, an index.
std::string make_folder(QTemporaryDir& dir, const std::string& config_file,
                        const std::string& index_json) {
  QFile::copy(QString::fromStdString(config_data(config_file)),
              dir.filePath(QStringLiteral("config.json")));
  if (!index_json.empty()) {
    QFile f(dir.filePath(QStringLiteral("model.safetensors.index.json")));
    EXPECT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(index_json.data(), static_cast<qint64>(index_json.size()));
  }
  return dir.path().toStdString();
}

std::string index(std::int64_t total_size, const std::vector<std::string>& tensors) {
  QJsonObject map;
  for (const std::string& t : tensors)
    map[QString::fromStdString(t)] = QStringLiteral("model-00001-of-00002.safetensors");
  return text(
      QJsonObject{{QStringLiteral("metadata"),
                   QJsonObject{{QStringLiteral("total_size"), static_cast<qint64>(total_size)}}},
                  {QStringLiteral("weight_map"), map}});
}

bool any_note(const CheckpointCheck& c, const std::string& needle) {
  for (const std::string& n : c.notes)
    if (n.find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(ModelFolder, AnIndexThatMatchesExactly) {
  QTemporaryDir dir;
  // deepseek-ai/DeepSeek-V2-Lite: total_size 31,412,968,448 bytes of bf16.
  const ImportedConfig c = import_model_dir(
      make_folder(dir, "deepseek-v2-lite.json", index(31'412'968'448, {"model.norm.weight"})));
  ASSERT_TRUE(c.checkpoint.has_value());
  EXPECT_EQ(c.checkpoint->bytes_per_param, 2);
  EXPECT_EQ(c.checkpoint->stored_params, 15'706'484'224);
  EXPECT_EQ(c.checkpoint->difference, 0);
  EXPECT_TRUE(any_note(*c.checkpoint, "exactly"));
}

TEST(ModelFolder, RotaryBuffersStoredWithTheWeightsAreShown) {
  // meta-llama/Llama-2-7b-hf: total_size 13,476,839,424 bytes, 4,096 more
  // "parameters" than the model has: 32 fp32 rotary_emb.inv_freq buffers.
  std::vector<std::string> tensors = {"lm_head.weight", "model.embed_tokens.weight"};
  for (int i = 0; i < 32; ++i)
    tensors.push_back("model.layers." + std::to_string(i) + ".self_attn.rotary_emb.inv_freq");
  QTemporaryDir dir;
  const ImportedConfig c =
      import_model_dir(make_folder(dir, "llama-2-7b.json", index(13'476'839'424, tensors)));
  ASSERT_TRUE(c.checkpoint.has_value());
  EXPECT_EQ(c.checkpoint->difference, 4096);
  EXPECT_EQ(c.checkpoint->explained, 4096);
  EXPECT_TRUE(any_note(*c.checkpoint, "inv_freq"));
  EXPECT_TRUE(any_note(*c.checkpoint, "accounted for"));
}

TEST(ModelFolder, AStoredCopyOfATiedHeadIsShown) {
  // tiiuae/falcon-7b: 7,217,189,760 stored = the tied model + lm_head.weight.
  QTemporaryDir dir;
  const ImportedConfig c = import_model_dir(make_folder(
      dir, "falcon-7b.json",
      index(2 * 7'217'189'760, {"lm_head.weight", "transformer.word_embeddings.weight"})));
  ASSERT_TRUE(c.checkpoint.has_value());
  EXPECT_EQ(c.checkpoint->difference, 65'024 * 4544);
  EXPECT_EQ(c.checkpoint->explained, c.checkpoint->difference);
  EXPECT_TRUE(any_note(*c.checkpoint, "lm_head.weight"));
}

TEST(ModelFolder, MtpModulesAndQuantizedCheckpoints) {
  const ImportedConfig cfg = import_hf_config_file(config_data("deepseek-v3.json"));
  // FP8: the bytes do not divide into parameters.
  CheckpointCheck c = compare_checkpoint_index(index(688'586'727'753, {}), cfg);
  EXPECT_EQ(c.bytes_per_param, 0);
  EXPECT_TRUE(any_note(c, "quantized"));
  // The same layout in bf16: the MTP layer (61) and its copies of the tables.
  ImportedConfig bf16 = cfg;
  bf16.quantization.clear();
  const std::vector<std::string> mtp = {"model.layers.61.embed_tokens.weight",
                                        "model.layers.61.shared_head.head.weight",
                                        "model.layers.61.eh_proj.weight"};
  c = compare_checkpoint_index(index(2 * 684'489'845'504, mtp), bf16);
  EXPECT_EQ(c.difference, 11'610'068'224 + 2 * 926'679'040);
  EXPECT_EQ(c.explained, c.difference);
  EXPECT_TRUE(any_note(c, "multi-token-prediction"));
}

TEST(ModelFolder, UnexplainedDifferencesAndDtypeMismatchAreShown) {
  const ImportedConfig cfg = import_hf_config_file(config_data("gemma-2-9b.json"));  // says float32
  // Shards in bf16 although torch_dtype says float32: half the count.
  CheckpointCheck c = compare_checkpoint_index(index(18'483'411'968, {}), cfg);
  EXPECT_EQ(c.bytes_per_param, 4);
  EXPECT_TRUE(any_note(c, "another dtype"));
  c = compare_checkpoint_index(index(4 * 9'241'705'984 + 4 * 1000, {}), cfg);
  EXPECT_EQ(c.difference, 1000);
  EXPECT_TRUE(any_note(c, "unexplained difference: 1,000"));
  ImportedConfig none = cfg;
  none.dtype.clear();
  c = compare_checkpoint_index(index(100, {}), none);
  EXPECT_EQ(c.bytes_per_param, 0);
  EXPECT_TRUE(any_note(c, "absent"));
}

TEST(ModelFolder, FolderErrorsAndAFolderWithoutIndex) {
  QTemporaryDir empty;
  EXPECT_THROW(import_model_dir(empty.path().toStdString()), std::invalid_argument);
  EXPECT_THROW(import_model_dir("/nonexistent/folder"), std::invalid_argument);
  QTemporaryDir dir;
  const ImportedConfig c = import_model_dir(make_folder(dir, "qwen3-0.6b.json", ""));
  EXPECT_FALSE(c.checkpoint.has_value());
  EXPECT_EQ(import_model_path(dir.path().toStdString()).family, "qwen3");
  EXPECT_EQ(import_model_path(config_data("qwen3-0.6b.json")).family, "qwen3");
  QTemporaryDir bad;
  make_folder(bad, "qwen3-0.6b.json", "{\"metadata\": 3}");
  EXPECT_THROW(import_model_dir(bad.path().toStdString()), std::invalid_argument);
  EXPECT_THROW(compare_checkpoint_index("[", import_hf_config_file(config_data("qwen3-8b.json"))),
               std::invalid_argument);
  EXPECT_THROW(compare_checkpoint_index(R"({"metadata":{"total_size":-5}})",
                                        import_hf_config_file(config_data("qwen3-8b.json"))),
               std::invalid_argument);
}
