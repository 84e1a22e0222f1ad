// The Budget planner's controls for the run as it will really go: which
// question is asked (budget → model, or train this model), goodput
// (interruptions, restarts, checkpoints) and the ranges of the uncertain
// inputs. Declared on the panel's ControlColumn, bound to the scenario; every
// edit is one undo step, and a refused range says why in `message`.
#pragma once

#include "ScenarioControls.h"

#include <QString>
#include <array>
#include <functional>

class QLabel;

namespace napkin {

struct BudgetView;
struct Scenario;
enum class RangeInput;

// After an input's own value moved (the MFU slider), its range stretches to
// contain it, so the move is never refused for leaving its range.
void carry_range(Scenario& s, RangeInput input);

struct RangeControls {
  QCheckBox* on = nullptr;
  SliderSpin* low = nullptr;
  SliderSpin* high = nullptr;
};

struct BudgetPlanControls {
  // The question.
  QComboBox* mode = nullptr;
  SliderSpin* train_tokens = nullptr;
  // Goodput.
  SliderSpin* interruptions = nullptr;
  SliderSpin* restart = nullptr;
  SliderSpin* checkpoint_interval = nullptr;
  QComboBox* write_source = nullptr;
  SliderSpin* write_minutes = nullptr;
  SliderSpin* storage = nullptr;
  QCheckBox* async = nullptr;
  // Ranges, in the order of kRangeInputs (MFU, interruptions, restart,
  // price, unique tokens).
  QComboBox* range_shape = nullptr;
  std::array<RangeControls, 5> ranges{};
  QLabel* message = nullptr;  // why the last range edit was refused ("" when it was not)

  using ViewGetter = std::function<const BudgetView&()>;
  // The mode and the training tokens, at the top of the column.
  static void declareQuestion(BudgetPlanControls& c, ControlColumn* column, ScenarioModel* model,
                              ViewGetter view);
  // Goodput and the ranges.
  static void declareRun(BudgetPlanControls& c, ControlColumn* column, ScenarioModel* model,
                         ViewGetter view);
  // Enables what applies to the current scenario (the training tokens in
  // train mode, the typed write time, a range's bounds when it is on).
  void updateEnabled(const BudgetView& view) const;
  // Shows (or clears) the refusal message.
  void showMessage(const QString& text) const;
};

}  // namespace napkin
