// The panels' own inputs as part of the scenario document: the IsoFLOPs
// panel's ladder (synthetic, or a CSV ladder with its points embedded), fit,
// target and candidate recipe; the MoE panel's router run and link/pipeline
// knobs; the Roofline panel's overlays and napkin assumptions. Plain structs
// with in-class defaults (each the panel's default on first launch) and a
// validate() that throws std::invalid_argument naming the field, its unit and
// the accepted range, so a saved scenario carries everything a panel shows
// and an edit that would leave it invalid can be refused.
//
// View state (which tab is open, the MoE playback speed) is not here: it
// changes what is looked at, not what is computed. The MoE scrub position
// (moe.shown_step) is the exception: a reopened run shows the step it was
// saved on.
#pragma once

#include "isoflops_settings.h"
#include "moe_settings.h"
#include "parallel_settings.h"
#include "roofline_settings.h"

namespace napkin {

struct Scenario;

// C* of the IsoFLOPs panel: the resolved plan's C (chips × peak × the MFU the
// plan runs with × days), or the manual target when it does not follow the
// budget.
double isoflops_target_flops(const Scenario& s);
// roofline_scenario(const Scenario&) is declared in roofline_view.h.

}  // namespace napkin
