// The Budget Planner panel (seed Phase 00): chips × days × MFU → FLOPs →
// (N, D) → memory → serving → dollars and joules, live as sliders move.
// Controls only edit the shared scenario; refresh() calls the model once
// (make_budget_view) and redraws the read-outs and plots from its result.
#pragma once

#include <QWidget>
#include <array>
#include <functional>
#include <vector>

#include "SliderSpin.h"
#include "budget_view.h"
#include "ui_BudgetPanel.h"

class QComboBox;
class QCheckBox;
class QLabel;
class QFormLayout;
class QVBoxLayout;
class QCPBars;
class QCPItemText;
class QCPItemStraightLine;

namespace napkin {

class PlotWidget;
class ScenarioModel;

class BudgetPanel : public QWidget {
  Q_OBJECT
 public:
  explicit BudgetPanel(ScenarioModel* model, QWidget* parent = nullptr);

  // The last computed view (what the read-outs and plots show).
  const BudgetView& view() const { return view_; }
  // Read-out label by key ("flops", "params", "tokens", ...), for tests.
  QLabel* readout(const QString& key) const;
  SliderSpin* control(const QString& key) const;
  QComboBox* combo(const QString& key) const;
  std::vector<PlotWidget*> plots() const { return plots_; }
  // All read-out texts, checks and the recommendation (for tests and the report).
  QStringList readoutTexts() const;

  static QString helpText();

 public slots:
  void refresh();
  // Brings a panel that missed scenario changes while hidden up to date.
  void refreshIfStale() {
    if (scenario_stale_) {
      scenario_stale_ = false;
      refresh();
    }
  }

 protected:
  void showEvent(QShowEvent* event) override {
    QWidget::showEvent(event);
    refreshIfStale();
  }

 private:
  struct Binding {
    SliderSpin* widget;
    std::function<double(const Scenario&)> get;
  };
  QVBoxLayout* addGroup(const QString& title);
  SliderSpin* addSlider(QVBoxLayout* group, const QString& key, int field,
                        const SliderSpin::Spec& spec, std::function<double(const Scenario&)> get,
                        std::function<void(Scenario&, double)> set);
  QComboBox* addCombo(QVBoxLayout* group, const QString& key, const QString& label,
                      const QString& tooltip);
  void buildControls();
  void buildReadouts();
  void buildPlots();
  void syncControls(const Scenario& s);
  void updateReadouts();
  void updatePlots();
  // True (and remembered) when a plot's inputs differ from its last redraw:
  // a change that leaves a plot's data alone does not replot it.
  bool inputsChanged(int plot, std::vector<double> inputs);
  void applyPreset(int index);

  Ui::BudgetPanel ui;
  ScenarioModel* model_;
  BudgetView view_;
  std::vector<Binding> bindings_;
  QHash<QString, SliderSpin*> sliders_;
  QHash<QString, QComboBox*> combos_;
  QHash<QString, QLabel*> readouts_;
  QCheckBox* gated_ = nullptr;
  QCheckBox* tied_ = nullptr;
  QString checks_html_;
  bool scenario_stale_ = false;
  std::vector<PlotWidget*> plots_;
  std::array<std::vector<double>, 5> plot_inputs_;
  PlotWidget* memory_plot_ = nullptr;
  PlotWidget* kv_plot_ = nullptr;
  PlotWidget* attention_plot_ = nullptr;
  PlotWidget* lifetime_plot_ = nullptr;
  PlotWidget* frontier_plot_ = nullptr;
  std::vector<QCPBars*> memory_bars_;
  std::vector<QCPItemText*> memory_labels_;
  QCPItemStraightLine* kv_context_ = nullptr;
  QCPItemText* kv_label_ = nullptr;
  QCPItemStraightLine* attention_marker_ = nullptr;
  QCPItemText* attention_label_ = nullptr;
  QCPItemStraightLine* lifetime_crossover_ = nullptr;
  QCPItemStraightLine* lifetime_served_ = nullptr;
  QCPItemText* lifetime_label_ = nullptr;
  QCPItemStraightLine* frontier_marker_ = nullptr;
  QCPItemText* frontier_label_ = nullptr;
};

}  // namespace napkin
