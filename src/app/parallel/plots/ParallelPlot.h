// A Parallelism plot: draws from the panel's ParallelView, and a pinned
// baseline's view as faded dashed ghosts behind it.
#pragma once

#include "ViewPlot.h"
#include "parallel_view.h"

namespace napkin {

using ParallelPlot = ViewPlot<ParallelView>;

// Short axis and label texts shared by the plots.
inline QString layoutLabel(const Layout& l) {
  return QStringLiteral("TP %1 · PP %2%3 · DP %4%5")
      .arg(l.tp)
      .arg(l.pp)
      .arg(l.vpp > 1 ? QStringLiteral("×%1").arg(l.vpp) : QString())
      .arg(l.dp)
      .arg(l.cp > 1 ? QStringLiteral(" · CP %1").arg(l.cp) : QString());
}

}  // namespace napkin
