// A Roofline panel plot: draws from the panel's RooflineView (or, for the
// "Serving layout" view, its ServingPanelView), and a pinned baseline's view
// as faded dashed ghosts behind it.
#pragma once

#include "Text.h"
#include "ViewPlot.h"
#include "roofline/RooflineFormat.h"
#include "roofline_view.h"

namespace napkin {

using RooflinePanelPlot = ViewPlot<RooflineView>;
using ServingPlot = ViewPlot<ServingPanelView>;

}  // namespace napkin
