// Context parallelism's exchange of K and V around a layer's attention
// (parallel_internal.h, cp_exchange), as the software runs it.
#include "parallel_internal.h"

namespace napkin {

namespace parallel_detail {

CpExchange cp_exchange(const JobContext& c, const Layout& L, double tokens, std::int64_t q_heads,
                       std::int64_t kv_heads, std::int64_t d_qk, std::int64_t d_v, double core_fwd,
                       double core_bwd) {
  CpExchange x;
  if (L.cp <= 1) return x;
  const TrainingSoftware& sw = c.job->software;
  const GroupPlacement group = placement(c, L.cp, L.tp);
  const Link& link = group.ranks_per_node == group.ranks ? c.intra : c.inter;
  auto send = [&](double bytes) {
    return link.latency_seconds + bytes / link.bytes_per_s_among(2);
  };
  const double cp = static_cast<double>(L.cp);
  // This rank's K and V as the attention call receives them, and their bf16 bytes.
  const double heads = static_cast<double>(sw.kv_repeated_for_attention ? q_heads : kv_heads);
  const double kv = tokens * heads * static_cast<double>(d_qk + d_v);
  const double chunk = 2 * kv;
  if (!sw.torch_context_parallel) {
    // A ring: each chunk's K and V sent on while the kernel runs on the one
    // before (cp − 1 sends); the backward also returns dK, dV. The chunk in
    // use and the one arriving are held.
    const double ring = (cp - 1) * send(chunk);
    x.fwd_seconds = overlapped(c, ring, core_fwd);
    x.bwd_seconds = overlapped(c, 2 * ring, core_bwd);
    x.buffer_bytes = 2 * chunk;
    return x;
  }
  // PyTorch's context_parallel with the "allgather" rotate method
  // (torch/distributed/tensor/experimental/_attention.py, _AllGatherRotater
  // and _templated_ring_attention[_backward], December 2024): every rank's K
  // and V all-gathered once per attention call, issued before the first
  // chunk's kernel and waited for after it; the backward gathers them again
  // and, after each chunk's kernel, passes the accumulated dK, dV in fp32 to
  // the next rank (_AllToAllRotater), waited for after the next chunk's
  // kernel, the last after the loop.
  const double gather = group_seconds(c, Collective::all_gather, cp * chunk, group);
  const double first_fwd = core_fwd / cp, first_bwd = core_bwd / cp;
  const double pass = send(2 * chunk);
  x.fwd_seconds = overlapped(c, gather, first_fwd);
  x.bwd_seconds =
      overlapped(c, gather, first_bwd) + (cp - 1) * overlapped(c, pass, first_bwd) + pass;
  // The element-wise work around the chunks' kernels, at least what its fp32
  // running sums cost however the ops fuse: the forward casts the first
  // chunk's output to fp32 (2 bytes read, 4 written), merges every later one
  // into it (_SDPAMerger: the fp32 output read and written, the chunk's bf16
  // output read) and casts the result back; the backward zeroes fp32 dQ, dK
  // and dV, adds every chunk's gradients into them (10 bytes per element),
  // concatenates dK, dV for each pass (8) and casts all three back. Each
  // pass but the last also concatenates K and V (torch.cat: 4 bytes per
  // element), forward and backward.
  const double out = tokens * static_cast<double>(q_heads * d_v);
  const double q = tokens * static_cast<double>(q_heads * d_qk);
  x.fwd_bytes = out * (6 + 10 * (cp - 1) + 6) + 4 * kv * (cp - 1);
  x.bwd_bytes = q * (4 + 10 * cp + 6) + kv * (4 + 18 * cp + 6) + 4 * kv * (cp - 1);
  // At the backward's peak: the gathered K and V, fp32 dQ, and this rank's
  // and the arriving fp32 dK, dV.
  x.buffer_bytes = cp * chunk + 4 * q + 8 * kv;
  return x;
}

}  // namespace parallel_detail

}  // namespace napkin
