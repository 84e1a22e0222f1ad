// The IsoFLOPs panel's inputs as part of the scenario document: the ladder
// (synthetic, or a CSV ladder with its points embedded), the fit, the target
// and the candidate recipe.
//
// Plain structs with in-class defaults (each the panel's default on first
// launch) and a validate() that throws std::invalid_argument naming the field,
// its unit and the accepted range.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "loss_law.h"
#include "scaling.h"

namespace napkin {

// The law the synthetic ladder is drawn from: a published one or custom
// constants (editing a constant makes it custom).
enum class LawPreset { chinchilla_approach3, besiroglu2024, custom };
std::string_view to_string(LawPreset p);  // "chinchilla-approach3" | "besiroglu2024" | "custom"
LawPreset parse_law_preset(std::string_view text);
// The preset's constants; `custom` has none and throws.
LossLaw law_of(LawPreset p);

// The synthetic ladder: budgets × sizes drawn from a ground-truth law with
// seeded noise, and the two lessons (the LR-decay bias, the uniform offset).
struct SyntheticLadderSettings {
  LawPreset law_preset = LawPreset::chinchilla_approach3;
  LossLaw law = chinchilla_approach3_law();
  int n_budgets = 5;  // IsoFLOPs budgets, log-spaced from min to max
  double budget_min_flops = 1e18;
  double budget_max_flops = 1e22;
  int sizes_per_budget = 6;
  double size_span_decades = 1.5;
  double noise = 0.005;  // σ of the multiplicative log-normal noise on L
  bool outlier = false;  // one run gets +1.5 nats (a diverged run)
  bool bias_on = false;  // the schedule-mismatch (LR-decay) bias
  double bias_nats = 0.05;
  BiasMode bias_mode = BiasMode::fixed_schedule;
  bool offset_on = false;  // the uniform offset (the control)
  double offset_nats = 0.05;

  void validate() const;
  bool operator==(const SyntheticLadderSettings&) const = default;
};

// What a CSV column holds when it is the tokens column.
enum class TokensKind { tokens, flops };   // D itself, or training compute C with D = C/6N
enum class LossUnit { nats, bits };        // per token; bits are converted (× ln 2)
std::string_view to_string(TokensKind k);  // "tokens" | "flops"
std::string_view to_string(LossUnit u);    // "nats" | "bits"
TokensKind parse_tokens_kind(std::string_view text);
LossUnit parse_loss_unit(std::string_view text);

// Which column of a CSV ladder holds what, and in which unit. A scale
// multiplies the file's numbers into the model's unit (a "params (M)" column
// has n_params_scale 1e6).
struct LadderColumns {
  std::string n_params = "N";
  double n_params_scale = 1;
  std::string tokens = "D";
  TokensKind tokens_kind = TokensKind::tokens;
  double tokens_scale = 1;
  std::string loss = "loss";
  LossUnit loss_unit = LossUnit::nats;
  std::string budget;  // optional IsoFLOPs budget label (FLOPs); "" = none
  double budget_scale = 1;

  void validate() const;
  bool operator==(const LadderColumns&) const = default;
};

// A ladder read from a CSV file, embedded in the scenario so that a saved
// document reopens without the file. `points` are every row the import kept,
// in file order, before the loss cut (which is a setting applied on use).
struct LoadedLadder {
  std::string file_name;  // the file's name, without its folder
  LadderColumns columns;
  std::int64_t data_rows = 0;  // data rows in the file (kept + skipped)
  std::vector<LadderPoint> points;

  std::int64_t skipped_rows() const { return data_rows - static_cast<std::int64_t>(points.size()); }
  void validate() const;
  bool operator==(const LoadedLadder&) const = default;
};

struct LossCut {
  bool enabled = true;
  double max_loss = 3.4469;  // nats/token; Besiroglu et al. keep the 240 rows below it
  bool operator==(const LossCut&) const = default;
};

struct FitSettings {
  Estimator estimator = Estimator::huber_log;
  double huber_delta = 1e-3;  // on log residuals
  int resamples = 500;        // bootstrap resamples

  void validate() const;
  FitOptions fit_options() const;
  bool operator==(const FitSettings&) const = default;
};

// The recipe compared with the fitted law at C* (plot 5).
enum class CandidatePreset { fitted_law, seed_candidate, chinchilla_approach3, besiroglu2024 };
std::string_view to_string(CandidatePreset p);  // "fitted-law" | "seed-candidate" | ...
CandidatePreset parse_candidate_preset(std::string_view text);

struct CandidateRecipe {
  CandidatePreset preset = CandidatePreset::fitted_law;
  // The seed's trade-off at half strength: better per parameter, worse per token.
  double a_multiplier = 1.23;
  double b_multiplier = 0.925;
  double alpha_delta = 0.02;
  double beta_delta = -0.01;

  void validate() const;
  bool operator==(const CandidateRecipe&) const = default;
};

struct IsoflopsSettings {
  SyntheticLadderSettings synthetic;
  std::optional<LoadedLadder> loaded;  // present: the CSV ladder is in use
  LossCut loss_cut;                    // applies to a loaded ladder
  FitSettings fit;
  std::uint64_t seed = 0;  // the synthetic ladder's noise and the bootstrap's resampling
  bool target_follows_budget = true;
  double manual_target_flops = 1e24;  // C* when not following the budget
  CandidateRecipe candidate;

  void validate() const;
  bool operator==(const IsoflopsSettings&) const = default;
};

// log-spaced budgets from lo to hi (n ≥ 2; lo and hi included).
std::vector<double> geometric_budgets(double lo_flops, double hi_flops, int n);
// The synthetic ladder's spec; `bias` and `offset` switch the two lessons
// (the panel also draws the ladder without them for comparison).
SyntheticLadderSpec synthetic_ladder_spec(const IsoflopsSettings& s, bool bias, bool offset);
SyntheticLadderSpec synthetic_ladder_spec(const IsoflopsSettings& s);
// The points the panel fits: the loaded ladder after the loss cut, or the
// synthetic ladder. Throws when the loss cut leaves fewer than 5 runs.
std::vector<LadderPoint> ladder_points(const IsoflopsSettings& s);
// candidate_law(baseline, recipe), the recipe's law, is in isoflops_view.h.

}  // namespace napkin
