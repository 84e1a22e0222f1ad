#include "isoflops/IsoflopsControls.h"
#include "Text.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <string>

#include "ControlColumn.h"
#include "ScenarioBinding.h"
#include "ScenarioControls.h"

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

using S = Scenario;

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
  // A registered input of the synthetic ladder, by its member's name there.
  SliderSpin* synthetic(int field, const char* member, const QString& control_key) const {
    return declareInput(col, m, field, "isoflops.ladder.synthetic." + std::string(member),
                        control_key);
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
  c.loss_cut = declareSwitch(col, m, kLossCut, "isoflops.ladder.loss_cut.enabled",
                             QStringLiteral("csvFilter"));
  c.max_loss = declareInput(col, m, kMaxLoss, "isoflops.ladder.loss_cut.max_loss",
                            QStringLiteral("csvMaxLoss"));
}

void Declarer::law() {
  c.synthetic_only << col->group(tr("Ground-truth law (synthetic ladder)"));
  c.law =
      declareChoice(col, m, kLaw, "isoflops.ladder.synthetic.law_preset", QStringLiteral("law"));
  c.E = synthetic(kE, "law.E", QStringLiteral("E"));
  c.A = synthetic(kA, "law.A", QStringLiteral("A"));
  c.alpha = synthetic(kAlpha, "law.alpha", QStringLiteral("alpha"));
  c.B = synthetic(kB, "law.B", QStringLiteral("B"));
  c.beta = synthetic(kBeta, "law.beta", QStringLiteral("beta"));
}

void Declarer::design() {
  c.synthetic_only << col->group(tr("Synthetic ladder"));
  c.budgets = synthetic(kBudgets, "budgets", QStringLiteral("budgets"));
  // Moving one budget past the other pushes it along (one undo step; the
  // registry's edit rule).
  c.budget_min = synthetic(kBudgetMin, "budget_min_flops", QStringLiteral("budget_min"));
  c.budget_max = synthetic(kBudgetMax, "budget_max_flops", QStringLiteral("budget_max"));
  c.sizes = synthetic(kSizes, "sizes_per_budget", QStringLiteral("sizes"));
  c.span = synthetic(kSpan, "size_span_decades", QStringLiteral("span"));
  c.noise = synthetic(kNoise, "noise", QStringLiteral("noise"));
  c.seed = declareInput(col, m, kSeed, "isoflops.seed", QStringLiteral("seed"));
  c.outlier = declareSwitch(col, m, kOutlier, "isoflops.ladder.synthetic.outlier",
                            QStringLiteral("outlier"));
}

void Declarer::lesson() {
  c.synthetic_only << col->group(tr("Kaplan → Chinchilla: the LR-decay bias"));
  c.bias =
      declareSwitch(col, m, kBias, "isoflops.ladder.synthetic.bias_on", QStringLiteral("bias"));
  c.bias_nats = synthetic(kBiasNats, "bias_nats", QStringLiteral("bias_nats"));
  c.bias_mode = declareChoice(col, m, kBiasMode, "isoflops.ladder.synthetic.bias_mode",
                              QStringLiteral("bias_mode"));
  c.offset = declareSwitch(col, m, kOffset, "isoflops.ladder.synthetic.offset_on",
                           QStringLiteral("offset"));
  c.offset_nats = synthetic(kOffsetNats, "offset_nats", QStringLiteral("offset_nats"));
}

void Declarer::fit() {
  col->group(tr("Fit and forecast"));
  c.estimator =
      declareChoice(col, m, kEstimator, "isoflops.fit.estimator", QStringLiteral("estimator"));
  // δ is shown as the number the fit uses (no display factor), on a ladder
  // of two significant digits: 1e-3, 1.3e-3, 2e-3 …
  c.delta = declareInput(col, m, kDelta, "isoflops.fit.huber_delta", QStringLiteral("delta"));
  c.resamples =
      declareInput(col, m, kResamples, "isoflops.fit.resamples", QStringLiteral("resamples"));
  c.follow =
      declareSwitch(col, m, kFollow, "isoflops.target.follows_budget", QStringLiteral("follow"));
  c.target = declareInput(col, m, kTarget, "isoflops.target.manual_target_flops",
                          QStringLiteral("target"));
}

void Declarer::decision() {
  col->group(tr("Candidate recipe (plot 5)"));
  c.candidate =
      declareChoice(col, m, kCandidate, "isoflops.candidate.preset", QStringLiteral("candidate"));
  auto cand = [&](int field, const char* member, const QString& control_key) {
    return declareInput(col, m, field, "isoflops.candidate." + std::string(member), control_key);
  };
  c.cand_a = cand(kCandA, "a_multiplier", QStringLiteral("cand_a"));
  c.cand_b = cand(kCandB, "b_multiplier", QStringLiteral("cand_b"));
  c.cand_dalpha = cand(kCandDalpha, "alpha_delta", QStringLiteral("cand_dalpha"));
  c.cand_dbeta = cand(kCandDbeta, "beta_delta", QStringLiteral("cand_dbeta"));
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
