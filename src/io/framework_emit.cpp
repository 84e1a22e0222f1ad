// Launch flags for a layout: Megatron-LM (megatron/training/arguments.py),
// torchtitan (torchtitan/config/job_config.py), vLLM (`vllm serve` engine
// arguments) and TensorRT-LLM (convert_checkpoint.py --tp_size/--pp_size,
// trtllm-build --max_batch_size/--max_input_len/--max_seq_len). Each is read
// back by framework_config.cpp / parse_serving_flags, and a test checks the
// round trip.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "framework_config.h"
#include "framework_text.h"
#include "hardware.h"
#include "validate.h"

namespace napkin {

namespace {

std::string n(std::int64_t v) { return std::to_string(v); }

void check(const TrainingJob& job, const Layout& l) {
  job.validate();
  if (auto why = layout_problem(job, l)) throw std::invalid_argument("--layout: " + *why);
}

}  // namespace

EmittedFlags emit_megatron(const TrainingJob& job, const Layout& l) {
  check(job, l);
  EmittedFlags out;
  const ModelShape& s = job.shape;
  const std::int64_t per_node =
      std::min<std::int64_t>(chip_by_name(job.chip).network.chips_per_node, l.chips());
  std::vector<std::string> f;
  f.push_back("torchrun --nnodes " + n(l.chips() / per_node) + " --nproc-per-node " + n(per_node) +
              " pretrain_gpt.py");
  f.push_back("--num-layers " + n(s.n_layers));
  f.push_back("--hidden-size " + n(s.d_model));
  f.push_back("--ffn-hidden-size " + n(s.d_ff));
  f.push_back("--num-attention-heads " + n(s.n_heads));
  if (s.n_kv_heads != s.n_heads)
    f.push_back("--group-query-attention --num-query-groups " + n(s.n_kv_heads));
  if (s.d_head * s.n_heads != s.d_model) f.push_back("--kv-channels " + n(s.d_head));
  if (s.gated) f.push_back("--swiglu");
  if (!s.tied_embeddings) f.push_back("--untie-embeddings-and-output-weights");
  if (!s.qkv_bias && !s.mlp_bias) f.push_back("--disable-bias-linear");
  f.push_back(std::string("--normalization ") + (s.norm_bias ? "LayerNorm" : "RMSNorm"));
  f.push_back("--vocab-size " + n(s.vocab));
  out.caveats.push_back(
      "--vocab-size stands for the tokenizer: replace it with your --tokenizer-type and its "
      "files (Megatron-LM pads the vocabulary to a multiple of 128 × tp)");
  if (s.is_moe()) {
    f.push_back("--num-experts " + n(s.n_experts) + " --moe-router-topk " + n(s.top_k));
    if (s.expert_d_ff > 0) f.push_back("--moe-ffn-hidden-size " + n(s.expert_d_ff));
  }
  f.push_back("--seq-length " + n(job.seq_len) + " --max-position-embeddings " + n(job.seq_len));
  f.push_back("--tensor-model-parallel-size " + n(l.tp));
  f.push_back("--pipeline-model-parallel-size " + n(l.pp));
  if (l.vpp > 1)
    f.push_back("--num-layers-per-virtual-pipeline-stage " + n(s.n_layers / (l.pp * l.vpp)));
  if (l.cp > 1) f.push_back("--context-parallel-size " + n(l.cp));
  if (l.ep > 1) f.push_back("--expert-model-parallel-size " + n(l.ep));
  if (s.is_moe() && l.expert_tp() != l.tp)
    f.push_back("--expert-tensor-parallel-size " + n(l.expert_tp()));
  if (s.is_moe() && l.ep > 1 && job.software.ep_dispatch == EpDispatch::deduplicated)
    f.push_back("--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend deepep");
  if (l.sequence_parallel && l.tp > 1) f.push_back("--sequence-parallel");
  if (l.sequence_parallel && l.tp == 1)
    out.caveats.push_back("sequence parallelism has no effect at tp = 1; not emitted");
  f.push_back("--micro-batch-size " + n(l.micro_batch));
  f.push_back("--global-batch-size " + n(job.global_batch));
  if (l.recompute == Checkpointing::full && l.recompute_layers > 0)
    f.push_back("--recompute-granularity full --recompute-method block --recompute-num-layers " +
                n(l.recompute_layers));
  else if (l.recompute == Checkpointing::full)
    f.push_back("--recompute-granularity full --recompute-method uniform --recompute-num-layers " +
                n(l.recompute_group));
  else if (l.recompute == Checkpointing::selective && l.recompute_modules == kRecomputeOp) {
    f.push_back("--recompute-granularity selective");
    out.caveats.push_back(
        "recompute=selective:op is torchtitan's op-level policy, which Megatron-LM does not "
        "have; emitted as selective (the attention core), which keeps more and recomputes less");
  } else if (l.recompute == Checkpointing::selective && l.recompute_modules != 0) {
    std::string modules = recompute_modules_text(l.recompute_modules);
    std::replace(modules.begin(), modules.end(), '+', ' ');
    f.push_back("--recompute-granularity selective --recompute-modules " + modules);
  } else if (l.recompute == Checkpointing::selective)
    f.push_back("--recompute-granularity selective");
  // Megatron-DeepSpeed: DeepSpeed's ZeRO stage and its fp16 (the preset's
  // gradients); in bf16 its BF16_Optimizer, ZeRO stage 0, shards the update.
  const bool deepspeed = job.software.framework == software_by_name("megatron-deepspeed").framework;
  const bool bf16_optimizer = deepspeed && job.software.zero1_all_reduce;
  if (deepspeed) {
    f.push_back("--deepspeed --zero-stage " + n(bf16_optimizer ? 0 : l.zero));
    out.caveats.push_back(
        "DeepSpeed also reads its JSON (--deepspeed_config): its train_batch_size, "
        "train_micro_batch_size_per_gpu and zero_optimization.stage must agree with these");
  } else {
    if (l.zero == 1 || l.zero == 2) f.push_back("--use-distributed-optimizer");
    if (l.zero_replicas() > 1 && (l.zero == 1 || l.zero == 2))
      f.push_back("--num-distributed-optimizer-instances " + n(l.zero_replicas()));
    if (l.zero_replicas() > 1 && l.zero == 3)
      out.caveats.push_back("shard = " + n(l.zero_shard()) +
                            ": Megatron-LM's --use-torch-fsdp2 shards over every data-parallel "
                            "rank; its hybrid sharding is the distributed optimizer's instances "
                            "(zero=1)");
    if (l.zero == 2)
      out.caveats.push_back(
          "ZeRO-2: Megatron-LM's distributed optimizer shards the optimizer states and "
          "reduce-scatters the gradients; it reads back as zero=1");
    if (l.zero == 3) f.push_back("--use-torch-fsdp2");
  }
  if (deepspeed && !bf16_optimizer)
    f.push_back("--fp16");
  else
    f.push_back(job.software.fp8_matmuls ? "--bf16 --fp8-format hybrid" : "--bf16");
  if (job.software.fp8_matmuls && job.software.fp8_recipe != Fp8Recipe::delayed)
    f.push_back("--fp8-recipe " + std::string(to_string(job.software.fp8_recipe)));
  if (job.software.fp8_matmuls && job.software.fp8_bf16_edge_layers > 0)
    f.push_back("--first-last-layers-bf16 --num-layers-at-start-in-bf16 " +
                n(job.software.fp8_bf16_edge_layers) + " --num-layers-at-end-in-bf16 " +
                n(job.software.fp8_bf16_edge_layers));
  for (std::size_t i = 0; i < f.size(); ++i)
    out.text += (i ? "  " : "") + f[i] + (i + 1 < f.size() ? " \\\n" : "\n");
  return out;
}

EmittedFlags emit_torchtitan(const TrainingJob& job, const Layout& l) {
  check(job, l);
  EmittedFlags out;
  const ModelShape& s = job.shape;
  std::string flavor;
  for (const char* f : {"8B", "70B", "405B"}) {
    ModelShape t;
    const std::string text = std::string("[model]\nname = \"llama3\"\nflavor = \"") + f + "\"\n";
    const TrainingConfig c = import_training_config(text, "flavor", TrainingFramework::torchtitan);
    t = c.shape;
    if (t == s) flavor = f;
  }
  std::string& o = out.text;
  o += "# " + n(l.chips()) + " GPUs: NGPU x nodes = " + n(l.chips()) + "\n";
  o += "[model]\n";
  if (!flavor.empty()) {
    o += "name = \"llama3\"\nflavor = \"" + flavor + "\"\n";
  } else {
    o += "# torchtitan defines models by flavor in code: add one with this shape\n";
    out.caveats.push_back("the model is not one of torchtitan's llama3 flavors (8B, 70B, 405B)");
  }
  if (job.software.fp8_matmuls) o += "converters = [\"float8\"]\n";
  o += "\n[training]\n";
  o += "seq_len = " + n(job.seq_len) + "\n";
  o += "local_batch_size = " + n(l.pp > 1 ? job.global_batch / l.dp : l.micro_batch) + "\n";
  o += "global_batch_size = " + n(job.global_batch) + "\n";
  o += "mixed_precision_param = \"bfloat16\"\n";
  o += "\n[parallelism]\n";
  const bool shard = l.zero != 0;
  if (l.zero == 1)
    out.caveats.push_back("torchtitan has no ZeRO-1: emitted as FSDP (ZeRO-3) over dp");
  // HSDP: FSDP2 over data_parallel_shard_degree × cp ranks, replicated.
  std::int64_t replicas = shard ? l.zero_replicas() : l.dp;
  if (replicas > 1 && shard && (l.dp % replicas != 0 || l.zero_shard() % l.cp != 0)) {
    out.caveats.push_back("shard = " + n(l.zero_shard()) + ": torchtitan's FSDP group is the " +
                          "shard degree × cp ranks; emitted without hybrid sharding");
    replicas = 1;
  }
  o += "data_parallel_replicate_degree = " + n(replicas) + "\n";
  o += "data_parallel_shard_degree = " + n(l.dp / replicas) + "\n";
  o += "tensor_parallel_degree = " + n(l.tp) + "\n";
  o += "pipeline_parallel_degree = " + n(l.pp) + "\n";
  o += "context_parallel_degree = " + n(l.cp) + "\n";
  // ZeRO-2: FSDP2 keeps the gathered weights from the forward to the backward.
  if (l.zero == 2) o += "fsdp_reshard_after_forward = \"never\"\n";
  if (l.ep > 1) o += "expert_parallel_degree = " + n(l.ep) + "\n";
  if (s.is_moe() && l.ep > 1 && l.tp > 1 && l.expert_tp() != 1)
    out.caveats.push_back(
        "torchtitan's expert parallelism borrows its ranks from FSDP and TP "
        "(each expert whole, etp = 1); this layout splits the experts over TP, "
        "which torchtitan does not run");
  if (l.pp > 1) {
    o += "pipeline_parallel_microbatch_size = " + n(l.micro_batch) + "\n";
    o += std::string("pipeline_parallel_schedule = \"") + (l.vpp > 1 ? "Interleaved1F1B" : "1F1B") +
         "\"\n";
    o += "pipeline_parallel_layers_per_stage = " + n(s.n_layers / (l.pp * l.vpp)) + "\n";
  }
  if (l.tp > 1 && !l.sequence_parallel)
    out.caveats.push_back(
        "torchtitan's tensor parallelism always shards the norms (sequence "
        "parallel); it reads back as sp=on");
  o += "\n[activation_checkpoint]\n";
  if (l.recompute == Checkpointing::full && l.recompute_layers > 0) {
    // One block in every k recomputed (selective_ac_option "k"): k = the
    // chunk's layers ÷ N, where that divides.
    const std::int64_t per_chunk = s.n_layers / (l.pp * l.vpp);
    const std::int64_t every = per_chunk / l.recompute_layers;
    o += "mode = \"selective\"\nselective_ac_option = \"" + n(every) + "\"\n";
    if (every * l.recompute_layers != per_chunk)
      out.caveats.push_back("torchtitan recomputes one block in every k: " + n(l.recompute_layers) +
                            " of " + n(per_chunk) + " layers per chunk is not 1/k; one in every " +
                            n(every) + " recomputes " + n(per_chunk / every) + " of them");
  } else if (l.recompute == Checkpointing::selective && l.recompute_modules == 0) {
    // Megatron's selective recomputes the attention core, which torchtitan's
    // FlashAttention (SDPA) does in its backward anyway: it keeps what no
    // checkpointing keeps. torchtitan's own "selective" is by layer or by op.
    o += "mode = \"none\"\n";
    out.caveats.push_back(
        "recompute=selective (the attention core) keeps what no checkpointing keeps under "
        "FlashAttention; torchtitan's \"selective\" means by layer or by op: emitted as none");
  } else if (l.recompute == Checkpointing::selective && l.recompute_modules != kRecomputeOp) {
    o += "mode = \"selective\"\nselective_ac_option = \"op\"\n";
    out.caveats.push_back("torchtitan recomputes by layer or by op, not by module: " +
                          recompute_modules_text(l.recompute_modules) +
                          " emitted as its op-level policy, which reads back as selective:op");
  } else {
    o += std::string("mode = \"") + std::string(to_string(l.recompute)) + "\"\n";
    if (l.recompute == Checkpointing::selective) o += "selective_ac_option = \"op\"\n";
    if (l.recompute == Checkpointing::full && l.recompute_group > 1)
      out.caveats.push_back("torchtitan checkpoints every block on its own: recompute=uniform:" +
                            n(l.recompute_group) + " reads back as full");
  }
  // The plan's element-wise work is fused unless its software runs eager
  // (the fsdp preset): in torchtitan that takes torch.compile.
  o += "\n[compile]\n";
  o += std::string("enable = ") + (job.software.eager_elementwise ? "false" : "true") + "\n";
  return out;
}

EmittedFlags emit_vllm(const ServingFlagsInput& in) {
  EmittedFlags out;
  out.text = "vllm serve " + in.model + " \\\n  --tensor-parallel-size " + n(in.tp) +
             " \\\n  --pipeline-parallel-size " + n(in.pp) + " \\\n  --max-num-seqs " +
             n(in.max_batch) + " \\\n  --max-model-len " + n(in.max_seq_tokens);
  if (in.max_num_tokens > 0) out.text += " \\\n  --max-num-batched-tokens " + n(in.max_num_tokens);
  if (in.gpu_memory_utilization > 0)
    out.text += " \\\n  --gpu-memory-utilization " + format_value(in.gpu_memory_utilization);
  if (in.weight_dtype == "fp8")
    out.text += " \\\n  --quantization fp8";
  else if (in.weight_dtype != "bf16")
    out.caveats.push_back(in.weight_dtype +
                          " weights: serve a checkpoint quantized to it (vLLM reads the method "
                          "from the checkpoint)");
  if (in.kv_dtype == "fp8")
    out.text += " \\\n  --kv-cache-dtype fp8";
  else if (in.kv_dtype != "bf16")
    out.caveats.push_back(in.kv_dtype + " KV cache: vLLM offers fp8");
  out.text += " \\\n  --dtype bfloat16\n";
  out.caveats.push_back("--max-model-len bounds prompt + output; vLLM has no separate input cap");
  return out;
}

EmittedFlags emit_tensorrt_llm(const ServingFlagsInput& in) {
  EmittedFlags out;
  std::string quant;
  if (in.weight_dtype == "fp8")
    quant = " --use_fp8";
  else if (in.weight_dtype == "int8")
    quant = " --use_weight_only --weight_only_precision int8";
  else if (in.weight_dtype == "int4")
    quant = " --use_weight_only --weight_only_precision int4";
  // NVFP4 checkpoints come from Model Optimizer's quantize.py (convert_checkpoint
  // has no FP4), which takes the KV cache's format as --kv_cache_dtype.
  const bool nvfp4 = in.weight_dtype == "fp4";
  if (nvfp4)
    quant = " --qformat nvfp4" + (in.kv_dtype == "fp8" || in.kv_dtype == "int8"
                                      ? " --kv_cache_dtype " + in.kv_dtype
                                      : std::string());
  else if (in.kv_dtype == "fp8")
    quant += " --fp8_kv_cache";
  else if (in.kv_dtype == "int8")
    quant += " --int8_kv_cache";
  out.text =
      std::string(nvfp4 ? "python quantize.py" : "python convert_checkpoint.py") + " --model_dir " +
      in.model + " --output_dir ckpt --dtype bfloat16 --tp_size " + n(in.tp) + " --pp_size " +
      n(in.pp) + quant + "\ntrtllm-build --checkpoint_dir ckpt --output_dir engine" +
      " \\\n  --max_batch_size " + n(in.max_batch) + " \\\n  --max_input_len " +
      n(in.max_input_tokens) + " \\\n  --max_seq_len " + n(in.max_seq_tokens) +
      (in.max_num_tokens > 0 ? " \\\n  --max_num_tokens " + n(in.max_num_tokens) : "") + "\n";
  out.caveats.push_back(nvfp4 ? "quantize.py lives in examples/quantization (TensorRT Model "
                                "Optimizer); NVFP4 engines run on Blackwell GPUs"
                              : "convert_checkpoint.py lives in the model family's examples "
                                "folder (e.g. examples/llama)");
  if (nvfp4 && in.kv_dtype != "fp8" && in.kv_dtype != "int8" && in.kv_dtype != "bf16")
    out.caveats.push_back(in.kv_dtype +
                          " KV cache: quantize.py's --kv_cache_dtype offers fp8 "
                          "and int8");
  return out;
}

EmittedFlags emit_serving_flags(ServingFlagsEngine engine, const ServingInputs& in,
                                std::int64_t max_batch, std::string model,
                                std::int64_t max_num_tokens, std::optional<bool> chunked_prefill) {
  ServingFlagsInput f;
  f.model = std::move(model);
  f.tp = in.layout.tp;
  f.pp = in.layout.pp;
  f.max_batch = max_batch;
  f.max_input_tokens = in.prompt_tokens + in.cached_tokens;
  f.max_seq_tokens = f.max_input_tokens + in.decode_tokens;
  f.weight_dtype = std::string(to_string(in.weights));
  f.kv_dtype = std::string(to_string(in.kv));
  f.max_num_tokens = max_num_tokens;
  // The run's memory setting is its engine's (ServingAssumptions::
  // engine_memory_fraction): emitted for that engine, named for another.
  const std::optional<double> memory = in.assume.engine_memory_fraction;
  const bool vllm = engine == ServingFlagsEngine::vllm;
  const bool same_engine = vllm ? in.engine == "vllm" : in.engine.starts_with("tensorrt-llm");
  if (memory && vllm && same_engine) f.gpu_memory_utilization = *memory;
  EmittedFlags flags = vllm ? emit_vllm(f) : emit_tensorrt_llm(f);
  if (memory && !vllm && same_engine)
    flags.caveats.push_back("the KV cache's share of free memory, " + format_value(*memory) +
                            ", is a run-time setting: trtllm-serve "
                            "--kv_cache_free_gpu_memory_fraction " +
                            format_value(*memory) +
                            " (the LLM API's KvCacheConfig.free_gpu_memory_fraction)");
  if (memory && !same_engine)
    flags.caveats.push_back(
        "the memory fraction " + format_value(*memory) + " is the " + in.engine +
        " engine's setting and is not carried over; set " +
        (vllm ? "--gpu-memory-utilization" : "kv_cache_free_gpu_memory_fraction") +
        " for this engine");
  if (in.layout.ep > 1)
    flags.caveats.push_back("expert parallelism (ep = " + n(in.layout.ep) +
                            ") is not emitted; set the engine's expert-parallel option");
  if (chunked_prefill)
    flags.caveats.push_back(std::string("chunked prefill ") + (*chunked_prefill ? "on" : "off") +
                            " is not emitted; set it at run time (vLLM --enable-chunked-prefill, "
                            "TensorRT-LLM enable_chunked_context)");
  return flags;
}

ServingFlagsInput parse_serving_flags(std::string_view text, std::string_view source) {
  const ConfigEntries e = read_argument_list(text, source);
  ServingFlagsInput in;
  auto get = [&](std::initializer_list<const char*> keys) -> const ConfigEntry* {
    for (const char* k : keys)
      if (const ConfigEntry* x = e.find(k)) return x;
    return nullptr;
  };
  auto integer = [&](std::initializer_list<const char*> keys, std::int64_t fallback) {
    const ConfigEntry* x = get(keys);
    if (!x) return fallback;
    try {
      std::size_t used = 0;
      const long long v = std::stoll(x->value, &used);
      if (used != x->value.size() || v < 1) throw std::invalid_argument("");
      return static_cast<std::int64_t>(v);
    } catch (const std::exception&) {
      throw std::invalid_argument(std::string(source) + ": line " + std::to_string(x->line) +
                                  ": --" + x->key + ": expected a whole number >= 1, found \"" +
                                  x->value + "\"");
    }
  };
  const bool vllm = text.find("vllm") != std::string_view::npos;
  if (vllm) {
    const std::size_t at = text.find("serve ");
    if (at != std::string_view::npos) {
      std::string_view rest = text.substr(at + 6);
      in.model = std::string(rest.substr(0, rest.find_first_of(" \\\n")));
    }
    in.tp = integer({"tensor_parallel_size"}, 1);
    in.pp = integer({"pipeline_parallel_size"}, 1);
    in.max_batch = integer({"max_num_seqs"}, 256);
    in.max_seq_tokens = integer({"max_model_len"}, 0);
    in.max_input_tokens = in.max_seq_tokens;
    in.max_num_tokens =
        get({"max_num_batched_tokens"}) ? integer({"max_num_batched_tokens"}, 0) : 0;
    const ConfigEntry* q = get({"quantization"});
    in.weight_dtype = q ? q->value : "bf16";
    const ConfigEntry* kv = get({"kv_cache_dtype"});
    in.kv_dtype = kv ? kv->value : "bf16";
    if (const ConfigEntry* g = get({"gpu_memory_utilization"})) {
      std::size_t used = 0;
      double v = 0;
      try {
        v = std::stod(g->value, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != g->value.size() || !(v > 0 && v <= 1))
        throw std::invalid_argument(std::string(source) + ": line " + std::to_string(g->line) +
                                    ": --" + g->key + ": expected a fraction in (0, 1], found \"" +
                                    g->value + "\"");
      in.gpu_memory_utilization = v;
    }
  } else {
    if (const ConfigEntry* m = get({"model_dir"})) in.model = m->value;
    in.tp = integer({"tp_size"}, 1);
    in.pp = integer({"pp_size"}, 1);
    in.max_batch = integer({"max_batch_size"}, 2048);
    in.max_input_tokens = integer({"max_input_len"}, 1024);
    in.max_seq_tokens = integer({"max_seq_len"}, 0);
    in.max_num_tokens = get({"max_num_tokens"}) ? integer({"max_num_tokens"}, 0) : 0;
    const ConfigEntry* w = get({"weight_only_precision"});
    const ConfigEntry* qformat = get({"qformat"});
    const ConfigEntry* kv = get({"kv_cache_dtype"});
    in.weight_dtype = qformat && qformat->value == "nvfp4" ? "fp4"
                      : get({"use_fp8"})                   ? "fp8"
                      : w                                  ? w->value
                                                           : "bf16";
    in.kv_dtype = get({"fp8_kv_cache"})    ? "fp8"
                  : get({"int8_kv_cache"}) ? "int8"
                  : kv                     ? kv->value
                                           : "bf16";
  }
  return in;
}

}  // namespace napkin
