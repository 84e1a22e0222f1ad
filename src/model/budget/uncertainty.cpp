#include "uncertainty.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "format.h"
#include "hardware.h"
#include "plan_inputs.h"
#include "rng.h"
#include "validate.h"

namespace napkin {

namespace {

constexpr double kZ90 = 1.2815515655446004;  // standard normal 90th percentile

// The five inputs in a fixed order: stream index, key, and bounds.
enum Input { kMfu, kRate, kRestart, kPrice, kUnique, kInputCount };

struct Bounds {
  double lo, hi;
};
constexpr std::array<Bounds, kInputCount> kBounds{
    {{1e-9, 1.0}, {0.0, 1e6}, {0.0, 1e7}, {0.0, 1e4}, {1.0, kMaxTrainTokens}}};
constexpr std::array<std::string_view, kInputCount> kKeys{
    "mfu", "interruptions_per_1000_chip_days", "restart_minutes", "price_per_chip_hour_dollars",
    "tokens_available"};

const Range& range_of(const PlanRanges& r, int i) {
  switch (i) {
    case kMfu: return r.mfu;
    case kRate: return r.interruptions_per_1000_chip_days;
    case kRestart: return r.restart_minutes;
    case kPrice: return r.price_per_chip_hour_dollars;
    default: return r.tokens_available;
  }
}

// Everything of a run that no uncertain input changes, and the evaluation of
// one set of inputs: the same arithmetic as train_run.
struct RunModel {
  double n_chips = 0;
  double flops = 0;
  double peak_flops_per_s = 0;
  double watts = 0;
  double pue = 1;
  double active_params = 0;
  double tokens = 0;
  double interval = 0, write = 0;
  CheckpointMode mode = CheckpointMode::synchronous;
  std::optional<RunLossByUniqueTokens> loss_of;

  struct Out {
    double days, dollars, energy_kwh, loss;
    bool capped;
  };
  Out days_and_cost(double mfu, double rate_per_1000, double restart, double price) const {
    const double productive_days = flops / (n_chips * peak_flops_per_s * mfu * 86400.0);
    const double crashes_per_hour = rate_per_1000 / 1000.0 * n_chips / 24.0;
    const double g = goodput_fraction(crashes_per_hour, restart, interval, write, mode);
    Out o{};
    o.capped = !(g > 0.0) || productive_days / g > kMaxPlanDays;
    o.days = o.capped ? kMaxPlanDays : productive_days / g;
    const double hours = o.days * 24.0;
    o.dollars = n_chips * hours * price;
    o.energy_kwh = n_chips * watts * hours / 1000.0 * pue;
    return o;
  }
  double loss(double unique_tokens) const { return (*loss_of)(unique_tokens); }
};

// Fills `out` with draws of one input: triangular_quantile / lognormal_quantile
// with their per-range constants hoisted out of the loop.
void draw_all(const Range& r, RangeShape shape, Rng& rng, const Bounds& b,
              std::vector<double>& out) {
  if (r.is_point()) {
    std::fill(out.begin(), out.end(), r.likely);
  } else if (shape == RangeShape::triangular) {
    for (double& v : out) v = triangular_quantile(r, rng.uniform());
  } else {
    const double below = std::log(r.likely / r.low) / kZ90;
    const double above = std::log(r.high / r.likely) / kZ90;
    for (double& v : out) {
      const double z = rng.normal();
      v = std::clamp(r.likely * std::exp(z * (z < 0 ? below : above)), b.lo, b.hi);
    }
  }
}

// Type-7 quantiles by selection rather than a full sort: O(n) each.
double select_quantile(std::vector<double>& v, double q) {
  const double h = q * static_cast<double>(v.size() - 1);
  const auto i = static_cast<std::size_t>(std::floor(h));
  auto nth = v.begin() + static_cast<std::ptrdiff_t>(i);
  std::nth_element(v.begin(), nth, v.end());
  const double lo = *nth;
  if (i + 1 >= v.size()) return lo;
  const double hi = *std::min_element(nth + 1, v.end());
  return lo == hi ? lo : lo + (h - static_cast<double>(i)) * (hi - lo);
}

OutputDistribution distribution(std::vector<double>& values, double point) {
  OutputDistribution d;
  d.point = point;
  d.histogram = histogram(values);
  const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
  d.min = *mn;
  d.max = *mx;
  d.p.p10 = select_quantile(values, 0.10);
  d.p.p50 = select_quantile(values, 0.50);
  d.p.p90 = select_quantile(values, 0.90);
  double sum = 0;
  for (double v : values) sum += v;
  d.mean = sum / static_cast<double>(values.size());
  return d;
}

}  // namespace

std::string_view to_string(RangeShape shape) {
  return shape == RangeShape::triangular ? "triangular" : "lognormal";
}

RangeShape parse_range_shape(std::string_view text) {
  if (text == "triangular") return RangeShape::triangular;
  if (text == "lognormal") return RangeShape::lognormal;
  throw std::invalid_argument("range_shape must be one of triangular, lognormal; got \"" +
                              std::string(text.substr(0, 40)) + "\"");
}

void Range::validate(std::string_view name, std::string_view unit, double lo, double hi) const {
  require_real(low, std::string(name) + " low", unit, lo, hi);
  require_real(likely, std::string(name) + " likely", unit, lo, hi);
  require_real(high, std::string(name) + " high", unit, lo, hi);
  if (!(low <= likely && likely <= high))
    throw std::invalid_argument(std::string(name) + " (" + std::string(unit) +
                                ") range must have low <= likely <= high; got " +
                                format_value(low) + ":" + format_value(likely) + ":" +
                                format_value(high));
}

double triangular_quantile(const Range& r, double u) {
  if (r.high <= r.low) return r.likely;
  const double width = r.high - r.low;
  const double f_mode = (r.likely - r.low) / width;
  if (u < f_mode) return r.low + std::sqrt(u * width * (r.likely - r.low));
  return r.high - std::sqrt((1.0 - u) * width * (r.high - r.likely));
}

double lognormal_quantile(const Range& r, double z) {
  if (r.high <= r.low) return r.likely;
  const double sigma =
      z < 0 ? std::log(r.likely / r.low) / kZ90 : std::log(r.high / r.likely) / kZ90;
  return r.likely * std::exp(z * sigma);
}

double quantile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("quantile of no values");
  require_real(q, "q", "quantile", 0.0, 1.0);
  const double h = q * static_cast<double>(sorted.size() - 1);
  const auto i = static_cast<std::size_t>(std::floor(h));
  if (i + 1 >= sorted.size()) return sorted.back();
  const double lo = sorted[i], hi = sorted[i + 1];
  // Equal neighbours return themselves exactly (a collapsed range).
  return lo == hi ? lo : lo + (h - static_cast<double>(i)) * (hi - lo);
}

Histogram histogram(const std::vector<double>& values, int bins) {
  require_count(bins, "bins", "bins", 1, 100'000);
  Histogram h;
  if (values.empty()) return h;
  const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
  h.lo = *mn;
  if (!(*mx > *mn)) {
    h.counts = {static_cast<std::int64_t>(values.size())};
    return h;
  }
  h.bin_width = (*mx - *mn) / bins;
  h.counts.assign(static_cast<std::size_t>(bins), 0);
  for (double v : values) {
    auto b = static_cast<std::int64_t>((v - h.lo) / h.bin_width);
    b = std::clamp<std::int64_t>(b, 0, bins - 1);
    ++h.counts[static_cast<std::size_t>(b)];
  }
  return h;
}

bool PlanRanges::any() const {
  if (!law_draws.empty()) return true;
  for (int i = 0; i < kInputCount; ++i)
    if (!range_of(*this, i).is_point()) return true;
  return false;
}

void PlanRanges::validate() const {
  mfu.validate("mfu", "fraction of peak", 0.0, 1.0);
  require_real(mfu.low, "mfu low", "fraction of peak", 0.0, 1.0, true);
  interruptions_per_1000_chip_days.validate("interruptions-per-1000-chip-days",
                                            "interruptions per 1,000 chip-days", 0.0, 1e6);
  restart_minutes.validate("restart-min", "minutes", 0.0, 1e7);
  price_per_chip_hour_dollars.validate("price", "$ per chip-hour", 0.0, 1e4);
  tokens_available.validate("tokens-available", "tokens", 1.0, kMaxTrainTokens);
  require_count(draws, "draws", "Monte Carlo draws", 1, 10'000'000);
  for (const LossLaw& l : law_draws) l.validate();
  if (shape == RangeShape::lognormal)
    for (int i = 0; i < kInputCount; ++i) {
      const Range& r = range_of(*this, i);
      if (!r.is_point() && !(r.low > 0.0))
        throw std::invalid_argument(
            std::string(plan_input_info(kKeys[static_cast<std::size_t>(i)]).flag.substr(2)) +
            " range needs low > 0 for a log-normal shape; got low = " + format_value(r.low));
    }
}

PlanRanges point_ranges(const TrainInputs& in) {
  PlanRanges r;
  r.mfu = Range::point(in.mfu);
  r.interruptions_per_1000_chip_days = Range::point(in.goodput.interruptions_per_1000_chip_days);
  r.restart_minutes = Range::point(in.goodput.restart_minutes);
  r.price_per_chip_hour_dollars = Range::point(in.cost.price_per_chip_hour_dollars);
  r.tokens_available = Range::point(in.tokens_available);
  return r;
}

TrainInputs at_likely(const TrainInputs& in, const PlanRanges& ranges) {
  TrainInputs t = in;
  t.mfu = ranges.mfu.likely;
  t.goodput.interruptions_per_1000_chip_days = ranges.interruptions_per_1000_chip_days.likely;
  t.goodput.restart_minutes = ranges.restart_minutes.likely;
  t.cost.price_per_chip_hour_dollars = ranges.price_per_chip_hour_dollars.likely;
  t.tokens_available = ranges.tokens_available.likely;
  return t;
}

namespace {

// A run's days, dollars, energy and loss as functions of the five inputs
// that can be ranges, at the likely run's chips, model, tokens and
// checkpointing.
RunModel run_model(const TrainInputs& likely, const GoodputInputs& g,
                   const DataConstrainedLaw& law) {
  const Chip& chip = chip_by_name(likely.chip);
  RunModel m;
  m.n_chips = static_cast<double>(likely.n_chips);
  m.active_params = likely.flops_params();
  m.tokens = likely.tokens();
  m.flops = 6.0 * m.active_params * m.tokens;
  m.peak_flops_per_s = chip.peak_flops_per_s;
  m.watts = chip.watts;
  m.pue = likely.cost.pue;
  m.interval = g.checkpoint_interval_minutes;
  m.write = g.checkpoint_write_minutes;
  m.mode = g.mode;
  m.loss_of.emplace(law, m.active_params, m.tokens);
  return m;
}

// The draws a histogram shows: up to their 99th percentile, the capped ones
// left out (one stalled or 50-year draw would squeeze every other into the
// first bin). The percentiles keep every draw.
std::vector<double> shown_draws(const std::vector<double>& v, const std::vector<char>& capped) {
  std::vector<double> kept;
  kept.reserve(v.size());
  for (std::size_t k = 0; k < v.size(); ++k)
    if (!capped[k]) kept.push_back(v[k]);
  if (kept.empty()) return v;
  std::vector<double> scratch = kept;
  const double p99 = select_quantile(scratch, 0.99);
  std::erase_if(kept, [p99](double draw) { return draw > p99; });
  return kept;
}

// One bar per input given as a range: the run at its low and at its high
// end, the others at their likely values; the widest swing in days first.
std::vector<TornadoBar> tornado_bars(const RunModel& m, const PlanRanges& ranges) {
  std::vector<TornadoBar> bars;
  for (int i = 0; i < kInputCount; ++i) {
    const Range& rg = range_of(ranges, i);
    if (rg.is_point()) continue;
    const InputInfo& info = plan_input_info(kKeys[static_cast<std::size_t>(i)]);
    TornadoBar bar;
    bar.key = std::string(info.key);
    bar.label = std::string(info.label);
    bar.input_low = rg.low;
    bar.input_high = rg.high;
    auto eval = [&](double v) {
      std::array<double, kInputCount> at{
          ranges.mfu.likely, ranges.interruptions_per_1000_chip_days.likely,
          ranges.restart_minutes.likely, ranges.price_per_chip_hour_dollars.likely,
          ranges.tokens_available.likely};
      at[static_cast<std::size_t>(i)] = v;
      const auto o = m.days_and_cost(at[kMfu], at[kRate], at[kRestart], at[kPrice]);
      return std::pair{o, m.loss(at[kUnique])};
    };
    const auto [lo, lo_loss] = eval(rg.low);
    const auto [hi, hi_loss] = eval(rg.high);
    bar.days_at_low = lo.days;
    bar.days_at_high = hi.days;
    bar.dollars_at_low = lo.dollars;
    bar.dollars_at_high = hi.dollars;
    bar.energy_kwh_at_low = lo.energy_kwh;
    bar.energy_kwh_at_high = hi.energy_kwh;
    bar.loss_at_low = lo_loss;
    bar.loss_at_high = hi_loss;
    bar.days_swing = std::abs(hi.days - lo.days);
    bars.push_back(bar);
  }
  std::stable_sort(bars.begin(), bars.end(), [](const TornadoBar& a, const TornadoBar& b) {
    return a.days_swing > b.days_swing;
  });
  return bars;
}

}  // namespace

RangeReport plan_ranges(const TrainInputs& in, const PlanRanges& ranges,
                        const DataConstrainedLaw& law) {
  ranges.validate();
  const TrainInputs likely = at_likely(in, ranges);
  likely.validate();
  law.validate();
  const GoodputInputs g =
      likely.goodput.resolve(likely.n_params, likely.n_chips, likely.optimizer, likely.precision);
  // Every draw must be a valid run: check the extremes once, not per draw.
  for (double restart : {ranges.restart_minutes.low, ranges.restart_minutes.high}) {
    GoodputInputs t = g;
    t.restart_minutes = restart;
    t.validate();
  }

  const RunModel m = run_model(likely, g, law);

  RangeReport r;
  r.shape = ranges.shape;
  r.seed = ranges.seed;
  r.draws = ranges.draws;
  const auto point =
      m.days_and_cost(ranges.mfu.likely, ranges.interruptions_per_1000_chip_days.likely,
                      ranges.restart_minutes.likely, ranges.price_per_chip_hour_dollars.likely);
  const double point_loss = m.loss(ranges.tokens_available.likely);

  const auto n = static_cast<std::size_t>(ranges.draws);
  std::array<std::vector<double>, kInputCount> x;
  for (int i = 0; i < kInputCount; ++i) {
    const Range& rg = range_of(ranges, i);
    auto& xs = x[static_cast<std::size_t>(i)];
    xs.resize(n);
    Rng rng(stream_seed(ranges.seed, static_cast<std::uint64_t>(i)));
    draw_all(rg, ranges.shape, rng, kBounds[static_cast<std::size_t>(i)], xs);
  }
  // The law's draws: one loss model per resample law, and which one each
  // Monte Carlo draw uses (stream kInputCount, after the five inputs').
  std::vector<RunLossByUniqueTokens> law_loss;
  std::vector<double> law_point_loss;
  std::vector<std::size_t> law_pick(n, 0);
  if (!ranges.law_draws.empty()) {
    for (const LossLaw& l : ranges.law_draws) {
      DataConstrainedLaw dc = law;
      dc.base = l;
      law_loss.emplace_back(dc, m.active_params, m.tokens);
      law_point_loss.push_back(law_loss.back()(ranges.tokens_available.likely));
    }
    Rng rng(stream_seed(ranges.seed, static_cast<std::uint64_t>(kInputCount)));
    const auto count = static_cast<double>(law_loss.size());
    for (std::size_t& j : law_pick)
      j = std::min(law_loss.size() - 1, static_cast<std::size_t>(rng.uniform() * count));
  }
  std::vector<double> days(n), dollars(n), energy(n), loss(n);
  std::vector<char> capped(n, 0);
  const bool loss_varies = !ranges.tokens_available.is_point();
  for (std::size_t k = 0; k < n; ++k) {
    const auto o = m.days_and_cost(x[kMfu][k], x[kRate][k], x[kRestart][k], x[kPrice][k]);
    days[k] = o.days;
    dollars[k] = o.dollars;
    energy[k] = o.energy_kwh;
    if (!law_loss.empty()) {
      const RunLossByUniqueTokens& f = law_loss[law_pick[k]];
      loss[k] = loss_varies ? f(x[kUnique][k]) : law_point_loss[law_pick[k]];
    } else {
      loss[k] = loss_varies ? m.loss(x[kUnique][k]) : point_loss;
    }
    r.capped_draws += o.capped ? 1 : 0;
    capped[k] = o.capped ? 1 : 0;
  }
  // Before distribution(), which reorders the draws: `capped` is by draw.
  const Histogram days_shown = histogram(shown_draws(days, capped));
  const Histogram dollars_shown = histogram(shown_draws(dollars, capped));
  const Histogram energy_shown = histogram(shown_draws(energy, capped));
  r.days = distribution(days, point.days);
  r.dollars = distribution(dollars, point.dollars);
  r.energy_kwh = distribution(energy, point.energy_kwh);
  r.loss = distribution(loss, point_loss);
  r.days.histogram = days_shown;
  r.dollars.histogram = dollars_shown;
  r.energy_kwh.histogram = energy_shown;
  r.tornado = tornado_bars(m, ranges);
  return r;
}

std::string range_summary(const RangeReport& r) {
  auto triple = [](const OutputDistribution& d, auto fmt) {
    return "P10 " + fmt(d.p.p10) + " / P50 " + fmt(d.p.p50) + " / P90 " + fmt(d.p.p90);
  };
  std::string s =
      "Ranges (" + std::string(to_string(r.shape)) + ", " +
      format_grouped(static_cast<double>(r.draws)) + " draws, seed " + std::to_string(r.seed) +
      "): days " + triple(r.days, [](double v) { return format_grouped(v, 1); }) + "; dollars " +
      triple(r.dollars, [](double v) { return format_dollars(v); }) + "; energy " +
      triple(r.energy_kwh, [](double v) { return format_grouped(v / 1000.0, 1) + " MWh"; }) +
      "; loss " + triple(r.loss, [](double v) { return format_grouped(v, 3); }) + ".";
  if (!r.tornado.empty() && r.tornado.front().days_swing > 0) {
    const TornadoBar& t = r.tornado.front();
    s += " Days move most with " + t.label + " (" + format_grouped(t.days_at_low, 1) + " to " +
         format_grouped(t.days_at_high, 1) + " days across its range).";
  }
  if (r.capped_draws > 0)
    s += " " + format_grouped(static_cast<double>(r.capped_draws)) +
         " draws make no progress or take over 100 years (counted as 100 years).";
  return s;
}

}  // namespace napkin
