#include "roofline/RooflineView.h"

#include <stdexcept>

namespace napkin {

RooflineView makeRooflineView(const Scenario& s) {
  RooflineView v;
  v.scenario = s;
  v.inputs = roofline_scenario(s);
  try {
    v.data = roofline_panel(v.inputs);
  } catch (const std::exception& e) {
    v.error = e.what();
  }
  return v;
}

ServingPanelView makeServingPanelView(const Scenario& s) {
  ServingPanelView v;
  v.scenario = s;
  try {
    v.inputs = scenario_serving(s);
    v.view = scenario_serving_view(v.inputs);
  } catch (const std::exception& e) {
    v.error = e.what();
  }
  return v;
}

}  // namespace napkin
