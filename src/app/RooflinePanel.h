// The Roofline panel (seed Phase 03): where operations sit on the chip's
// roofline, the decode wall, the MFU budget as an agenda, the latency napkin
// (chips for a latency budget, or "none") and the co-design levers. Shared
// inputs (chip, chips, model, serving.*) are edited through the ScenarioModel;
// the panel's own knobs (overlays, MFU budget seconds, napkin assumptions,
// tile) live in a panel-local struct. refresh() calls the model once
// (roofline_panel) and redraws the read-outs and plots from its result.
#pragma once

#include <QWidget>
#include <array>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "Panel.h"
#include "SliderSpin.h"
#include "roofline_view.h"
#include "ui_RooflinePanel.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QTableWidget;
class QTextBrowser;
class QVBoxLayout;
class QCPBars;
class QCPGraph;
class QCPItemLine;
class QCPItemStraightLine;
class QCPItemText;
class QCPTextElement;

namespace napkin {

class PlotWidget;
class ScenarioModel;
struct Scenario;

class RooflinePanel : public Panel {
  Q_OBJECT
 public:
  // Panel (the adapter until this panel migrates onto the kit; see
  // RooflinePanelAdapter.cpp).
  QString panelKey() const override;
  QString title() const override;
  QString help() const override { return helpText(); }
  ReportSection reportSection() const override;
  explicit RooflinePanel(ScenarioModel* model, QWidget* parent = nullptr);

  // The panel's own inputs (not shared with other panels).
  struct Local {
    std::vector<std::string> overlays;  // other chips' rooflines
    std::int64_t matmul_dim = 8192;     // the "large matmul" point
    MfuBudgetInputs mfu;                // seconds per unit (the seed's 100/45/60/50/25)
    double recompute = 8.0 / 6.0;       // HFU ÷ MFU (full activation checkpointing)
    double prefill_mfu = 1.0;           // the talk: "assume fully compute bound"
    double bandwidth_efficiency = 1.0;  // fraction of HBM bandwidth decode achieves
    double step_floor_seconds = 0.0;    // serial time per decode step more chips cannot shrink
    std::int64_t max_chips = 65536;     // the largest slice considered
    std::int64_t tile = 128;            // matmul tile side
    double per_layer_serial_seconds = 0.0;
  };

  const RooflinePanelData& data() const { return data_; }
  const Local& local() const { return local_; }
  // The RooflineScenario the panel computes from (the scenario plus Local).
  RooflineScenario rooflineScenario() const;
  // Read-out label by key ("ridge", "chips_budget", "chips_hold", ...), for tests.
  QLabel* readout(const QString& key) const;
  SliderSpin* control(const QString& key) const;
  QComboBox* combo(const QString& key) const;
  QCheckBox* overlayBox(const QString& chip) const;
  QTabWidget* subTabs() const { return ui.subTabs; }
  std::vector<PlotWidget*> plots() const override { return plots_; }
  // All read-out texts, the message line, the agenda and the operations table.
  QStringList readoutTexts() const;
  // The error shown when the inputs are invalid (budget at or below the overhead), or "".
  QString message() const;

  static QString helpText();
  static bool isBuilt() { return true; }

 public slots:
  void refresh() override;

 protected:
  void showEvent(QShowEvent* event) override;

 public:
  // Brings a panel that missed scenario changes while hidden up to date.
  void refreshIfStale() override;

 private:
  bool scenario_stale_ = false;

 protected:
 private:
  struct Binding {
    SliderSpin* widget;
    std::function<double()> get;
  };
  QVBoxLayout* addGroup(QLayout* host, QWidget* parent, const QString& title);
  SliderSpin* addShared(QVBoxLayout* group, const QString& key, int field,
                        const SliderSpin::Spec& spec, std::function<double(const Scenario&)> get,
                        std::function<void(Scenario&, double)> set);
  SliderSpin* addLocal(QVBoxLayout* group, const QString& key, const SliderSpin::Spec& spec,
                       std::function<double(const Local&)> get,
                       std::function<void(Local&, double)> set);
  QComboBox* addCombo(QVBoxLayout* group, const QString& key, const QString& label,
                      const QString& tooltip);
  void buildControls();
  void buildReadouts();
  void buildRooflineTab();
  void buildMfuTab();
  void buildLatencyTab();
  void buildCodesignTab();
  void syncControls(const Scenario& s);
  void compute();
  void updateReadouts();
  void updatePlots();
  void updateRoofline();
  void updateDecode();
  void updateMfu();
  void updateLatency();
  void updateModelSizes();
  void updateCodesign();
  bool inputsChanged(int plot, std::vector<double> inputs);
  void setDrag(bool on);
  void replot(PlotWidget* p);
  void replotStale();

  Ui::RooflinePanel ui;
  ScenarioModel* model_;
  Local local_;
  RooflinePanelData data_;
  RooflineScenario scenario_;  // what data_ was computed from
  MfuBudget without_lever_;    // the budget with its biggest lever removed
  bool budget_impossible_ = false;
  QString message_;
  std::vector<Binding> bindings_;
  QHash<QString, SliderSpin*> sliders_;
  QHash<QString, QComboBox*> combos_;
  QHash<QString, QLabel*> readouts_;
  QHash<QString, QCheckBox*> overlay_boxes_;
  QLabel* message_label_ = nullptr;
  QTableWidget* ops_table_ = nullptr;
  QTextBrowser* agenda_ = nullptr;
  QString agenda_html_;
  QLabel* tile_note_ = nullptr;
  std::vector<PlotWidget*> plots_;
  std::set<PlotWidget*> stale_;  // data changed while hidden: replot when shown
  std::array<std::vector<double>, 8> plot_inputs_;

  // Roofline.
  PlotWidget* roofline_plot_ = nullptr;
  std::vector<QCPGraph*> overlay_graphs_;  // one per chip in the hardware table
  std::vector<QCPGraph*> op_graphs_;       // one per placed operation
  std::vector<QCPItemText*> op_labels_;
  std::vector<QCPItemLine*> op_arrows_;
  QCPItemStraightLine* ridge_line_ = nullptr;
  QCPItemText* ridge_label_ = nullptr;
  // Decode wall.
  PlotWidget* decode_plot_ = nullptr;
  QCPItemStraightLine* batch_line_ = nullptr;
  QCPItemText* decode_label_ = nullptr;
  // MFU budget.
  PlotWidget* mfu_plot_ = nullptr;
  std::vector<QCPBars*> mfu_bars_;
  std::vector<QCPItemText*> mfu_labels_;
  QCPItemText* mfu_note_ = nullptr;
  // Latency napkin.
  PlotWidget* latency_plot_ = nullptr;
  std::vector<QCPBars*> latency_bars_;
  std::vector<QCPItemText*> latency_totals_;
  QCPItemStraightLine* need_line_ = nullptr;
  QCPItemStraightLine* hold_line_ = nullptr;
  QCPTextElement* latency_note_ = nullptr;
  PlotWidget* sizes_plot_ = nullptr;
  QCPItemStraightLine* model_line_ = nullptr;
  QCPItemText* sizes_note_ = nullptr;
  // Co-design levers.
  PlotWidget* tile_plot_ = nullptr;
  QCPItemText* tile_label_ = nullptr;
  PlotWidget* kv_plot_ = nullptr;
  QCPItemStraightLine* kv_line_ = nullptr;
  QCPItemText* kv_note_ = nullptr;
  PlotWidget* depth_plot_ = nullptr;
  QCPItemStraightLine* depth_line_ = nullptr;
  QCPItemText* depth_note_ = nullptr;
};

}  // namespace napkin
