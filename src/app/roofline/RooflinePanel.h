// The Roofline panel (seed Phase 03): where operations sit on the chip's
// roofline, the decode wall, the MFU budget as an agenda, the latency napkin
// (chips for a latency budget, or "none"), the co-design levers and the
// serving layout (sharding, precision, the search for the budget,
// disaggregation, the cost of a token). Controls edit the scenario only;
// refresh() calls the model once (roofline_panel) and the serving view runs
// off the UI thread (make_serving_view), the latest request winning.
#pragma once

#include <QFutureWatcher>
#include <array>
#include <memory>
#include <optional>

#include "ScenarioPanel.h"
#include "Text.h"
#include "framework_config.h"
#include "roofline/RooflineControls.h"
#include "roofline/RooflineReadouts.h"
#include "roofline/ServingReadouts.h"
#include "roofline/plots/RooflinePanelPlot.h"
#include "roofline_view.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QTabWidget;
class QTableWidget;
class QTextBrowser;
class QToolButton;

namespace napkin {

class ControlColumn;
class MessageLabel;

class ScenarioModel;

class SliderSpin;

class RooflinePanel : public ScenarioPanel {
  Q_OBJECT
 public:
  explicit RooflinePanel(ScenarioModel* model, QWidget* parent = nullptr);
  ~RooflinePanel() override;

  QString panelKey() const override { return QStringLiteral("roofline"); }
  QString title() const override { return tr("Roofline"); }
  QString help() const override { return helpText(); }
  std::vector<PlotWidget*> plots() const override;
  ReportSection reportSection() const override;
  bool isBusy() const override { return servingPending(); }
  void setBaseline(const Scenario* baseline) override;

  enum Tab { kRooflineTab, kMfuTab, kLatencyTab, kCodesignTab, kServingTab, kTabCount };

  const RooflineView& view() const { return view_; }
  const RooflinePanelData& data() const { return view_.data; }
  // The serving view last shown (it follows the scenario off the UI thread).
  const ServingPanelView& servingView() const;
  // A serving view is being computed, or waits for the one in flight.
  bool servingPending() const;
  // Waits for the serving view of the current scenario and shows it.
  void settleServing();
  const RooflineControls& controls() const { return controls_; }
  SliderSpin* control(const QString& key) const { return controls_.slider(key); }
  QComboBox* combo(const QString& key) const { return controls_.combo(key); }
  QCheckBox* overlayBox(const QString& chip) const;
  QTabWidget* subTabs() const { return tabs_; }
  // A read-out's text by key ("ridge", "chips_budget", "serving_weights", …).
  QString readoutText(const QString& key) const;
  const RooflineReadouts& readouts() const { return *readouts_; }
  const ServingReadouts& servingReadouts() const { return *serving_readouts_; }
  // Every read-out text, the operations, the agenda and the notes (tests).
  QStringList readoutTexts() const;
  // The error shown when the inputs are refused or the budget is at or below the overhead.
  QString message() const;
  // "Copy launch flags": the serving layout shown, as `engine` runs it, on
  // the clipboard; returns the text (empty when no layout is shown).
  QString copyServingFlags(ServingFlagsEngine engine);

  static QString helpText();

 protected:
  void refresh() override;
  void gestureChanged(bool on) override;

 private:
  QWidget* makeTab(Tab tab, const QString& title, const std::vector<QWidget*>& cells,
                   QWidget* above = nullptr);
  void drawTab(int tab);
  void requestServing();
  void onServingDone();
  void showServing();
  // view_ = make_roofline_view(scenario, serving_), keeping the last valid
  // plots when the scenario is refused.
  void rebuildView();

  RooflineControls controls_;
  std::unique_ptr<RooflineReadouts> readouts_;
  std::unique_ptr<ServingReadouts> serving_readouts_;
  MessageLabel* message_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  QTableWidget* operations_ = nullptr;
  QTextBrowser* agenda_ = nullptr;
  QLabel* dimensions_ = nullptr;
  QLabel* serving_status_ = nullptr;
  QToolButton* serving_flags_ = nullptr;
  std::array<std::vector<RooflinePanelPlot*>, kTabCount> tab_plots_;
  std::vector<ServingPlot*> serving_plots_;
  std::array<bool, kTabCount> stale_{};

  RooflineView view_;
  std::optional<RooflineView> baseline_;
  RooflineSlow serving_;  // the newest serving search that arrived (view_.serving)
  // The serving view runs on a worker; a change while it runs waits for it,
  // then the latest scenario is computed (generation counts requests).
  QFutureWatcher<ServingPanelView>* watcher_ = nullptr;
  std::uint64_t generation_ = 0, running_generation_ = 0;
  std::optional<Scenario> queued_;
  bool in_flight_ = false;  // a future runs, or finished and is not yet shown
};

}  // namespace napkin
