#include "moe.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "algebra.h"
#include "moe_detail.h"
#include "rng.h"
#include "validate.h"

namespace napkin {

namespace {

void require_finite_all(std::span<const double> xs, const char* name) {
  for (double x : xs)
    if (!std::isfinite(x)) throw_out_of_range(name, "logits", "finite numbers", format_value(x));
}

void require_nonempty(std::size_t n, const char* name, const char* unit) {
  if (n == 0) throw_out_of_range(name, unit, "a non-empty list", "an empty list");
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
  detail::top_k_indices(logits.data(), n, top_k, r.experts.data(), scratch);
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
  require_count(d_model, "d_model", "elements", 1, kMaxModelWidth);
  require_count(d_ff, "d_ff", "elements", 1, kMaxFfnWidth);
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
  require_count(d_model, "d_model", "elements", 1, kMaxModelWidth);
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

}  // namespace napkin
