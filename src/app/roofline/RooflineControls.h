// The Roofline panel's controls, declared on a ControlColumn and bound to the
// scenario: the shared chip, chips and serving turn, the panel's own
// RooflineSettings (saved with the scenario). Every edit is one undo step.
#pragma once

#include "ScenarioControls.h"

#include <QString>
#include <string>
#include <utility>
#include <vector>

namespace napkin {

struct RooflineControls {
  // Chip and context (shared).
  QComboBox* chip = nullptr;
  SliderSpin* chips = nullptr;
  SliderSpin* context = nullptr;
  // Serving turn (shared).
  SliderSpin* prompt = nullptr;
  SliderSpin* decode_tokens = nullptr;
  SliderSpin* budget = nullptr;
  SliderSpin* overhead = nullptr;
  SliderSpin* batch = nullptr;
  QComboBox* weight_precision = nullptr;
  QComboBox* kv_precision = nullptr;
  QComboBox* engine = nullptr;
  // Napkin assumptions.
  SliderSpin* prefill_mfu = nullptr;
  SliderSpin* bandwidth = nullptr;
  SliderSpin* step_floor = nullptr;
  SliderSpin* max_chips = nullptr;
  SliderSpin* matmul_dim = nullptr;
  // The MFU budget.
  SliderSpin* matmul_s = nullptr;
  SliderSpin* vector_s = nullptr;
  SliderSpin* memory_s = nullptr;
  SliderSpin* comms_s = nullptr;
  SliderSpin* optimizer_s = nullptr;
  SliderSpin* recompute = nullptr;
  // Co-design.
  SliderSpin* tile = nullptr;
  SliderSpin* layer_serial = nullptr;
  // Serving layout.
  SliderSpin* serving_chips = nullptr;
  QComboBox* layout = nullptr;
  QCheckBox* communication = nullptr;
  SliderSpin* ttft = nullptr;
  SliderSpin* tpot = nullptr;
  SliderSpin* search_max_chips = nullptr;
  SliderSpin* tokens_per_day = nullptr;
  QComboBox* max_tokens = nullptr;  // the frontier's scheduler
  QComboBox* chunked_prefill = nullptr;
  QComboBox* memory_fraction = nullptr;  // the engine's memory setting
  // The benchmark run (ServingRunControls.h).
  QComboBox* run_mode = nullptr;
  QComboBox* run_concurrency = nullptr;
  SliderSpin* run_rate = nullptr;
  SliderSpin* run_requests = nullptr;
  SliderSpin* run_prompt_spread = nullptr;
  SliderSpin* run_output_spread = nullptr;
  // Overlays: (chip name, its box).
  std::vector<std::pair<std::string, QCheckBox*>> overlays;

  static RooflineControls declare(ControlColumn* column, ScenarioModel* model);
  // Keys of every slider and combo, for tests: "budget" → the control.
  SliderSpin* slider(const QString& key) const;
  QComboBox* combo(const QString& key) const;
};

}  // namespace napkin
