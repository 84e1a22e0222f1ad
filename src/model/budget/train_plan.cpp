#include "train_plan.h"

#include <cmath>
#include <stdexcept>

#include "format.h"
#include "hardware.h"
#include "validate.h"

namespace napkin {

void TrainInputs::validate() const {
  (void)chip_by_name(chip);
  require_count(n_chips, "chips", "chips", 1, 10'000'000);
  require_real(mfu, "mfu", "fraction of peak", 0.0, 1.0, true);
  require_real(n_params, "params", "parameters", 1e3, 1e15);
  require_real(active_params, "active_params", "parameters (0 = params)", 0.0, n_params);
  require_real(train_tokens, "tokens", "tokens (0 = tokens-per-param × params)", 0.0,
               kMaxTrainTokens);
  require_real(tokens_per_param, "tokens_per_param", "tokens per parameter", 0.01, 1e6);
  require_real(tokens_available, "tokens_available", "tokens", 0.0, kMaxTrainTokens, true);
  require_real(cost.price_per_chip_hour_dollars, "price", "$ per chip-hour", 0.0, 1e4);
  require_real(cost.kwh_price_dollars, "kwh_price", "$ per kWh", 0.0, 100.0);
  require_real(cost.pue, "pue", "facility W per IT W", 1.0, 5.0);
  goodput.validate();
  require_real(memory_headroom, "memory_headroom", "fraction of HBM", 0.0, 1.0, true);
}

double TrainInputs::tokens() const {
  return train_tokens > 0 ? train_tokens : tokens_per_param * n_params;
}

double TrainInputs::flops_params() const { return active_params > 0 ? active_params : n_params; }

RunReport train_run(const TrainInputs& in, const DataConstrainedLaw& law) {
  in.validate();
  law.validate();
  const Chip& chip = chip_by_name(in.chip);
  RunReport r;
  r.params = in.n_params;
  r.active_params = in.flops_params();
  r.tokens = in.tokens();
  require_real(r.tokens, "tokens", "tokens", 1.0, kMaxTrainTokens);
  r.flops = 6.0 * r.active_params * r.tokens;
  r.productive_days = flops_to_days(r.flops, chip, in.n_chips, in.mfu);

  r.checkpoint_bytes = checkpoint_bytes(r.params, in.optimizer, in.precision);
  r.goodput_inputs = in.goodput.resolve(r.params, in.n_chips, in.optimizer, in.precision);
  const GoodputInputs& g = r.goodput_inputs;
  const GoodputReport per_day = goodput_report(g, in.n_chips, 24.0);
  const double fraction = per_day.goodput;
  if (fraction <= 0.0)
    throw std::invalid_argument(
        "interruptions-per-1000-chip-days: at " +
        format_grouped(g.interruptions_per_1000_chip_days, 3) + " per 1,000 chip-days, " +
        format_grouped(static_cast<double>(in.n_chips)) + " chips crash every " +
        format_grouped(60.0 * per_day.mtbf_hours.value_or(0.0), 1) + " minutes, sooner than the " +
        format_grouped(per_day.lost_per_crash_minutes, 1) +
        " minutes each crash costs (restart plus redone work): the run makes no progress");
  r.wall_clock_days = r.productive_days / fraction;
  if (r.wall_clock_days > kMaxPlanDays)
    throw std::invalid_argument("tokens: " + format_count(r.params) + " parameters on " +
                                format_count(r.tokens, 2) + " tokens take " +
                                format_sci(r.wall_clock_days, 2) + " days on " +
                                format_grouped(static_cast<double>(in.n_chips)) + " " + in.chip +
                                ", more than 100 years; use more chips or a smaller run");
  r.goodput = goodput_report(g, in.n_chips, r.wall_clock_days * 24.0);
  r.cost = cost_report(chip, in.n_chips, r.wall_clock_days, in.mfu, in.cost);

  r.unique_tokens = in.tokens_available;
  r.epochs = r.tokens / r.unique_tokens;
  r.effective_tokens = effective_tokens(r.unique_tokens, r.tokens, law.rd_star);
  r.effective_params = effective_params(
      r.active_params, law.useful_params(r.active_params, r.unique_tokens), law.rn_star);
  r.loss = law.loss(r.active_params, r.tokens, r.unique_tokens);
  r.loss_fresh = law.base.loss(r.active_params, r.tokens);
  r.data_suffice = r.tokens <= r.unique_tokens;

  const TrainingMemory mem =
      training_memory(std::llround(r.params), 0, in.optimizer, in.precision, 0, 1);
  const double hbm = static_cast<double>(in.n_chips) * static_cast<double>(chip.hbm_bytes);
  const double need = static_cast<double>(mem.total);
  r.checks.push_back({"memory fits (sharded)", need < hbm * in.memory_headroom,
                      format_grouped(need / 1e9, 0) + " GB of model states / " +
                          format_grouped(hbm / 1e9, 0) + " GB of HBM (limit " +
                          format_percent(in.memory_headroom, 0) + ")"});
  std::string data = "needs " + format_count(r.tokens, 2) + " tokens of " +
                     format_count(r.unique_tokens, 1) + " available";
  if (!r.data_suffice)
    data += ": " + format_grouped(r.epochs, 2) + " epochs, worth " +
            format_count(r.effective_tokens, 2) + " fresh tokens (+" +
            format_grouped(r.loss - r.loss_fresh, 3) + " nats)";
  r.checks.push_back({"data available", r.data_suffice, data});

  r.summary =
      "Training " + format_count(r.params) + " parameters" +
      (r.active_params < r.params ? " (" + format_count(r.active_params) + " active)" : "") +
      " on " + format_count(r.tokens, 2) + " tokens is C = " + format_sci(r.flops) +
      " FLOPs: " + format_grouped(r.productive_days, 1) + " days of computing on " +
      format_grouped(static_cast<double>(in.n_chips)) + " " + in.chip + " at " +
      format_percent(in.mfu, 0) + " MFU, " + format_grouped(r.wall_clock_days, 1) +
      " days of wall-clock at " + format_percent(fraction, 1) + " goodput (" +
      format_grouped(r.goodput.expected_crashes, 1) + " expected interruptions), " +
      format_dollars(r.cost.rental_dollars) + " of chip rental and " +
      format_grouped(r.cost.energy_kwh / 1000.0, 1) + " MWh at the wall. Forecast loss " +
      format_grouped(r.loss, 3) + " nats/token" +
      (r.active_params < r.params ? " (dense law on the active parameters)" : "") + "; " +
      (r.data_suffice ? "the " + format_count(r.unique_tokens, 1) + " unique tokens suffice."
                      : "only " + format_count(r.unique_tokens, 1) + " unique tokens exist, so " +
                            format_grouped(r.epochs, 2) + " epochs, worth " +
                            format_count(r.effective_tokens, 2) + " fresh tokens, cost " +
                            format_grouped(r.loss - r.loss_fresh, 3) + " nats.");
  return r;
}

}  // namespace napkin
