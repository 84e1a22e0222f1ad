#include "MainWindow.h"

#include <QLabel>

#include "budget.h"
#include "format.h"

namespace napkin {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  const BudgetReport r = budget_report(BudgetInputs{});
  auto* label = new QLabel(QString::fromStdString("1,000 H100 × 30 days: C = " + format_sci(r.flops) +
                                                  " FLOPs → N = " + format_count(r.split.params) +
                                                  ", D = " + format_count(r.split.tokens, 2)),
                           this);
  setCentralWidget(label);
  resize(1280, 800);
}

}  // namespace napkin
