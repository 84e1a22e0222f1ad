// The MoE engines with small bounded inputs: the router-collapse simulation
// (≤ 64 experts, ≤ 256 tokens, ≤ 50 steps), capacity from counts, the
// all-to-all cost and the pipelined prefill. Each either returns finite
// numbers or throws std::invalid_argument.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "moe.h"

namespace {

void require_finite(double v) {
  if (!std::isfinite(v)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: {
      napkin::CollapseParams p;
      p.n_experts = in.ConsumeIntegralInRange<std::int64_t>(-1, 64);
      p.top_k = in.ConsumeIntegralInRange<std::int64_t>(-1, 65);
      p.aux_weight = in.ConsumeFloatingPoint<double>();
      p.z_weight = in.ConsumeFloatingPoint<double>();
      p.capacity_factor = in.ConsumeFloatingPoint<double>();
      p.shared_expert = in.ConsumeBool();
      p.renormalize = in.ConsumeBool();
      p.tokens_per_batch = in.ConsumeIntegralInRange<std::int64_t>(-1, 256);
      p.d_model = in.ConsumeIntegralInRange<std::int64_t>(-1, 32);
      p.learning_rate = in.ConsumeFloatingPoint<double>();
      p.skill_gain = in.ConsumeFloatingPoint<double>();
      p.seed = in.ConsumeIntegral<std::uint64_t>();
      const auto steps = in.ConsumeIntegralInRange<std::int64_t>(1, 50);
      try {
        napkin::CollapseSimulation sim(p);
        for (std::int64_t i = 0; i < steps; ++i) {
          const napkin::StepStats& s = sim.step();
          require_finite(s.max_over_mean);
          require_finite(s.recent_max_over_mean);
          require_finite(s.l_balance);
          require_finite(s.l_z);
          require_finite(s.drop_rate);
          require_finite(s.task_loss);
        }
      } catch (const std::invalid_argument&) {
      }
      break;
    }
    case 1: {
      std::vector<std::int64_t> counts;
      const int n = in.ConsumeIntegralInRange<int>(0, 64);
      for (int i = 0; i < n; ++i) counts.push_back(in.ConsumeIntegral<std::int64_t>());
      const double cf = in.ConsumeFloatingPoint<double>();
      const auto k = in.ConsumeIntegral<std::int64_t>();
      try {
        const napkin::CapacityResult r = napkin::capacity_from_counts(counts, cf, k);
        require_finite(r.drop_rate);
        require_finite(r.buffer_utilization);
        for (const auto& c : napkin::capacity_tradeoff(counts, k, 1.0, 2.0, 11)) {
          require_finite(c.drop_rate);
          require_finite(c.wasted_fraction);
        }
      } catch (const std::invalid_argument&) {
      }
      break;
    }
    case 2: {
      napkin::AllToAllInputs a;
      a.tokens = in.ConsumeIntegral<std::int64_t>();
      a.d_model = in.ConsumeIntegral<std::int64_t>();
      a.n_layers = in.ConsumeIntegral<std::int64_t>();
      a.top_k = in.ConsumeIntegral<std::int64_t>();
      a.bytes_per_elem = in.ConsumeIntegral<std::int64_t>();
      a.link_gbps = in.ConsumeFloatingPoint<double>();
      a.latency_us = in.ConsumeFloatingPoint<double>();
      try {
        const napkin::AllToAllCost c = napkin::expert_parallel_comm(a);
        require_finite(c.seconds);
      } catch (const std::invalid_argument&) {
      }
      break;
    }
    default: {
      napkin::PipelineInputs p;
      p.chunks = in.ConsumeIntegral<std::int64_t>();
      p.stages = in.ConsumeIntegral<std::int64_t>();
      p.compute_ms = in.ConsumeFloatingPoint<double>();
      p.transfer_ms = in.ConsumeFloatingPoint<double>();
      try {
        const napkin::PipelineResult r = napkin::pipelined_prefill(p);
        require_finite(r.pipelined_ms);
        require_finite(r.utilization);
        if (p.chunks <= 64 && p.stages <= 64) (void)napkin::pipeline_schedule(p);
      } catch (const std::invalid_argument&) {
      }
    }
  }
  return 0;
}
