#include "isoflops/IsoflopsControls.h"
#include "Text.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>

#include "ControlColumn.h"
#include "ScenarioBinding.h"

namespace napkin {

namespace {

// Field ids of the IsoFLOPs panel (240..279): the edits of one slider drag
// merge into one undo step.
enum Field {
  kLossCut = 240,
  kMaxLoss,
  kLaw,
  kE,
  kA,
  kAlpha,
  kB,
  kBeta,
  kBudgets,
  kBudgetMin,
  kBudgetMax,
  kSizes,
  kSpan,
  kNoise,
  kSeed,
  kOutlier,
  kBias,
  kBiasNats,
  kBiasMode,
  kOffset,
  kOffsetNats,
  kEstimator,
  kDelta,
  kResamples,
  kFollow,
  kTarget,
  kCandidate,
  kCandA,
  kCandB,
  kCandDalpha,
  kCandDbeta
};

QString tr(const char* text) {
  return QCoreApplication::translate("napkin::IsoflopsControls", text);
}

using Scale = SliderSpin::Scale;
using S = Scenario;

// The smallest ratio kept between the ladder's largest and smallest budget.
constexpr double kMinBudgetRatio = 3.0;

}  // namespace

namespace {

// Declares the panel's controls a group at a time, in the column's order.
class Declarer : ControlDeclarer<IsoflopsControls> {
 public:
  using ControlDeclarer::ControlDeclarer;

  // Where the ladder comes from: the source, the CSV loader, the loss cut.
  void source();
  // The ground-truth law the synthetic ladder is drawn from.
  void law();
  // The synthetic ladder's design: budgets, sizes, noise, seed.
  void design();
  // The lesson: the LR-decay bias and the uniform offset.
  void lesson();
  // The fit and the forecast: estimator, δ, resamples, target.
  void fit();
  // The decision: the candidate recipe against the fitted law.
  void decision();

 private:
  auto bind(int field, const QString& label, std::function<double(const S&)> get,
            std::function<void(S&, double)> set) const {
    return scenarioBinding<double>(m, field, label, std::move(get), std::move(set));
  }
  auto bindCheck(int field, const QString& label, std::function<bool(const S&)> get,
                 std::function<void(S&, bool)> set) const {
    return scenarioBinding<bool>(m, field, label, std::move(get), std::move(set));
  }
  auto bindCombo(int field, const QString& label, std::function<QVariant(const S&)> get,
                 std::function<void(S&, QVariant)> set) const {
    return scenarioBinding<QVariant>(m, field, label, std::move(get), std::move(set));
  }
};

void Declarer::source() {
  QGroupBox* box = col->group(tr("Ladder source"));
  auto* layout = static_cast<QVBoxLayout*>(box->layout());
  c.source = new QLabel(box);
  c.source->setObjectName(QStringLiteral("sourceLabel"));
  c.source->setWordWrap(true);
  c.source->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(c.source);
  auto* row = new QWidget(box);
  auto* h = new QHBoxLayout(row);
  h->setContentsMargins(0, 0, 0, 0);
  c.load_csv = new QPushButton(tr("Load ladder CSV…"), row);
  c.load_csv->setObjectName(QStringLiteral("loadCsv"));
  c.load_csv->setToolTip(
      tr("Fit a ladder of real runs instead of the synthetic one: a dialog previews the file, "
         "guesses which column is N, D (or C), loss and the budget label, and lists the rows "
         "it will skip and why. The accepted ladder is saved in the scenario."));
  c.use_synthetic = new QPushButton(tr("Use synthetic ladder"), row);
  c.use_synthetic->setObjectName(QStringLiteral("useSynthetic"));
  c.use_synthetic->setToolTip(
      tr("Go back to the synthetic ladder drawn from the ground-truth law below."));
  h->addWidget(c.load_csv);
  h->addWidget(c.use_synthetic);
  layout->addWidget(row);
  c.loss_cut = col->check(
      {.key = QStringLiteral("csvFilter"),
       .label = tr("Keep only runs with loss below the cut"),
       .tooltip = tr("A loaded ladder keeps only the runs with loss below the cut (nats/token). "
                     "Besiroglu et al. drop the 5 worst runs of the Chinchilla data, keeping the "
                     "240 below 3.4469.")},
      bindCheck(
          kLossCut, tr("loss cut"), [](const S& s) { return s.isoflops.loss_cut.enabled; },
          [](S& s, bool on) { s.isoflops.loss_cut.enabled = on; }));
  c.max_loss = col->slider(
      {.key = QStringLiteral("csvMaxLoss"),
       .label = tr("Loss cut"),
       .unit = tr("nats"),
       .min = 1,
       .max = 10,
       .ladder = Ladder::multipleOf(0.01),
       .decimals = 4,
       .tooltip = tr("Runs of a loaded ladder at or above this loss (nats/token) are left out "
                     "of the fit.")},
      numberBinding(
          m, kMaxLoss, tr("Loss cut"),
          [](auto& s) -> auto& { return s.isoflops.loss_cut.max_loss; }));
}

void Declarer::law() {
  c.synthetic_only << col->group(tr("Ground-truth law (synthetic ladder)"));
  c.law = col->combo(
      {.key = QStringLiteral("law"),
       .label = tr("Law"),
       .tooltip = tr("The law the synthetic ladder is drawn from: L = E + A/N^α + B/D^β "
                     "(nats/token). Chinchilla Approach 3 (Hoffmann et al. 2022) or the "
                     "Besiroglu et al. 2024 replication; editing a constant makes it custom."),
       .items = {{tr("Chinchilla Approach 3"), qs(to_string(LawPreset::chinchilla_approach3))},
                 {tr("Besiroglu et al. 2024 replication"), qs(to_string(LawPreset::besiroglu2024))},
                 {tr("Custom"), qs(to_string(LawPreset::custom))}}},
      bindCombo(
          kLaw, tr("Law"),
          [](const S& s) { return QVariant(qs(to_string(s.isoflops.synthetic.law_preset))); },
          [](S& s, QVariant v) {
            SyntheticLadderSettings& l = s.isoflops.synthetic;
            l.law_preset = parse_law_preset(v.toString().toStdString());
            if (l.law_preset != LawPreset::custom) l.law = law_of(l.law_preset);
          }));
  auto law = [&](const SliderDecl& d, int field, double LossLaw::*member) {
    return col->slider(
        d, bind(
               field, d.label, [member](const S& s) { return s.isoflops.synthetic.law.*member; },
               [member](S& s, double v) {
                 s.isoflops.synthetic.law.*member = v;
                 s.isoflops.synthetic.law_preset = LawPreset::custom;
               }));
  };
  c.E = law({.key = QStringLiteral("E"),
             .label = tr("E"),
             .unit = tr("nats"),
             .min = 0.5,
             .max = 3.0,
             .ladder = Ladder::multipleOf(0.001),
             .decimals = 3,
             .tooltip = tr("Irreducible loss E (nats/token): the entropy of text no model "
                           "removes.")},
            kE, &LossLaw::E);
  c.A = law({.key = QStringLiteral("A"),
             .label = tr("A"),
             .min = 10,
             .max = 10000,
             .scale = Scale::log,
             .ladder = Ladder::significant(3),
             .decimals = 1,
             .tooltip = tr("Capacity coefficient A: the capacity term is A/N^α (nats/token).")},
            kA, &LossLaw::A);
  c.alpha = law({.key = QStringLiteral("alpha"),
                 .label = tr("α"),
                 .min = 0.05,
                 .max = 1.5,
                 .ladder = Ladder::multipleOf(0.001),
                 .decimals = 3,
                 .tooltip = tr("Capacity exponent α (parameters). N_opt ∝ C^(β/(α+β)).")},
                kAlpha, &LossLaw::alpha);
  c.B = law({.key = QStringLiteral("B"),
             .label = tr("B"),
             .min = 10,
             .max = 10000,
             .scale = Scale::log,
             .ladder = Ladder::significant(3),
             .decimals = 1,
             .tooltip = tr("Data coefficient B: the data term is B/D^β (nats/token).")},
            kB, &LossLaw::B);
  c.beta = law({.key = QStringLiteral("beta"),
                .label = tr("β"),
                .min = 0.05,
                .max = 1.5,
                .ladder = Ladder::multipleOf(0.001),
                .decimals = 3,
                .tooltip = tr("Data exponent β (tokens). D_opt ∝ C^(α/(α+β)).")},
               kBeta, &LossLaw::beta);
}

void Declarer::design() {
  c.synthetic_only << col->group(tr("Synthetic ladder"));
  c.budgets = col->slider(
      {.key = QStringLiteral("budgets"),
       .label = tr("Budgets"),
       .min = 2,
       .max = 10,
       .ladder = Ladder::multipleOf(1),
       .integer = true,
       .tooltip = tr("Number of IsoFLOPs budgets, spaced evenly in log C between the smallest "
                     "and the largest.")},
      bind(
          kBudgets, tr("Budgets"),
          [](const S& s) { return static_cast<double>(s.isoflops.synthetic.n_budgets); },
          [](S& s, double v) { s.isoflops.synthetic.n_budgets = static_cast<int>(v); }));
  // The smallest and largest budget stay at least kMinBudgetRatio apart:
  // moving one past the other pushes it along (one undo step).
  c.budget_min = col->slider(
      {.key = QStringLiteral("budget_min"),
       .label = tr("Smallest C"),
       .unit = tr("FLOPs"),
       .min = 1e15,
       .max = 1e23,
       .scale = Scale::log,
       .ladder = Ladder::oneTwoFive(),
       .decimals = 2,
       .scientific = true,
       .tooltip = tr("The smallest budget of the ladder (FLOPs). Every run of a budget has 6ND "
                     "= C.")},
      bind(
          kBudgetMin, tr("Smallest C"),
          [](const S& s) { return s.isoflops.synthetic.budget_min_flops; },
          [](S& s, double v) {
            SyntheticLadderSettings& l = s.isoflops.synthetic;
            l.budget_min_flops = v;
            if (l.budget_max_flops < v * kMinBudgetRatio) l.budget_max_flops = v * 10.0;
          }));
  c.budget_max = col->slider(
      {.key = QStringLiteral("budget_max"),
       .label = tr("Largest C"),
       .unit = tr("FLOPs"),
       .min = 1e16,
       .max = 1e24,
       .scale = Scale::log,
       .ladder = Ladder::oneTwoFive(),
       .decimals = 2,
       .scientific = true,
       .tooltip = tr("The largest budget of the ladder (FLOPs). The forecast extrapolates from "
                     "here to C*.")},
      bind(
          kBudgetMax, tr("Largest C"),
          [](const S& s) { return s.isoflops.synthetic.budget_max_flops; },
          [](S& s, double v) {
            SyntheticLadderSettings& l = s.isoflops.synthetic;
            l.budget_max_flops = v;
            if (l.budget_min_flops > v / kMinBudgetRatio) l.budget_min_flops = v / 10.0;
          }));
  c.sizes = col->slider(
      {.key = QStringLiteral("sizes"),
       .label = tr("Sizes / budget"),
       .min = 3,
       .max = 15,
       .ladder = Ladder::multipleOf(1),
       .integer = true,
       .tooltip = tr("Runs per budget (model sizes N), log-spaced around the true optimum; D = "
                     "C/6N.")},
      bind(
          kSizes, tr("Sizes / budget"),
          [](const S& s) { return static_cast<double>(s.isoflops.synthetic.sizes_per_budget); },
          [](S& s, double v) { s.isoflops.synthetic.sizes_per_budget = static_cast<int>(v); }));
  c.span = col->slider(
      {.key = QStringLiteral("span"),
       .label = tr("Size span"),
       .unit = tr("decades"),
       .min = 0.3,
       .max = 3.0,
       .ladder = Ladder::multipleOf(0.1),
       .decimals = 1,
       .tooltip = tr("How many decades of N each budget's sweep covers, centred on the true "
                     "optimum.")},
      numberBinding(
          m, kSpan, tr("Size span"),
          [](auto& s) -> auto& { return s.isoflops.synthetic.size_span_decades; }));
  c.noise = col->slider(
      {.key = QStringLiteral("noise"),
       .label = tr("Noise σ"),
       .unit = QStringLiteral("%"),
       .min = 0.0,
       .max = 0.1,
       .ladder = Ladder::multipleOf(0.0001),
       .decimals = 2,
       .display_factor = 100,
       .tooltip = tr("Multiplicative log-normal noise on every run's loss: L·exp(σz), σ in % of "
                     "L.")},
      numberBinding(
          m, kNoise, tr("Noise σ"), [](auto& s) -> auto& { return s.isoflops.synthetic.noise; }));
  c.seed = col->slider(
      {.key = QStringLiteral("seed"),
       .label = tr("Seed"),
       .min = 0,
       .max = 9999,
       .ladder = Ladder::multipleOf(1),
       .integer = true,
       .tooltip = tr("Seeds the ladder's noise and the bootstrap's resampling: same seed, same "
                     "bytes.")},
      bind(
          kSeed, tr("Seed"), [](const S& s) { return static_cast<double>(s.isoflops.seed); },
          [](S& s, double v) { s.isoflops.seed = static_cast<std::uint64_t>(v); }));
  c.outlier = col->check(
      {.key = QStringLiteral("outlier"),
       .label = tr("Inject a diverged run (+1.5 nats outlier)"),
       .tooltip = tr("One run of the ladder gets +1.5 nats, as a diverged run would: the Huber "
                     "estimator shrugs it off, least squares does not.")},
      bindCheck(
          kOutlier, tr("outlier"), [](const S& s) { return s.isoflops.synthetic.outlier; },
          [](S& s, bool on) { s.isoflops.synthetic.outlier = on; }));
}

void Declarer::lesson() {
  c.synthetic_only << col->group(tr("Kaplan → Chinchilla: the LR-decay bias"));
  c.bias = col->check(
      {.key = QStringLiteral("bias"),
       .label = tr("Inject the LR-decay (schedule-mismatch) bias"),
       .tooltip = tr("Read runs off a cosine schedule planned for a longer horizon, as Kaplan et "
                     "al. did: a run at D of a schedule for D_sched is penalized bias·(1 − "
                     "D/D_sched) nats. The bias is not uniform, so it tilts the exponents and "
                     "moves N_opt.")},
      bindCheck(
          kBias, tr("LR-decay bias"), [](const S& s) { return s.isoflops.synthetic.bias_on; },
          [](S& s, bool on) { s.isoflops.synthetic.bias_on = on; }));
  c.bias_nats = col->slider(
      {.key = QStringLiteral("bias_nats"),
       .label = tr("Bias strength"),
       .unit = tr("nats"),
       .min = 0.0,
       .max = 0.2,
       .ladder = Ladder::multipleOf(0.005),
       .decimals = 3,
       .tooltip = tr("The schedule-mismatch penalty at D = 0 (nats/token); the seed's toy uses "
                     "0.15.")},
      numberBinding(
          m, kBiasNats, tr("Bias strength"),
          [](auto& s) -> auto& { return s.isoflops.synthetic.bias_nats; }));
  c.bias_mode = col->combo(
      {.key = QStringLiteral("bias_mode"),
       .label = tr("Design"),
       .tooltip = tr("fixed_schedule: one schedule for the whole ladder, planned for its "
                     "longest run (Kaplan's design). per_budget: each budget's runs share a "
                     "schedule planned for that budget's longest run."),
       .items = {{QStringLiteral("fixed_schedule"), qs(to_string(BiasMode::fixed_schedule))},
                 {QStringLiteral("per_budget"), qs(to_string(BiasMode::per_budget))}}},
      bindCombo(
          kBiasMode, tr("bias design"),
          [](const S& s) { return QVariant(qs(to_string(s.isoflops.synthetic.bias_mode))); },
          [](S& s, QVariant v) {
            s.isoflops.synthetic.bias_mode = parse_bias_mode(v.toString().toStdString());
          }));
  c.offset = col->check(
      {.key = QStringLiteral("offset"),
       .label = tr("Inject a uniform offset (the control)"),
       .tooltip = tr("Add the same number of nats to every run: the fit absorbs it into E and "
                     "no exponent, no vertex and no recommendation moves.")},
      bindCheck(
          kOffset, tr("uniform offset"), [](const S& s) { return s.isoflops.synthetic.offset_on; },
          [](S& s, bool on) { s.isoflops.synthetic.offset_on = on; }));
  c.offset_nats =
      col->slider({.key = QStringLiteral("offset_nats"),
                   .label = tr("Offset"),
                   .unit = tr("nats"),
                   .min = 0.0,
                   .max = 0.3,
                   .ladder = Ladder::multipleOf(0.005),
                   .decimals = 3,
                   .tooltip = tr("The uniform offset added to every run (nats/token).")},
                  numberBinding(
                      m, kOffsetNats, tr("Offset"),
                      [](auto& s) -> auto& { return s.isoflops.synthetic.offset_nats; }));
}

void Declarer::fit() {
  col->group(tr("Fit and forecast"));
  c.estimator = col->combo(
      {.key = QStringLiteral("estimator"),
       .label = tr("Estimator"),
       .tooltip = tr("How L = E + A/N^α + B/D^β is fitted: Huber on log residuals (Hoffmann et "
                     "al., Besiroglu et al.; L-BFGS from a 4,500-point grid), least squares on "
                     "log L or on L, or the seed's toy coordinate descent (kept for comparison: "
                     "it barely moves α and β)."),
       .items = {{tr("huber-log — Huber on log L"), qs(to_string(Estimator::huber_log))},
                 {tr("ls-log — least squares on log L"), qs(to_string(Estimator::ls_log))},
                 {tr("ls-linear — least squares on L"), qs(to_string(Estimator::ls_linear))},
                 {tr("seed-cd — the seed's toy"), qs(to_string(Estimator::seed_cd))}}},
      bindCombo(
          kEstimator, tr("estimator"),
          [](const S& s) { return QVariant(qs(to_string(s.isoflops.fit.estimator))); },
          [](S& s, QVariant v) {
            s.isoflops.fit.estimator = parse_estimator(v.toString().toStdString());
          }));
  // δ is shown as the number the fit uses (no display factor), on a ladder
  // of two significant digits: 1e-3, 1.3e-3, 2e-3 …
  c.delta = col->slider(
      {.key = QStringLiteral("delta"),
       .label = tr("Huber δ"),
       .min = 1e-5,
       .max = 0.1,
       .scale = Scale::log,
       .ladder = Ladder::significant(2),
       .decimals = 4,
       .scientific = true,
       .tooltip = tr("Huber threshold δ on log residuals: quadratic below δ, linear beyond "
                     "(default 1e-3).")},
      numberBinding(
          m, kDelta, tr("Huber δ"), [](auto& s) -> auto& { return s.isoflops.fit.huber_delta; }));
  c.resamples = col->slider(
      {.key = QStringLiteral("resamples"),
       .label = tr("Resamples"),
       .min = 20,
       .max = 2000,
       .scale = Scale::log,
       .ladder = Ladder::oneTwoFive(),
       .integer = true,
       .tooltip = tr("Bootstrap resamples: refit the law on the ladder resampled with "
                     "replacement, forecast the optimal loss at C*, take the 2.5–97.5 % "
                     "percentiles.")},
      bind(
          kResamples, tr("Resamples"),
          [](const S& s) { return static_cast<double>(s.isoflops.fit.resamples); },
          [](S& s, double v) { s.isoflops.fit.resamples = static_cast<int>(v); }));
  c.follow = col->check(
      {.key = QStringLiteral("follow"),
       .label = tr("Target C* follows the Budget panel's C"),
       .tooltip = tr("C* = chips × peak FLOP/s × MFU × days × 86,400 s of the shared scenario "
                     "(the Budget panel). Untick to set C* by hand.")},
      bindCheck(
          kFollow, tr("target follows budget"),
          [](const S& s) { return s.isoflops.target_follows_budget; },
          [](S& s, bool on) { s.isoflops.target_follows_budget = on; }));
  c.target = col->slider(
      {.key = QStringLiteral("target"),
       .label = tr("Target C*"),
       .unit = tr("FLOPs"),
       .min = 1e18,
       .max = 1e28,
       .scale = Scale::log,
       .ladder = Ladder::oneTwoFive(),
       .decimals = 2,
       .scientific = true,
       .tooltip = tr("The compute of the run you can afford once (FLOPs), when not following "
                     "the Budget panel.")},
      numberBinding(
          m, kTarget, tr("Target C*"),
          [](auto& s) -> auto& { return s.isoflops.manual_target_flops; }));
}

void Declarer::decision() {
  col->group(tr("Candidate recipe (plot 5)"));
  c.candidate = col->combo(
      {.key = QStringLiteral("candidate"),
       .label = tr("Candidate"),
       .tooltip = tr("The recipe compared with the fitted law (the baseline) at C*: the "
                     "baseline itself, a candidate better per parameter and worse per token (E "
                     "1.69, A 500, α 0.38, B 380, β 0.26) or a published law, then perturbed by "
                     "the four controls below."),
       .items = {{tr("The fitted law, perturbed"), qs(to_string(CandidatePreset::fitted_law))},
                 {tr("Trade-off candidate (α .38, β .26)"),
                  qs(to_string(CandidatePreset::seed_candidate))},
                 {tr("Chinchilla Approach 3"),
                  qs(to_string(CandidatePreset::chinchilla_approach3))},
                 {tr("Besiroglu et al. 2024"), qs(to_string(CandidatePreset::besiroglu2024))}}},
      bindCombo(
          kCandidate, tr("candidate"),
          [](const S& s) { return QVariant(qs(to_string(s.isoflops.candidate.preset))); },
          [](S& s, QVariant v) {
            s.isoflops.candidate.preset = parse_candidate_preset(v.toString().toStdString());
          }));
  auto cand = [&](const SliderDecl& d, int field, double CandidateRecipe::*member) {
    return col->slider(
        d, bind(
               field, d.label, [member](const S& s) { return s.isoflops.candidate.*member; },
               [member](S& s, double v) { s.isoflops.candidate.*member = v; }));
  };
  c.cand_a = cand({.key = QStringLiteral("cand_a"),
                   .label = tr("Candidate A ×"),
                   .min = 0.25,
                   .max = 4,
                   .scale = Scale::log,
                   .ladder = Ladder::significant(2),
                   .decimals = 3,
                   .tooltip = tr("Multiplies the candidate's capacity coefficient A (< 1: a "
                                 "better architecture).")},
                  kCandA, &CandidateRecipe::a_multiplier);
  c.cand_b = cand({.key = QStringLiteral("cand_b"),
                   .label = tr("Candidate B ×"),
                   .min = 0.25,
                   .max = 4,
                   .scale = Scale::log,
                   .ladder = Ladder::significant(2),
                   .decimals = 3,
                   .tooltip = tr("Multiplies the candidate's data coefficient B (< 1: better "
                                 "data).")},
                  kCandB, &CandidateRecipe::b_multiplier);
  c.cand_dalpha = cand({.key = QStringLiteral("cand_dalpha"),
                        .label = tr("Candidate Δα"),
                        .min = -0.1,
                        .max = 0.1,
                        .ladder = Ladder::multipleOf(0.005),
                        .decimals = 3,
                        .tooltip = tr("Added to the candidate's capacity exponent α (> 0: gains "
                                      "more from parameters).")},
                       kCandDalpha, &CandidateRecipe::alpha_delta);
  c.cand_dbeta = cand({.key = QStringLiteral("cand_dbeta"),
                       .label = tr("Candidate Δβ"),
                       .min = -0.1,
                       .max = 0.1,
                       .ladder = Ladder::multipleOf(0.005),
                       .decimals = 3,
                       .tooltip = tr("Added to the candidate's data exponent β (< 0: gains less "
                                     "from tokens).")},
                      kCandDbeta, &CandidateRecipe::beta_delta);
  col->finish();
}

}  // namespace

IsoflopsControls IsoflopsControls::declare(ControlColumn* col, ScenarioModel* m) {
  IsoflopsControls c;
  Declarer d(c, col, m);
  d.source();
  d.law();
  d.design();
  d.lesson();
  d.fit();
  d.decision();
  return c;
}

void IsoflopsControls::updateEnabled(const Scenario& s) const {
  const IsoflopsSettings& i = s.isoflops;
  const bool synthetic = !i.loaded.has_value();
  for (QWidget* w : synthetic_only) w->setEnabled(synthetic);
  use_synthetic->setEnabled(!synthetic);
  // Synthetic: the check box reads what is in use (no cut); the next sync
  // shows the kept setting again.
  QString why;
  if (synthetic)
    why = i.loss_cut.enabled
              ? tr("The synthetic ladder is not cut. The cut below %1 nats is kept for the next "
                   "loaded ladder.")
                    .arg(fixed(i.loss_cut.max_loss, 4))
              : tr("The synthetic ladder is not cut.");
  setCheckUnused(loss_cut, why, false);
  max_loss->setUnused(why);
  if (!synthetic) max_loss->setEnabled(i.loss_cut.enabled);
  delta->setEnabled(i.fit.estimator == Estimator::huber_log ||
                    i.fit.estimator == Estimator::seed_cd);
  target->setEnabled(!i.target_follows_budget);
}

}  // namespace napkin
