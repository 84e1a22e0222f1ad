// The MoE router panel (seed Phase 02): the router-collapse animation (a
// real feedback loop, napkin::CollapseSimulation, stepped by a timer), the
// capacity buffers and their trade-off curve, total vs active parameters of
// the scenario's model, and the all-to-all wall against pipelined prefill.
// The simulation and its knobs are panel-local; only the model shape comes
// from the shared scenario.
#pragma once

#include <QHash>
#include <QWidget>
#include <array>
#include <memory>
#include <vector>

#include "Panel.h"
#include "SliderSpin.h"
#include "moe.h"
#include "ui_MoePanel.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QTimer;
class QToolButton;
class QVBoxLayout;
class QGridLayout;
class QCPBars;
class QCPGraph;
class QCPItemRect;
class QCPItemText;
class QCPItemStraightLine;

namespace napkin {

class PlotWidget;
class ScenarioModel;

class MoePanel : public Panel {
  Q_OBJECT
 public:
  // Panel (the adapter until this panel migrates onto the kit; see
  // MoePanelAdapter.cpp).
  QString panelKey() const override;
  QString title() const override;
  QString help() const override { return helpText(); }
  ReportSection reportSection() const override;
  explicit MoePanel(ScenarioModel* model, QWidget* parent = nullptr);
  ~MoePanel() override;

  std::vector<PlotWidget*> plots() const override { return plots_; }
  QStringList readoutTexts() const;
  static QString helpText();
  static bool isBuilt() { return true; }

  // For tests and the benchmark.
  QLabel* readout(const QString& key) const;
  SliderSpin* control(const QString& key) const;
  QCheckBox* check(const QString& key) const;
  QToolButton* button(const QString& key) const;  // play, pause, step, reset, live, export
  QSlider* scrubSlider() const { return scrub_; }
  QLabel* statusLabel() const { return ui.statusLabel; }
  QTabWidget* tabs() const { return ui.tabs; }
  const CollapseSimulation& simulation() const { return *sim_; }
  std::int64_t currentStep() const { return sim_->steps_done(); }
  // The step the bars show (the scrub position; == currentStep() when live).
  std::int64_t shownStep() const { return shown_; }
  bool isPlaying() const;
  // Per-expert bar values currently drawn (routed share) and which are dead.
  std::vector<double> barValues() const;
  std::vector<bool> deadBars() const;
  // Runs n simulation steps and redraws once: what a timer tick does.
  void advance(int n);
  // Writes the recorded traces as CSV (header + one row per step).
  bool exportCsv(const QString& path, QString* error = nullptr) const;

 public slots:
  void play();
  void pause();
  void stepOnce();
  void reset();
  void refresh() override;  // redraws everything from the current state

 protected:
  void hideEvent(QHideEvent* event) override;
  void showEvent(QShowEvent* event) override;

 public:
  // Brings a panel that missed scenario changes while hidden up to date.
  void refreshIfStale() override;

 private:
  bool scenario_stale_ = false;

 protected:
 private:
  struct Local {
    CollapseParams sim;
    double link_gbps = 100;
    double latency_us = 5;
    double prefill_tokens = 8192;
    PipelineInputs pipe;
  };
  QVBoxLayout* addGroup(const QString& title);
  SliderSpin* addSlider(QVBoxLayout* group, const QString& key, const SliderSpin::Spec& spec,
                        double value);
  QCheckBox* addCheck(QVBoxLayout* group, const QString& key, const QString& text,
                      const QString& tooltip, bool on);
  QLabel* addReadout(QGridLayout* grid, int row, int col, const QString& key, const QString& name,
                     const QString& tip, const QString& widest);
  void buildControls();
  void buildTransport();
  void buildCollapseTab();
  void buildCapacityTab();
  void buildCommTab();
  // A simulation knob changed: restart or retune, and say which.
  void simParamsChanged(const QString& what);
  void onTick();
  void updateCollapse(bool full);
  void updateCapacity();
  void updateComm();
  void updateScrub();
  void appendTraces(std::int64_t from);
  void rebuildTraces();
  const StepStats* shownStats() const;
  bool inputsChanged(int plot, std::vector<double> inputs);

  Ui::MoePanel ui;
  ScenarioModel* model_;
  Local local_;
  std::unique_ptr<CollapseSimulation> sim_;
  std::int64_t shown_ = 0;  // 0 = nothing yet; follows the live step unless scrubbed
  bool follow_live_ = true;
  bool resume_on_show_ = false;  // playing, but hidden: the timer waits for showEvent
  int speed_ = 2;                // steps per tick
  QTimer* timer_ = nullptr;
  QHash<QString, SliderSpin*> sliders_;
  QHash<QString, QCheckBox*> checks_;
  QHash<QString, QLabel*> readouts_;
  QHash<QString, QToolButton*> buttons_;
  QComboBox* speed_box_ = nullptr;
  QSlider* scrub_ = nullptr;
  QLabel* step_label_ = nullptr;
  std::vector<PlotWidget*> plots_;
  std::array<std::vector<double>, 6> plot_inputs_;
  // Router collapse
  PlotWidget* bars_plot_ = nullptr;
  std::array<QCPBars*, 3> bars_{};  // healthy, overloaded, dead
  QCPItemStraightLine* fair_line_ = nullptr;
  QCPItemStraightLine* cap_line_ = nullptr;
  QCPItemText* bars_note_ = nullptr;
  PlotWidget* util_plot_ = nullptr;  // max/mean, dead experts
  PlotWidget* loss_plot_ = nullptr;  // L_balance, L_z, drop rate
  QCPItemStraightLine* util_cursor_ = nullptr;
  QCPItemStraightLine* loss_cursor_ = nullptr;
  std::int64_t traced_ = 0;  // steps appended to the trace graphs
  double trace_max_util_ = 1, trace_max_loss_ = 1;
  std::int64_t bars_experts_ = -1;
  // Capacity
  PlotWidget* buffer_plot_ = nullptr;
  std::array<QCPBars*, 3> buffer_bars_{};  // kept, padding, dropped
  QCPItemStraightLine* buffer_cap_line_ = nullptr;
  PlotWidget* tradeoff_plot_ = nullptr;
  QCPItemStraightLine* tradeoff_marker_ = nullptr;
  QCPItemText* tradeoff_note_ = nullptr;
  // Parameters & communication
  PlotWidget* gantt_plot_ = nullptr;
  std::vector<QCPItemRect*> gantt_rects_;
  QLabel* params_note_ = nullptr;
  QString status_;
};

}  // namespace napkin
