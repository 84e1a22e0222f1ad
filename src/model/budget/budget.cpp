#include "budget.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "budget_memo.h"
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
    case Dtype::int4:
    case Dtype::fp4: return 4;
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
