// The four frameworks' keys onto a model shape and a layout. Key names and
// defaults: Megatron-LM megatron/training/arguments.py; torchtitan
// torchtitan/config/job_config.py and torchtitan/models/llama3/__init__.py;
// NeMo examples/nlp/language_modeling/conf/megatron_gpt_config.yaml;
// DeepSpeed's configuration JSON reference (deepspeed.ai/docs/config-json).
#include "framework_config.h"

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <stdexcept>

#include "csv.h"
#include "format.h"
#include "framework_keys.h"
#include "framework_text.h"
#include "model_presets.h"
#include "read_file.h"

namespace napkin {

std::string_view to_string(TrainingFramework f) {
  switch (f) {
    case TrainingFramework::megatron: return "megatron";
    case TrainingFramework::torchtitan: return "torchtitan";
    case TrainingFramework::nemo: return "nemo";
    case TrainingFramework::deepspeed: return "deepspeed";
  }
  return "megatron";
}

bool TrainingConfig::is_missing(std::string_view item) const {
  for (const std::string& m : missing)
    if (m.size() > item.size() && m.compare(0, item.size(), item) == 0 && m[item.size()] == ':')
      return true;
  return false;
}

namespace {

using framework_detail::Keys;
using framework_detail::read_expert_dispatch;
using framework_detail::read_expert_tp;
using framework_detail::read_recompute_method;
using framework_detail::read_recompute_modules;
using framework_detail::recompute_of;
using framework_detail::set_recompute_layers;

constexpr std::int64_t kMax = 10'000'000;

// The shape keys Megatron-LM and NeMo share (NeMo passes them to Megatron-Core).
void megatron_shape(const Keys& k, TrainingConfig& c, bool nemo) {
  ModelShape& s = c.shape;
  const auto layers = k.integer({"num_layers"}, 1, kMaxLayers);
  const auto hidden = k.integer({"hidden_size"}, 1, kMaxModelWidth);
  const auto heads = k.integer({"num_attention_heads"}, 1, kMaxHeads);
  if (!layers) k.missing("num_layers: " + k.why({"num_layers"}, "not in the file"));
  if (!hidden) k.missing("hidden_size: " + k.why({"hidden_size"}, "not in the file"));
  if (!heads)
    k.missing("num_attention_heads: " + k.why({"num_attention_heads"}, "not in the file"));
  std::string activation = k.text({"activation"}).value_or("gelu");
  const bool gated =
      k.boolean({"swiglu"}).value_or(false) || activation.find("glu") != std::string::npos;
  s.gated = gated;
  if (layers) s.n_layers = *layers;
  if (hidden) s.d_model = *hidden;
  if (heads) s.n_heads = *heads;
  auto ffn = k.integer({"ffn_hidden_size"}, 1, kMaxFfnWidth);
  if (!ffn && hidden) {
    // Megatron-LM arguments.py: 4h, or with SwiGLU int(4h·2/3 / 64)·64.
    ffn = gated ? (4 * *hidden * 2 / 3) / 64 * 64 : 4 * *hidden;
    k.note("ffn_hidden_size = " + std::to_string(*ffn) +
           " (Megatron-LM's default: " + (gated ? "4h·2/3 rounded down to 64" : "4h") + ")");
  }
  if (ffn)
    s.d_ff = *ffn;
  else
    k.missing("ffn_hidden_size: not in the file");
  const bool gqa = nemo ? k.value({"num_query_groups"}) != nullptr
                        : k.boolean({"group_query_attention"}).value_or(false);
  s.n_kv_heads = s.n_heads;
  if (gqa) {
    if (auto g = k.integer({"num_query_groups"}, 1, kMaxHeads))
      s.n_kv_heads = *g;
    else
      k.missing("num_query_groups: group_query_attention is set but the group count is not");
  }
  if (auto kv = k.integer({"kv_channels"}, 1, kMaxHeads))
    s.d_head = *kv;
  else if (heads && hidden)
    s.d_head = *hidden / *heads;
  if (auto v = k.integer({"padded_vocab_size", "vocab_size"}, 1, kMaxVocab))
    s.vocab = *v;
  else
    k.missing("vocab: " + k.why({"vocab_size"},
                                "set by the tokenizer, not the file; give --vocab-size or count "
                                "the model with --config"));
  const auto untie = k.boolean({"untie_embeddings_and_output_weights"});
  const auto share = k.boolean({"share_embeddings_and_output_weights"});
  s.tied_embeddings = share ? *share : !untie.value_or(false);
  const bool bias = nemo ? k.boolean({"bias"}).value_or(true)
                         : k.boolean({"add_bias_linear"})
                               .value_or(!k.boolean({"disable_bias_linear"}).value_or(false));
  s.qkv_bias = s.o_bias = s.mlp_bias = bias;
  std::string norm = k.text({"normalization"}).value_or("LayerNorm");
  std::transform(norm.begin(), norm.end(), norm.begin(),
                 [](unsigned char ch) { return std::tolower(ch); });
  s.norm_bias = norm == "layernorm";
  if (auto e = k.integer({"num_experts", "num_moe_experts"}, 1, kMaxExperts)) {
    s.n_experts = *e;
    s.top_k = k.integer({"moe_router_topk"}, 1, *e).value_or(2);
    s.expert_d_ff = k.integer({"moe_ffn_hidden_size"}, 1, kMaxFfnWidth).value_or(0);
  }
  c.shape_known = layers && hidden && heads && ffn && k.value({"padded_vocab_size", "vocab_size"});
  if (c.shape_known && s.d_model % s.n_heads != 0 && !k.value({"kv_channels"}))
    k.missing("kv_channels: hidden_size is not a multiple of num_attention_heads");
}

// dp from the world size, or named missing.
void finish_dp(const Keys& k, TrainingConfig& c, std::optional<std::int64_t> dp,
               const std::string& absent) {
  Layout& l = c.layout;
  const std::int64_t model_ranks = l.tp * l.pp * l.cp;
  if (!dp && c.n_chips) {
    if (*c.n_chips % model_ranks != 0) {
      k.missing("dp: the file's " + std::to_string(*c.n_chips) +
                " GPUs are not a multiple of tp × pp × cp = " + std::to_string(model_ranks));
      c.n_chips.reset();
      return;
    }
    dp = *c.n_chips / model_ranks;
  }
  if (dp) {
    l.dp = *dp;
    if (!c.n_chips) c.n_chips = *dp * model_ranks;
  } else {
    k.missing("dp: " + absent);
  }
}

void read_megatron(const Keys& k, TrainingConfig& c) {
  megatron_shape(k, c, false);
  Layout& l = c.layout;
  l.tp = k.axis({"tensor_model_parallel_size"}, 1, "tp");
  l.pp = k.axis({"pipeline_model_parallel_size"}, 1, "pp");
  l.cp = k.axis({"context_parallel_size"}, 1, "cp");
  l.ep = k.axis({"expert_model_parallel_size"}, 1, "ep");
  read_expert_tp(k, l);
  read_expert_dispatch(k, c);
  l.vpp = 1;
  if (auto v = k.integer({"virtual_pipeline_model_parallel_size"}, 1, 1000)) {
    l.vpp = *v;
  } else if (auto per = k.integer({"num_layers_per_virtual_pipeline_stage"}, 1, kMaxLayers)) {
    if (!c.shape_known && !k.value({"num_layers"}))
      k.missing("vpp: num_layers_per_virtual_pipeline_stage needs num_layers");
    else if (c.shape.n_layers % (l.pp * *per) != 0)
      k.fail(*k.value({"num_layers_per_virtual_pipeline_stage"}),
             "a divisor of num_layers ÷ pipeline_model_parallel_size");
    else
      l.vpp = c.shape.n_layers / (l.pp * *per);
  }
  if (auto mb = k.integer({"micro_batch_size"}, 1, 1'000'000))
    l.micro_batch = *mb;
  else
    k.missing("micro_batch_size: " +
              k.why({"micro_batch_size"}, "not in the file (Megatron-LM requires it)"));
  l.sequence_parallel = k.boolean({"sequence_parallel"}).value_or(false);
  l.recompute = recompute_of(k, {"recompute_granularity"},
                             k.boolean({"recompute_activations"}).value_or(false));
  read_recompute_method(k, c, "recompute_method", "recompute_num_layers");
  read_recompute_modules(k, c);
  l.zero = 0;
  if (auto z = k.integer({"zero_stage"}, 0, 3))
    l.zero = static_cast<int>(*z);
  else if (k.boolean({"use_torch_fsdp2"}).value_or(false))
    l.zero = 3;
  else if (k.boolean({"use_distributed_optimizer"}).value_or(false))
    l.zero = 1;
  if (auto s = k.integer({"seq_length"}, 1, 100'000'000))
    c.seq_len = *s;
  else
    c.missing.push_back("seq_length: " + k.why({"seq_length"}, "not in the file"));
  if (auto w = k.integer({"world_size"}, 1, kMax))
    c.n_chips = *w;
  else if (auto n = k.integer({"nproc_per_node"}, 1, 4096))
    c.n_chips = *n * k.integer({"nnodes"}, 1, kMax).value_or(1);
  finish_dp(k, c, k.integer({"data_parallel_size"}, 1, kMax),
            k.why({"nproc_per_node", "nnodes"},
                  "the GPU count is not in the file (torchrun --nnodes / --nproc-per-node)"));
  // Megatron Core's distributed optimizer in instances over the dp × cp ranks
  // (hybrid sharding): each instance shards, the instances are replicas.
  if (auto r = k.integer({"num_distributed_optimizer_instances"}, 1, kMax); r && *r > 1)
    hybrid_shard(k, c, *r, "num_distributed_optimizer_instances");
  if (auto g = k.integer({"global_batch_size"}, 1, 1'000'000'000))
    c.global_batch = *g;
  else if (!c.is_missing("dp") && !c.is_missing("micro_batch_size")) {
    c.global_batch = l.micro_batch * l.dp;
    k.note("global_batch_size = micro-batch × dp (Megatron-LM's default)");
  } else {
    k.missing("global_batch_size: not in the file");
  }
  if (k.value({"fp8_format", "fp8"}))
    c.precision = "fp8";
  else if (k.boolean({"bf16"}).value_or(false) || k.text({"params_dtype"}) == "torch.bfloat16")
    c.precision = "bf16";
  else if (k.boolean({"fp16"}).value_or(false))
    c.precision = "fp16";
  else
    c.precision = "fp32", k.note("precision fp32 (Megatron-LM's default without --bf16/--fp16)");
  // Megatron-DeepSpeed's scripts pass --deepspeed: Megatron's layers under
  // DeepSpeed's engine. In bf16 with ZeRO stage 0 DeepSpeed runs its
  // BF16_Optimizer, its own ZeRO-1 (BLOOM's scripts: "bf16 must use z0!").
  if (k.boolean({"deepspeed"}).value_or(false)) {
    const bool bf16_optimizer = c.precision == "bf16" && l.zero == 0;
    c.software = bf16_optimizer ? "megatron-deepspeed-bf16" : "megatron-deepspeed";
    k.note("software = " + c.software + ": --deepspeed runs Megatron's layers under DeepSpeed");
    if (bf16_optimizer) {
      l.zero = 1;
      k.note("zero = 1: in bf16 with ZeRO stage 0 DeepSpeed's BF16_Optimizer shards the update");
    }
    const TrainingSoftware& sw = software_by_name(c.software);
    if (l.pp > 1 && !offers_zero(sw, l.zero, true))
      k.note("zero = " + std::to_string(l.zero) + " with pp = " + std::to_string(l.pp) + ": " +
             std::string(sw.framework) + " runs ZeRO " + offered_zero_stages(sw, true) +
             " with pipeline parallelism only; the layout will be refused");
    return;
  }
  megatron_overlap_notes(k, c);
}

// torchtitan's Llama 3 flavors (torchtitan/models/llama3/__init__.py, vocab
// of the Llama 3 tokenizer).
std::optional<ModelShape> titan_flavor(const std::string& name, const std::string& flavor) {
  if (name != "llama3") return std::nullopt;
  if (flavor == "8B") return model_preset_shape("Llama-3-8B");
  if (flavor == "70B") return model_preset_shape("Llama-3-70B");
  if (flavor == "405B") return model_preset_shape("Llama-3.1-405B");
  return std::nullopt;
}

// The model: a flavor of torchtitan's table.
void titan_shape(const Keys& k, TrainingConfig& c) {
  const std::string name = k.text({"model.name"}).value_or("");
  const std::string flavor = k.text({"model.flavor"}).value_or("");
  if (auto s = titan_flavor(name, flavor)) {
    c.shape = *s;
    c.shape_known = true;
    k.note("model " + name + " " + flavor + " from torchtitan's flavor table");
  } else {
    k.missing("model shape: torchtitan defines flavor " + shown(flavor) + " of model " +
              shown(name) +
              " in its code, not in the TOML; Napkin knows llama3 8B, 70B and "
              "405B (give the shape with --config or the shape flags)");
  }
}

// The parallel axes, the ZeRO stage FSDP2 runs and the data-parallel degree.
void titan_layout(const Keys& k, TrainingConfig& c) {
  Layout& l = c.layout;
  l.tp = k.axis({"parallelism.tensor_parallel_degree", "training.tensor_parallel_degree"}, 1, "tp");
  l.pp = k.axis({"parallelism.pipeline_parallel_degree", "experimental.pipeline_parallel_degree"},
                1, "pp");
  l.cp = k.axis({"parallelism.context_parallel_degree", "experimental.context_parallel_degree"}, 1,
                "cp");
  l.ep = k.axis({"parallelism.expert_parallel_degree"}, 1, "ep");
  if (l.ep > 1 && l.tp > 1) {
    // torchtitan's ParallelismConfig: "EP borrows ranks from FSDP and TP"
    // (efsdp = dp_shard · cp · tp / ep): each expert whole on its rank.
    l.etp = 1;
    k.note("etp = 1: torchtitan's expert parallelism borrows its ranks from FSDP and TP");
  }
  const auto shard =
      k.integer({"parallelism.data_parallel_shard_degree", "training.data_parallel_shard_degree"},
                -1, kMax)
          .value_or(-1);
  const auto replicate = k.integer({"parallelism.data_parallel_replicate_degree",
                                    "training.data_parallel_replicate_degree"},
                                   1, kMax)
                             .value_or(1);
  if (shard == 0)
    k.fail(
        *k.value({"parallelism.data_parallel_shard_degree", "training.data_parallel_shard_degree"}),
        "-1 or a degree >= 1");
  // FSDP2's fully_shard shards parameters, gradients and states (ZeRO-3);
  // fsdp_reshard_after_forward "never" keeps the gathered weights to the
  // backward (ZeRO-2).
  const bool never = k.text({"parallelism.fsdp_reshard_after_forward"}) == "never";
  l.zero = shard == 1 ? 0 : never ? 2 : 3;
  if (l.zero == 3)
    k.note("zero = 3: torchtitan shards with FSDP2 over the data-parallel shard dimension");
  if (l.zero == 2)
    k.note(
        "zero = 2: FSDP2 without resharding after the forward (fsdp_reshard_after_forward "
        "never)");
  if (l.tp > 1)
    k.note("sequence parallel on: torchtitan's tensor-parallel plan shards the norms over TP");
  l.sequence_parallel = l.tp > 1;
  finish_dp(k, c, shard > 0 ? std::optional<std::int64_t>(shard * replicate) : std::nullopt,
            "data_parallel_shard_degree is -1 (the GPUs left over) and the TOML does not give "
            "the GPU count (NGPU of run_train.sh)");
  // HSDP: FSDP2 over the shard dimension (with CP folded in, torchtitan's
  // dp_shard_cp mesh), replicated over the replicate dimension.
  if (replicate > 1 && l.zero > 0) hybrid_shard(k, c, replicate, "data_parallel_replicate_degree");
}

// The sequence, the micro-batch and the global batch.
void titan_batch(const Keys& k, TrainingConfig& c) {
  Layout& l = c.layout;
  if (auto s = k.integer({"training.seq_len"}, 1, 100'000'000))
    c.seq_len = *s;
  else
    k.missing("seq_len: not in the file");
  const auto local = k.integer({"training.local_batch_size", "training.batch_size"}, 1, 1'000'000);
  if (!local) k.missing("local_batch_size: not in the file");
  if (l.pp > 1) {
    l.micro_batch =
        k.integer({"parallelism.pipeline_parallel_microbatch_size"}, 1, 1'000'000).value_or(1);
    const std::string sched = k.text({"parallelism.pipeline_parallel_schedule",
                                      "experimental.pipeline_parallel_schedule"})
                                  .value_or("1F1B");
    const auto per = k.integer({"parallelism.pipeline_parallel_layers_per_stage"}, 1, kMaxLayers);
    if (per && c.shape_known) {
      if (c.shape.n_layers % (l.pp * *per) != 0)
        k.fail(*k.value({"parallelism.pipeline_parallel_layers_per_stage"}),
               "a divisor of the layers ÷ pipeline degree");
      l.vpp = c.shape.n_layers / (l.pp * *per);
    } else if (sched.find("Interleaved") != std::string::npos ||
               sched.find("Looped") != std::string::npos) {
      k.missing("vpp: schedule " + sched + " without pipeline_parallel_layers_per_stage");
    }
  } else if (local) {
    l.micro_batch = *local;
  }
  if (auto g = k.integer({"training.global_batch_size"}, -1, 1'000'000'000); g && *g > 0)
    c.global_batch = *g;
  else if (local && !c.is_missing("dp"))
    c.global_batch = *local * l.dp;
  else
    k.missing("global_batch_size: local_batch_size × dp, and dp is not known");
}

// Activation checkpointing: torchtitan's mode and its selective option.
void titan_recompute(const Keys& k, TrainingConfig& c) {
  Layout& l = c.layout;
  l.recompute = recompute_of(k, {"activation_checkpoint.mode"}, true);
  if (!k.value({"activation_checkpoint.mode"}))
    k.note("recompute = selective (torchtitan's default activation_checkpoint.mode)");
  // Selective: selective_ac_option "op", torchtitan's op-level policy, or
  // "k" (its default "2", config_manager.py / job_config.py), checkpointing
  // every k-th block (apply_ac): 1/k of the layers recomputed in full.
  if (l.recompute == Checkpointing::selective) {
    const auto given = k.text({"activation_checkpoint.selective_ac_option"});
    const std::string option = given.value_or("2");
    if (!given) k.note("selective_ac_option = \"2\" (torchtitan's default)");
    if (option == "op" && c.shape_known && (c.shape.is_moe() || c.shape.is_mla())) {
      k.missing(
          "recompute: torchtitan's op-level policy (selective_ac_option \"op\") is "
          "priced for dense blocks only");
    } else if (option == "op") {
      l.recompute_modules = kRecomputeOp;
    } else {
      const std::optional<std::int64_t> every =
          given ? k.integer({"activation_checkpoint.selective_ac_option"}, 1, 100'000)
                : std::optional<std::int64_t>(2);
      if (!c.shape_known) {
        k.missing("recompute: selective_ac_option " + option + " needs the model's layers");
      } else {
        const std::int64_t per_chunk = c.shape.n_layers / (l.pp * l.vpp);
        set_recompute_layers(c, std::max<std::int64_t>(1, per_chunk / *every));
        k.note("recompute = " + std::string(l.recompute_layers > 0 ? "full:" : "full") +
               (l.recompute_layers > 0 ? std::to_string(l.recompute_layers) : "") +
               ": torchtitan recomputes one block in every " + option + " (selective_ac_option)");
      }
    }
  }
}

// Eager or compiled, and the training precision.
void titan_software(const Keys& k, TrainingConfig& c) {
  // torch.compile fuses the element-wise work eager PyTorch runs op by op
  // ([compile] enable; [training] compile before torchtitan's 2025 configs).
  const auto compiled = k.boolean({"compile.enable", "training.compile"});
  c.software = compiled.value_or(false) ? "fsdp-compile" : "fsdp";
  if (!compiled) k.note("software = fsdp: torchtitan runs eager unless [compile] enable = true");
  if (compiled.value_or(false) && !k.boolean({"compile.enable"}))
    k.note(
        "software = fsdp-compile: [training] compile (torchtitan before 2025) compiled the "
        "blocks and left the loss eager; the preset compiles the loss, as [compile] "
        "components does by default");
  const std::string conv = k.text({"model.converters"}).value_or("");
  if (conv.find("float8") != std::string::npos)
    c.precision = "fp8";
  else
    c.precision = k.text({"training.mixed_precision_param"}).value_or("bfloat16") == "float32"
                      ? "fp32"
                      : "bf16";
}

void read_torchtitan(const Keys& k, TrainingConfig& c) {
  titan_shape(k, c);
  titan_layout(k, c);
  titan_batch(k, c);
  titan_recompute(k, c);
  titan_software(k, c);
}

void read_nemo(const Keys& k, TrainingConfig& c) {
  megatron_shape(k, c, true);
  Layout& l = c.layout;
  l.tp = k.axis({"tensor_model_parallel_size"}, 1, "tp");
  l.pp = k.axis({"pipeline_model_parallel_size"}, 1, "pp");
  l.cp = k.axis({"context_parallel_size"}, 1, "cp");
  l.ep = k.axis({"expert_model_parallel_size"}, 1, "ep");
  read_expert_tp(k, l);
  read_expert_dispatch(k, c);
  l.vpp = k.integer({"virtual_pipeline_model_parallel_size"}, 1, 1000).value_or(1);
  if (auto mb = k.integer({"micro_batch_size"}, 1, 1'000'000))
    l.micro_batch = *mb;
  else
    k.missing("micro_batch_size: not in the file");
  l.sequence_parallel = k.boolean({"sequence_parallel"}).value_or(false);
  l.recompute = recompute_of(k, {"activations_checkpoint_granularity"}, false);
  read_recompute_method(k, c, "activations_checkpoint_method", "activations_checkpoint_num_layers");
  read_recompute_modules(k, c);
  const std::string optim = k.text({"optim.name"}).value_or("");
  l.zero = k.boolean({"fsdp"}).value_or(false) ? 3 : optim == "distributed_fused_adam" ? 1 : 0;
  // NeMo 1.0's optimizer: Apex's distributed Adam, the nemo-1.0 preset.
  if (optim == "distributed_fused_adam") {
    c.software = "nemo-1.0";
    k.note("software = nemo-1.0: optim.name distributed_fused_adam is Apex's distributed Adam");
    if (k.boolean({"ub_tp_comm_overlap"}).value_or(false))
      k.note(
          "ub_tp_comm_overlap: nemo-1.0 prices the backward TP overlap only; the userbuffers "
          "forward overlap is the tp-overlap preset's");
    if (k.text({"optim.dtype"}).value_or("") == "bf16")
      k.note("optim.dtype bf16: nemo-1.0 prices fp32 optimizer states (10 bytes per parameter)");
  }
  if (auto s = k.integer({"encoder_seq_length", "seq_length"}, 1, 100'000'000))
    c.seq_len = *s;
  else
    k.missing("encoder_seq_length: " + k.why({"encoder_seq_length"}, "not in the file"));
  const auto devices = k.integer({"trainer.devices"}, 1, 4096);
  const auto nodes = k.integer({"trainer.num_nodes"}, 1, kMax);
  if (devices) c.n_chips = *devices * nodes.value_or(1);
  finish_dp(k, c, std::nullopt,
            k.why({"trainer.devices"}, "trainer.devices × trainer.num_nodes is not in the file"));
  if (auto g = k.integer({"global_batch_size"}, 1, 1'000'000'000))
    c.global_batch = *g;
  else
    k.missing("global_batch_size: not in the file");
  const std::string p = k.text({"trainer.precision"}).value_or("");
  if (k.boolean({"fp8"}).value_or(false))
    c.precision = "fp8";
  else if (p.find("bf16") != std::string::npos)
    c.precision = "bf16";
  else if (p == "16" || p.find("16-mixed") != std::string::npos)
    c.precision = "fp16";
  else if (p == "32")
    c.precision = "fp32";
  else
    k.missing("precision: trainer.precision is not in the file");
}

void read_deepspeed(const Keys& k, TrainingConfig& c) {
  k.missing("model shape: a DeepSpeed config holds no model (import the launch script too)");
  k.missing("seq_len: a DeepSpeed config holds no sequence length");
  k.missing("tp: not in a DeepSpeed config (Megatron-DeepSpeed takes it on the command line)");
  k.missing("pp: not in a DeepSpeed config (Megatron-DeepSpeed takes it on the command line)");
  Layout& l = c.layout;
  const auto batch = k.integer({"train_batch_size"}, 1, 1'000'000'000);
  const auto micro = k.integer({"train_micro_batch_size_per_gpu"}, 1, 1'000'000);
  const auto accum = k.integer({"gradient_accumulation_steps"}, 1, 1'000'000);
  if (micro)
    l.micro_batch = *micro;
  else
    k.missing("train_micro_batch_size_per_gpu: " +
              k.why({"train_micro_batch_size_per_gpu"}, "not in the file"));
  if (batch)
    c.global_batch = *batch;
  else
    k.missing("train_batch_size: " + k.why({"train_batch_size"}, "not in the file"));
  // DeepSpeed: train_batch_size = micro × accumulation steps × data-parallel size.
  if (batch && micro && accum) {
    if (*batch % (*micro * *accum) != 0)
      k.fail(*k.value({"train_batch_size"}),
             "a multiple of train_micro_batch_size_per_gpu × gradient_accumulation_steps");
    l.dp = *batch / (*micro * *accum);
  } else {
    k.missing(
        "dp: DeepSpeed derives it from the world size; the file gives not all of train_batch_size, "
        "train_micro_batch_size_per_gpu and gradient_accumulation_steps");
  }
  l.zero = static_cast<int>(k.integer({"zero_optimization.stage"}, 0, 3).value_or(0));
  l.sequence_parallel = false;
  l.recompute = Checkpointing::none;
  if (k.find({"activation_checkpointing.partition_activations",
              "activation_checkpointing.number_checkpoints"}))
    k.missing(
        "recompute: the activation_checkpointing section configures it, but the model code decides "
        "which layers recompute");
  else
    k.note("recompute = none (no activation_checkpointing section)");
  if (k.boolean({"bf16.enabled"}).value_or(false))
    c.precision = "bf16";
  else if (k.boolean({"fp16.enabled"}).value_or(false))
    c.precision = "fp16";
  else if (k.find({"bf16.enabled", "fp16.enabled"}) && !k.value({"bf16.enabled", "fp16.enabled"}))
    k.missing("precision: bf16/fp16 \"enabled\" is \"auto\" (set by the trainer)");
  else
    c.precision = "fp32", k.note("precision fp32 (DeepSpeed's default without bf16/fp16)");
}

}  // namespace

TrainingFramework detect_framework(std::string_view source, std::string_view text) {
  auto ends = [&](std::string_view ext) {
    return source.size() >= ext.size() && source.substr(source.size() - ext.size()) == ext;
  };
  if (ends(".toml")) return TrainingFramework::torchtitan;
  if (ends(".yaml") || ends(".yml")) return TrainingFramework::nemo;
  if (ends(".json")) return TrainingFramework::deepspeed;
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i < text.size() && text[i] == '{') return TrainingFramework::deepspeed;
  return TrainingFramework::megatron;
}

TrainingConfig import_training_config(std::string_view text, std::string_view source,
                                      TrainingFramework framework) {
  TrainingConfig c;
  c.framework = framework;
  c.source = std::string(source);
  switch (framework) {
    case TrainingFramework::megatron: {
      const ConfigEntries e = read_argument_list(text, source);
      read_megatron(Keys(e, c), c);
      break;
    }
    case TrainingFramework::torchtitan: {
      const ConfigEntries e = read_toml(text, source);
      read_torchtitan(Keys(e, c), c);
      break;
    }
    case TrainingFramework::nemo: {
      ConfigEntries e = read_yaml(text, source);
      // The model's keys without their `model.` prefix, beside the trainer's.
      for (ConfigEntry& x : e.entries)
        if (x.key.rfind("model.", 0) == 0) x.key.erase(0, 6);
      read_nemo(Keys(e, c), c);
      break;
    }
    case TrainingFramework::deepspeed: {
      const ConfigEntries e = read_json(text, source);
      read_deepspeed(Keys(e, c), c);
      break;
    }
  }
  return c;
}

TrainingConfig import_training_config_file(const std::string& path,
                                           std::optional<TrainingFramework> framework) {
  std::string text, error;
  if (!read_file_capped(path, kMaxConfigBytes, &text, &error)) throw std::invalid_argument(error);
  return import_training_config(text, path, framework ? *framework : detect_framework(path, text));
}

Scenario apply_to_scenario(const TrainingConfig& c, Scenario s) {
  if (c.shape_known) {
    s.shape = c.shape;
    s.model_name = "imported from " + c.source.substr(c.source.find_last_of('/') + 1);
  }
  if (c.n_chips) s.n_chips = *c.n_chips;
  if (c.seq_len) s.training.seq_len = *c.seq_len;
  // Only what the file states (or the framework's documented default) is taken.
  if (!c.is_missing("micro_batch_size") && !c.is_missing("local_batch_size") &&
      !c.is_missing("train_micro_batch_size_per_gpu"))
    s.training.micro_batch = c.layout.micro_batch;
  if (!c.is_missing("recompute")) s.training.checkpointing = c.layout.recompute;
  s.training.zero_stage = c.layout.zero;
  if (!c.is_missing("dp")) s.training.dp_degree = c.layout.dp;
  if (c.precision == "fp32")
    s.training.precision = Precision::fp32;
  else if (c.precision == "fp8")
    s.training.precision = Precision::mixed_fp8;
  else if (!c.precision.empty())
    s.training.precision = Precision::mixed_bf16;
  if (!c.software.empty()) s.parallel.software = c.software;
  if (c.ep_dispatch) s.parallel.ep_dispatch = c.ep_dispatch;
  if (c.global_batch && c.seq_len) s.parallel.global_batch_tokens = *c.global_batch * *c.seq_len;
  if (!c.is_missing("dp") && !c.is_missing("tp") && !c.is_missing("pp") && !c.is_missing("vpp"))
    s.parallel.chosen = c.layout;
  s.validate();
  return s;
}

}  // namespace napkin
