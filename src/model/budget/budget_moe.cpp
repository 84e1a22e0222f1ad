// Dense against MoE at one compute (budget.h: compare_dense_moe).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "budget.h"
#include "format.h"
#include "validate.h"

namespace napkin {

namespace {

// The comparison in words: both candidates, the joint law's reading, and
// which one to train.
std::string comparison_summary(const MoeComparison& m, double flops, const std::string& law_name) {
  const MoeShape& sh = m.shape;
  const ArchitectureCandidate &d = m.dense, &e = m.moe;
  std::string name =
      format_grouped(static_cast<double>(sh.experts)) + " experts, top-" + std::to_string(sh.top_k);
  if (sh.shared_experts > 0) name += " + " + std::to_string(sh.shared_experts) + " shared";
  auto cand = [&](const ArchitectureCandidate& c, bool moe) {
    std::string t = moe ? format_count(c.total_params) + " total / " +
                              format_count(c.active_params) + " active parameters"
                        : format_count(c.total_params) + " parameters";
    t += " on " + format_count(c.tokens, 2) + " tokens, " + format_grouped(c.loss, 3) + " nats";
    if (c.serving_binds) t += " (capped by the serving limit)";
    if (!c.data_fits)
      t += " (repeating data: +" + format_grouped(c.repetition_penalty_nats, 3) + ")";
    return t;
  };
  std::string summary =
      "Dense or MoE at C = " + format_sci(flops) + " FLOPs: the best dense model is " +
      cand(d, false) + "; the best MoE with " + name + " (" + format_grouped(m.expansion, 1) +
      "x expansion) is " + cand(e, true) +
      ". Under Ludziejewski et al. 2025's joint law it matches a dense model trained on " +
      format_grouped(m.compute_multiplier, 2) + "x the compute and wants " +
      format_grouped(m.token_ratio, 2) + "x the tokens; its loss is " + law_name +
      "'s at that compute (the joint law was fitted up to 2.7B active parameters and 32 "
      "experts" +
      (m.joint_flops < flops ? ", so both are read at " + format_sci(m.joint_flops, 1) +
                                   " FLOPs, the edge of its range"
                             : std::string()) +
      (sh.granularity > 1 ? "; granularity is not in it, so finer experts are not "
                            "credited"
                          : std::string()) +
      "). ";
  if (m.moe_wins)
    summary += "Between the two at this compute I would train the MoE: " +
               format_grouped(m.loss_gain_nats, 3) + " nats lower at the same compute" +
               (e.serving_binds || d.serving_binds ? " and serving limit" : std::string()) +
               ", with " + format_grouped(e.tokens / d.tokens, 2) + "x the tokens.";
  else
    summary += "Between the two at this compute I would train the dense model: the MoE is " +
               format_grouped(-m.loss_gain_nats, 3) + " nats worse here.";
  return summary;
}

}  // namespace

MoeComparison compare_dense_moe(const MoeShape& shape, double flops, const DataConstrainedLaw& law,
                                double unique, const ServingLimit& serving,
                                std::int64_t serving_batch, double weight_capacity_params,
                                const std::string& law_name) {
  shape.validate();
  require_positive(flops, "flops", "FLOPs");
  if (shape.expansion() > kJointMoeMaxExpansion)
    throw std::invalid_argument(
        "experts: " + std::to_string(shape.experts) + " experts with top-k " +
        std::to_string(shape.top_k) + " store " + format_grouped(shape.expansion(), 1) +
        "x the expert parameters they use, beyond the 32x the joint MoE law was fitted on "
        "(Ludziejewski et al. 2025); use fewer experts or a larger top-k");
  const JointMoeLaw joint;
  MoeComparison m;
  m.shape = shape;
  m.expansion = shape.expansion();
  std::optional<double> cap;
  if (serving.applied && serving.max_params) cap = *serving.max_params;

  // The best dense split: the plan law's, data-limited when the data bind.
  const DataLimitedSplit fresh = best_split_fresh(law.base, flops);
  const DataLimitedSplit best =
      fresh.tokens <= unique ? fresh : best_split_under_data_limit(law, flops, unique);
  ArchitectureCandidate& d = m.dense;
  d.total_params = d.active_params = best.params;
  if (cap && d.total_params > *cap) {
    d.total_params = d.active_params = *cap;
    d.serving_binds = true;
  }
  d.tokens = flops / (6.0 * d.active_params);
  d.loss = law.loss(d.active_params, d.tokens, unique);
  d.repetition_penalty_nats = std::max(0.0, d.loss - law.base.loss(d.active_params, d.tokens));
  d.data_fits = d.tokens <= unique;

  // The MoE: the joint law's shift of tokens per active parameter, applied
  // to the plan law's fresh optimum. Read at C, or at the edge of the fitted
  // range beyond it: three decades out the law's fitted interactions reverse
  // the paper's own Finding 1 (more experts, more tokens).
  m.joint_flops = std::min(flops, joint.max_fitted_flops());
  const ComputeOptimum jd = joint.optimum(m.joint_flops, 1.0);
  const ComputeOptimum jm = joint.optimum(m.joint_flops, m.expansion);
  m.token_ratio = jm.n_tokens / jd.n_tokens;
  ArchitectureCandidate& e = m.moe;
  e.tokens = fresh.tokens * m.token_ratio;
  e.active_params = flops / (6.0 * e.tokens);
  e.total_params = moe_total_params(e.active_params, m.expansion);
  // Serving: the weights a decode step reads against the dense cap, and the
  // whole of the weights against the node's memory.
  std::optional<double> moe_cap;
  if (cap)
    moe_cap =
        std::min(*cap / moe_decode_read_fraction(shape, serving_batch), weight_capacity_params);
  // How far the split sits from the MoE's optimum (1 unless the serving cap
  // cut it): the joint law is read at the same relative point.
  double shrink = 1.0;
  if (moe_cap && e.total_params > *moe_cap) {
    const double active = moe_active_params(*moe_cap, m.expansion);
    shrink = active / e.active_params;
    e.active_params = active;
    e.total_params = *moe_cap;
    e.tokens = flops / (6.0 * e.active_params);
    e.serving_binds = true;
  }
  m.joint_loss_dense = jd.loss;
  const double n_joint = jm.n_params * shrink;
  m.joint_loss_moe = joint.loss(n_joint, m.joint_flops / (6.0 * n_joint), m.expansion);
  m.compute_multiplier = joint.dense_equivalent_flops(m.joint_loss_moe) / m.joint_flops;
  e.repetition_penalty_nats = std::max(
      0.0, law.loss(e.active_params, e.tokens, unique) - law.base.loss(e.active_params, e.tokens));
  // The dense model read the same way (at its own distance from the optimum
  // when the serving cap cut it): the MoE's forecast is the dense forecast
  // plus the difference the two dense-equivalent computes make under the
  // plan's law, so a cap is priced alike on both sides.
  const double dense_shrink = d.active_params / best.params;
  const double n_dense = jd.n_params * dense_shrink;
  const double dense_multiplier =
      joint.dense_equivalent_flops(joint.loss(n_dense, m.joint_flops / (6.0 * n_dense), 1.0)) /
      m.joint_flops;
  e.loss = d.loss - d.repetition_penalty_nats +
           optimal_loss(law.base, m.compute_multiplier * flops) -
           optimal_loss(law.base, dense_multiplier * flops) + e.repetition_penalty_nats;
  e.data_fits = e.tokens <= unique;
  m.loss_gain_nats = d.loss - e.loss;
  m.moe_wins = e.loss < d.loss;

  m.summary = comparison_summary(m, flops, law_name);
  return m;
}

}  // namespace napkin
