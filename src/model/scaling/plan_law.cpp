#include "plan_law.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "format.h"
#include "validate.h"

namespace napkin {

std::string_view to_string(LawChoice choice) {
  switch (choice) {
    case LawChoice::replication: return "replication";
    case LawChoice::chinchilla_paper: return "chinchilla_paper";
    case LawChoice::fitted: return "fitted";
  }
  return "replication";
}

LawChoice parse_law_choice(std::string_view text) {
  if (text == "replication") return LawChoice::replication;
  if (text == "chinchilla_paper") return LawChoice::chinchilla_paper;
  if (text == "fitted") return LawChoice::fitted;
  throw std::invalid_argument("law must be one of replication, chinchilla_paper, fitted; got \"" +
                              std::string(text.substr(0, 40)) + "\"");
}

namespace {

// The constants a forecast can use: the LossLaw checks plus an irreducible
// loss no text goes below (0.01 nats) or above (10 nats), named as `prefix`.
void validate_law(const LossLaw& l, const std::string& prefix) {
  require_real(l.E, prefix + "E", "nats/token", 0.01, 10.0);
  require_real(l.A, prefix + "A", "law coefficient", 0.0, 1e30, true);
  require_real(l.alpha, prefix + "alpha", "exponent", 0.0, 2.0, true);
  require_real(l.B, prefix + "B", "law coefficient", 0.0, 1e30, true);
  require_real(l.beta, prefix + "beta", "exponent", 0.0, 2.0, true);
}

}  // namespace

void PlanLaw::validate() const {
  validate_law(law, "");
  require_real(ladder_max_flops, "ladder_max_flops", "FLOPs", 1.0, 1e40);
  require_real(confidence, "confidence", "fraction", 0.0, 1.0, true);
  if (choice != LawChoice::fitted && !draws.empty())
    throw std::invalid_argument("draws: only a fitted law carries bootstrap draws");
  for (std::size_t i = 0; i < draws.size(); ++i)
    validate_law(draws[i], "draws[" + std::to_string(i) + "].");
}

PlanLaw replication_plan_law() {
  PlanLaw p;
  p.choice = LawChoice::replication;
  p.law = besiroglu2024_law();
  p.name = "the replicated Chinchilla law (Besiroglu et al. 2024)";
  return p;
}

PlanLaw chinchilla_paper_plan_law() {
  PlanLaw p;
  p.choice = LawChoice::chinchilla_paper;
  p.law = chinchilla_approach3_law();
  p.name = "the Chinchilla paper's law (Hoffmann et al. 2022, Approach 3)";
  return p;
}

PlanLaw builtin_plan_law(LawChoice choice) {
  switch (choice) {
    case LawChoice::replication: return replication_plan_law();
    case LawChoice::chinchilla_paper: return chinchilla_paper_plan_law();
    case LawChoice::fitted: break;
  }
  throw std::invalid_argument("law: a fitted law needs a ladder or a law file, it is not built in");
}

PlanLaw fitted_plan_law(const LossLaw& law, std::vector<LossLaw> draws, const std::string& origin,
                        double ladder_max_flops, double confidence) {
  PlanLaw p;
  p.choice = LawChoice::fitted;
  p.law = law;
  p.name = "the law fitted to " + origin;
  p.ladder_max_flops = ladder_max_flops;
  p.draws = std::move(draws);
  p.confidence = confidence;
  p.validate();
  return p;
}

void require_within_range(const PlanLaw& law, double flops) {
  if (law.choice != LawChoice::fitted) return;
  const double decades = std::log10(flops / law.ladder_max_flops);
  if (decades <= kMaxFittedExtrapolationDecades) return;
  throw std::invalid_argument(
      "ladder_max_flops: " + law.name + " was fitted on runs up to " +
      format_sci(law.ladder_max_flops, 2) + " FLOPs; the plan's " + format_sci(flops, 2) +
      " FLOPs lie " + format_grouped(decades, 1) + " decades beyond, more than the " +
      format_grouped(kMaxFittedExtrapolationDecades, 0) +
      " a forecast may reach: fit a ladder with larger runs or use a built-in law");
}

std::optional<LossInterval> interval_of(std::vector<double> losses, double confidence) {
  std::erase_if(losses, [](double v) { return !std::isfinite(v); });
  if (losses.empty()) return std::nullopt;
  std::sort(losses.begin(), losses.end());
  auto at = [&](double q) {
    const double pos = q * static_cast<double>(losses.size() - 1);
    const auto i = static_cast<std::size_t>(std::floor(pos));
    const std::size_t j = std::min(i + 1, losses.size() - 1);
    return losses[i] + (pos - static_cast<double>(i)) * (losses[j] - losses[i]);
  };
  const double tail = (1.0 - confidence) / 2.0;
  return LossInterval{at(tail), at(1.0 - tail), static_cast<int>(losses.size())};
}

}  // namespace napkin
