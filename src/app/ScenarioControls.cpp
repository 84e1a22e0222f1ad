#include "ScenarioControls.h"

#include <QComboBox>

#include "ControlColumn.h"
#include "ScenarioBinding.h"
#include "Text.h"
#include "hardware.h"

namespace napkin {

namespace {
QString tr(const char* text) {
  return QCoreApplication::translate("napkin::ScenarioControls", text);
}
}  // namespace

QComboBox* declareChipControl(ControlColumn* col, ScenarioModel* m) {
  std::vector<ComboItem> chips;
  for (const Chip& chip : hardware_table()) chips.push_back({qs(chip.name), qs(chip.name)});
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

SliderSpin* declareChipsControl(ControlColumn* col, ScenarioModel* m) {
  return col->slider(
      {.key = QStringLiteral("chips"),
       .label = tr("Chips"),
       .min = 1,
       .max = 100000,
       .scale = SliderSpin::Scale::log,
       .ladder = Ladder::oneTwoFive(),
       .integer = true,
       .tooltip = tr("Number of accelerators (chips). C = chips × peak FLOP/s × MFU × days × "
                     "86,400 s; the Roofline's turn read-out runs on this many.")},
      numberBinding(
          m, kSharedChips, tr("Chips"), [](auto& s) -> auto& { return s.n_chips; }));
}

SliderSpin* declareContextControl(ControlColumn* col, ScenarioModel* m) {
  return col->slider(
      {.key = QStringLiteral("context"),
       .label = tr("Context"),
       .unit = tr("tokens"),
       .min = 256,
       .max = 1048576,
       .scale = SliderSpin::Scale::log,
       .ladder = Ladder::powersOfTwo(),
       .integer = true,
       .tooltip = tr("Tokens in each served request's KV cache (tokens): 2·L·n_kv·d_head·T "
                     "values per request at the KV precision, read every decode step.")},
      numberBinding(
          m, kSharedContext, tr("Context"),
          [](auto& s) -> auto& { return s.serving.context_len; }));
}

}  // namespace napkin
