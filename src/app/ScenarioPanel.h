// A panel over the shared scenario: the model it reads and edits (one undo
// step per edit) and the control column its controls are declared on.
#pragma once

#include "ControlColumn.h"
#include "Panel.h"

namespace napkin {

class ScenarioModel;

class ScenarioPanel : public Panel {
 public:
  ScenarioPanel(ScenarioModel* model, QWidget* parent)
      : Panel(parent), model_(model), column_(new ControlColumn(this)) {}

 protected:
  ScenarioModel* const model_;
  ControlColumn* const column_;
};

}  // namespace napkin
