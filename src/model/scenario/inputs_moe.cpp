// The MoE router panel's numbers (moe.*): its run of record's router and
// training knobs, and the link and pipeline of its all-to-all napkin,
// registered with the rest of the scenario's inputs (inputs.h) so that the
// panel's controls, the scenario file and `moe collapse` take the same
// values. Their ranges are the run of record's (MoeSettings::validate), which
// a file must replay; what depends on another field (top-k at most the
// experts, the steps within the run's work budget) is validate()'s to refuse.
//
// No flag: beside --scenario, --experts, --top-k and --tokens are the Budget
// planner's; `moe collapse` reads the router's own under those names
// (cli_moe.cpp), its other commands their own figures.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "inputs_detail.h"
#include "scenario.h"

namespace napkin::detail {

namespace {

using S = Scenario;

const MoeSettings kMoeDefaults{};

// A count of the router's settings: `Member` of MoeSettings.
template <std::int64_t MoeSettings::*Member>
ScenarioInput router_count(ScenarioInput in) {
  in.type = InputType::count;
  in.default_value = static_cast<double>(kMoeDefaults.*Member);
  in.get = [](const S& s) { return static_cast<double>(s.moe.*Member); };
  in.set = [](S& s, double v) { s.moe.*Member = std::llround(v); };
  return in;
}

// A real of the router's settings: `Member` of MoeSettings.
template <double MoeSettings::*Member>
ScenarioInput router_real(ScenarioInput in) {
  in.default_value = kMoeDefaults.*Member;
  in.get = [](const S& s) { return s.moe.*Member; };
  in.set = [](S& s, double v) { s.moe.*Member = v; };
  return in;
}

// A person's edit keeps k ≤ E: fewer experts lower the top-k with them, and
// a top-k above the experts is taken as all of them.
void keep_top_k_within_experts(S& s) { s.moe.top_k = std::min(s.moe.top_k, s.moe.n_experts); }

}  // namespace

std::span<const ScenarioInput> moe_router_inputs() {
  static const std::array kRouter{
      [] {
        ScenarioInput in = router_count<&MoeSettings::n_experts>(
            {.key = "moe.experts",
             .section = "moe",
             .json_key = "experts",
             .flag = "",
             .label = "Experts E",
             .compare_name = "MoE: experts",
             .unit = "routed experts",
             .display_unit = "",
             .lo = 1,
             .hi = 1024,
             .slider_lo = 2,
             .slider_hi = 256,
             .scale = InputScale::log,
             .ladder = Ladder::powersOfTwo(),
             .tooltip = "Routed experts E of the router's run (its own, not the model's). The "
                        "router is an E × d matrix; changing E restarts the run (new router, new "
                        "experts)."});
        in.edited = keep_top_k_within_experts;
        return in;
      }(),
      router_count<&MoeSettings::tokens_per_batch>(
          {.key = "moe.tokens_per_batch",
           .section = "moe",
           .json_key = "tokens_per_batch",
           .flag = "",
           .label = "Tokens/batch",
           .compare_name = "MoE: tokens per batch",
           .unit = "tokens per step",
           .display_unit = "",
           .lo = 1,
           .hi = 65'536,
           .slider_lo = 32,
           .slider_hi = 4096,
           .scale = InputScale::log,
           .ladder = Ladder::powersOfTwo(),
           .tooltip = "Tokens routed per step (T). Slots = T × k; capacity = ⌊cf × T × k / E⌋. "
                      "Restarts the run (the token stream changes)."}),
      ScenarioInput{.key = "moe.seed",
                    .section = "moe",
                    .json_key = "seed",
                    .flag = "",
                    .label = "Router seed",
                    .compare_name = "MoE: seed",
                    .unit = "seed",
                    .display_unit = "",
                    .type = InputType::count,
                    .default_value = static_cast<double>(kMoeDefaults.seed),
                    .lo = 0,
                    .hi = 1e15,  // exact as a JSON number (below 2^53)
                    .slider_lo = 0,
                    .slider_hi = 999,
                    .ladder = Ladder::multipleOf(1),
                    .tooltip = "Seed of the token stream, the router's initial weights and the "
                               "experts' initial head start. Same seed, same run, byte for byte.",
                    .get = [](const S& s) { return static_cast<double>(s.moe.seed); },
                    .set = [](S& s, double v) { s.moe.seed = static_cast<std::uint64_t>(v); }},
      [] {
        ScenarioInput in = router_count<&MoeSettings::top_k>(
            {.key = "moe.top_k",
             .section = "moe",
             .json_key = "top_k",
             .flag = "",
             .label = "Experts per token k",
             .compare_name = "MoE: top-k",
             .unit = "experts per token",
             .display_unit = "",
             .lo = 1,
             .hi = 1024,
             .slider_lo = 1,
             .slider_hi = 8,
             .ladder = Ladder::multipleOf(1),
             .tooltip = "The router's top-k: experts per token k (≤ E). Each token fills k "
                        "slots; max/mean can reach at most E / k."});
        in.edited = keep_top_k_within_experts;
        return in;
      }(),
      router_real<&MoeSettings::aux_weight>(
          {.key = "moe.aux_weight",
           .section = "moe",
           .json_key = "aux_weight",
           .flag = "",
           .label = "Aux weight α",
           .compare_name = "MoE: aux weight α",
           .unit = "× L_balance",
           .display_unit = "",
           .lo = 0,
           .hi = 100,
           .slider_lo = 1e-4,
           .slider_hi = 1,
           .scale = InputScale::log,
           .ladder = Ladder::oneTwoFive(),
           .decimals = 4,
           .tooltip = "Weight α of the Switch load-balance loss L_balance = E·Σ fᵢ·Pᵢ (fᵢ: "
                      "share of slots, Pᵢ: mean router probability; 1.0 = balanced). ~0.01 is "
                      "the usual value; tick \"α = 0\" to switch it off."}),
      router_real<&MoeSettings::z_weight>(
          {.key = "moe.z_weight",
           .section = "moe",
           .json_key = "z_weight",
           .flag = "",
           .label = "z-loss γ",
           .compare_name = "MoE: z-loss γ",
           .unit = "× L_z",
           .display_unit = "",
           .lo = 0,
           .hi = 100,
           .slider_lo = 1e-5,
           .slider_hi = 0.1,
           .scale = InputScale::log,
           .ladder = Ladder::oneTwoFive(),
           .decimals = 5,
           .tooltip = "Weight γ of the router z-loss L_z = mean over tokens of (log Σ exp "
                      "logits)²: keeps logits small (bf16 overflow, softmax saturation). Tick "
                      "\"γ = 0\" to switch it off."}),
      router_real<&MoeSettings::capacity_factor>(
          {.key = "moe.capacity_factor",
           .section = "moe",
           .json_key = "capacity_factor",
           .flag = "",
           .label = "Capacity factor",
           .compare_name = "MoE: capacity factor",
           .unit = "× the balanced load",
           .display_unit = "×",
           .lo = 1,
           .hi = 1000,
           .slider_lo = 1,
           .slider_hi = 4,
           .ladder = Ladder::multipleOf(0.05),
           .decimals = 2,
           .tooltip = "Buffer slots per expert = ⌊cf × T × k / E⌋. Slots past the buffer are "
                      "dropped (first come, first served in token order). cf < 1 drops even "
                      "under perfect balance, so 1.0 is the minimum."}),
      router_real<&MoeSettings::learning_rate>(
          {.key = "moe.learning_rate",
           .section = "moe",
           .json_key = "learning_rate",
           .flag = "",
           .label = "Learning rate",
           .compare_name = "MoE: learning rate",
           .unit = "router step size",
           .display_unit = "",
           .lo = 1e-9,
           .hi = 1e4,
           .slider_lo = 0.1,
           .slider_hi = 300,
           .scale = InputScale::log,
           .ladder = Ladder::significant(1),
           .decimals = 1,
           .tooltip = "Router step size (plain gradient descent on task + α·L_balance + "
                      "γ·L_z). Large values make the balance loss overshoot."}),
      router_count<&MoeSettings::prefill_tokens>(
          {.key = "moe.comm.prefill_tokens",
           .section = "moe.comm",
           .json_key = "prefill_tokens",
           .flag = "",
           .label = "Prefill tokens",
           .compare_name = "MoE: prefill tokens",
           .unit = "tokens",
           .display_unit = "",
           .lo = 1,
           .hi = 1e9,
           .slider_lo = 512,
           .slider_hi = 131'072,
           .scale = InputScale::log,
           .ladder = Ladder::powersOfTwo(),
           .tooltip = "Tokens in one prefill (forward pass). All-to-all bytes = 2 × MoE layers "
                      "× tokens × d_model × 2 bytes × k."}),
      router_real<&MoeSettings::link_gbps>(
          {.key = "moe.comm.link_gbps",
           .section = "moe.comm",
           .json_key = "link_gbps",
           .flag = "",
           .label = "Link",
           .compare_name = "MoE: link",
           .unit = "Gbit/s",
           .display_unit = "Gb/s",
           .lo = 1e-6,
           .hi = 1e9,
           .slider_lo = 1,
           .slider_hi = 3600,
           .scale = InputScale::log,
           .ladder = Ladder::oneTwoFive(),
           .tooltip = "Per-chip network bandwidth in gigabits per second (100 = 100 GbE; "
                      "NVLink 4 ≈ 3,600)."}),
      router_real<&MoeSettings::latency_us>(
          {.key = "moe.comm.latency_us",
           .section = "moe.comm",
           .json_key = "latency_us",
           .flag = "",
           .label = "Latency",
           .compare_name = "MoE: collective latency",
           .unit = "µs per collective",
           .display_unit = "µs",
           .lo = 0,
           .hi = 1e9,
           .slider_lo = 0.5,
           .slider_hi = 100,
           .scale = InputScale::log,
           .ladder = Ladder::oneTwoFive(),
           .decimals = 1,
           .tooltip = "Fixed cost per collective (µs); two collectives (dispatch, combine) per "
                      "MoE layer."}),
      router_count<&MoeSettings::pipeline_chunks>(
          {.key = "moe.pipeline.chunks",
           .section = "moe.pipeline",
           .json_key = "chunks",
           .flag = "",
           .label = "Chunks M",
           .compare_name = "MoE: pipeline chunks",
           .unit = "prompt chunks",
           .display_unit = "",
           .lo = 1,
           .hi = 1'000'000,
           .slider_lo = 1,
           .slider_hi = 32,
           .ladder = Ladder::multipleOf(1),
           .tooltip = "Prompt chunks streamed through the pipeline. Utilization = M / (M + S − "
                      "1)."}),
      router_count<&MoeSettings::pipeline_stages>(
          {.key = "moe.pipeline.stages",
           .section = "moe.pipeline",
           .json_key = "stages",
           .flag = "",
           .label = "Stages S",
           .compare_name = "MoE: pipeline stages",
           .unit = "pipeline stages",
           .display_unit = "",
           .lo = 1,
           .hi = 100'000,
           .slider_lo = 1,
           .slider_hi = 16,
           .ladder = Ladder::multipleOf(1),
           .tooltip = "Pipeline stages: chips each holding a contiguous run of layers (shard "
                      "layers, not experts)."}),
      router_real<&MoeSettings::compute_ms>({.key = "moe.pipeline.compute_ms",
                                             .section = "moe.pipeline",
                                             .json_key = "compute_ms",
                                             .flag = "",
                                             .label = "Compute",
                                             .compare_name = "MoE: compute per chunk",
                                             .unit = "ms per chunk per stage",
                                             .display_unit = "ms",
                                             .lo = 1e-6,
                                             .hi = 1e12,
                                             .slider_lo = 1,
                                             .slider_hi = 500,
                                             .scale = InputScale::log,
                                             .ladder = Ladder::oneTwoFive(),
                                             .decimals = 1,
                                             .tooltip = "Compute per chunk per stage (ms)."}),
      router_real<&MoeSettings::transfer_ms>(
          {.key = "moe.pipeline.transfer_ms",
           .section = "moe.pipeline",
           .json_key = "transfer_ms",
           .flag = "",
           .label = "Transfer",
           .compare_name = "MoE: transfer per hop",
           .unit = "ms per hop",
           .display_unit = "ms",
           .lo = 0,
           .hi = 1e12,
           .slider_lo = 0.1,
           .slider_hi = 500,
           .scale = InputScale::log,
           .ladder = Ladder::oneTwoFive(),
           .decimals = 1,
           .tooltip = "Stage → stage hop per chunk (ms); it overlaps the next chunk's compute, "
                      "so a pipeline step is max(compute, transfer)."}),
  };
  return kRouter;
}

}  // namespace napkin::detail
