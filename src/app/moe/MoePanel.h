// The MoE router panel (seed Phase 02): the router-collapse animation (a real
// feedback loop, napkin::CollapseSimulation, stepped by a timer), the capacity
// buffers and their trade-off curve, total vs active parameters of the
// scenario's model, and the all-to-all wall against pipelined prefill.
// Controls only edit the shared scenario's MoeSettings; the animation (play,
// pause, step, scrub, speed) is view state. Every number comes from the model
// (moe_view.h, moe_health.h); the panel draws it.
#pragma once

#include <QFutureWatcher>
#include <memory>
#include <optional>

#include "ScenarioPanel.h"
#include "moe/MoeControls.h"
#include "moe/MoeReadouts.h"
#include "moe_view.h"

class QLabel;

namespace napkin {

class ControlColumn;
class ExpertSharePlot;
class MoePlot;
class MoeRun;
class MoeTransport;
struct MoeSettings;
class ScenarioModel;

class MoePanel : public ScenarioPanel {
  Q_OBJECT
 public:
  explicit MoePanel(ScenarioModel* model, QWidget* parent = nullptr);
  ~MoePanel() override;

  QString panelKey() const override { return QStringLiteral("moe"); }
  QString title() const override { return tr("MoE router"); }
  QString help() const override;
  std::vector<PlotWidget*> plots() const override;
  ReportSection reportSection() const override;
  // The scenario's run of record is being computed off the UI thread.
  bool isBusy() const override;

  // Compares with a baseline scenario: its run of record is computed once,
  // off the UI thread; then read-outs show the change from it and plots draw
  // its ghosts. nullptr unpins.
  void setBaseline(const Scenario* baseline) override;
  bool baselinePending() const;
  // Blocks until a pending baseline is in and shown (tests, the report).
  void waitForBaseline();
  const MoeRunOfRecord* baseline() const { return baseline_ ? &*baseline_ : nullptr; }

  const MoeControls& controls() const { return controls_; }
  const MoeReadouts& readouts() const { return *readouts_; }
  MoeRun* run() const { return run_; }
  MoeTransport* transport() const { return transport_; }
  QLabel* paramsNote() const { return params_note_; }
  // The shown step as the plots and read-outs have it.
  const MoeStepView& stepView() const { return view_.step; }
  const MoeScenarioView& scenarioView() const { return view_.scenario; }
  // Each expert's drawn bar (routed ÷ fair share) and which experts are dead.
  std::vector<double> barValues() const;
  std::vector<bool> deadBars() const;
  // Every read-out as "name: value", the shown step and the parameters note (tests).
  QStringList readoutTexts() const;
  // What a saved document keeps of the run on screen: its step count as the
  // run of record (moe.steps) and the step shown (moe.shown_step), so the
  // file reopens on the run as it was, recomputed from step 0 with the
  // document's seed and knobs, at the step looked at. Returns a
  // sentence when that recomputation cannot be the same run (a knob changed
  // mid-run), "" otherwise.
  QString stampRun(Scenario& doc) const;

 protected:
  void refresh() override;
  void gestureChanged(bool on) override;
  void showEvent(QShowEvent* event) override;
  void hideEvent(QHideEvent* event) override;

 private:
  // The run moved (a frame, a step, a scrub, a restart): the step's read-outs and plots.
  void redrawRun();
  void showView(const Scenario& s);  // the one model call: view_ from s and the run
  void drawRun();
  void showBaseline();
  // "Ran the scenario's N steps from step 0." and the step shown when it is not the last.
  QString ranText(const MoeSettings& m) const;

  MoeControls controls_;
  std::unique_ptr<MoeReadouts> readouts_;
  MoeRun* run_ = nullptr;
  MoeTransport* transport_ = nullptr;
  QLabel* params_note_ = nullptr;
  ExpertSharePlot* share_plot_ = nullptr;
  std::vector<MoePlot*> plots_;
  MoeView view_;
  std::optional<MoeRunOfRecord> baseline_;
  QFutureWatcher<MoeRunOfRecord>* baseline_watcher_ = nullptr;
  int baseline_generation_ = 0;
  std::int64_t replayed_steps_ = 0;  // the run of record the run started from
  std::int64_t replayed_shown_ = 0;  // ... and the step it opened on (moe.shown_step)
  std::int64_t frames_ = 0;          // animation frames drawn (the capacity plots follow every 4th)
  bool retuned_ = false;             // knobs changed since (the run is no longer the record)
  std::int64_t continued_run_ = -1;  // the run id a knob changed in mid-run
  std::int64_t continued_at_ = 0;    // ... and at which step
};

}  // namespace napkin
