// The IsoFLOPs panel's numbers (isoflops.*): the synthetic ladder's law and
// design, the loss cut of a loaded ladder, the fit, the target and the
// candidate recipe, registered with the rest of the scenario's inputs
// (inputs.h) so that the panel's controls and the scenario file take the same
// values. Their ranges are the settings' own (IsoflopsSettings::validate);
// what depends on another field (the largest budget above the smallest) is
// validate()'s to refuse, and a person's edit keeps it (below).
//
// No flag: `fit` and `isoflops` read the fit's δ and target, the seed, the
// noise and the bias under their own names (cli_scaling.cpp).
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "inputs_detail.h"
#include "scenario.h"

namespace napkin::detail {

namespace {

using S = Scenario;

const IsoflopsSettings kIsoflopsDefaults{};

// The smallest ratio a person's edit keeps between the ladder's largest and
// smallest budget: moving one past the other pushes it a decade along.
constexpr double kMinBudgetRatio = 3.0;

void keep_budgets_apart_from_min(S& s) {
  SyntheticLadderSettings& l = s.isoflops.synthetic;
  if (l.budget_max_flops < l.budget_min_flops * kMinBudgetRatio)
    l.budget_max_flops = l.budget_min_flops * 10.0;
}

void keep_budgets_apart_from_max(S& s) {
  SyntheticLadderSettings& l = s.isoflops.synthetic;
  if (l.budget_min_flops > l.budget_max_flops / kMinBudgetRatio)
    l.budget_min_flops = l.budget_max_flops / 10.0;
}

// An edited constant is no longer the preset's law.
void make_law_custom(S& s) { s.isoflops.synthetic.law_preset = LawPreset::custom; }

// A coefficient (A, B) or an exponent (alpha, beta) of the ground-truth law:
// `Member` of LossLaw, within what LossLaw::validate takes.
template <double LossLaw::*Member>
ScenarioInput law_term(std::string_view json_key, std::string_view label, std::string_view unit,
                       std::string_view tooltip) {
  const bool exponent = Member == &LossLaw::alpha || Member == &LossLaw::beta;
  static const std::string key = "isoflops.ladder.synthetic.law." + std::string(json_key);
  static const std::string compare = "IsoFLOPs: law " + std::string(label);
  return ScenarioInput{.key = key,
                       .section = "isoflops.ladder.synthetic.law",
                       .json_key = json_key,
                       .flag = "",
                       .label = label,
                       .compare_name = compare,
                       .unit = unit,
                       .display_unit = "",
                       .default_value = kIsoflopsDefaults.synthetic.law.*Member,
                       .lo = 1e-9,
                       .hi = exponent ? 2.0 : 1e7,
                       .slider_lo = exponent ? 0.05 : 10,
                       .slider_hi = exponent ? 1.5 : 10'000,
                       .scale = exponent ? InputScale::linear : InputScale::log,
                       .ladder = exponent ? Ladder::multipleOf(0.001) : Ladder::significant(3),
                       .decimals = exponent ? 3 : 1,
                       .tooltip = tooltip,
                       .get = [](const S& s) { return s.isoflops.synthetic.law.*Member; },
                       .set = [](S& s, double v) { s.isoflops.synthetic.law.*Member = v; },
                       .edited = make_law_custom};
}

}  // namespace

std::span<const ScenarioInput> isoflops_inputs() {
  static const std::array kIsoflops{
      ScenarioInput{.key = "isoflops.ladder.synthetic.law.E",
                    .section = "isoflops.ladder.synthetic.law",
                    .json_key = "E",
                    .flag = "",
                    .label = "E",
                    .compare_name = "IsoFLOPs: law E",
                    .unit = "nats/token",
                    .display_unit = "nats",
                    .default_value = kIsoflopsDefaults.synthetic.law.E,
                    .lo = 1e-09,
                    .hi = 10,
                    .slider_lo = 0.5,
                    .slider_hi = 3.0,
                    .ladder = Ladder::multipleOf(0.001),
                    .decimals = 3,
                    .tooltip =
                        "Irreducible loss E (nats/token): the entropy of text no model removes. "
                        "Editing a constant makes the law custom.",
                    .get = [](const S& s) { return s.isoflops.synthetic.law.E; },
                    .set = [](S& s, double v) { s.isoflops.synthetic.law.E = v; },
                    .edited = make_law_custom},
      law_term<&LossLaw::A>("A", "A", "nats/token × parameters^α",
                            "Capacity coefficient A: the capacity term is A/N^α (nats/token)."),
      law_term<&LossLaw::alpha>("alpha", "α", "capacity exponent",
                                "Capacity exponent α (parameters). N_opt ∝ C^(β/(α+β))."),
      law_term<&LossLaw::B>("B", "B", "nats/token × tokens^β",
                            "Data coefficient B: the data term is B/D^β (nats/token)."),
      law_term<&LossLaw::beta>("beta", "β", "data exponent",
                               "Data exponent β (tokens). D_opt ∝ C^(α/(α+β))."),
      ScenarioInput{
          .key = "isoflops.ladder.synthetic.budgets",
          .section = "isoflops.ladder.synthetic",
          .json_key = "budgets",
          .flag = "",
          .label = "Budgets",
          .compare_name = "IsoFLOPs: budgets",
          .unit = "IsoFLOPs budgets",
          .display_unit = "",
          .type = InputType::count,
          .default_value = static_cast<double>(kIsoflopsDefaults.synthetic.n_budgets),
          .lo = 2,
          .hi = 20,
          .slider_lo = 2,
          .slider_hi = 10,
          .ladder = Ladder::multipleOf(1),
          .tooltip = "Number of IsoFLOPs budgets, spaced evenly in log C between the smallest and "
                     "the largest.",
          .get = [](const S& s) { return static_cast<double>(s.isoflops.synthetic.n_budgets); },
          .set =
              [](S& s, double v) {
                s.isoflops.synthetic.n_budgets = static_cast<int>(std::llround(v));
              }},
      ScenarioInput{
          .key = "isoflops.ladder.synthetic.budget_min_flops",
          .section = "isoflops.ladder.synthetic",
          .json_key = "budget_min_flops",
          .flag = "",
          .label = "Smallest C",
          .compare_name = "IsoFLOPs: smallest C",
          .unit = "FLOPs",
          .display_unit = "FLOPs",
          .default_value = kIsoflopsDefaults.synthetic.budget_min_flops,
          .lo = 1000000000000.0,
          .hi = 1e+26,
          .slider_lo = 1000000000000000.0,
          .slider_hi = 1e+23,
          .scale = InputScale::log,
          .ladder = Ladder::oneTwoFive(),
          .decimals = 2,
          .scientific = true,
          .tooltip = "The smallest budget of the ladder (FLOPs). Every run of a budget has 6ND = "
                     "C. Moved past the largest, it pushes the largest to 10 times itself.",
          .get = [](const S& s) { return s.isoflops.synthetic.budget_min_flops; },
          .set = [](S& s, double v) { s.isoflops.synthetic.budget_min_flops = v; },
          .edited = keep_budgets_apart_from_min},
      ScenarioInput{
          .key = "isoflops.ladder.synthetic.budget_max_flops",
          .section = "isoflops.ladder.synthetic",
          .json_key = "budget_max_flops",
          .flag = "",
          .label = "Largest C",
          .compare_name = "IsoFLOPs: largest C",
          .unit = "FLOPs",
          .display_unit = "FLOPs",
          .default_value = kIsoflopsDefaults.synthetic.budget_max_flops,
          .lo = 10000000000000.0,
          .hi = 1e+27,
          .slider_lo = 1e+16,
          .slider_hi = 1e+24,
          .scale = InputScale::log,
          .ladder = Ladder::oneTwoFive(),
          .decimals = 2,
          .scientific = true,
          .tooltip =
              "The largest budget of the ladder (FLOPs). The forecast extrapolates from here to "
              "C*. Moved below the smallest, it pushes the smallest to a tenth of itself.",
          .get = [](const S& s) { return s.isoflops.synthetic.budget_max_flops; },
          .set = [](S& s, double v) { s.isoflops.synthetic.budget_max_flops = v; },
          .edited = keep_budgets_apart_from_max},
      ScenarioInput{
          .key = "isoflops.ladder.synthetic.sizes_per_budget",
          .section = "isoflops.ladder.synthetic",
          .json_key = "sizes_per_budget",
          .flag = "",
          .label = "Sizes / budget",
          .compare_name = "IsoFLOPs: sizes per budget",
          .unit = "runs per budget",
          .display_unit = "",
          .type = InputType::count,
          .default_value = static_cast<double>(kIsoflopsDefaults.synthetic.sizes_per_budget),
          .lo = 3,
          .hi = 50,
          .slider_lo = 3,
          .slider_hi = 15,
          .ladder = Ladder::multipleOf(1),
          .tooltip =
              "Runs per budget (model sizes N), log-spaced around the true optimum; D = C/6N.",
          .get =
              [](const S& s) { return static_cast<double>(s.isoflops.synthetic.sizes_per_budget); },
          .set =
              [](S& s, double v) {
                s.isoflops.synthetic.sizes_per_budget = static_cast<int>(std::llround(v));
              }},
      ScenarioInput{
          .key = "isoflops.ladder.synthetic.size_span_decades",
          .section = "isoflops.ladder.synthetic",
          .json_key = "size_span_decades",
          .flag = "",
          .label = "Size span",
          .compare_name = "IsoFLOPs: size span",
          .unit = "decades of N",
          .display_unit = "decades",
          .default_value = kIsoflopsDefaults.synthetic.size_span_decades,
          .lo = 0.1,
          .hi = 5.0,
          .slider_lo = 0.3,
          .slider_hi = 3.0,
          .ladder = Ladder::multipleOf(0.1),
          .decimals = 1,
          .tooltip =
              "How many decades of N each budget's sweep covers, centred on the true optimum.",
          .get = [](const S& s) { return s.isoflops.synthetic.size_span_decades; },
          .set = [](S& s, double v) { s.isoflops.synthetic.size_span_decades = v; }},
      ScenarioInput{
          .key = "isoflops.ladder.synthetic.noise",
          .section = "isoflops.ladder.synthetic",
          .json_key = "noise",
          .flag = "",
          .label = "Noise σ",
          .compare_name = "IsoFLOPs: noise σ",
          .unit = "σ of log loss",
          .display_unit = "%",
          .default_value = kIsoflopsDefaults.synthetic.noise,
          .lo = 0,
          .hi = 1.0,
          .slider_lo = 0,
          .slider_hi = 0.1,
          .ladder = Ladder::multipleOf(0.0001),
          .decimals = 2,
          .display_factor = 100,
          .tooltip = "Multiplicative log-normal noise on every run's loss: L·exp(σz), σ in % of L.",
          .get = [](const S& s) { return s.isoflops.synthetic.noise; },
          .set = [](S& s, double v) { s.isoflops.synthetic.noise = v; }},
      ScenarioInput{
          .key = "isoflops.seed",
          .section = "isoflops",
          .json_key = "seed",
          .flag = "",
          .label = "Seed",
          .compare_name = "IsoFLOPs: seed",
          .unit = "seed",
          .display_unit = "",
          .type = InputType::count,
          .default_value = static_cast<double>(kIsoflopsDefaults.seed),
          .lo = 0,
          .hi = 1000000000000000.0,
          .slider_lo = 0,
          .slider_hi = 9'999,
          .ladder = Ladder::multipleOf(1),
          .tooltip =
              "Seeds the ladder's noise and the bootstrap's resampling: same seed, same bytes.",
          .get = [](const S& s) { return static_cast<double>(s.isoflops.seed); },
          .set = [](S& s, double v) { s.isoflops.seed = static_cast<std::uint64_t>(v); }},
      ScenarioInput{
          .key = "isoflops.ladder.synthetic.bias_nats",
          .section = "isoflops.ladder.synthetic",
          .json_key = "bias_nats",
          .flag = "",
          .label = "Bias strength",
          .compare_name = "IsoFLOPs: bias strength",
          .unit = "nats/token",
          .display_unit = "nats",
          .default_value = kIsoflopsDefaults.synthetic.bias_nats,
          .lo = 0,
          .hi = 1,
          .slider_lo = 0,
          .slider_hi = 0.2,
          .ladder = Ladder::multipleOf(0.005),
          .decimals = 3,
          .tooltip =
              "The schedule-mismatch penalty at D = 0 (nats/token); the seed's toy uses 0.15.",
          .get = [](const S& s) { return s.isoflops.synthetic.bias_nats; },
          .set = [](S& s, double v) { s.isoflops.synthetic.bias_nats = v; }},
      ScenarioInput{.key = "isoflops.ladder.synthetic.offset_nats",
                    .section = "isoflops.ladder.synthetic",
                    .json_key = "offset_nats",
                    .flag = "",
                    .label = "Offset",
                    .compare_name = "IsoFLOPs: offset",
                    .unit = "nats/token",
                    .display_unit = "nats",
                    .default_value = kIsoflopsDefaults.synthetic.offset_nats,
                    .lo = 0,
                    .hi = 1,
                    .slider_lo = 0,
                    .slider_hi = 0.3,
                    .ladder = Ladder::multipleOf(0.005),
                    .decimals = 3,
                    .tooltip = "The uniform offset added to every run (nats/token).",
                    .get = [](const S& s) { return s.isoflops.synthetic.offset_nats; },
                    .set = [](S& s, double v) { s.isoflops.synthetic.offset_nats = v; }},
      ScenarioInput{
          .key = "isoflops.ladder.loss_cut.max_loss",
          .section = "isoflops.ladder.loss_cut",
          .json_key = "max_loss",
          .flag = "",
          .label = "Loss cut",
          .compare_name = "IsoFLOPs: keep loss below",
          .unit = "nats/token",
          .display_unit = "",
          .default_value = kIsoflopsDefaults.loss_cut.max_loss,
          .lo = 1e-09,
          .hi = 100,
          .slider_lo = 1,
          .slider_hi = 10,
          .ladder = Ladder::multipleOf(0.01),
          .decimals = 4,
          .tooltip =
              "Runs of a loaded ladder at or above this loss (nats/token) are left out of the fit.",
          .get = [](const S& s) { return s.isoflops.loss_cut.max_loss; },
          .set = [](S& s, double v) { s.isoflops.loss_cut.max_loss = v; }},
      ScenarioInput{.key = "isoflops.fit.huber_delta",
                    .section = "isoflops.fit",
                    .json_key = "huber_delta",
                    .flag = "",
                    .label = "Huber δ",
                    .compare_name = "IsoFLOPs: Huber δ",
                    .unit = "log-loss units",
                    .display_unit = "",
                    .default_value = kIsoflopsDefaults.fit.huber_delta,
                    .lo = 1e-09,
                    .hi = 1,
                    .slider_lo = 1e-05,
                    .slider_hi = 0.1,
                    .scale = InputScale::log,
                    .ladder = Ladder::significant(2),
                    .decimals = 4,
                    .scientific = true,
                    .tooltip =
                        "Huber threshold δ on log residuals: quadratic below δ, linear beyond "
                        "(default 1e-3).",
                    .get = [](const S& s) { return s.isoflops.fit.huber_delta; },
                    .set = [](S& s, double v) { s.isoflops.fit.huber_delta = v; }},
      ScenarioInput{
          .key = "isoflops.fit.resamples",
          .section = "isoflops.fit",
          .json_key = "resamples",
          .flag = "",
          .label = "Resamples",
          .compare_name = "IsoFLOPs: bootstrap resamples",
          .unit = "bootstrap resamples",
          .display_unit = "",
          .type = InputType::count,
          .default_value = static_cast<double>(kIsoflopsDefaults.fit.resamples),
          .lo = 10,
          .hi = 100'000,
          .slider_lo = 20,
          .slider_hi = 2'000,
          .scale = InputScale::log,
          .ladder = Ladder::oneTwoFive(),
          .tooltip = "Bootstrap resamples: refit the law on the ladder resampled with replacement, "
                     "forecast the optimal loss at C*, take the 2.5–97.5 % percentiles.",
          .get = [](const S& s) { return static_cast<double>(s.isoflops.fit.resamples); },
          .set = [](S& s,
                    double v) { s.isoflops.fit.resamples = static_cast<int>(std::llround(v)); }},
      ScenarioInput{
          .key = "isoflops.target.manual_target_flops",
          .section = "isoflops.target",
          .json_key = "manual_target_flops",
          .flag = "",
          .label = "Target C*",
          .compare_name = "IsoFLOPs: manual target C*",
          .unit = "FLOPs",
          .display_unit = "FLOPs",
          .default_value = kIsoflopsDefaults.manual_target_flops,
          .lo = 1000000000000.0,
          .hi = 1e+32,
          .slider_lo = 1e+18,
          .slider_hi = 1e+28,
          .scale = InputScale::log,
          .ladder = Ladder::oneTwoFive(),
          .decimals = 2,
          .scientific = true,
          .tooltip = "The compute of the run you can afford once (FLOPs), when not following the "
                     "Budget panel.",
          .get = [](const S& s) { return s.isoflops.manual_target_flops; },
          .set = [](S& s, double v) { s.isoflops.manual_target_flops = v; }},
      ScenarioInput{
          .key = "isoflops.candidate.a_multiplier",
          .section = "isoflops.candidate",
          .json_key = "a_multiplier",
          .flag = "",
          .label = "Candidate A ×",
          .compare_name = "IsoFLOPs: candidate A ×",
          .unit = "× A",
          .display_unit = "",
          .default_value = kIsoflopsDefaults.candidate.a_multiplier,
          .lo = 0.01,
          .hi = 100,
          .slider_lo = 0.25,
          .slider_hi = 4,
          .scale = InputScale::log,
          .ladder = Ladder::significant(2),
          .decimals = 3,
          .tooltip =
              "Multiplies the candidate's capacity coefficient A (< 1: a better architecture).",
          .get = [](const S& s) { return s.isoflops.candidate.a_multiplier; },
          .set = [](S& s, double v) { s.isoflops.candidate.a_multiplier = v; }},
      ScenarioInput{.key = "isoflops.candidate.b_multiplier",
                    .section = "isoflops.candidate",
                    .json_key = "b_multiplier",
                    .flag = "",
                    .label = "Candidate B ×",
                    .compare_name = "IsoFLOPs: candidate B ×",
                    .unit = "× B",
                    .display_unit = "",
                    .default_value = kIsoflopsDefaults.candidate.b_multiplier,
                    .lo = 0.01,
                    .hi = 100,
                    .slider_lo = 0.25,
                    .slider_hi = 4,
                    .scale = InputScale::log,
                    .ladder = Ladder::significant(2),
                    .decimals = 3,
                    .tooltip = "Multiplies the candidate's data coefficient B (< 1: better data).",
                    .get = [](const S& s) { return s.isoflops.candidate.b_multiplier; },
                    .set = [](S& s, double v) { s.isoflops.candidate.b_multiplier = v; }},
      ScenarioInput{
          .key = "isoflops.candidate.alpha_delta",
          .section = "isoflops.candidate",
          .json_key = "alpha_delta",
          .flag = "",
          .label = "Candidate Δα",
          .compare_name = "IsoFLOPs: candidate Δα",
          .unit = "added to α",
          .display_unit = "",
          .default_value = kIsoflopsDefaults.candidate.alpha_delta,
          .lo = -0.5,
          .hi = 0.5,
          .slider_lo = -0.1,
          .slider_hi = 0.1,
          .ladder = Ladder::multipleOf(0.005),
          .decimals = 3,
          .tooltip =
              "Added to the candidate's capacity exponent α (> 0: gains more from parameters).",
          .get = [](const S& s) { return s.isoflops.candidate.alpha_delta; },
          .set = [](S& s, double v) { s.isoflops.candidate.alpha_delta = v; }},
      ScenarioInput{
          .key = "isoflops.candidate.beta_delta",
          .section = "isoflops.candidate",
          .json_key = "beta_delta",
          .flag = "",
          .label = "Candidate Δβ",
          .compare_name = "IsoFLOPs: candidate Δβ",
          .unit = "added to β",
          .display_unit = "",
          .default_value = kIsoflopsDefaults.candidate.beta_delta,
          .lo = -0.5,
          .hi = 0.5,
          .slider_lo = -0.1,
          .slider_hi = 0.1,
          .ladder = Ladder::multipleOf(0.005),
          .decimals = 3,
          .tooltip = "Added to the candidate's data exponent β (< 0: gains less from tokens).",
          .get = [](const S& s) { return s.isoflops.candidate.beta_delta; },
          .set = [](S& s, double v) { s.isoflops.candidate.beta_delta = v; }},

  };
  return kIsoflops;
}

}  // namespace napkin::detail
