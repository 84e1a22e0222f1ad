// The Roofline panel's numbers (roofline.*): the napkin's assumptions, the
// MFU budget's step seconds, the co-design's per-layer cost, and the Serving
// layout tab's search (its TTFT and TPOT bounds, the largest slice it tries,
// the traffic it sizes pools for), registered with the rest of the scenario's
// inputs (inputs.h) so that the panel's controls and the scenario file take
// the same values. Their ranges are the settings' own
// (RooflineSettings::validate); what depends on another field (some step
// seconds above zero) is validate()'s to refuse.
//
// No flag: `serve` reads the search's largest slice and traffic under its own
// --max-chips and --tokens-per-day (cli_serve.cpp).
#include <array>
#include <cmath>
#include <cstdint>

#include "inputs_detail.h"
#include "scenario.h"

namespace napkin::detail {

namespace {

using S = Scenario;

const RooflineSettings kRooflineDefaults{};

// One unit's seconds of the MFU budget: `Member` of MfuBudgetInputs, 0 – 1e9 s,
// the slider to 500 s in whole seconds.
template <double MfuBudgetInputs::*Member>
ScenarioInput step_seconds(ScenarioInput in) {
  in.default_value = kRooflineDefaults.mfu.*Member;
  in.lo = 0;
  in.hi = 1e9;
  in.slider_hi = 500;
  in.ladder = Ladder::multipleOf(1);
  in.get = [](const S& s) { return s.roofline.mfu.*Member; };
  in.set = [](S& s, double v) { s.roofline.mfu.*Member = v; };
  return in;
}

}  // namespace

std::span<const ScenarioInput> roofline_inputs() {
  static const std::array kRoofline{
      ScenarioInput{
          .key = "roofline.serving_layout.ttft_budget_seconds",
          .section = "roofline.serving_layout",
          .json_key = "ttft_budget_seconds",
          .flag = "",
          .label = "TTFT bound",
          .compare_name = "Roofline: TTFT bound",
          .unit = "s",
          .display_unit = "s",
          .default_value = kRooflineDefaults.serving_layout.ttft_budget_seconds,
          .lo = 0,
          .hi = 1000000.0,
          .slider_lo = 0,
          .slider_hi = 10,
          .ladder = Ladder::multipleOf(0.05),
          .decimals = 2,
          .tooltip = "Time to first token the layout search must meet (seconds); 0: not bounded. "
                     "Disaggregation needs TTFT and TPOT.",
          .special_text = "not bounded",
          .get = [](const S& s) { return s.roofline.serving_layout.ttft_budget_seconds; },
          .set = [](S& s, double v) { s.roofline.serving_layout.ttft_budget_seconds = v; }},
      ScenarioInput{
          .key = "roofline.serving_layout.tpot_budget_seconds",
          .section = "roofline.serving_layout",
          .json_key = "tpot_budget_seconds",
          .flag = "",
          .label = "TPOT bound",
          .compare_name = "Roofline: TPOT bound",
          .unit = "s",
          .display_unit = "ms",
          .default_value = kRooflineDefaults.serving_layout.tpot_budget_seconds,
          .lo = 0,
          .hi = 1000000.0,
          .slider_lo = 0,
          .slider_hi = 0.5,
          .ladder = Ladder::multipleOf(0.001),
          .display_factor = 1000,
          .tooltip = "Time per output token the layout search must meet (ms); 0: not bounded.",
          .special_text = "not bounded",
          .get = [](const S& s) { return s.roofline.serving_layout.tpot_budget_seconds; },
          .set = [](S& s, double v) { s.roofline.serving_layout.tpot_budget_seconds = v; }},
      ScenarioInput{
          .key = "roofline.serving_layout.search_max_chips",
          .section = "roofline.serving_layout",
          .json_key = "search_max_chips",
          .flag = "",
          .label = "Search up to",
          .compare_name = "Roofline: largest slice searched",
          .unit = "chips",
          .display_unit = "chips",
          .type = InputType::count,
          .default_value = static_cast<double>(kRooflineDefaults.serving_layout.search_max_chips),
          .lo = 1,
          .hi = 1'048'576,
          .slider_lo = 1,
          .slider_hi = 4'096,
          .scale = InputScale::log,
          .ladder = Ladder::powersOfTwo(),
          .tooltip = "The largest slice the layout search tries (chips): 1, 2, 4, … up to this.",
          .get =
              [](const S& s) {
                return static_cast<double>(s.roofline.serving_layout.search_max_chips);
              },
          .set = [](S& s,
                    double v) { s.roofline.serving_layout.search_max_chips = std::llround(v); }},
      ScenarioInput{
          .key = "roofline.serving_layout.generated_tokens_per_day",
          .section = "roofline.serving_layout",
          .json_key = "generated_tokens_per_day",
          .flag = "",
          .label = "Traffic",
          .compare_name = "Roofline: traffic",
          .unit = "tokens per day",
          .display_unit = "/day",
          .default_value = kRooflineDefaults.serving_layout.generated_tokens_per_day,
          .lo = 1,
          .hi = 1e+18,
          .slider_lo = 1000000.0,
          .slider_hi = 10000000000000.0,
          .scale = InputScale::log,
          .ladder = Ladder::oneTwoFive(),
          .scientific = true,
          .tooltip = "Generated tokens per day the pools are sized for (tokens/day); the prefill "
                     "and decode pools are sized for it when the layout is disaggregated.",
          .get = [](const S& s) { return s.roofline.serving_layout.generated_tokens_per_day; },
          .set = [](S& s, double v) { s.roofline.serving_layout.generated_tokens_per_day = v; }},
      ScenarioInput{.key = "roofline.prefill_mfu",
                    .section = "roofline",
                    .json_key = "prefill_mfu",
                    .flag = "",
                    .label = "Prefill MFU",
                    .compare_name = "Roofline: prefill MFU",
                    .unit = "fraction of peak",
                    .display_unit = "%",
                    .default_value = kRooflineDefaults.prefill_mfu,
                    .lo = 0.001,
                    .hi = 1,
                    .slider_lo = 0.05,
                    .slider_hi = 1.0,
                    .ladder = Ladder::multipleOf(0.01),
                    .display_factor = 100,
                    .tooltip = "Fraction of peak FLOP/s prefill achieves. The talk assumes 100 %; "
                               "40–60 % is realistic.",
                    .get = [](const S& s) { return s.roofline.prefill_mfu; },
                    .set = [](S& s, double v) { s.roofline.prefill_mfu = v; }},
      ScenarioInput{
          .key = "roofline.bandwidth_efficiency",
          .section = "roofline",
          .json_key = "bandwidth_efficiency",
          .flag = "",
          .label = "Decode BW eff.",
          .compare_name = "Roofline: decode bandwidth efficiency",
          .unit = "fraction of HBM bandwidth",
          .display_unit = "%",
          .default_value = kRooflineDefaults.bandwidth_efficiency,
          .lo = 0.001,
          .hi = 1,
          .slider_lo = 0.05,
          .slider_hi = 1.0,
          .ladder = Ladder::multipleOf(0.01),
          .display_factor = 100,
          .tooltip = "Fraction of HBM bandwidth a decode step achieves: decode s ∝ 1 ÷ this.",
          .get = [](const S& s) { return s.roofline.bandwidth_efficiency; },
          .set = [](S& s, double v) { s.roofline.bandwidth_efficiency = v; }},
      ScenarioInput{
          .key = "roofline.step_floor_seconds",
          .section = "roofline",
          .json_key = "step_floor_seconds",
          .flag = "",
          .label = "Step floor",
          .compare_name = "Roofline: decode step floor",
          .unit = "s per decode step",
          .display_unit = "ms",
          .default_value = kRooflineDefaults.step_floor_seconds,
          .lo = 0,
          .hi = 1000.0,
          .slider_lo = 0,
          .slider_hi = 0.01,
          .ladder = Ladder::multipleOf(0.0001),
          .decimals = 1,
          .display_factor = 1000,
          .tooltip = "Serial time per decode step more chips cannot shrink (ms): kernel launches, "
                     "collective hops, sampling. 0 in the seed's napkin.",
          .get = [](const S& s) { return s.roofline.step_floor_seconds; },
          .set = [](S& s, double v) { s.roofline.step_floor_seconds = v; }},
      ScenarioInput{.key = "roofline.max_chips",
                    .section = "roofline",
                    .json_key = "max_chips",
                    .flag = "",
                    .label = "Largest slice",
                    .compare_name = "Roofline: largest slice",
                    .unit = "chips",
                    .display_unit = "chips",
                    .type = InputType::count,
                    .default_value = static_cast<double>(kRooflineDefaults.max_chips),
                    .lo = 1,
                    .hi = 1'099'511'627'776,
                    .slider_lo = 1,
                    .slider_hi = 1'048'576,
                    .scale = InputScale::log,
                    .ladder = Ladder::powersOfTwo(),
                    .tooltip = "The largest slice you can get (chips): chips for the budget tries "
                               "1, 2, 4, … up to this and says none beyond it.",
                    .get = [](const S& s) { return static_cast<double>(s.roofline.max_chips); },
                    .set = [](S& s, double v) { s.roofline.max_chips = std::llround(v); }},
      ScenarioInput{.key = "roofline.matmul_dim",
                    .section = "roofline",
                    .json_key = "matmul_dim",
                    .flag = "",
                    .label = "Matmul side",
                    .compare_name = "Roofline: matmul side",
                    .unit = "elements",
                    .display_unit = "",
                    .type = InputType::count,
                    .default_value = static_cast<double>(kRooflineDefaults.matmul_dim),
                    .lo = 1,
                    .hi = 1'000'000,
                    .slider_lo = 128,
                    .slider_hi = 65'536,
                    .scale = InputScale::log,
                    .ladder = Ladder::powersOfTwo(),
                    .tooltip = "Side d of the square matmul placed on the roofline (elements): "
                               "intensity 2d/6 at bf16. The seed's is 8192.",
                    .get = [](const S& s) { return static_cast<double>(s.roofline.matmul_dim); },
                    .set = [](S& s, double v) { s.roofline.matmul_dim = std::llround(v); }},
      ScenarioInput{.key = "roofline.tile",
                    .section = "roofline",
                    .json_key = "tile",
                    .flag = "",
                    .label = "Tile side",
                    .compare_name = "Roofline: tile side",
                    .unit = "elements",
                    .display_unit = "",
                    .type = InputType::count,
                    .default_value = static_cast<double>(kRooflineDefaults.tile),
                    .lo = 1,
                    .hi = 65'536,
                    .slider_lo = 8,
                    .slider_hi = 512,
                    .scale = InputScale::log,
                    .ladder = Ladder::powersOfTwo(),
                    .tooltip = "Matmul tile side (elements): a dimension is padded up to a "
                               "multiple; efficiency = dim ÷ padded dim.",
                    .get = [](const S& s) { return static_cast<double>(s.roofline.tile); },
                    .set = [](S& s, double v) { s.roofline.tile = std::llround(v); }},
      step_seconds<&MfuBudgetInputs::matmul_seconds>(
          {.key = "roofline.mfu_budget.matmul_seconds",
           .section = "roofline.mfu_budget",
           .json_key = "matmul_seconds",
           .flag = "",
           .label = "Matmul",
           .compare_name = "Roofline: matmul seconds",
           .unit = "s",
           .display_unit = "s",
           .slider_lo = 1,
           .tooltip = "Seconds the matmul units run model matmuls (s). MFU = matmul ÷ (matmul + "
                      "vector + memory + comms + optimizer)."}),
      step_seconds<&MfuBudgetInputs::vector_seconds>(
          {.key = "roofline.mfu_budget.vector_seconds",
           .section = "roofline.mfu_budget",
           .json_key = "vector_seconds",
           .flag = "",
           .label = "Vector",
           .compare_name = "Roofline: vector seconds",
           .unit = "s",
           .display_unit = "s",
           .slider_lo = 0,
           .tooltip = "Seconds of vector work: norms, softmax (s). MFU = matmul ÷ (matmul + vector "
                      "+ memory + comms + optimizer)."}),
      step_seconds<&MfuBudgetInputs::memory_seconds>(
          {.key = "roofline.mfu_budget.memory_seconds",
           .section = "roofline.mfu_budget",
           .json_key = "memory_seconds",
           .flag = "",
           .label = "Memory",
           .compare_name = "Roofline: memory seconds",
           .unit = "s",
           .display_unit = "s",
           .slider_lo = 0,
           .tooltip = "Seconds moving activations, not overlapped (s). MFU = matmul ÷ (matmul + "
                      "vector + memory + comms + optimizer)."}),
      step_seconds<&MfuBudgetInputs::comms_seconds>(
          {.key = "roofline.mfu_budget.comms_seconds",
           .section = "roofline.mfu_budget",
           .json_key = "comms_seconds",
           .flag = "",
           .label = "Comms",
           .compare_name = "Roofline: comms seconds",
           .unit = "s",
           .display_unit = "s",
           .slider_lo = 0,
           .tooltip = "Seconds in exposed collectives (s). MFU = matmul ÷ (matmul + vector + "
                      "memory + comms + optimizer)."}),
      step_seconds<&MfuBudgetInputs::optimizer_seconds>(
          {.key = "roofline.mfu_budget.optimizer_seconds",
           .section = "roofline.mfu_budget",
           .json_key = "optimizer_seconds",
           .flag = "",
           .label = "Optimizer",
           .compare_name = "Roofline: optimizer seconds",
           .unit = "s",
           .display_unit = "s",
           .slider_lo = 0,
           .tooltip = "Seconds in the optimizer step (s). MFU = matmul ÷ (matmul + vector + memory "
                      "+ comms + optimizer)."}),
      ScenarioInput{.key = "roofline.recompute",
                    .section = "roofline",
                    .json_key = "recompute",
                    .flag = "",
                    .label = "Recompute",
                    .compare_name = "Roofline: recompute factor",
                    .unit = "hardware FLOPs per model FLOP",
                    .display_unit = "×",
                    .default_value = kRooflineDefaults.recompute,
                    .lo = 1,
                    .hi = 10,
                    .slider_lo = 1.0,
                    .slider_hi = 2.0,
                    .ladder = Ladder::multipleOf(0.01),
                    .decimals = 2,
                    .tooltip = "Hardware FLOPs per model FLOP: 8/6 ≈ 1.33 with full activation "
                               "checkpointing, 1 without. HFU = MFU × this.",
                    .get = [](const S& s) { return s.roofline.recompute; },
                    .set = [](S& s, double v) { s.roofline.recompute = v; }},
      ScenarioInput{
          .key = "roofline.per_layer_serial_seconds",
          .section = "roofline",
          .json_key = "per_layer_serial_seconds",
          .flag = "",
          .label = "Per-layer cost",
          .compare_name = "Roofline: per-layer serial cost",
          .unit = "s per layer per step",
          .display_unit = "µs",
          .default_value = kRooflineDefaults.per_layer_serial_seconds,
          .lo = 0,
          .hi = 1,
          .slider_lo = 0,
          .slider_hi = 0.0001,
          .ladder = Ladder::multipleOf(1e-6),
          .display_factor = 1e6,
          .tooltip = "Serial launch/sync time per layer per decode step (µs): deeper models pay it "
                     "L times per token.",
          .get = [](const S& s) { return s.roofline.per_layer_serial_seconds; },
          .set = [](S& s, double v) { s.roofline.per_layer_serial_seconds = v; }},

  };
  return kRoofline;
}

}  // namespace napkin::detail
