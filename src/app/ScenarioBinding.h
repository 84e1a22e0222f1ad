// Binds kit controls to the shared scenario: the getter reads the current
// scenario, the setter edits a copy as one undo step ("Change Chips"); the
// edits of one slider drag merge into one step (same field id).
#pragma once

#include <QCoreApplication>
#include <QVariant>
#include <functional>
#include <type_traits>

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

// Binds one number the scenario holds as a slider's value. `member_of` reaches
// it: [](auto& s) -> auto& { return s.serving.batch; }. Counts (64-bit
// integers) are stored exactly; `after` runs after each edit (optional).
template <typename MemberOf>
Binding<double> numberBinding(ScenarioModel* model, int field, const QString& label,
                              MemberOf member_of, std::function<void(Scenario&)> after = {}) {
  return scenarioBinding<double>(
      model, field, label,
      [member_of](const Scenario& s) { return static_cast<double>(member_of(s)); },
      [member_of, after](Scenario& s, double v) {
        auto& x = member_of(s);
        x = static_cast<std::remove_reference_t<decltype(x)>>(v);
        if (after) after(s);
      });
}

}  // namespace napkin
