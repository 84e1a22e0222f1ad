#include "budget_precision.h"

#include <cmath>
#include <optional>
#include <string>

#include "format.h"
#include "minimize.h"
#include "precision_law.h"
#include "scaling.h"

namespace napkin {

namespace {

// The compute a loss penalty is worth: C ÷ C', where a compute-optimal run at
// C' under `law` ends `penalty` nats above one at C (bisection on log C over
// twelve decades); nullopt when even 1e-12·C is not that much worse.
std::optional<double> compute_factor(const LossLaw& law, double flops, double penalty) {
  const double target = optimal_loss(law, flops) + penalty;
  double lo = std::log(flops) - 12.0 * std::log(10.0), hi = std::log(flops);
  if (optimal_loss(law, std::exp(lo)) < target) return std::nullopt;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (optimal_loss(law, std::exp(mid)) > target ? lo : hi) = mid;
  }
  return flops / std::exp(0.5 * (lo + hi));
}

std::string compute_factor_text(const std::optional<double>& factor) {
  if (!factor) return "";
  return "; a compute-optimal run loses as much with " +
         format_grouped(*factor, *factor < 10 ? 2 : 0) + "x less compute";
}

// The best loss as served within a latency limit at this compute: the
// compute-optimal split when it fits under the limit, else the model at the
// limit; with `ptq`, each candidate pays its own quantization penalty (larger
// models trained on fewer tokens per parameter lose less, Kumar et al. Eq. 2).
double best_served_loss(const LossLaw& law, double flops, double max_params, const PtqLaw* ptq,
                        double bits) {
  const auto served = [&](double log_n) {
    const double n = std::exp(log_n), d = flops / (6.0 * n);
    return law.loss(n, d) + (ptq ? ptq->degradation_nats(n, d, bits) : 0.0);
  };
  const double lo = std::log(1e6), hi = std::log(std::max(max_params, 1e6));
  return hi > lo ? served(minimize_1d(served, lo, hi)) : served(hi);
}

// What the narrower weights buy under the latency limit (budget.h).
void serving_precision_trade(BudgetReport& r, const LossLaw& loss_law, const PtqLaw& ptq,
                             double bits) {
  const BudgetInputs& in = r.inputs;
  const ServingLimit& sl = r.serving_limit;
  if (!in.bf16_serving_limit_params || !sl.applied || !sl.max_params) return;
  BudgetReport::ServingPrecisionTrade t;
  t.bf16_limit_params = *in.bf16_serving_limit_params;
  t.limit_params = *sl.max_params;
  const double c = r.effective_flops;
  const double bf16 = best_served_loss(loss_law, c, t.bf16_limit_params, nullptr, 16);
  t.advantage_without_penalty_nats =
      bf16 - best_served_loss(loss_law, c, t.limit_params, nullptr, bits);
  t.advantage_nats = bf16 - best_served_loss(loss_law, c, t.limit_params, &ptq, bits);
  r.serving_precision_trade = t;
  const std::string w(to_string(in.serving_weights));
  const auto nats = [](double x) { return format_signed(x, 4) + " nats"; };
  r.quality_penalty_text +=
      " Under the latency limit, " + w + " weights serve up to " + format_count(t.limit_params) +
      " parameters against " + format_count(t.bf16_limit_params) +
      " at bf16: at this compute the best model each can serve is " +
      nats(t.advantage_without_penalty_nats) + " better at " + w + " by the loss law alone, and " +
      nats(t.advantage_nats) + " better with its quantization penalty counted" +
      (t.advantage_nats < 0 ? ": its larger limit does not pay for its penalty, and bf16 weights "
                              "serve the better model at this compute."
                            : ".");
}

// Serving below bf16 costs loss (Kumar et al. 2024, Eq. 2): the constants
// given (--ptq-law), else the paper's Appendix K, Table 2 ones.
void serving_precision_read_out(BudgetReport& r, const LossLaw& loss_law) {
  const BudgetInputs& in = r.inputs;
  const RunReport& run = r.recommended.run;
  const double bits = nominal_bits(in.serving_weights);
  if (bits >= 16) {
    r.quality_penalty_nats = 0.0;
    return;
  }
  const PtqLaw law = serving_ptq_law(in);
  r.quality_penalty_nats = law.degradation_nats(run.params, run.tokens, bits);
  r.quality_penalty_compute_factor =
      compute_factor(loss_law, r.effective_flops, *r.quality_penalty_nats);
  const std::string constants =
      in.ptq_law ? std::string("with the constants given") : "with " + kumar2024_validity_text();
  r.quality_penalty_text =
      " Serving the weights at " + std::string(to_string(in.serving_weights)) + " costs " +
      format_grouped(*r.quality_penalty_nats, 4) + " nats (forecast " +
      format_grouped(run.loss + *r.quality_penalty_nats, 3) + " nats as served" +
      compute_factor_text(r.quality_penalty_compute_factor) +
      ") under Kumar et al. 2024's post-training quantization law, more "
      "for more tokens per parameter, " +
      constants + ".";
  serving_precision_trade(r, loss_law, law, bits);
}

// FP8 training. MFU counts model FLOPs against the bf16 peak (as the
// Parallelism model's does), so FP8's faster GEMMs show in the MFU: the
// Parallelism model's step time when the MFU is predicted, the MFU assumed
// otherwise; nothing here multiplies C by the ratio of the peaks. Its loss is
// in every forecast (r.law, forecast_law); this says what it costs against
// the same run trained in bf16.
void train_precision_read_out(BudgetReport& r, const Chip& chip,
                              const DataConstrainedLaw& bf16_law) {
  const bool fp8 = r.inputs.precision == Precision::mixed_fp8;
  r.train_gemm_peak_flops_per_s = fp8 ? chip.fp8_peak_flops_per_s : chip.peak_flops_per_s;
  if (!fp8) {
    r.train_precision_penalty_nats = 0.0;
    return;
  }
  const RunReport& run = r.recommended.run;
  const double n = run.active_params > 0 ? run.active_params : run.params;
  const double bf16_loss = bf16_law.loss(n, run.tokens, run.unique_tokens);
  r.train_precision_penalty_nats = run.loss - bf16_loss;
  const TrainPrecisionLaw t = kumar2024_train_precision_law();
  const double share8 = t.effective_params(n, 8, 8, 8) / n;
  const double share16 = t.effective_params(n, 16, 16, 16) / n;
  r.train_precision_text =
      " Training with FP8 GEMMs: the " + std::string(chip.name) + "'s FP8 peak is " +
      format_grouped(chip.fp8_peak_flops_per_s / 1e12, 0) + " TFLOP/s against " +
      format_grouped(chip.peak_flops_per_s / 1e12, 0) +
      " in bf16; C takes the MFU as model FLOPs over the bf16 peak, so FP8's speed-up is the "
      "MFU's (" +
      format_percent(r.inputs.mfu, 1) +
      ": the Parallelism model's step time when predicted), and the model states keep mixed "
      "bf16's bytes. Its loss is in every forecast here: 8-bit weights, activations and KV cache "
      "leave " +
      format_percent(share8, 1) + " of the parameters effective (" + format_percent(share16, 1) +
      " in bf16), so the law is read with " + format_percent(share8 / share16, 1) +
      " of N, and the run above ends " + format_grouped(*r.train_precision_penalty_nats, 4) +
      " nats above the same run trained in bf16 (" + format_grouped(bf16_loss, 3) + " nats" +
      compute_factor_text(
          compute_factor(bf16_law.base, r.effective_flops, *r.train_precision_penalty_nats)) +
      "), under Kumar et al. 2024's effective parameter count, with " + kumar2024_validity_text() +
      ".";
}

}  // namespace

PtqLaw serving_ptq_law(const BudgetInputs& in) {
  return in.ptq_law ? *in.ptq_law : kumar2024_ptq_law();
}

PlanLaw forecast_law(const PlanLaw& law, Precision precision) {
  if (precision != Precision::mixed_fp8) return law;
  const TrainPrecisionLaw t = kumar2024_train_precision_law();
  PlanLaw out = law;
  out.law = t.trained_at(law.law, 8);
  for (LossLaw& d : out.draws) d = t.trained_at(d, 8);
  out.name = law.name + " with FP8 training's effective parameters (Kumar et al. 2024)";
  return out;
}

void precision_read_outs(BudgetReport& r, const Chip& chip, const DataConstrainedLaw& bf16_law) {
  serving_precision_read_out(r, r.law.law);
  train_precision_read_out(r, chip, bf16_law);
}

}  // namespace napkin
