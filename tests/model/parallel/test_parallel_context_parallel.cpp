// Context parallelism's K, V exchange as the software runs it: Megatron
// Core's and Transformer Engine's ring one chunk ahead of the kernel, and
// PyTorch's context_parallel (torchtitan): the expanded K, V all-gathered
// once per call, dK, dV passed on in fp32, fp32 running sums.
#include <gtest/gtest.h>

#include "parallel.h"
#include "parallel_internal.h"
#include "parallel_test_util.h"

namespace napkin {
namespace {

using parallel_detail::cp_exchange;
using parallel_detail::CpExchange;
using parallel_detail::JobContext;

TrainingJob llama8b(std::string_view software, std::int64_t cp) {
  return TrainingJob{.shape = testing_util::preset_shape("Llama-3-8B"),
                     .chip = "H100",
                     .n_chips = 8,
                     .seq_len = 32768 * cp,
                     .global_batch = 8 / cp,
                     .software = software_by_name(software)};
}

Layout cp_layout(std::int64_t cp) {
  Layout l;
  l.tp = 1, l.dp = 8 / cp, l.cp = cp, l.zero = 3, l.recompute = Checkpointing::full;
  return l;
}

TEST(ContextParallel, AMegatronRingSendsTheKvHeadsOneChunkAhead) {
  const TrainingJob j = llama8b("modern", 4);
  const JobContext c = parallel_detail::make_context(j);
  const Layout l = cp_layout(4);
  const double n = 32768, core_f = 0.2, core_b = 0.5;
  const CpExchange x = cp_exchange(c, l, n, 32, 8, 128, 128, core_f, core_b);
  // 8 KV heads of 128 for K and 128 for V, in bf16; three sends over NVLink.
  const double chunk = 2 * n * 8 * 256;
  const double ring = 3 * (c.intra.latency_seconds + chunk / c.intra.bytes_per_s_among(2));
  EXPECT_DOUBLE_EQ(x.fwd_seconds, parallel_detail::overlapped(c, ring, core_f));
  EXPECT_DOUBLE_EQ(x.bwd_seconds, parallel_detail::overlapped(c, 2 * ring, core_b));
  EXPECT_DOUBLE_EQ(x.buffer_bytes, 2 * chunk);
  EXPECT_EQ(x.fwd_bytes, 0);
  EXPECT_EQ(x.bwd_bytes, 0);
  // No context parallelism, no exchange.
  const CpExchange none = cp_exchange(c, cp_layout(1), n, 32, 8, 128, 128, core_f, core_b);
  EXPECT_EQ(none.fwd_seconds + none.bwd_seconds + none.buffer_bytes + none.fwd_bytes, 0);
}

TEST(ContextParallel, PyTorchGathersTheExpandedKvOnceAndPassesFp32Gradients) {
  const TrainingJob j = llama8b("fsdp-compile", 4);
  const JobContext c = parallel_detail::make_context(j);
  const Layout l = cp_layout(4);
  const double n = 32768;
  // torchtitan's Llama expands K and V to the 32 query heads before the call.
  const double kv = n * 32 * 256, chunk = 2 * kv;
  const GroupPlacement group{4, 4};
  const double gather =
      group_collective_seconds(Collective::all_gather, 4 * chunk, group, c.intra, c.inter);
  const double pass = c.intra.latency_seconds + 2 * chunk / c.intra.bytes_per_s_among(2);
  // Kernels too short to hide anything: the gather waited for in full each
  // way, and every fp32 pass of dK, dV.
  const CpExchange bare = cp_exchange(c, l, n, 32, 8, 128, 128, 0, 0);
  EXPECT_NEAR(bare.fwd_seconds, gather, 1e-12);
  EXPECT_NEAR(bare.bwd_seconds, gather + 4 * pass, 1e-12);
  // Long kernels: the gather hides behind the first chunk's only, the passes
  // behind the next chunk's; the last pass after the loop stays exposed.
  const double core_f = 4 * gather, core_b = 4 * pass;
  const CpExchange x = cp_exchange(c, l, n, 32, 8, 128, 128, core_f, core_b);
  EXPECT_NEAR(x.fwd_seconds, parallel_detail::overlapped(c, gather, gather), 1e-12);
  EXPECT_NEAR(x.bwd_seconds,
              parallel_detail::overlapped(c, gather, pass) +
                  3 * parallel_detail::overlapped(c, pass, pass) + pass,
              1e-12);
  // The fp32 running sums: 6 + 10 × 3 + 6 bytes per output element forward
  // and K, V concatenated before three of the four chunks; the backward's dQ
  // (4 + 10 × 4 + 6), dK, dV (4 + 18 × 4 + 6) and the concatenations.
  const double out = n * 32 * 128;
  EXPECT_NEAR(x.fwd_bytes, out * 42 + 4 * kv * 3, 1);
  EXPECT_NEAR(x.bwd_bytes, out * 50 + kv * 82 + 4 * kv * 3, 1);
  // At the backward's peak: the gathered K, V, fp32 dQ and two fp32 dK, dV.
  EXPECT_NEAR(x.buffer_bytes, 4 * chunk + 4 * out + 8 * kv, 1);
}

TEST(ContextParallel, TorchtitansRowsRunSlowerAndHoldMoreThanARings) {
  // Llama-3.1-8B at 256K tokens on 8 H100, CP 8 (torchtitan's December 2024
  // Table 2): the same job with the ring exchange for comparison.
  TrainingJob torch = llama8b("fsdp-compile", 8);
  TrainingJob ring = torch;
  ring.software.torch_context_parallel = false;
  ring.software.kv_repeated_for_attention = false;
  const Layout l = cp_layout(8);
  const LayoutResult t = evaluate_layout(torch, l), r = evaluate_layout(ring, l);
  ASSERT_TRUE(t.valid && r.valid);
  EXPECT_GT(t.step_seconds, r.step_seconds * 1.02);
  EXPECT_LT(t.step_seconds, r.step_seconds * 1.15);  // the attention kernels dominate
  EXPECT_GE(t.memory.activations_bytes, r.memory.activations_bytes);
  // Without context parallelism the two are one job.
  TrainingJob torch1 = llama8b("fsdp-compile", 1), ring1 = torch1;
  ring1.software.torch_context_parallel = false;
  ring1.software.kv_repeated_for_attention = false;
  EXPECT_DOUBLE_EQ(evaluate_layout(torch1, cp_layout(1)).step_seconds,
                   evaluate_layout(ring1, cp_layout(1)).step_seconds);
}

}  // namespace
}  // namespace napkin
