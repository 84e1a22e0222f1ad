// The scaling-law fit and its bootstrap, run for real on small ladders: the
// input is a CSV ladder (at most 64 points) preceded by one control byte
// (estimator, bootstrap on/off). Every ladder either fits to a finite law
// with a finite compute-optimal forecast, or throws std::invalid_argument.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "csv_ladder.h"
#include "scaling.h"

namespace {

bool finite_law(const napkin::LossLaw& l) {
  return std::isfinite(l.E) && std::isfinite(l.A) && std::isfinite(l.alpha) && std::isfinite(l.B) &&
         std::isfinite(l.beta);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::uint8_t control = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  napkin::CsvLadder ladder;
  try {
    ladder = napkin::parse_csv_ladder(text, "fuzz");
  } catch (const std::invalid_argument&) {
    return 0;
  }
  if (ladder.points.size() > 64) return 0;  // bounded work per input
  napkin::FitOptions fit;
  constexpr napkin::Estimator kEstimators[] = {
      napkin::Estimator::huber_log, napkin::Estimator::ls_log, napkin::Estimator::ls_linear,
      napkin::Estimator::seed_cd};
  fit.estimator = kEstimators[control & 3];
  fit.threads = 1;
  fit.refine_starts = 1 + ((control >> 2) & 3);
  fit.max_iterations = 100;
  const double target = std::pow(10.0, 18 + (control >> 4));  // 1e18 … 1e33 FLOPs
  try {
    const napkin::FitResult f = napkin::fit_parametric(ladder.points, fit);
    if (!finite_law(f.law) || !std::isfinite(f.objective)) std::abort();
    const napkin::ComputeOptimum o = napkin::analytic_optimum(f.law, target);
    if (!(std::isfinite(o.n_params) && std::isfinite(o.n_tokens))) std::abort();
    if ((control & 0x40) && fit.estimator != napkin::Estimator::seed_cd) {
      napkin::BootstrapOptions bo;
      bo.resamples = 8;
      bo.min_successful = 1;
      bo.fit = fit;
      const napkin::BootstrapResult b = napkin::bootstrap_forecast(ladder.points, target, bo);
      if (!(std::isfinite(b.ci_low) && std::isfinite(b.ci_high) && b.ci_low <= b.ci_high))
        std::abort();
    }
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
