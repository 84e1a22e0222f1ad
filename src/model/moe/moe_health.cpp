#include "moe_health.h"

#include <cstdio>
#include <string>

#include "validate.h"

namespace napkin {

double max_over_mean_ceiling(const CollapseParams& p) {
  return static_cast<double>(p.n_experts) / static_cast<double>(p.top_k);
}

// ------------------------------------------------------------ router health

std::string_view to_string(MoeVerdict v) {
  switch (v) {
    case MoeVerdict::healthy: return "healthy";
    case MoeVerdict::strained: return "strained";
    case MoeVerdict::collapsed: return "collapsed";
  }
  return "healthy";
}

void MoeHealthThresholds::validate() const {
  require_real(strained_drop_fraction, "strained_drop_fraction", "fraction of slots", 0.0, 1.0);
  require_real(collapsed_drop_fraction, "collapsed_drop_fraction", "fraction of slots",
               strained_drop_fraction, 1.0);
  require_real(strained_max_over_mean, "strained_max_over_mean", "× the mean load", 1.0, 1e6);
  require_real(collapsed_max_over_mean, "collapsed_max_over_mean", "× the mean load",
               strained_max_over_mean, 1e6);
  require_count(collapsed_dead_experts, "collapsed_dead_experts", "experts", 1, 4096);
}

namespace {

std::string percent_text(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * fraction);
  return buf;
}

std::string times_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f ×", v);
  return buf;
}

}  // namespace

MoeHealth moe_health(const StepStats& s, const MoeHealthThresholds& t) {
  t.validate();
  MoeHealth h;
  h.thresholds = t;
  h.drop_fraction = s.drop_rate;
  h.max_over_mean = s.recent_max_over_mean;
  h.dead_experts = s.dead_experts;
  std::vector<std::string> collapsed, strained;
  if (h.dead_experts >= t.collapsed_dead_experts)
    collapsed.push_back(std::to_string(h.dead_experts) +
                        (h.dead_experts == 1 ? " dead expert" : " dead experts") +
                        " (collapsed at ≥ " + std::to_string(t.collapsed_dead_experts) + ")");
  if (h.drop_fraction >= t.collapsed_drop_fraction)
    collapsed.push_back(percent_text(h.drop_fraction) + " of slots dropped (collapsed at ≥ " +
                        percent_text(t.collapsed_drop_fraction) + ")");
  else if (h.drop_fraction >= t.strained_drop_fraction)
    strained.push_back(percent_text(h.drop_fraction) + " of slots dropped (strained at ≥ " +
                       percent_text(t.strained_drop_fraction) + ")");
  if (h.max_over_mean >= t.collapsed_max_over_mean)
    collapsed.push_back("max/mean " + times_text(h.max_over_mean) +
                        " over ~20 steps (collapsed at ≥ " + times_text(t.collapsed_max_over_mean) +
                        ")");
  else if (h.max_over_mean >= t.strained_max_over_mean)
    strained.push_back("max/mean " + times_text(h.max_over_mean) +
                       " over ~20 steps (strained at ≥ " + times_text(t.strained_max_over_mean) +
                       ")");
  h.verdict = !collapsed.empty()  ? MoeVerdict::collapsed
              : !strained.empty() ? MoeVerdict::strained
                                  : MoeVerdict::healthy;
  h.reasons = std::move(collapsed);
  h.reasons.insert(h.reasons.end(), strained.begin(), strained.end());
  return h;
}

std::string describe(const MoeHealthThresholds& t) {
  return "Collapsed: " + std::to_string(t.collapsed_dead_experts) +
         " or more dead experts (gate share below a tenth of fair over ~20 steps), or ≥ " +
         percent_text(t.collapsed_drop_fraction) + " of this step's slots dropped, or max/mean ≥ " +
         times_text(t.collapsed_max_over_mean) + " over ~20 steps. Strained: ≥ " +
         percent_text(t.strained_drop_fraction) + " of slots dropped, or max/mean ≥ " +
         times_text(t.strained_max_over_mean) + ". Healthy otherwise.";
}

double fair_share_slots(const CollapseParams& p) {
  return static_cast<double>(p.tokens_per_batch * p.top_k) / static_cast<double>(p.n_experts);
}

std::vector<ExpertLoad> expert_loads(const StepStats& s, const CollapseParams& p) {
  const double fair = fair_share_slots(p);
  std::vector<ExpertLoad> out;
  out.reserve(s.routed.size());
  for (std::size_t i = 0; i < s.routed.size(); ++i) {
    const auto e = static_cast<std::int64_t>(i);
    ExpertLoad l;
    l.relative_load = static_cast<double>(s.routed[i]) / fair;
    l.state = s.dead(e)                             ? ExpertState::dead
              : s.routed[i] > s.capacity_per_expert ? ExpertState::over_capacity
                                                    : ExpertState::healthy;
    out.push_back(l);
  }
  return out;
}

}  // namespace napkin
