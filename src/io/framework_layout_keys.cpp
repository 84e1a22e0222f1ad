// The layout keys Megatron-LM and NeMo share: recomputation (granularity,
// method and layer count, modules), the experts' tensor parallelism and the
// token dispatcher; hybrid sharding, which torchtitan's files give too; and
// Megatron's overlap flags against the presets. Key names and defaults:
// megatron/training/arguments.py.
#include <string>

#include "framework_keys.h"

namespace napkin::framework_detail {

Checkpointing recompute_of(const Keys& k, std::initializer_list<const char*> names,
                           bool selective_flag) {
  if (auto g = k.text(names)) {
    if (*g == "full") return Checkpointing::full;
    if (*g == "selective") return Checkpointing::selective;
    if (*g == "none") return Checkpointing::none;
    k.fail(*k.value(names), "full, selective or none");
  }
  return selective_flag ? Checkpointing::selective : Checkpointing::none;
}

// N layers of each model chunk recomputed in full (Layout::recompute_layers),
// or every layer when N covers the chunk; with the shape unknown N is kept
// and the layout check says whether it covers a chunk.
void set_recompute_layers(TrainingConfig& c, std::int64_t n) {
  Layout& l = c.layout;
  l.recompute = Checkpointing::full;
  const std::int64_t chunks = l.pp * l.vpp;
  const bool whole = c.shape_known && n * chunks >= c.shape.n_layers;
  l.recompute_layers = whole ? 0 : n;
}

// Megatron's --recompute-method / --recompute-num-layers (NeMo's
// activations_checkpoint_method / _num_layers) under full recomputation:
// block recomputes the first N layers of each chunk; uniform recomputes every
// layer, N layers to a checkpoint (Layout::recompute_group).
void read_recompute_method(const Keys& k, TrainingConfig& c, const char* method_key,
                           const char* layers_key) {
  if (c.layout.recompute != Checkpointing::full) return;
  const std::string method = k.text({method_key}).value_or("uniform");
  const auto n = k.integer({layers_key}, 1, 100'000);
  if (method == "block") {
    if (!n) {
      k.missing(std::string(layers_key) + ": the block method needs the number of layers");
      return;
    }
    set_recompute_layers(c, *n);
    if (c.layout.recompute_layers > 0)
      k.note("recompute = full:" + std::to_string(*n) + ": the first " + std::to_string(*n) +
             " layers of each model chunk recompute, the others keep their activations");
  } else if (method == "uniform") {
    if (n && *n > 1) {
      c.layout.recompute_group = *n;
      k.note("recompute = uniform:" + std::to_string(*n) + ": every layer recomputes, " +
             std::to_string(*n) + " layers to a checkpoint");
    }
  } else {
    k.fail(*k.value({method_key}), "block or uniform");
  }
}

// Megatron's --recompute-modules (NeMo's recompute_modules; the printed
// arguments' ['a', 'b']) with selective recomputation: the modules Napkin
// prices; the others are named in a note.
void read_recompute_modules(const Keys& k, TrainingConfig& c) {
  if (c.layout.recompute != Checkpointing::selective) return;
  const auto text = k.text({"recompute_modules"});
  if (!text) return;
  std::string list;
  for (char ch : *text)
    list += (ch == '[' || ch == ']' || ch == ',' || ch == '\'' || ch == '"') ? ' ' : ch;
  std::uint32_t modules = 0;
  std::string skipped;
  std::size_t start = 0;
  while (start < list.size()) {
    std::size_t end = list.find(' ', start);
    if (end == std::string::npos) end = list.size();
    const std::string name = list.substr(start, end - start);
    start = end + 1;
    if (name.empty()) continue;
    try {
      modules |= parse_recompute_modules(name);
    } catch (const std::invalid_argument&) {
      skipped += (skipped.empty() ? "" : ", ") + name;
    }
  }
  c.layout.recompute_modules = canonical_recompute_modules(modules);
  if (!skipped.empty())
    k.note("recompute modules " + skipped + ": not modelled, priced as kept (Napkin recomputes " +
           "core_attn, layernorm, mla_up_proj, moe_act, mlp and shared_experts)");
}

// Megatron Core's expert_tensor_parallel_size: unset (None) is tp's; 1 with
// tp > 1 folds EP over TP (Layout::etp).
void read_expert_tp(const Keys& k, Layout& l) {
  if (auto e = k.integer({"expert_tensor_parallel_size"}, 1, 1'000'000))
    l.etp = *e == l.tp ? 0 : *e;
}

// Megatron Core's token dispatcher (--moe-token-dispatcher-type; NeMo's
// model.moe_token_dispatcher_type): alltoall (the default), flex (DeepEP or
// HybridEP, --moe-flex-dispatcher-backend; older releases --moe-enable-deepep)
// or allgather, which Napkin prices as alltoall.
void read_expert_dispatch(const Keys& k, TrainingConfig& c) {
  const ConfigEntry* x = k.value({"moe_token_dispatcher_type"});
  const bool deepep = k.boolean({"moe_enable_deepep"}).value_or(false);
  if (!x && !deepep) return;
  const std::string type = x ? x->value : "flex";
  if (type == "flex") {
    c.ep_dispatch = EpDispatch::deduplicated;
    const std::string backend =
        k.text({"moe_flex_dispatcher_backend"}).value_or(deepep ? "deepep" : "the flex dispatcher");
    k.note("expert dispatch = flex: " + backend +
           " sends a token once per rank and once per node that hold its experts");
  } else if (type == "alltoall") {
    c.ep_dispatch = EpDispatch::all_to_all;
  } else if (type == "allgather") {
    c.ep_dispatch = EpDispatch::all_to_all;
    k.note("moe_token_dispatcher_type allgather is priced as alltoall");
  } else {
    k.fail(*x, "alltoall, flex or allgather");
  }
}

// Hybrid sharding read from a file: ZeRO over dp × cp ÷ `replicas` ranks, the
// groups replicas (Layout::shard), named by `key`.
void hybrid_shard(const Keys& k, TrainingConfig& c, std::int64_t replicas, const char* key) {
  Layout& l = c.layout;
  if (c.is_missing("dp")) return;  // said already
  const std::int64_t ranks = l.dp * l.cp;
  if (ranks % replicas != 0) {
    k.missing(std::string("shard: ") + key + " = " + std::to_string(replicas) +
              " does not divide dp × cp = " + std::to_string(ranks));
    return;
  }
  l.shard = ranks / replicas == ranks ? 0 : ranks / replicas;
  if (l.shard == 1) l.zero = 0, l.shard = 0;  // one rank per group shards nothing
  k.note("shard = " + std::to_string(ranks / replicas) + ": " + key + " = " +
         std::to_string(replicas) + " replicas of ZeRO's group (hybrid sharding)");
}

// Megatron's own overlaps where the file runs without them: the Megatron
// Core presets price the data-parallel collectives in buckets during the
// passes and the interleaved schedule's sends beside the compute.
// --overlap-grad-reduce and --overlap-param-gather are off unless given;
// overlap_p2p_comm is on with interleaving unless
// --no-overlap-p2p-communication (megatron/training/arguments.py).
void megatron_overlap_notes(const Keys& k, TrainingConfig& c) {
  const Layout& l = c.layout;
  if (l.dp * l.cp > 1 && !k.boolean({"overlap_grad_reduce"}).value_or(false))
    k.note(
        "overlap_grad_reduce off (Megatron-LM's default): this run reduces its gradients "
        "after the backward, which the Megatron Core presets overlap with it");
  if (l.dp * l.cp > 1 && l.zero >= 1 && !k.boolean({"overlap_param_gather"}).value_or(false))
    k.note(
        "overlap_param_gather off (Megatron-LM's default): this run gathers its weights "
        "after the optimizer step, which the Megatron Core presets overlap with the forward");
  if (l.vpp > 1 && (k.boolean({"no_overlap_p2p_communication"}).value_or(false) ||
                    !k.boolean({"overlap_p2p_comm"}).value_or(true)))
    k.note(
        "overlap_p2p_comm off: this run's pipeline sends block, which the Megatron Core "
        "presets overlap with the other chunks' compute");
}

}  // namespace napkin::framework_detail
