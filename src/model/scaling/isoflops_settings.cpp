#include "isoflops_settings.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "format.h"
#include "validate.h"

namespace napkin {

namespace {

// Seeds and counts stored as JSON numbers stay exact up to 2^53 − 1.
constexpr std::int64_t kMaxExactInteger = (std::int64_t{1} << 53) - 1;
constexpr std::int64_t kMaxLadderPoints = 100'000;
constexpr double kMinScale = 1e-15;
constexpr double kMaxScale = 1e21;  // up to PF-days (8.64e19 FLOPs)

void require_name(const std::string& name, std::string_view what) {
  if (name.empty())
    throw std::invalid_argument(std::string(what) + " (column name) must not be empty");
  if (name.size() > 200)
    throw std::invalid_argument(std::string(what) +
                                " (column name) must be at most 200 bytes; got " +
                                std::to_string(name.size()));
}

}  // namespace

std::string_view to_string(LawPreset p) {
  switch (p) {
    case LawPreset::chinchilla_approach3: return "chinchilla-approach3";
    case LawPreset::besiroglu2024: return "besiroglu2024";
    case LawPreset::custom: return "custom";
  }
  return "custom";
}

LawPreset parse_law_preset(std::string_view text) {
  for (LawPreset p : {LawPreset::chinchilla_approach3, LawPreset::besiroglu2024, LawPreset::custom})
    if (text == to_string(p)) return p;
  throw_out_of_range("law_preset", "name", "chinchilla-approach3, besiroglu2024 or custom", text);
}

LossLaw law_of(LawPreset p) {
  switch (p) {
    case LawPreset::chinchilla_approach3: return chinchilla_approach3_law();
    case LawPreset::besiroglu2024: return besiroglu2024_law();
    case LawPreset::custom: break;
  }
  throw std::invalid_argument("law_preset (name): custom has no published constants");
}

void SyntheticLadderSettings::validate() const {
  law.validate();
  require_real(law.E, "E", "nats/token", 1e-9, 10.0);
  require_real(law.A, "A", "nats/token × parameters^α", 1e-9, 1e7);
  require_real(law.alpha, "alpha", "capacity exponent", 1e-9, 2.0);
  require_real(law.B, "B", "nats/token × tokens^β", 1e-9, 1e7);
  require_real(law.beta, "beta", "data exponent", 1e-9, 2.0);
  if (law_preset != LawPreset::custom && !(law == law_of(law_preset)))
    throw std::invalid_argument(
        "law_preset (name) is " + std::string(to_string(law_preset)) +
        " but the law's constants differ from it; the preset of edited constants is custom");
  require_count(n_budgets, "budgets", "IsoFLOPs budgets", 2, 20);
  require_real(budget_min_flops, "budget_min_flops", "FLOPs", 1e12, 1e26);
  require_real(budget_max_flops, "budget_max_flops", "FLOPs", 1e13, 1e27);
  if (!(budget_max_flops > budget_min_flops))
    throw std::invalid_argument("budget_max_flops (FLOPs) must be larger than budget_min_flops (" +
                                format_value(budget_min_flops) + "); got " +
                                format_value(budget_max_flops));
  require_count(sizes_per_budget, "sizes_per_budget", "runs per budget", 3, 50);
  require_real(size_span_decades, "size_span_decades", "decades of N", 0.1, 5.0);
  require_real(noise, "noise", "σ of log loss", 0.0, 1.0);
  require_real(bias_nats, "bias_nats", "nats/token", 0.0, 1.0);
  require_real(offset_nats, "offset_nats", "nats/token", 0.0, 1.0);
}

std::string_view to_string(TokensKind k) { return k == TokensKind::tokens ? "tokens" : "flops"; }
std::string_view to_string(LossUnit u) { return u == LossUnit::nats ? "nats" : "bits"; }

TokensKind parse_tokens_kind(std::string_view text) {
  if (text == "tokens") return TokensKind::tokens;
  if (text == "flops") return TokensKind::flops;
  throw_out_of_range("tokens_kind", "what the tokens column holds", "tokens or flops", text);
}

LossUnit parse_loss_unit(std::string_view text) {
  if (text == "nats") return LossUnit::nats;
  if (text == "bits") return LossUnit::bits;
  throw_out_of_range("loss_unit", "unit of the loss column", "nats or bits", text);
}

void LadderColumns::validate() const {
  require_name(n_params, "parameters column");
  require_name(tokens,
               tokens_kind == TokensKind::tokens ? "tokens column" : "training FLOPs column");
  require_name(loss, "loss column");
  if (budget.size() > 200) require_name(budget, "budget column");
  require_real(n_params_scale, "n_params_scale", "parameters per unit of the column", kMinScale,
               kMaxScale);
  require_real(tokens_scale, "tokens_scale", "tokens or FLOPs per unit of the column", kMinScale,
               kMaxScale);
  require_real(budget_scale, "budget_scale", "FLOPs per unit of the column", kMinScale, kMaxScale);
  const std::string* roles[] = {&n_params, &tokens, &loss, &budget};
  const char* names[] = {"parameters", "tokens", "loss", "budget label"};
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j)
      if (!roles[i]->empty() && *roles[i] == *roles[j])
        throw std::invalid_argument("column \"" + *roles[i] + "\" is mapped to both " + names[i] +
                                    " and " + names[j] + "; each role needs its own column");
}

void LoadedLadder::validate() const {
  if (file_name.size() > 1000)
    throw std::invalid_argument("file_name (text) must be at most 1,000 bytes");
  columns.validate();
  require_count(static_cast<std::int64_t>(points.size()), "points", "ladder runs", 1,
                kMaxLadderPoints);
  require_count(data_rows, "data_rows", "rows in the file",
                static_cast<std::int64_t>(points.size()), kMaxExactInteger);
  validate_points(points, "points");
}

void FitSettings::validate() const {
  require_real(huber_delta, "huber_delta", "log-loss units", 1e-9, 1.0);
  require_count(resamples, "resamples", "bootstrap resamples", 10, 100'000);
}

FitOptions FitSettings::fit_options() const {
  FitOptions o;
  o.estimator = estimator;
  o.huber_delta = huber_delta;
  return o;
}

std::string_view to_string(CandidatePreset p) {
  switch (p) {
    case CandidatePreset::fitted_law: return "fitted-law";
    case CandidatePreset::seed_candidate: return "seed-candidate";
    case CandidatePreset::chinchilla_approach3: return "chinchilla-approach3";
    case CandidatePreset::besiroglu2024: return "besiroglu2024";
  }
  return "fitted-law";
}

CandidatePreset parse_candidate_preset(std::string_view text) {
  for (CandidatePreset p : {CandidatePreset::fitted_law, CandidatePreset::seed_candidate,
                            CandidatePreset::chinchilla_approach3, CandidatePreset::besiroglu2024})
    if (text == to_string(p)) return p;
  throw_out_of_range("candidate", "recipe",
                     "fitted-law, seed-candidate, chinchilla-approach3 or besiroglu2024", text);
}

void CandidateRecipe::validate() const {
  require_real(a_multiplier, "a_multiplier", "× A", 0.01, 100.0);
  require_real(b_multiplier, "b_multiplier", "× B", 0.01, 100.0);
  require_real(alpha_delta, "alpha_delta", "added to α", -0.5, 0.5);
  require_real(beta_delta, "beta_delta", "added to β", -0.5, 0.5);
}

void IsoflopsSettings::validate() const {
  synthetic.validate();
  require_real(loss_cut.max_loss, "max_loss", "nats/token", 1e-9, 100.0);
  fit.validate();
  require_count(static_cast<std::int64_t>(seed), "seed", "seed", 0, kMaxExactInteger);
  require_real(manual_target_flops, "manual_target_flops", "FLOPs", 1e12, 1e32);
  candidate.validate();
  if (loaded) {
    loaded->validate();
    (void)ladder_points(*this);  // the loss cut must leave a fittable ladder
  }
}

std::vector<double> geometric_budgets(double lo_flops, double hi_flops, int n) {
  require_positive(lo_flops, "budget_min_flops", "FLOPs");
  require_real(hi_flops, "budget_max_flops", "FLOPs", lo_flops);
  require_count(n, "budgets", "IsoFLOPs budgets", 2, 1000);
  std::vector<double> out;
  const double a = std::log10(lo_flops), b = std::log10(hi_flops);
  for (int i = 0; i < n; ++i) out.push_back(std::pow(10.0, a + (b - a) * i / (n - 1)));
  return out;
}

SyntheticLadderSpec synthetic_ladder_spec(const IsoflopsSettings& s, bool bias, bool offset) {
  const SyntheticLadderSettings& p = s.synthetic;
  SyntheticLadderSpec spec;
  spec.law = p.law;
  spec.budgets_flops = geometric_budgets(p.budget_min_flops, p.budget_max_flops, p.n_budgets);
  spec.sizes_per_budget = p.sizes_per_budget;
  spec.size_span_decades = p.size_span_decades;
  spec.noise = p.noise;
  spec.seed = s.seed;
  spec.lr_decay_bias_nats = bias ? p.bias_nats : 0.0;
  spec.bias_mode = p.bias_mode;
  spec.uniform_offset_nats = offset ? p.offset_nats : 0.0;
  spec.outliers = p.outlier ? 1 : 0;
  return spec;
}

SyntheticLadderSpec synthetic_ladder_spec(const IsoflopsSettings& s) {
  return synthetic_ladder_spec(s, s.synthetic.bias_on, s.synthetic.offset_on);
}

std::vector<LadderPoint> ladder_points(const IsoflopsSettings& s) {
  if (!s.loaded) return synthetic_ladder(synthetic_ladder_spec(s));
  std::vector<LadderPoint> out;
  for (const LadderPoint& p : s.loaded->points)
    if (!s.loss_cut.enabled || p.loss < s.loss_cut.max_loss) out.push_back(p);
  if (out.size() >= 5) return out;
  const std::string runs = std::to_string(s.loaded->points.size());
  if (!s.loss_cut.enabled)
    throw std::invalid_argument("points (ladder runs): the loaded ladder has " + runs +
                                " runs; a fit needs at least 5");
  throw std::invalid_argument("max_loss (nats/token): the loss cut below " +
                              format_value(s.loss_cut.max_loss) + " keeps " +
                              std::to_string(out.size()) + " of the " + runs +
                              " runs of the loaded ladder; a fit needs at least 5. Raise the "
                              "cut or switch it off");
}

}  // namespace napkin
