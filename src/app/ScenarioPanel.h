// A panel over the shared scenario: the model it reads and edits (one undo
// step per edit) and the control column its controls are declared on. The
// connections every panel needs are made here once: a scenario change
// refreshes the panel (when shown), a drag on the column is one gesture of
// the model, and a gesture puts the plots in drag mode (gestureChanged).
#pragma once

#include "ControlColumn.h"
#include "Panel.h"

namespace napkin {

class ScenarioModel;

class ScenarioPanel : public Panel {
 public:
  ScenarioPanel(ScenarioModel* model, QWidget* parent);

 protected:
  // A gesture (a slider drag) began (on) or ended: by default every plot
  // follows it in drag mode. A panel that does more on release overrides it.
  virtual void gestureChanged(bool on);

  ScenarioModel* const model_;
  ControlColumn* const column_;
};

}  // namespace napkin
