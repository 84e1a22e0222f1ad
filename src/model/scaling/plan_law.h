// The loss law a plan forecasts with, as a scenario choice: the built-in
// replication of Chinchilla (Besiroglu et al. 2024), the Chinchilla paper's
// own constants (Hoffmann et al. 2022, Approach 3), or a law fitted to the
// user's ladder, with its bootstrap draws. Every forecast of the plan (Budget,
// memo, report, diff, Monte Carlo) reads one PlanLaw and names it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "loss_law.h"

namespace napkin {

enum class LawChoice {
  replication,       // Besiroglu et al. 2024, Table 1
  chinchilla_paper,  // Hoffmann et al. 2022, Approach 3
  fitted,            // fitted to the user's ladder (the IsoFLOPs panel's, or a law file)
};
std::string_view to_string(LawChoice choice);  // "replication", "chinchilla_paper", "fitted"
// Throws std::invalid_argument naming the accepted values.
LawChoice parse_law_choice(std::string_view text);

// A fitted law's forecast is refused this many decades of compute beyond the
// largest run it was fitted on: a ladder of 1e20-FLOP runs says nothing
// trustworthy about 1e27 FLOPs (the seed's risk score calls 2 decades high).
inline constexpr double kMaxFittedExtrapolationDecades = 5.0;

struct PlanLaw {
  LawChoice choice = LawChoice::replication;
  LossLaw law = besiroglu2024_law();
  // For read-outs: "the replicated Chinchilla law (Besiroglu et al. 2024)".
  std::string name;
  // The largest run of the ladder the law was fitted on, FLOPs; a forecast
  // beyond it extrapolates.
  double ladder_max_flops = kChinchillaLadderMaxFlops;
  // Bootstrap resample laws (fitted laws only); empty: no interval.
  std::vector<LossLaw> draws;
  double confidence = 0.95;  // central percentile interval of the draws
  // Throws std::invalid_argument naming the constant ("alpha", "draws[3].E").
  void validate() const;
  bool operator==(const PlanLaw&) const = default;
};

PlanLaw replication_plan_law();
PlanLaw chinchilla_paper_plan_law();
// A built-in law (replication or chinchilla_paper); throws for fitted.
PlanLaw builtin_plan_law(LawChoice choice);
// A law fitted to `origin` ("ladder.csv"), named "the law fitted to <origin>".
PlanLaw fitted_plan_law(const LossLaw& law, std::vector<LossLaw> draws, const std::string& origin,
                        double ladder_max_flops, double confidence = 0.95);

// Throws std::invalid_argument when a fitted law would forecast more than
// kMaxFittedExtrapolationDecades beyond its ladder; built-in laws pass.
void require_within_range(const PlanLaw& law, double flops);

struct LossInterval {
  double low = 0;   // nats/token
  double high = 0;  // nats/token
  int draws = 0;
};
// The central `confidence` percentile interval of `loss_of(draw)` over the
// law's draws; nullopt without draws.
template <class LossOf>
std::optional<LossInterval> draw_interval(const PlanLaw& law, LossOf loss_of);
std::optional<LossInterval> interval_of(std::vector<double> losses, double confidence);

template <class LossOf>
std::optional<LossInterval> draw_interval(const PlanLaw& law, LossOf loss_of) {
  std::vector<double> v;
  v.reserve(law.draws.size());
  for (const LossLaw& d : law.draws) v.push_back(loss_of(d));
  return interval_of(std::move(v), law.confidence);
}

}  // namespace napkin
