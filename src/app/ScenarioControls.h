// The scenario's controls that more than one panel shows (the Budget planner
// and the Roofline both edit the chip, the chip count and the serving
// context): declared once, so they read and edit the same field with the
// same range, ladder, tooltip and undo step in every panel.
//
// Every panel's controls header includes this one for the kit's control types.
#pragma once

#include <QString>
#include <functional>
#include <string_view>

class QCheckBox;
class QComboBox;

namespace napkin {

class ControlColumn;
class ScenarioModel;
class SliderSpin;
struct Scenario;
struct SliderDecl;
template <typename T>
struct Binding;

// Undo field ids of the shared controls (apart from every panel's own).
enum SharedField { kSharedChip = 401, kSharedChips, kSharedContext, kSharedTrainPrecision };

// A registered input's control (inputs.h): label, unit, the slider's span and
// ladder, the accepted range of a typed value and the tooltip, all from the
// input registry; `control_key` is the widget's object name.
SliderDecl inputDecl(std::string_view input_key, const QString& control_key);
// The input's value in the scenario, edited as one undo step (`field`), with
// what the registry says an edit also changes (ScenarioInput::edited); `after`
// runs after each edit.
Binding<double> inputBinding(ScenarioModel* model, int field, std::string_view input_key,
                             std::function<void(Scenario&)> after = {});
// Both: the slider of a registered input.
SliderSpin* declareInput(ControlColumn* column, ScenarioModel* model, int field,
                         std::string_view input_key, const QString& control_key,
                         std::function<void(Scenario&)> after = {});

// A registered choice's combo (choices.h): label, tooltip and every option
// the registry accepts, listed by its label and bound by its name, edited as
// one undo step (`field`); `control_key` is the widget's object name.
QComboBox* declareChoice(ControlColumn* column, ScenarioModel* model, int field,
                         std::string_view choice_key, const QString& control_key);

// A registered switch's check box (switches.h): label, tooltip, ticked as the
// registry says, edited as one undo step (`field`), then `after` (e.g. a
// shape edit renames the model Custom).
QCheckBox* declareSwitch(ControlColumn* column, ScenarioModel* model, int field,
                         std::string_view switch_key, const QString& control_key,
                         bool same_row = false, std::function<void(Scenario&)> after = {});

// The accelerator, from the hardware table.
QComboBox* declareChipControl(ControlColumn* column, ScenarioModel* model);
// The scenario's chip count.
SliderSpin* declareChipsControl(ControlColumn* column, ScenarioModel* model);
// The training precision (training.precision): mixed bf16, FP8 GEMMs or
// fp32; the Budget planner and the Parallelism panel both show it.
// Greys the training-precision control's FP8 with `refusal` as its tooltip
// (ResolvedPlan::fp8_refusal); enables it when `refusal` is empty.
void showTrainPrecisionRefusal(QComboBox* combo, const QString& refusal);
QComboBox* declareTrainPrecisionControl(ControlColumn* column, ScenarioModel* model,
                                        const QString& control_key);
// Tokens in each served request's KV cache.
SliderSpin* declareContextControl(ControlColumn* column, ScenarioModel* model);

// What a panel's control declarer holds: the panel's controls struct its
// group methods fill, the column they go on and the model they edit. Each
// panel derives its own, one method per group in the column's order.
template <typename Controls>
class ControlDeclarer {
 public:
  ControlDeclarer(Controls& controls, ControlColumn* column, ScenarioModel* model)
      : c(controls), col(column), m(model) {}

 protected:
  Controls& c;
  ControlColumn* col;
  ScenarioModel* m;
};

}  // namespace napkin
