// The search over every layout of a job: enumerate the divisors, evaluate each
// layout from per-layer costs cached by the axes they depend on, rank, and
// extract the memory–time Pareto front and the (TP, PP) MFU grid.
#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "format.h"
#include "hardware.h"
#include "parallel.h"
#include "parallel_internal.h"
#include "validate.h"

namespace napkin {

namespace {

// What a searched selective recomputation re-runs: the modules named, else
// the framework's own (torchtitan's op-level policy; Megatron's attention
// core, 0).
std::uint32_t searched_selective_modules(const TrainingJob& job, const SearchOptions& opt) {
  if (opt.recompute_modules != 0) return opt.recompute_modules;
  return job.software.op_level_selective ? std::uint32_t{kRecomputeOp} : 0u;
}

using namespace parallel_detail;

std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> small, large;
  for (std::int64_t d = 1; d * d <= n; ++d) {
    if (n % d != 0) continue;
    small.push_back(d);
    if (d != n / d) large.push_back(n / d);
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

template <typename T>
std::vector<T> axis(const std::optional<T>& fixed, std::vector<T> all) {
  if (!fixed) return all;
  return {*fixed};
}

// (ep, etp) for one (tp, dp × cp): the experts split tp ways (stored as etp
// = 0), or, with sequence parallelism, whole on each rank with EP folded over
// TP; a dense model has the one grid (1, 0).
std::vector<std::pair<std::int64_t, std::int64_t>> expert_grids(const TrainingJob& job,
                                                                const SearchOptions& opt,
                                                                std::int64_t tp, std::int64_t dp_cp,
                                                                std::int64_t node) {
  const ModelShape& s = job.shape;
  if (!s.is_moe()) return {{1, 0}};
  std::vector<std::pair<std::int64_t, std::int64_t>> grids;
  std::vector<std::int64_t> etps = {tp};
  if (tp > 1 && opt.sequence_parallel.value_or(job.software.sequence_parallel)) etps.push_back(1);
  if (opt.etp) etps = {*opt.etp};
  for (std::int64_t etp : etps) {
    if (etp < 1 || etp > tp || tp % etp != 0) continue;
    for (std::int64_t e : divisors(s.n_experts))
      if ((tp * dp_cp) % (etp * e) == 0 &&
          (opt.ep ? e == *opt.ep : !opt.ep_within_node || etp * e <= node))
        grids.emplace_back(e, etp == tp ? 0 : etp);
  }
  return grids;
}

// Per-layer costs depend on (tp, cp, mb, recompute, ep, etp), and, where the
// software has them, on the micro-batches per step (an unfused gradient
// accumulation's bytes) and on whether ZeRO-3 shards (FSDP2's copies);
// edges on (tp, cp, mb, pp > 1), the same two and, for an FP8 run's bf16
// edge layers, the recomputation and the expert grid (ep, etp).
class CostCache {
 public:
  explicit CostCache(const JobContext& c) : c_(c) {}

  LayoutResult evaluate(const Layout& L) {
    const TrainingJob& job = *c_.job;
    const TrainingSoftware& sw = job.software;
    const std::int64_t acc = sw.fused_grad_accumulation ? 0 : micro_batches_per_step(job, L);
    const bool copies = sw.fsdp2_copies && zero_as_run(job, L) >= 3 && L.zero_shard() > 1;
    // A partial recomputation's share depends on the layers per chunk: its
    // chunk count joins the keys (0 otherwise).
    const std::int64_t partial = L.recompute_layers > 0 ? L.pp * L.vpp : 0;
    const int rc = static_cast<int>(L.recompute);
    const LayerKey key{L.tp, L.cp, L.micro_batch, rc, L.ep, acc, copies, L.etp, partial};
    auto it = layers_.find(key);
    if (it == layers_.end()) {
      const LayerCost d = layer_cost(c_, L, false);
      const LayerCost e = job.shape.is_moe() ? layer_cost(c_, L, true) : d;
      it = layers_.emplace(key, std::pair{d, e}).first;
    }
    const EdgeKey ekey{L.tp, L.cp, L.micro_batch, L.pp > 1, acc, copies, rc, L.ep, L.etp, partial};
    auto et = edges_.find(ekey);
    if (et == edges_.end())
      et = edges_.emplace(ekey, std::pair{embedding_cost(c_, L), output_cost(c_, L)}).first;
    return evaluate_prepared(c_, L, it->second.first, it->second.second, et->second.first,
                             et->second.second);
  }

 private:
  using LayerKey = std::tuple<std::int64_t, std::int64_t, std::int64_t, int, std::int64_t,
                              std::int64_t, bool, std::int64_t, std::int64_t>;
  using EdgeKey = std::tuple<std::int64_t, std::int64_t, std::int64_t, bool, std::int64_t, bool,
                             int, std::int64_t, std::int64_t, std::int64_t>;
  const JobContext& c_;
  std::map<LayerKey, std::pair<LayerCost, LayerCost>> layers_;
  std::map<EdgeKey, std::pair<EdgeCost, EdgeCost>> edges_;
};

// Rank by a key (fitting first by step time, then by how far over HBM;
// ties in enumeration order), moving the results once.
void rank_layouts(SearchResult& res) {
  struct Rank {
    bool over;
    double key;
    std::size_t index;
  };
  std::vector<Rank> order(res.layouts.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    const LayoutResult& l = res.layouts[i];
    order[i] = {!l.fits, l.fits ? l.step_seconds : static_cast<double>(l.over_hbm_bytes), i};
  }
  std::sort(order.begin(), order.end(), [](const Rank& a, const Rank& b) {
    if (a.over != b.over) return b.over;
    if (a.key != b.key) return a.key < b.key;
    return a.index < b.index;
  });
  std::vector<LayoutResult> ranked;
  ranked.reserve(order.size());
  for (const Rank& r : order) ranked.push_back(std::move(res.layouts[r.index]));
  res.layouts = std::move(ranked);
}

// The Pareto front: fitting layouts by memory (then time), keeping each that
// is faster than every one with less memory.
void find_pareto_front(SearchResult& res) {
  struct ByMemory {
    std::int64_t bytes;
    double seconds;
    std::size_t index;
  };
  std::vector<ByMemory> fit;
  for (std::size_t i = 0; i < res.layouts.size(); ++i)
    if (res.layouts[i].fits)
      fit.push_back({res.layouts[i].memory.total_bytes, res.layouts[i].step_seconds, i});
  res.fitting = static_cast<std::int64_t>(fit.size());
  std::sort(fit.begin(), fit.end(), [](const ByMemory& a, const ByMemory& b) {
    if (a.bytes != b.bytes) return a.bytes < b.bytes;
    if (a.seconds != b.seconds) return a.seconds < b.seconds;
    return a.index < b.index;
  });
  double best = 0;
  for (const ByMemory& f : fit) {
    if (res.pareto.empty() || f.seconds < best) {
      res.pareto.push_back(f.index);
      best = f.seconds;
    }
  }
}

}  // namespace

SearchResult search_layouts(const TrainingJob& job, const SearchOptions& opt) {
  const JobContext c = make_context(job);
  const ModelShape& s = job.shape;
  const std::int64_t node = c.network.chips_per_node;
  require_count(opt.max_vpp, "max_vpp", "model chunks", 1, 1'000);
  require_count(opt.max_micro_batch, "max_micro_batch", "sequences", 1, 1'000'000);
  require_count(opt.max_cp, "max_cp", "context-parallel ranks", 1, 1'000'000);
  if (opt.sequence_parallel.value_or(false) && !job.software.sequence_parallel) {
    SearchResult none;  // a lock the framework cannot honour at any TP
    none.none_reason = no_layout_reason(job, opt);
    return none;
  }
  const std::vector<std::int64_t> chip_divs = divisors(job.n_chips);
  // The ZeRO stages tried (searched_zero_stages), without and with a pipeline.
  static const std::vector<int> kNoSharding = {0};
  static const std::vector<std::int64_t> kWhole = {0};
  const std::vector<int> zeros_flat = searched_zero_stages(job.software, false),
                         zeros_piped = searched_zero_stages(job.software, true);

  std::vector<std::int64_t> tps;
  for (std::int64_t t : chip_divs)
    if (t <= s.n_heads && (!opt.tp_within_node || t <= node)) tps.push_back(t);
  std::vector<Checkpointing> recomputes = {Checkpointing::none, Checkpointing::selective,
                                           Checkpointing::full};
  // With fused attention nothing is left for selective recomputation to drop:
  // it equals none, so the search does not list it twice, unless the
  // framework's selective is torchtitan's op-level policy or modules are named.
  const std::uint32_t selective_modules = searched_selective_modules(job, opt);
  if ((job.software.flash_attention && selective_modules == 0) || !job.software.selective_recompute)
    recomputes = {Checkpointing::none, Checkpointing::full};

  const TrainingSoftware& sw = job.software;
  CostCache costs(c);

  SearchResult res;
  for (std::int64_t tp : axis(opt.tp, tps)) {
    if (job.n_chips % tp != 0) continue;
    for (std::int64_t pp : axis(opt.pp, divisors(job.n_chips / tp))) {
      if (job.n_chips % (tp * pp) != 0 || pp > s.n_layers) continue;
      if (opt.even_stages && s.n_layers % pp != 0) continue;
      for (std::int64_t cp : axis(opt.cp, divisors(job.n_chips / (tp * pp)))) {
        if (job.n_chips % (tp * pp * cp) != 0) continue;
        if (!opt.cp && cp > opt.max_cp) continue;
        const std::int64_t dp = job.n_chips / (tp * pp * cp);
        if (job.global_batch % dp != 0 || (opt.dp && dp != *opt.dp)) continue;
        // Hybrid sharding: ZeRO over the group's ranks in one node, the nodes
        // replicas, where the group spans nodes (Layout::shard).
        const std::int64_t in_node = placement(c, dp * cp, tp).ranks_per_node;
        const std::vector<std::int64_t> shards =
            sw.hybrid_sharding && !s.is_moe() && in_node > 1 && in_node < dp * cp
                ? std::vector<std::int64_t>{0, in_node}
                : kWhole;
        for (const auto& [ep, etp] : expert_grids(job, opt, tp, dp * cp, node)) {
          std::vector<std::int64_t> mbs;
          for (std::int64_t mb : divisors(job.global_batch / dp))
            if (mb <= opt.max_micro_batch) mbs.push_back(mb);
          for (std::int64_t mb : axis(opt.micro_batch, mbs)) {
            const std::int64_t m =
                job.global_batch % (dp * mb) == 0 ? job.global_batch / (dp * mb) : 0;
            std::vector<std::int64_t> vpps = {1};
            if (pp > 1)
              for (std::int64_t v = 2; v <= opt.max_vpp; ++v)
                if ((opt.even_stages ? s.n_layers % (pp * v) == 0 : pp * v <= s.n_layers) &&
                    m % pp == 0)
                  vpps.push_back(v);
            // ZeRO-0 where nothing is sharded; else the framework's stages.
            const std::vector<int>& zeros = dp * cp == 1 ? kNoSharding
                                            : pp > 1     ? zeros_piped
                                                         : zeros_flat;
            for (std::int64_t vpp : axis(opt.vpp, vpps)) {
              for (int zero : axis(opt.zero, zeros)) {
                for (std::int64_t shard : axis(opt.shard, zero == 0 ? kWhole : shards)) {
                  for (Checkpointing rc : axis(opt.recompute, recomputes)) {
                    Layout L;
                    L.tp = tp, L.pp = pp, L.vpp = vpp, L.dp = dp, L.cp = cp, L.ep = ep;
                    L.etp = etp;
                    L.shard = shard == dp * cp ? 0 : shard;
                    L.zero = zero, L.micro_batch = mb,
                    L.sequence_parallel =
                        tp > 1 && opt.sequence_parallel.value_or(sw.sequence_parallel);
                    L.recompute = rc;
                    if (rc == Checkpointing::full) {
                      L.recompute_layers = opt.recompute_layers;
                      L.recompute_group = opt.recompute_group;
                    }
                    if (rc == Checkpointing::selective) L.recompute_modules = selective_modules;
                    if (layout_problem(job, L)) continue;
                    res.layouts.push_back(costs.evaluate(L));
                  }
                }
              }
            }
          }
        }
      }
    }
  }

  rank_layouts(res);
  find_pareto_front(res);
  if (res.layouts.empty()) {
    res.none_reason = no_layout_reason(job, opt);
    if (res.none_reason.empty())
      res.none_reason = "no split of " + format_grouped(job.n_chips) +
                        " chips under these locks is valid for this model and batch";
  }
  return res;
}

std::string no_layout_reason(const TrainingJob& job, const SearchOptions& opt) {
  const ModelShape& s = job.shape;
  const std::string chips = format_grouped(job.n_chips) + " chips";
  if (opt.sequence_parallel.value_or(false) && !job.software.sequence_parallel)
    return std::string(job.software.framework) + " has no sequence parallelism (sp must be off)";
  // The locked axes that split the chips, in the order a layout names them.
  std::int64_t fixed = 1;
  std::string names;
  for (auto [v, name] : {std::pair{opt.tp, "TP"}, {opt.pp, "PP"}, {opt.cp, "CP"}}) {
    if (!v) continue;
    if (*v < 1) return std::string(name) + " must be at least 1";
    if (__builtin_mul_overflow(fixed, *v, &fixed)) return std::string(name) + " is too large";
    names += (names.empty() ? "" : " × ") + std::string(name);
  }
  if (job.n_chips % fixed != 0)
    return chips + " is not divisible by " + names + " = " + format_grouped(fixed);
  const std::int64_t node = job.cluster().chips_per_node;
  if (opt.tp && opt.tp_within_node && *opt.tp > node)
    return "TP = " + format_grouped(*opt.tp) + " spans more than one node of " +
           format_grouped(node) + " × " + job.chip + " (TP is kept inside a node)";
  if (opt.pp && opt.even_stages && *opt.pp <= s.n_layers && s.n_layers % *opt.pp != 0)
    return format_grouped(s.n_layers) +
           " layers do not split evenly into PP = " + format_grouped(*opt.pp) + " stages";
  // The simplest split under the locks: what stops it is what stops the search.
  Layout l;
  l.tp = opt.tp.value_or(1);
  l.pp = opt.pp.value_or(1);
  l.cp = opt.cp.value_or(1);
  l.vpp = opt.vpp.value_or(1);
  l.ep = opt.ep.value_or(1);
  if (opt.etp && *opt.etp != l.tp) l.etp = *opt.etp;
  l.micro_batch = opt.micro_batch.value_or(1);
  l.dp = job.n_chips / (l.tp * l.pp * l.cp);
  if (opt.shard && *opt.shard != l.dp * l.cp) l.shard = *opt.shard;
  // The framework's lowest sharding stage (ZeRO-1 where it has one).
  const std::vector<int> zeros = searched_zero_stages(job.software, l.pp > 1);
  l.zero = opt.zero.value_or(l.dp * l.cp == 1 || zeros.empty() ? 0 : zeros.front());
  l.sequence_parallel = l.tp > 1 && opt.sequence_parallel.value_or(job.software.sequence_parallel);
  l.recompute = opt.recompute.value_or(Checkpointing::none);
  if (l.recompute == Checkpointing::full) {
    l.recompute_layers = opt.recompute_layers;
    l.recompute_group = opt.recompute_group;
  }
  if (l.recompute == Checkpointing::selective)
    l.recompute_modules = searched_selective_modules(job, opt);
  if (auto problem = layout_problem(job, l))
    return "the simplest split of " + chips + " under the locks (DP " + format_grouped(l.dp) +
           ") cannot run: " + *problem;
  return {};
}

std::vector<MfuCell> mfu_by_tp_pp(const SearchResult& r) {
  std::map<std::pair<std::int64_t, std::int64_t>, MfuCell> cells;
  for (std::size_t i = 0; i < r.layouts.size(); ++i) {
    const LayoutResult& l = r.layouts[i];
    const auto key = std::pair{l.layout.tp, l.layout.pp};
    auto it = cells.find(key);
    if (it == cells.end()) {
      cells.emplace(key, MfuCell{l.layout.tp, l.layout.pp, l.fits ? l.mfu : 0, l.fits, i});
      continue;
    }
    MfuCell& cell = it->second;
    if (l.fits && (!cell.fits || l.mfu > cell.mfu))
      cell = {l.layout.tp, l.layout.pp, l.mfu, true, i};
    else if (!l.fits && !cell.fits && l.over_hbm_bytes < r.layouts[cell.index].over_hbm_bytes)
      cell.index = i;
  }
  std::vector<MfuCell> out;
  for (const auto& [key, cell] : cells) out.push_back(cell);
  return out;
}

}  // namespace napkin
