// The model's shape (model.*): its numbers registered with the rest of the
// scenario's inputs (inputs.h), so that the Budget planner's controls, the
// scenario file and napkin-cli's shape flags take the same values. Their
// ranges are the shape's own limits (algebra.h), which ModelShape::validate
// also applies; what depends on another field (KV heads dividing the heads,
// top-k at most the experts) is validate()'s to refuse. An edit renames the
// model "Custom": the shape is no longer the preset or checkpoint it came
// from.
//
// The MoE shape's numbers have no flag here: beside --scenario, --experts,
// --top-k and --shared-experts are the Budget planner's MoE candidate
// (plan.moe_*); the commands that take a shape by hand read the model's
// under those names (cli_params.cpp).
#include <array>
#include <cmath>
#include <cstdint>
#include <string_view>

#include "inputs_detail.h"
#include "scenario.h"

namespace napkin::detail {

namespace {

using S = Scenario;

void rename_custom(S& s) { s.model_name = "Custom"; }

// One count of the shape: `Member` of ModelShape in [lo, hi].
template <std::int64_t ModelShape::*Member>
ScenarioInput shape_input(ScenarioInput in) {
  in.type = InputType::count;
  in.default_value = static_cast<double>(ModelShape{S{}.shape}.*Member);
  in.get = [](const S& s) { return static_cast<double>(s.shape.*Member); };
  in.set = [](S& s, double v) { s.shape.*Member = std::llround(v); };
  in.edited = rename_custom;
  return in;
}

}  // namespace

std::span<const ScenarioInput> model_inputs() {
  static const std::array kModel{
      shape_input<&ModelShape::n_layers>(
          {.key = "model.layers",
           .section = "model",
           .json_key = "layers",
           .flag = "--layers",
           .label = "Layers",
           .unit = "blocks",
           .display_unit = "",
           .lo = 1,
           .hi = static_cast<double>(kMaxLayers),
           .slider_lo = 1,
           .slider_hi = 200,
           .ladder = Ladder::multipleOf(1),
           .tooltip = "Transformer blocks L (blocks). Parameters grow linearly with L."}),
      shape_input<&ModelShape::d_model>(
          {.key = "model.d_model",
           .section = "model",
           .json_key = "d_model",
           .flag = "--d-model",
           .label = "d_model",
           .unit = "elements",
           .display_unit = "",
           .lo = 1,
           .hi = static_cast<double>(kMaxModelWidth),
           .slider_lo = 64,
           .slider_hi = 32768,
           .scale = InputScale::log,
           .ladder = Ladder::multipleOf(128),
           .tooltip = "Residual width d (elements). Attention is 2·d·(n_h + n_kv)·d_head per "
                      "layer."}),
      shape_input<&ModelShape::d_ff>(
          {.key = "model.d_ff",
           .section = "model",
           .json_key = "d_ff",
           .flag = "--d-ff",
           .label = "d_ff",
           .unit = "elements",
           .display_unit = "",
           .lo = 1,
           .hi = static_cast<double>(kMaxFfnWidth),
           .slider_lo = 64,
           .slider_hi = 131072,
           .scale = InputScale::log,
           .ladder = Ladder::multipleOf(128),
           .tooltip = "MLP hidden width F (elements): 3·d·F per layer gated, 2·d·F ungated."}),
      shape_input<&ModelShape::n_heads>(
          {.key = "model.heads",
           .section = "model",
           .json_key = "heads",
           .flag = "--heads",
           .label = "Heads",
           .unit = "attention heads",
           .display_unit = "",
           .lo = 1,
           .hi = static_cast<double>(kMaxHeads),
           .slider_lo = 1,
           .slider_hi = 256,
           .ladder = Ladder::multipleOf(1),
           .tooltip = "Query heads n_h (attention heads). W_q and W_o are d × n_h·d_head."}),
      shape_input<&ModelShape::n_kv_heads>(
          {.key = "model.kv_heads",
           .section = "model",
           .json_key = "kv_heads",
           .flag = "--kv-heads",
           .label = "KV heads",
           .unit = "KV heads",
           .display_unit = "",
           .lo = 1,
           .hi = static_cast<double>(kMaxHeads),
           .slider_lo = 1,
           .slider_hi = 256,
           .ladder = Ladder::multipleOf(1),
           .tooltip = "Key/value heads n_kv (KV heads), a divisor of the query heads: n_h = MHA, "
                      "1 = MQA, in between GQA. KV cache ∝ n_kv; W_k, W_v are d × n_kv·d_head."}),
      shape_input<&ModelShape::d_head>(
          {.key = "model.head_dim",
           .section = "model",
           .json_key = "head_dim",
           .flag = "--head-dim",
           .label = "Head dim",
           .unit = "elements",
           .display_unit = "",
           .lo = 1,
           .hi = static_cast<double>(kMaxHeads),
           .slider_lo = 16,
           .slider_hi = 512,
           .scale = InputScale::log,
           .ladder = Ladder::multipleOf(16),
           .tooltip = "Elements per head d_head (usually d_model ÷ heads)."}),
      shape_input<&ModelShape::vocab>(
          {.key = "model.vocab",
           .section = "model",
           .json_key = "vocab",
           .flag = "--vocab",
           .label = "Vocabulary",
           .unit = "tokens",
           .display_unit = "tokens",
           .lo = 1,
           .hi = static_cast<double>(kMaxVocab),
           .slider_lo = 1000,
           .slider_hi = 1'000'000,
           .scale = InputScale::log,
           .ladder = Ladder::significant(2),
           .tooltip = "Vocabulary V (tokens): embedding V·d, unembedding V·d unless tied."}),
      shape_input<&ModelShape::n_experts>(
          {.key = "model.experts",
           .section = "model",
           .json_key = "experts",
           .flag = "",
           .label = "Experts",
           .unit = "routed experts",
           .display_unit = "",
           .lo = 0,
           .hi = static_cast<double>(kMaxExperts),
           .slider_lo = 0,
           .slider_hi = 512,
           .ladder = Ladder::multipleOf(1),
           .tooltip = "Routed experts per MoE layer (0 = dense). Total parameters count all "
                      "experts; active parameters count top-k (+ shared)."}),
      shape_input<&ModelShape::top_k>(
          {.key = "model.top_k",
           .section = "model",
           .json_key = "top_k",
           .flag = "",
           .label = "Top-k",
           .unit = "experts per token",
           .display_unit = "",
           .lo = 0,
           .hi = static_cast<double>(kMaxExperts),
           .slider_lo = 0,
           .slider_hi = 64,
           .ladder = Ladder::multipleOf(1),
           .tooltip = "Experts each token is routed to (1 … experts; 0 for a dense model)."}),
      shape_input<&ModelShape::shared_experts>(
          {.key = "model.shared_experts",
           .section = "model",
           .json_key = "shared_experts",
           .flag = "",
           .label = "Shared experts",
           .unit = "experts",
           .display_unit = "",
           .lo = 0,
           .hi = static_cast<double>(kMaxSharedExperts),
           .slider_lo = 0,
           .slider_hi = 8,
           .ladder = Ladder::multipleOf(1),
           .tooltip = "Always-on experts per MoE layer (DeepSeek style); 0 for a dense model."}),
      shape_input<&ModelShape::expert_d_ff>(
          {.key = "model.expert_d_ff",
           .section = "model",
           .json_key = "expert_d_ff",
           .flag = "",
           .label = "Expert d_ff",
           .unit = "elements",
           .display_unit = "",
           .lo = 0,
           .hi = static_cast<double>(kMaxFfnWidth),
           .slider_lo = 0,
           .slider_hi = 131072,
           .ladder = Ladder::multipleOf(128),
           .tooltip = "Each routed expert's hidden width (elements); 0: the dense d_ff."}),
      shape_input<&ModelShape::n_dense_layers>(
          {.key = "model.dense_layers",
           .section = "model",
           .json_key = "dense_layers",
           .flag = "",
           .label = "Dense layers",
           .unit = "dense-MLP blocks",
           .display_unit = "",
           .lo = 0,
           .hi = static_cast<double>(kMaxLayers),
           .slider_lo = 0,
           .slider_hi = 200,
           .ladder = Ladder::multipleOf(1),
           .tooltip = "Blocks of an MoE model that keep a dense MLP of width d_ff (DeepSeek's "
                      "first_k_dense_replace); 0 for a dense model."}),
  };
  return kModel;
}

}  // namespace napkin::detail
