#include "precision_law.h"

#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "scaling_detail.h"
#include "validate.h"

namespace napkin {

namespace {
void require_bits(double bits, const char* name) {
  require_real(bits, name, "bits", 0.0, 64.0, true);
}
}  // namespace

void PtqLaw::validate() const {
  require_real(c_t, "ptq_law.C_T", "nats", 0.0, 1e6);
  require_real(gamma_d, "ptq_law.gamma_D", "exponent", 0.0, 5.0);
  require_real(gamma_n, "ptq_law.gamma_N", "exponent", 0.0, 5.0);
  require_real(gamma_post, "ptq_law.gamma_post", "bits", 0.0, 64.0, true);
}

double PtqLaw::degradation_nats(double n, double d, double bits) const {
  validate();
  require_positive(n, "params", "parameters");
  require_positive(d, "train_tokens", "tokens");
  require_bits(bits, "serving_bits");
  return c_t * std::pow(d, gamma_d) / std::pow(n, gamma_n) * std::exp(-bits / gamma_post);
}

void TrainPrecisionLaw::validate() const {
  require_real(gamma_w, "train_precision_law.gamma_w", "bits", 0.0, 64.0, true);
  require_real(gamma_a, "train_precision_law.gamma_a", "bits", 0.0, 64.0, true);
  require_real(gamma_kv, "train_precision_law.gamma_kv", "bits", 0.0, 64.0, true);
}

double TrainPrecisionLaw::effective_params(double n, double pw, double pa, double pkv) const {
  validate();
  require_positive(n, "params", "parameters");
  require_bits(pw, "weight_bits");
  require_bits(pa, "activation_bits");
  require_bits(pkv, "kv_bits");
  return n * (1.0 - std::exp(-pw / gamma_w)) * (1.0 - std::exp(-pa / gamma_a)) *
         (1.0 - std::exp(-pkv / gamma_kv));
}

double TrainPrecisionLaw::loss(const LossLaw& law, double n, double d, double pw, double pa,
                               double pkv) const {
  law.validate();
  require_positive(d, "train_tokens", "tokens");
  const double n_eff = effective_params(n, pw, pa, pkv);
  return law.E + law.A * std::pow(n_eff, -law.alpha) + law.B * std::pow(d, -law.beta);
}

PtqLaw parse_ptq_law(const std::string& text, const std::string& param) {
  const std::vector<double> v = detail::parse_number_list(
      text, 4, param + " must be four numbers C_T,gamma_D,gamma_N,gamma_post");
  PtqLaw law{v[0], v[1], v[2], v[3]};
  law.validate();
  return law;
}

}  // namespace napkin
