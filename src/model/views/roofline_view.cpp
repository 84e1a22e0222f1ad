#include "roofline_view.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "format.h"
#include "validate.h"

namespace napkin {

RooflinePanelData roofline_panel(const RooflineScenario& sc) {
  const Chip& chip = chip_by_name(sc.chip);
  sc.operations.validate();
  require_real(sc.recompute, "recompute_factor", "hardware FLOPs per model FLOP", 1.0, 10.0);
  const ParamCount params = count_params(sc.shape);
  const double active = static_cast<double>(params.active);
  const double total = static_cast<double>(params.total);
  const OperationSetting& ops = sc.operations;
  const ModelShape& shape = sc.shape;

  RooflinePanelData d;
  d.active_params = active;
  d.ridge_flops_per_byte = ridge_point_flops_per_byte(chip);
  // 0.1 … 1e5 FLOP/byte spans batch-1 decode to the largest matmuls.
  d.roofline = roofline_curve(chip, 0.1, 1e5, 64);
  for (const std::string& other : sc.overlay_chips)
    d.overlays.push_back(roofline_curve(chip_by_name(other), 0.1, 1e5, 64));
  d.operations = place_operations(chip, shape, ops);

  DecodeShape decode;
  decode.n_params = active;
  decode.n_layers = shape.n_layers;
  decode.n_kv_heads = shape.n_kv_heads;
  decode.d_head = shape.d_head;
  decode.kv_bytes_per_token = kv_cache_bytes_per_token(shape, ops.bytes_per_elem);  // MLA-aware
  decode.seq_len = ops.context_tokens;
  decode.bytes_per_param = ops.bytes_per_param;
  decode.kv_bytes_per_elem = ops.bytes_per_elem;
  d.decode_wall = decode_intensity_sweep(chip, decode, powers_of_two(1, sc.max_batch));

  d.decode_at_batch = decode_intensity_point(chip, decode, ops.decode_batch);

  d.mfu_budget = mfu_budget(sc.mfu);
  d.mfu_without_lever = mfu_budget_without(sc.mfu, d.mfu_budget.biggest_lever);
  d.mfu_agenda = mfu_agenda(d.mfu_budget);
  d.hfu_over_mfu = sc.recompute;
  d.hfu = d.mfu_budget.mfu * sc.recompute;

  TurnInputs turn = sc.turn;
  turn.chip = std::string(chip.name);
  turn.n_params = active;
  turn.n_resident_params = total;
  turn.prefill_tokens = ops.prompt_tokens;
  turn.batch = ops.decode_batch;
  turn.bytes_per_param = ops.bytes_per_param;
  turn.kv_bytes_per_request = kv_cache_bytes(shape, ops.context_tokens, 1, ops.bytes_per_elem);
  d.turn = interactive_latency(turn);
  d.latency = latency_vs_chips(turn, sc.max_chips_plotted);
  d.serving = serving_need(turn);
  d.chips_for_budget = d.serving.chips_for_budget;
  d.chips_to_hold_weights = d.serving.chips_to_hold_weights;
  d.resident_weight_bytes = total * ops.bytes_per_param;

  std::vector<double> sizes = sc.model_sizes;
  if (sizes.empty())
    for (int i = 0; i <= 30; ++i) sizes.push_back(std::pow(10.0, 9.0 + 0.1 * i));
  d.model_sizes = model_size_sweep(turn, sizes);
  d.largest_servable = largest_servable(d.model_sizes);

  d.tiles = tile_efficiency_sweep(sc.tile_dim_lo, sc.tile_dim_hi, sc.tile);

  KvServing kv = sc.kv;
  kv.chip = std::string(chip.name);  // the node is the scenario's chip, never KvServing's default
  kv.n_params = total;
  kv.n_layers = shape.n_layers;
  kv.n_query_heads = shape.n_heads;
  kv.d_head = shape.d_head;
  kv.seq_len = ops.context_tokens;
  kv.batch = ops.decode_batch;
  kv.bytes_per_param = ops.bytes_per_param;
  kv.kv_bytes_per_elem = ops.bytes_per_elem;
  d.kv_heads = kv_heads_sweep(kv);

  DepthWidthInputs dw = sc.depth_width;
  dw.n_params = static_cast<double>(params.non_embedding_total);
  dw.chip = std::string(chip.name);
  dw.n_chips = turn.n_chips;
  dw.bytes_per_param = ops.bytes_per_param;
  dw.tile = sc.tile;
  d.depth_width = depth_vs_width_sweep(dw, sc.depth_options);
  return d;
}

TurnInputs scenario_turn(const Scenario& s, double n_params) {
  TurnInputs in;
  in.chip = s.chip;
  in.n_params = n_params;
  in.prefill_tokens = s.serving.prompt_tokens;
  in.decode_tokens = s.serving.decode_tokens;
  in.batch = s.serving.batch;
  in.bytes_per_param = s.serving.bytes_per_param();
  in.overhead_seconds = s.serving.overhead_seconds;
  in.budget_seconds = s.serving.latency_budget_seconds;
  return in;
}

ServingNeed servability(const Scenario& s, double n_params) {
  return serving_need(scenario_turn(s, n_params));
}

ScenarioServing scenario_serving(const Scenario& s) {
  const ServingLayoutSettings& r = s.roofline.serving_layout;
  ScenarioServing out;
  out.model = serving_model(s.shape);
  ServingInputs& in = out.inputs.search.serving;
  in.chip = s.chip;
  in.batch = s.serving.batch;
  in.prompt_tokens = s.serving.prompt_tokens;
  in.cached_tokens = std::max<std::int64_t>(0, s.serving.context_len - s.serving.prompt_tokens);
  in.decode_tokens = s.serving.decode_tokens;
  in.weights = s.serving.weight_dtype;
  in.kv = s.serving.kv_dtype;
  in.engine = s.serving.engine;
  in.overhead_seconds = s.serving.overhead_seconds;
  in.assume.communication = r.communication;
  if (r.engine_memory_fraction > 0) in.assume.engine_memory_fraction = r.engine_memory_fraction;
  in.cost = {serving_price_per_chip_hour_dollars(s), s.kwh_price_dollars, s.pue};
  if (r.max_tokens_per_step > 0) out.max_tokens_per_step = r.max_tokens_per_step;
  out.chunked_prefill = r.chunked_prefill;
  const std::int64_t chips = s.serving.chips;
  const ServingLayout chosen{r.tp, r.pp, r.ep};
  bool valid = r.tp > 0 && r.pp > 0 && r.ep > 0 && chosen.chips() == chips;
  if (valid) {
    try {
      validate_layout(out.model, chosen);
    } catch (const std::invalid_argument&) {
      valid = false;
    }
  }
  if (valid) {
    in.layout = chosen;
    out.fastest_split = false;
  } else {
    const std::optional<ServingLayout> fastest = fastest_layout(out.model, in, chips);
    if (!fastest)
      throw std::invalid_argument("serving.chips (chips): " + std::to_string(chips) +
                                  " cannot be split as TP x PP x EP for this model");
    in.layout = *fastest;
  }
  LatencyBudget& b = out.inputs.search.budget;
  b.turn_seconds = s.serving.latency_budget_seconds;
  if (r.ttft_budget_seconds > 0) b.ttft_seconds = r.ttft_budget_seconds;
  if (r.tpot_budget_seconds > 0) b.tpot_seconds = r.tpot_budget_seconds;
  out.inputs.search.max_chips = r.search_max_chips;
  out.inputs.generated_tokens_per_day = r.generated_tokens_per_day;
  ModeInputs& run = out.run;
  run.serving = in;
  run.mode = r.run_mode;
  if (r.run_concurrency > 0) {
    if (r.run_mode == BatchingMode::static_batch)
      run.serving.batch = r.run_concurrency;
    else
      run.concurrency = r.run_concurrency;
  }
  run.max_tokens_per_step = out.max_tokens_per_step;
  run.chunked_prefill = out.chunked_prefill;
  run.request_rate_per_second = r.run_request_rate_per_second;
  run.requests = r.run_requests;
  out.prompt_spread = r.run_prompt_spread_tokens;
  out.output_spread = r.run_output_spread_tokens;
  if (r.run_mode != BatchingMode::static_batch) {
    run.prompt_spread = out.prompt_spread;
    run.output_spread = out.output_spread;
  }
  return out;
}

ServingRunRecords serving_run_records(const ServingModel& model, const ModeInputs& run) {
  ServingRunRecords r;
  const Chip& chip = chip_by_name(run.serving.chip);
  if (run.mode != BatchingMode::server)
    r.throughput =
        serving_track_record(run.serving.engine, model.is_moe(), chip, run.serving.layout.ep);
  if (run.mode == BatchingMode::static_batch)
    r.first_token = first_token_track_record(run.serving.engine, model.is_moe(), chip);
  return r;
}

ServingRunView serving_run_view(const ScenarioServing& in) {
  ServingRunView v;
  try {
    v.result = evaluate_mode(in.model, in.run);
    ServingRunRecords records = serving_run_records(in.model, in.run);
    v.track_record = std::move(records.throughput);
    v.first_token = std::move(records.first_token);
  } catch (const std::exception& e) {
    v.error = e.what();
  }
  return v;
}

double frontier_ttft_target_seconds(const Scenario& s) {
  const double bound = s.roofline.serving_layout.ttft_budget_seconds;
  return bound > 0 ? bound : s.serving.latency_budget_seconds;
}

double serving_price_per_chip_hour_dollars(const Scenario& s) {
  const bool serving_chip = s.serving.chip.empty() || s.serving.chip == s.chip;
  return serving_chip ? s.serving.price_per_chip_hour_dollars : s.price_per_chip_hour_dollars;
}

bool same_serving_inputs(const Scenario& a, const Scenario& b) {
  return a.shape == b.shape && a.chip == b.chip && a.serving == b.serving &&
         a.price_per_chip_hour_dollars == b.price_per_chip_hour_dollars &&
         a.kwh_price_dollars == b.kwh_price_dollars && a.pue == b.pue &&
         a.roofline.serving_layout == b.roofline.serving_layout;
}

ServingView scenario_serving_view(const ScenarioServing& in) {
  const SearchInputs& search = in.inputs.search;
  try {
    search.budget.validate(search.serving.overhead_seconds, "latency_budget_seconds",
                           "ttft_budget_seconds", "tpot_budget_seconds");
  } catch (const std::invalid_argument& e) {
    ServingView v;
    v.chosen = evaluate_serving(in.model, search.serving);
    v.search.budget = search.budget;
    v.search.reason = e.what();
    v.energy_share = energy_share_text(chip_by_name(search.serving.chip), search.serving.cost);
    v.precision = describe_precision(search.serving.weights, search.serving.kv);
    return v;
  }
  return make_serving_view(in.model, in.inputs);
}

RooflineScenario roofline_scenario(const Scenario& s) {
  const RooflineSettings& r = s.roofline;
  RooflineScenario sc;
  sc.chip = s.chip;
  for (const std::string& o : r.overlays)
    if (o != s.chip) sc.overlay_chips.push_back(o);
  sc.shape = s.shape;
  sc.operations.matmul_dim = r.matmul_dim;
  sc.operations.prompt_tokens = s.serving.prompt_tokens;
  sc.operations.decode_batch = s.serving.batch;
  sc.operations.context_tokens = s.serving.context_len;
  sc.operations.bytes_per_param = s.serving.bytes_per_param();
  sc.operations.bytes_per_elem = s.serving.kv_bytes_per_element();
  sc.mfu = r.mfu;
  sc.recompute = r.recompute;
  sc.turn.n_chips = s.n_chips;
  sc.turn.decode_tokens = s.serving.decode_tokens;
  sc.turn.overhead_seconds = s.serving.overhead_seconds;
  sc.turn.budget_seconds = s.serving.latency_budget_seconds;
  sc.turn.prefill_mfu = r.prefill_mfu;
  sc.turn.decode_bandwidth_efficiency = r.bandwidth_efficiency;
  sc.turn.per_step_floor_seconds = r.step_floor_seconds;
  sc.turn.max_chips = r.max_chips;
  sc.max_chips_plotted = 1024;
  sc.max_batch = 1024;
  sc.tile = r.tile;
  sc.tile_dim_lo = 64;
  sc.tile_dim_hi = 1024;
  sc.kv.chip = s.chip;
  sc.kv.n_chips = 8;  // one serving node, like the Budget panel's KV read-out
  sc.depth_width.per_layer_serial_seconds = r.per_layer_serial_seconds;
  return sc;
}

RooflineView make_roofline_view(const Scenario& s, RooflineSlow serving) {
  RooflineView v;
  v.scenario = s;
  v.inputs = roofline_scenario(s);
  v.serving = std::move(serving);
  try {
    v.data = roofline_panel(v.inputs);
    v.plan = resolve_plan(s);
  } catch (const std::exception& e) {
    v.error = e.what();
  }
  return v;
}

ServingFrontierView serving_frontier_view(const ScenarioServing& in, double ttft_p99_seconds) {
  ServingFrontierView f;
  f.ttft_p99_target_seconds = ttft_p99_seconds;
  try {
    ModeInputs m;
    m.serving = in.inputs.search.serving;
    m.mode = BatchingMode::offline;
    m.max_tokens_per_step = in.max_tokens_per_step;
    m.chunked_prefill = in.chunked_prefill;
    // The benchmark run's lengths, so the tab's two runs agree on what fits.
    m.prompt_spread = in.prompt_spread;
    m.output_spread = in.output_spread;
    // The panel recomputes on every change: the simulation's work grows with
    // requests × output tokens, so fewer requests for long outputs and none
    // beyond kMaxOutput (napkin-cli serve --frontier simulates any length).
    constexpr std::int64_t kMaxOutput = 4096;
    const std::int64_t out = m.serving.decode_tokens + m.output_spread;  // the longest
    f.output_tokens_per_request = static_cast<double>(m.serving.decode_tokens);
    if (out > kMaxOutput) {
      f.error = "outputs longer than " + format_grouped(static_cast<double>(kMaxOutput)) +
                " tokens are not simulated here (napkin-cli serve --mode offline --frontier)";
      return f;
    }
    m.requests = std::clamp<std::int64_t>(32'768 / std::max<std::int64_t>(1, out), 8, 64);
    f.points = serving_frontier(in.model, m);
    if (f.points.empty()) {
      f.error = "the weights leave no room for a request's KV cache";
      return f;
    }
    m.mode = BatchingMode::server;
    f.max_request_rate_per_second = max_request_rate_for_ttft(in.model, m, ttft_p99_seconds);
  } catch (const std::exception& e) {
    f.points.clear();
    f.error = e.what();
  }
  return f;
}

ServingPanelView make_serving_panel_view(const Scenario& s) {
  ServingPanelView v;
  v.scenario = s;
  try {
    v.inputs = scenario_serving(s);
    v.view = scenario_serving_view(v.inputs);
    v.frontier = serving_frontier_view(v.inputs, frontier_ttft_target_seconds(s));
    v.run = serving_run_view(v.inputs);
  } catch (const std::exception& e) {
    v.error = e.what();
  }
  return v;
}

}  // namespace napkin
