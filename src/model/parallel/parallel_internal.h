// Internals shared by the parallelism planner's files (not a public API).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "algebra.h"
#include "collectives.h"
#include "hardware.h"
#include "kernel_time.h"
#include "parallel.h"

namespace napkin::parallel_detail {

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

// Tokens a rank's routed experts take per micro-batch, before top-k: the TP
// group's n when the experts split tp ways, etp of its n/tp sequence shards
// when fewer (Layout::etp; below tp needs sequence parallelism).
inline double expert_tokens(double n, std::int64_t tp, std::int64_t etp) {
  return etp == tp ? n : n / static_cast<double>(tp) * static_cast<double>(etp);
}

// The share of a stage's layers that `L` recomputes in full: 1 for full
// recomputation of every layer, N ÷ the layers of an average chunk for
// recompute=full:N (Layout::recompute_layers), 0 otherwise.
inline double recompute_share(const ModelShape& s, const Layout& L) {
  if (L.recompute != Checkpointing::full) return 0;
  if (L.recompute_layers <= 0) return 1;
  const double per_chunk = static_cast<double>(s.n_layers) / static_cast<double>(L.pp * L.vpp);
  return std::min(1.0, static_cast<double>(L.recompute_layers) / per_chunk);
}

// The expected number of bins that `picks` distinct items, drawn uniformly
// from `items` split evenly into bins of `per_bin`, fall into: bins × (1 −
// C(items − per_bin, picks) / C(items, picks)). A token's top-k experts over
// the EP group's ranks or nodes (balanced routing).
inline double expected_bins_hit(std::int64_t items, std::int64_t per_bin, std::int64_t picks) {
  if (items <= 0 || per_bin <= 0) return 0;
  double none = 1;  // the chance that a given bin gets none of the picks
  for (std::int64_t i = 0; i < picks && none > 0; ++i)
    none *= items - per_bin - i <= 0
                ? 0.0
                : static_cast<double>(items - per_bin - i) / static_cast<double>(items - i);
  return static_cast<double>(items / per_bin) * (1 - none);
}

// Seconds of the data-parallel collectives over some parameters: the
// gradients all-reduced or reduce-scattered, the bf16 weights all-gathered.
struct DpCollectives {
  double all_reduce = 0;
  double reduce_scatter = 0;      // over ZeRO's group (Layout::zero_shard)
  double all_gather = 0;          // over ZeRO's group
  double replica_all_reduce = 0;  // the gradient shard across the replicas, with hybrid sharding
};

// (dense params, expert params, dp, cp, tp, ep, etp, shard) → DpCollectives: the search
// meets the same stage parameters for every micro-batch and recomputation.
struct DpKeyHash {
  std::size_t operator()(const std::array<std::int64_t, 8>& k) const {
    std::size_t h = 1469598103934665603ULL;
    for (std::int64_t v : k) h = (h ^ static_cast<std::size_t>(v)) * 1099511628211ULL;
    return h;
  }
};
using DpCache = std::unordered_map<std::array<std::int64_t, 8>, DpCollectives, DpKeyHash>;

struct StageComposition;
struct StageTime;

// Everything about a job that does not depend on the layout.
struct JobContext {
  const TrainingJob* job = nullptr;
  const Chip* chip = nullptr;
  std::int64_t device_bytes = 0;  // what a rank can allocate from: device_memory(*chip)
  Network network;                // the cluster (job.cluster())
  KernelRates rates;
  KernelRates bf16_rates;  // == rates without FP8 GEMMs: the layers and the head FP8 leaves in bf16
  // The sequence-length curve of the fused attention kernel the software runs
  // (its rates above are at 8,192 tokens).
  AttentionCurve attention_curve = AttentionCurve::flash_attention_3;
  Link intra;
  Link inter;
  ParamCount params;
  LayerParams dense_layer;
  LayerParams moe_layer;           // == dense_layer for a dense model
  std::int64_t expert_params = 0;  // one expert (or one shared expert)
  std::int64_t moe_layers = 0;     // routed layers (after the leading dense ones)
  double grad_bytes = 4;           // per parameter
  double optimizer_bytes = 12;     // per parameter (master copy + moments)
  double update_bytes = 34;        // HBM traffic per parameter of the optimizer step
  double model_flops = 0;          // per step (step_model_flops)
  double dispatch_seconds = 0;     // host time per kernel (software.host_dispatch_seconds)
  // Share of the compute units a collective occupies while it runs beside a
  // kernel (NCCL runs one thread block per channel, ~20 channels on NVLink
  // nodes); an overlapped collective slows the kernel it hides behind by this
  // share of the overlap. 0 where the network has its own engines (TPU ICI).
  double comm_unit_fraction = 0;
  mutable DpCache dp_cache;
  // last_grad_bucket's first stages, by their layers and the layout's split.
  mutable std::unordered_map<std::array<std::int64_t, 8>, std::pair<std::int64_t, std::int64_t>,
                             DpKeyHash>
      bucket_cache;
  // Scratch reused by every evaluation of a search.
  mutable std::vector<StageComposition> comps_scratch;
  mutable std::vector<StageTime> times_scratch;
};

// Seconds a collective of `comm` seconds adds when overlapped with `window`
// seconds of kernels: what sticks out, plus the kernels' slowdown while both run.
double overlapped(const JobContext& c, double comm, double window);
// As overlapped, where a last part of the collective, `last` seconds on its
// own, can start only when all but `last_window` of the window has run (a
// gradient bucket is ready when the backward has made its last gradient).
double overlapped(const JobContext& c, double comm, double window, double last, double last_window);

// What layer_activation_bytes reads of a job and its layout.
LayerActivationInputs activation_inputs(const TrainingJob& job, const Layout& L);

// Validates the job and derives the context. Throws std::invalid_argument.
JobContext make_context(const TrainingJob& job);

// One transformer layer, one micro-batch, one rank: time by part and bytes.
struct LayerCost {
  double fwd_compute = 0;
  double bwd_compute = 0;
  double recompute = 0;  // kernels re-run before the backward
  double fwd_tp = 0;     // exposed TP collectives
  double bwd_tp = 0;
  double recompute_tp = 0;
  double fwd_ep = 0;  // expert all-to-alls
  double bwd_ep = 0;
  double recompute_ep = 0;
  double fwd_cp = 0;  // exposed context-parallel exchange
  double bwd_cp = 0;
  double recompute_cp = 0;
  ComputeMix fwd_mix, bwd_mix, recompute_mix;  // fwd_compute etc. by kind of kernel
  double wgrad = 0;  // of bwd_compute: the weight-gradient GEMMs (W of a zero-bubble schedule)
  std::int64_t activation_bytes = 0;       // stored for the backward
  std::int64_t full_activation_bytes = 0;  // without any recompute (the working set)
  std::int64_t cp_buffer_bytes = 0;        // context parallelism's K, V and fp32 gradients
  // Per-rank parameters of the layer: reduced over DP × CP (dense) and over
  // DP × CP / EP (routed experts).
  std::int64_t dense_params = 0;
  std::int64_t expert_params = 0;

  double forward() const { return fwd_compute + fwd_tp + fwd_ep + fwd_cp; }
  double backward() const {
    return bwd_compute + bwd_tp + bwd_ep + bwd_cp + recompute + recompute_tp + recompute_ep +
           recompute_cp;
  }
};

// Context parallelism's exchange of K and V around a layer's attention, as
// the software runs it (TrainingSoftware::torch_context_parallel): the
// exposed seconds of each pass, the element-wise bytes it adds to the
// layer's kernels and the buffers it holds at its peak. `tokens` on this
// rank; `q_heads` and `kv_heads` on this rank; `core_fwd`, `core_bwd` the
// attention kernels' seconds over all the chunks.
struct CpExchange {
  double fwd_seconds = 0, bwd_seconds = 0;
  double fwd_bytes = 0, bwd_bytes = 0;
  double buffer_bytes = 0;
};
CpExchange cp_exchange(const JobContext& c, const Layout& L, double tokens, std::int64_t q_heads,
                       std::int64_t kv_heads, std::int64_t d_qk, std::int64_t d_v, double core_fwd,
                       double core_bwd);

// A GEMM with a weight: forward, input gradient, weight gradient (accumulated
// into the fp32 gradient buffer: read and written once more).
struct WeightGemm {
  double fwd = 0, dgrad = 0, wgrad = 0;
  double bwd() const { return dgrad + wgrad; }
  WeightGemm& operator+=(const WeightGemm& o) {
    fwd += o.fwd, dgrad += o.dgrad, wgrad += o.wgrad;
    return *this;
  }
};
// `operand_bytes` per element of the two inputs: 2 in bf16, 1 for FP8 GEMMs
// (Transformer Engine casts x, w and dy to FP8 before each GEMM, and FP8
// tensor cores read them as such); the output stays bf16 (2 bytes) either way.
WeightGemm weight_gemm(const KernelRates& r, std::int64_t m, std::int64_t n, std::int64_t k,
                       std::int64_t batch = 1, double operand_bytes = 2);
// HBM bytes per parameter and micro-batch (averaged over the step) of a
// gradient accumulation that runs as its own kernel.
double unfused_accumulation_bytes(const JobContext& c, const Layout& L);

// One layer as the layout runs it, every layer alike (parallel_time.cpp).
LayerCost price_layer(const JobContext& c, const Layout& layout, bool moe_layer, bool bf16_gemms);
// price_layer, blended for full recomputation of some layers (parallel_step.cpp).
// `bf16_gemms`: the layer's GEMMs in bf16 even when the job's run in FP8 (the
// edge layers of software.fp8_bf16_edge_layers).
LayerCost layer_cost(const JobContext& c, const Layout& layout, bool moe_layer,
                     bool bf16_gemms = false);

// The embedding (first stage) or the output layer and loss (last stage), one
// micro-batch, one rank.
struct EdgeCost {
  double fwd_compute = 0;
  double bwd_compute = 0;
  double tp = 0;
  double gemm = 0;          // of fwd + bwd compute: GEMMs (the unembedding; bf16 edge layers)
  std::int64_t params = 0;  // per rank
  std::int64_t activation_bytes = 0;  // per in-flight micro-batch (embedding) or one (output)
  // Held only while the loss runs its backward, above activation_bytes (the
  // eager fp32 loss's gradients, and ZeRO-3's output layer kept gathered);
  // the stage's peak takes the larger of this and a recomputed layer's
  // working set, which come at different times.
  std::int64_t transient_bytes = 0;
  // Reserved by the caching allocator and unusable while the loss runs its
  // backward (the eager loss's freed bf16 logits; see output_cost).
  std::int64_t loss_hole_bytes = 0;
  // Held for every micro-batch of the step on the last pipeline stage (the
  // logits a pipelining runtime keeps to return; TrainingSoftware::
  // pipeline_keeps_outputs).
  std::int64_t kept_per_micro_batch_bytes = 0;
};
EdgeCost embedding_cost(const JobContext& c, const Layout& layout);
EdgeCost output_cost(const JobContext& c, const Layout& layout);

// The layers of one stage by kind.
struct StageComposition {
  std::int64_t layers = 0;
  std::int64_t moe_layers = 0;
  std::int64_t dense_layers = 0;
  // Of those, the stage's first model chunk's (all of them without
  // interleaving): the chunk whose backward the step ends with.
  std::int64_t first_chunk_dense_layers = 0;
  std::int64_t first_chunk_moe_layers = 0;
  bool first = false;
  bool last = false;
};
void stage_compositions(const JobContext& c, const Layout& layout,
                        std::vector<StageComposition>& out);
std::vector<StageComposition> stage_compositions(const JobContext& c, const Layout& layout);

// Micro-batches (model chunks when interleaved) whose activations stage
// `stage` holds at its peak: 1F1B min(p − i, m); interleaved
// min(2(p − i − 1) + (v − 1)p + 1, m·v) (Megatron's warm-up count plus one).
std::int64_t in_flight(std::int64_t stage, std::int64_t pp, std::int64_t vpp,
                       std::int64_t micro_batches);

// Fills `m`'s memory outside the tensors (runtime, collective buffers,
// fragmentation with the eager loss's `loss_hole_bytes`) for a stage whose
// tensors take `tensors` bytes (parallel_non_tensor.cpp).
void add_non_tensor_memory(const JobContext& c, const Layout& layout, std::int64_t tensors,
                           std::int64_t loss_hole_bytes, StageMemory& m);

// Data parallelism once per step (parallel_data_parallel.cpp): ZeRO-0
// all-reduces the gradients; ZeRO-1 reduce-scatters them and all-gathers the
// updated weights; ZeRO-2 reduce-scattered them per micro-batch already and
// all-gathers the weights; ZeRO-3 does it per layer (nothing here).
struct DpStep {
  double grads = 0;
  double params = 0;
};
DpStep dp_step(const JobContext& c, const Layout& L, std::int64_t dense_params,
               std::int64_t expert_params);
// The parameters, dense and routed experts', of the gradient bucket a
// stage's backward makes last and its next forward gathers first
// (TrainingSoftware::megatron_dp_buckets): {0, 0} where gradients reduce as
// they are made.
std::pair<std::int64_t, std::int64_t> last_grad_bucket(const JobContext& c, const Layout& L,
                                                       const StageComposition& sc,
                                                       const LayerCost& dense, const LayerCost& moe,
                                                       const EdgeCost& embed, const EdgeCost& out);
// ZeRO-2/3's traffic per layer and micro-batch that the layer's compute does
// not hide, forward and backward.
std::pair<double, double> zero_layer_exposed(const JobContext& c, const Layout& L,
                                             const LayerCost& lc);
// ZeRO-3's units at the ends of a micro-batch, on the stages that hold them:
// what is exposed there beyond what zero_layer_exposed charged the first
// layer (`first_hidden`).
std::pair<double, double> zero3_edges_exposed(const JobContext& c, const Layout& L,
                                              const StageComposition& sc,
                                              const LayerCost& first_layer,
                                              std::pair<double, double> first_hidden,
                                              const LayerCost& last_layer, const EdgeCost& embed,
                                              const EdgeCost& out);

// Memory of one stage from its composition and the per-layer costs; under
// DualPipe, of the rank that holds it and `mirror` (dualpipe_mirror).
StageMemory stage_memory(const JobContext& c, const Layout& layout, std::int64_t stage,
                         const StageComposition& comp, const LayerCost& dense, const LayerCost& moe,
                         const EdgeCost& embed, const EdgeCost& out,
                         const StageComposition* mirror = nullptr);

// Whether the step runs DualPipe: its schedule, over more than one stage.
inline bool runs_dualpipe(const TrainingJob& job, const Layout& layout) {
  return job.software.pipe_schedule == PipeSchedule::dualpipe && layout.pp > 1;
}
// DualPipe's second stage on the rank that holds stage i: stage p − 1 − i
// (the DualPipe repository's example builds rank r from full_modules[rank]
// and full_modules[pp_size - 1 - rank]); nullptr for other schedules.
// dualpipe_pairs: whether `stages` stages pair so (DualPipe, one stage per rank).
inline bool dualpipe_pairs(const TrainingJob& job, const Layout& layout, std::size_t stages) {
  return runs_dualpipe(job, layout) && stages == static_cast<std::size_t>(layout.pp);
}
inline const StageComposition* dualpipe_mirror(const TrainingJob& job, const Layout& layout,
                                               const std::vector<StageComposition>& comps,
                                               std::size_t i) {
  return dualpipe_pairs(job, layout, comps.size()) ? &comps[comps.size() - 1 - i] : nullptr;
}

// One stage, one micro-batch through all its chunks.
struct StageTime {
  double fwd = 0;  // forward kernels and exposed collectives (no pipeline sends)
  double bwd = 0;  // backward, recompute included
  double compute = 0, recompute = 0, tp = 0, ep = 0, cp = 0, dp = 0;
  ComputeMix mix;     // compute + recompute by kind of kernel
  double pp = 0;      // pipeline sends and receives of the micro-batch, as exposed
  double pp_hop = 0;  // one send forward and one back, on their own
  double wgrad = 0;   // of bwd: the weight-gradient GEMMs
  double total() const { return fwd + bwd + pp; }
};

// Times of every stage; `p2p_seconds` receives one stage-to-stage transfer.
void stage_times(const JobContext& c, const Layout& layout,
                 const std::vector<StageComposition>& comps, const LayerCost& dense,
                 const LayerCost& moe, const EdgeCost& embed, const EdgeCost& out,
                 std::vector<StageTime>& times, double* p2p_seconds = nullptr);

// evaluate_layout for a valid layout with its costs already computed.
LayoutResult evaluate_prepared(const JobContext& c, const Layout& layout, const LayerCost& dense,
                               const LayerCost& moe, const EdgeCost& embed, const EdgeCost& out);

// Sequence-parallel-aware placement of a group whose members are `stride`
// ranks apart (Megatron's order: TP innermost, then CP, then DP, then PP).
GroupPlacement placement(const JobContext& c, std::int64_t ranks, std::int64_t stride);

double group_seconds(const JobContext& c, Collective op, double bytes, const GroupPlacement& group);

}  // namespace napkin::parallel_detail
