#include "loss_law.h"

#include <cmath>
#include <stdexcept>

#include "validate.h"

namespace napkin {

void LossLaw::validate() const {
  require_positive(E, "E", "nats/token");
  require_positive(A, "A", "law coefficient");
  require_real(alpha, "alpha", "exponent", 0.0, 2.0, true);
  require_positive(B, "B", "law coefficient");
  require_real(beta, "beta", "exponent", 0.0, 2.0, true);
}

double LossLaw::loss(double n_params, double n_tokens) const {
  require_positive(n_params, "n_params", "parameters");
  require_positive(n_tokens, "n_tokens", "tokens");
  return E + A / std::pow(n_params, alpha) + B / std::pow(n_tokens, beta);
}

std::optional<double> LossLaw::tokens_for_loss(double n_params, double target_loss) const {
  require_positive(n_params, "n_params", "parameters");
  require_positive(target_loss, "target_loss", "nats/token");
  const double room = target_loss - E - A / std::pow(n_params, alpha);
  if (room <= 0) return std::nullopt;
  const double d = std::pow(B / room, 1.0 / beta);
  if (!std::isfinite(d)) return std::nullopt;
  return d;
}

double LossLaw::min_params_for_loss(double target_loss) const {
  require_real(target_loss, "target_loss", "nats/token", E, std::numeric_limits<double>::max(),
               true);
  return std::pow(A / (target_loss - E), 1.0 / alpha);
}

LossLaw chinchilla_approach3_law() { return LossLaw{1.69, 406.4, 0.34, 410.7, 0.28}; }

LossLaw besiroglu2024_law() { return LossLaw{1.8172, 482.01, 0.3478, 2085.43, 0.3658}; }

}  // namespace napkin
