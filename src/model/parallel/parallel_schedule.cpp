// The pipeline schedule as Gantt bars: Megatron-LM's 1F1B and interleaved
// orders (Narayanan et al. SC'21 §2.2; megatron/core/pipeline_parallel/
// schedules.py: warm-up forwards, one-forward-one-backward, cool-down
// backwards), simulated event by event from per-stage times.
#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "parallel.h"
#include "parallel_internal.h"
#include "validate.h"

namespace napkin {

namespace {

struct Slot {
  std::int64_t micro_batch;
  std::int64_t chunk;
  bool forward;
};

// The order in which stage `i` of `p` runs its m·v forwards and backwards.
std::vector<Slot> stage_order(std::int64_t i, std::int64_t p, std::int64_t v, std::int64_t m) {
  const std::int64_t total = m * v;
  // Forward k-th virtual micro-batch: chunk (k / p) mod v, micro-batch
  // (k / (p·v))·p + k mod p; backwards run the chunks in reverse.
  auto slot = [&](std::int64_t k, bool forward) {
    std::int64_t chunk = (k / p) % v;
    if (!forward) chunk = v - 1 - chunk;
    return Slot{(k / (p * v)) * p + k % p, chunk, forward};
  };
  if (v == 1) {
    auto one = [&](std::int64_t k, bool forward) { return Slot{k, 0, forward}; };
    const std::int64_t warm = std::min(p - i - 1, m);
    std::vector<Slot> out;
    out.reserve(static_cast<std::size_t>(2 * m));
    for (std::int64_t k = 0; k < warm; ++k) out.push_back(one(k, true));
    for (std::int64_t k = 0; k < m - warm; ++k) {
      out.push_back(one(warm + k, true));
      out.push_back(one(k, false));
    }
    for (std::int64_t k = m - warm; k < m; ++k) out.push_back(one(k, false));
    return out;
  }
  const std::int64_t warm = std::min(2 * (p - i - 1) + (v - 1) * p, total);
  std::vector<Slot> out;
  out.reserve(static_cast<std::size_t>(2 * total));
  for (std::int64_t k = 0; k < warm; ++k) out.push_back(slot(k, true));
  for (std::int64_t k = 0; k < total - warm; ++k) {
    out.push_back(slot(warm + k, true));
    out.push_back(slot(k, false));
  }
  for (std::int64_t k = total - warm; k < total; ++k) out.push_back(slot(k, false));
  return out;
}

}  // namespace

PipelineSchedule simulate_pipeline(std::span<const double> fwd, std::span<const double> bwd,
                                   std::int64_t m, std::int64_t v, double p2p) {
  const std::int64_t p = static_cast<std::int64_t>(fwd.size());
  require_count(p, "pipeline stages", "stages", 1, 100'000);
  if (bwd.size() != fwd.size())
    throw std::invalid_argument("backward times (stages) must match forward times (" +
                                std::to_string(p) + "); got " + std::to_string(bwd.size()));
  require_count(m, "micro-batches", "micro-batches", 1, 10'000'000);
  require_count(v, "chunks", "model chunks per stage", 1, 1'000);
  require_real(p2p, "p2p", "seconds", 0);
  for (std::size_t i = 0; i < fwd.size(); ++i) {
    require_real(fwd[i], "forward time", "seconds", 0);
    require_real(bwd[i], "backward time", "seconds", 0);
  }
  if (v > 1 && m % p != 0)
    throw std::invalid_argument("micro-batches (" + std::to_string(m) +
                                ") must be a multiple of the stages (" + std::to_string(p) +
                                ") for the interleaved schedule");
  if (static_cast<double>(m) * static_cast<double>(v) * static_cast<double>(p) > 5e7)
    throw std::invalid_argument(
        "pipeline schedule too large to draw: stages × micro-batches × "
        "chunks must be at most 5e7");
  const std::int64_t stages_v = p * v;  // virtual stages
  const double unset = -1;
  // End times of each (virtual stage, micro-batch) forward and backward.
  std::vector<double> f_end(static_cast<std::size_t>(stages_v * m), unset);
  std::vector<double> b_end(static_cast<std::size_t>(stages_v * m), unset);
  auto at = [&](std::int64_t vs, std::int64_t mb) { return static_cast<std::size_t>(vs * m + mb); };
  std::vector<std::vector<Slot>> orders;
  for (std::int64_t i = 0; i < p; ++i) orders.push_back(stage_order(i, p, v, m));
  std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);
  std::vector<double> free_at(static_cast<std::size_t>(p), 0);
  PipelineSchedule out;
  out.stages = p;
  out.chunks = v;
  out.micro_batches = m;
  out.ops.reserve(static_cast<std::size_t>(2 * m * v * p));
  std::size_t done = 0;
  const std::size_t all = static_cast<std::size_t>(2 * m * v * p);
  while (done < all) {
    bool progressed = false;
    for (std::int64_t i = 0; i < p; ++i) {
      const std::size_t si = static_cast<std::size_t>(i);
      while (next[si] < orders[si].size()) {
        const Slot& sl = orders[si][next[si]];
        const std::int64_t vs = sl.chunk * p + i;
        double ready = 0;
        if (sl.forward) {
          if (vs > 0) {
            const double prev = f_end[at(vs - 1, sl.micro_batch)];
            if (prev < 0) break;
            ready = prev + p2p;
          }
        } else {
          if (vs + 1 < stages_v) {
            const double prev = b_end[at(vs + 1, sl.micro_batch)];
            if (prev < 0) break;
            ready = prev + p2p;
          } else {
            const double own = f_end[at(vs, sl.micro_batch)];
            if (own < 0) break;
            ready = own;
          }
        }
        const double start = std::max(ready, free_at[si]);
        const double end = start + (sl.forward ? fwd[si] : bwd[si]);
        (sl.forward ? f_end : b_end)[at(vs, sl.micro_batch)] = end;
        free_at[si] = end;
        out.ops.push_back({i, sl.micro_batch, sl.chunk, sl.forward, start, end});
        ++next[si];
        ++done;
        progressed = true;
      }
    }
    if (!progressed) throw std::logic_error("pipeline schedule deadlocked");
  }
  std::stable_sort(out.ops.begin(), out.ops.end(), [](const ScheduleOp& a, const ScheduleOp& b) {
    return a.stage != b.stage ? a.stage < b.stage : a.start_seconds < b.start_seconds;
  });
  double busy = 0;
  for (const ScheduleOp& op : out.ops) {
    out.makespan_seconds = std::max(out.makespan_seconds, op.end_seconds);
    busy += op.end_seconds - op.start_seconds;
  }
  if (out.makespan_seconds > 0)
    out.bubble_fraction = 1.0 - busy / (static_cast<double>(p) * out.makespan_seconds);
  return out;
}

PipelineSchedule pipeline_schedule(const TrainingJob& job, const Layout& layout,
                                   std::int64_t max_micro_batches) {
  using namespace parallel_detail;
  const JobContext c = make_context(job);
  if (auto problem = layout_problem(job, layout)) throw std::invalid_argument(*problem);
  require_count(max_micro_batches, "max_micro_batches", "micro-batches", 0);
  const LayerCost dense = layer_cost(c, layout, false);
  const LayerCost moe = job.shape.is_moe() ? layer_cost(c, layout, true) : dense;
  const std::vector<StageComposition> comps = stage_compositions(c, layout);
  double p2p = 0;
  std::vector<StageTime> st;
  stage_times(c, layout, comps, dense, moe, embedding_cost(c, layout), output_cost(c, layout), st,
              &p2p);
  std::int64_t m = micro_batches_per_step(job, layout);
  if (max_micro_batches > 0 && m > max_micro_batches) {
    m = max_micro_batches;
    if (layout.vpp > 1) m = std::max(layout.pp, m / layout.pp * layout.pp);
  }
  std::vector<double> f, b;
  const double v = static_cast<double>(layout.vpp);
  for (const StageTime& x : st) {
    f.push_back(x.fwd / v);
    b.push_back(x.bwd / v);
  }
  return simulate_pipeline(f, b, m, layout.vpp, p2p);
}

}  // namespace napkin
