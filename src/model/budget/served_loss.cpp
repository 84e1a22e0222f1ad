#include "served_loss.h"

#include <algorithm>
#include <cmath>

#include "validate.h"

namespace napkin {

namespace {

double trained_loss(const ServedLoss& s, double n, double d) {
  return s.unique_tokens && d <= kMaxTrainTokens ? s.law.loss(n, d, *s.unique_tokens)
                                                 : s.law.base.loss(n, d);
}

std::optional<double> trained_tokens_for(const ServedLoss& s, double n, double target) {
  return s.unique_tokens ? s.law.tokens_for_loss(n, target, *s.unique_tokens)
                         : s.law.base.tokens_for_loss(n, target);
}

}  // namespace

double ServedLoss::loss(double n, double d) const {
  const double trained = trained_loss(*this, n, d);
  return ptq && weight_bits < 16 ? trained + ptq->degradation_nats(n, d, weight_bits) : trained;
}

std::optional<double> ServedLoss::tokens_for(double n, double target) const {
  const std::optional<double> d0 = trained_tokens_for(*this, n, target);
  if (!d0 || !ptq || !(weight_bits < 16)) return d0;
  // As trained the loss falls with D; the penalty rises with it, so the
  // served loss falls to one minimum and rises again (the trained loss convex
  // and falling in log D, the penalty a rising power of D). It is above the
  // target at d0 (the penalty is positive): step up in log D until it is at
  // or below the target (then bisect), or until it rises again (the minimum
  // was passed: the target is reached only if the minimum reaches it).
  const auto served = [&](double log_d) { return loss(n, std::exp(log_d)); };
  // The crossing in [x0, x1] where served(x0) > target ≥ served(x1): false
  // position with the Illinois halving (a few evaluations, not bisection's
  // forty; each is a data-constrained loss and a penalty).
  const auto crossing = [&](double x0, double x1) {
    double f0 = served(x0) - target, f1 = served(x1) - target;
    int side = 0;
    for (int i = 0; i < 100 && x1 - x0 > 1e-12; ++i) {
      const double x = std::clamp(x1 - f1 * (x1 - x0) / (f1 - f0), x0, x1);
      const double f = served(x) - target;
      if (f > 0) {
        x0 = x;
        f0 = f;
        if (side == -1) f1 *= 0.5;
        side = -1;
      } else {
        x1 = x;
        f1 = f;
        if (side == 1) f0 *= 0.5;
        side = 1;
      }
      if (f1 == 0 || f0 == f1) break;
    }
    return std::exp(x1);
  };
  const double top = std::log(kMaxTrainTokens);
  constexpr double kStep = 0.25;  // in log D: 28 % more tokens a step
  double a = std::log(*d0), fa = served(a);
  if (!(a < top)) return std::nullopt;
  for (;;) {
    const double b = std::min(a + kStep, top);
    const double fb = served(b);
    if (fb <= target) return crossing(a, b);
    if (fb >= fa || b >= top) {
      // Past the minimum (or out of range): is it at or below the target
      // somewhere in [a − step, b]? Golden section towards the minimum,
      // stopping at the first point that is (the flat bottom needs no more
      // than 30 steps to tell).
      const double lo = std::max(std::log(*d0), a - kStep);
      constexpr double kGolden = 0.6180339887498949;
      double x0 = lo, x1 = b;
      double c = x1 - kGolden * (x1 - x0), d = x0 + kGolden * (x1 - x0);
      double fc = served(c), fd = served(d);
      for (int i = 0; i < 30 && fc > target && fd > target; ++i) {
        if (fc < fd) {
          x1 = d;
          d = c;
          fd = fc;
          c = x1 - kGolden * (x1 - x0);
          fc = served(c);
        } else {
          x0 = c;
          c = d;
          fc = fd;
          d = x0 + kGolden * (x1 - x0);
          fd = served(d);
        }
      }
      if (fc > target && fd > target) return std::nullopt;
      const double best = fc <= target ? c : d;
      return crossing(lo, best);
    }
    a = b;
    fa = fb;
  }
}

}  // namespace napkin
