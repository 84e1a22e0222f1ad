// Data-constrained scaling (seed Claim 16, Phase 01's L(N, D, U)): what
// repeated tokens and excess parameters are worth, after Muennighoff et al.
// 2023, "Scaling Data-Constrained Language Models" (NeurIPS 2023,
// arXiv:2305.16264, §3 eq. 5–6; fitted constants from the authors' released
// parametric fit, github.com/huggingface/datablations, "Parametric Fit").
//
//   D′ = U_D + U_D·R_D*·(1 − e^(−R_D/R_D*)),  R_D = D/U_D − 1 repetitions
//   N′ = U_N + U_N·R_N*·(1 − e^(−R_N/R_N*)),  U_N = min(N, N_opt(U_D)),
//                                             R_N = N/U_N − 1 excess
//   L(N, D, U) = E + A/N′^α + B/D′^β
//
// The seed's exponential toy (effective_tokens_toy in scaling.h) stays as a
// labelled comparison; planning uses this law.
#pragma once

#include <optional>
#include <vector>

#include "loss_law.h"

namespace napkin {

// Muennighoff et al. 2023 fitted decay constants: repeated tokens lose value
// with a "half-life" of R_D* = 15.4 repetitions, excess parameters with R_N* = 5.3.
inline constexpr double kMuennighoffRdStar = 15.387756;
inline constexpr double kMuennighoffRnStar = 5.309743;

// Effective tokens D′ for `tokens_seen` training tokens drawn from
// `unique_tokens` (epochs = D/U; R_D = epochs − 1). D′ = D at or below one
// epoch; D′ ≤ D always; D′ < U·(1 + R_D*) however many epochs.
double effective_tokens(double unique_tokens, double tokens_seen,
                        double rd_star = kMuennighoffRdStar);
// Effective parameters N′ for N parameters when U_N are as many as the
// unique data can use (N′ = N for N ≤ U_N; N′ < U_N·(1 + R_N*)).
double effective_params(double n_params, double useful_params, double rn_star = kMuennighoffRnStar);

// Compute-optimal N for D tokens under a law L = E + A/N^α + B/D^β:
// N = G·(D·G)^(β/α), G = (αA / βB)^(1/(α+β)) (Hoffmann et al. 2022, App. D;
// the datablations D_to_N).
double compute_optimal_params_for_tokens(const LossLaw& law, double tokens);

// A loss law with the data-constrained terms.
struct DataConstrainedLaw {
  LossLaw base;  // L(N, D) on fresh tokens
  double rd_star = kMuennighoffRdStar;
  double rn_star = kMuennighoffRnStar;

  void validate() const;
  // Parameters the unique tokens can use: min(N, N_opt(U)).
  double useful_params(double n_params, double unique_tokens) const;
  // Loss at N parameters, D training tokens, U unique tokens. Equals
  // base.loss(N, D) when D ≤ U and N ≤ N_opt(U) (no repetition, no excess);
  // never below it; continuous in D and N.
  double loss(double n_params, double tokens_seen, double unique_tokens) const;
  // Training tokens that bring N to `target_loss` with U unique tokens;
  // nullopt when no amount of repetition gets there.
  std::optional<double> tokens_for_loss(double n_params, double target_loss,
                                        double unique_tokens) const;
};

// The data-constrained loss of one run (N, D) for many unique-token counts U
// (a Monte Carlo over the corpus size): validated once, then the very
// arithmetic of DataConstrainedLaw::loss, which calls it.
class RunLossByUniqueTokens {
 public:
  RunLossByUniqueTokens(const DataConstrainedLaw& law, double n_params, double tokens_seen);
  double operator()(double unique_tokens) const;

 private:
  DataConstrainedLaw law_;
  double n_ = 0, d_ = 0;
  double g_ = 0, n_opt_exponent_ = 0;  // N_opt(U) = g·(U·g)^(β/α)
  double capacity_at_n_ = 0;           // A / N^α, when no parameter is in excess
};

// Muennighoff et al.'s own fit (C4, GPT-2 tokens): E = e^0.6254804,
// A = e^6.255414, B = e^7.3049974, α = β = 0.3526596, with R_D*, R_N*.
// Its worked example: L(6.34B, 242B, 25B) = 2.22564 beats L(8.67B, 178B,
// 25B) = 2.22696 (their Figure 1, right).
DataConstrainedLaw muennighoff2023_fit();
// Napkin's planning law: the given fresh-token law with Muennighoff's decay
// constants (the decay is in repetitions, so it carries across base fits).
DataConstrainedLaw with_muennighoff_decay(const LossLaw& base = besiroglu2024_law());

// The best split of a compute budget C = 6·N·D when only U unique tokens
// exist: argmin over N of L(N, C/6N, U) (fixed grid + golden section,
// deterministic).
struct DataLimitedSplit {
  double params = 0;
  double tokens = 0;
  double epochs = 0;            // tokens ÷ unique tokens
  double effective_tokens = 0;  // D′
  double effective_params = 0;  // N′
  double loss = 0;              // under the data-constrained law
};
DataLimitedSplit best_split_under_data_limit(const DataConstrainedLaw& law, double flops,
                                             double unique_tokens);
// The same split with unlimited fresh tokens (the law's own compute-optimum).
DataLimitedSplit best_split_fresh(const LossLaw& law, double flops);

// Loss against epochs at fixed N (a plot): for epochs e, D = e·U. `law` is
// the data-constrained law, `fresh` the same D counted as fresh tokens, and
// the seed's toy at whole epochs (its exponential decay, half-life 5).
struct EpochCurve {
  double n_params = 0;
  double unique_tokens = 0;
  std::vector<double> epochs;
  std::vector<double> loss;             // data-constrained
  std::vector<double> loss_fresh;       // if every token were new
  std::vector<double> toy_epochs;       // 1, 2, … ≤ 64 (whole epochs only)
  std::vector<double> toy_loss;         // base.loss(N, effective_tokens_toy(U, e))
  std::optional<double> marked_epochs;  // the recommended run
  double marked_loss = 0;
};
EpochCurve loss_vs_epochs(const DataConstrainedLaw& law, double n_params, double unique_tokens,
                          double max_epochs = 64, std::optional<double> marked_epochs = {},
                          int n_points = 97);

}  // namespace napkin
