// Ranges instead of points: each uncertain input of a training run as (low,
// likely, high), a seeded Monte Carlo over them, P10 / P50 / P90 of days,
// dollars, energy and loss, a histogram and a tornado (which input moves the
// days most, one input at a time).
//
// Draws come from the project's one generator (rng.h), one independent stream
// per input, so a seed reproduces bit for bit and widening one range does not
// reshuffle the others.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "loss_law.h"
#include "train_plan.h"

namespace napkin {

// How a (low, likely, high) range is read.
enum class RangeShape {
  // Triangular on [low, high] with its mode at `likely` (bounds are hard).
  triangular,
  // Two-piece log-normal with its median at `likely` and low / high its 10th
  // and 90th percentiles (σ = ln(likely/low)/1.2816 below the median,
  // ln(high/likely)/1.2816 above); needs low > 0; draws are clamped to the
  // input's valid bounds (MFU ≤ 1).
  lognormal,
};
std::string_view to_string(RangeShape shape);
// "triangular" or "lognormal"; throws std::invalid_argument otherwise.
RangeShape parse_range_shape(std::string_view text);

struct Range {
  double low = 0;
  double likely = 0;
  double high = 0;
  static Range point(double v) { return {v, v, v}; }
  bool is_point() const { return low == high; }
  // Throws std::invalid_argument naming `name` (as the user types it) unless
  // lo ≤ low ≤ likely ≤ high ≤ hi, all finite.
  void validate(std::string_view name, std::string_view unit, double lo, double hi) const;
  bool operator==(const Range&) const = default;
};

// Inverse CDFs: a triangular draw from u ∈ [0, 1); a log-normal draw from a
// standard normal z. Both return `likely` exactly for a point range.
double triangular_quantile(const Range& r, double u);
double lognormal_quantile(const Range& r, double z);

struct Percentiles {
  double p10 = 0;
  double p50 = 0;
  double p90 = 0;
};
// Linear interpolation between order statistics (Hyndman & Fan type 7, the
// numpy default) of an ascending vector; q in [0, 1].
double quantile_sorted(const std::vector<double>& sorted, double q);

struct Histogram {
  double lo = 0;         // left edge of the first bin
  double bin_width = 0;  // 0 when every value is equal (one bin)
  std::vector<std::int64_t> counts;
};
// Equal-width bins from the smallest to the largest value.
Histogram histogram(const std::vector<double>& values, int bins = 40);

// The five uncertain inputs of a training run. `likely` replaces the plan's
// point value; a point range (low = likely = high) is not uncertain.
struct PlanRanges {
  Range mfu;
  Range interruptions_per_1000_chip_days;
  Range restart_minutes;
  Range price_per_chip_hour_dollars;
  Range tokens_available;
  // The loss law's own uncertainty: a fitted law's bootstrap resample laws
  // (plan_law.h). Each draw's loss is under one of them, picked uniformly
  // from its own stream; empty: every draw uses the plan's law.
  std::vector<LossLaw> law_draws;
  RangeShape shape = RangeShape::triangular;
  std::uint64_t seed = 1;
  std::int64_t draws = 10'000;
  bool any() const;  // at least one range is not a point, or the law has draws
  void validate() const;
  bool operator==(const PlanRanges&) const = default;
};
// Every range collapsed onto the plan's own values.
PlanRanges point_ranges(const TrainInputs& in);
// The plan with the ranges' likely values in place.
TrainInputs at_likely(const TrainInputs& in, const PlanRanges& ranges);

struct OutputDistribution {
  double point = 0;  // at every input's likely value
  Percentiles p;     // over the draws; p10 ≤ p50 ≤ p90
  double mean = 0;
  double min = 0;
  double max = 0;
  Histogram histogram;
};

struct TornadoBar {
  std::string key;    // the input, as in plan_input_info()
  std::string label;  // for display
  double input_low = 0;
  double input_high = 0;
  // Outputs with this input at its low / high and every other at likely.
  double days_at_low = 0, days_at_high = 0;
  double dollars_at_low = 0, dollars_at_high = 0;
  double energy_kwh_at_low = 0, energy_kwh_at_high = 0;
  double loss_at_low = 0, loss_at_high = 0;
  double days_swing = 0;  // |days_at_high − days_at_low|
};

struct RangeReport {
  RangeShape shape = RangeShape::triangular;
  std::uint64_t seed = 0;
  std::int64_t draws = 0;
  OutputDistribution days;          // wall-clock days, goodput included
  OutputDistribution dollars;       // chip rental over the wall-clock
  OutputDistribution energy_kwh;    // at the wall
  OutputDistribution loss;          // nats/token, data-constrained law
  std::vector<TornadoBar> tornado;  // inputs with a range, largest days swing first
  // Draws in which the run makes no progress (goodput 0) or takes more than
  // 100 years: their days are counted as 100 years.
  std::int64_t capped_draws = 0;
};

// 10,000 draws run in well under 20 ms (bench/bench_plan.cpp). The point
// values are train_run(at_likely(in, ranges)) to rounding; with every range
// a point, each percentile equals the point.
RangeReport plan_ranges(const TrainInputs& in, const PlanRanges& ranges,
                        const DataConstrainedLaw& law = with_muennighoff_decay());

// "Days P10 41.2 / P50 44.0 / P90 48.9; …; days move most with MFU (…)."
std::string range_summary(const RangeReport& r);

}  // namespace napkin
