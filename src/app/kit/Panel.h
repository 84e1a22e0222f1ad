// What the main window and the report know of a panel. A panel is a thin
// shell over the kit: it declares its controls (ControlColumn), shows its
// numbers (ReadoutGrid) and draws its plots (PlotWidget subclasses) from one
// view struct the model library computes; it never computes.
//
// Refresh-when-shown: a panel calls requestRefresh() whenever its inputs
// change; while it sits behind another tab of a visible window that only
// marks it stale, and it catches up when shown (or when the report asks).
#pragma once

#include <QWidget>
#include <vector>

#include "ReportSection.h"

namespace napkin {

class PlotWidget;
struct Scenario;

class Panel : public QWidget {
  Q_OBJECT
 public:
  explicit Panel(QWidget* parent = nullptr) : QWidget(parent) {}

  // "budget": the --panel key and the session's name for the panel.
  virtual QString panelKey() const = 0;
  // "Budget planner": the tab's and the report section's title.
  virtual QString title() const = 0;
  // "How to read this panel" (rich text).
  virtual QString help() const = 0;
  virtual std::vector<PlotWidget*> plots() const = 0;
  // Curated tables and charts for the report (up to date: call refreshIfStale() first).
  virtual ReportSection reportSection() const = 0;
  // A fit or a run is in flight.
  virtual bool isBusy() const { return false; }
  // Compares with a pinned baseline scenario (plan A): read-outs show the
  // change from it and plots draw its ghosts. The panel computes the
  // baseline's view once, here, not on every change. nullptr unpins.
  virtual void setBaseline(const Scenario* baseline) { (void)baseline; }
  // Brings a panel that missed changes while hidden up to date.
  virtual void refreshIfStale();

  // True while `w` sits behind another tab of a visible window.
  static bool hiddenBehindTab(const QWidget* w);
  // Forwards every control's refusal ("Chips: 1e9 is outside …") as statusMessage.
  void forwardRefusals();

 signals:
  // A message for the status bar.
  void statusMessage(const QString& text, int timeout_ms);

 protected:
  // The panel's inputs changed: redraw now, or later when shown.
  void requestRefresh();
  // Recomputes the view and redraws read-outs and plots.
  virtual void refresh() = 0;
  void showEvent(QShowEvent* event) override;

 private:
  bool stale_ = false;
};

}  // namespace napkin
