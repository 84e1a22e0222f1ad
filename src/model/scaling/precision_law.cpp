#include "precision_law.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "format.h"
#include "scaling_detail.h"
#include "validate.h"

namespace napkin {

namespace {
void require_bits(double bits, const char* name) {
  require_real(bits, name, "bits", 0.0, 64.0, true);
}

// 1 − e^(n − P/γ): the share of the parameters a part kept at P bits leaves.
double precision_factor(double bits, double gamma, double bias, const char* name) {
  require_bits(bits, name);
  const double f = 1.0 - std::exp(bias - bits / gamma);
  if (!(f > 0))
    throw std::invalid_argument(std::string(name) + " = " + format_grouped(bits, 1) +
                                " bits is below the precisions the law covers (it leaves no "
                                "effective parameters; its fit starts near " +
                                format_grouped(bias * gamma, 1) + " bits)");
  return f;
}
}  // namespace

void PtqLaw::validate() const {
  require_real(c_t, "ptq_law.C_T", "nats", 0.0, 1e6);
  require_real(gamma_d, "ptq_law.gamma_D", "exponent", 0.0, 5.0);
  require_real(gamma_n, "ptq_law.gamma_N", "exponent", 0.0, 5.0);
  require_real(gamma_post, "ptq_law.gamma_post", "bits", 0.0, 64.0, true);
  require_real(bias, "ptq_law.b", "offset", -20.0, 20.0);
}

double PtqLaw::degradation_nats(double n, double d, double bits) const {
  validate();
  require_positive(n, "params", "parameters");
  require_positive(d, "train_tokens", "tokens");
  require_bits(bits, "serving_bits");
  return c_t * std::pow(d, gamma_d) / std::pow(n, gamma_n) * std::exp(bias - bits / gamma_post);
}

void TrainPrecisionLaw::validate() const {
  require_real(gamma_w, "train_precision_law.gamma_w", "bits", 0.0, 64.0, true);
  require_real(gamma_a, "train_precision_law.gamma_a", "bits", 0.0, 64.0, true);
  require_real(gamma_kv, "train_precision_law.gamma_kv", "bits", 0.0, 64.0, true);
  require_real(bias_w, "train_precision_law.n_w", "offset", -20.0, 20.0);
  require_real(bias_a, "train_precision_law.n_a", "offset", -20.0, 20.0);
  require_real(bias_kv, "train_precision_law.n_kv", "offset", -20.0, 20.0);
}

double TrainPrecisionLaw::effective_params(double n, double pw, double pa, double pkv) const {
  validate();
  require_positive(n, "params", "parameters");
  return n * precision_factor(pw, gamma_w, bias_w, "weight_bits") *
         precision_factor(pa, gamma_a, bias_a, "activation_bits") *
         precision_factor(pkv, gamma_kv, bias_kv, "kv_bits");
}

double TrainPrecisionLaw::loss(const LossLaw& law, double n, double d, double pw, double pa,
                               double pkv) const {
  law.validate();
  require_positive(d, "train_tokens", "tokens");
  const double n_eff = effective_params(n, pw, pa, pkv);
  return law.E + law.A * std::pow(n_eff, -law.alpha) + law.B * std::pow(d, -law.beta);
}

double TrainPrecisionLaw::share_vs_bf16(double bits) const {
  return effective_params(1.0, bits, bits, bits) / effective_params(1.0, 16, 16, 16);
}

LossLaw TrainPrecisionLaw::trained_at(const LossLaw& law, double bits) const {
  law.validate();
  LossLaw out = law;
  out.A = law.A * std::pow(share_vs_bf16(bits), -law.alpha);
  return out;
}

double TrainPrecisionLaw::penalty_vs_bf16_nats(const LossLaw& law, double n, double d,
                                               double bits) const {
  return trained_at(law, bits).loss(n, d) - law.loss(n, d);
}

PtqLaw kumar2024_ptq_law() {
  PtqLaw law;
  law.c_t = 0.0598;
  law.gamma_d = 0.5068;
  law.gamma_n = 0.3439;
  law.gamma_post = 0.5907;
  law.bias = 1.1277;
  return law;
}

TrainPrecisionLaw kumar2024_train_precision_law() {
  TrainPrecisionLaw law;
  law.gamma_w = 2.6745;
  law.bias_w = 0.3037;
  law.gamma_a = 2.2102;
  law.bias_a = 1.4072;
  law.gamma_kv = 0.9578;
  law.bias_kv = 2.4185;
  return law;
}

std::string kumar2024_validity_text() {
  return "the constants of its Appendix K, Table 2, fitted on 30M-220M-parameter models "
         "trained on 1.5B-26B Dolma tokens with integer quantization, so extrapolated here";
}

PtqLaw parse_ptq_law(const std::string& text, const std::string& param) {
  const std::size_t commas = static_cast<std::size_t>(std::count(text.begin(), text.end(), ','));
  const std::vector<double> v = detail::parse_number_list(
      text, commas == 4 ? 5 : 4,
      param + " must be four or five numbers C_T,gamma_D,gamma_N,gamma_post[,b]");
  PtqLaw law{v[0], v[1], v[2], v[3], v.size() == 5 ? v[4] : 0.0};
  law.validate();
  return law;
}

}  // namespace napkin
