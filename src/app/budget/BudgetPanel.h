// The Budget planner panel (seed Phase 00): chips × days × MFU → FLOPs →
// (N, D) → memory → serving → dollars and joules, live as sliders move.
// Controls only edit the shared scenario; refresh() calls the model once
// (make_budget_view) and shows its result: read-outs, checks, the
// recommendation and five plots, each its own class drawing from the view.
#pragma once

#include <memory>
#include <optional>

#include "Panel.h"
#include "budget/BudgetControls.h"
#include "budget/BudgetReadouts.h"
#include "budget_view.h"

class QGroupBox;
class QPlainTextEdit;
class QTimer;

namespace napkin {

class BudgetPlot;
class CheckList;
class ControlColumn;
class ScenarioModel;

class BudgetPanel : public Panel {
  Q_OBJECT
 public:
  explicit BudgetPanel(ScenarioModel* model, QWidget* parent = nullptr);
  ~BudgetPanel() override;

  QString panelKey() const override { return QStringLiteral("budget"); }
  QString title() const override { return tr("Budget planner"); }
  QString help() const override;
  std::vector<PlotWidget*> plots() const override;
  ReportSection reportSection() const override;

  // The last computed view (what the read-outs and plots show).
  const BudgetView& view() const { return view_; }
  const BudgetControls& controls() const { return controls_; }
  const BudgetReadouts& readouts() const { return *readouts_; }
  CheckList* checks() const { return checks_; }
  QPlainTextEdit* recommendation() const { return recommendation_; }
  // Every read-out text, the checks and the recommendation (tests).
  QStringList readoutTexts() const;

  // Compares with a baseline scenario (computed once, here): read-outs show
  // the change from it, plots draw its ghosts. nullptr unpins.
  void setBaseline(const Scenario* baseline) override;

 protected:
  void refresh() override;

 private:
  // The checks and the memo: rich text that re-lays out on every change, so
  // during a slider drag it follows at most every kTextFollowMs, and exactly on release.
  void updateTexts();

  ScenarioModel* model_;
  BudgetView view_;
  std::optional<BudgetView> baseline_;
  ControlColumn* column_ = nullptr;
  BudgetControls controls_;
  std::unique_ptr<BudgetReadouts> readouts_;
  CheckList* checks_ = nullptr;
  QGroupBox* recommendation_box_ = nullptr;
  QPlainTextEdit* recommendation_ = nullptr;
  QTimer* text_timer_ = nullptr;
  std::vector<BudgetPlot*> plots_;
};

}  // namespace napkin
