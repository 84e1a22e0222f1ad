#include "moe.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "rng.h"
#include "validate.h"

namespace napkin {

namespace {

constexpr std::int64_t kMaxExperts = 100'000;
constexpr std::int64_t kMaxDim = 1'000'000;

void require_finite_all(std::span<const double> xs, const char* name) {
  for (double x : xs)
    if (!std::isfinite(x)) throw_out_of_range(name, "logits", "finite numbers", format_value(x));
}

void require_nonempty(std::size_t n, const char* name, const char* unit) {
  if (n == 0) throw_out_of_range(name, unit, "a non-empty list", "an empty list");
}

// Descending logit, then ascending index: a strict total order, so the chosen
// set never depends on the sort algorithm (seed ch. 4, ties by expert index).
template <typename Real>
struct ByLogit {
  const Real* z;
  bool operator()(std::int64_t a, std::int64_t b) const {
    return z[a] != z[b] ? z[a] > z[b] : a < b;
  }
};

// Writes the top-k indices of z[0..n) into out[0..k), best first.
template <typename Real>
void top_k_indices(const Real* z, std::int64_t n, std::int64_t k, std::int64_t* out,
                   std::vector<std::int64_t>& scratch) {
  if (k <= 4) {
    // k passes of a linear scan beat sorting for the usual k ≤ 4; the strict
    // ">" keeps the lowest index among equals.
    for (std::int64_t r = 0; r < k; ++r) {
      std::int64_t best = -1;
      for (std::int64_t i = 0; i < n; ++i) {
        bool taken = false;
        for (std::int64_t q = 0; q < r; ++q) taken |= out[q] == i;
        if (taken) continue;
        if (best < 0 || z[i] > z[best]) best = i;
      }
      out[r] = best;
    }
    return;
  }
  scratch.resize(static_cast<std::size_t>(n));
  std::iota(scratch.begin(), scratch.end(), std::int64_t{0});
  std::partial_sort(scratch.begin(), scratch.begin() + k, scratch.end(), ByLogit<Real>{z});
  std::copy(scratch.begin(), scratch.begin() + k, out);
}

void check_assignments(const std::vector<std::vector<std::int64_t>>& assignments,
                       std::int64_t n_experts) {
  require_nonempty(assignments.size(), "assignments", "tokens");
  for (const auto& row : assignments) {
    require_nonempty(row.size(), "assignments", "experts per token");
    for (std::int64_t e : row) require_count(e, "expert", "expert index", 0, n_experts - 1);
  }
}

}  // namespace

// ------------------------------------------------------------------ numerics

double log_sum_exp(std::span<const double> logits) {
  require_nonempty(logits.size(), "logits", "router scores");
  require_finite_all(logits, "logits");
  const double m = *std::max_element(logits.begin(), logits.end());
  double s = 0;
  for (double x : logits) s += std::exp(x - m);
  return m + std::log(s);
}

std::vector<double> softmax(std::span<const double> logits) {
  require_nonempty(logits.size(), "logits", "router scores");
  require_finite_all(logits, "logits");
  const double m = *std::max_element(logits.begin(), logits.end());
  std::vector<double> out(logits.size());
  double s = 0;
  for (std::size_t i = 0; i < logits.size(); ++i) s += out[i] = std::exp(logits[i] - m);
  for (double& v : out) v /= s;
  return out;
}

// ------------------------------------------------------------------ routing

std::vector<double> router_logits(const std::vector<std::vector<double>>& router_w,
                                  std::span<const double> token) {
  require_nonempty(router_w.size(), "router_w", "experts");
  require_nonempty(token.size(), "token", "elements");
  std::vector<double> z;
  z.reserve(router_w.size());
  for (const auto& row : router_w) {
    if (row.size() != token.size())
      throw_out_of_range("router_w", "elements per row",
                         "d_model = " + std::to_string(token.size()), std::to_string(row.size()));
    double acc = 0;
    for (std::size_t j = 0; j < row.size(); ++j) acc += row[j] * token[j];
    z.push_back(acc);
  }
  require_finite_all(z, "router logits");
  return z;
}

TokenRoute route_token(std::span<const double> logits, std::int64_t top_k, bool renormalize) {
  require_nonempty(logits.size(), "logits", "router scores");
  const auto n = static_cast<std::int64_t>(logits.size());
  require_count(top_k, "top_k", "experts per token", 1, n);
  TokenRoute r;
  r.probs = softmax(logits);
  r.experts.resize(static_cast<std::size_t>(top_k));
  std::vector<std::int64_t> scratch;
  top_k_indices(logits.data(), n, top_k, r.experts.data(), scratch);
  double chosen_mass = 0;
  for (std::int64_t e : r.experts) chosen_mass += r.probs[static_cast<std::size_t>(e)];
  for (std::int64_t e : r.experts) {
    const double p = r.probs[static_cast<std::size_t>(e)];
    r.gates.push_back(renormalize ? p / chosen_mass : p);
  }
  return r;
}

std::vector<TokenRoute> route_batch(const std::vector<std::vector<double>>& logits,
                                    std::int64_t top_k, bool renormalize) {
  require_nonempty(logits.size(), "logits", "tokens");
  std::vector<TokenRoute> out;
  out.reserve(logits.size());
  for (const auto& row : logits) {
    if (row.size() != logits.front().size())
      throw_out_of_range("logits", "experts per token",
                         std::to_string(logits.front().size()) + " for every token",
                         std::to_string(row.size()));
    out.push_back(route_token(row, top_k, renormalize));
  }
  return out;
}

double load_balance_loss(const std::vector<std::vector<std::int64_t>>& assignments,
                         const std::vector<std::vector<double>>& probs, std::int64_t n_experts) {
  require_count(n_experts, "n_experts", "experts", 1, kMaxExperts);
  check_assignments(assignments, n_experts);
  require_nonempty(probs.size(), "probs", "tokens");
  std::vector<double> f(static_cast<std::size_t>(n_experts), 0.0);
  std::int64_t slots = 0;
  for (const auto& row : assignments) {
    for (std::int64_t e : row) f[static_cast<std::size_t>(e)] += 1.0;
    slots += static_cast<std::int64_t>(row.size());
  }
  // f over token-SLOTS, not tokens (the seed's trap): with k = 2 dividing by
  // tokens doubles the loss and 1.0 no longer means balanced.
  for (double& v : f) v /= static_cast<double>(slots);
  std::vector<double> P(static_cast<std::size_t>(n_experts), 0.0);
  for (const auto& row : probs) {
    if (static_cast<std::int64_t>(row.size()) != n_experts)
      throw_out_of_range("probs", "probabilities per token",
                         "n_experts = " + std::to_string(n_experts), std::to_string(row.size()));
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (!std::isfinite(row[i]) || row[i] < 0 || row[i] > 1)
        throw_out_of_range("probs", "probability", "in [0, 1]", format_value(row[i]));
      P[i] += row[i];
    }
  }
  double sum = 0;
  for (std::size_t i = 0; i < f.size(); ++i)
    sum += f[i] * (P[i] / static_cast<double>(probs.size()));
  return static_cast<double>(n_experts) * sum;
}

double router_z_loss(const std::vector<std::vector<double>>& logits) {
  require_nonempty(logits.size(), "logits", "tokens");
  double sum = 0;
  for (const auto& row : logits) {
    const double l = log_sum_exp(row);
    sum += l * l;
  }
  return sum / static_cast<double>(logits.size());
}

Utilization expert_utilization(const std::vector<std::vector<std::int64_t>>& assignments,
                               std::int64_t n_experts) {
  require_count(n_experts, "n_experts", "experts", 1, kMaxExperts);
  check_assignments(assignments, n_experts);
  Utilization u;
  u.shares.assign(static_cast<std::size_t>(n_experts), 0.0);
  std::int64_t slots = 0;
  for (const auto& row : assignments) {
    for (std::int64_t e : row) u.shares[static_cast<std::size_t>(e)] += 1.0;
    slots += static_cast<std::int64_t>(row.size());
  }
  for (double& s : u.shares) {
    if (s == 0) ++u.dead_experts;
    s /= static_cast<double>(slots);
  }
  u.max_over_mean =
      *std::max_element(u.shares.begin(), u.shares.end()) * static_cast<double>(n_experts);
  return u;
}

// ----------------------------------------------------------------- capacity

std::int64_t expert_capacity(std::int64_t tokens, std::int64_t top_k, std::int64_t n_experts,
                             double capacity_factor) {
  require_count(tokens, "tokens", "tokens", 1);
  require_count(n_experts, "n_experts", "experts", 1, kMaxExperts);
  require_count(top_k, "top_k", "experts per token", 1, n_experts);
  // Below 1 even a perfectly balanced batch overflows (seed ch. 7 trap).
  require_real(capacity_factor, "capacity_factor", "× the balanced load", 1.0, 1000.0);
  const double slots = static_cast<double>(checked_mul(tokens, top_k, "routed slots"));
  // The relative nudge keeps products that are whole on paper (1.2 × 10 = 12)
  // from flooring to one less through binary rounding.
  const double cap = capacity_factor * slots / static_cast<double>(n_experts);
  return static_cast<std::int64_t>(std::floor(cap * (1 + 1e-12)));
}

namespace {

void finish_capacity(CapacityResult& r, std::int64_t n_experts) {
  r.dropped = 0;
  r.padded_slots = 0;
  std::int64_t kept_total = 0;
  for (std::size_t i = 0; i < r.routed.size(); ++i) {
    r.dropped += r.routed[i] - r.kept[i];
    r.padded_slots += r.capacity_per_expert - r.kept[i];
    kept_total += r.kept[i];
  }
  r.drop_rate = static_cast<double>(r.dropped) / static_cast<double>(r.routed_slots);
  const double buffer = static_cast<double>(r.capacity_per_expert) * static_cast<double>(n_experts);
  r.buffer_utilization = buffer > 0 ? static_cast<double>(kept_total) / buffer : 0.0;
}

}  // namespace

CapacityResult apply_capacity(const std::vector<std::vector<std::int64_t>>& assignments,
                              std::int64_t n_experts, double capacity_factor) {
  require_count(n_experts, "n_experts", "experts", 1, kMaxExperts);
  check_assignments(assignments, n_experts);
  const std::size_t k = assignments.front().size();
  for (const auto& row : assignments)
    if (row.size() != k)
      throw_out_of_range("assignments", "experts per token", std::to_string(k) + " for every token",
                         std::to_string(row.size()));
  CapacityResult r;
  const auto tokens = static_cast<std::int64_t>(assignments.size());
  r.capacity_per_expert =
      expert_capacity(tokens, static_cast<std::int64_t>(k), n_experts, capacity_factor);
  r.routed_slots = tokens * static_cast<std::int64_t>(k);
  r.routed.assign(static_cast<std::size_t>(n_experts), 0);
  r.kept.assign(static_cast<std::size_t>(n_experts), 0);
  r.slot_kept.reserve(assignments.size());
  for (const auto& row : assignments) {
    std::vector<bool> keep(row.size());
    bool any = false;
    for (std::size_t s = 0; s < row.size(); ++s) {
      const auto e = static_cast<std::size_t>(row[s]);
      ++r.routed[e];
      keep[s] = r.kept[e] < r.capacity_per_expert;
      if (keep[s]) {
        ++r.kept[e];
        any = true;
      }
    }
    if (!any) ++r.fully_dropped_tokens;
    r.slot_kept.push_back(std::move(keep));
  }
  finish_capacity(r, n_experts);
  return r;
}

CapacityResult capacity_from_counts(std::span<const std::int64_t> counts, double capacity_factor,
                                    std::int64_t top_k) {
  require_nonempty(counts.size(), "counts", "experts");
  const auto n_experts = static_cast<std::int64_t>(counts.size());
  require_count(n_experts, "counts", "experts", 1, kMaxExperts);
  require_count(top_k, "top_k", "experts per token", 1, n_experts);
  std::int64_t slots = 0;
  for (std::int64_t c : counts) {
    require_count(c, "counts", "slots routed to an expert", 0);
    slots = checked_add(slots, c, "routed slots");
  }
  if (slots == 0) throw_out_of_range("counts", "slots", "a total > 0", "0");
  if (slots % top_k != 0)
    throw_out_of_range("counts", "slots", "a total divisible by top_k = " + std::to_string(top_k),
                       std::to_string(slots));
  CapacityResult r;
  r.capacity_per_expert = expert_capacity(slots / top_k, top_k, n_experts, capacity_factor);
  r.routed_slots = slots;
  r.routed.assign(counts.begin(), counts.end());
  for (std::int64_t c : counts) r.kept.push_back(std::min(c, r.capacity_per_expert));
  finish_capacity(r, n_experts);
  return r;
}

std::vector<CapacityPoint> capacity_tradeoff(std::span<const std::int64_t> counts,
                                             std::int64_t top_k, double cf_min, double cf_max,
                                             std::int64_t n_points) {
  require_real(cf_min, "cf_min", "× the balanced load", 1.0, 1000.0);
  require_real(cf_max, "cf_max", "× the balanced load", cf_min, 1000.0);
  require_count(n_points, "n_points", "points", 1, 100'000);
  std::vector<CapacityPoint> out;
  out.reserve(static_cast<std::size_t>(n_points));
  for (std::int64_t i = 0; i < n_points; ++i) {
    const double cf = n_points == 1 ? cf_min
                                    : cf_min + (cf_max - cf_min) * static_cast<double>(i) /
                                                   static_cast<double>(n_points - 1);
    const CapacityResult r = capacity_from_counts(counts, cf, top_k);
    const double buffer =
        static_cast<double>(r.capacity_per_expert) * static_cast<double>(counts.size());
    out.push_back({cf, r.capacity_per_expert, r.dropped, r.padded_slots, r.drop_rate,
                   buffer > 0 ? static_cast<double>(r.padded_slots) / buffer : 0.0});
  }
  return out;
}

// -------------------------------------------------------------- the forward

std::vector<double> expert_forward(const Expert& expert, std::span<const double> token) {
  std::vector<double> hidden;
  hidden.reserve(expert.w_in.size());
  for (const auto& row : expert.w_in) {
    if (row.size() != token.size())
      throw_out_of_range("token", "elements", "d_model = " + std::to_string(row.size()),
                         std::to_string(token.size()));
    double acc = 0;
    for (std::size_t j = 0; j < row.size(); ++j) acc += row[j] * token[j];
    hidden.push_back(std::max(0.0, acc));
  }
  std::vector<double> out;
  out.reserve(expert.w_out.size());
  for (const auto& row : expert.w_out) {
    double acc = 0;
    for (std::size_t j = 0; j < row.size(); ++j) acc += row[j] * hidden[j];
    out.push_back(acc);
  }
  return out;
}

MoeLayer make_moe_layer(std::int64_t d_model, std::int64_t d_ff, std::int64_t n_experts,
                        bool shared_expert, std::uint64_t seed) {
  require_count(d_model, "d_model", "elements", 1, 4096);
  require_count(d_ff, "d_ff", "elements", 1, 16384);
  require_count(n_experts, "n_experts", "experts", 1, 4096);
  Rng rng(seed);
  auto matrix = [&rng](std::int64_t rows, std::int64_t cols) {
    const double scale = 1.0 / std::sqrt(static_cast<double>(cols));
    std::vector<std::vector<double>> m(static_cast<std::size_t>(rows),
                                       std::vector<double>(static_cast<std::size_t>(cols)));
    for (auto& row : m)
      for (double& v : row) v = scale * rng.normal_box_muller();
    return m;
  };
  MoeLayer layer;
  layer.d_model = d_model;
  layer.d_ff = d_ff;
  layer.router_w = matrix(n_experts, d_model);
  for (std::int64_t e = 0; e < n_experts; ++e)
    layer.experts.push_back({matrix(d_ff, d_model), matrix(d_model, d_ff)});
  layer.has_shared_expert = shared_expert;
  if (shared_expert) layer.shared = {matrix(d_ff, d_model), matrix(d_model, d_ff)};
  return layer;
}

MoeForwardResult moe_forward(const MoeLayer& layer, const std::vector<std::vector<double>>& tokens,
                             std::int64_t top_k, double capacity_factor, bool renormalize) {
  require_nonempty(tokens.size(), "tokens", "tokens");
  const auto n_experts = static_cast<std::int64_t>(layer.experts.size());
  require_count(n_experts, "experts", "experts", 1, kMaxExperts);
  require_count(top_k, "top_k", "experts per token", 1, n_experts);
  MoeForwardResult r;
  std::vector<std::vector<std::int64_t>> assignments;
  for (const auto& x : tokens) {
    if (static_cast<std::int64_t>(x.size()) != layer.d_model)
      throw_out_of_range("tokens", "elements per token",
                         "d_model = " + std::to_string(layer.d_model), std::to_string(x.size()));
    r.routes.push_back(route_token(router_logits(layer.router_w, x), top_k, renormalize));
    assignments.push_back(r.routes.back().experts);
  }
  r.capacity = apply_capacity(assignments, n_experts, capacity_factor);
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    std::vector<double> y = tokens[t];  // the residual stream
    bool any = false;
    const TokenRoute& route = r.routes[t];
    for (std::size_t s = 0; s < route.experts.size(); ++s) {
      if (!r.capacity.slot_kept[t][s]) continue;  // a dropped slot adds nothing
      any = true;
      const auto c =
          expert_forward(layer.experts[static_cast<std::size_t>(route.experts[s])], tokens[t]);
      for (std::size_t j = 0; j < y.size(); ++j) y[j] += route.gates[s] * c[j];
    }
    if (!any) ++r.fully_dropped_tokens;
    if (layer.has_shared_expert) {
      const auto c = expert_forward(layer.shared, tokens[t]);
      for (std::size_t j = 0; j < y.size(); ++j) y[j] += c[j];
    } else if (!any) {
      // Every slot dropped: the token skips the FFN and rides the residual.
      // No error, no log line: the silent failure of seed ch. 7.
      ++r.tokens_skipping_ffn;
    }
    r.outputs.push_back(std::move(y));
  }
  return r;
}

// ---------------------------------------------------------------- parameters

MoeParamCounts moe_parameter_counts(std::int64_t d_model, std::int64_t d_ff, std::int64_t n_experts,
                                    std::int64_t top_k, std::int64_t shared_experts) {
  require_count(d_model, "d_model", "elements", 1, kMaxDim);
  require_count(d_ff, "d_ff", "elements", 1, 10 * kMaxDim);
  require_count(n_experts, "n_experts", "experts", 1, kMaxExperts);
  require_count(top_k, "top_k", "experts per token", 1, n_experts);
  require_count(shared_experts, "shared_experts", "experts", 0, 1000);
  const std::int64_t one = checked_mul({2, d_model, d_ff}, "expert parameters");
  const std::int64_t router = checked_mul(d_model, n_experts, "router parameters");
  MoeParamCounts c;
  c.total =
      checked_add(router, checked_mul(n_experts + shared_experts, one, "parameters"), "parameters");
  c.active =
      checked_add(router, checked_mul(top_k + shared_experts, one, "parameters"), "parameters");
  c.sparsity_ratio = static_cast<double>(c.total) / static_cast<double>(c.active);
  return c;
}

MoeModelParams moe_model_params(const ModelShape& shape, std::int64_t bytes_per_param) {
  require_count(bytes_per_param, "bytes_per_param", "bytes", 1, 16);
  MoeModelParams m;
  m.count = count_params(shape);
  m.total_bytes = checked_mul(m.count.total, bytes_per_param, "total bytes");
  m.active_bytes = checked_mul(m.count.active, bytes_per_param, "active bytes");
  m.sparsity_ratio = m.count.sparsity_ratio();
  return m;
}

// ------------------------------------------------------------ communication

void AllToAllInputs::validate() const {
  require_count(tokens, "tokens", "tokens", 1, 1'000'000'000);
  require_count(d_model, "d_model", "elements", 1, kMaxDim);
  require_count(n_layers, "layers", "MoE layers", 1, 100'000);
  require_count(top_k, "top_k", "experts per token", 1, kMaxExperts);
  require_count(bytes_per_elem, "bytes_per_elem", "bytes", 1, 16);
  require_positive(link_gbps, "link_gbps", "Gbit/s");
  require_real(latency_us, "latency_us", "µs", 0.0, 1e9);
}

AllToAllCost expert_parallel_comm(const AllToAllInputs& in) {
  in.validate();
  AllToAllCost c;
  const std::int64_t per_hop =
      checked_mul({in.tokens, in.d_model, in.bytes_per_elem, in.top_k}, "all-to-all bytes");
  c.collectives = 2 * in.n_layers;  // dispatch + combine, every layer
  c.bytes = checked_mul(c.collectives, per_hop, "all-to-all bytes");
  c.transfer_seconds = static_cast<double>(c.bytes) * 8.0 / (in.link_gbps * 1e9);
  c.latency_seconds = static_cast<double>(c.collectives) * in.latency_us * 1e-6;
  c.seconds = c.transfer_seconds + c.latency_seconds;
  return c;
}

AllToAllInputs expert_parallel_inputs(const ModelShape& shape, std::int64_t tokens,
                                      std::int64_t dense_top_k) {
  AllToAllInputs a;
  a.tokens = tokens;
  a.d_model = shape.d_model;
  a.n_layers = shape.n_layers;
  a.top_k = dense_top_k;
  if (shape.is_moe()) {
    a.n_layers = std::max<std::int64_t>(1, shape.n_layers - shape.n_dense_layers);
    a.top_k = shape.top_k;
  }
  a.top_k = std::max<std::int64_t>(1, a.top_k);
  a.validate();
  return a;
}

void PipelineInputs::validate() const {
  require_count(chunks, "chunks", "prompt chunks", 1, 1'000'000);
  require_count(stages, "stages", "pipeline stages", 1, 100'000);
  require_positive(compute_ms, "compute_ms", "ms per chunk per stage");
  require_real(transfer_ms, "transfer_ms", "ms per hop", 0.0, 1e12);
  require_real(compute_ms, "compute_ms", "ms per chunk per stage", 0.0, 1e12, true);
}

PipelineResult pipelined_prefill(const PipelineInputs& in) {
  in.validate();
  const auto M = static_cast<double>(in.chunks);
  const auto S = static_cast<double>(in.stages);
  PipelineResult r;
  r.serial_ms = S * M * (in.compute_ms + in.transfer_ms);
  // Overlapped, a stage's cadence is the slower of compute and hop (Claim 12).
  r.step_ms = std::max(in.compute_ms, in.transfer_ms);
  r.bubble_ms = (S - 1) * r.step_ms;
  r.pipelined_ms = r.bubble_ms + M * r.step_ms;
  r.utilization = M / (M + S - 1);
  r.speedup = r.serial_ms / r.pipelined_ms;
  r.steps = in.chunks + in.stages - 1;
  return r;
}

std::vector<PipelineSlot> pipeline_schedule(const PipelineInputs& in) {
  const PipelineResult r = pipelined_prefill(in);
  if (in.chunks * in.stages > 1'000'000)
    throw_out_of_range("chunks × stages", "Gantt slots", "at most 1000000",
                       std::to_string(in.chunks * in.stages));
  std::vector<PipelineSlot> out;
  out.reserve(static_cast<std::size_t>(in.chunks * in.stages));
  for (std::int64_t s = 0; s < in.stages; ++s)
    for (std::int64_t c = 0; c < in.chunks; ++c) {
      const double start = static_cast<double>(s + c) * r.step_ms;
      out.push_back({s, c, start, start + in.compute_ms, start + r.step_ms});
    }
  return out;
}

// ------------------------------------------------------- collapse simulation

namespace {

constexpr std::int64_t kPoolTokensPerBatch = 16;  // pool = 16 batches of distinct tokens
constexpr double kExperienceScaleTokens = 1000;   // n₀ of skill = gain · ln(1 + n / n₀)
constexpr double kInitialRouterScale = 1.0;  // token-dependent routing from step 0 (see header)
constexpr double kInitialExperienceSpread = 1.0;  // × n₀: "randomly slightly better"
constexpr double kDeadShare = 0.1;    // × 1/E of recent slots: the router has given up on it
constexpr double kRecentRate = 0.05;  // EMA of shares over ~20 steps, past one batch's noise

// e^x for the simulation's x ≤ 0 (logit − max): 2^n · 2^f with n = round(x·log₂e)
// and a degree-6 polynomial for 2^f on [−½, ½] (Cephes exp2f), relative error
// ~2e-7. Branch-free so the loop over experts vectorizes; the library's
// softmax() keeps std::exp.
inline float exp_nonpositive(float x) {
  // max(x, −87) as ½(x + lo + |x − lo|): a select would stop GCC vectorizing.
  // x must be finite (NaN would make the cast below undefined): the router
  // step keeps the weights, and so the logits, finite.
  constexpr float lo = -87.0f;
  const float y = 0.5f * (x + lo + std::fabs(x - lo)) * 1.44269504088896341f;
  // y ≤ 0, so truncating y − ½ toward zero rounds y to the nearest integer.
  const float n = static_cast<float>(static_cast<std::int32_t>(y - 0.5f));
  const float f = y - n;
  float poly = 1.535336188319500e-4f;
  poly = poly * f + 1.339887440266574e-3f;
  poly = poly * f + 9.618437357674640e-3f;
  poly = poly * f + 5.550332471162809e-2f;
  poly = poly * f + 2.402264791363012e-1f;
  poly = poly * f + 6.931472028550421e-1f;
  poly = poly * f + 1.0f;
  const std::int32_t bits = (static_cast<std::int32_t>(n) + 127) * (1 << 23);
  return poly * std::bit_cast<float>(bits);
}

// Reductions in four fixed lanes: vectorizable without -ffast-math and
// still deterministic (the association order is fixed).
inline float sum_lanes(const float* a, std::int64_t n) {
  float l[4] = {0, 0, 0, 0};
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int q = 0; q < 4; ++q) l[q] += a[i + q];
  for (; i < n; ++i) l[0] += a[i];
  return (l[0] + l[1]) + (l[2] + l[3]);
}
inline float dot_lanes(const float* a, const float* b, std::int64_t n) {
  float l[4] = {0, 0, 0, 0};
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int q = 0; q < 4; ++q) l[q] += a[i + q] * b[i + q];
  for (; i < n; ++i) l[0] += a[i] * b[i];
  return (l[0] + l[1]) + (l[2] + l[3]);
}
inline float max_lanes(const float* a, std::int64_t n) {
  float l[4] = {a[0], a[0], a[0], a[0]};
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int q = 0; q < 4; ++q) l[q] = l[q] > a[i + q] ? l[q] : a[i + q];
  for (; i < n; ++i) l[0] = l[0] > a[i] ? l[0] : a[i];
  return std::max(std::max(l[0], l[1]), std::max(l[2], l[3]));
}

}  // namespace

void CollapseParams::validate() const {
  require_count(n_experts, "n_experts", "experts", 1, 4096);
  require_count(top_k, "top_k", "experts per token", 1, n_experts);
  require_real(aux_weight, "aux_weight", "× L_balance", 0.0, 100.0);
  require_real(z_weight, "z_weight", "× L_z", 0.0, 100.0);
  require_real(capacity_factor, "capacity_factor", "× the balanced load", 1.0, 1000.0);
  require_count(tokens_per_batch, "tokens_per_batch", "tokens", 1, 1'000'000);
  require_count(d_model, "d_model", "router input elements", 2, 1024);
  require_positive(learning_rate, "learning_rate", "step size");
  require_real(learning_rate, "learning_rate", "step size", 0.0, 1e4, true);
  require_real(skill_gain, "skill_gain", "skill per e-fold of tokens", 0.0, 100.0);
  checked_mul({n_experts, d_model, tokens_per_batch}, "simulation size");
}

std::int64_t StepStats::kept(std::int64_t e) const {
  return std::min(routed.at(static_cast<std::size_t>(e)), capacity_per_expert);
}
std::int64_t StepStats::dropped(std::int64_t e) const {
  return routed.at(static_cast<std::size_t>(e)) - kept(e);
}
std::int64_t StepStats::padded(std::int64_t e) const { return capacity_per_expert - kept(e); }
double StepStats::share(std::int64_t e) const {
  std::int64_t total = 0;
  for (std::int64_t c : routed) total += c;
  return total > 0 ? static_cast<double>(routed.at(static_cast<std::size_t>(e))) /
                         static_cast<double>(total)
                   : 0.0;
}
bool StepStats::dead(std::int64_t e) const {
  return recent_gate_share.at(static_cast<std::size_t>(e)) <
         kDeadShare / static_cast<double>(recent_gate_share.size());
}
std::int64_t StepStats::routed_slots() const {
  std::int64_t total = 0;
  for (std::int64_t c : routed) total += c;
  return total;
}
double StepStats::buffer_utilization() const {
  const double buffer =
      static_cast<double>(capacity_per_expert) * static_cast<double>(routed.size());
  return buffer > 0 ? static_cast<double>(routed_slots() - dropped_slots) / buffer : 0.0;
}

CollapseSimulation::CollapseSimulation(const CollapseParams& params)
    : params_(params), rng_(params.seed) {
  params_.validate();
  Rng rng(params_.seed ^ 0xA5A5A5A5DEADBEEFull);
  const std::int64_t E = params_.n_experts, d = params_.d_model;
  // A finite corpus of token embeddings, sampled with replacement each step:
  // the stream is seeded and normals are drawn once, not every frame.
  pool_tokens_ = std::max<std::int64_t>(4096, kPoolTokensPerBatch * params_.tokens_per_batch);
  pool_.resize(static_cast<std::size_t>(pool_tokens_ * d));
  for (std::int64_t t = 0; t < pool_tokens_; ++t) {
    pool_[static_cast<std::size_t>(t * d)] = 1.0f;  // a constant feature: the router's bias
    for (std::int64_t j = 1; j < d; ++j)
      pool_[static_cast<std::size_t>(t * d + j)] = static_cast<float>(rng.normal_box_muller());
  }
  w_.resize(static_cast<std::size_t>(E * d));
  for (float& v : w_) v = static_cast<float>(kInitialRouterScale * rng.normal_box_muller());
  recent_share_.assign(static_cast<std::size_t>(E), 1.0 / static_cast<double>(E));
  recent_gate_share_ = recent_share_;
  experience_.resize(static_cast<std::size_t>(E));
  skill_.resize(static_cast<std::size_t>(E));
  for (std::int64_t i = 0; i < E; ++i) {
    experience_[static_cast<std::size_t>(i)] =
        kInitialExperienceSpread * kExperienceScaleTokens * rng.uniform();
    skill_[static_cast<std::size_t>(i)] =
        params_.skill_gain *
        std::log1p(experience_[static_cast<std::size_t>(i)] / kExperienceScaleTokens);
  }
}

const StepStats& CollapseSimulation::current() const {
  if (history_.empty()) throw std::logic_error("CollapseSimulation::current() before step()");
  return history_.back();
}

bool CollapseSimulation::needs_restart(const CollapseParams& from, const CollapseParams& to) {
  return from.n_experts != to.n_experts || from.d_model != to.d_model || from.seed != to.seed ||
         from.tokens_per_batch != to.tokens_per_batch;
}

void CollapseSimulation::retune(const CollapseParams& params) {
  params.validate();
  if (needs_restart(params_, params))
    throw std::invalid_argument(
        "n_experts, d_model, tokens_per_batch and seed define the "
        "simulation's state; changing them needs a new CollapseSimulation (restart)");
  params_ = params;
}

void CollapseSimulation::run(std::int64_t steps) {
  require_count(steps, "steps", "router steps", 0, 100'000'000);
  for (std::int64_t i = 0; i < steps; ++i) step();
}

// One router step in its phases. The order of the phases, and of the
// arithmetic inside each, is what the pinned trace tests hold fixed.
const StepStats& CollapseSimulation::step() {
  const std::int64_t E = params_.n_experts, d = params_.d_model, T = params_.tokens_per_batch;
  const std::int64_t k = params_.top_k;
  batch_.resize(static_cast<std::size_t>(T * d));
  z_.resize(static_cast<std::size_t>(T * E));
  p_.resize(static_cast<std::size_t>(T * E));
  lse_.resize(static_cast<std::size_t>(T));
  chosen_.resize(static_cast<std::size_t>(T * k));
  kept_.resize(static_cast<std::size_t>(T * k));

  StepStats st;
  st.step = steps_done() + 1;
  draw_batch();
  route(st);
  dispatch(st);
  account_load(st);
  accumulate_gradient(st);
  update_router();
  update_experts(st);
  history_.push_back(std::move(st));
  return history_.back();
}

// 1. Draw the batch from the corpus.
void CollapseSimulation::draw_batch() {
  const std::int64_t d = params_.d_model, T = params_.tokens_per_batch;
  const auto dz = static_cast<std::size_t>(d);
  for (std::int64_t t = 0; t < T; ++t) {
    const auto src =
        static_cast<std::size_t>(rng_.next() % static_cast<std::uint64_t>(pool_tokens_));
    std::copy_n(pool_.begin() + static_cast<std::ptrdiff_t>(src * dz), d,
                batch_.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(t) * dz));
  }
}

// 2. Logits, stable softmax, log-sum-exp, top-k; the mean router
// probabilities and the z-loss. The router is stored transposed (d × E) so
// every inner loop runs over experts and vectorizes.
void CollapseSimulation::route(StepStats& st) {
  const std::int64_t E = params_.n_experts, d = params_.d_model, T = params_.tokens_per_batch;
  const std::int64_t k = params_.top_k;
  const auto Ez = static_cast<std::size_t>(E);
  const auto dz = static_cast<std::size_t>(d);
  const double inv_T = 1.0 / static_cast<double>(T);
  st.routed.assign(Ez, 0);
  st.mean_prob.assign(Ez, 0.0);
  std::vector<std::int64_t> scratch;
  double lz = 0;
  for (std::int64_t t = 0; t < T; ++t) {
    const float* x = &batch_[static_cast<std::size_t>(t) * dz];
    float* z = &z_[static_cast<std::size_t>(t) * Ez];
    float* p = &p_[static_cast<std::size_t>(t) * Ez];
    std::fill(z, z + E, 0.0f);
    for (std::int64_t j = 0; j < d; ++j) {
      const float xj = x[j];
      const float* wt = &w_[static_cast<std::size_t>(j) * Ez];
      for (std::int64_t i = 0; i < E; ++i) z[i] += xj * wt[i];
    }
    const float m = max_lanes(z, E);
    for (std::int64_t i = 0; i < E; ++i) p[i] = exp_nonpositive(z[i] - m);
    const float s = sum_lanes(p, E);
    const float inv_s = 1.0f / s;
    for (std::int64_t i = 0; i < E; ++i) p[i] *= inv_s;
    for (std::int64_t i = 0; i < E; ++i) st.mean_prob[static_cast<std::size_t>(i)] += p[i];
    const double lse = static_cast<double>(m) + std::log(static_cast<double>(s));
    lse_[static_cast<std::size_t>(t)] = lse;
    lz += lse * lse;
    top_k_indices(z, E, k, &chosen_[static_cast<std::size_t>(t * k)], scratch);
  }
  for (double& v : st.mean_prob) v *= inv_T;
  st.l_z = lz * inv_T;
}

// 3. Dispatch under capacity: first come, first served in token order.
void CollapseSimulation::dispatch(StepStats& st) {
  const std::int64_t E = params_.n_experts, T = params_.tokens_per_batch;
  const std::int64_t k = params_.top_k;
  st.capacity_per_expert = expert_capacity(T, k, E, params_.capacity_factor);
  kept_count_.assign(static_cast<std::size_t>(E), 0);
  for (std::int64_t t = 0; t < T; ++t) {
    bool any = false;
    for (std::int64_t r = 0; r < k; ++r) {
      const auto e = static_cast<std::size_t>(chosen_[static_cast<std::size_t>(t * k + r)]);
      ++st.routed[e];
      const bool keep = kept_count_[e] < st.capacity_per_expert;
      kept_[static_cast<std::size_t>(t * k + r)] = keep;
      if (keep) {
        ++kept_count_[e];
        any = true;
      }
    }
    if (!any) ++st.fully_dropped_tokens;
  }
  st.tokens_skipping_ffn = params_.shared_expert ? 0 : st.fully_dropped_tokens;
}

// 4. The load: slot fractions f, the balance loss, max/mean (this step and
// smoothed), drops and padding.
void CollapseSimulation::account_load(StepStats& st) {
  const std::int64_t E = params_.n_experts, T = params_.tokens_per_batch;
  const std::int64_t k = params_.top_k;
  const auto Ez = static_cast<std::size_t>(E);
  const double slots = static_cast<double>(T * k);
  std::int64_t max_routed = 0;
  double l_bal = 0, recent_max = 0;
  slot_fraction_.resize(Ez);
  st.recent_share.resize(Ez);
  for (std::size_t i = 0; i < Ez; ++i) {
    const double fi = static_cast<double>(st.routed[i]) / slots;
    slot_fraction_[i] = static_cast<float>(fi);
    l_bal += fi * st.mean_prob[i];
    max_routed = std::max(max_routed, st.routed[i]);
    st.dropped_slots += st.routed[i] - kept_count_[i];
    st.padded_slots += st.capacity_per_expert - kept_count_[i];
    recent_share_[i] += kRecentRate * (fi - recent_share_[i]);
    st.recent_share[i] = recent_share_[i];
    recent_max = std::max(recent_max, recent_share_[i]);
  }
  st.l_balance = static_cast<double>(E) * l_bal;
  st.max_over_mean = static_cast<double>(max_routed) / slots * static_cast<double>(E);
  st.recent_max_over_mean = recent_max * static_cast<double>(E);
  st.drop_rate = static_cast<double>(st.dropped_slots) / slots;
}

// 5. Gradient of task + α·L_balance + γ·L_z with respect to the logits,
// accumulated straight into the router gradient: Σ_t g_t ⊗ x_t; and each
// expert's gate-weighted demand.
void CollapseSimulation::accumulate_gradient(StepStats& st) {
  const std::int64_t E = params_.n_experts, d = params_.d_model, T = params_.tokens_per_batch;
  const std::int64_t k = params_.top_k;
  const auto Ez = static_cast<std::size_t>(E);
  const auto dz = static_cast<std::size_t>(d);
  const double inv_T = 1.0 / static_cast<double>(T);
  // k = 1 renormalized gates are identically 1 and give the router no task
  // gradient; Switch Transformer gates by the raw probability then, and so
  // does the simulation.
  const bool renorm = params_.renormalize && k > 1;
  const float aE = static_cast<float>(params_.aux_weight * static_cast<double>(E) * inv_T);
  const double gamma = params_.z_weight;
  const auto inv_Tf = static_cast<float>(inv_T);
  const float* f = slot_fraction_.data();
  double reward_sum = 0;
  std::vector<double> slot_skill(static_cast<std::size_t>(2 * k));
  double* qs = slot_skill.data();
  double* gk = qs + k;
  demand_.assign(Ez, 0.0);
  std::vector<float> g(Ez);
  grad_w_.assign(static_cast<std::size_t>(E * d), 0.0f);
  for (std::int64_t t = 0; t < T; ++t) {
    const float* x = &batch_[static_cast<std::size_t>(t) * dz];
    const float* p = &p_[static_cast<std::size_t>(t) * Ez];
    // Balance: ∂(E Σ fᵢPᵢ)/∂z_j = (E/T)·p_j·(f_j − Σᵢ fᵢpᵢ), f held constant
    // (it comes from a top-k: no gradient, seed ch. 5). z-loss: (2/T)·lse·p_j.
    const float fp = dot_lanes(f, p, E);
    const auto zc = static_cast<float>(gamma * 2.0 * lse_[static_cast<std::size_t>(t)] * inv_T);
    for (std::int64_t i = 0; i < E; ++i)
      g[static_cast<std::size_t>(i)] = p[i] * (aE * (f[i] - fp) + zc);
    const std::int64_t* c = &chosen_[static_cast<std::size_t>(t * k)];
    const unsigned char* kp = &kept_[static_cast<std::size_t>(t * k)];
    // Renormalized gates are taken over the KEPT slots, after the capacity
    // mask, as GShard / DeepSpeed top-2 gating does: a dropped slot yields
    // nothing and sends the router no task gradient.
    double kept_mass = 0;
    for (std::int64_t r = 0; r < k; ++r)
      if (kp[r]) kept_mass += p[c[r]];
    double R = 0;
    for (std::int64_t r = 0; r < k; ++r) {
      if (!kp[r]) continue;
      qs[r] = skill_[static_cast<std::size_t>(c[r])];
      gk[r] = renorm ? p[c[r]] / kept_mass : p[c[r]];
      R += gk[r] * qs[r];
    }
    // Gate-weighted demand: every routed slot, kept or dropped, weighted by
    // its gate over the chosen k (see the header: what an expert learns from).
    double chosen_mass = 0;
    for (std::int64_t r = 0; r < k; ++r) chosen_mass += p[c[r]];
    for (std::int64_t r = 0; r < k; ++r)
      demand_[static_cast<std::size_t>(c[r])] += renorm ? p[c[r]] / chosen_mass : p[c[r]];
    reward_sum += R;
    // Task loss is −R/T. Renormalized: ∂R/∂z_j = g_j·(q_j − R) over the kept;
    // raw gates: p_j·q_j·kept_j − p_j·R over all experts (the softmax
    // denominator couples them).
    if (renorm) {
      for (std::int64_t r = 0; r < k; ++r)
        if (kp[r])
          g[static_cast<std::size_t>(c[r])] -= static_cast<float>(inv_T * gk[r] * (qs[r] - R));
    } else if (R != 0) {
      const auto rf = static_cast<float>(R);
      for (std::int64_t i = 0; i < E; ++i) g[static_cast<std::size_t>(i)] += inv_Tf * p[i] * rf;
      for (std::int64_t r = 0; r < k; ++r)
        if (kp[r]) g[static_cast<std::size_t>(c[r])] -= static_cast<float>(inv_T * p[c[r]] * qs[r]);
    }
    for (std::int64_t j = 0; j < d; ++j) {
      const float xj = x[j];
      float* gw = &grad_w_[static_cast<std::size_t>(j) * Ez];
      for (std::int64_t i = 0; i < E; ++i) gw[i] += xj * g[static_cast<std::size_t>(i)];
    }
  }
  st.task_loss = -reward_sum * inv_T;
}

// 6. The router's gradient step.
void CollapseSimulation::update_router() {
  const auto lr = static_cast<float>(params_.learning_rate);
  for (std::size_t i = 0; i < w_.size(); ++i) w_[i] -= lr * grad_w_[i];
  // Keep the router finite at any learning rate (UBSan found logits overflowing
  // to inf, and inf − inf in the softmax, at the slider's extremes): |w| ≤ 1e3
  // bounds every logit far inside float range; a NaN weight restarts at 0.
  constexpr float kMaxWeight = 1e3f;
  for (float& w : w_) {
    if (!(w == w)) w = 0.0f;
    w = w > kMaxWeight ? kMaxWeight : (w < -kMaxWeight ? -kMaxWeight : w);
  }
}

// 7. Experts learn in proportion to the gate-weighted demand the router
// sends them (the rich get richer, seed ch. 5; why demand and not kept
// slots: see CollapseParams in the header). Dead experts are judged on the
// same quantity: an expert that is only ever a near-zero-gate second
// choice contributes nothing and learns nothing.
void CollapseSimulation::update_experts(StepStats& st) {
  const auto Ez = static_cast<std::size_t>(params_.n_experts);
  double demand_total = 0;
  for (double v : demand_) demand_total += v;
  st.gate_share.resize(Ez);
  st.recent_gate_share.resize(Ez);
  for (std::size_t i = 0; i < Ez; ++i) {
    experience_[i] += demand_[i];
    skill_[i] = params_.skill_gain * std::log1p(experience_[i] / kExperienceScaleTokens);
    st.gate_share[i] = demand_total > 0 ? demand_[i] / demand_total : 0.0;
    recent_gate_share_[i] += kRecentRate * (st.gate_share[i] - recent_gate_share_[i]);
    st.recent_gate_share[i] = recent_gate_share_[i];
    if (st.dead(static_cast<std::int64_t>(i))) ++st.dead_experts;
  }
}

std::vector<StepStats> run_collapse(const CollapseParams& params, std::int64_t steps) {
  CollapseSimulation sim(params);
  sim.run(steps);
  return sim.history();
}

}  // namespace napkin
