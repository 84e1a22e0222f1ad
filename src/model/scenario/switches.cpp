#include "switches.h"

#include <array>

#include "goodput.h"
#include "plan_inputs.h"
#include "validate.h"

namespace napkin {

namespace {

using S = Scenario;

// Built on first use: a description is the planner's (plan_inputs.h).
const auto& switch_table() {
  static const std::array kSwitches{
      ScenarioSwitch{
          .key = "model.gated",
          .section = "model",
          .json_key = "gated",
          .flag = "--no-gated",
          .flag_sets = false,
          .label = "Gated MLP (SwiGLU)",
          .compare_name = "Gated MLP",
          .tooltip = "Three MLP matrices (gate, up, down) instead of two: 3·d·F parameters.",
          .default_on = true,
          .get = [](const S& s) { return s.shape.gated; },
          .set = [](S& s, bool on) { s.shape.gated = on; }},
      ScenarioSwitch{
          .key = "model.tied_embeddings",
          .section = "model",
          .json_key = "tied_embeddings",
          .flag = "--tied",
          .label = "Tied embeddings",
          .compare_name = "Tied embeddings",
          .tooltip = "The unembedding shares the embedding table: V·d parameters instead of 2·V·d.",
          .get = [](const S& s) { return s.shape.tied_embeddings; },
          .set = [](S& s, bool on) { s.shape.tied_embeddings = on; }},
      ScenarioSwitch{
          .key = "isoflops.ladder.loss_cut.enabled",
          .section = "isoflops.ladder.loss_cut",
          .json_key = "enabled",
          .label = "Keep only runs with loss below the cut",
          .compare_name = "IsoFLOPs: loss cut",
          .tooltip = "A loaded ladder keeps only the runs with loss below the cut (nats/token). "
                     "Besiroglu et al. drop the 5 worst runs of the Chinchilla data, keeping the "
                     "240 below 3.4469.",
          .default_on = true,
          .get = [](const S& s) { return s.isoflops.loss_cut.enabled; },
          .set = [](S& s, bool on) { s.isoflops.loss_cut.enabled = on; }},
      ScenarioSwitch{.key = "isoflops.ladder.synthetic.outlier",
                     .section = "isoflops.ladder.synthetic",
                     .json_key = "outlier",
                     .label = "Inject a diverged run (+1.5 nats outlier)",
                     .compare_name = "IsoFLOPs: diverged-run outlier",
                     .tooltip =
                         "One run of the ladder gets +1.5 nats, as a diverged run would: the Huber "
                         "estimator shrugs it off, least squares does not.",
                     .get = [](const S& s) { return s.isoflops.synthetic.outlier; },
                     .set = [](S& s, bool on) { s.isoflops.synthetic.outlier = on; }},
      ScenarioSwitch{
          .key = "isoflops.ladder.synthetic.bias_on",
          .section = "isoflops.ladder.synthetic",
          .json_key = "bias_on",
          .label = "Inject the LR-decay (schedule-mismatch) bias",
          .compare_name = "IsoFLOPs: LR-decay bias",
          .tooltip = "Read runs off a cosine schedule planned for a longer horizon, as Kaplan et "
                     "al. did: a run at D of a schedule for D_sched is penalized bias·(1 − "
                     "D/D_sched) nats. The bias is not uniform, so it tilts the exponents and "
                     "moves N_opt.",
          .get = [](const S& s) { return s.isoflops.synthetic.bias_on; },
          .set = [](S& s, bool on) { s.isoflops.synthetic.bias_on = on; }},
      ScenarioSwitch{
          .key = "isoflops.ladder.synthetic.offset_on",
          .section = "isoflops.ladder.synthetic",
          .json_key = "offset_on",
          .label = "Inject a uniform offset (the control)",
          .compare_name = "IsoFLOPs: uniform offset",
          .tooltip = "Add the same number of nats to every run: the fit absorbs it into E and no "
                     "exponent, no vertex and no recommendation moves.",
          .get = [](const S& s) { return s.isoflops.synthetic.offset_on; },
          .set = [](S& s, bool on) { s.isoflops.synthetic.offset_on = on; }},
      ScenarioSwitch{
          .key = "isoflops.target.follows_budget",
          .section = "isoflops.target",
          .json_key = "follows_budget",
          .label = "Target C* follows the Budget panel's C",
          .compare_name = "IsoFLOPs: target follows the budget",
          .tooltip = "C* = chips × peak FLOP/s × MFU × days × 86,400 s of the shared scenario (the "
                     "Budget panel). Untick to set C* by hand.",
          .default_on = true,
          .get = [](const S& s) { return s.isoflops.target_follows_budget; },
          .set = [](S& s, bool on) { s.isoflops.target_follows_budget = on; }},
      ScenarioSwitch{.key = "moe.aux_on",
                     .section = "moe",
                     .json_key = "aux_on",
                     .label = "α = 0 (no balance loss)",
                     .ticked_when = false,
                     .compare_name = "MoE: balance loss",
                     .tooltip = "Switches the load-balance loss off: the router is left alone.",
                     .get = [](const S& s) { return s.moe.aux_on; },
                     .set = [](S& s, bool on) { s.moe.aux_on = on; }},
      ScenarioSwitch{.key = "moe.z_on",
                     .section = "moe",
                     .json_key = "z_on",
                     .label = "γ = 0 (no z-loss)",
                     .ticked_when = false,
                     .compare_name = "MoE: z-loss",
                     .tooltip = "Switches the router z-loss off.",
                     .default_on = true,
                     .get = [](const S& s) { return s.moe.z_on; },
                     .set = [](S& s, bool on) { s.moe.z_on = on; }},
      ScenarioSwitch{.key = "moe.shared_expert",
                     .section = "moe",
                     .json_key = "shared_expert",
                     .flag = "--shared-expert",
                     .label = "Shared expert",
                     .compare_name = "MoE: shared expert",
                     .tooltip =
                         "An always-on expert runs for every token: a token whose every slot is "
                         "dropped still gets an FFN instead of riding the residual unchanged.",
                     .get = [](const S& s) { return s.moe.shared_expert; },
                     .set = [](S& s, bool on) { s.moe.shared_expert = on; }},
      ScenarioSwitch{
          .key = "moe.renormalize",
          .section = "moe",
          .json_key = "renormalize",
          .flag = "--raw-gates",
          .flag_sets = false,
          .label = "Renormalized gates",
          .compare_name = "MoE: renormalized gates",
          .tooltip = "Gates renormalized to sum to 1 over the kept top-k slots (Mixtral, GShard). "
                     "Off: raw softmax probabilities, which shrink the layer's output. With k = 1 "
                     "the raw probability is used either way.",
          .default_on = true,
          .get = [](const S& s) { return s.moe.renormalize; },
          .set = [](S& s, bool on) { s.moe.renormalize = on; }},
      ScenarioSwitch{
          .key = "roofline.serving_layout.communication",
          .section = "roofline.serving_layout",
          .json_key = "communication",
          .flag = "--no-comm",
          .flag_sets = false,
          .label = "Count communication",
          .compare_name = "Roofline: serving communication",
          .tooltip =
              "TP all-reduces, expert all-to-alls, pipeline hops and the KV transfer, by the "
              "α–β model over the chip's links. Off: the seed's napkin.",
          .default_on = true,
          .get = [](const S& s) { return s.roofline.serving_layout.communication; },
          .set = [](S& s, bool on) { s.roofline.serving_layout.communication = on; }},
      ScenarioSwitch{
          .key = "parallel.even_stages",
          .section = "parallel",
          .json_key = "even_stages",
          .flag = "--uneven-stages",
          .flag_sets = false,
          .label = "Even stages",
          .compare_name = "Parallelism: even stages",
          .tooltip = "PP divides the layers (off: uneven splits too, as Llama 3 405B's 126 layers "
                     "on 16 stages).",
          .default_on = true,
          .get = [](const S& s) { return s.parallel.even_stages; },
          .set = [](S& s, bool on) { s.parallel.even_stages = on; }},
      ScenarioSwitch{.key = "parallel.tp_within_node",
                     .section = "parallel",
                     .json_key = "tp_within_node",
                     .label = "TP in a node",
                     .compare_name = "Parallelism: TP within a node",
                     .tooltip = "Tensor parallelism stays inside one fast (NVLink / ICI) domain.",
                     .default_on = true,
                     .get = [](const S& s) { return s.parallel.tp_within_node; },
                     .set = [](S& s, bool on) { s.parallel.tp_within_node = on; }},
      ScenarioSwitch{
          .key = "goodput.checkpoint_mode",
          .section = "goodput",
          .json_key = "checkpoint_mode",
          .flag = plan_input_info("checkpoint_mode").flag,
          .label = plan_input_info("checkpoint_mode").label,
          .compare_name = "Checkpoint mode",
          .tooltip = plan_input_info("checkpoint_mode").description,
          .json_on = "asynchronous",
          .json_off = "synchronous",
          .get = [](const S& s) { return s.goodput.mode == CheckpointMode::asynchronous; },
          .set =
              [](S& s, bool on) {
                s.goodput.mode = on ? CheckpointMode::asynchronous : CheckpointMode::synchronous;
              }},
  };
  return kSwitches;
}

}  // namespace

std::span<const ScenarioSwitch> scenario_switches() { return switch_table(); }

const ScenarioSwitch& scenario_switch(std::string_view key) {
  return entry_with_key(switch_table(), "switch", key);
}

}  // namespace napkin
