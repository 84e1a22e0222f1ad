// The Serving layout tab's benchmark run: its mode, concurrency, request
// rate and request count (ServingLayoutSettings::run_*), declared on the
// Roofline panel's column after the serving layout's own controls.
#pragma once

namespace napkin {

class ControlColumn;
class ScenarioModel;
struct RooflineControls;
struct Scenario;

void declareServingRun(ControlColumn* column, ScenarioModel* model, RooflineControls& controls);
// Greys what the scenario's run mode does not use, saying why.
void showServingRunInUse(const RooflineControls& controls, const Scenario& scenario);

}  // namespace napkin
