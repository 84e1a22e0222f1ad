#include "serving_search.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "format.h"
#include "serving_eval.h"
#include "validate.h"

namespace napkin {

namespace {

constexpr std::int64_t kMaxSearchChips = std::int64_t{1} << 20;

bool is_power_of_two(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

std::string chips_text(std::int64_t chips) {
  return format_grouped(chips) + (chips == 1 ? " chip" : " chips");
}

std::int64_t gcd(std::int64_t a, std::int64_t b) {
  while (b != 0) {
    const std::int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

}  // namespace

std::vector<ServingLayout> serving_layouts(const ServingModel& m, std::int64_t chips) {
  require_count(chips, "chips", "chips", 1, kMaxSearchChips);
  std::vector<ServingLayout> out;
  const std::int64_t tp_max = gcd(m.n_heads, chips);
  for (std::int64_t tp = tp_max; tp >= 1; --tp) {
    if (tp_max % tp != 0) continue;
    const std::int64_t rest = chips / tp;
    const std::int64_t ep_max = m.is_moe() ? gcd(m.n_experts, rest) : 1;
    for (std::int64_t ep = 1; ep <= ep_max; ++ep) {
      if (ep_max % ep != 0) continue;
      const std::int64_t pp = rest / ep;
      if (pp <= m.n_layers) out.push_back({tp, pp, ep});
    }
  }
  return out;
}

std::optional<ServingLayout> fastest_layout(const ServingModel& m, const ServingInputs& in,
                                            std::int64_t chips) {
  std::optional<ServingLayout> best;
  bool best_fits = false;
  double best_key = 0;
  ServingInputs s = in;
  for (const ServingLayout& l : serving_layouts(m, chips)) {
    s.layout = l;
    const detail::LayoutEval ev(m, s);
    const ServingMemory mem = ev.memory(in.batch);
    // A fitting layout beats any that does not; then the faster turn, or
    // the smaller memory among layouts that do not fit.
    const double key = mem.fits ? ev.latency(in.batch).turn_seconds : mem.total_bytes;
    if (!best || (mem.fits && !best_fits) || (mem.fits == best_fits && key < best_key)) {
      best = l;
      best_fits = mem.fits;
      best_key = key;
    }
  }
  return best;
}

namespace {

std::vector<ServingLayout> splits_of(const ServingModel& m, std::int64_t chips) {
  return serving_layouts(m, chips);
}

struct Check {
  bool ok = true;
  std::string why;
};

Check check_latency(const LatencyBudget& b, double ttft, double tpot, double turn,
                    std::int64_t batch) {
  const std::string at = " at batch " + format_grouped(batch);
  if (b.ttft_seconds && ttft > *b.ttft_seconds)
    return {false, "TTFT " + format_seconds(ttft) + " > " + format_seconds(*b.ttft_seconds)};
  if (b.tpot_seconds && tpot > *b.tpot_seconds)
    return {false, "TPOT " + format_seconds(tpot) + " > " + format_seconds(*b.tpot_seconds) + at};
  if (b.turn_seconds && turn > *b.turn_seconds)
    return {false, "turn " + format_seconds(turn) + " > " + format_seconds(*b.turn_seconds) + at};
  return {};
}

std::string memory_text(const ServingMemory& m) {
  return format_bytes(m.total_bytes) + " per chip (weights " + format_bytes(m.weights_bytes) +
         ", KV cache " + format_bytes(m.kv_bytes) + ") of " + format_bytes(m.usable_bytes) +
         " usable";
}

LayoutCandidate try_layout(const ServingModel& model, const ServingInputs& s,
                           const SearchInputs& in) {
  LayoutCandidate cand;
  cand.layout = s.layout;
  cand.chips = s.layout.chips();
  const detail::LayoutEval ev(model, s);
  const ServingMemory mem1 = ev.memory(1);
  if (!mem1.fits) {
    cand.result = ev.at(1);
    cand.reason = "does not fit: " + memory_text(mem1) + " at batch 1";
    return cand;
  }
  auto check_at = [&](std::int64_t b) {
    const auto lat = ev.latency(b);
    return check_latency(in.budget, ev.ttft_seconds(), lat.tpot_seconds, lat.turn_seconds, b);
  };
  const Check first = check_at(1);
  if (!first.ok) {
    cand.result = ev.at(1);
    cand.reason = first.why;
    return cand;
  }
  auto meets = [&](std::int64_t b) { return ev.memory(b).fits && check_at(b).ok; };
  // Latency and memory grow with the batch: double, then bisect.
  std::int64_t lo = 1, hi = 2;
  while (hi <= in.max_batch && meets(hi)) {
    lo = hi;
    hi *= 2;
  }
  hi = std::min(hi, in.max_batch + 1);  // the smallest batch known (or assumed) to fail
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (meets(mid) ? lo : hi) = mid;
  }
  cand.max_batch = lo;
  cand.result = ev.at(lo);
  return cand;
}

const LayoutCandidate* fastest(const std::vector<LayoutCandidate>& cands,
                               double ServingResult::*metric) {
  const LayoutCandidate* best = nullptr;
  for (const LayoutCandidate& c : cands)
    if (c.result.fits && (!best || c.result.*metric < best->result.*metric)) best = &c;
  return best;
}

std::string where(const LayoutCandidate& c) {
  return chips_text(c.chips) + ", " + describe(c.layout) + ", batch 1";
}

std::string none_reason(const SearchAnswer& a, const SearchInputs& in) {
  const std::string head =
      "no slice of up to " + chips_text(in.max_chips) + " meets " + a.budget.describe() + ": ";
  const std::string tail = ". A smaller model, a lower precision or a faster chip would.";
  const LayoutCandidate* fit = fastest(a.layouts, &ServingResult::turn_seconds);
  if (!fit) {
    const LayoutCandidate* least = nullptr;
    for (const LayoutCandidate& c : a.layouts)
      if (!least || c.result.memory.total_bytes < least->result.memory.total_bytes) least = &c;
    if (!least) return head + "the model allows no layout of these sizes" + tail;
    return head + "no layout holds the model; the least is " + memory_text(least->result.memory) +
           " (" + chips_text(least->chips) + ", " + describe(least->layout) + ")" + tail;
  }
  std::string s = head;
  std::vector<std::string> parts;
  if (a.budget.turn_seconds) {
    const ServingResult& r = fit->result;
    parts.push_back(
        "the fastest turn is " + format_seconds(r.turn_seconds) + " (" + where(*fit) +
        ": overhead " + format_seconds(r.overhead_seconds) + ", prefill " +
        format_seconds(r.prefill_seconds) + ", decode " + format_seconds(r.decode_seconds) +
        " of which communication " +
        format_seconds(r.comm_seconds_per_step * static_cast<double>(in.serving.decode_tokens)) +
        ")");
  }
  if (a.budget.ttft_seconds) {
    const LayoutCandidate* f = fastest(a.layouts, &ServingResult::ttft_seconds);
    parts.push_back("the lowest TTFT is " + format_seconds(f->result.ttft_seconds) + " (" +
                    where(*f) + ")");
  }
  if (a.budget.tpot_seconds) {
    const LayoutCandidate* f = fastest(a.layouts, &ServingResult::tpot_seconds);
    parts.push_back("the lowest TPOT is " + format_seconds(f->result.tpot_seconds) + " (" +
                    where(*f) + ")");
  }
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? "; " : "") + parts[i];
  return s + tail;
}

}  // namespace

// ------------------------------------------------------------------ budgets

void LatencyBudget::validate(double overhead, std::string_view turn_name,
                             std::string_view ttft_name, std::string_view tpot_name) const {
  if (!turn_seconds && !ttft_seconds && !tpot_seconds)
    throw std::invalid_argument("a latency budget needs " + std::string(turn_name) + " or " +
                                std::string(ttft_name) + " and " + std::string(tpot_name));
  const std::string above = "greater than the overhead " + format_value(overhead) +
                            " s (the scaffolding alone uses the whole budget)";
  if (turn_seconds) {
    require_real(*turn_seconds, turn_name, "s", 0.0, 1e6, true);
    if (*turn_seconds <= overhead)
      throw_out_of_range(turn_name, "s", above, format_value(*turn_seconds));
  }
  if (ttft_seconds) {
    require_real(*ttft_seconds, ttft_name, "s", 0.0, 1e6, true);
    if (*ttft_seconds <= overhead)
      throw_out_of_range(ttft_name, "s", above, format_value(*ttft_seconds));
  }
  if (tpot_seconds) require_real(*tpot_seconds, tpot_name, "s", 0.0, 1e6, true);
}

std::string LatencyBudget::describe() const {
  std::vector<std::string> parts;
  if (turn_seconds) parts.push_back("a " + format_seconds(*turn_seconds) + " turn");
  if (ttft_seconds) parts.push_back("TTFT <= " + format_seconds(*ttft_seconds));
  if (tpot_seconds) parts.push_back("TPOT <= " + format_seconds(*tpot_seconds));
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i)
    s += (i == 0 ? "" : (i + 1 == parts.size() ? " and " : ", ")) + parts[i];
  return s;
}

std::string describe(const ServingLayout& l) {
  std::string s = "TP " + std::to_string(l.tp) + " x PP " + std::to_string(l.pp);
  if (l.ep > 1) s += " x EP " + std::to_string(l.ep);
  return s;
}

std::string describe_precision(Dtype weights, Dtype kv) {
  return std::string(to_string(weights)) + " weights, " + std::string(to_string(kv)) + " KV cache";
}

// ------------------------------------------------------------------ search

void SearchInputs::validate() const {
  serving.validate();
  budget.validate(serving.overhead_seconds);
  require_count(max_chips, "max_chips", "chips (a power of two)", 1, kMaxSearchChips);
  if (!is_power_of_two(max_chips))
    throw_out_of_range("max_chips", "chips", "a power of two", std::to_string(max_chips));
  require_count(max_batch, "max_batch", "requests", 1, 1'000'000);
}

SearchAnswer search_serving(const ServingModel& model, const SearchInputs& in) {
  in.validate();
  model.validate();
  SearchAnswer a;
  a.budget = in.budget;
  ServingInputs s = in.serving;
  s.batch = 1;
  for (std::int64_t chips = 1; chips <= in.max_chips; chips *= 2) {
    const LayoutCandidate* slice_best = nullptr;
    const std::size_t first = a.layouts.size();
    for (const ServingLayout& l : splits_of(model, chips)) {
      s.layout = l;
      a.layouts.push_back(try_layout(model, s, in));
    }
    // For a slice that misses: its fastest layout that fits, else its first.
    const LayoutCandidate* slice_shown = nullptr;
    for (std::size_t i = first; i < a.layouts.size(); ++i) {
      const LayoutCandidate& c = a.layouts[i];
      if (!slice_shown ||
          (c.result.fits &&
           (!slice_shown->result.fits || c.result.turn_seconds < slice_shown->result.turn_seconds)))
        slice_shown = &c;
      if (!c.meets()) continue;
      if (!slice_best ||
          c.result.tokens_per_second_per_chip > slice_best->result.tokens_per_second_per_chip)
        slice_best = &c;
      if (!a.most_efficient ||
          c.result.tokens_per_second_per_chip > a.most_efficient->result.tokens_per_second_per_chip)
        a.most_efficient = c;
    }
    if (slice_best && !a.best) a.best = *slice_best;
    if (slice_shown)
      a.slices.push_back({chips, slice_best != nullptr, slice_best ? *slice_best : *slice_shown});
  }
  if (!a.best) a.reason = none_reason(a, in);
  return a;
}

bool meets_budget_somewhere(const ServingModel& model, const SearchInputs& in) {
  in.validate();
  model.validate();
  ServingInputs s = in.serving;
  s.batch = 1;
  for (std::int64_t chips = 1; chips <= in.max_chips; chips *= 2)
    for (const ServingLayout& l : splits_of(model, chips)) {
      s.layout = l;
      const detail::LayoutEval ev(model, s);
      if (!ev.memory(1).fits) continue;
      const auto lat = ev.latency(1);
      if (check_latency(in.budget, ev.ttft_seconds(), lat.tpot_seconds, lat.turn_seconds, 1).ok)
        return true;
    }
  return false;
}

// ------------------------------------------------------------ disaggregation

void DisaggregationInputs::validate() const {
  search.validate();
  if (!search.budget.ttft_seconds || !search.budget.tpot_seconds)
    throw std::invalid_argument(
        "disaggregation needs a TTFT and a TPOT target (ttft_seconds and tpot_seconds): the "
        "prefill pool is sized for the first, the decode pool for the second");
  require_real(generated_tokens_per_day, "generated_tokens_per_day", "tokens", 0.0, 1e18, true);
}

std::string_view to_string(Disaggregation::Winner w) {
  switch (w) {
    case Disaggregation::Winner::disaggregated: return "disaggregated";
    case Disaggregation::Winner::shared: return "shared";
    case Disaggregation::Winner::neither: return "neither";
  }
  return "neither";
}

namespace {

// The layout that carries `requests_per_second` on the fewest chips.
PoolPlan plan_pool(const ServingModel& model, const SearchInputs& in, double requests_per_second) {
  const SearchAnswer a = search_serving(model, in);
  PoolPlan p;
  for (const LayoutCandidate& c : a.layouts) {
    if (!c.meets()) continue;
    const double capacity = c.result.requests_per_second;
    const auto slices = static_cast<std::int64_t>(std::ceil(requests_per_second / capacity));
    const std::int64_t chips = std::max<std::int64_t>(1, slices) * c.chips;
    if (!p.slice || chips < p.chips ||
        (chips == p.chips &&
         c.result.tokens_per_second_per_chip > p.slice->result.tokens_per_second_per_chip)) {
      p.slice = c;
      p.slices = std::max<std::int64_t>(1, slices);
      p.chips = chips;
      p.utilization = requests_per_second / (static_cast<double>(p.slices) * capacity);
    }
  }
  if (!p.slice) p.reason = a.reason;
  return p;
}

std::string pool_text(const PoolPlan& p) {
  const LayoutCandidate& c = *p.slice;
  return format_grouped(p.chips) + " chips (" + format_grouped(p.slices) + " x " +
         chips_text(c.chips) + ", " + describe(c.layout) + ", batch " +
         format_grouped(c.max_batch) + ")";
}

}  // namespace

Disaggregation compare_disaggregation(const ServingModel& model, const DisaggregationInputs& in) {
  in.validate();
  Disaggregation d;
  const double decode_tokens = static_cast<double>(in.search.serving.decode_tokens);
  d.requests_per_second = in.generated_tokens_per_day / 86400.0 / decode_tokens;
  const double tokens_per_second = in.generated_tokens_per_day / 86400.0;

  SearchInputs prefill = in.search;
  prefill.serving.pool = ServingPool::prefill;
  prefill.budget = {std::nullopt, in.search.budget.ttft_seconds, std::nullopt};
  prefill.max_batch = 1;  // prompts one after another: prefill is compute-bound already
  d.prefill = plan_pool(model, prefill, d.requests_per_second);

  SearchInputs decode = in.search;
  decode.serving.pool = ServingPool::decode;
  decode.budget = {std::nullopt, std::nullopt, in.search.budget.tpot_seconds};
  d.decode = plan_pool(model, decode, d.requests_per_second);

  SearchInputs shared = in.search;
  shared.serving.pool = ServingPool::colocated;
  d.shared = plan_pool(model, shared, d.requests_per_second);

  if (d.prefill.slice && d.decode.slice) {
    d.disaggregated_chips = d.prefill.chips + d.decode.chips;
    d.disaggregated_tokens_per_second_per_chip =
        tokens_per_second / static_cast<double>(d.disaggregated_chips);
  }
  if (d.shared.slice)
    d.shared_tokens_per_second_per_chip = tokens_per_second / static_cast<double>(d.shared.chips);

  const std::string traffic = format_count(in.generated_tokens_per_day) +
                              " generated tokens/day (" + format_grouped(d.requests_per_second, 1) +
                              " requests/s)";
  if (d.disaggregated_chips > 0 && (!d.shared.slice || d.disaggregated_chips < d.shared.chips)) {
    d.winner = Disaggregation::Winner::disaggregated;
    d.verdict = "Disaggregation wins for " + traffic + ": prefill " + pool_text(d.prefill) +
                " + decode " + pool_text(d.decode) + " = " + format_grouped(d.disaggregated_chips) +
                " chips, " +
                (d.shared.slice ? "against " + pool_text(d.shared) + " shared"
                                : std::string("while no shared pool meets both targets")) +
                ".";
  } else if (d.shared.slice) {
    d.winner = Disaggregation::Winner::shared;
    d.verdict =
        "One shared pool wins for " + traffic + ": " + pool_text(d.shared) + ", " +
        (d.disaggregated_chips > 0
             ? "against " + format_grouped(d.disaggregated_chips) + " disaggregated (prefill " +
                   pool_text(d.prefill) + " + decode " + pool_text(d.decode) + ")"
             : std::string("while the pools cannot be split to meet their targets")) +
        ".";
  } else {
    d.winner = Disaggregation::Winner::neither;
    d.verdict = "Neither meets " + in.search.budget.describe() + " for " + traffic + ": " +
                (d.shared.reason.empty() ? d.prefill.reason : d.shared.reason);
  }
  return d;
}

// ------------------------------------------------- the Budget planner's view

void ServableInputs::validate() const {
  (void)chip_by_name(chip);
  require_count(node_chips, "serving_node_chips", "chips", 1, 1'000'000);
  require_count(batch, "batch", "requests", 1, 1'000'000);
  require_real(budget_seconds, "latency_budget_seconds", "s", 0.0, 1e6, true);
}

ServableCheck servable_check(const ServingModel& model, const ServableInputs& in) {
  in.validate();
  ServableCheck out;
  out.precision = describe_precision(in.weights, in.kv);
  std::int64_t node = 1;
  while (node * 2 <= in.node_chips) node *= 2;

  SearchInputs s;
  s.serving.chip = in.chip;
  s.serving.weights = in.weights;
  s.serving.kv = in.kv;
  s.serving.prompt_tokens = in.prompt_tokens;
  s.serving.cached_tokens = in.cached_tokens;
  s.serving.decode_tokens = in.decode_tokens;
  s.serving.overhead_seconds = in.overhead_seconds;
  s.serving.assume = in.assume;
  s.serving.cost = in.cost;
  s.budget.turn_seconds = in.budget_seconds;
  s.max_chips = node;
  s.validate();

  // Memory: the node-wide layout with the least per chip at the batch.
  bool have = false;
  for (const ServingLayout& l : splits_of(model, node)) {
    ServingInputs si = s.serving;
    si.layout = l;
    const ServingMemory m = detail::LayoutEval(model, si).memory(in.batch);
    if (!have || m.total_bytes < out.memory.total_bytes) {
      out.memory = m;
      out.node_layout = l;
      have = true;
    }
  }
  out.fits = have && out.memory.fits;

  const SearchAnswer a = search_serving(model, s);
  out.meets_budget = a.best.has_value();
  if (a.best) out.layout = a.best;
  out.ok = out.fits;

  const Chip& chip = chip_by_name(in.chip);
  std::string s1 = "At " + out.precision + ": " + format_count(model.total_params()) +
                   " parameters and " + format_grouped(in.batch) + " requests of " +
                   format_grouped(in.cached_tokens + in.prompt_tokens + in.decode_tokens) +
                   " tokens on one " + format_grouped(in.node_chips) + " x " + in.chip + " node (" +
                   describe(out.node_layout) + "): " + format_bytes(out.memory.weights_bytes) +
                   " of weights + " + format_bytes(out.memory.kv_bytes) +
                   " of KV cache per chip, of " + format_bytes(out.memory.usable_bytes) +
                   " usable (" + format_percent(in.assume.hbm_usable_fraction, 0) + " of " +
                   format_bytes(static_cast<double>(chip.hbm_bytes)) +
                   "): " + (out.fits ? "fits. " : "does not fit. ");
  if (a.best)
    s1 += "A " + format_seconds(in.budget_seconds) + " turn (" + format_grouped(in.prompt_tokens) +
          "-token prompt, " + format_grouped(in.decode_tokens) + " tokens out, " +
          format_seconds(in.overhead_seconds) + " overhead) is met on " +
          chips_text(a.best->chips) + " (" + describe(a.best->layout) + ") at up to batch " +
          format_grouped(a.best->max_batch) + ".";
  else
    s1 += "Within one node, " + a.reason;
  out.detail = s1;
  return out;
}

std::optional<double> largest_params_for_budget(const SearchInputs& in, double lo, double hi) {
  require_real(lo, "lo", "parameters", 1e6, 1e14);
  require_real(hi, "hi", "parameters", lo, 1e14);
  auto ok = [&](double n) { return meets_budget_somewhere(serving_model(n), in); };
  if (!ok(lo)) return std::nullopt;
  if (ok(hi)) return hi;
  while (hi / lo > 1.01) {
    const double mid = std::sqrt(lo * hi);
    (ok(mid) ? lo : hi) = mid;
  }
  return lo;
}

ServingConstraint serving_constraint(double n_params, const SearchInputs& in) {
  require_real(n_params, "n_params", "parameters", 1e6, 1e14);
  ServingConstraint c;
  c.largest_params = largest_params_for_budget(in);
  const ServingInputs& s = in.serving;
  const std::string where = in.budget.describe() + " (" + format_grouped(s.prompt_tokens) +
                            "-token prompt, " + format_grouped(s.decode_tokens) + " tokens out, " +
                            format_seconds(s.overhead_seconds) + " overhead) on up to " +
                            format_grouped(in.max_chips) + " " + s.chip;
  const std::string head = "At " + describe_precision(s.weights, s.kv) + ", ";
  if (!c.largest_params) {
    c.binds = true;
    c.text = head + "no dense model of 100M parameters or more meets " + where + ".";
    return c;
  }
  c.binds = n_params > *c.largest_params;
  c.text = head + "the largest dense model that meets " + where + " is " +
           format_count(*c.largest_params) + " parameters: a " + format_count(n_params) +
           "-parameter model is " + (c.binds ? "beyond it." : "within it.");
  return c;
}

// ------------------------------------------------- the cost of a token vs precision

std::vector<PrecisionPoint> cost_vs_precision(const ServingModel& model, const SearchInputs& in) {
  std::vector<PrecisionPoint> out;
  std::vector<Dtype> formats{Dtype::bf16, Dtype::fp8, Dtype::int8, Dtype::int4};
  if (chip_by_name(in.serving.chip).fp4_peak_flops_per_s > 0) formats.push_back(Dtype::fp4);
  for (Dtype w : formats) {
    SearchInputs s = in;
    s.serving.weights = w;
    PrecisionPoint p;
    p.weights = w;
    p.kv = in.serving.kv;
    p.bits_per_weight = bits_per_element(w);
    const SearchAnswer a = search_serving(model, s);
    p.best = a.best;
    p.reason = a.reason;
    p.seed_joules_per_token = decode_energy_joules(model.active_params(), p.bits_per_weight);
    out.push_back(std::move(p));
  }
  return out;
}

ServingView make_serving_view(const ServingModel& model, const ServingViewInputs& in) {
  ServingView v;
  v.chosen = evaluate_serving(model, in.search.serving);
  v.search = search_serving(model, in.search);
  if (in.search.budget.ttft_seconds && in.search.budget.tpot_seconds)
    v.disaggregation = compare_disaggregation(model, {in.search, in.generated_tokens_per_day});
  v.precisions = cost_vs_precision(model, in.search);
  v.seed_energy = decode_energy_table(model.active_params(), in.generated_tokens_per_day,
                                      in.search.serving.cost.kwh_price_dollars);
  v.energy_share = energy_share_text(chip_by_name(in.search.serving.chip), in.search.serving.cost);
  v.precision = describe_precision(in.search.serving.weights, in.search.serving.kv);
  return v;
}

}  // namespace napkin
