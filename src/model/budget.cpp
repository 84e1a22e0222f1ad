#include "budget.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "format.h"
#include "validate.h"

namespace napkin {

namespace {
constexpr double kSecondsPerDay = 86400.0;
constexpr double kMaxChips = 10'000'000;
}  // namespace

double budget_to_flops(const Chip& chip, std::int64_t n_chips, double days, double mfu) {
  require_count(n_chips, "chips", "chips", 1, static_cast<std::int64_t>(kMaxChips));
  require_real(days, "days", "days", 0.0, 36500.0, true);
  require_real(mfu, "mfu", "fraction of peak", 0.0, 1.0, true);
  return static_cast<double>(n_chips) * chip.peak_flops_per_s * mfu * days * kSecondsPerDay;
}

double flops_to_days(double flops, const Chip& chip, std::int64_t n_chips, double mfu) {
  require_positive(flops, "flops", "FLOPs");
  require_count(n_chips, "chips", "chips", 1, static_cast<std::int64_t>(kMaxChips));
  require_real(mfu, "mfu", "fraction of peak", 0.0, 1.0, true);
  return flops / (static_cast<double>(n_chips) * chip.peak_flops_per_s * mfu * kSecondsPerDay);
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

CostReport cost_report(const Chip& chip, std::int64_t n_chips, double days, double mfu,
                       const CostInputs& cost) {
  require_real(cost.price_per_chip_hour_dollars, "price", "$ per chip-hour", 0.0, 1e4);
  require_real(cost.kwh_price_dollars, "kwh_price", "$ per kWh", 0.0, 100.0);
  require_real(cost.pue, "pue", "facility W per IT W", 1.0, 5.0);
  CostReport r;
  r.flops = budget_to_flops(chip, n_chips, days, mfu);
  const double chips = static_cast<double>(n_chips);
  r.hours = days * 24.0;
  r.rental_dollars = chips * r.hours * cost.price_per_chip_hour_dollars;
  r.chip_energy_kwh = chips * chip.watts * r.hours / 1000.0;
  r.energy_kwh = r.chip_energy_kwh * cost.pue;
  r.energy_dollars = r.energy_kwh * cost.kwh_price_dollars;
  r.facility_watts = chips * chip.watts * cost.pue;
  r.dollars_per_1e21_flops = r.rental_dollars / r.flops * 1e21;
  return r;
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
  require_real(tokens_available, "tokens_available", "tokens", 0.0, 1e18, true);
  require_real(served_tokens, "served_tokens", "tokens", 0.0, 1e22);
  require_real(memory_headroom, "memory_headroom", "fraction of HBM", 0.0, 1.0, true);
  require_real(site_power_mw, "site_power", "MW", 0.0, 1e6, true);
  require_count(serving_node_chips, "serving_node_chips", "chips", 1, 1024);
}

InferenceAwarePlan plan_inference_aware(const TrainedModel& chin, double served_tokens,
                                        double budget_flops, double cluster_flops_per_day,
                                        const LossLaw& law) {
  law.validate();
  require_positive(chin.params, "params", "parameters");
  require_positive(chin.train_tokens, "train_tokens", "tokens");
  require_real(served_tokens, "served_tokens", "tokens", 0.0, 1e22);
  require_positive(budget_flops, "budget_flops", "FLOPs");
  require_positive(cluster_flops_per_day, "cluster_flops_per_day", "FLOPs per day");

  InferenceAwarePlan p;
  p.law = law;
  p.served_tokens = served_tokens;
  p.chinchilla = chin;
  p.chinchilla_loss = law.loss(chin.params, chin.train_tokens);

  // Minimize lifetime FLOPs at the Chinchilla answer's loss over log N: a
  // fixed grid, then golden-section refinement around the best grid point.
  // Deterministic: fixed grid size and iteration count.
  const double target = p.chinchilla_loss;
  const double n_min = law.min_params_for_loss(target);
  const double lo = std::log(n_min) + 1e-6;
  const double hi = std::log(chin.params * 4.0);
  auto cost = [&](double log_n) {
    const double n = std::exp(log_n);
    const auto d = law.tokens_for_loss(n, target);
    if (!d) return std::numeric_limits<double>::max();
    return 6.0 * n * *d + 2.0 * n * served_tokens;
  };
  constexpr int kGrid = 400;
  int best = 0;
  double best_cost = std::numeric_limits<double>::max();
  for (int i = 0; i <= kGrid; ++i) {
    const double x = lo + (hi - lo) * i / kGrid;
    const double c = cost(x);
    if (c < best_cost) {
      best_cost = c;
      best = i;
    }
  }
  double a = lo + (hi - lo) * std::max(best - 1, 0) / kGrid;
  double b = lo + (hi - lo) * std::min(best + 1, kGrid) / kGrid;
  const double phi = (std::sqrt(5.0) - 1.0) / 2.0;
  for (int it = 0; it < 100; ++it) {
    const double x1 = b - phi * (b - a);
    const double x2 = a + phi * (b - a);
    if (cost(x1) <= cost(x2))
      b = x2;
    else
      a = x1;
  }
  const double n_small = std::exp(0.5 * (a + b));
  p.same_loss.params = n_small;
  p.same_loss.train_tokens = law.tokens_for_loss(n_small, target).value_or(chin.train_tokens);
  p.same_loss_train_flops = 6.0 * p.same_loss.params * p.same_loss.train_tokens;
  p.same_loss_days = p.same_loss_train_flops / cluster_flops_per_day;
  p.same_budget_tokens = budget_flops / (6.0 * n_small);
  p.same_budget_loss = law.loss(n_small, p.same_budget_tokens);
  p.lifetime_flops_chinchilla = lifetime_flops(chin.params, chin.train_tokens, served_tokens);
  p.lifetime_flops_small =
      lifetime_flops(p.same_loss.params, p.same_loss.train_tokens, served_tokens);
  p.crossover_served_tokens = served_token_crossover(chin, p.same_loss);
  p.recommend_smaller =
      n_small < chin.params && p.lifetime_flops_small < 0.95 * p.lifetime_flops_chinchilla;
  return p;
}

namespace {

std::string make_recommendation(const BudgetReport& r) {
  const InferenceAwarePlan& p = r.plan;
  const auto& in = r.inputs;
  std::string s =
      "Chinchilla answer: train " + format_count(r.split.params) + " parameters on " +
      format_count(r.split.tokens, 2) + " tokens (" + format_grouped(in.tokens_per_param, 0) +
      " tokens/parameter), C = " + format_sci(r.flops) + " FLOPs in " + format_grouped(r.days, 1) +
      " days on " + format_grouped(static_cast<double>(in.n_chips), 0) + " " + in.chip + " at " +
      format_percent(in.mfu, 0) + " MFU. ";
  if (p.recommend_smaller) {
    const double ratio = p.lifetime_flops_chinchilla / p.lifetime_flops_small;
    s += "But it will serve " + format_count(p.served_tokens, 1) + " tokens, and at 2N FLOPs per " +
         "served token a smaller model trained longer is cheaper over its life: I would train " +
         format_count(p.same_loss.params) + " parameters on " +
         format_count(p.same_loss.train_tokens, 2) + " tokens, which reaches the same loss (" +
         format_grouped(p.chinchilla_loss, 3) + " nats under the " +
         "replicated Chinchilla law) with " + format_grouped(p.same_loss_train_flops / r.flops, 2) +
         "x the training FLOPs (" + format_grouped(p.same_loss_days, 1) +
         " days on this cluster) and " + format_grouped(ratio, 2) +
         "x fewer lifetime FLOPs; it pays off after " +
         (p.crossover_served_tokens ? format_count(*p.crossover_served_tokens, 1)
                                    : std::string("0")) +
         " served tokens. Within this budget alone it would reach " +
         format_grouped(p.same_budget_loss, 3) + " nats, " +
         format_grouped(p.same_budget_loss - p.chinchilla_loss, 3) +
         " nats worse than the Chinchilla answer, for " +
         format_grouped(r.split.params / p.same_loss.params, 1) + "x cheaper serving per token.";
    if (p.same_loss.train_tokens > in.tokens_available)
      s += " Caution: the same-loss run needs " + format_count(p.same_loss.train_tokens, 1) +
           " unique tokens, more than the " + format_count(in.tokens_available, 1) +
           " available; tokens repeated for more epochs are worth less than fresh ones "
           "(returns fade after a few epochs: Muennighoff et al. 2023).";
    // A plan far longer than the run the scenario budgets for is not the same
    // decision: flag it rather than let a 1,387-day run pass as an answer.
    if (p.same_loss_days > 2.0 * in.days)
      s += " Caution: the same-loss run takes " + format_grouped(p.same_loss_days, 0) +
           " days on this cluster, more than twice the " + format_grouped(in.days, 0) +
           " days planned; it needs a longer schedule or more chips.";
  } else {
    s += "At " + format_count(p.served_tokens, 1) + " served tokens the lifetime-optimal model " +
         "at the same loss is " + format_count(p.same_loss.params) + " parameters, within 5 % " +
         "of the Chinchilla answer's lifetime FLOPs, so I would train the Chinchilla answer.";
  }
  for (const Check& c : r.checks)
    if (!c.ok) s += " Check failed: " + c.name + " (" + c.detail + ").";
  return s;
}

}  // namespace

BudgetReport budget_report(const BudgetInputs& in) {
  in.validate();
  const Chip& chip = chip_by_name(in.chip);
  BudgetReport r;
  r.inputs = in;
  r.flops = budget_to_flops(chip, in.n_chips, in.days, in.mfu);
  r.split = chinchilla_split(r.flops, in.tokens_per_param);
  r.days = flops_to_days(r.flops, chip, in.n_chips, in.mfu);
  r.params_rounded = static_cast<std::int64_t>(std::llround(r.split.params));
  if (r.params_rounded < 1) r.params_rounded = 1;
  r.train_memory = training_memory(r.params_rounded, 0, in.optimizer, in.precision, 0, 1);
  r.cluster_hbm_bytes = checked_mul(in.n_chips, chip.hbm_bytes, "cluster HBM bytes");
  r.serve_weight_bytes = 2.0 * r.split.params;
  r.chips_to_hold_weights = static_cast<std::int64_t>(
      std::ceil(r.serve_weight_bytes / static_cast<double>(chip.hbm_bytes)));
  r.cost = cost_report(chip, in.n_chips, in.days, in.mfu, in.cost);

  // 1. The model states fit the cluster's HBM when fully sharded, with headroom.
  const double need = static_cast<double>(r.train_memory.total);
  const double have = static_cast<double>(r.cluster_hbm_bytes);
  // The check is about the Chinchilla answer's model states sharded over every chip.
  r.checks.push_back({"memory fits (sharded)", need < have * in.memory_headroom,
                      "Chinchilla " + format_count(r.split.params) + ", states sharded over all " +
                          format_grouped(static_cast<double>(in.n_chips), 0) + " " + in.chip +
                          ": " + format_grouped(need / 1e9, 0) + " GB of model states / " +
                          format_grouped(have / 1e9, 0) + " GB of HBM (limit " +
                          format_percent(in.memory_headroom, 0) + ")"});
  // 2. The corpus holds that many unique tokens.
  r.checks.push_back({"data available", r.split.tokens < in.tokens_available,
                      "Chinchilla D needs " + format_count(r.split.tokens, 2) + " tokens of " +
                          format_count(in.tokens_available, 1) + " available"});
  // 3. Servable: the bf16 weights fit one serving node with at least half of
  // its HBM left for the KV cache.
  const double node_hbm = static_cast<double>(in.serving_node_chips) * chip.hbm_bytes;
  r.checks.push_back({"servable", r.serve_weight_bytes <= 0.5 * node_hbm,
                      "Chinchilla " + format_count(r.split.params, 0) + " params, " +
                          format_bytes(r.serve_weight_bytes, 0) +
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

  const double per_day = static_cast<double>(in.n_chips) * chip.peak_flops_per_s * in.mfu * 86400.0;
  r.plan =
      plan_inference_aware({r.split.params, r.split.tokens}, in.served_tokens, r.flops, per_day);
  r.recommendation = make_recommendation(r);
  return r;
}

}  // namespace napkin
