// Device memory outside the tensors: the runtime, the collective library's
// buffers and the allocator's unused blocks, by the chip's runtime.
#include <cmath>

#include "parallel.h"
#include "parallel_internal.h"

namespace napkin::parallel_detail {

// Device memory outside the tensors, itemised from public measurements:
//  - the CUDA context and the kernels a step loads: 666,632,192 bytes for a
//    PyTorch process with eager module loading, 287,047,680 with lazy loading
//    (PyTorch pull request #86509); a training step loads most of its
//    kernels, so the eager figure;
//  - NCCL's buffers, per communicator that moves data: 544 MB for a 2-rank
//    group and 688 MB for a larger one, measured with PyTorch process groups
//    after an all-reduce on A100 with NVLink (NCCL issue #964); a ring keeps
//    two connections whatever its size, so a group across nodes needs no more
//    (NCCL maintainers, issue #986). The layout's groups: TP, CP, DP (over
//    DP × CP, as Megatron's gradient group), PP and, with experts, EP;
//  - the caching allocator's reserved-but-unallocated blocks: 1.5 % of the
//    tensors, the median of seven PyTorch out-of-memory reports in public
//    issue threads (0.02-11.7 % of the allocated memory), and the eager
//    loss's unusable block where the stage has one (loss_hole_bytes).
// A measured figure for the cluster replaces all three. On an XLA-compiled
// chip (TPUs) none of them exists: the program's buffers, planned when it
// compiles, are the tensors; the runtime's own reservation is not published,
// so nothing is counted (a measured figure still replaces it).
void add_non_tensor_memory(const JobContext& c, const Layout& layout, std::int64_t tensors,
                           std::int64_t loss_hole_bytes, StageMemory& m) {
  const TrainingJob& job = *c.job;
  if (job.measured_non_tensor_bytes) {
    m.runtime_bytes = *job.measured_non_tensor_bytes;
    m.non_tensor_measured = true;
    return;
  }
  if (c.chip->xla_compiled) {
    m.non_tensor_xla = true;
    return;
  }
  m.non_tensor_rocm = c.chip->rocm;  // the same reserve, under ROCm's names
  constexpr std::int64_t kRuntimeBytes = 666'632'192;
  constexpr std::int64_t kPairCommBytes = 544'000'000, kGroupCommBytes = 688'000'000;
  m.runtime_bytes = kRuntimeBytes;
  const bool folded = job.shape.is_moe() && layout.expert_tp() != layout.tp;
  // Hybrid sharding: ZeRO's group and the replicas' group, each a communicator.
  for (const std::int64_t ranks :
       {layout.tp, layout.cp, layout.zero_shard(), layout.zero_replicas(), layout.pp,
        job.shape.is_moe() ? layout.ep : std::int64_t{1},
        folded ? layout.expert_tp() : std::int64_t{1},
        folded ? layout.expert_dp() : std::int64_t{1}}) {
    if (ranks <= 1) continue;
    ++m.communicators;
    m.comm_buffers_bytes += ranks == 2 ? kPairCommBytes : kGroupCommBytes;
  }
  m.fragmentation_bytes =
      static_cast<std::int64_t>(std::ceil(0.015 * static_cast<double>(tensors))) + loss_hole_bytes;
}

}  // namespace napkin::parallel_detail
