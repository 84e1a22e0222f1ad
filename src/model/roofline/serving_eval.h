// Internal to the serving module: one layout's arithmetic with everything
// that does not depend on the batch worked out once, so that the search can
// try many batches cheaply. Panels and the CLI use serving.h.
#pragma once

#include <cstdint>
#include <vector>

#include "collectives.h"
#include "kernel_time.h"
#include "serving.h"

namespace napkin::detail {

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Activations cross the links in bf16 (Megatron-LM and vLLM all-reduce in
// the activation dtype), and element-wise kernels move them in bf16.
inline constexpr double kActivationBytes = 2.0;

class LayoutEval {
 public:
  // Validates the inputs and the layout; throws naming the parameter.
  LayoutEval(const ServingModel& model, const ServingInputs& in);

  // The whole result at a batch (requests decoding together on the slice).
  ServingResult at(std::int64_t batch) const;
  // Memory per chip at a batch (cheaper than at()).
  ServingMemory memory(std::int64_t batch) const;
  // TTFT does not depend on the batch.
  double ttft_seconds() const { return ttft_; }
  // TPOT and the whole turn at a batch, without building the result.
  struct Latency {
    double tpot_seconds = 0;
    double turn_seconds = 0;
  };
  Latency latency(std::int64_t batch) const;
  const PhaseTime& prefill() const { return prefill_; }
  // A static batch: one context phase of `batch` prompts, then
  // decode_tokens − 1 generation steps (serving.h, evaluate_static_batch).
  StaticBatchResult static_batch(std::int64_t batch) const;
  // For the batching modes' simulation: one decode step of `batch` requests
  // at a mean context, and one context phase of `requests` prompts of
  // `prompt_tokens` each (no cached context), both in seconds.
  double step_seconds(std::int64_t batch, double context_tokens,
                      double tokens_per_request = 1) const;
  double context_phase_seconds(std::int64_t requests, std::int64_t prompt_tokens) const;
  std::int64_t chips() const { return chips_; }
  // Attention data-parallel replicas: a MoE model's EP rank groups, each with
  // its own requests and scheduler.
  std::int64_t replicas() const { return ep_; }

 private:
  struct Step {
    PhaseTime time;
    double bytes_per_chip = 0;  // read by one chip for one micro-batch
  };
  Step decode_step(std::int64_t micro_batches, std::int64_t micro_batch, double context_tokens,
                   double tokens_per_request = 1) const;
  // One pipeline stage's decode work on one micro-batch of `b` token
  // positions at `context` tokens of cache (`kv_bytes` of it read), the
  // routed experts `touched`; the last stage also holds the unembedding.
  struct DecodeStage {
    double compute = 0, weights = 0, kv = 0, roof = 0, bytes = 0;
    double gemm = 0, attention = 0, elementwise = 0, launch = 0;
  };
  DecodeStage decode_stage(bool last, double b, double context, double kv_bytes,
                           double touched) const;
  // A decode step's communication for a micro-batch of `b` token positions:
  // each stage's TP all-reduces and EP all-to-alls, the pipeline's hops, and
  // the last stage's gather of the logits.
  struct DecodeComm {
    double tp = 0, ep = 0, hops = 0, gather = 0;
  };
  DecodeComm decode_comm(double b) const;
  // The context phase of `requests` prompts of in.prompt_tokens each, as
  // `chunks` chunks streamed through the pipeline.
  // prompt_tokens 0: in.prompt_tokens after in.cached_tokens; otherwise that
  // many tokens with no cached context.
  Step prefill_with(std::int64_t chunks, std::int64_t requests = 1,
                    std::int64_t prompt_tokens = 0) const;
  // The chunk count that streams `requests` prompts fastest (1 without a pipeline).
  Step best_prefill(std::int64_t requests, std::int64_t& chunks,
                    std::int64_t prompt_tokens = 0) const;
  void micro_batching(std::int64_t batch, std::int64_t& micro_batches,
                      std::int64_t& micro_batch) const;
  double p2p_seconds(double bytes, bool across_nodes) const;
  // Per-kernel engines: one stage's GEMMs over `tokens` rows, each timed by
  // the training side's kernel model (kernel_time.h: waves, epilogue,
  // operands at the GEMM HBM rate). A MoE layer's routed experts run as one
  // grouped GEMM over the experts a step touches (`touched`, the fraction of
  // the chip's experts), each with its share of `routed_tokens` × top_k rows
  // (uniform routing). Negative when the shapes are not known (MLA, a bare
  // parameter count, the ideal engine): the caller keeps its roofline.
  double stage_gemm_seconds(double tokens, double routed_tokens = 0, double touched = 1) const;
  // Per-kernel engines: the GEMM shapes, the element-wise bytes per token and
  // the sampler's bytes per token (serving_kernels.cpp); called once the
  // layout, the stage and the GEMM rate are known.
  void setup_kernels(const KernelRates& rates);
  // The constructor's parts, in its order.
  void set_rates();
  void set_kv_cache();
  void set_weights_and_flops();
  void set_links();
  void set_memory();

  const ServingModel& m_;
  const ServingInputs& in_;
  const Chip* chip_ = nullptr;
  std::int64_t tp_ = 1, pp_ = 1, ep_ = 1, chips_ = 1;
  double stage_fraction_ = 1;  // ceil(L / pp) / L: the fullest stage's share of the layers
  double stage_layers_ = 1;
  double stage_moe_layers_ = 0;
  const ServingEngine* engine_ = nullptr;
  bool per_kernel_ = false;  // the engine times kernels apart (serving_engine.h)
  double gemm_peak_ = 0;     // GEMM FLOP/s per chip (peak_ unless the engine's FP8 rate)
  double attn_peak_ = 0;     // attention FLOP/s per chip (peak_ for the ideal engine)
  // The chip's fused attention kernel's sequence-length curve (kernel_time.h):
  // per-kernel engines' prefill attention runs at attn_peak_ × its factor.
  AttentionCurve attention_curve_ = AttentionCurve::flat;
  double elementwise_bw_ = 0;           // streaming-kernel HBM bytes/s
  double elementwise_bytes_token_ = 0;  // norms and residuals per token per chip
  double launch_seconds_ = 0;           // launch gaps of one stage's kernels
  KernelRates gemm_rates_{};            // the engine's GEMM rate, the chip's tiles and HBM
  // One layer's GEMMs per chip (n × k; m set per call): attention's
  // projections, a dense MLP, a MoE layer's shared experts and one routed
  // expert (its batch set per call).
  std::vector<Gemm> attn_gemms_, dense_mlp_gemms_, shared_gemms_, expert_gemms_;
  double peak_ = 0, bw_ = 0;       // per chip, after efficiencies
  double hbm_efficiency_ = 1;      // fraction of the datasheet bandwidth in bw_
  double kv_read_factor_ = 1;      // decode reads of each cached KV group per step
  double weight_bytes_ = 0;        // per element
  double kv_bytes_token_ = 0;      // per token per chip (its layers, its groups)
  double weights_held_ = 0;        // parameters held per chip
  double dense_read_ = 0;          // always-read parameters per chip per micro-batch (decode)
  double expert_chip_ = 0;         // routed-expert parameters per chip
  double output_chip_ = 0;         // unembedding parameters per chip (last stage)
  double tables_held_ = 0;         // of weights_held_: the embedding tables per chip
  double weights_bytes_ = 0;       // held per chip (set_memory)
  double usable_bytes_ = 0;        // for weights + KV cache per chip (set_memory)
  double table_bytes_ = 0;         // per element of the tables (16-bit in quantized ones)
  double table_peak_ = 0;          // the unembedding GEMM's FLOP/s per chip
  double logits_bytes_token_ = 0;  // the sampler's pass over one token's logits, per chip
  double logits_gather_bytes_token_ = 0;  // one token's logits gathered over the TP group
  double decode_flops_token_ = 0;         // linear FLOPs per token per chip
  double prefill_flops_token_ = 0;        // linear FLOPs per prompt token per chip (one replica)
  double attn_flops_pair_ = 0;            // attention FLOPs per (query, key) pair per chip
  bool comm_ = false;
  Link intra_{}, inter_{};
  GroupPlacement tp_group_{}, ep_group_{};
  std::int64_t hops_intra_ = 0, hops_inter_ = 0;  // the S − 1 activation hops of one trip
  bool wrap_inter_ = false;  // the token id back from the last stage to the first
  PhaseTime prefill_;
  std::int64_t prefill_chunks_ = 1;
  double prefill_bytes_chip_ = 0;  // bytes read per chip per chunk
  double kv_transfer_ = 0;
  double ttft_ = 0;
  double mean_context_ = 0;  // tokens in a request's cache, averaged over the turn's steps
};

}  // namespace napkin::detail
