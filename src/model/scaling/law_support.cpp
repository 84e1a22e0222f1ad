// Whether a fitted law is one a training run can follow: the checks every fit
// of a ladder passes before anything reads it (fit_parametric).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "format.h"
#include "scaling.h"
#include "validate.h"

namespace napkin {

std::string law_not_physical(const LossLaw& law, const std::vector<LadderPoint>& points) {
  std::vector<std::string> why;
  if (!(law.E >= kMinIrreducibleNats))
    why.push_back("E = " + format_grouped(law.E, 4) +
                  " nats/token (an irreducible loss must be at least " +
                  format_value(kMinIrreducibleNats) + ")");
  // The ladder's largest budget and the models trained within half a decade
  // of it: an IsoFLOPs ladder's runs there bracket the optimum, and any
  // ladder's runs lie within a few-fold of it. A law whose optimum there is
  // a hundredfold away from all of them was not set by these runs (a row far
  // from the others, a typo in N or D, pulls the exponents flat).
  double c_max = 0;
  for (const LadderPoint& p : points) c_max = std::max(c_max, 6.0 * p.n_params * p.n_tokens);
  double n_lo = 0, n_hi = 0;
  for (const LadderPoint& p : points) {
    const double c = 6.0 * p.n_params * p.n_tokens;
    if (!(c >= c_max / std::sqrt(10.0))) continue;
    n_lo = n_lo == 0 ? p.n_params : std::min(n_lo, p.n_params);
    n_hi = std::max(n_hi, p.n_params);
  }
  if (c_max > 0 && std::isfinite(c_max) && n_lo > 0) {
    const double n_opt = analytic_optimum(law, c_max).n_params;
    const double below = std::log10(n_lo / n_opt), above = std::log10(n_opt / n_hi);
    if (!std::isfinite(n_opt) || below > kMaxOptimumDecades || above > kMaxOptimumDecades)
      why.push_back(
          "its compute-optimal model at the ladder's largest budget (C = " + format_sci(c_max, 2) +
          " FLOPs) has N = " + format_sci(n_opt, 2) + " parameters, " +
          (below > 0 ? format_grouped(below, 1) + " decades below the smallest"
                     : format_grouped(above, 1) + " decades above the largest") +
          " model trained at that budget (" + format_sci(below > 0 ? n_lo : n_hi, 2) +
          "): the runs do not set the law's optimum");
  }
  std::string out;
  for (std::size_t i = 0; i < why.size(); ++i) out += (i ? "; " : "") + why[i];
  return out;
}

}  // namespace napkin
