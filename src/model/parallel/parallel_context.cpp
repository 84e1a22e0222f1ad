// The job's context for the planner (the chip's kernel rates, the links, the
// parameter counts, a cluster profile's constants in place of the
// published ones) and the helpers every cost reads: where a group's ranks sit,
// a collective's time, how much of it hides behind compute, the bytes of an
// unfused gradient accumulation.
#include <algorithm>

#include "parallel.h"
#include "parallel_internal.h"

namespace napkin {

namespace parallel_detail {

WeightGemm weight_gemm(const KernelRates& r, std::int64_t m, std::int64_t n, std::int64_t k,
                       std::int64_t batch, double operand_bytes) {
  auto timed = [&](const Gemm& g, double extra_bytes) {
    const double out = static_cast<double>(g.m) * static_cast<double>(g.n) *
                       static_cast<double>(g.batch) * (2.0 - operand_bytes);
    return gemm_seconds(r, g, extra_bytes + out, operand_bytes);
  };
  WeightGemm g;
  g.fwd = timed({m, n, k, batch}, 0);
  g.dgrad = timed({m, k, n, batch}, 0);
  g.wgrad = timed({k, n, m, batch}, 8.0 * static_cast<double>(k) * static_cast<double>(n) *
                                        static_cast<double>(batch));
  return g;
}

JobContext make_context(const TrainingJob& job) {
  job.validate();
  JobContext c;
  c.job = &job;
  c.chip = &chip_by_name(job.chip);
  c.rates = kernel_rates(*c.chip, job.software.fp8_matmuls);
  c.bf16_rates = kernel_rates(*c.chip, false);
  const Efficiency& eff = c.chip->efficiency;
  const double fa2 = eff.attention_fa2 > 0 ? eff.attention_fa2 : eff.attention;
  const AttentionKernel kernel = job.software.attention_kernel;
  if (kernel != AttentionKernel::best)
    for (KernelRates* r : {&c.rates, &c.bf16_rates})
      r->attention_flops_per_s = c.chip->peak_flops_per_s * fa2 *
                                 (kernel == AttentionKernel::flash_attention_1 ? 0.5 : 1.0);
  // FlashAttention-2's sequence-length curve for FlashAttention-2 and
  // -1-class kernels, the chip's best kernel's otherwise.
  c.attention_curve = kernel == AttentionKernel::best || c.chip->compute_units <= 0
                          ? best_attention_curve(*c.chip)
                          : AttentionCurve::flash_attention_2;
  if (job.software.fp8_matmuls) c.rates.matmul_flops_per_s *= job.software.fp8_gemm_speedup;
  c.device_bytes = device_memory(*c.chip).bytes;
  c.network = job.cluster();
  c.intra = intra_node_link(*c.chip, c.network);
  c.inter = inter_node_link(*c.chip, c.network);
  const ModelShape& s = job.shape;
  c.params = count_params(s);
  c.dense_layer = params_per_layer(s, false);
  c.moe_layer = s.is_moe() ? params_per_layer(s, true) : c.dense_layer;
  c.expert_params = s.is_moe() ? c.moe_layer.mlp / (s.n_experts + s.shared_experts) : 0;
  c.moe_layers = s.is_moe() ? s.n_layers - s.n_dense_layers : 0;
  c.grad_bytes = job.software.fp32_grads ? 4 : 2;
  // Mixed precision: an fp32 master copy plus the optimizer's moments (as
  // training_memory counts them); the step reads the gradient twice (norm for
  // clipping, update), reads and writes master and moments, writes bf16 weights.
  switch (job.optimizer) {
    case Optimizer::adam: c.optimizer_bytes = 12; break;
    case Optimizer::sgd_momentum: c.optimizer_bytes = 8; break;
    case Optimizer::adafactor: c.optimizer_bytes = 4; break;
  }
  if (job.software.optimizer_bytes_per_param > 0)
    c.optimizer_bytes = job.software.optimizer_bytes_per_param;
  // Per parameter the step zeroes the gradient buffer, reads it for the norm
  // (clipping) and for the update, reads and writes the fp32 master and the
  // moments, and writes the bf16 weights from the master (Megatron's mixed-
  // precision optimizer): 3 gradient passes + 2 × states + 6.
  c.update_bytes =
      3 * c.grad_bytes + 2 * c.optimizer_bytes + 6 + job.software.extra_update_bytes_per_param;
  c.comm_unit_fraction = c.chip->compute_units > 0
                             ? std::min(0.5, 20.0 / static_cast<double>(c.chip->compute_units))
                             : 0;
  c.model_flops = step_model_flops(job);
  c.dispatch_seconds = job.software.host_dispatch_seconds;
  if (job.calibrated) {  // a cluster profile's fitted constants in place of the published ones
    const CalibratedConstants& k = *job.calibrated;
    const Efficiency& e = c.chip->efficiency;
    for (KernelRates* r : {&c.rates, &c.bf16_rates}) {
      r->matmul_flops_per_s *= k.matmul_efficiency / e.matmul;
      r->hbm_bytes_per_s *= k.hbm_efficiency / e.hbm;
    }
    c.intra.bytes_per_s = c.network.intra_node_bytes_per_s * k.scale_up_efficiency;
    c.inter.bytes_per_s = c.network.inter_node_bytes_per_s * k.scale_out_efficiency;
    c.dispatch_seconds = k.host_dispatch_seconds;
  }
  return c;
}

GroupPlacement placement(const JobContext& c, std::int64_t ranks, std::int64_t stride) {
  return {ranks, ranks_per_node(ranks, stride, c.network.chips_per_node)};
}

double group_seconds(const JobContext& c, Collective op, double bytes, const GroupPlacement& g) {
  if (g.ranks <= 1 || bytes <= 0) return 0;
  return group_collective_seconds(op, bytes, g, c.intra, c.inter);
}

namespace {

double hide(double comm, double window) { return std::max(0.0, comm - window); }

}  // namespace

double overlapped(const JobContext& c, double comm, double window) {
  return hide(comm, window) + c.comm_unit_fraction * std::min(comm, window);
}

double overlapped(const JobContext& c, double comm, double window, double last,
                  double last_window) {
  return std::max(hide(comm, window), hide(last, last_window)) +
         c.comm_unit_fraction * std::min(comm, window);
}

double unfused_accumulation_bytes(const JobContext& c, const Layout& L) {
  const TrainingJob& job = *c.job;
  if (job.software.fused_grad_accumulation) return 0;
  // Read the accumulated gradient and the fresh bf16/fp16 one, write the sum;
  // an fp16 .grad takes the first micro-batch's gradient as it is.
  const double m = static_cast<double>(std::max<std::int64_t>(1, micro_batches_per_step(job, L)));
  const double adds = job.software.fp32_grads ? m : m - 1;
  return (2 * c.grad_bytes + 2 + job.software.accumulation_copy_bytes) * adds / m;
}

}  // namespace parallel_detail

}  // namespace napkin
