// Ranges: the seeded Monte Carlo over a training run's uncertain inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>

#include "expect_throw.h"
#include "rng.h"
#include "uncertainty.h"

using namespace napkin;

namespace {

TrainInputs llama70b() {
  TrainInputs t;
  t.n_params = 70e9;
  t.train_tokens = 15e12;
  return t;
}

PlanRanges wide(const TrainInputs& t) {
  PlanRanges r = point_ranges(t);
  r.mfu = {0.30, 0.40, 0.45};
  r.interruptions_per_1000_chip_days = {0.2, 0.474, 1.5};
  r.restart_minutes = {5, 10, 60};
  r.price_per_chip_hour_dollars = {2.0, 2.5, 3.5};
  r.tokens_available = {8e12, 15e12, 20e12};
  return r;
}

bool same(const OutputDistribution& a, const OutputDistribution& b) {
  return a.p.p10 == b.p.p10 && a.p.p50 == b.p.p50 && a.p.p90 == b.p.p90 && a.mean == b.mean;
}

}  // namespace

TEST(Ranges, TriangularQuantile) {
  const Range r{1, 2, 5};
  EXPECT_EQ(triangular_quantile(r, 0.0), 1.0);
  EXPECT_NEAR(triangular_quantile(r, 0.25), 2.0, 1e-15);  // F(mode) = (2−1)/(5−1)
  EXPECT_NEAR(triangular_quantile(r, 1.0 - 1e-16), 5.0, 1e-6);
  EXPECT_EQ(triangular_quantile(Range::point(3), 0.7), 3.0);
  // Mean of the draws ≈ (a + b + c) / 3.
  Rng rng(7);
  double sum = 0;
  for (int i = 0; i < 200000; ++i) sum += triangular_quantile(r, rng.uniform());
  EXPECT_NEAR(sum / 200000, 8.0 / 3.0, 0.01);
}

TEST(Ranges, LognormalQuantileHasLowAndHighAsP10AndP90) {
  const Range r{0.3, 0.4, 0.45};
  EXPECT_EQ(lognormal_quantile(r, 0.0), 0.4);
  EXPECT_NEAR(lognormal_quantile(r, -1.2815515655446004), 0.3, 1e-12);
  EXPECT_NEAR(lognormal_quantile(r, 1.2815515655446004), 0.45, 1e-12);
  EXPECT_EQ(lognormal_quantile(Range::point(2), 1.5), 2.0);
}

TEST(Ranges, QuantilesAndHistogram) {
  const std::vector<double> v{1, 2, 3, 4};
  EXPECT_NEAR(quantile_sorted(v, 0.5), 2.5, 1e-15);
  EXPECT_NEAR(quantile_sorted(v, 0.1), 1.3, 1e-15);
  EXPECT_EQ(quantile_sorted(v, 0.0), 1.0);
  EXPECT_EQ(quantile_sorted(v, 1.0), 4.0);
  const Histogram h = histogram({1, 2, 2, 3, 10}, 9);
  EXPECT_EQ(h.lo, 1.0);
  EXPECT_EQ(h.bin_width, 1.0);
  EXPECT_EQ(std::accumulate(h.counts.begin(), h.counts.end(), std::int64_t{0}), 5);
  EXPECT_EQ(h.counts.front(), 1);
  EXPECT_EQ(h.counts.back(), 1);
  const Histogram flat = histogram({4, 4, 4}, 10);
  ASSERT_EQ(flat.counts.size(), 1u);
  EXPECT_EQ(flat.counts[0], 3);
}

TEST(Ranges, CollapsedRangesReturnThePoint) {
  const TrainInputs t = llama70b();
  for (RangeShape shape : {RangeShape::triangular, RangeShape::lognormal}) {
    PlanRanges pr = point_ranges(t);
    pr.shape = shape;
    EXPECT_FALSE(pr.any());
    const RangeReport r = plan_ranges(t, pr);
    const RunReport run = train_run(t);
    for (const OutputDistribution* d : {&r.days, &r.dollars, &r.energy_kwh, &r.loss}) {
      EXPECT_EQ(d->p.p10, d->point);
      EXPECT_EQ(d->p.p50, d->point);
      EXPECT_EQ(d->p.p90, d->point);
      EXPECT_EQ(d->min, d->max);
    }
    EXPECT_NEAR(r.days.point, run.wall_clock_days, 1e-12 * run.wall_clock_days);
    EXPECT_NEAR(r.dollars.point, run.cost.rental_dollars, 1e-12 * run.cost.rental_dollars);
    EXPECT_NEAR(r.energy_kwh.point, run.cost.energy_kwh, 1e-12 * run.cost.energy_kwh);
    EXPECT_EQ(r.loss.point, run.loss);
    EXPECT_TRUE(r.tornado.empty());
    EXPECT_EQ(r.capped_draws, 0);
  }
}

TEST(Ranges, PercentilesAreOrderedAndInsideTheDraws) {
  const TrainInputs t = llama70b();
  for (RangeShape shape : {RangeShape::triangular, RangeShape::lognormal}) {
    PlanRanges pr = wide(t);
    pr.shape = shape;
    const RangeReport r = plan_ranges(t, pr);
    EXPECT_EQ(r.draws, 10000);
    for (const OutputDistribution* d : {&r.days, &r.dollars, &r.energy_kwh, &r.loss}) {
      EXPECT_LE(d->min, d->p.p10);
      EXPECT_LE(d->p.p10, d->p.p50);
      EXPECT_LE(d->p.p50, d->p.p90);
      EXPECT_LE(d->p.p90, d->max);
      // The histograms of days, dollars and energy show the draws up to P99
      // and leave the stalled (capped) ones out.
      const std::int64_t in_bars =
          std::accumulate(d->histogram.counts.begin(), d->histogram.counts.end(), std::int64_t{0});
      if (d == &r.loss) {
        EXPECT_EQ(in_bars, 10000);
      } else {
        EXPECT_LE(in_bars, 10000 - r.capped_draws);
        EXPECT_GE(in_bars, (10000 - r.capped_draws) * 98 / 100);
      }
    }
    EXPECT_LT(r.days.p.p10, r.days.p.p90);
    EXPECT_LT(r.loss.p.p10, r.loss.p.p90);  // fewer unique tokens than 15T repeat data
  }
}

TEST(Ranges, TriangularDrawsStayInsideTheirBounds) {
  const TrainInputs t = llama70b();
  PlanRanges pr = point_ranges(t);
  pr.mfu = {0.3, 0.4, 0.45};
  const RangeReport r = plan_ranges(t, pr);
  TrainInputs lo = t, hi = t;
  lo.mfu = 0.45;
  hi.mfu = 0.3;
  EXPECT_GE(r.days.min, train_run(lo).wall_clock_days * (1 - 1e-12));
  EXPECT_LE(r.days.max, train_run(hi).wall_clock_days * (1 + 1e-12));
}

TEST(Ranges, LognormalSingleInputReproducesItsPercentiles) {
  // Days ∝ 1/MFU: with MFU the only range, P10 of days is the days at MFU's
  // P90 (= high) and P90 the days at its P10 (= low), up to sampling noise.
  const TrainInputs t = llama70b();
  PlanRanges pr = point_ranges(t);
  pr.shape = RangeShape::lognormal;
  pr.mfu = {0.3, 0.4, 0.45};
  const RangeReport r = plan_ranges(t, pr);
  TrainInputs at = t;
  at.mfu = 0.45;
  EXPECT_NEAR(r.days.p.p10 / train_run(at).wall_clock_days, 1.0, 0.01);
  at.mfu = 0.3;
  EXPECT_NEAR(r.days.p.p90 / train_run(at).wall_clock_days, 1.0, 0.01);
  at.mfu = 0.4;
  EXPECT_NEAR(r.days.p.p50 / train_run(at).wall_clock_days, 1.0, 0.01);
}

TEST(Ranges, SeededAndStreamsAreIndependent) {
  const TrainInputs t = llama70b();
  const PlanRanges pr = wide(t);
  const RangeReport a = plan_ranges(t, pr), b = plan_ranges(t, pr);
  EXPECT_TRUE(same(a.days, b.days));
  EXPECT_TRUE(same(a.dollars, b.dollars));
  EXPECT_TRUE(same(a.loss, b.loss));
  PlanRanges other = pr;
  other.seed = 2;
  EXPECT_FALSE(same(plan_ranges(t, other).days, a.days));
  // Collapsing the price range changes the dollars, not one day of any draw.
  PlanRanges no_price = pr;
  no_price.price_per_chip_hour_dollars = Range::point(2.5);
  const RangeReport c = plan_ranges(t, no_price);
  EXPECT_TRUE(same(c.days, a.days));
  EXPECT_TRUE(same(c.loss, a.loss));
  EXPECT_FALSE(same(c.dollars, a.dollars));
}

TEST(Ranges, TornadoRanksWhatMovesTheDays) {
  const TrainInputs t = llama70b();
  const PlanRanges pr = wide(t);
  const RangeReport r = plan_ranges(t, pr);
  ASSERT_EQ(r.tornado.size(), 5u);
  for (std::size_t i = 1; i < r.tornado.size(); ++i)
    EXPECT_GE(r.tornado[i - 1].days_swing, r.tornado[i].days_swing);
  EXPECT_EQ(r.tornado.front().key, "mfu");
  TrainInputs at = at_likely(t, pr);
  at.mfu = 0.3;
  EXPECT_NEAR(r.tornado.front().days_at_low, train_run(at).wall_clock_days, 1e-9);
  for (const TornadoBar& b : r.tornado) {
    if (b.key == "price_per_chip_hour_dollars") {
      EXPECT_EQ(b.days_swing, 0.0);
      EXPECT_LT(b.dollars_at_low, b.dollars_at_high);
    }
    if (b.key == "tokens_available") {
      EXPECT_GT(b.loss_at_low, b.loss_at_high);
    }
    if (b.key == "interruptions_per_1000_chip_days") {
      EXPECT_LT(b.days_at_low, b.days_at_high);
    }
  }
  EXPECT_NE(range_summary(r).find("Days move most with MFU"), std::string::npos);
}

TEST(Ranges, StalledDrawsAreCappedNotInfinite) {
  const TrainInputs t = llama70b();
  PlanRanges pr = point_ranges(t);
  pr.interruptions_per_1000_chip_days = {0.1, 0.474, 200};  // a crash every few minutes
  const RangeReport r = plan_ranges(t, pr);
  EXPECT_GT(r.capped_draws, 0);
  EXPECT_TRUE(std::isfinite(r.days.max));
  EXPECT_EQ(r.days.max, 36500.0);
  EXPECT_NE(range_summary(r).find("make no progress"), std::string::npos);
}

TEST(Ranges, InvalidRangesNameTheInput) {
  const TrainInputs t = llama70b();
  PlanRanges pr = point_ranges(t);
  pr.mfu = {0.45, 0.4, 0.3};
  expect_invalid([&] { plan_ranges(t, pr); },
                 "mfu (fraction of peak) range must have low <= likely <= high");
  pr = point_ranges(t);
  pr.interruptions_per_1000_chip_days = {-1, 0.474, 1};
  expect_invalid([&] { plan_ranges(t, pr); }, "interruptions-per-1000-chip-days low");
  pr = point_ranges(t);
  pr.shape = RangeShape::lognormal;
  pr.restart_minutes = {0, 10, 30};
  expect_invalid([&] { plan_ranges(t, pr); }, "restart-min range needs low > 0");
  pr = point_ranges(t);
  pr.draws = 0;
  expect_invalid([&] { plan_ranges(t, pr); }, "draws");
  expect_invalid([] { parse_range_shape("uniform"); }, "triangular, lognormal");
}

// A fitted law's bootstrap draws widen the loss (and only the loss): each
// Monte Carlo draw forecasts under one resample law.
TEST(Ranges, LawDrawsSpreadTheLossOnly) {
  TrainInputs t;
  t.n_params = 7e10;
  t.train_tokens = 1.4e12;
  PlanRanges r = point_ranges(t);
  r.draws = 2000;
  const RangeReport fixed = plan_ranges(t, r);
  const LossLaw base = besiroglu2024_law();
  for (int i = -5; i <= 5; ++i)
    r.law_draws.push_back({base.E + 0.01 * i, base.A, base.alpha, base.B, base.beta});
  EXPECT_TRUE(r.any());
  const RangeReport spread = plan_ranges(t, r);
  EXPECT_DOUBLE_EQ(spread.days.p.p50, fixed.days.p.p50);
  EXPECT_DOUBLE_EQ(spread.days.p.p90, fixed.days.p.p10);  // days are still a point
  EXPECT_NEAR(spread.loss.point, fixed.loss.point, 1e-12);
  EXPECT_NEAR(spread.loss.min, fixed.loss.point - 0.05, 1e-9);
  EXPECT_NEAR(spread.loss.max, fixed.loss.point + 0.05, 1e-9);
  EXPECT_LT(spread.loss.p.p10, spread.loss.p.p50);
  EXPECT_LT(spread.loss.p.p50, spread.loss.p.p90);
  // Seeded: the same draws again.
  EXPECT_EQ(plan_ranges(t, r).loss.p.p10, spread.loss.p.p10);
  r.law_draws[3].alpha = 5;  // not a law
  EXPECT_THROW((void)plan_ranges(t, r), std::invalid_argument);
}
