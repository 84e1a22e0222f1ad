#include "isoflops/IsoflopsShown.h"

namespace napkin {

IsoflopsShown makeIsoflopsShown(IsoflopsLadderView ladder, const FitJobResult& job,
                                const IsoflopsSettings& settings, int serial) {
  IsoflopsShown s;
  s.ladder = std::move(ladder);
  if (const FitResult* f = job.shownFit()) s.fit = *f;
  s.fit_state = job.fit_state;
  s.boot_state = job.boot_state;
  s.fit_error = job.fit_error;
  s.boot_error = job.boot_error;
  const std::vector<LossLaw>& laws = job.shownLaws();
  if (!laws.empty()) s.band = job.band;
  s.n_successful = job.n_successful;
  s.n_skipped = job.n_skipped;
  s.forecast =
      isoflops_forecast(s.ladder.view, s.fit ? &s.fit->law : nullptr, laws, s.ladder.truth);
  s.candidate = settings.candidate;
  s.follows_budget = settings.target_follows_budget;
  s.serial = serial;
  return s;
}

}  // namespace napkin
