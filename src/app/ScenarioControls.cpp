#include "ScenarioControls.h"

#include <QComboBox>
#include <QStandardItemModel>

#include "ControlColumn.h"
#include "ScenarioBinding.h"
#include "Text.h"
#include "choices.h"
#include "hardware.h"
#include "inputs.h"
#include "scenario.h"
#include "switches.h"

namespace napkin {

namespace {
QString tr(const char* text) {
  return QCoreApplication::translate("napkin::ScenarioControls", text);
}

// What an undo step calls a registered choice or switch: its comparison
// name without its panel, in lower case unless it starts with an acronym:
// "serving weight precision", "software" (for "Parallelism: software"), "TP
// within a node".
QString undoName(std::string_view compare_name) {
  QString name = qs(compare_name).section(QStringLiteral(": "), -1);
  if (name.size() > 1 && name[1].isLower()) name[0] = name[0].toLower();
  return name;
}

}  // namespace

QComboBox* declareChipControl(ControlColumn* col, ScenarioModel* m) {
  std::vector<ComboItem> chips;
  // The built-in table, then the user's chips (the data folder's chips/).
  for (const Chip* chip : chip_list()) chips.push_back({qs(chip->name), qs(chip->name)});
  return col->combo(
      {.key = QStringLiteral("chip"),
       .label = tr("Chip"),
       .tooltip = tr("Accelerator from the hardware table: peak bf16 FLOP/s, HBM bytes and "
                     "bandwidth, watts (Help → About lists the sources). Its ridge = peak ÷ "
                     "bandwidth (FLOP/byte)."),
       .items = chips},
      scenarioBinding<QVariant>(
          m, kSharedChip, tr("chip"), [](const Scenario& s) { return QVariant(qs(s.chip)); },
          [](Scenario& s, QVariant v) { s.chip = v.toString().toStdString(); }));
}

QComboBox* declareTrainPrecisionControl(ControlColumn* col, ScenarioModel* m,
                                        const QString& control_key) {
  return declareChoice(col, m, kSharedTrainPrecision, "training.precision", control_key);
}

void showTrainPrecisionRefusal(QComboBox* combo, const QString& refusal) {
  auto* items = qobject_cast<QStandardItemModel*>(combo->model());
  const int i = combo->findData(QStringLiteral("fp8"));
  if (!items || i < 0) return;
  items->item(i)->setEnabled(refusal.isEmpty());
  items->item(i)->setToolTip(refusal);
}

SliderDecl inputDecl(std::string_view input_key, const QString& control_key) {
  const ScenarioInput& in = scenario_input(input_key);
  return SliderDecl{
      .key = control_key,
      .label = qs(in.label),
      .unit = qs(in.display_unit),
      .min = in.slider_lo,
      .max = in.slider_hi,
      .scale = in.scale == InputScale::log ? SliderSpin::Scale::log : SliderSpin::Scale::linear,
      .ladder = in.ladder,
      .decimals = in.decimals,
      .integer = in.type == InputType::count,
      .scientific = in.scientific,
      .display_factor = in.display_factor,
      .tooltip = qs(in.tooltip),
      .accept_min = in.lo,
      .accept_max = in.hi,
      .special_text = qs(in.special_text)};
}

Binding<double> inputBinding(ScenarioModel* model, int field, std::string_view input_key,
                             std::function<void(Scenario&)> after) {
  const ScenarioInput& in = scenario_input(input_key);
  return scenarioBinding<double>(
      model, field, qs(std::string(in.label)), [get = in.get](const Scenario& s) { return get(s); },
      [&in, after](Scenario& s, double v) {
        edit_input(s, in, v);
        if (after) after(s);
      });
}

SliderSpin* declareInput(ControlColumn* column, ScenarioModel* model, int field,
                         std::string_view input_key, const QString& control_key,
                         std::function<void(Scenario&)> after) {
  return column->slider(inputDecl(input_key, control_key),
                        inputBinding(model, field, input_key, std::move(after)));
}

QComboBox* declareChoice(ControlColumn* col, ScenarioModel* m, int field,
                         std::string_view choice_key, const QString& control_key) {
  const ScenarioChoice& c = scenario_choice(choice_key);
  std::vector<ComboItem> items;
  if (!c.unset_label.empty()) items.push_back({qs(c.unset_label), QString()});
  for (const ChoiceOption& o : c.options()) items.push_back({qs(o.label), qs(o.name)});
  const QString undo = undoName(c.compare_name);
  return col->combo(
      {.key = control_key, .label = qs(c.label), .tooltip = qs(c.tooltip), .items = items},
      scenarioBinding<QVariant>(
          m, field, undo, [&c](const Scenario& s) { return QVariant(qs(c.get(s))); },
          [&c](Scenario& s, QVariant v) { set_choice(c, s, v.toString().toStdString()); }));
}

QCheckBox* declareSwitch(ControlColumn* col, ScenarioModel* m, int field,
                         std::string_view switch_key, const QString& control_key, bool same_row,
                         std::function<void(Scenario&)> after) {
  const ScenarioSwitch& w = scenario_switch(switch_key);
  const QString undo = undoName(w.compare_name);
  return col->check(
      {.key = control_key, .label = qs(w.label), .tooltip = qs(w.tooltip), .same_row = same_row},
      scenarioBinding<bool>(
          m, field, undo, [&w](const Scenario& s) { return w.get(s) == w.ticked_when; },
          [&w, after = std::move(after)](Scenario& s, bool ticked) {
            w.set(s, ticked == w.ticked_when);
            if (after) after(s);
          }));
}

SliderSpin* declareChipsControl(ControlColumn* col, ScenarioModel* m) {
  return declareInput(col, m, kSharedChips, "hardware.chips", QStringLiteral("chips"));
}

SliderSpin* declareContextControl(ControlColumn* col, ScenarioModel* m) {
  return declareInput(col, m, kSharedContext, "serving.context_len", QStringLiteral("context"));
}

}  // namespace napkin
