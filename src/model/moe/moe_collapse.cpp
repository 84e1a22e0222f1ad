// The router-collapse simulation of the seed's Phase 02 (CollapseSimulation):
// a seeded run of routing, capacity drops, balance and z losses and expert
// learning, step by step. Routing, capacity, the forward pass, parameters and
// communication are in moe.cpp.
#include "moe.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "moe_detail.h"
#include "rng.h"
#include "validate.h"

namespace napkin {

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
    detail::top_k_indices(z, E, k, &chosen_[static_cast<std::size_t>(t * k)], scratch);
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

double collapse_run_work(const CollapseParams& params, std::int64_t steps) {
  return static_cast<double>(steps) * static_cast<double>(params.n_experts) *
         static_cast<double>(params.tokens_per_batch + kCollapseRecordTokens);
}

std::int64_t max_recorded_collapse_steps(const CollapseParams& params) {
  const double per_step = collapse_run_work(params, 1);
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(kMaxCollapseRunWork / per_step));
}

}  // namespace napkin
