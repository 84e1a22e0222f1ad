// The scenario's controls that more than one panel shows (the Budget planner
// and the Roofline both edit the chip, the chip count and the serving
// context): declared once, so they read and edit the same field with the
// same range, ladder, tooltip and undo step in every panel.
//
// Every panel's controls header includes this one for the kit's control types.
#pragma once

class QCheckBox;
class QComboBox;

namespace napkin {

class ControlColumn;
class ScenarioModel;
class SliderSpin;

// Undo field ids of the shared controls (apart from every panel's own).
enum SharedField { kSharedChip = 401, kSharedChips, kSharedContext };

// The accelerator, from the hardware table.
QComboBox* declareChipControl(ControlColumn* column, ScenarioModel* model);
// The scenario's chip count.
SliderSpin* declareChipsControl(ControlColumn* column, ScenarioModel* model);
// Tokens in each served request's KV cache.
SliderSpin* declareContextControl(ControlColumn* column, ScenarioModel* model);

}  // namespace napkin
