#include "ScenarioPanel.h"

#include "PlotWidget.h"
#include "ScenarioModel.h"

namespace napkin {

ScenarioPanel::ScenarioPanel(ScenarioModel* model, QWidget* parent)
    : Panel(parent), model_(model), column_(new ControlColumn(this)) {
  // The signals arrive after the panel is built, so gestureChanged and
  // refresh dispatch to the panel's own overrides.
  connect(model_, &ScenarioModel::changed, this, [this] { requestRefresh(); });
  connect(model_, &ScenarioModel::gestureActive, this, [this](bool on) { gestureChanged(on); });
  connect(column_, &ControlColumn::gestureStarted, model_, &ScenarioModel::beginGesture);
  connect(column_, &ControlColumn::gestureFinished, model_, &ScenarioModel::endGesture);
}

void ScenarioPanel::gestureChanged(bool on) {
  for (PlotWidget* p : plots()) p->setDragMode(on);
}

}  // namespace napkin
