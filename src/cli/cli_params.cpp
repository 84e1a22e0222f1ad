// napkin-cli params: a model's parameter count, from a config.json, a model
// folder or flags, with the parts modern checkpoints add (MLA, shared
// experts, dense-first layers, QK-norm, extra norms, biases, MTP modules).
#include "cli_params.h"

#include <cstdio>
#include <string>
#include <vector>

#include "cli_common.h"
#include "format.h"

namespace napkin::cli {

void read_shape_widths(Args& a, ModelShape& s) {
  s.n_layers = a.required_count_input("model.layers");
  s.d_model = a.required_count_input("model.d_model");
  s.d_ff = a.required_count_input("model.d_ff");
  s.n_heads = a.required_count_input("model.heads");
  s.vocab = a.required_count_input("model.vocab");
}

std::int64_t read_kv_heads(Args& a, std::int64_t heads) {
  const std::int64_t kv = a.optional_count_input("model.kv_heads").value_or(heads);
  if (kv > heads)
    throw UsageError("--kv-heads must be at most --heads = " + format_grouped(heads) + "; got " +
                     format_grouped(kv));
  return kv;
}

namespace {

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(',', start);
    out.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

// "1536,512,128,64,128" → five whole numbers ≥ 0.
std::vector<std::int64_t> integer_list(const char* flag, const std::string& text, std::size_t n,
                                       const char* meaning) {
  const std::string expected =
      std::to_string(n) + " comma-separated whole numbers (" + meaning + ")";
  const auto parts = split_commas(text);
  if (parts.size() != n)
    throw UsageError(std::string(flag) + " must be " + expected + "; got \"" + text + "\"");
  std::vector<std::int64_t> out;
  for (const std::string& p : parts) {
    std::size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(p, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (p.empty() || used != p.size() || v < 0 || v > 1'000'000)
      throw UsageError(std::string(flag) + " must be " + expected + " in [0, 1,000,000]; got \"" +
                       text + "\"");
    out.push_back(v);
  }
  return out;
}

void apply_bias_list(ModelShape& s, const std::string& text) {
  for (const std::string& part : split_commas(text)) {
    if (part == "qkv")
      s.qkv_bias = true;
    else if (part == "out")
      s.o_bias = true;
    else if (part == "mlp")
      s.mlp_bias = true;
    else if (part == "norm")
      s.norm_bias = true;
    else
      throw UsageError("--bias must be a comma-separated list of qkv, out, mlp, norm; got \"" +
                       text + "\"");
  }
}

ModelShape shape_by_hand(Args& a) {
  ModelShape s;
  read_shape_widths(a, s);
  if (auto mla = a.value("--mla")) {
    const auto v = integer_list("--mla", *mla, 5, "q_lora,kv_lora,nope,rope,v; q_lora 0 = none");
    s.q_lora_rank = v[0];
    s.kv_lora_rank = v[1];
    s.qk_nope_head_dim = v[2];
    s.qk_rope_head_dim = v[3];
    s.v_head_dim = v[4];
    if (s.kv_lora_rank < 1 || s.qk_nope_head_dim < 1 || s.qk_rope_head_dim < 1 || s.v_head_dim < 1)
      throw UsageError("--mla needs kv_lora, nope, rope and v of at least 1; got \"" + *mla + "\"");
    s.d_head = s.qk_nope_head_dim + s.qk_rope_head_dim;
    if (a.given("--head-dim") || a.given("--kv-heads"))
      throw UsageError(
          "--head-dim and --kv-heads do not apply with --mla (head_dim = nope + rope; every head "
          "has its own key and value)");
    s.n_kv_heads = s.n_heads;
  } else {
    s.n_kv_heads = read_kv_heads(a, s.n_heads);
    if (s.d_model % s.n_heads != 0 && !a.given("--head-dim"))
      throw UsageError("--head-dim is required when --d-model is not a multiple of --heads");
    if (!a.given("--head-dim") && s.d_model / s.n_heads > kMaxHeads)
      throw UsageError("--d-model / --heads = " + format_grouped(s.d_model / s.n_heads) +
                       " elements per head is above the " + format_grouped(kMaxHeads) +
                       " limit of --head-dim; give --head-dim or more --heads");
    s.d_head = a.optional_count_input("model.head_dim").value_or(s.d_model / s.n_heads);
  }
  s.tied_embeddings = a.switch_input("model.tied_embeddings");
  s.gated = a.switch_input("model.gated");
  if (auto b = a.value("--bias")) apply_bias_list(s, *b);
  s.qk_norm = parse_qk_norm(a.choice("--qk-norm", "none", {"none", "per-head", "full-width"}));
  s.norms_per_layer = a.integer("--norms", 2, 0, 8, "norm vectors per block");
  s.parallel_blocks = a.flag("--parallel");
  s.mtp_modules = a.integer("--mtp", 0, 0, 100, "multi-token-prediction modules");
  if (auto e = a.optional_integer("--experts", 1, kMaxExperts, "experts")) {
    s.n_experts = *e;
    s.top_k = a.required_integer("--top-k", 1, *e, "experts per token");
    s.shared_experts = a.integer("--shared-experts", 0, 0, kMaxSharedExperts, "experts");
    s.expert_d_ff = a.integer("--expert-d-ff", 0, 0, kMaxFfnWidth, "elements (0 = d_ff)");
    s.shared_expert_d_ff =
        a.integer("--shared-expert-d-ff", 0, 0, kMaxFfnWidth, "elements (0 = expert width)");
    s.shared_expert_gate = a.flag("--shared-expert-gate");
    s.router_bias = a.flag("--router-bias");
    s.n_dense_layers = a.integer("--dense-layers", 0, 0, s.n_layers, "dense-MLP blocks");
  } else {
    for (const char* f : {"--top-k", "--shared-experts", "--expert-d-ff", "--shared-expert-d-ff",
                          "--shared-expert-gate", "--router-bias", "--dense-layers"})
      if (a.value(f)) throw UsageError(std::string(f) + " needs --experts E (an MoE model)");
  }
  return s;
}

QJsonObject layer_json(const LayerParams& p) {
  return QJsonObject{{"attn", json_int(p.attn)},
                     {"mlp", json_int(p.mlp)},
                     {"router", json_int(p.router)},
                     {"norms", json_int(p.norms)},
                     {"total", json_int(p.total)}};
}

QJsonArray strings_json(const std::vector<std::string>& v) {
  QJsonArray out;
  for (const std::string& s : v) out.append(QString::fromStdString(s));
  return out;
}

void print_help() {
  std::printf(
      "napkin-cli params — a model's parameter count, exactly\n\n"
      "usage: %s\n\n"
      "From a checkpoint\n"
      "  --config FILE             a Hugging Face config.json (families: %s)\n"
      "  --model-dir DIR           a folder with config.json and, when present,\n"
      "                            model.safetensors.index.json: its total size / bytes per dtype "
      "is\n"
      "                            compared with the count and the difference explained\n\n"
      "By hand (what a config does not cover)\n"
      "  --layers L --d-model D --d-ff F --heads H --vocab V   required\n"
      "  --kv-heads K              key/value heads (default H: MHA; 1 is multi-query attention)\n"
      "  --head-dim HD             per-head width (default D / H)\n"
      "  --tied                    the output head shares the input embedding\n"
      "  --no-gated                a two-matrix MLP (GELU) instead of SwiGLU/GeGLU's three\n"
      "  --bias qkv,out,mlp,norm   biases on W_q/W_k/W_v, on W_o, on the MLP, and LayerNorm\n"
      "                            (weight + bias) instead of RMSNorm\n"
      "  --norms N                 norm vectors per block (default 2; Gemma-2/3: 4; Falcon-7B: 1)\n"
      "  --qk-norm per-head|full-width   QK-norm: 2 x head_dim (Qwen3, Gemma-3) or\n"
      "                            (H + K) x head_dim (OLMo-2)\n"
      "  --parallel                attention and MLP read the same input (Falcon, GPT-J); set\n"
      "                            --norms to the block's norm count\n"
      "  --mla q_lora,kv_lora,nope,rope,v   multi-head latent attention (DeepSeek-V2/V3);\n"
      "                            q_lora 0 = queries straight from d_model; head_dim = nope + "
      "rope;\n"
      "                            the KV cache holds kv_lora + rope values per token per layer\n"
      "  --mtp N                   multi-token-prediction modules (DeepSeek-V3: 1), counted apart\n"
      "Mixture of experts\n"
      "  --experts E --top-k K     routed experts per MoE layer, and per token\n"
      "  --expert-d-ff F           each routed expert's width (default --d-ff)\n"
      "  --shared-experts S        always-on experts per MoE layer\n"
      "  --shared-expert-d-ff F    each shared expert's width (default the routed width)\n"
      "  --shared-expert-gate      a sigmoid gate (d_model -> 1) on the shared expert (Qwen2-MoE)\n"
      "  --router-bias             a bias per routed expert (DeepSeek-V3's noaux_tc routing)\n"
      "  --dense-layers N          layers that keep a dense MLP of width --d-ff (DeepSeek: 3)\n\n"
      "Output\n"
      "  --json                    one JSON object: total, active (input embedding included),\n"
      "                            active_non_embedding (without the input embedding lookup: the\n"
      "                            convention of DeepSeek's \"37B activated\"), "
      "non_embedding_total,\n"
      "                            non_embedding_active (no embedding tables at all), mtp, ...\n",
      kParamsUsage, supported_config_families().c_str());
}

}  // namespace

const char* const kParamsUsage =
    "params (--config FILE | --model-dir DIR | --layers L --d-model D --d-ff F --heads H "
    "[--kv-heads K] [--head-dim HD] --vocab V [--tied] [--no-gated] [--bias qkv,out,mlp,norm] "
    "[--norms N] [--qk-norm per-head|full-width] [--parallel] [--mla q_lora,kv_lora,nope,rope,v] "
    "[--mtp N] [--experts E --top-k K [--expert-d-ff F] [--shared-experts S] "
    "[--shared-expert-d-ff F] [--shared-expert-gate] [--router-bias] [--dense-layers N]]) "
    "[--json] [--help]";

std::optional<ShapeInput> checkpoint_shape_from_flags(Args& a) {
  const auto config = a.value("--config");
  const auto dir = a.value("--model-dir");
  if (config && dir) throw UsageError("--config and --model-dir are alternatives; give one");
  if (!config && !dir) return std::nullopt;
  ImportedConfig c = config ? import_hf_config_file(*config) : import_model_dir(*dir);
  return ShapeInput{c.shape, std::move(c)};
}

ShapeInput shape_from_flags(Args& a) {
  if (auto c = checkpoint_shape_from_flags(a)) return std::move(*c);
  return ShapeInput{shape_by_hand(a), std::nullopt};
}

namespace {

// The counts as one JSON object, with the imported family, its notes and the
// checkpoint check.
QJsonObject params_json(const ShapeInput& in, const ParamCount& c, std::int64_t kv_token,
                        const std::vector<std::string>& notes, const CheckpointCheck* ck) {
  QJsonObject o{{"total", json_int(c.total)},
                {"active", json_int(c.active)},
                {"active_non_embedding", json_int(c.active_without_input_embedding)},
                {"non_embedding_total", json_int(c.non_embedding_total)},
                {"non_embedding_active", json_int(c.non_embedding_active)},
                {"embedding", json_int(c.embedding)},
                {"input_embedding", json_int(c.input_embedding)},
                {"mtp", json_int(c.mtp)},
                {"mtp_active", json_int(c.mtp_active)},
                {"total_with_mtp", json_int(c.total + c.mtp)},
                {"moe_layers", json_int(c.n_moe_layers)},
                {"kv_cache_bytes_per_token_bf16", json_int(kv_token)},
                {"sparsity_ratio", c.sparsity_ratio()}};
  o["per_layer"] = layer_json(c.per_layer);
  o["dense_layer"] = layer_json(c.dense_layer);
  if (in.imported) {
    o["family"] = QString::fromStdString(in.imported->family);
    o["notes"] = strings_json(notes);
  }
  if (ck) {
    o["checkpoint"] = QJsonObject{{"total_size_bytes", json_int(ck->total_size_bytes)},
                                  {"dtype", QString::fromStdString(ck->dtype)},
                                  {"bytes_per_param", json_int(ck->bytes_per_param)},
                                  {"stored_params", json_int(ck->stored_params)},
                                  {"counted_params", json_int(ck->counted_params)},
                                  {"difference", json_int(ck->difference)},
                                  {"explained", json_int(ck->explained)},
                                  {"tensors", json_int(ck->tensors)},
                                  {"notes", strings_json(ck->notes)}};
  }
  return o;
}

// The counts as text: totals, per layer, the checkpoint check and the notes.
void print_params(const ShapeInput& in, const ParamCount& c, std::int64_t kv_token,
                  const std::vector<std::string>& notes, const CheckpointCheck* ck) {
  const ModelShape& s = in.shape;
  if (in.imported) std::printf("Model: %s config\n", in.imported->family.c_str());
  std::printf("Parameters\n");
  row("total",
      format_grouped(c.total) + "  (" + format_count(static_cast<double>(c.total), 2) + ")",
      kReportLabelWidth);
  row("active per token",
      format_grouped(c.active) + "  (" + format_count(static_cast<double>(c.active), 2) + ")",
      kReportLabelWidth);
  row("active w/o input embedding",
      format_grouped(c.active_without_input_embedding) + "  (" +
          format_count(static_cast<double>(c.active_without_input_embedding), 2) + ")",
      kReportLabelWidth);
  row("non-embedding total", format_grouped(c.non_embedding_total), kReportLabelWidth);
  row("non-embedding active", format_grouped(c.non_embedding_active), kReportLabelWidth);
  row("embedding",
      format_grouped(c.embedding) + "  (" +
          format_percent(static_cast<double>(c.embedding) / static_cast<double>(c.total)) +
          " of total)",
      kReportLabelWidth);
  if (s.is_moe())
    row("sparsity (total/active)", format_grouped(c.sparsity_ratio(), 2) + "x", kReportLabelWidth);
  if (c.mtp > 0) {
    row("MTP modules (apart)",
        format_grouped(c.mtp) + "  (" + format_count(static_cast<double>(c.mtp), 2) + ", " +
            std::to_string(s.mtp_modules) + " module(s))",
        kReportLabelWidth);
    row("total with MTP", format_grouped(c.total + c.mtp), kReportLabelWidth);
  }
  row("KV cache per token (bf16)",
      format_grouped(kv_token) + " B" +
          (s.is_mla() ? "  (MLA: " + std::to_string(s.kv_lora_rank + s.qk_rope_head_dim) +
                            " values per layer)"
                      : std::string()),
      kReportLabelWidth);
  if (s.is_moe()) {
    std::printf("Per layer: %lld routed MoE, %lld dense\n", static_cast<long long>(c.n_moe_layers),
                static_cast<long long>(s.n_layers - c.n_moe_layers));
  } else {
    std::printf("Per layer\n");
  }
  row("attention", format_grouped(c.per_layer.attn), kReportLabelWidth);
  row("mlp", format_grouped(c.per_layer.mlp), kReportLabelWidth);
  if (c.per_layer.router > 0) row("router", format_grouped(c.per_layer.router), kReportLabelWidth);
  row("norms", format_grouped(c.per_layer.norms), kReportLabelWidth);
  row("total", format_grouped(c.per_layer.total), kReportLabelWidth);
  if (s.is_moe() && c.n_moe_layers < s.n_layers)
    row("dense layer total", format_grouped(c.dense_layer.total), kReportLabelWidth);
  if (ck) {
    std::printf("Checkpoint (%s)\n", ck->index_source.c_str());
    row("total_size",
        format_grouped(ck->total_size_bytes) + " B" +
            (ck->dtype.empty() ? std::string() : "  (" + ck->dtype + ")"),
        kReportLabelWidth);
    if (ck->bytes_per_param > 0) {
      row("stored parameters", format_grouped(ck->stored_params), kReportLabelWidth);
      row("counted parameters", format_grouped(ck->counted_params), kReportLabelWidth);
      std::string diff = ck->difference > 0 ? "+" : "";
      diff += format_grouped(ck->difference);
      row("difference", diff, kReportLabelWidth);
    }
    for (const std::string& n : ck->notes) std::printf("  - %s\n", n.c_str());
  }
  if (!notes.empty()) {
    std::printf("Notes\n");
    for (const std::string& n : notes) std::printf("  - %s\n", n.c_str());
  }
}

}  // namespace

int run_params(Args& a) {
  if (a.flag("--help")) {
    print_help();
    return 0;
  }
  const bool json = a.flag("--json");
  const ShapeInput in = shape_from_flags(a);
  a.finish();
  const ParamCount c = count_params(in.shape);
  const std::int64_t kv_token = kv_cache_bytes_per_token(in.shape, 2);
  const std::vector<std::string> notes =
      in.imported ? in.imported->notes : std::vector<std::string>{};
  const CheckpointCheck* ck =
      in.imported && in.imported->checkpoint ? &*in.imported->checkpoint : nullptr;
  if (json)
    print_json(params_json(in, c, kv_token, notes, ck));
  else
    print_params(in, c, kv_token, notes, ck);
  return 0;
}

}  // namespace napkin::cli
