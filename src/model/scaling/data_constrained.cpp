#include "data_constrained.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "minimize.h"
#include "scaling.h"
#include "validate.h"

namespace napkin {

namespace {

constexpr double kMaxTokens = kMaxTrainTokens;
constexpr double kMaxParams = 1e15;

void require_tokens(double v, const char* name) {
  require_real(v, name, "tokens", 0.0, kMaxTokens, true);
}

// The formulas, unchecked: every public entry point validates, then calls these.
double effective_tokens_unchecked(double unique, double seen, double rd_star) {
  if (seen <= unique) return seen;
  const double repetitions = seen / unique - 1.0;
  // −expm1(−x) = 1 − e^(−x), accurate for small x (a few repeated tokens).
  return unique + unique * rd_star * -std::expm1(-repetitions / rd_star);
}

double effective_params_unchecked(double n, double useful, double rn_star) {
  if (n <= useful) return n;
  const double excess = n / useful - 1.0;
  return useful + useful * rn_star * -std::expm1(-excess / rn_star);
}

// N_opt(D) = G·(D·G)^(β/α): G and β/α of a law.
struct OptimalParams {
  double g, exponent;
  explicit OptimalParams(const LossLaw& law)
      : g(std::pow(law.alpha * law.A / (law.beta * law.B), 1.0 / (law.alpha + law.beta))),
        exponent(law.beta / law.alpha) {}
  double operator()(double tokens) const { return g * std::pow(tokens * g, exponent); }
};

}  // namespace

double effective_tokens(double unique_tokens, double tokens_seen, double rd_star) {
  require_tokens(unique_tokens, "unique_tokens");
  require_tokens(tokens_seen, "tokens");
  require_positive(rd_star, "rd_star", "repetitions");
  return effective_tokens_unchecked(unique_tokens, tokens_seen, rd_star);
}

double effective_params(double n_params, double useful_params, double rn_star) {
  require_real(n_params, "params", "parameters", 0.0, kMaxParams, true);
  require_real(useful_params, "useful_params", "parameters", 0.0, kMaxParams, true);
  require_positive(rn_star, "rn_star", "excess-parameter ratio");
  return effective_params_unchecked(n_params, useful_params, rn_star);
}

double compute_optimal_params_for_tokens(const LossLaw& law, double tokens) {
  law.validate();
  require_tokens(tokens, "tokens");
  return OptimalParams(law)(tokens);
}

void DataConstrainedLaw::validate() const {
  base.validate();
  require_real(rd_star, "rd_star", "repetitions", 0.0, 1e6, true);
  require_real(rn_star, "rn_star", "excess-parameter ratio", 0.0, 1e6, true);
}

double DataConstrainedLaw::useful_params(double n_params, double unique_tokens) const {
  require_real(n_params, "params", "parameters", 0.0, kMaxParams, true);
  // The paper's U_N is the compute-optimal size for the unique tokens seen;
  // Napkin takes the unique tokens available, which is the same whenever
  // data repeat (D ≥ U) and leaves single-epoch runs on the base law.
  return std::min(n_params, compute_optimal_params_for_tokens(base, unique_tokens));
}

double DataConstrainedLaw::loss(double n_params, double tokens_seen, double unique_tokens) const {
  return RunLossByUniqueTokens(*this, n_params, tokens_seen)(unique_tokens);
}

RunLossByUniqueTokens::RunLossByUniqueTokens(const DataConstrainedLaw& law, double n_params,
                                             double tokens_seen)
    : law_(law), n_(n_params), d_(tokens_seen) {
  law.validate();
  require_real(n_params, "params", "parameters", 0.0, kMaxParams, true);
  require_tokens(tokens_seen, "tokens");
  const OptimalParams opt(law.base);
  g_ = opt.g;
  n_opt_exponent_ = opt.exponent;
  capacity_at_n_ = law.base.A / std::pow(n_params, law.base.alpha);
}

double RunLossByUniqueTokens::operator()(double unique_tokens) const {
  require_tokens(unique_tokens, "unique_tokens");
  const LossLaw& b = law_.base;
  // useful_params(): min(N, N_opt(U)).
  const double useful = std::min(n_, g_ * std::pow(unique_tokens * g_, n_opt_exponent_));
  const double capacity =
      n_ <= useful ? capacity_at_n_
                   : b.A / std::pow(effective_params_unchecked(n_, useful, law_.rn_star), b.alpha);
  const double d_eff = effective_tokens_unchecked(unique_tokens, d_, law_.rd_star);
  return b.E + capacity + b.B / std::pow(d_eff, b.beta);
}

std::optional<double> DataConstrainedLaw::tokens_for_loss(double n_params, double target_loss,
                                                          double unique_tokens) const {
  validate();
  require_positive(target_loss, "target_loss", "nats/token");
  const double n_eff = effective_params(n_params, useful_params(n_params, unique_tokens), rn_star);
  const double room = target_loss - base.E - base.A / std::pow(n_eff, base.alpha);
  if (room <= 0.0) return std::nullopt;
  const double d_eff = std::pow(base.B / room, 1.0 / base.beta);
  if (!std::isfinite(d_eff)) return std::nullopt;
  if (d_eff <= unique_tokens) return d_eff;
  // Invert D′ = U·(1 + R*·(1 − e^(−R/R*))): R = −R*·ln(1 − (D′/U − 1)/R*).
  const double x = (d_eff / unique_tokens - 1.0) / rd_star;
  if (x >= 1.0) return std::nullopt;  // beyond what any number of epochs gives
  const double repetitions = -rd_star * std::log1p(-x);
  const double d = unique_tokens * (1.0 + repetitions);
  if (!std::isfinite(d) || d > kMaxTokens) return std::nullopt;
  return d;
}

DataConstrainedLaw muennighoff2023_fit() {
  DataConstrainedLaw law;
  law.base =
      LossLaw{std::exp(0.6254804), std::exp(6.255414), 0.3526596, std::exp(7.3049974), 0.3526596};
  law.rd_star = kMuennighoffRdStar;
  law.rn_star = kMuennighoffRnStar;
  return law;
}

DataConstrainedLaw with_muennighoff_decay(const LossLaw& base) {
  DataConstrainedLaw law;
  law.base = base;
  law.validate();
  return law;
}

DataLimitedSplit best_split_under_data_limit(const DataConstrainedLaw& law, double flops,
                                             double unique_tokens) {
  law.validate();
  require_real(flops, "flops", "FLOPs", 1.0, 1e35);
  require_tokens(unique_tokens, "unique_tokens");
  // Search N over 2.5 decades either side of the 20-tokens/parameter split.
  const double n_mid = std::sqrt(flops / 120.0);
  const double lo = std::log(std::max(1.0, n_mid / 300.0));
  const double hi = std::log(std::min({flops / 6.0, n_mid * 300.0, kMaxParams}));
  auto f = [&](double log_n) {
    const double n = std::exp(log_n);
    return law.loss(n, flops / (6.0 * n), unique_tokens);
  };
  const double n = std::exp(hi > lo ? minimize_1d(f, lo, hi) : lo);
  DataLimitedSplit s;
  s.params = n;
  s.tokens = flops / (6.0 * n);
  s.epochs = s.tokens / unique_tokens;
  s.effective_tokens = effective_tokens(unique_tokens, s.tokens, law.rd_star);
  s.effective_params = effective_params(n, law.useful_params(n, unique_tokens), law.rn_star);
  s.loss = law.loss(n, s.tokens, unique_tokens);
  return s;
}

DataLimitedSplit best_split_fresh(const LossLaw& law, double flops) {
  law.validate();
  require_real(flops, "flops", "FLOPs", 1.0, 1e35);
  // N_opt(C) = G·(C/6)^(β/(α+β)) (Hoffmann et al. 2022, eq. 4).
  const double g = std::pow(law.alpha * law.A / (law.beta * law.B), 1.0 / (law.alpha + law.beta));
  DataLimitedSplit s;
  s.params = g * std::pow(flops / 6.0, law.beta / (law.alpha + law.beta));
  s.tokens = flops / (6.0 * s.params);
  s.effective_tokens = s.tokens;
  s.effective_params = s.params;
  s.loss = law.loss(s.params, s.tokens);
  return s;
}

EpochCurve loss_vs_epochs(const DataConstrainedLaw& law, double n_params, double unique_tokens,
                          double max_epochs, std::optional<double> marked_epochs, int n_points) {
  law.validate();
  require_real(n_params, "params", "parameters", 0.0, kMaxParams, true);
  require_tokens(unique_tokens, "unique_tokens");
  require_real(max_epochs, "max_epochs", "epochs", 1.0, 1e9);
  require_count(n_points, "n_points", "points", 2, 100'000);
  EpochCurve c;
  c.n_params = n_params;
  c.unique_tokens = unique_tokens;
  const double lo = std::log(0.125), hi = std::log(max_epochs);
  std::vector<double> xs;
  for (int i = 0; i < n_points; ++i) xs.push_back(std::exp(lo + (hi - lo) * i / (n_points - 1)));
  xs.push_back(1.0);
  if (marked_epochs) {
    require_real(*marked_epochs, "epochs", "epochs", 0.0, kMaxTokens, true);
    xs.push_back(*marked_epochs);
    c.marked_epochs = marked_epochs;
    c.marked_loss = law.loss(n_params, *marked_epochs * unique_tokens, unique_tokens);
  }
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  for (double e : xs) {
    const double d = e * unique_tokens;
    if (d > kMaxTokens) break;
    c.epochs.push_back(e);
    c.loss.push_back(law.loss(n_params, d, unique_tokens));
    c.loss_fresh.push_back(law.base.loss(n_params, d));
  }
  // The toy sums one term per epoch: its table stops at 64, past where it
  // has long flattened (the seed prints up to 32).
  const int whole = static_cast<int>(std::min(64.0, std::floor(max_epochs)));
  for (int e = 1; e <= whole; ++e) {
    if (e * unique_tokens > kMaxTokens) break;
    c.toy_epochs.push_back(e);
    c.toy_loss.push_back(law.base.loss(n_params, effective_tokens_toy(unique_tokens, e)));
  }
  return c;
}

}  // namespace napkin
