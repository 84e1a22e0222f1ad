// The report's first page when a baseline is pinned: "Plan A vs plan B" —
// the inputs that differ, the headline outputs side by side with their
// change, and which plan wins on each (src/model/compare.h).
#pragma once

#include <QString>

namespace napkin {

struct Scenario;

// `a_label`: the baseline's file name or "pinned 10:42"; `b_label`: the
// current scenario's file name or "unsaved scenario". Computes both plans'
// headline outputs (a fit and an MoE run each: ~0.2 s).
QString comparePageHtml(const Scenario& a, const QString& a_label, const Scenario& b,
                        const QString& b_label);

}  // namespace napkin
