#include "config_import.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <cmath>
#include <set>
#include <stdexcept>

#include "config_reader.h"
#include "read_file.h"
#include "validate.h"

namespace napkin {

namespace {

enum class Arch {
  llama,
  mistral,
  mixtral,
  qwen2,
  gemma,
  deepseek_v2,
  deepseek_v3,
  qwen2_moe,
  qwen3,
  qwen3_moe,
  gemma2,
  gemma3,
  gemma3_text,
  phi3,
  olmo2,
  falcon,
};

struct Family {
  const char* model_type;
  Arch arch;
  const char* class_base;  // transformers class name before "ForCausalLM", "Model", ...
};

constexpr Family kFamilies[] = {
    {"llama", Arch::llama, "Llama"},
    {"mistral", Arch::mistral, "Mistral"},
    {"mixtral", Arch::mixtral, "Mixtral"},
    {"qwen2", Arch::qwen2, "Qwen2"},
    {"gemma", Arch::gemma, "Gemma"},
    {"deepseek_v2", Arch::deepseek_v2, "DeepseekV2"},
    {"deepseek_v3", Arch::deepseek_v3, "DeepseekV3"},
    {"qwen2_moe", Arch::qwen2_moe, "Qwen2Moe"},
    {"qwen3", Arch::qwen3, "Qwen3"},
    {"qwen3_moe", Arch::qwen3_moe, "Qwen3Moe"},
    {"gemma2", Arch::gemma2, "Gemma2"},
    {"gemma3", Arch::gemma3, "Gemma3"},
    {"gemma3_text", Arch::gemma3_text, "Gemma3"},
    {"phi3", Arch::phi3, "Phi3"},
    {"olmo2", Arch::olmo2, "Olmo2"},
    {"falcon", Arch::falcon, "Falcon"},
};

// What a key's value must be for it to leave the parameter count unchanged
// (null always does).
enum class Neutral { zero, one, is_false, empty_list, none };

struct CountKey {
  const char* key;
  Neutral neutral;
};

// Keys that change the parameter count in some family. A family's importer
// reads the ones it models; any other one present with a non-neutral value
// is an error naming it, so a config relabelled to another model_type (or a
// variant with parts this importer does not know) is never counted short.
constexpr CountKey kCountKeys[] = {
    {"num_local_experts", Neutral::zero},
    {"num_experts", Neutral::zero},
    {"n_routed_experts", Neutral::zero},
    {"num_experts_per_tok", Neutral::zero},
    {"moe_intermediate_size", Neutral::zero},
    {"shared_expert_intermediate_size", Neutral::zero},
    {"n_shared_experts", Neutral::zero},
    {"first_k_dense_replace", Neutral::zero},
    {"moe_layer_freq", Neutral::one},
    {"decoder_sparse_step", Neutral::one},
    {"mlp_only_layers", Neutral::empty_list},
    {"q_lora_rank", Neutral::zero},
    {"kv_lora_rank", Neutral::zero},
    {"qk_nope_head_dim", Neutral::zero},
    {"qk_rope_head_dim", Neutral::zero},
    {"v_head_dim", Neutral::zero},
    {"num_nextn_predict_layers", Neutral::zero},
    {"attention_bias", Neutral::is_false},
    {"mlp_bias", Neutral::is_false},
    {"qkv_bias", Neutral::is_false},
    {"bias", Neutral::is_false},
    {"use_qk_norm", Neutral::is_false},
    {"qk_layernorm", Neutral::is_false},
    {"use_parallel_residual", Neutral::is_false},
    {"parallel_attn", Neutral::is_false},
    {"new_decoder_architecture", Neutral::is_false},
    {"multi_query", Neutral::is_false},
    {"num_kv_heads", Neutral::none},
    {"n_head_kv", Neutral::none},
    {"num_ln_in_parallel_attn", Neutral::none},
    {"ffn_hidden_size", Neutral::none},
    {"n_embd", Neutral::none},
    {"n_embed", Neutral::none},
    {"n_layer", Neutral::none},
    {"n_head", Neutral::none},
    {"n_inner", Neutral::none},
    {"intermediate_size", Neutral::none},
    {"num_key_value_heads", Neutral::none},
    {"head_dim", Neutral::none},
    {"vision_config", Neutral::none},
    {"audio_config", Neutral::none},
    {"text_config", Neutral::none},
};

bool is_neutral(const QJsonValue& v, Neutral n) {
  if (v.isUndefined() || v.isNull()) return true;
  switch (n) {
    case Neutral::zero: return v.isDouble() && v.toDouble() == 0.0;
    case Neutral::one: return v.isDouble() && v.toDouble() == 1.0;
    case Neutral::is_false: return v.isBool() && !v.toBool();
    case Neutral::empty_list: return v.isArray() && v.toArray().isEmpty();
    case Neutral::none: return false;
  }
  return false;
}

// Every count-changing key present in `obj` must have been read by the
// family's importer or hold its neutral value.
void require_all_modelled(const Reader& r, const QJsonObject& obj, const std::string& family) {
  for (const CountKey& k : kCountKeys) {
    const QString key = QLatin1String(k.key);
    const QJsonValue v = obj.value(key);
    if (r.was_read(k.key) || is_neutral(v, k.neutral)) continue;
    r.fail_unmodelled(key, Reader::describe(v), family);
  }
}

// transformers class names are <Base><Head>: LlamaForCausalLM, Gemma3Model, ...
bool class_matches(const std::string& cls, const Family& f) {
  static const char* const kHeads[] = {
      "ForCausalLM",         "ForConditionalGeneration",  "Model",
      "LMHeadModel",         "ForSequenceClassification", "ForTokenClassification",
      "ForQuestionAnswering"};
  if (f.arch == Arch::falcon && cls == "RWForCausalLM") return true;  // Falcon's first release
  for (const char* head : kHeads)
    if (cls == std::string(f.class_base) + head) {
      // Gemma-3's text-only checkpoints are Gemma3ForCausalLM, the multimodal
      // ones Gemma3ForConditionalGeneration.
      if (f.arch == Arch::gemma3 && std::string(head) == "ForCausalLM") return false;
      if (f.arch == Arch::gemma3_text && std::string(head) == "ForConditionalGeneration")
        return false;
      return true;
    }
  return false;
}

void check_architectures(const Reader& r, const Family& f, ImportedConfig& out) {
  const QJsonValue v = r.raw("architectures");
  if (v.isUndefined() || v.isNull()) {
    out.notes.push_back("architectures omitted: the class could not be checked against model_type");
    return;
  }
  if (!v.isArray() || v.toArray().isEmpty() || !v.toArray().first().isString())
    r.fail(QStringLiteral("architectures"), Reader::describe(v), "a list of class names");
  for (const QJsonValue& c : v.toArray()) {
    const std::string cls = c.toString().toStdString();
    if (!class_matches(cls, f))
      r.fail(QStringLiteral("architectures"), "\"" + cls.substr(0, 60) + "\"",
             std::string("a ") + f.class_base + "... class for model_type \"" + f.model_type +
                 "\" (a config relabelled from another family, or a variant with other parts)");
  }
}

// --------------------------------------------------------------- shared parts

// The core dimensions every Llama-like family names the same way.
void read_core(const Reader& r, bool tied_default, const char* family, ImportedConfig& out) {
  ModelShape& s = out.shape;
  s.d_model = r.integer("hidden_size", 1, kMaxModelWidth);
  s.d_ff = r.integer("intermediate_size", 1, kMaxFfnWidth);
  s.n_heads = r.integer("num_attention_heads", 1, kMaxHeads);
  s.n_layers = r.integer("num_hidden_layers", 1, kMaxLayers);
  s.vocab = r.integer("vocab_size", 1, kMaxVocab);
  if (!r.has("num_key_value_heads")) out.notes.push_back("num_key_value_heads omitted: MHA");
  s.n_kv_heads = r.integer_or("num_key_value_heads", s.n_heads, 1, s.n_heads);
  if (s.n_heads % s.n_kv_heads != 0)
    r.fail(QStringLiteral("num_key_value_heads"), std::to_string(s.n_kv_heads),
           "a divisor of num_attention_heads = " + std::to_string(s.n_heads));
  if (r.has("head_dim")) {
    s.d_head = r.integer("head_dim", 1, kMaxHeads);
  } else {
    if (s.d_model % s.n_heads != 0)
      r.fail(QStringLiteral("head_dim"), "nothing",
             "head_dim, since hidden_size is not a multiple of num_attention_heads");
    s.d_head = s.d_model / s.n_heads;
    out.notes.push_back("head_dim omitted: hidden_size / num_attention_heads");
  }
  if (!r.has("tie_word_embeddings"))
    out.notes.push_back(std::string("tie_word_embeddings omitted: ") +
                        (tied_default ? "true" : "false") + " for " + family);
  s.tied_embeddings = r.boolean_or("tie_word_embeddings", tied_default);
  s.gated = true;  // SwiGLU (Llama, Qwen, Phi-3, OLMo-2) and GeGLU (Gemma)
}

// Llama's attention_bias covers W_q, W_k, W_v and W_o (as in Gemma, Qwen3, OLMo-2).
void read_attention_bias(const Reader& r, ModelShape& s) {
  const bool b = r.boolean_or("attention_bias", false);
  s.qkv_bias = s.qkv_bias || b;
  s.o_bias = b;
}

// Qwen-MoE's layer layout (transformers Qwen2MoeDecoderLayer): layer i is
// sparse unless i is in mlp_only_layers or (i + 1) is not a multiple of
// decoder_sparse_step; dense layers use intermediate_size.
void read_qwen_moe(const Reader& r, ImportedConfig& out) {
  ModelShape& s = out.shape;
  s.n_experts = r.integer("num_experts", 1, kMaxExperts);
  s.top_k = r.integer("num_experts_per_tok", 1, s.n_experts);
  s.expert_d_ff = r.integer("moe_intermediate_size", 1, kMaxFfnWidth);
  const std::int64_t step = r.integer_or("decoder_sparse_step", 1, 1, s.n_layers);
  const std::set<std::int64_t> dense = r.integer_set("mlp_only_layers", 0, s.n_layers - 1);
  std::int64_t n_dense = 0;
  for (std::int64_t i = 0; i < s.n_layers; ++i)
    if (dense.count(i) > 0 || (i + 1) % step != 0) ++n_dense;
  if (n_dense == s.n_layers)
    r.fail(QStringLiteral("mlp_only_layers"), "every layer dense",
           "at least one sparse layer for an MoE config");
  s.n_dense_layers = n_dense;
}

// Qwen3 always normalises each query and key head (q_norm, k_norm of head_dim).
void read_qwen3_qk_norm(const Reader& r, ModelShape& s) {
  if (!r.boolean_or("use_qk_norm", true))
    r.fail(QStringLiteral("use_qk_norm"), "false",
           "true or nothing: transformers' Qwen3 always has q_norm and k_norm");
  s.qk_norm = QkNorm::per_head;
}

// ------------------------------------------------------------- DeepSeek V2/V3

void read_deepseek(const Reader& r, bool v3, ImportedConfig& out) {
  ModelShape& s = out.shape;
  s.d_model = r.integer("hidden_size", 1, kMaxModelWidth);
  s.d_ff = r.integer("intermediate_size", 1, kMaxFfnWidth);
  s.n_heads = r.integer("num_attention_heads", 1, kMaxHeads);
  s.n_layers = r.integer("num_hidden_layers", 1, kMaxLayers);
  s.vocab = r.integer("vocab_size", 1, kMaxVocab);
  // MLA (DeepSeek-V2 §2.1): every head has its own key and value, rebuilt
  // from the latent; num_key_value_heads (== heads in every release) plays no
  // part in the count or the cache.
  (void)r.integer_or("num_key_value_heads", s.n_heads, 1, kMaxHeads);
  s.n_kv_heads = s.n_heads;
  if (r.has("head_dim"))  // newer transformers write qk_rope_head_dim here, for RoPE
    (void)r.integer("head_dim", 1, kMaxHeads);
  s.kv_lora_rank = r.integer("kv_lora_rank", 1, kMaxModelWidth);
  s.q_lora_rank = r.integer_or("q_lora_rank", 0, 1, kMaxModelWidth);
  if (s.q_lora_rank == 0)
    out.notes.push_back("q_lora_rank null: queries projected straight from hidden_size");
  s.qk_nope_head_dim = r.integer("qk_nope_head_dim", 1, kMaxHeads);
  s.qk_rope_head_dim = r.integer("qk_rope_head_dim", 1, kMaxHeads);
  s.v_head_dim = r.integer("v_head_dim", 1, kMaxHeads);
  s.d_head = s.qk_nope_head_dim + s.qk_rope_head_dim;
  if (!r.has("tie_word_embeddings"))
    out.notes.push_back("tie_word_embeddings omitted: false for DeepSeek");
  s.tied_embeddings = r.boolean_or("tie_word_embeddings", false);
  s.gated = true;
  if (r.has("n_routed_experts")) {
    s.n_experts = r.integer("n_routed_experts", 1, kMaxExperts);
    s.top_k = r.integer("num_experts_per_tok", 1, s.n_experts);
    s.expert_d_ff = r.integer("moe_intermediate_size", 1, kMaxFfnWidth);
    // DeepSeekMoE (V2 §2.2): n_shared_experts always-on experts of the routed
    // width, implemented as one MLP n_shared × moe_intermediate_size wide.
    s.shared_experts = r.integer_or("n_shared_experts", 0, 0, kMaxSharedExperts);
    // Layer i is routed when i >= first_k_dense_replace and i % moe_layer_freq == 0.
    const std::int64_t first = r.integer_or("first_k_dense_replace", 0, 0, s.n_layers);
    const std::int64_t freq = r.integer_or("moe_layer_freq", 1, 1, s.n_layers);
    std::int64_t n_moe = 0;
    for (std::int64_t i = first; i < s.n_layers; ++i)
      if (i % freq == 0) ++n_moe;
    if (n_moe == 0)
      r.fail(QStringLiteral("first_k_dense_replace"), std::to_string(first),
             "fewer than num_hidden_layers routed layers for an MoE config");
    s.n_dense_layers = s.n_layers - n_moe;
    // The noaux_tc router (V3 §2.1.2, auxiliary-loss-free balancing) keeps a
    // bias per routed expert (e_score_correction_bias), stored with the weights.
    const std::string method = r.string_or("topk_method", v3 ? "noaux_tc" : "greedy");
    s.router_bias = method == "noaux_tc";
  } else {
    out.notes.push_back("n_routed_experts omitted: every layer dense");
  }
  if (v3) s.mtp_modules = r.integer_or("num_nextn_predict_layers", 0, 0, 100);
}

// -------------------------------------------------------------------- Falcon

void read_falcon(const Reader& r, ImportedConfig& out) {
  ModelShape& s = out.shape;
  // FalconConfig accepts the RW names n_embed, n_layer, n_head, n_head_kv.
  s.d_model = r.integer_alias("hidden_size", "n_embed", 1, kMaxModelWidth);
  s.n_layers = r.integer_alias("num_hidden_layers", "n_layer", 1, kMaxLayers);
  s.n_heads = r.integer_alias("num_attention_heads", "n_head", 1, kMaxHeads);
  s.vocab = r.integer("vocab_size", 1, kMaxVocab);
  if (s.d_model % s.n_heads != 0)
    r.fail(QStringLiteral("hidden_size"), std::to_string(s.d_model),
           "a multiple of num_attention_heads = " + std::to_string(s.n_heads));
  s.d_head = s.d_model / s.n_heads;
  const bool new_arch = r.boolean_or("new_decoder_architecture", false);
  const bool multi_query = r.boolean_or("multi_query", true);  // FalconConfig's default
  const std::int64_t kv = r.integer_alias_or("num_kv_heads", "n_head_kv", s.n_heads, 1, s.n_heads);
  // transformers' FalconAttention: num_kv_heads = config.num_kv_heads if
  // (new_decoder_architecture or not multi_query) else 1. So in the original
  // architecture (Falcon-7B) multi_query: true wins over num_kv_heads: its
  // fused query_key_value projection has one key and one value head whatever
  // num_kv_heads says (the converted falcon-7b config lists num_kv_heads 71).
  // Falcon-40B/180B (new_decoder_architecture) use num_kv_heads groups.
  if (new_arch || !multi_query) {
    s.n_kv_heads = kv;
  } else {
    s.n_kv_heads = 1;
    if (r.has("num_kv_heads") && kv != 1)
      out.notes.push_back("multi_query: true wins over num_kv_heads = " + std::to_string(kv) +
                          " (original Falcon architecture): one KV head");
  }
  if (s.n_heads % s.n_kv_heads != 0)
    r.fail(QStringLiteral("num_kv_heads"), std::to_string(s.n_kv_heads),
           "a divisor of num_attention_heads = " + std::to_string(s.n_heads));
  s.d_ff = r.integer_or("ffn_hidden_size", 4 * s.d_model, 1, kMaxFfnWidth);
  if (!r.has("ffn_hidden_size")) out.notes.push_back("ffn_hidden_size omitted: 4 × hidden_size");
  s.gated = false;  // GELU MLP: dense_h_to_4h, dense_4h_to_h
  const bool bias = r.boolean_or("bias", false);
  s.qkv_bias = s.o_bias = s.mlp_bias = bias;
  s.norm_bias = true;  // LayerNorm
  s.parallel_blocks = r.boolean_or("parallel_attn", true);
  // FalconDecoderLayer: a sequential block has input and post-attention
  // LayerNorms; a parallel block has ln_attn and ln_mlp when
  // num_ln_in_parallel_attn is 2 (the default of the new architecture),
  // else one shared input_layernorm.
  const std::int64_t ln_parallel = r.integer_or("num_ln_in_parallel_attn", new_arch ? 2 : 1, 1, 2);
  s.norms_per_layer = !s.parallel_blocks ? 2 : ln_parallel;
  (void)r.boolean_or("alibi", false);  // ALiBi adds no parameters
  if (!r.has("tie_word_embeddings"))
    out.notes.push_back("tie_word_embeddings omitted: true for falcon");
  s.tied_embeddings = r.boolean_or("tie_word_embeddings", true);
}

// ------------------------------------------------------------------- Gemma-3

// The text model of a multimodal Gemma-3 config (Gemma3ForConditionalGeneration).
// Omitted keys take transformers' Gemma3TextConfig defaults, each noted.
void read_gemma3_multimodal(const Reader& top, std::string_view source, ImportedConfig& out) {
  const QJsonValue tc = top.raw("text_config");
  if (!tc.isObject())
    top.fail(QStringLiteral("text_config"), Reader::describe(tc), "an object (the language model)");
  const QJsonObject text = tc.toObject();
  const Reader r(text, source, "text_config.");
  ModelShape& s = out.shape;
  auto dflt = [&](const char* key, std::int64_t value) {
    if (!r.has(key))
      out.notes.push_back(std::string("text_config.") + key + " omitted: " + std::to_string(value) +
                          " (Gemma3TextConfig default)");
    return value;
  };
  s.d_model = r.integer("hidden_size", 1, kMaxModelWidth);
  s.d_ff = r.integer("intermediate_size", 1, kMaxFfnWidth);
  s.n_layers = r.integer("num_hidden_layers", 1, kMaxLayers);
  s.n_heads = r.integer_or("num_attention_heads", dflt("num_attention_heads", 8), 1, kMaxHeads);
  s.n_kv_heads = r.integer_or("num_key_value_heads", dflt("num_key_value_heads", 4), 1, s.n_heads);
  if (s.n_heads % s.n_kv_heads != 0)
    r.fail(QStringLiteral("num_key_value_heads"), std::to_string(s.n_kv_heads),
           "a divisor of num_attention_heads = " + std::to_string(s.n_heads));
  s.d_head = r.integer_or("head_dim", dflt("head_dim", 256), 1, kMaxHeads);
  s.vocab = r.integer_or("vocab_size", dflt("vocab_size", 262'208), 1, kMaxVocab);
  s.tied_embeddings = r.boolean_or("tie_word_embeddings", true);
  s.gated = true;
  read_attention_bias(r, s);
  s.norms_per_layer = 4;
  s.qk_norm = QkNorm::per_head;
  require_all_modelled(r, text, "gemma3 text_config");
  if (top.has("vision_config"))
    out.notes.push_back(
        "vision_config: the vision tower and its projector are not counted (language model "
        "only); a checkpoint's total includes them");
}

}  // namespace

std::string supported_config_families() {
  std::string out;
  for (const Family& f : kFamilies) {
    if (!out.empty()) out += ", ";
    out += f.model_type;
  }
  return out;
}

std::string count_by_hand_hint() {
  return "count it by hand with napkin-cli params --layers L --d-model D --d-ff F --heads H "
         "[--kv-heads K] [--head-dim HD] --vocab V [--tied] [--no-gated] [--bias qkv,out,mlp,norm] "
         "[--norms N] [--qk-norm per-head|full-width] [--experts E --top-k K "
         "[--expert-d-ff F] [--shared-experts S] [--shared-expert-d-ff F] [--dense-layers N]] "
         "[--mla q_lora,kv_lora,nope,rope,v] [--mtp N] (napkin-cli params --help explains each)";
}

namespace {

// The config's top-level object; refused when larger than 16 MiB, not JSON or
// not an object.
QJsonObject config_object(std::string_view bytes, std::string_view source) {
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
  return doc.object();
}

// The shape as the family's transformers class reads its keys.
void read_family(const Reader& r, const Family& family, std::string_view source,
                 ImportedConfig& out) {
  ModelShape& s = out.shape;
  switch (family.arch) {
    case Arch::llama:
      read_core(r, false, "llama", out);
      read_attention_bias(r, s);
      s.mlp_bias = r.boolean_or("mlp_bias", false);
      break;
    case Arch::mistral: read_core(r, false, "mistral", out); break;
    case Arch::mixtral:
      read_core(r, false, "mixtral", out);
      s.n_experts = r.integer("num_local_experts", 1, kMaxExperts);
      if (!r.has("num_experts_per_tok")) out.notes.push_back("num_experts_per_tok omitted: 2");
      s.top_k = r.integer_or("num_experts_per_tok", 2, 1, s.n_experts);
      break;
    case Arch::qwen2:
      read_core(r, false, "qwen2", out);
      s.qkv_bias = r.boolean_or("qkv_bias", true);  // Qwen2's q, k, v always have biases
      break;
    case Arch::qwen2_moe:
      read_core(r, false, "qwen2_moe", out);
      s.qkv_bias = r.boolean_or("qkv_bias", true);
      read_qwen_moe(r, out);
      // Qwen2MoeSparseMoeBlock: one shared expert of its own width behind a
      // sigmoid gate (Linear d_model → 1), beside the routed experts.
      s.shared_experts = 1;
      s.shared_expert_d_ff = r.integer("shared_expert_intermediate_size", 1, kMaxFfnWidth);
      s.shared_expert_gate = true;
      break;
    case Arch::qwen3:
      read_core(r, false, "qwen3", out);
      read_attention_bias(r, s);
      read_qwen3_qk_norm(r, s);
      break;
    case Arch::qwen3_moe:
      read_core(r, false, "qwen3_moe", out);
      read_attention_bias(r, s);
      read_qwen3_qk_norm(r, s);
      read_qwen_moe(r, out);
      break;
    case Arch::gemma:
      read_core(r, true, "gemma", out);
      read_attention_bias(r, s);
      break;
    case Arch::gemma2:
    case Arch::gemma3_text:
      read_core(r, true, family.model_type, out);
      read_attention_bias(r, s);
      // Gemma-2/3 normalise before and after both attention and MLP.
      s.norms_per_layer = 4;
      if (family.arch == Arch::gemma3_text) s.qk_norm = QkNorm::per_head;
      break;
    case Arch::gemma3: read_gemma3_multimodal(r, source, out); break;
    case Arch::phi3:
      // Fused qkv_proj and gate_up_proj: the same count as separate matrices.
      read_core(r, false, "phi3", out);
      break;
    case Arch::olmo2:
      read_core(r, false, "olmo2", out);
      read_attention_bias(r, s);
      // OLMo-2 normalises the whole query and key projections and puts its
      // two norms after attention and after the MLP.
      s.qk_norm = QkNorm::full_width;
      break;
    case Arch::deepseek_v2: read_deepseek(r, false, out); break;
    case Arch::deepseek_v3: read_deepseek(r, true, out); break;
    case Arch::falcon: read_falcon(r, out); break;
  }
}

}  // namespace

ImportedConfig import_hf_config(std::string_view bytes, std::string_view source) {
  const QJsonObject obj = config_object(bytes, source);
  const Reader r(obj, source);

  ImportedConfig out;
  out.family = r.string("model_type", "one of " + supported_config_families());
  const Family* fam = nullptr;
  for (const Family& f : kFamilies)
    if (out.family == f.model_type) fam = &f;
  if (fam == nullptr)
    throw std::invalid_argument(std::string(source) + ": model_type \"" + out.family.substr(0, 40) +
                                "\": this architecture is not supported yet (supported: " +
                                supported_config_families() + "); " + count_by_hand_hint());
  check_architectures(r, *fam, out);
  out.dtype = r.string_or("torch_dtype", r.string_or("dtype", ""));
  const QJsonValue q = r.raw("quantization_config");
  if (q.isObject()) {
    out.quantization = q.toObject().value(QLatin1String("quant_method")).toString().toStdString();
    if (out.quantization.empty()) out.quantization = "unknown";
  }

  read_family(r, *fam, source, out);
  if (fam->arch == Arch::gemma3) {
    r.mark_read("text_config");    // read by read_gemma3_multimodal
    r.mark_read("vision_config");  // not counted, and said so in the notes
  }
  require_all_modelled(r, obj, fam->model_type);
  try {
    out.shape.validate();
    (void)count_params(out.shape);
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
