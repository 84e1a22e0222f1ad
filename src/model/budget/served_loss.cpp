#include "served_loss.h"

#include <cmath>

#include "minimize.h"
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
  // As trained the loss falls with D; the penalty rises with it. The served
  // loss is at least the trained one, so the answer lies above d0, below the
  // token count where the served loss is least (the trained loss is convex
  // and falling in log D, the penalty a rising power of D: one minimum).
  const auto served = [&](double log_d) { return loss(n, std::exp(log_d)); };
  const double lo = std::log(*d0);
  const double hi = std::log(kMaxTrainTokens);
  if (!(hi > lo)) return std::nullopt;
  const double best = minimize_1d(served, lo, hi);
  if (served(best) > target) return std::nullopt;
  double a = lo, b = best;  // served(a) > target ≥ served(b)
  for (int i = 0; i < 200 && b - a > 1e-12; ++i) {
    const double mid = 0.5 * (a + b);
    (served(mid) > target ? a : b) = mid;
  }
  return std::exp(b);
}

}  // namespace napkin
