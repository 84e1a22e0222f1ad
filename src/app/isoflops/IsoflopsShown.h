// What the IsoFLOPs panel shows at one moment, in one value: the ladder's
// view at C* (the cheap path), the fit and bootstrap results for it (the
// slow path, possibly pending) and the read-outs at C* the model derives from
// both. The read-outs and every plot draw from it; a pinned baseline is one
// more of it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "isoflops/IsoflopsJob.h"
#include "isoflops_view.h"

namespace napkin {

struct IsoflopsShown {
  IsoflopsLadderView ladder;
  std::optional<FitResult> fit;  // the fit shown: current, or the previous one while pending
  JobState fit_state = JobState::pending;
  JobState boot_state = JobState::pending;
  std::string fit_error, boot_error;
  std::vector<BandPoint> band;  // the bootstrap band shown (empty: none)
  int n_successful = 0, n_skipped = 0;
  IsoflopsForecast forecast;
  CandidateRecipe candidate;
  bool follows_budget = true;
  int serial = 0;  // bumps whenever the fit or bootstrap results change

  const IsoflopsView& view() const { return ladder.view; }
  double target() const { return ladder.view.target_flops; }
  // The fit shown is for older inputs (a new one is pending).
  bool fitStale() const { return fit && fit_state == JobState::pending; }
  bool bandStale() const { return !band.empty() && boot_state == JobState::pending; }
};

// Combines the cheap view with the job's results (the model derives the
// read-outs at C*: isoflops_forecast).
IsoflopsShown makeIsoflopsShown(IsoflopsLadderView ladder, const FitJobResult& job,
                                const IsoflopsSettings& settings, int serial);

}  // namespace napkin
