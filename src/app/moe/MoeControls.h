// The MoE router panel's controls, declared on a ControlColumn and bound to
// the shared scenario's MoeSettings (s.moe): each change is one undo step and
// is saved with the scenario. Every control is a named member.
#pragma once

#include "ScenarioControls.h"

namespace napkin {

struct MoeControls {
  // The router (restarts the run).
  SliderSpin* experts = nullptr;
  SliderSpin* tokens = nullptr;
  SliderSpin* seed = nullptr;
  // Training knobs (continue the run).
  SliderSpin* top_k = nullptr;
  SliderSpin* aux = nullptr;
  QCheckBox* aux_zero = nullptr;  // checked: α = 0 (no balance loss)
  SliderSpin* z = nullptr;
  QCheckBox* z_zero = nullptr;  // checked: γ = 0 (no z-loss)
  SliderSpin* capacity_factor = nullptr;
  SliderSpin* lr = nullptr;
  QCheckBox* shared = nullptr;
  QCheckBox* renormalize = nullptr;
  // Link and pipeline.
  SliderSpin* prefill = nullptr;
  SliderSpin* link = nullptr;
  SliderSpin* latency = nullptr;
  SliderSpin* chunks = nullptr;
  SliderSpin* stages = nullptr;
  SliderSpin* compute_ms = nullptr;
  SliderSpin* transfer_ms = nullptr;

  static MoeControls declare(ControlColumn* column, ScenarioModel* model);
  // α and γ sliders are enabled only while their loss is on.
  void syncEnabled(const ScenarioModel* model) const;
};

}  // namespace napkin
