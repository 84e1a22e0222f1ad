// How a router step is doing, for the MoE panel, its report section and
// napkin-cli moe collapse (seed Phase 02 ch. 5 and ch. 7): one health rule with
// its thresholds, and each expert's load against the fair share.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "moe.h"

namespace napkin {

// The fair share of slots per expert, T·k/E: every expert's load under a
// perfectly balanced router.
double fair_share_slots(const CollapseParams& params);
// The largest max/mean a router can reach, E / k: every token sends its k
// slots to the same k experts.
double max_over_mean_ceiling(const CollapseParams& params);

enum class ExpertState { healthy, over_capacity, dead };
struct ExpertLoad {
  double relative_load = 0;  // routed slots ÷ the fair share
  ExpertState state = ExpertState::healthy;
};
// Per expert of one step: its load against the fair share and its state —
// dead (StepStats::dead) first, then over its buffer (routed > capacity).
std::vector<ExpertLoad> expert_loads(const StepStats& step, const CollapseParams& params);

// ------------------------------------------------------------ router health

// The one rule that calls a router step healthy, strained or collapsed
// (seed ch. 5 and ch. 7), used by the panel, its report and the CLI.
enum class MoeVerdict { healthy, strained, collapsed };
std::string_view to_string(MoeVerdict verdict);  // "healthy", "strained", "collapsed"

// Measured on the simulation (3 seeds, steps 100–600, T = 256): with α = 0.01
// the smoothed max/mean stays ≤ 1.3 at E = 8–16 and ≤ 1.42 at E = 64, and the
// drop rate ≤ 6.6 % at the default E = 8, k = 2 (≤ 16 % at E = 64, k = 1, where
// a buffer holds 5 slots); with α = 0 every run ends with the smoothed
// max/mean ≥ 2.0 or a dead expert, most with 20–60 % of slots dropped. The
// max/mean judged is the smoothed one (recent_max_over_mean): one step's is
// sampling noise of a few slots per expert (it reaches 4 × in healthy runs at
// E = 64, k = 1).
struct MoeHealthThresholds {
  double strained_drop_fraction = 0.10;  // dropped ÷ routed slots, this step
  double collapsed_drop_fraction = 0.25;
  double strained_max_over_mean = 1.5;  // smoothed over ~20 steps
  double collapsed_max_over_mean = 2.0;
  std::int64_t collapsed_dead_experts = 1;  // gate share below a tenth of fair (StepStats::dead)
  void validate() const;
};

struct MoeHealth {
  MoeVerdict verdict = MoeVerdict::healthy;
  MoeHealthThresholds thresholds;
  double drop_fraction = 0;
  double max_over_mean = 0;  // the smoothed value judged
  std::int64_t dead_experts = 0;
  // What put the step in its verdict, worst first ("30.0 % of slots dropped
  // (collapsed at ≥ 25 %)"); empty when healthy.
  std::vector<std::string> reasons;
};

// The verdict of one step of the collapse simulation.
MoeHealth moe_health(const StepStats& step, const MoeHealthThresholds& thresholds = {});
// The rule in words, for a tooltip or --help: every threshold with its unit.
std::string describe(const MoeHealthThresholds& thresholds);

}  // namespace napkin
