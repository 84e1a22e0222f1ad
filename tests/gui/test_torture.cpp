// UI torture: thousands of random control changes across all four panels —
// sliders to both ends, random presets and combo entries, check boxes, undo
// and redo storms, bad files — checking after each that nothing crashed, no
// read-out shows nan, inf or an empty string, and the Budget read-outs still
// equal the model's numbers for the current scenario.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QRegularExpression>
#include <QSlider>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <random>

#include "SliderSpin.h"
#include "Text.h"
#include "budget.h"
#include "budget/BudgetPanel.h"
#include "budget_view.h"
#include "format.h"
#include "hardware.h"
#include "isoflops/IsoflopsPanel.h"
#include "moe/MoePanel.h"
#include "parallel_view.h"
#include "plan.h"
#include "roofline/RooflinePanel.h"
#include "shell/MainWindow.h"

using namespace napkin;

namespace {

int changeCount() {
  bool ok = false;
  const int n = qEnvironmentVariableIntValue("NAPKIN_TORTURE_CHANGES", &ok);
  return ok && n > 0 ? n : 4000;
}

QString badReadout(const QStringList& texts) {
  static const QRegularExpression bad(QStringLiteral("\\b(nan|inf|infinity)\\b"),
                                      QRegularExpression::CaseInsensitiveOption);
  for (const QString& t : texts) {
    if (t.trimmed().isEmpty()) return QStringLiteral("(empty)");
    if (bad.match(t).hasMatch()) return t;
  }
  return {};
}

}  // namespace

// Four thousand changes (NAPKIN_TORTURE_CHANGES sets another count) in four
// shards of their own seeds, so that CTest runs them side by side.
constexpr int kShards = 4;

class Torture : public ::testing::TestWithParam<int> {};

TEST_P(Torture, RandomChangesAcrossAllPanels) {
  const int shard = GetParam();
  QTemporaryDir dir;
  const QString bad = dir.filePath(QStringLiteral("bad.napkin.json"));
  {
    QFile f(bad);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("{\"format\":\"napkin-scenario\",\"version\":1,\"hardware\":{\"chips\":");
  }
  MainWindow w(MainWindow::Session::fresh);
  w.resize(1280, 800);
  w.show();
  const std::vector<Panel*>& panels = w.panels();
  std::vector<SliderSpin*> sliders;
  std::vector<QComboBox*> combos;
  std::vector<QCheckBox*> checks;
  for (Panel* p : panels) {
    for (auto* s : p->findChildren<SliderSpin*>()) sliders.push_back(s);
    for (auto* c : p->findChildren<QComboBox*>()) combos.push_back(c);
    for (auto* c : p->findChildren<QCheckBox*>()) checks.push_back(c);
  }
  ASSERT_FALSE(sliders.empty());
  std::mt19937_64 rng(20261129 + static_cast<std::uint64_t>(shard));
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  const int n = (changeCount() + kShards - 1) / kShards;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t kind = rng() % 100;
    if (kind < 55) {
      SliderSpin* s = sliders[pick(sliders.size())];
      QSlider* sl = s->slider();
      const std::uint64_t how = rng() % 4;
      if (how == 0)
        sl->setValue(sl->minimum());
      else if (how == 1)
        sl->setValue(sl->maximum());
      else
        sl->setValue(sl->minimum() +
                     static_cast<int>(
                         rng() % static_cast<std::uint64_t>(sl->maximum() - sl->minimum() + 1)));
    } else if (kind < 70) {
      QComboBox* c = combos[pick(combos.size())];
      if (c->count() > 0 && c->isEnabled()) {
        const int idx = static_cast<int>(pick(static_cast<std::size_t>(c->count())));
        c->setCurrentIndex(idx);
        emit c->activated(idx);
      }
    } else if (kind < 76 && !checks.empty()) {
      QCheckBox* c = checks[pick(checks.size())];
      if (c->isEnabled()) c->toggle();
    } else if (kind < 92) {
      const int storm = 1 + static_cast<int>(rng() % 20);
      for (int k = 0; k < storm; ++k) {
        if (rng() % 2)
          w.model()->undoStack()->undo();
        else
          w.model()->undoStack()->redo();
      }
    } else if (kind < 96) {
      const Scenario before = w.model()->scenario();
      EXPECT_FALSE(w.openFile(bad));
      ASSERT_EQ(w.model()->scenario(), before) << "a bad file changed the scenario at change " << i;
    } else if (kind < 98) {
      w.tabs()->setCurrentIndex(static_cast<int>(rng() % static_cast<unsigned>(w.tabs()->count())));
    } else {
      w.resetToDefaults();
    }
    QCoreApplication::processEvents();
    // Panels behind other tabs catch up when shown; check what each would show.
    for (Panel* p : w.panels()) p->refreshIfStale();

    for (const QStringList& texts :
         {w.panel<BudgetPanel>()->readoutTexts(), w.panel<IsoflopsPanel>()->readoutTexts(),
          w.panel<MoePanel>()->readoutTexts(), w.panel<RooflinePanel>()->readoutTexts()}) {
      const QString b = badReadout(texts);
      ASSERT_TRUE(b.isEmpty()) << "change " << i << ": " << b.toStdString();
    }
    // Valid inputs can still leave no plan (a predicted MFU or a fitted law
    // puts the run out of reach): the panel says why instead of a plan.
    const BudgetView plan_view = make_budget_view(w.model()->scenario());
    if (!plan_view.valid()) {
      ASSERT_TRUE(w.panel<BudgetPanel>()->message().contains(qs(plan_view.error)))
          << "change " << i << ": " << plan_view.error;
      continue;
    }
    ASSERT_TRUE(w.panel<BudgetPanel>()->message().isEmpty()) << "change " << i;
    // The Budget planner computes at the MFU the scenario asks for: the
    // slider's, or the Parallelism panel's predicted one.
    Scenario s = w.model()->scenario();
    if (const ResolvedPlan plan = resolve_plan(s); plan.mfu.source == MfuSource::predicted) {
      s.mfu = plan.mfu.mfu;
      s.ranges.mfu.reset();
    }
    const BudgetReadouts& budget = w.panel<BudgetPanel>()->readouts();
    const QString expect_flops = QString::fromStdString(
        format_sci(budget_to_flops(chip_by_name(s.chip), s.n_chips, s.days, s.mfu)) + " FLOPs");
    ASSERT_EQ(budget.text(budget.flops), expect_flops) << "change " << i;
    // The split and its rent as the model gives them for this scenario (under
    // its serving limit, which budget_report alone does not apply).
    const BudgetReport& r = plan_view.report;
    ASSERT_EQ(budget.text(budget.params),
              QString::fromStdString(format_count(r.split.params) + " params"))
        << "change " << i;
    ASSERT_EQ(budget.text(budget.rental),
              QString::fromStdString(format_dollars(r.cost.rental_dollars)))
        << "change " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Shards, Torture, ::testing::Range(0, kShards),
                         [](const ::testing::TestParamInfo<int>& shard) {
                           return "Shard" + std::to_string(shard.param);
                         });
