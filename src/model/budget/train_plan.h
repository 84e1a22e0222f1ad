// "Train this model": from a chosen model (N parameters on D tokens) to its
// compute, the days it takes on a cluster once crashes and checkpoints are
// paid for, its dollars and energy, its loss under the data-constrained law
// and whether the data suffice. The one evaluation behind the train-this-model
// mode, the budget's recommended run and every Monte Carlo draw.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "algebra.h"
#include "cluster_cost.h"
#include "data_constrained.h"
#include "goodput.h"

namespace napkin {

// The longest run a plan prices: 100 years. Longer is refused (a plan) or
// capped (a Monte Carlo draw that stalls).
inline constexpr double kMaxPlanDays = 36500.0;

struct TrainInputs {
  std::string chip = "H100";
  std::int64_t n_chips = 1000;
  double mfu = 0.4;
  double n_params = 70e9;    // total parameters: the loss law, the checkpoint, the memory
  double active_params = 0;  // parameters per token for C = 6·N·D (an MoE's active); 0 = n_params
  double train_tokens = 0;   // D; 0 = tokens_per_param × n_params
  double tokens_per_param = 20;
  double tokens_available = 15e12;  // unique tokens the corpus holds
  CostInputs cost;
  GoodputSetup goodput;
  Optimizer optimizer = Optimizer::adam;
  Precision precision = Precision::mixed_bf16;
  double memory_headroom = 0.7;  // usable share of cluster HBM for model states

  void validate() const;
  double tokens() const;        // D, resolved
  double flops_params() const;  // N used in 6·N·D
};

struct RunReport {
  double params = 0;
  double active_params = 0;
  double tokens = 0;
  double flops = 0;            // 6 · N_active · D
  double productive_days = 0;  // C ÷ (chips × peak × MFU × 86,400 s)
  double wall_clock_days = 0;  // productive ÷ goodput
  double checkpoint_bytes = 0;
  GoodputInputs goodput_inputs;  // with the checkpoint write time resolved
  GoodputReport goodput;         // over the wall-clock
  CostReport cost;               // rental and energy over the wall-clock days
  double unique_tokens = 0;
  double epochs = 0;            // D ÷ U
  double effective_tokens = 0;  // D′ (Muennighoff et al. 2023)
  double effective_params = 0;  // N′
  double loss = 0;              // data-constrained law, nats/token
  double loss_fresh = 0;        // the same (N, D) if every token were new
  bool data_suffice = true;     // D ≤ U
  std::vector<Check> checks;    // memory fits (sharded), data available
  std::string summary;          // one paragraph for the memo
};

// Throws std::invalid_argument naming the input when the run can make no
// progress (goodput 0: the cluster crashes faster than a crash is repaid).
RunReport train_run(const TrainInputs& in,
                    const DataConstrainedLaw& law = with_muennighoff_decay());

}  // namespace napkin
