// The pipeline schedule as Gantt bars: Megatron-LM's 1F1B and interleaved
// orders (Narayanan et al. SC'21 §2.2; megatron/core/pipeline_parallel/
// schedules.py: warm-up forwards, one-forward-one-backward, cool-down
// backwards), and zb-h1's (Qi et al., "Zero Bubble Pipeline Parallelism",
// ICLR 2024, §3.1: 1F1B's order with each weight gradient W deferred into the
// waits), simulated event by event from per-stage times.
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

// Throws std::invalid_argument naming the first input simulate_pipeline()
// cannot draw: stage times that disagree in number or are negative, a
// weight-gradient time above its backward, zb-h1 interleaved, an interleaved
// schedule whose micro-batches are not a multiple of the stages, or more
// than 5e7 operations.
void check_schedule_inputs(std::span<const double> fwd, std::span<const double> bwd, std::int64_t m,
                           std::int64_t v, double p2p, std::span<const double> wgrad) {
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
  const bool zb = !wgrad.empty();
  if (zb) {
    if (wgrad.size() != fwd.size())
      throw std::invalid_argument("weight-gradient times (stages) must match forward times (" +
                                  std::to_string(p) + "); got " + std::to_string(wgrad.size()));
    if (v > 1)
      throw std::invalid_argument(
          "the zb-h1 schedule is drawn without interleaving: chunks must "
          "be 1; got " +
          std::to_string(v));
    for (std::size_t i = 0; i < wgrad.size(); ++i)
      require_real(wgrad[i], "weight-gradient time", "seconds", 0, bwd[i]);
  }
  if (v > 1 && m % p != 0)
    throw std::invalid_argument("micro-batches (" + std::to_string(m) +
                                ") must be a multiple of the stages (" + std::to_string(p) +
                                ") for the interleaved schedule");
  if (static_cast<double>(m) * static_cast<double>(v) * static_cast<double>(p) > 5e7)
    throw std::invalid_argument(
        "pipeline schedule too large to draw: stages × micro-batches × "
        "chunks must be at most 5e7");
}

// The operations in stage order, each stage's by start time; the makespan,
// and the bubble: the share of the p stages × makespan with no operation.
void summarise(PipelineSchedule& out) {
  std::stable_sort(out.ops.begin(), out.ops.end(), [](const ScheduleOp& a, const ScheduleOp& b) {
    return a.stage != b.stage ? a.stage < b.stage : a.start_seconds < b.start_seconds;
  });
  double busy = 0;
  for (const ScheduleOp& op : out.ops) {
    out.makespan_seconds = std::max(out.makespan_seconds, op.end_seconds);
    busy += op.end_seconds - op.start_seconds;
  }
  if (out.makespan_seconds > 0)
    out.bubble_fraction = 1.0 - busy / (static_cast<double>(out.stages) * out.makespan_seconds);
}

}  // namespace

PipelineSchedule simulate_pipeline(std::span<const double> fwd, std::span<const double> bwd,
                                   std::int64_t m, std::int64_t v, double p2p,
                                   std::span<const double> wgrad) {
  const std::int64_t p = static_cast<std::int64_t>(fwd.size());
  check_schedule_inputs(fwd, bwd, m, v, p2p, wgrad);
  const bool zb = !wgrad.empty();
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
  out.order = zb ? PipeSchedule::zb_h1 : PipeSchedule::one_f_one_b;
  out.stages = p;
  out.chunks = v;
  out.micro_batches = m;
  const std::size_t all = static_cast<std::size_t>((zb ? 3 : 2) * m * v * p);
  out.ops.reserve(all);
  std::size_t done = 0;
  // zb-h1: the micro-batches whose W waits, and each stage's forwards and Ws run.
  std::vector<std::vector<std::int64_t>> waiting(static_cast<std::size_t>(p));
  std::vector<std::size_t> first_waiting(static_cast<std::size_t>(p), 0);
  std::vector<std::int64_t> forwards(static_cast<std::size_t>(p), 0);
  std::vector<std::int64_t> weights(static_cast<std::size_t>(p), 0);
  auto has_waiting = [&](std::size_t si) { return first_waiting[si] < waiting[si].size(); };
  auto run_weight = [&](std::int64_t i) {
    const std::size_t si = static_cast<std::size_t>(i);
    const std::int64_t mb = waiting[si][first_waiting[si]++];
    const double start = free_at[si];
    free_at[si] = start + wgrad[si];
    out.ops.push_back({i, mb, 0, false, true, start, free_at[si]});
    ++weights[si];
    ++done;
  };
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
        if (zb) {
          // Memory: every stage keeps at most the p micro-batches in flight that
          // 1F1B's first stage does (a micro-batch is in flight from its F to
          // its W; a W holds less than a B, so no stage exceeds 1F1B's peak).
          if (sl.forward)
            while (has_waiting(si) && forwards[si] - weights[si] >= p) run_weight(i);
          // A wait for a neighbour that holds a whole W.
          while (has_waiting(si) && free_at[si] + wgrad[si] <= ready) run_weight(i);
        }
        const double start = std::max(ready, free_at[si]);
        const double end = start + (sl.forward ? fwd[si] : zb ? bwd[si] - wgrad[si] : bwd[si]);
        (sl.forward ? f_end : b_end)[at(vs, sl.micro_batch)] = end;
        free_at[si] = end;
        out.ops.push_back({i, sl.micro_batch, sl.chunk, sl.forward, false, start, end});
        if (sl.forward)
          ++forwards[si];
        else if (zb)
          waiting[si].push_back(sl.micro_batch);
        ++next[si];
        ++done;
        progressed = true;
      }
      // The drain: the Ws still waiting, after the stage's last backward.
      if (zb && next[si] == orders[si].size() && has_waiting(si)) {
        while (has_waiting(si)) run_weight(i);
        progressed = true;
      }
    }
    if (!progressed) throw std::logic_error("pipeline schedule deadlocked");
  }
  summarise(out);
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
  std::vector<double> f, b, w;
  const double v = static_cast<double>(layout.vpp);
  const bool zb =
      job.software.pipe_schedule == PipeSchedule::zb_h1 && layout.pp > 1 && layout.vpp == 1;
  for (const StageTime& x : st) {
    f.push_back(x.fwd / v);
    b.push_back(x.bwd / v);
    if (zb) w.push_back(std::min(x.wgrad, x.bwd));  // as the step time splits it
  }
  return simulate_pipeline(f, b, m, layout.vpp, p2p, w);
}

}  // namespace napkin
