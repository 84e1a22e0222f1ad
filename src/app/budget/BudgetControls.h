// The Budget planner's controls, declared on a ControlColumn and bound to the
// shared scenario. Every control is a named member: a look-up cannot miss.
#pragma once

#include "ScenarioControls.h"

#include <functional>

#include "budget/BudgetPlanControls.h"

namespace napkin {

struct BudgetControls {
  // The question, goodput and ranges (their own file).
  BudgetPlanControls plan;
  // Hardware and budget.
  QComboBox* chip = nullptr;
  SliderSpin* chips = nullptr;
  SliderSpin* days = nullptr;
  SliderSpin* mfu = nullptr;
  SliderSpin* price = nullptr;
  SliderSpin* kwh = nullptr;
  SliderSpin* pue = nullptr;
  // Allocation and serving.
  SliderSpin* tokens_per_param = nullptr;
  SliderSpin* served_tokens = nullptr;
  SliderSpin* tokens_available = nullptr;
  SliderSpin* context = nullptr;
  QComboBox* objective = nullptr;     // lifetime FLOPs or lifetime dollars
  QComboBox* serving_chip = nullptr;  // "" = the training chip
  SliderSpin* serving_price = nullptr;
  // Law and architecture: the loss law and the MoE candidate weighed against dense.
  QComboBox* law = nullptr;
  SliderSpin* moe_experts = nullptr;
  SliderSpin* moe_top_k = nullptr;
  SliderSpin* moe_granularity = nullptr;
  SliderSpin* moe_shared_experts = nullptr;
  // Model.
  QComboBox* preset = nullptr;
  SliderSpin* layers = nullptr;
  SliderSpin* d_model = nullptr;
  SliderSpin* d_ff = nullptr;
  SliderSpin* heads = nullptr;
  QComboBox* kv_heads = nullptr;
  SliderSpin* head_dim = nullptr;
  SliderSpin* vocab = nullptr;
  QCheckBox* gated = nullptr;
  QCheckBox* tied = nullptr;
  SliderSpin* experts = nullptr;
  SliderSpin* top_k = nullptr;
  SliderSpin* shared_experts = nullptr;
  SliderSpin* expert_d_ff = nullptr;
  SliderSpin* dense_layers = nullptr;
  // Training set-up.
  QComboBox* optimizer = nullptr;
  QComboBox* train_precision = nullptr;
  QComboBox* zero = nullptr;
  SliderSpin* dp = nullptr;
  QComboBox* checkpointing = nullptr;
  SliderSpin* micro_batch = nullptr;
  SliderSpin* seq_len = nullptr;

  // Declares every control on `column`, bound to `model`'s scenario.
  // `chinchilla_params` gives the current budget's N for the
  // "Chinchilla-optimal for this budget" preset; `view` the panel's last view
  // (derived values shown until typed).
  static BudgetControls declare(ControlColumn* column, ScenarioModel* model,
                                std::function<double()> chinchilla_params,
                                BudgetPlanControls::ViewGetter view);
};

}  // namespace napkin
