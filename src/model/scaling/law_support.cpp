// Whether a fitted law is one a training run can follow: the checks every fit
// of a ladder passes before anything reads it (fit_parametric).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
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

namespace {

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

std::string not_physical_message(const std::string& reason,
                                 const std::vector<LadderOutlier>& outliers, std::size_t n_points) {
  if (outliers.empty()) return reason + "; check the ladder's runs";
  std::string out = reason + "; check ";
  for (std::size_t i = 0; i < outliers.size(); ++i)
    out += (i ? ", " : "") + std::string("run ") + std::to_string(outliers[i].index + 1) + " of " +
           std::to_string(n_points) + " (" + describe_outlier(outliers[i]) + ")";
  return out;
}

}  // namespace

std::vector<LadderOutlier> ladder_outliers(const std::vector<LadderPoint>& points,
                                           std::size_t max_named) {
  std::vector<double> log_n, log_d;
  for (const LadderPoint& p : points) {
    log_n.push_back(std::log10(p.n_params));
    log_d.push_back(std::log10(p.n_tokens));
  }
  std::vector<LadderOutlier> out;
  if (points.empty()) return out;
  const double mid_n = median(log_n), mid_d = median(log_d);
  for (std::size_t i = 0; i < points.size() && out.size() < max_named; ++i) {
    const double off_n = log_n[i] - mid_n, off_d = log_d[i] - mid_d;
    if (std::fabs(off_n) >= kOutlierDecades)
      out.push_back({i, false, points[i].n_params, off_n});
    else if (std::fabs(off_d) >= kOutlierDecades)
      out.push_back({i, true, points[i].n_tokens, off_d});
  }
  return out;
}

std::string describe_outlier(const LadderOutlier& o) {
  const char* what = o.tokens ? "D" : "N";
  return std::string(what) + " = " + format_sci(o.value, 2) + ", " +
         format_grouped(std::fabs(o.decades), 1) + " decades " +
         (o.decades < 0 ? "below" : "above") + " the median " + what;
}

NotPhysical::NotPhysical(const std::string& reason_, std::vector<LadderOutlier> outliers_,
                         std::size_t n_points)
    : std::invalid_argument(not_physical_message(reason_, outliers_, n_points)),
      reason(reason_),
      outliers(std::move(outliers_)) {}

}  // namespace napkin
