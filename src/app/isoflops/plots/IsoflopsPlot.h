// An IsoFLOPs panel plot: draws from what the panel shows (IsoflopsShown),
// and a pinned baseline's as faded dashed ghosts behind it.
#pragma once

#include "ViewPlot.h"
#include "isoflops_view.h"

namespace napkin {

using IsoflopsPlot = ViewPlot<IsoflopsShown>;

// Shared by the plots: the laws' constants as memo inputs.
inline std::vector<double> lawKey(const std::optional<LossLaw>& l) {
  if (!l) return {};
  return {l->E, l->A, l->alpha, l->B, l->beta};
}
inline std::optional<LossLaw> fittedLaw(const IsoflopsShown& s) {
  return s.fit ? std::optional<LossLaw>(s.fit->law) : std::nullopt;
}

}  // namespace napkin
