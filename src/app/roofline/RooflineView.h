// What the Roofline panel shows, as the model library computes it: one
// struct per scenario for the roofline, MFU, latency and co-design plots
// (roofline_panel), and one for the "Serving layout" view (serving_search.h),
// computed off the UI thread. The panel and its plots only format these.
#pragma once

#include <QString>
#include <string>

#include "Text.h"
#include "roofline_view.h"
#include "scenario.h"

namespace napkin {

struct RooflineView {
  Scenario scenario;
  RooflineScenario inputs;
  RooflinePanelData data;
  std::string error;  // the inputs were refused (data is the last valid one)
  bool budgetBelowOverhead() const {
    return data.serving.verdict == LatencyVerdict::below_overhead;
  }
};

// roofline_panel(roofline_scenario(s)); on a refusal, `error` says why.
RooflineView makeRooflineView(const Scenario& s);

struct ServingPanelView {
  Scenario scenario;
  ScenarioServing inputs;
  ServingView view;
  std::string error;  // the serving chips cannot be split, or the inputs were refused
  bool valid() const { return error.empty(); }
};

// scenario_serving_view(scenario_serving(s)); never throws.
ServingPanelView makeServingPanelView(const Scenario& s);

}  // namespace napkin
