#include "budget_view.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "format.h"
#include "hardware.h"
#include "plan_inputs.h"
#include "scaling.h"
#include "validate.h"

namespace napkin {

namespace {

// n points spaced evenly in log10 between lo and hi.
std::vector<double> log_space(double lo, double hi, int n) {
  std::vector<double> out(static_cast<std::size_t>(n));
  const double a = std::log10(lo), b = std::log10(hi);
  for (int i = 0; i < n; ++i)
    out[static_cast<std::size_t>(i)] = std::pow(10.0, a + (b - a) * i / (n - 1));
  return out;
}

constexpr std::int64_t kServeWorkspaceBytes = 10'000'000'000;  // seed Phase 00 ch. 9

// The serving limit budget_report() caps "What I would train" with: the
// layout search's largest dense model, reused from `previous` when the
// serving inputs are the same.
// The budget memo already cautions about a same-loss run longer than 2× the days.
bool p_too_long(const InferenceAwarePlan& p, double days) {
  return p.recommend_smaller && p.same_loss_days > 2.0 * days;
}

BudgetServing serving_search(const Scenario& s, const BudgetView* previous) {
  BudgetServing b;
  b.enabled = s.serving.limit_model;
  b.key = serving_search_key(s);
  b.precision = describe_precision(s.serving.weight_dtype, s.serving.kv_dtype);
  if (!b.enabled || s.serving.latency_budget_seconds <= s.serving.overhead_seconds) return b;
  if (previous && previous->serving.enabled && previous->serving.key == b.key) {
    b.largest_params = previous->serving.largest_params;
    b.bf16_largest_params = previous->serving.bf16_largest_params;
    return b;
  }
  b.largest_params = largest_params_for_budget(budget_serving_inputs(s));
  if (nominal_bits(s.serving.weight_dtype) < 16) {
    Scenario bf16 = s;
    bf16.serving.weight_dtype = Dtype::bf16;
    b.bf16_largest_params = largest_params_for_budget(budget_serving_inputs(bf16));
  }
  return b;
}

std::string serving_where(const Scenario& s) {
  const SearchInputs in = budget_serving_inputs(s);
  return in.budget.describe() + " with the " + in.serving.engine + " engine (" +
         format_grouped(static_cast<double>(s.serving.prompt_tokens)) + "-token prompt, " +
         format_grouped(static_cast<double>(s.serving.decode_tokens)) + " tokens out, " +
         format_seconds(s.serving.overhead_seconds) + " overhead) on up to " +
         format_grouped(static_cast<double>(s.serving.chips)) + " " + in.serving.chip;
}

ServingLimit as_serving_limit(const Scenario& s, const BudgetServing& b) {
  ServingLimit l;
  l.chip = s.chip;
  l.serving_chips = s.serving.chips;
  if (!b.enabled) {
    l.detail = "serving latency not applied";
    return l;
  }
  if (s.serving.latency_budget_seconds <= s.serving.overhead_seconds) {
    l.detail = "the latency budget of " + format_seconds(s.serving.latency_budget_seconds) +
               " is at or below the " + format_seconds(s.serving.overhead_seconds) +
               " overhead, so no model meets it";
    return l;
  }
  l.applied = true;
  l.max_params = b.largest_params;
  if (b.largest_params)
    l.detail = "largest dense model meeting " + serving_where(s) + " at " + b.precision + " is " +
               format_count(*b.largest_params) +
               " parameters (serving layout search: KV cache and TP all-reduces counted)";
  else
    l.detail = "no dense model of 100M parameters or more meets " + serving_where(s) + " at " +
               b.precision;
  return l;
}

// What budget_report() is given of a serving search: its limit, and the bf16 one.
void set_serving_limits(BudgetInputs& inputs, const Scenario& s, const BudgetServing& b) {
  inputs.serving_limit = as_serving_limit(s, b);
  inputs.bf16_serving_limit_params = b.bf16_largest_params;
}

}  // namespace

std::string_view range_input_key(RangeInput input) {
  switch (input) {
    case RangeInput::mfu: return "mfu";
    case RangeInput::interruptions: return "interruptions_per_1000_chip_days";
    case RangeInput::restart: return "restart_minutes";
    case RangeInput::price: return "price_per_chip_hour_dollars";
    case RangeInput::tokens_available: return "tokens_available";
  }
  return "mfu";
}

double range_likely(const Scenario& s, RangeInput input) {
  switch (input) {
    case RangeInput::mfu: return s.mfu;
    case RangeInput::interruptions: return s.goodput.interruptions_per_1000_chip_days;
    case RangeInput::restart: return s.goodput.restart_minutes;
    case RangeInput::price: return s.price_per_chip_hour_dollars;
    case RangeInput::tokens_available: return s.tokens_available;
  }
  return 0;
}

std::optional<Spread>& range_spread(RangeSetup& r, RangeInput input) {
  switch (input) {
    case RangeInput::mfu: return r.mfu;
    case RangeInput::interruptions: return r.interruptions_per_1000_chip_days;
    case RangeInput::restart: return r.restart_minutes;
    case RangeInput::price: return r.price_per_chip_hour_dollars;
    case RangeInput::tokens_available: return r.tokens_available;
  }
  return r.mfu;
}

const std::optional<Spread>& range_spread(const RangeSetup& r, RangeInput input) {
  return range_spread(const_cast<RangeSetup&>(r), input);
}

Spread widened(const Spread& sp, double likely) {
  return {std::min(sp.low, likely), std::max(sp.high, likely)};
}

Spread default_spread(RangeInput input, double likely) {
  switch (input) {
    case RangeInput::mfu: return {0.75 * likely, std::min(0.95, std::max(likely, 1.1 * likely))};
    case RangeInput::interruptions: return {0.5 * likely, 3.0 * likely};
    case RangeInput::restart: return {0.5 * likely, 3.0 * likely};
    case RangeInput::price: return {0.8 * likely, 1.3 * likely};
    case RangeInput::tokens_available: return {0.5 * likely, 1.5 * likely};
  }
  return {likely, likely};
}

std::string spread_problem(RangeInput input, const Spread& sp, double likely) {
  const InputInfo& info = plan_input_info(range_input_key(input));
  const bool percent = input == RangeInput::mfu;
  auto value = [percent](double v) {
    return percent ? format_percent(v, 0) : format_grouped(v, v < 10 ? 2 : 0);
  };
  const std::string head =
      std::string(info.label) + " range refused (" + std::string(percent ? "%" : info.unit) + "): ";
  if (!std::isfinite(sp.low) || !std::isfinite(sp.high) || sp.low < 0)
    return head + "low and high must be finite and not negative.";
  if (sp.low > sp.high)
    return head + "low " + value(sp.low) + " is above high " + value(sp.high) + ".";
  if (sp.low > likely)
    return head + "low " + value(sp.low) + " is above the likely value " + value(likely) +
           " (the scenario's own).";
  if (sp.high < likely)
    return head + "high " + value(sp.high) + " is below the likely value " + value(likely) +
           " (the scenario's own).";
  if (percent && sp.high > 1.0) return head + "high " + value(sp.high) + " is above 100 %.";
  return {};
}

std::string serving_search_key(const Scenario& s) {
  const ServingSetup& v = s.serving;
  return s.chip + "|" + std::to_string(v.chips) + "|" + std::to_string(v.batch) + "|" +
         std::to_string(v.prompt_tokens) + "|" + std::to_string(v.decode_tokens) + "|" +
         format_value(v.latency_budget_seconds) + "|" + format_value(v.overhead_seconds) + "|" +
         std::string(to_string(v.weight_dtype)) + "|" + std::string(to_string(v.kv_dtype)) + "|" +
         v.engine + "|" + v.chip;
}

void set_scenario_serving_limits(BudgetInputs& inputs, const Scenario& s) {
  set_serving_limits(inputs, s, serving_search(s, nullptr));
}

SearchInputs budget_serving_inputs(const Scenario& s) {
  SearchInputs in;
  in.serving.chip = s.serving.chip.empty() ? s.chip : s.serving.chip;
  in.serving.prompt_tokens = s.serving.prompt_tokens;
  in.serving.decode_tokens = s.serving.decode_tokens;
  in.serving.weights = s.serving.weight_dtype;
  in.serving.kv = s.serving.kv_dtype;
  // The scenario's engine preset prices the turn (serving_engine.h): a real
  // engine's kernels, launches and host work, not only the roofline bound.
  in.serving.engine = s.serving.engine;
  in.serving.overhead_seconds = s.serving.overhead_seconds;
  in.serving.cost.price_per_chip_hour_dollars = s.serving.price_per_chip_hour_dollars;
  in.serving.cost.kwh_price_dollars = s.kwh_price_dollars;
  in.serving.cost.pue = s.pue;
  in.budget.turn_seconds = s.serving.latency_budget_seconds;
  in.max_chips = s.serving.chips;
  in.max_batch = s.serving.batch;
  return in;
}

std::optional<RangeReport> budget_ranges(const Scenario& s, const TrainInputs& plan) {
  if (!s.ranges.any()) return std::nullopt;
  return plan_ranges(plan, s.plan_ranges(plan), budget_law(s.trained_law()));
}

std::vector<std::int64_t> kv_head_options(std::int64_t n_heads) {
  std::vector<std::int64_t> out;
  for (std::int64_t d = 1; d <= n_heads; ++d)
    if (n_heads % d == 0) out.push_back(d);
  return out;
}

ModelShape consistent_shape(ModelShape s) {
  if (s.n_heads > 0 && s.n_kv_heads > 0 && s.n_heads % s.n_kv_heads != 0)
    s.n_kv_heads = std::gcd(s.n_heads, s.n_kv_heads);
  if (s.is_moe()) {
    s.top_k = std::clamp<std::int64_t>(s.top_k, 1, s.n_experts);
    s.n_dense_layers = std::min(s.n_dense_layers, s.n_layers);
  } else {
    s.top_k = 0;
    s.shared_experts = 0;
    s.n_dense_layers = 0;
  }
  return s;
}

Check scenario_memory_check(const Scenario& s, const TrainingMemory& m, std::int64_t hbm) {
  return {"scenario model fits per device", m.total <= hbm,
          s.model_name + " at ZeRO-" + std::to_string(s.training.zero_stage) + " over DP " +
              format_grouped(static_cast<double>(s.training.dp_degree), 0) + ", micro-batch " +
              std::to_string(s.training.micro_batch) + " × " +
              format_grouped(static_cast<double>(s.training.seq_len), 0) + ": " +
              format_bytes(static_cast<double>(m.total), 1) + " per device of " +
              format_bytes(static_cast<double>(hbm), 1) + " device memory (limit 100 %)"};
}

namespace {

// (a) Training memory per device of the scenario's model at ZeRO 0–3.
void add_memory(BudgetView& v, const Scenario& s) {
  ActivationShape act;
  act.batch = s.training.micro_batch;
  act.seq = s.training.seq_len;
  act.d_model = s.shape.d_model;
  act.n_layers = s.shape.n_layers;
  v.activation_bytes = activation_bytes(act, s.training.checkpointing);
  for (int z = 0; z <= 3; ++z)
    v.memory_by_zero[static_cast<std::size_t>(z)] =
        training_memory(v.params.total, v.activation_bytes, s.training.optimizer,
                        s.training.precision, z, s.training.dp_degree);
  for (std::size_t z = 0; z < 4; ++z)
    v.fits_device_by_zero[z] = v.memory_by_zero[z].total <= v.device_memory_bytes;
}

// (b) KV cache per request against context, and what one serving node holds.
void add_kv_cache(BudgetView& v, const Scenario& s, const std::vector<double>& contexts) {
  const Chip& chip = chip_by_name(s.chip);
  const ModelShape& m = s.shape;
  for (double t : contexts) {
    const auto ctx = static_cast<std::int64_t>(std::llround(t));
    v.kv_mha.x.push_back(t);
    v.kv_mha.y.push_back(
        static_cast<double>(kv_cache_bytes(m.n_layers, m.n_heads, m.d_head, ctx, 1)));
    v.kv_scenario.x.push_back(t);
    // The scenario's own cache: MLA's latent when the shape has one.
    v.kv_scenario.y.push_back(static_cast<double>(kv_cache_bytes(m, ctx, 1)));
    v.kv_mqa.x.push_back(t);
    v.kv_mqa.y.push_back(static_cast<double>(kv_cache_bytes(m.n_layers, 1, m.d_head, ctx, 1)));
  }
  v.kv_bytes_at_context = kv_cache_bytes(m, s.serving.context_len, 1);
  const std::int64_t node_chips = v.report.inputs.serving_node_chips;
  v.serve_node_hbm_bytes = static_cast<double>(node_chips) * static_cast<double>(chip.hbm_bytes);
  v.serve_weight_bytes = static_cast<double>(v.params.total) * s.serving.bytes_per_param();
  v.hbm_left_bytes = std::max(0.0, v.serve_node_hbm_bytes - v.serve_weight_bytes -
                                       static_cast<double>(kServeWorkspaceBytes));
  v.max_concurrent = max_concurrent_requests(
      node_chips * chip.hbm_bytes, static_cast<double>(v.params.total), v.kv_bytes_at_context,
      s.serving.bytes_per_param(), kServeWorkspaceBytes);
}

// (c) The attention share of training FLOPs and 6ND's error against context.
void add_attention(BudgetView& v, const Scenario& s, const std::vector<double>& contexts) {
  const ModelShape& m = s.shape;
  // (c) N is the active non-embedding count: what 6N counts per token.
  const double n_flops = static_cast<double>(v.params.non_embedding_active);
  for (double t : contexts) {
    const auto ctx = static_cast<std::int64_t>(std::llround(t));
    const double f = attention_flop_fraction(n_flops, m.n_layers, m.d_model, ctx);
    v.attention_fraction.x.push_back(t);
    v.attention_fraction.y.push_back(f);
    v.six_nd_error.x.push_back(t);
    v.six_nd_error.y.push_back(six_nd_error(f));
  }
  v.attention_fraction_at_seq =
      attention_flop_fraction(n_flops, m.n_layers, m.d_model, s.training.seq_len);
  v.six_nd_error_at_seq = six_nd_error(v.attention_fraction_at_seq);
}

// (d) Lifetime FLOPs against served tokens; (e) the compute-optimal frontier.
void add_lifetime_and_frontier(BudgetView& v, const Scenario& s) {
  const InferenceAwarePlan& p = v.report.plan;
  for (double served : log_space(1e9, 1e18, 73)) {
    v.lifetime_chinchilla.x.push_back(served);
    v.lifetime_chinchilla.y.push_back(
        lifetime_flops(p.chinchilla.params, p.chinchilla.train_tokens, served));
    v.lifetime_small.x.push_back(served);
    v.lifetime_small.y.push_back(
        lifetime_flops(p.same_loss.params, p.same_loss.train_tokens, served));
  }

  v.lifetime_flops_ratio =
      p.lifetime_flops_small > 0 ? p.lifetime_flops_chinchilla / p.lifetime_flops_small : 0.0;

  // (e)
  const double c = v.report.flops;
  for (double flops : log_space(std::min(1e19, c / 100), std::max(1e27, c * 100), 49)) {
    const ChinchillaSplit sp = chinchilla_split(flops, s.tokens_per_param);
    v.frontier_params.x.push_back(flops);
    v.frontier_params.y.push_back(sp.params);
    v.frontier_tokens.x.push_back(flops);
    v.frontier_tokens.y.push_back(sp.tokens);
  }
}

// (f) The planned run: the recommended model (budget) or the scenario's own
// (train this model), its goodput against the checkpoint interval, its loss
// against epochs, and its ranges.
const RunReport& add_planned_run(BudgetView& v, const Scenario& s, const BudgetSlow* ranges,
                                 bool compute_ranges) {
  const DataConstrainedLaw law = budget_law(s.trained_law());
  TrainInputs plan = v.report.recommended.run_inputs;
  if (s.plan.mode == PlanMode::train_model) {
    plan = s.train_inputs();
    v.train = train_run(plan, law);
  }
  const RunReport& run = v.train ? *v.train : v.report.recommended.run;
  v.goodput_curve = goodput_curve(run.goodput_inputs, plan.n_chips);
  v.loss_vs_epochs = loss_vs_epochs(law, run.active_params, run.unique_tokens,
                                    std::clamp(std::ceil(run.epochs * 2.0), 64.0, 1e9), run.epochs);
  v.plan_inputs = plan;
  if (ranges && s.ranges.any())
    v.ranges = *ranges;
  else if (compute_ranges)
    v.ranges = budget_ranges(s, plan);
  const std::string sharding = "model states sharded over all " +
                               format_grouped(static_cast<double>(plan.n_chips), 0) + " " +
                               plan.chip;
  v.plan_subject =
      (v.train ? "train this model: " + s.model_name + " (" + format_count(run.params) + ")"
               : "what I would train: " + format_count(run.params)) +
      " on " + format_count(run.tokens, 2) + " tokens, " + sharding;
  v.run_too_long = run.wall_clock_days > 2.0 * s.days;
  return run;
}

// The serving constraint, about the planned model.
void describe_serving(BudgetView& v, const Scenario& s, const RunReport& run) {
  BudgetServing& sv = v.serving;
  if (sv.enabled) {
    const std::string who =
        v.train ? "the scenario's " + s.model_name + " (" + format_count(run.params) + ")"
                : "the recommended " + format_count(run.params);
    if (s.serving.latency_budget_seconds <= s.serving.overhead_seconds) {
      sv.binds = true;
      sv.text = "At " + sv.precision + ", " + v.report.serving_limit.detail + ".";
    } else if (!sv.largest_params) {
      sv.binds = true;
      sv.text = "At " + sv.precision + ", no dense model of 100M parameters or more meets " +
                serving_where(s) + ".";
    } else {
      sv.binds =
          v.train ? run.params > *sv.largest_params * 1.0005 : v.report.recommended.serving_binds;
      sv.text = "At " + sv.precision + ", the largest dense model that meets " + serving_where(s) +
                " is " + format_count(*sv.largest_params) + " parameters: " + who + " is " +
                (v.train ? (sv.binds ? "beyond it." : "within it.")
                         : (sv.binds ? "capped to it." : "within it, so the limit does not bind."));
    }
  } else {
    sv.text = "The serving latency limit is off (" + sv.precision + ").";
  }
}

// The memo's last sentence: the ranges' P10/P50/P90, when there are any.
void append_ranges_sentence(BudgetView& v) {
  if (!v.ranges) return;
  v.report.recommendation += ' ';
  v.report.recommendation += range_summary(*v.ranges);
}

// The memo the panel and the report print: the planned run first in "train
// this model" mode, the ranges after it when there are any.
void write_memo(BudgetView& v, const Scenario& s, const RunReport& run) {
  const BudgetServing& sv = v.serving;
  std::string& memo = v.report.recommendation;
  if (v.train) {
    // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on
    // "literal" + std::string (its bug 105329).
    std::string text = "Train this model: ";
    text += v.train->summary;
    text += " For comparison, what this budget buys: ";
    text += memo;
    memo = std::move(text);
  }
  if (v.mfu.source == MfuSource::predicted) {
    std::string text = "MFU: ";
    text += format_percent(v.mfu.mfu, 1);
    text += ", predicted for the layout ";
    text += v.mfu.layout;
    if (v.plan.batch_adjusted) {
      text += " at ";
      text += v.plan.batch_text();
    }
    text += " (Parallelism panel), not assumed";
    if (const std::string range = v.mfu.range_text(); !range.empty()) text += "; " + range;
    text += ". ";
    if (!v.mfu.dropped.empty()) {
      text += "Note: ";
      text += v.mfu.dropped;
      text += ". ";
    }
    text += memo;
    memo = std::move(text);
  } else if (!v.mfu.note.empty()) {
    memo += " MFU: the predicted MFU was asked for, but ";
    memo += v.mfu.note;
    memo += '.';
  }
  // The data limit, whenever the planned run repeats its data (the budget
  // memo already says it when the Chinchilla answer itself does not fit).
  const DataLimit& data = v.report.data;
  if (run.epochs > 1.0 && (v.train || data.chinchilla_fits)) {
    memo += " Data limit: the planned run sees ";
    memo += format_count(run.tokens, 2);
    memo += " tokens but only ";
    memo += format_count(run.unique_tokens, 1);
    memo += " unique tokens exist (";
    memo += format_grouped(run.epochs, 2);
    memo += " epochs, worth ";
    memo += format_count(run.effective_tokens, 2);
    memo += " fresh tokens; loss ";
    memo += format_grouped(run.loss, 3);
    memo += " nats instead of ";
    memo += format_grouped(run.loss_fresh, 3);
    memo += " with fresh data). The best split of this budget's compute under the limit is ";
    memo += format_count(data.best.params);
    memo += " parameters on ";
    memo += format_count(data.best.tokens, 2);
    memo += " tokens (loss ";
    memo += format_grouped(data.best.loss, 3);
    memo += " nats, ";
    memo += format_grouped(data.repetition_penalty_nats, 3);
    memo += " nats of repetition penalty).";
  }
  if (v.train) {
    memo += " Serving: ";
    memo += sv.text;
  }
  if (v.run_too_long && (v.train || !p_too_long(v.report.plan, s.days))) {
    memo += " Caution: the planned run takes ";
    memo += format_grouped(run.wall_clock_days, 0);
    memo += " days on this cluster, more than twice the ";
    memo += format_grouped(s.days, 0);
    memo += " days of the scenario; it needs a longer schedule or more chips.";
  }
  v.memo_ranges_at = memo.size();
  append_ranges_sentence(v);
}

// C = chips × bf16 peak × MFU × days for every training precision (MFU is
// model FLOPs over the bf16 peak, as the Parallelism model counts it); FP8
// training changes C only through a predicted MFU, so the note says which
// peak C uses and where the FP8 peak went.
std::string compute_peak_note(const Scenario& s, const MfuChoice& mfu) {
  const Chip& chip = chip_by_name(s.chip);
  const std::string bf16 = format_grouped(chip.peak_flops_per_s / 1e12, 0) + " TFLOP/s";
  if (s.training.precision != Precision::mixed_fp8)
    return "chips × " + bf16 + " (the " + std::string(chip.name) +
           "'s bf16 dense peak) × MFU × days";
  const std::string fp8 = format_grouped(chip.fp8_peak_flops_per_s / 1e12, 0) + " TFLOP/s";
  return "FP8 training: MFU over the " + bf16 + " bf16 peak, not the " + fp8 + " FP8 peak; " +
         (mfu.source == MfuSource::predicted
              ? std::string("the layout's FP8 GEMMs raise the predicted MFU")
              : std::string("an assumed MFU is taken as given"));
}

// The budget's checks, then the scenario model's memory per device: the
// layout's where the plan has one (the predicted MFU's, or the Parallelism
// panel's chosen layout), else the data-parallel estimate at the scenario's
// ZeRO stage, which counts no tensor, pipeline or expert parallelism.
void add_checks(BudgetView& v, const Scenario& s) {
  v.checks = v.report.checks;
  // A layout that cannot run has no stages to draw (its reason says why).
  auto set_memory = [&](const Layout& l, bool fits, std::int64_t peak, std::int64_t hbm,
                        const std::string& reason) {
    v.layout_memory =
        BudgetView::LayoutMemory{to_string(l), fits, peak, hbm, reason, layout_axes_text(l), {}};
    const TrainingJob job = training_job(s);
    if (!layout_problem(job, l)) v.layout_memory->stages = memory_by_stage(job, l);
  };
  if (v.mfu.has_layout)
    set_memory(v.mfu.evaluated, v.mfu.layout_fits, v.mfu.peak_stage_bytes, v.mfu.hbm_bytes,
               v.mfu.layout_reason);
  else if (const std::optional<LayoutResult> chosen = runnable_choice(s))
    set_memory(chosen->layout, chosen->fits, chosen->memory.total_bytes, chosen->hbm_bytes,
               chosen->reason);
  if (!v.layout_memory) {
    v.checks.insert(
        v.checks.begin() + 1,
        scenario_memory_check(s, v.memory_by_zero[static_cast<std::size_t>(s.training.zero_stage)],
                              v.device_memory_bytes));
    return;
  }
  const BudgetView::LayoutMemory& m = *v.layout_memory;
  Check layout_check;
  layout_check.name = "layout memory";
  layout_check.ok = m.fits;
  layout_check.detail =
      "the Parallelism panel's layout " + m.layout + ": " +
      (m.fits ? "peak stage " + format_bytes(static_cast<double>(m.peak_stage_bytes)) + " of " +
                    format_bytes(static_cast<double>(m.hbm_bytes)) + " device memory per " + s.chip
              : m.reason);
  v.checks.insert(v.checks.begin() + 1, layout_check);
}

// Everything after the MFU is chosen: the split, the planned run, the memo.
void add_plan(BudgetView& v, const Scenario& s, const BudgetSlow* ranges,
              const BudgetViewOptions& options) {
  v.serving = serving_search(s, options.previous);
  BudgetInputs inputs = s.budget_inputs();
  set_serving_limits(inputs, s, v.serving);
  v.report = budget_report(inputs);
  v.compute_peak_note = compute_peak_note(s, v.mfu);
  v.params = count_params(s.shape);
  v.device_memory_bytes = device_memory(chip_by_name(s.chip)).bytes;

  add_memory(v, s);
  const std::vector<double> contexts = log_space(256, 1 << 20, 49);
  add_kv_cache(v, s, contexts);
  add_attention(v, s, contexts);
  add_lifetime_and_frontier(v, s);
  const RunReport& run = add_planned_run(v, s, ranges, options.ranges);
  describe_serving(v, s, run);
  write_memo(v, s, run);
  add_checks(v, s);
  v.plan_too_long = p_too_long(v.report.plan, s.days) || v.run_too_long;
  v.chip_hours = static_cast<double>(s.n_chips) * v.report.cost.hours;
  v.decades_beyond_ladder =
      extrapolation_decades(v.report.inputs.law.ladder_max_flops, v.report.flops);
}

}  // namespace

void set_arrived_ranges(BudgetView& v, const BudgetSlow* ranges) {
  if (!v.valid()) return;
  v.ranges.reset();
  if (ranges && v.scenario.ranges.any()) v.ranges = *ranges;
  std::string& memo = v.report.recommendation;
  memo.resize(std::min(memo.size(), v.memo_ranges_at));
  append_ranges_sentence(v);
}

BudgetView make_budget_view(const Scenario& scenario, const BudgetSlow* ranges,
                            const BudgetViewOptions& options) {
  scenario.validate();
  BudgetView v;
  v.mfu_key = mfu_search_key(scenario);
  v.plan = resolve_plan(scenario);
  v.mfu = v.plan.mfu;
  Scenario s = scenario;
  if (v.mfu.source == MfuSource::predicted) {
    s.mfu = v.mfu.mfu;
    s.ranges.mfu.reset();
    // The predicted MFU's range (a cluster profile's corners, or the band of
    // published runs like it) replaces the planner's spread for an assumed MFU.
    if (v.mfu.mfu_low < v.mfu.mfu_high) s.ranges.mfu = Spread{v.mfu.mfu_low, v.mfu.mfu_high};
  }
  v.scenario = s;
  try {
    add_plan(v, s, ranges, options);
  } catch (const std::invalid_argument& e) {
    v.error =
        v.mfu.source == MfuSource::predicted
            ? "at the predicted MFU of " + format_grouped(v.mfu.mfu * 100.0, 1) + " %: " + e.what()
            : e.what();
  }
  return v;
}

}  // namespace napkin
