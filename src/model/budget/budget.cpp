#include "budget.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "budget_precision.h"
#include "format.h"
#include "minimize.h"
#include "validate.h"

namespace napkin {

namespace {
constexpr double kSecondsPerDay = 86400.0;
constexpr double kMaxChips = 10'000'000;
}  // namespace

DataConstrainedLaw budget_law() { return with_muennighoff_decay(besiroglu2024_law()); }

DataConstrainedLaw budget_law(const PlanLaw& law) { return with_muennighoff_decay(law.law); }

double nominal_bits(Dtype dtype) {
  switch (dtype) {
    case Dtype::fp32: return 32;
    case Dtype::bf16: return 16;
    case Dtype::fp8:
    case Dtype::int8: return 8;
    case Dtype::int4: return 4;
  }
  return 16;
}

std::string_view to_string(RecommendationReason reason) {
  switch (reason) {
    case RecommendationReason::chinchilla: return "chinchilla";
    case RecommendationReason::data_limited: return "data_limited";
    case RecommendationReason::inference_aware: return "inference_aware";
    case RecommendationReason::serving_limited: return "serving_limited";
  }
  return "chinchilla";
}

ChinchillaSplit chinchilla_split(double flops, double tokens_per_param) {
  require_positive(flops, "flops", "FLOPs");
  require_real(tokens_per_param, "tokens_per_param", "tokens per parameter", 0.01, 1e6);
  ChinchillaSplit s;
  s.params = std::sqrt(flops / (6.0 * tokens_per_param));
  s.tokens = tokens_per_param * s.params;
  return s;
}

double lifetime_flops(double n_params, double train_tokens, double served_tokens) {
  require_positive(n_params, "n_params", "parameters");
  require_positive(train_tokens, "train_tokens", "tokens");
  require_real(served_tokens, "served_tokens", "tokens", 0.0);
  return 6.0 * n_params * train_tokens + 2.0 * n_params * served_tokens;
}

std::optional<double> served_token_crossover(const TrainedModel& a, const TrainedModel& b) {
  require_positive(a.params, "params", "parameters");
  require_positive(a.train_tokens, "train_tokens", "tokens");
  require_positive(b.params, "params", "parameters");
  require_positive(b.train_tokens, "train_tokens", "tokens");
  const double dn = a.params - b.params;
  if (dn == 0.0) return std::nullopt;
  const double s = 3.0 * (b.params * b.train_tokens - a.params * a.train_tokens) / dn;
  if (!(s > 0.0) || !std::isfinite(s)) return std::nullopt;
  return s;
}

void BudgetInputs::validate() const {
  const Chip& c = chip_by_name(chip);
  (void)c;
  require_count(n_chips, "chips", "chips", 1, static_cast<std::int64_t>(kMaxChips));
  require_real(days, "days", "days", 0.0, 36500.0, true);
  require_real(mfu, "mfu", "fraction of peak", 0.0, 1.0, true);
  require_real(cost.price_per_chip_hour_dollars, "price", "$ per chip-hour", 0.0, 1e4);
  require_real(cost.kwh_price_dollars, "kwh_price", "$ per kWh", 0.0, 100.0);
  require_real(cost.pue, "pue", "facility W per IT W", 1.0, 5.0);
  require_real(tokens_per_param, "tokens_per_param", "tokens per parameter", 0.01, 1e6);
  require_real(tokens_available, "tokens_available", "tokens", 0.0, kMaxTrainTokens, true);
  require_real(served_tokens, "served_tokens", "tokens", 0.0, 1e22);
  require_real(memory_headroom, "memory_headroom", "fraction of HBM", 0.0, 1.0, true);
  require_real(site_power_mw, "site_power", "MW", 0.0, 1e6, true);
  require_count(serving_node_chips, "serving_node_chips", "chips", 1, 4096);
  goodput.validate();
  serving_latency.validate();
  law.validate();
  moe.validate();
  serving_economy().validate();
  if (ptq_law) ptq_law->validate();
  if (precision == Precision::mixed_fp8 && !(chip_by_name(chip).fp8_peak_flops_per_s > 0))
    throw std::invalid_argument("train_precision: fp8 needs a chip with an FP8 peak; " + chip +
                                " has none (train it in bf16)");
}

ServingEconomy BudgetInputs::serving_economy() const {
  ServingEconomy e;
  e.chip = serving_chip_name();
  e.cost = cost;
  e.cost.price_per_chip_hour_dollars = serving_price_per_chip_hour_dollars;
  e.node_chips = serving_node_chips;
  e.batch = serving_latency.batch;
  e.prompt_tokens = serving_latency.prompt_tokens;
  e.decode_tokens = std::max<std::int64_t>(1, serving_latency.decode_tokens);
  e.weights = serving_weights;
  e.kv = serving_kv;
  e.engine = serving_engine;
  return e;
}

InferenceAwarePlan plan_inference_aware(const TrainedModel& chin, double served_tokens,
                                        double budget_flops, double cluster_flops_per_day,
                                        const LossLaw& law, std::optional<double> unique_tokens) {
  law.validate();
  return plan_inference_aware(chin, served_tokens, budget_flops, cluster_flops_per_day,
                              ServedLoss(with_muennighoff_decay(law), unique_tokens));
}

InferenceAwarePlan plan_inference_aware(const TrainedModel& chin, double served_tokens,
                                        double budget_flops, double cluster_flops_per_day,
                                        const ServedLoss& served) {
  const LossLaw& law = served.law.base;
  law.validate();
  require_positive(chin.params, "params", "parameters");
  require_positive(chin.train_tokens, "train_tokens", "tokens");
  require_real(served_tokens, "served_tokens", "tokens", 0.0, 1e22);
  require_positive(budget_flops, "budget_flops", "FLOPs");
  require_positive(cluster_flops_per_day, "cluster_flops_per_day", "FLOPs per day");
  const std::optional<double>& unique_tokens = served.unique_tokens;
  if (unique_tokens)
    require_real(*unique_tokens, "tokens_available", "tokens", 0.0, kMaxTrainTokens, true);

  InferenceAwarePlan p;
  p.law = law;
  p.unique_tokens = unique_tokens;
  p.served_below_bf16 = served.ptq && served.weight_bits < 16;
  p.served_tokens = served_tokens;
  p.chinchilla = chin;
  p.chinchilla_loss = served.loss(chin.params, chin.train_tokens);

  // Minimize lifetime FLOPs at the reference's loss over log N (minimize.h).
  const double target = p.chinchilla_loss;
  const double n_min = law.min_params_for_loss(target);
  const double lo = std::log(n_min) + 1e-6;
  const double hi = std::log(chin.params * 4.0);
  auto cost = [&](double log_n) {
    const double n = std::exp(log_n);
    const auto d = served.tokens_for(n, target);
    if (!d) return std::numeric_limits<double>::max();
    return 6.0 * n * *d + 2.0 * n * served_tokens;
  };
  double n_small = std::exp(minimize_1d(cost, lo, hi));
  // The reference itself is always feasible: never return a point the law
  // cannot reach (an empty grid near the loss floor).
  std::optional<double> d_small = served.tokens_for(n_small, target);
  if (!d_small) {
    n_small = chin.params;
    d_small = served.tokens_for(n_small, target);
  }
  p.same_loss.params = n_small;
  p.same_loss.train_tokens = d_small.value_or(chin.train_tokens);
  p.same_loss_train_flops = 6.0 * p.same_loss.params * p.same_loss.train_tokens;
  p.same_loss_days = p.same_loss_train_flops / cluster_flops_per_day;
  p.same_budget_tokens = budget_flops / (6.0 * n_small);
  p.same_budget_loss = served.loss(n_small, p.same_budget_tokens);
  p.lifetime_flops_chinchilla = lifetime_flops(chin.params, chin.train_tokens, served_tokens);
  p.lifetime_flops_small =
      lifetime_flops(p.same_loss.params, p.same_loss.train_tokens, served_tokens);
  p.crossover_served_tokens = served_token_crossover(chin, p.same_loss);
  p.recommend_smaller =
      n_small < chin.params && p.lifetime_flops_small < 0.95 * p.lifetime_flops_chinchilla;
  return p;
}

namespace {

std::string epochs_text(double epochs) {
  if (epochs < 1.0) return format_percent(epochs, 0) + " of the unique tokens";
  return format_grouped(epochs, epochs < 10 ? 2 : 1) + (epochs == 1.0 ? " epoch" : " epochs");
}

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
    s += " Checkpointing every " + format_grouped(*g.optimal_checkpoint_minutes, 0) +
         " minutes (Young/Daly) would give " + format_percent(g.goodput_at_optimum, 1) + ".";
  return s;
}

namespace {

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

}  // namespace

BudgetGoodput budget_goodput(const BudgetInputs& in) {
  in.validate();
  const Chip& chip = chip_by_name(in.chip);
  const double flops = budget_to_flops(chip, in.n_chips, in.days, in.mfu);
  // The checkpoint is that of the model trained, which depends on the
  // compute goodput leaves: two passes settle it (the write time is a
  // second-order term).
  BudgetGoodput out;
  double n_ckpt = chinchilla_split(flops, in.tokens_per_param).params;
  for (int pass = 0; pass < 2; ++pass) {
    const GoodputInputs gi = in.goodput.resolve(n_ckpt, in.n_chips, in.optimizer, in.precision);
    out.inputs = gi;
    out.goodput = goodput_report(gi, in.n_chips, in.days * 24.0);
    if (!(out.goodput.goodput > 0.0))
      throw std::invalid_argument(
          "interruptions-per-1000-chip-days: at " +
          format_grouped(gi.interruptions_per_1000_chip_days, 3) + " per 1,000 chip-days the " +
          format_grouped(static_cast<double>(in.n_chips)) + " chips crash every " +
          format_grouped(60.0 * out.goodput.mtbf_hours.value_or(0.0), 1) +
          " minutes, sooner than the " + format_grouped(out.goodput.lost_per_crash_minutes, 1) +
          " minutes each crash costs: the run makes no progress");
    out.effective_flops = flops * out.goodput.goodput;
    out.effective_split = chinchilla_split(out.effective_flops, in.tokens_per_param);
    n_ckpt = out.effective_split.params;
  }
  return out;
}

namespace {

// A limit below the smallest model the serving model prices (1e6 parameters)
// means no model meets the budget: it fails the serving check rather than
// shrinking the plan to a model no one would train.
bool limit_servable(const ServingLimit& sl) { return sl.max_params && *sl.max_params >= 1e6; }

// The data check: the Chinchilla answer's tokens against the unique tokens,
// and the best split under that limit.
DataLimit data_limit(const DataConstrainedLaw& law, const ChinchillaSplit& split, double flops,
                     double unique) {
  DataLimit d;
  d.unique_tokens = unique;
  d.chinchilla_fits = split.tokens <= unique;
  d.chinchilla_epochs = split.tokens / unique;
  d.chinchilla_loss_fresh = law.base.loss(split.params, split.tokens);
  d.chinchilla_loss = law.loss(split.params, split.tokens, unique);
  d.best = best_split_under_data_limit(law, flops, unique);
  d.fresh = best_split_fresh(law.base, flops);
  d.repetition_penalty_nats = std::max(0.0, d.best.loss - d.fresh.loss);
  return d;
}

// The plan's first four checks: memory, data, servable weights, energy.
void add_plan_checks(BudgetReport& r, const Chip& chip) {
  const BudgetInputs& in = r.inputs;
  const DataLimit& d = r.data;
  // 1. The model states fit the cluster's HBM when fully sharded, with headroom.
  const double need = static_cast<double>(r.train_memory.total);
  const double have = static_cast<double>(r.cluster_hbm_bytes);
  // The check is about the Chinchilla answer's model states sharded over every chip.
  r.checks.push_back({"memory fits (sharded)", need < have * in.memory_headroom,
                      "Chinchilla " + format_count(r.effective_split.params) +
                          " (after goodput), states sharded over all " +
                          format_grouped(static_cast<double>(in.n_chips), 0) + " " + in.chip +
                          ": " + format_grouped(need / 1e9, 0) + " GB of model states / " +
                          format_grouped(have / 1e9, 0) + " GB of HBM (limit " +
                          format_percent(in.memory_headroom, 0) + ")"});
  // 2. The corpus holds that many unique tokens.
  std::string data_detail = "Chinchilla D (after goodput) needs " +
                            format_count(r.effective_split.tokens, 2) + " tokens of " +
                            format_count(in.tokens_available, 1) + " available";
  if (!d.chinchilla_fits)
    data_detail += ": " + epochs_text(d.chinchilla_epochs) + "; best under the limit " +
                   format_count(d.best.params) + " on " + format_count(d.best.tokens, 2) + " (+" +
                   format_grouped(d.repetition_penalty_nats, 3) + " nats)";
  r.checks.push_back({"data available", d.chinchilla_fits, data_detail});
  // 3. Servable: the bf16 weights fit one serving node with at least half of
  // its HBM left for the KV cache.
  const double node_hbm = static_cast<double>(in.serving_node_chips) * chip.hbm_bytes;
  r.checks.push_back({"servable", r.serve_weight_bytes <= 0.5 * node_hbm,
                      "Chinchilla (after goodput) " + format_count(r.effective_split.params, 0) +
                          " params, " + format_bytes(r.serve_weight_bytes, 0) +
                          " in bf16: " + std::to_string(r.chips_to_hold_weights) + " " + in.chip +
                          " to hold the weights; one " + std::to_string(in.serving_node_chips) +
                          "-chip node has " + format_bytes(node_hbm, 0) +
                          ", and the weights may take at most half of it (" +
                          format_bytes(0.5 * node_hbm, 0) + "), the rest is for the KV cache"});
  // 4. Energy: the run's draw at the wall fits the site's power (seed: chips ×
  // TDP × training time, then × PUE at the wall).
  r.checks.push_back({"energy", r.cost.facility_watts <= in.site_power_mw * 1e6,
                      format_grouped(r.cost.chip_energy_kwh / 1000.0, 1) + " MWh at the chips, " +
                          format_grouped(r.cost.energy_kwh / 1000.0, 1) + " MWh at the wall (PUE " +
                          format_grouped(in.cost.pue, 2) + "), ~" +
                          format_dollars(r.cost.energy_dollars) + " at " +
                          format_dollars(in.cost.kwh_price_dollars, 2) + "/kWh; " +
                          format_grouped(r.cost.facility_watts / 1e6, 2) + " MW of " +
                          format_grouped(in.site_power_mw, 0) + " MW site power"});
}

// What I would train: the reference (the Chinchilla answer, or the best split
// under the data limit), then the inference-aware trade, then the serving
// latency cap; and the run it makes.
void recommend(BudgetReport& r, const Chip& chip, const DataConstrainedLaw& law) {
  const BudgetInputs& in = r.inputs;
  const DataLimit& d = r.data;
  Recommendation& rec = r.recommended;
  rec.data_binds = !d.chinchilla_fits;
  const TrainedModel reference =
      d.chinchilla_fits ? TrainedModel{r.effective_split.params, r.effective_split.tokens}
                        : TrainedModel{d.best.params, d.best.tokens};
  const double per_day = static_cast<double>(in.n_chips) * chip.peak_flops_per_s * in.mfu *
                         kSecondsPerDay * r.goodput.goodput;
  // The trades hold the loss as served equal: with weights below 16 bits each
  // model pays its own quantization penalty (served_loss.h).
  ServedLoss served(law, in.tokens_available);
  if (const double bits = nominal_bits(in.serving_weights); bits < 16) {
    served.ptq = serving_ptq_law(in);
    served.weight_bits = bits;
  }
  r.plan = plan_inference_aware(reference, in.served_tokens, r.effective_flops, per_day, served);
  // A same-loss model that would train for more than a century, or one below
  // the million parameters the serving model prices (a fitted law with a
  // small exponent can reach the loss there on paper), is no advice.
  if (r.plan.same_loss_days > 0.9 * 36500.0 || r.plan.same_loss.params < 1e6)
    r.plan.recommend_smaller = false;
  TrainingEconomy te;
  te.chip = in.chip;
  te.mfu = in.mfu;
  te.goodput = r.goodput.goodput;
  te.cost = in.cost;
  r.dollars = plan_lifetime_dollars(reference.params, reference.train_tokens, in.served_tokens,
                                    served, te, in.serving_economy());
  const TrainedModel cheapest{r.dollars.same_loss.params, r.dollars.same_loss.train_tokens};
  if (6.0 * cheapest.params * cheapest.train_tokens / per_day > 0.9 * 36500.0)
    r.dollars.recommend_smaller = false;
  const bool by_dollars = in.objective == Objective::dollars;
  if (by_dollars ? r.dollars.recommend_smaller : r.plan.recommend_smaller) {
    rec.model = by_dollars ? cheapest : r.plan.same_loss;
    rec.reason = RecommendationReason::inference_aware;
  } else {
    rec.model = reference;
    rec.reason =
        d.chinchilla_fits ? RecommendationReason::chinchilla : RecommendationReason::data_limited;
  }
  r.serving_limit =
      in.serving_limit ? *in.serving_limit
                       : largest_servable_model(in.chip, in.serving_node_chips, in.serving_latency);
  const ServingLimit& sl = r.serving_limit;
  if (sl.applied && limit_servable(sl) && rec.model.params > *sl.max_params) {
    rec.serving_binds = true;
    rec.before_serving_limit = rec.model;
    rec.loss_before_serving_limit =
        law.loss(rec.model.params, rec.model.train_tokens, in.tokens_available);
    rec.model = TrainedModel{*sl.max_params, r.effective_flops / (6.0 * *sl.max_params)};
    rec.reason = RecommendationReason::serving_limited;
  }
  TrainInputs t;
  t.chip = in.chip;
  t.n_chips = in.n_chips;
  t.mfu = in.mfu;
  t.n_params = rec.model.params;
  t.train_tokens = rec.model.train_tokens;
  t.tokens_available = in.tokens_available;
  t.cost = in.cost;
  t.goodput = in.goodput;
  t.optimizer = in.optimizer;
  t.precision = in.precision;
  t.memory_headroom = in.memory_headroom;
  rec.run_inputs = t;
  rec.run = train_run(t, law);
  rec.loss_interval = draw_interval(r.law, [&](const LossLaw& draw) {
    DataConstrainedLaw dl = law;
    dl.base = draw;
    return dl.loss(rec.run.active_params, rec.run.tokens, in.tokens_available);
  });
}

}  // namespace

BudgetReport budget_report(const BudgetInputs& in) {
  in.validate();
  const Chip& chip = chip_by_name(in.chip);
  BudgetReport r;
  r.inputs = in;
  r.law = forecast_law(in.law, in.precision);
  const DataConstrainedLaw law = budget_law(r.law);
  r.flops = budget_to_flops(chip, in.n_chips, in.days, in.mfu);
  // A fitted law far beyond its ladder still forecasts (the GUI's fitted
  // ladder can be small), but the memo says so; napkin-cli refuses it.
  std::string out_of_range;
  try {
    require_within_range(in.law, r.flops);
  } catch (const std::invalid_argument& e) {
    out_of_range = std::string(" Caution: ") + e.what() + ".";
  }
  r.split = chinchilla_split(r.flops, in.tokens_per_param);
  r.days = flops_to_days(r.flops, chip, in.n_chips, in.mfu);

  const BudgetGoodput bg = budget_goodput(in);
  r.goodput_inputs = bg.inputs;
  r.goodput = bg.goodput;
  r.effective_days = in.days * r.goodput.goodput;
  r.effective_flops = bg.effective_flops;
  r.effective_split = bg.effective_split;

  r.params_rounded = static_cast<std::int64_t>(std::llround(r.effective_split.params));
  if (r.params_rounded < 1) r.params_rounded = 1;
  r.train_memory = training_memory(r.params_rounded, 0, in.optimizer, in.precision, 0, 1);
  r.cluster_hbm_bytes = checked_mul(in.n_chips, chip.hbm_bytes, "cluster HBM bytes");
  r.serve_weight_bytes = 2.0 * r.effective_split.params;
  r.chips_to_hold_weights = static_cast<std::int64_t>(
      std::ceil(r.serve_weight_bytes / static_cast<double>(chip.hbm_bytes)));
  r.cost = cost_report(chip, in.n_chips, in.days, in.mfu, in.cost);

  r.data = data_limit(law, r.effective_split, r.effective_flops, in.tokens_available);
  add_plan_checks(r, chip);
  recommend(r, chip, law);
  const Recommendation& rec = r.recommended;
  const ServingLimit& sl = r.serving_limit;
  const double node_hbm = static_cast<double>(in.serving_node_chips) * chip.hbm_bytes;
  // 5. The recommended model can be served within the latency budget.
  const bool serving_ok = !in.serving_latency.enabled || (sl.applied && limit_servable(sl));
  r.checks.push_back({"serving latency", serving_ok,
                      sl.detail + (rec.serving_binds ? "; it caps what I would train" : "")});
  // An MoE candidate beyond the joint law's range is no forecast: the memo
  // says why (napkin-cli refuses it before this).
  std::string moe_refused;
  if (!in.moe.dense()) {
    try {
      r.moe = compare_dense_moe(in.moe, r.effective_flops, law, in.tokens_available, sl,
                                in.serving_latency.batch,
                                0.5 * node_hbm / in.serving_latency.bytes_per_param, r.law.name);
    } catch (const std::invalid_argument& e) {
      moe_refused = std::string(" The MoE candidate is not weighed: ") + e.what() + ".";
    }
  }
  precision_read_outs(r, chip, budget_law(in.law));
  r.recommendation = make_recommendation(r) + r.quality_penalty_text + r.train_precision_text +
                     moe_refused + out_of_range;
  return r;
}

}  // namespace napkin
