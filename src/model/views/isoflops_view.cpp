#include "isoflops_view.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "format.h"
#include "scenario.h"
#include "validate.h"

namespace napkin {

std::vector<double> log_spaced_flops(double lo_flops, double hi_flops, int n) {
  require_positive(lo_flops, "lo_flops", "FLOPs");
  require_real(hi_flops, "hi_flops", "FLOPs", lo_flops, std::numeric_limits<double>::max());
  require_count(n, "n", "budgets", 2, 100'000);
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(n));
  const double a = std::log10(lo_flops), b = std::log10(hi_flops);
  for (int i = 0; i < n; ++i) out.push_back(std::pow(10.0, a + (b - a) * i / (n - 1)));
  return out;
}

// ------------------------------------------------------------ the ladder view

IsoflopsView make_isoflops_view(std::vector<LadderPoint> points, double target_flops) {
  require_positive(target_flops, "target_flops", "FLOPs");
  require_count(static_cast<std::int64_t>(points.size()), "points", "ladder runs", 1);
  validate_points(points, "ladder");
  IsoflopsView v;
  v.points = std::move(points);
  v.target_flops = target_flops;
  v.labelled = std::all_of(v.points.begin(), v.points.end(),
                           [](const LadderPoint& p) { return p.budget_flops > 0; });
  for (const LadderPoint& p : v.points)
    v.run_flops.push_back(v.labelled ? p.budget_flops : 6.0 * p.n_params * p.n_tokens);
  std::vector<double> budgets = v.run_flops;
  std::sort(budgets.begin(), budgets.end());
  if (v.labelled) {
    budgets.erase(std::unique(budgets.begin(), budgets.end()), budgets.end());
    for (double c : budgets) v.design_log10_flops.push_back(std::log10(c));
  } else {
    // No labels: the runs' 6ND, rounded to 0.1 decade, stand in for the budgets.
    for (double c : budgets)
      v.design_log10_flops.push_back(std::round(std::log10(c) * 10.0) / 10.0);
    v.design_log10_flops.erase(
        std::unique(v.design_log10_flops.begin(), v.design_log10_flops.end()),
        v.design_log10_flops.end());
  }
  v.ladder_min_flops = budgets.front();
  v.ladder_max_flops = budgets.back();
  v.extrapolation_decades = extrapolation_decades(v.ladder_max_flops, target_flops);
  if (!v.labelled) {
    v.exponent_error =
        "the ladder has no budget labels, so the IsoFLOPs method (one parabola per "
        "budget) does not apply; a and b come from the fitted law, a = β/(α+β)";
    return v;
  }
  for (double c : budgets) {
    std::vector<LadderPoint> sweep;
    for (const LadderPoint& p : v.points)
      if (p.budget_flops == c) sweep.push_back(p);
    try {
      v.optima.push_back(isoflop_optimum(sweep, c));
    } catch (const std::invalid_argument& e) {
      // The parabola fit names its own coefficient; say what it means instead.
      const std::string why = e.what();
      v.skipped.push_back(format_sci(c, 2) + ": " +
                          (why.find("parabola") != std::string::npos
                               ? std::string("the loss sweep's fitted parabola opens downward, so "
                                             "it has no interior minimum (too much noise or bias "
                                             "for this sweep)")
                               : why));
    }
  }
  if (v.optima.size() < 2) {
    v.exponent_error = "fewer than 2 budgets have a parabola vertex; the exponents need 2";
    return v;
  }
  v.exponents = fit_scaling_exponents(v.optima);
  const double n = v.exponents->n_coefficient * std::pow(target_flops, v.exponents->a);
  const double d = v.exponents->d_coefficient * std::pow(target_flops, v.exponents->b);
  if (std::isfinite(n) && std::isfinite(d) && n > 0 && d > 0) {
    v.n_opt = n;
    v.d_opt = d;
  }
  return v;
}

ScalingExponents exponents_from_law(const LossLaw& law) {
  ScalingExponents e;
  e.a = optimum_exponent(law);
  e.b = 1.0 - e.a;
  e.sum = e.a + e.b;
  e.sums_to_one = true;  // D = C/6N holds at the law's optimum by construction
  return e;
}

// ------------------------------------------------------------ plot (1) groups

LadderGroups ladder_groups(const IsoflopsView& v, int unlabelled_bins) {
  require_count(unlabelled_bins, "unlabelled_bins", "bins", 1, 1000);
  LadderGroups out;
  std::vector<LadderGroup>& groups = out.groups;
  if (v.labelled) {
    std::vector<double> budgets;
    for (const LadderPoint& q : v.points) budgets.push_back(q.budget_flops);
    std::sort(budgets.begin(), budgets.end());
    budgets.erase(std::unique(budgets.begin(), budgets.end()), budgets.end());
    for (double c : budgets) {
      LadderGroup g;
      g.budget_flops = c;
      for (const IsoflopOptimum& o : v.optima)
        if (o.budget_flops == c) g.optimum = o;
      groups.push_back(std::move(g));
    }
    for (const LadderPoint& q : v.points) {
      for (LadderGroup& g : groups)
        if (g.budget_flops == q.budget_flops && !q.outlier) {
          g.n_params.push_back(q.n_params);
          g.loss.push_back(q.loss);
        }
      if (q.outlier) {
        out.outlier_n.push_back(q.n_params);
        out.outlier_loss.push_back(q.loss);
      }
    }
  } else {
    const double lo = std::log10(v.ladder_min_flops), hi = std::log10(v.ladder_max_flops);
    const int bins = unlabelled_bins;
    for (int b = 0; b < bins; ++b) {
      LadderGroup g;
      g.budget_flops = std::pow(10.0, lo + (hi - lo) * (b + 0.5) / bins);
      groups.push_back(std::move(g));
    }
    for (const LadderPoint& q : v.points) {
      const double x = std::log10(6.0 * q.n_params * q.n_tokens);
      const int b =
          hi > lo ? std::clamp(static_cast<int>((x - lo) / (hi - lo) * bins), 0, bins - 1) : 0;
      groups[static_cast<std::size_t>(b)].n_params.push_back(q.n_params);
      groups[static_cast<std::size_t>(b)].loss.push_back(q.loss);
    }
    groups.erase(std::remove_if(groups.begin(), groups.end(),
                                [](const LadderGroup& g) { return g.n_params.empty(); }),
                 groups.end());
  }
  // Each vertex's parabola over its budget's sizes, a little past both ends.
  for (LadderGroup& g : groups) {
    if (!g.optimum || g.n_params.empty()) continue;
    const double x0 = std::log10(*std::min_element(g.n_params.begin(), g.n_params.end())) - 0.08;
    const double x1 = std::log10(*std::max_element(g.n_params.begin(), g.n_params.end())) + 0.08;
    for (int s = 0; s <= 40; ++s) {
      const double x = x0 + (x1 - x0) * s / 40.0;
      g.curve_n_params.push_back(std::pow(10.0, x));
      g.curve_loss.push_back(g.optimum->parabola.at(x));
    }
  }
  return out;
}

// ------------------------------------------------------------ plot (2) exponents

std::optional<ExponentCurves> exponent_curves(const IsoflopsView& v,
                                              const std::optional<LossLaw>& fitted,
                                              const std::vector<double>& flops) {
  ExponentCurves out;
  // A fitted law whose optimum leaves the doubles at some budget: no point
  // there (the plot drops it), rather than no plot.
  auto optimum = [&](double c) {
    try {
      return analytic_optimum(*fitted, c);
    } catch (const std::invalid_argument&) {
      ComputeOptimum none;
      none.n_params = none.n_tokens = std::numeric_limits<double>::quiet_NaN();
      return none;
    }
  };
  auto n_of = [&](double c) {
    return v.exponents ? v.exponents->n_coefficient * std::pow(c, v.exponents->a)
                       : optimum(c).n_params;
  };
  auto d_of = [&](double c) {
    return v.exponents ? v.exponents->d_coefficient * std::pow(c, v.exponents->b)
                       : optimum(c).n_tokens;
  };
  if (v.exponents) {
    out.exponents = *v.exponents;
  } else if (fitted) {
    out.from_law = true;
    out.exponents = exponents_from_law(*fitted);
  } else {
    return std::nullopt;
  }
  // The reference slopes start where the curve starts: at the smallest budget.
  const double anchor_c = v.ladder_min_flops, anchor_n = n_of(anchor_c);
  for (double c : flops) {
    out.flops.push_back(c);
    out.n_opt.push_back(n_of(c));
    out.d_opt.push_back(d_of(c));
    out.kaplan_n.push_back(anchor_n * std::pow(c / anchor_c, kKaplanNExponent));
    out.chinchilla_n.push_back(anchor_n * std::pow(c / anchor_c, kChinchillaNExponent));
  }
  return out;
}

// ------------------------------------------------------------ the lesson

ScheduleLesson schedule_lesson(const SyntheticLadderSpec& spec, double bias_nats,
                               double offset_nats, double target_flops) {
  require_positive(target_flops, "target_flops", "FLOPs");
  ScheduleLesson l;
  auto n_at = [&](bool bias, bool offset) -> std::optional<double> {
    SyntheticLadderSpec s = spec;
    s.lr_decay_bias_nats = bias ? bias_nats : 0.0;
    s.uniform_offset_nats = offset ? offset_nats : 0.0;
    try {
      const ScalingExponents e = fit_scaling_exponents(isoflop_optima(synthetic_ladder(s)));
      const double n = e.n_coefficient * std::pow(target_flops, e.a);
      if (std::isfinite(n) && n > 0) return n;
    } catch (const std::invalid_argument& ex) {
      l.lesson_error = ex.what();
    }
    return std::nullopt;
  };
  l.n_clean = n_at(false, false);
  l.n_bias = n_at(true, false);
  l.n_offset = n_at(false, true);
  if (l.n_clean && l.n_bias) l.bias_shift = *l.n_bias / *l.n_clean - 1.0;
  if (l.n_clean && l.n_offset) l.offset_shift = *l.n_offset / *l.n_clean - 1.0;
  return l;
}

// ------------------------------------------------------------ the scenario's ladder

IsoflopsLadderView make_isoflops_ladder_view(const IsoflopsSettings& s, double target_flops) {
  IsoflopsLadderView out;
  out.synthetic = !s.loaded.has_value();
  out.view = make_isoflops_view(ladder_points(s), target_flops);
  if (out.synthetic) {
    out.truth = s.synthetic.law;
    out.lesson = schedule_lesson(synthetic_ladder_spec(s, false, false), s.synthetic.bias_nats,
                                 s.synthetic.offset_nats, out.view.target_flops);
  }
  return out;
}

// ------------------------------------------------------------ the forecast at C*

IsoflopsForecast isoflops_forecast(const IsoflopsView& v, const LossLaw* fitted,
                                   const std::vector<LossLaw>& boot_laws,
                                   const std::optional<LossLaw>& truth) {
  const double c = v.target_flops;
  IsoflopsForecast f;
  auto finite = [](double x) { return std::isfinite(x) && x > 0; };
  if (v.n_opt && v.d_opt) {
    f.n_opt = v.n_opt;
    f.d_opt = v.d_opt;
  } else if (!v.labelled && fitted) {
    try {
      const ComputeOptimum o = analytic_optimum(*fitted, c);
      if (finite(o.n_params) && finite(o.n_tokens)) {
        f.n_opt = o.n_params;
        f.d_opt = o.n_tokens;
        f.optimum_from_law = true;
      }
    } catch (const std::invalid_argument&) {  // an optimum outside the doubles: none shown
    }
  }
  if (v.exponents) {
    f.exponents = v.exponents;
  } else if (fitted) {
    f.exponents = exponents_from_law(*fitted);
    f.exponents_from_law = true;
  }
  if (fitted) {
    try {  // a fitted law whose optimum at C* leaves the doubles: no forecast
      const double l = optimal_loss(*fitted, c);
      if (std::isfinite(l)) f.loss = l;
      const ComputeOptimum o = analytic_optimum(*fitted, c);
      if (finite(o.n_params)) f.n_opt_law = o.n_params;
      f.fitted_split = decompose_loss(*fitted, o.n_params, o.n_tokens);
    } catch (const std::invalid_argument&) {
    }
  }
  if (!boot_laws.empty()) {
    try {
      const BandPoint b = forecast_band(boot_laws, {c}).front();
      if (std::isfinite(b.low) && std::isfinite(b.high)) f.interval = b;
      const BandPoint n = optimal_params_interval(boot_laws, c);
      if (finite(n.low) && finite(n.high)) f.n_opt_law_interval = n;
    } catch (const std::invalid_argument&) {
    }
  }
  if (truth) {
    try {
      const ComputeOptimum o = analytic_optimum(*truth, c);
      f.truth_split = decompose_loss(*truth, o.n_params, o.n_tokens);
    } catch (const std::invalid_argument&) {
    }
  }
  return f;
}

std::vector<double> forecast_band_flops() {
  std::vector<double> out;
  for (int i = 0; i <= 96; ++i) out.push_back(std::pow(10.0, 16.0 + i / 8.0));
  return out;
}

std::vector<double> optimal_loss_curve(const LossLaw& law, const std::vector<double>& flops) {
  std::vector<double> out;
  out.reserve(flops.size());
  for (double c : flops) out.push_back(optimal_loss(law, c));
  return out;
}

// ------------------------------------------------------------ plot (5) recipes

LossLaw seed_candidate_law() { return LossLaw{1.69, 500.0, 0.38, 380.0, 0.26}; }

LossLaw candidate_law(const LossLaw& baseline, const CandidateRecipe& r) {
  LossLaw l = baseline;
  switch (r.preset) {
    case CandidatePreset::seed_candidate: l = seed_candidate_law(); break;
    case CandidatePreset::chinchilla_approach3: l = chinchilla_approach3_law(); break;
    case CandidatePreset::besiroglu2024: l = besiroglu2024_law(); break;
    case CandidatePreset::fitted_law: break;
  }
  l.A *= r.a_multiplier;
  l.B *= r.b_multiplier;
  l.alpha = std::max(0.01, l.alpha + r.alpha_delta);
  l.beta = std::max(0.01, l.beta + r.beta_delta);
  return l;
}

RecipeCurves recipe_curves(const LossLaw& baseline, const LossLaw& candidate,
                           const std::vector<double>& flops) {
  RecipeCurves r;
  for (double c : flops) {
    r.flops.push_back(c);
    r.baseline.push_back(optimal_loss(baseline, c));
    r.candidate.push_back(optimal_loss(candidate, c));
    r.delta.push_back(r.candidate.back() - r.baseline.back());
  }
  return r;
}

// ------------------------------------------------------------ plot (6) designs

LadderDesignOptions ladder_design_options(const std::vector<double>& design, double target_flops,
                                          double plan_fraction) {
  require_count(static_cast<std::int64_t>(design.size()), "design_log10_flops", "budgets", 1);
  require_positive(target_flops, "target_flops", "FLOPs");
  LadderDesignOptions out;
  const double lo = design.front(), hi = design.back();
  out.target_log10_flops = std::log10(target_flops);
  const std::vector<std::vector<double>> fixed = {
      design,
      {lo, lo + 0.2, lo + 0.4, lo + 0.6},
      {lo, lo + (hi - lo) / 3, lo + 2 * (hi - lo) / 3, hi},
      {lo, lo + 0.5, lo + 1.0, hi + 0.5},
      {lo, hi},
  };
  const LadderDesignKind kinds[] = {LadderDesignKind::this_ladder, LadderDesignKind::clustered,
                                    LadderDesignKind::spread, LadderDesignKind::skewed,
                                    LadderDesignKind::two_point};
  for (std::size_t i = 0; i < fixed.size(); ++i) out.options.push_back({kinds[i], fixed[i], 0.0});
  LadderDesignOption plan{LadderDesignKind::plan, {}, 0.0};
  try {
    out.plan =
        design_ladder(target_flops, plan_fraction,
                      std::clamp<int>(static_cast<int>(design.size()), 2, 10), std::pow(10.0, lo));
    for (double c : out.plan->budgets_flops) plan.log10_flops.push_back(std::log10(c));
  } catch (const std::invalid_argument&) {
    out.plan.reset();  // C* too small for a ladder from the smallest budget
  }
  out.options.push_back(std::move(plan));
  for (LadderDesignOption& o : out.options) {
    try {
      if (o.log10_flops.size() >= 2)
        o.variance = extrapolation_variance(o.log10_flops, out.target_log10_flops);
    } catch (const std::invalid_argument&) {
      o.variance = 0;  // every budget the same: no slope to extrapolate
    }
  }
  return out;
}

const FitResult* IsoflopsSlow::shownFit() const {
  if (fit && (fit_state == JobState::current || fit_state == JobState::pending)) return &*fit;
  return nullptr;
}

const std::vector<LossLaw>& IsoflopsSlow::shownLaws() const {
  static const std::vector<LossLaw> none;
  if (boot_state == JobState::current || boot_state == JobState::pending) return laws;
  return none;
}

IsoflopsShown make_isoflops_view(const Scenario& scenario, const IsoflopsSlow* slow) {
  static const IsoflopsSlow pending;
  const IsoflopsSlow& job = slow ? *slow : pending;
  const IsoflopsSettings& settings = scenario.isoflops;
  IsoflopsShown s;
  try {
    s.ladder = make_isoflops_ladder_view(settings, isoflops_target_flops(scenario));
  } catch (const std::exception& e) {  // whatever the ladder or the plan refused
    s.error = e.what();
    return s;
  }
  if (const FitResult* f = job.shownFit()) s.fit = *f;
  s.fit_state = job.fit_state;
  s.boot_state = job.boot_state;
  s.fit_error = job.fit_error;
  s.boot_error = job.boot_error;
  const std::vector<LossLaw>& laws = job.shownLaws();
  if (!laws.empty()) s.band = job.band;
  s.n_successful = job.n_successful;
  s.n_skipped = job.n_skipped;
  s.forecast =
      isoflops_forecast(s.ladder.view, s.fit ? &s.fit->law : nullptr, laws, s.ladder.truth);
  s.candidate = settings.candidate;
  s.follows_budget = settings.target_follows_budget;
  s.serial = job.serial;
  return s;
}

IsoflopsSlow isoflops_slow_now(const Scenario& s, const ProgressFn& progress) {
  IsoflopsSlow out;
  out.serial = 1;
  const auto fail_both = [&out](const std::string& why) {
    out.fit_state = out.boot_state = JobState::failed;
    out.fit_error = why;
    out.boot_error = "no bootstrap without a fit";
  };
  IsoflopsLadderView ladder;
  try {
    ladder = make_isoflops_ladder_view(s.isoflops, isoflops_target_flops(s));
  } catch (const std::exception& e) {
    fail_both(e.what());
    return out;
  }
  const std::vector<LadderPoint>& points = ladder.view.points;
  const FitOptions options = s.isoflops.fit.fit_options();
  try {
    out.fit = fit_parametric(points, options);
    out.fit_state = JobState::current;
  } catch (const std::exception& e) {
    fail_both(e.what());
    return out;
  }
  BootstrapOptions b;
  b.resamples = s.isoflops.fit.resamples;
  b.seed = s.isoflops.seed;
  b.fit = options;
  try {
    const BootstrapResult r = bootstrap_forecast(points, ladder.view.target_flops, b, progress);
    out.laws = r.laws;
    out.n_successful = r.n_successful;
    out.n_skipped = r.n_skipped;
    out.band = forecast_band(r.laws, forecast_band_flops());
    out.boot_state = JobState::current;
  } catch (const Cancelled&) {
    throw;
  } catch (const std::exception& e) {
    out.boot_state = JobState::failed;
    out.boot_error = e.what();
  }
  return out;
}

}  // namespace napkin
