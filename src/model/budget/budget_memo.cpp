// The Budget planner's memo in words: the Chinchilla answer, goodput, the
// data limit, the inference-aware trade, serving, and what I would train.
#include "budget_memo.h"

#include "format.h"

namespace napkin {

std::string epochs_text(double epochs) {
  if (epochs < 1.0) return format_percent(epochs, 0) + " of the unique tokens";
  return format_grouped(epochs, epochs < 10 ? 2 : 1) + (epochs == 1.0 ? " epoch" : " epochs");
}

namespace {

std::string goodput_paragraph(const BudgetReport& r) {
  const auto& in = r.inputs;
  const GoodputReport& g = r.goodput;
  const GoodputInputs& gi = r.goodput_inputs;
  std::string s = "Crashes: at " + format_grouped(in.goodput.interruptions_per_1000_chip_days, 3) +
                  " interruptions per 1,000 chip-days expect " +
                  format_grouped(g.expected_crashes, 1) + " in " + format_grouped(in.days, 1) +
                  " days; each costs " + format_grouped(g.lost_per_crash_minutes, 0) +
                  " minutes (" + format_grouped(gi.restart_minutes, 0) + "-minute restart, " +
                  format_grouped(gi.checkpoint_interval_minutes, 0) + "-minute " +
                  (gi.mode == CheckpointMode::synchronous ? "synchronous" : "asynchronous") +
                  " checkpoints written in " + format_seconds(gi.checkpoint_write_minutes * 60.0) +
                  "), so goodput is " + format_percent(g.goodput, 1) + ": " +
                  format_grouped(r.effective_days, 1) +
                  " effective days deliver C = " + format_sci(r.effective_flops) +
                  " FLOPs, for which the Chinchilla answer is " +
                  format_count(r.effective_split.params) + " parameters on " +
                  format_count(r.effective_split.tokens, 2) + " tokens.";
  if (g.optimal_checkpoint_minutes && g.goodput_at_optimum > g.goodput + 5e-4)
    s += " Checkpointing " + optimal_checkpoint_text(*g.optimal_checkpoint_minutes) +
         " would give " + format_percent(g.goodput_at_optimum, 1) + ".";
  return s;
}

// The data limit, when the Chinchilla answer needs more tokens than exist.
std::string data_paragraph(const BudgetReport& r) {
  const DataLimit& data = r.data;
  std::string s;
  if (!data.chinchilla_fits) {
    s += "Data: that needs " + format_count(r.effective_split.tokens, 2) + " tokens but only " +
         format_count(data.unique_tokens, 1) + " unique tokens exist (" +
         epochs_text(data.chinchilla_epochs) + ", worth " +
         format_count(effective_tokens(data.unique_tokens, r.effective_split.tokens), 2) +
         " fresh tokens under Muennighoff et al. 2023: " + format_grouped(data.chinchilla_loss, 3) +
         " nats instead of " + format_grouped(data.chinchilla_loss_fresh, 3) +
         "). The best split of this compute " + "under the data limit is " +
         format_count(data.best.params) + " parameters on " + format_count(data.best.tokens, 2) +
         " tokens (" + epochs_text(data.best.epochs) + ", loss " +
         format_grouped(data.best.loss, 3) + " nats, " +
         format_grouped(data.repetition_penalty_nats, 3) +
         " nats worse than with unlimited fresh data). ";
  }
  return s;
}

// The inference-aware trade: a smaller model trained longer, or why not.
std::string trade_paragraph(const BudgetReport& r, const std::string& law_name,
                            const std::string& ref) {
  const InferenceAwarePlan& p = r.plan;
  const auto& in = r.inputs;
  const DataLimit& data = r.data;
  std::string s;
  if (p.recommend_smaller) {
    const double ratio = p.lifetime_flops_chinchilla / p.lifetime_flops_small;
    s += "But it will serve " + format_count(p.served_tokens, 1) + " tokens, and at 2N FLOPs per " +
         "served token a smaller model trained longer is cheaper over its life: " +
         format_count(p.same_loss.params) + " parameters on " +
         format_count(p.same_loss.train_tokens, 2) + " tokens reach the same loss (" +
         format_grouped(p.chinchilla_loss, 3) + " nats under " + law_name + ") with " +
         format_grouped(p.same_loss_train_flops / r.effective_flops, 2) +
         "x the training FLOPs and " + format_grouped(ratio, 2) +
         "x fewer lifetime FLOPs; it pays off after " +
         (p.crossover_served_tokens ? format_count(*p.crossover_served_tokens, 1)
                                    : std::string("0")) +
         " served tokens. Within this budget alone it would reach " +
         format_grouped(p.same_budget_loss, 3) + " nats, " +
         format_grouped(p.same_budget_loss - p.chinchilla_loss, 3) + " nats worse than " + ref +
         ", for " + format_grouped(p.chinchilla.params / p.same_loss.params, 1) +
         "x cheaper serving per token.";
    if (p.same_loss.train_tokens > data.unique_tokens)
      s += " It needs " + format_count(p.same_loss.train_tokens, 1) + " tokens, " +
           epochs_text(p.same_loss.train_tokens / data.unique_tokens) + " of the " +
           format_count(data.unique_tokens, 1) +
           " unique tokens; the data-constrained law prices the repeats in.";
    // A plan far longer than the run the scenario budgets for is not the same
    // decision: flag it rather than let a 1,387-day run pass as an answer.
    if (p.same_loss_days > 2.0 * in.days)
      s += " Caution: the same-loss run takes " + format_grouped(p.same_loss_days, 0) +
           " days on this cluster, more than twice the " + format_grouped(in.days, 0) +
           " days planned; it needs a longer schedule or more chips.";
    s += " ";
  } else {
    s += "At " + format_count(p.served_tokens, 1) + " served tokens the lifetime-optimal model " +
         "at the same loss is " + format_count(p.same_loss.params) + " parameters, within 5 % " +
         "of " + ref + "'s lifetime FLOPs, so I would keep " + ref + ". ";
  }
  return s;
}

// Whether the serving latency budget binds.
std::string serving_sentence(const BudgetReport& r) {
  const auto& in = r.inputs;
  const Recommendation& rec = r.recommended;
  std::string s;
  const ServingLimit& sl = r.serving_limit;
  if (rec.serving_binds) {
    s += "Serving: the " + sl.detail + ", smaller than the " +
         format_count(rec.before_serving_limit.params) + " above. ";
  } else if (sl.applied && sl.max_params) {
    s += "Serving: it answers within the latency budget; the " + sl.detail + ". ";
  } else if (sl.applied || in.serving_latency.enabled) {
    s += "Serving: " + sl.detail + ". ";
  }
  return s;
}

// "I would train …": the model, its run, its loss and interval, what it costs
// and what failed.
std::string what_i_would_train(const BudgetReport& r) {
  const auto& in = r.inputs;
  const Recommendation& rec = r.recommended;
  std::string s;
  const RunReport& run = rec.run;
  std::string why;
  switch (rec.reason) {
    case RecommendationReason::chinchilla: why = "the Chinchilla answer"; break;
    case RecommendationReason::data_limited: why = "the best split under the data limit"; break;
    case RecommendationReason::inference_aware:
      why = "the smaller model that is cheaper over its served life";
      if (in.objective == Objective::dollars) why += " in dollars";
      break;
    case RecommendationReason::serving_limited:
      why =
          "the largest model that meets the serving latency budget, trained on this "
          "budget's compute";
      break;
  }
  if (rec.reason == RecommendationReason::chinchilla)
    s += "I would train the Chinchilla answer: ";
  else
    s += "I would train " + why + ": ";
  s += format_count(rec.model.params) + " parameters on " +
       format_count(rec.model.train_tokens, 2) + " tokens (" + epochs_text(run.epochs) +
       (run.epochs > 1.0 ? ", worth " + format_count(run.effective_tokens, 2) + " fresh tokens"
                         : std::string()) +
       "), " + format_grouped(run.wall_clock_days, 1) + " days on this cluster at " +
       format_percent(run.goodput.goodput, 1) + " goodput, " +
       format_dollars(run.cost.rental_dollars) + ", " +
       format_grouped(run.cost.energy_kwh / 1000.0, 1) + " MWh, forecast loss " +
       format_grouped(run.loss, 3) + " nats under " + r.law.name;
  if (rec.loss_interval)
    s += " (" + format_percent(r.law.confidence, 0) + " interval " +
         format_grouped(rec.loss_interval->low, 3) + "–" +
         format_grouped(rec.loss_interval->high, 3) + " nats over its " +
         format_grouped(static_cast<double>(rec.loss_interval->draws)) + " bootstrap draws)";
  s += ".";
  if (rec.serving_binds)
    s += " The serving limit costs " + format_grouped(run.loss - rec.loss_before_serving_limit, 3) +
         " nats.";
  if (r.moe) s += " " + r.moe->summary;
  for (const Check& c : r.checks)
    if (!c.ok) s += " Check failed: " + c.name + " (" + c.detail + ").";
  return s;
}

}  // namespace

std::string make_recommendation(const BudgetReport& r) {
  const InferenceAwarePlan& p = r.plan;
  const auto& in = r.inputs;
  const DataLimit& data = r.data;
  std::string s =
      "Chinchilla answer: train " + format_count(r.split.params) + " parameters on " +
      format_count(r.split.tokens, 2) + " tokens (" + format_grouped(in.tokens_per_param, 0) +
      " tokens/parameter), C = " + format_sci(r.flops) + " FLOPs in " + format_grouped(r.days, 1) +
      " days on " + format_grouped(static_cast<double>(in.n_chips), 0) + " " + in.chip + " at " +
      format_percent(in.mfu, 0) + " MFU, if nothing ever crashed. ";
  s += goodput_paragraph(r) + " ";
  s += data_paragraph(r);
  const std::string ref = data.chinchilla_fits ? "the Chinchilla answer" : "that split";
  std::string law_name =
      data.chinchilla_fits ? r.law.name : r.law.name + " with repeated-data decay";
  if (p.served_below_bf16)  // the trades hold the loss as served equal
    law_name += " plus Kumar et al. 2024's penalty for serving " +
                std::string(to_string(in.serving_weights)) + " weights";
  s += trade_paragraph(r, law_name, ref);
  if (in.objective == Objective::dollars)
    s += dollar_plan_text(r.dollars, law_name) +
         (r.dollars.recommend_smaller != p.recommend_smaller
              ? " Counted in FLOPs instead, the answer would differ. "
              : std::string(" "));
  return s + serving_sentence(r) + what_i_would_train(r);
}

}  // namespace napkin
