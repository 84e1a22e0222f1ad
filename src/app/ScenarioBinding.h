// Binds kit controls to the shared scenario: the getter reads the current
// scenario, the setter edits a copy as one undo step ("Change Chips"); the
// edits of one slider drag merge into one step (same field id).
#pragma once

#include <QCoreApplication>
#include <QVariant>
#include <functional>

#include "ControlColumn.h"
#include "ScenarioModel.h"

namespace napkin {

template <typename T>
Binding<T> scenarioBinding(ScenarioModel* model, int field, const QString& label,
                           std::function<T(const Scenario&)> get,
                           std::function<void(Scenario&, T)> set) {
  const QString undo = QCoreApplication::translate("napkin", "Change %1").arg(label);
  return {[model, get] { return get(model->scenario()); },
          [model, field, undo, set](T v) {
            model->edit(undo, field, [&](Scenario& s) { set(s, v); });
          }};
}

}  // namespace napkin
