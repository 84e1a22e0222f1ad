// An IsoFLOPs panel plot: draws from what the panel shows (IsoflopsShown),
// and a pinned baseline's as faded dashed ghosts behind it.
#pragma once

#include <algorithm>
#include <optional>
#include <vector>

#include "ViewPlot.h"
#include "isoflops_view.h"

namespace napkin {

using IsoflopsPlot = ViewPlot<IsoflopsShown>;

// Shared by the plots: the laws' constants as memo inputs.
inline std::vector<double> lawKey(const std::optional<LossLaw>& l) {
  if (!l) return {};
  return {l->E, l->A, l->alpha, l->B, l->beta};
}
// The compute axis the curves are drawn on: a third below the ladder to three
// times above the target (or the ladder's top), log-spaced.
inline std::vector<double> flopsGrid(const IsoflopsView& v, int points) {
  return log_spaced_flops(v.ladder_min_flops / 3, std::max(v.target_flops, v.ladder_max_flops) * 3,
                          points);
}
inline std::optional<LossLaw> fittedLaw(const IsoflopsShown& s) {
  return s.fit ? std::optional<LossLaw>(s.fit->law) : std::nullopt;
}

}  // namespace napkin
