// The registry's tables by part (inputs.h joins them, in document order).
#pragma once

#include <span>

#include "inputs.h"

namespace napkin::detail {

// The Parallelism panel's global batch and custom cluster
// (inputs_parallel.cpp).
std::span<const ScenarioInput> parallel_inputs();
// The model's shape (inputs_model.cpp).
std::span<const ScenarioInput> model_inputs();
// Goodput's interruption rate, restart and checkpoint interval
// (inputs_goodput.cpp).
std::span<const ScenarioInput> goodput_inputs();
// The serving set-up: the context, the served tokens, the deployment and
// the interactive turn (inputs_serving.cpp).
std::span<const ScenarioInput> serving_inputs();
// The Serving layout tab's benchmark run (inputs_serving_run.cpp).
std::span<const ScenarioInput> serving_run_inputs();
// The MoE router panel's run of record, link and pipeline (inputs_moe.cpp).
std::span<const ScenarioInput> moe_router_inputs();
// The IsoFLOPs panel's ladder, fit, target and candidate (inputs_isoflops.cpp).
std::span<const ScenarioInput> isoflops_inputs();
// The Roofline panel's napkin, MFU budget and layout search
// (inputs_roofline.cpp).
std::span<const ScenarioInput> roofline_inputs();

}  // namespace napkin::detail
