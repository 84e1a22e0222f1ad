#include "distill.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "validate.h"

namespace napkin {

namespace {

std::vector<double> softmax_t(const std::vector<double>& logits, double t) {
  const double m = *std::max_element(logits.begin(), logits.end());
  std::vector<double> p(logits.size());
  double sum = 0;
  for (std::size_t i = 0; i < logits.size(); ++i) sum += p[i] = std::exp((logits[i] - m) / t);
  for (double& x : p) x /= sum;
  return p;
}

void check_logits(const std::vector<double>& logits, const char* name) {
  if (logits.empty()) throw std::invalid_argument(std::string(name) + ": no logits");
  for (double z : logits)
    if (!std::isfinite(z))
      throw std::invalid_argument(std::string(name) + ": a logit is not finite");
}

}  // namespace

double kl_distillation_loss(const std::vector<double>& student, const std::vector<double>& teacher,
                            double temperature) {
  check_logits(student, "student_logits");
  check_logits(teacher, "teacher_logits");
  if (student.size() != teacher.size())
    throw std::invalid_argument("student_logits: " + std::to_string(student.size()) +
                                " logits, the teacher has " + std::to_string(teacher.size()));
  require_real(temperature, "temperature", "softmax divisor", 0.0, 1e6, true);
  const std::vector<double> pt = softmax_t(teacher, temperature);
  const std::vector<double> ps = softmax_t(student, temperature);
  double kl = 0;
  for (std::size_t i = 0; i < pt.size(); ++i)
    if (pt[i] > 1e-12) kl += pt[i] * std::log(pt[i] / std::max(ps[i], 1e-300));
  return kl * temperature * temperature;
}

double perplexity_at_temperature(const std::vector<double>& logits, double temperature) {
  check_logits(logits, "logits");
  require_real(temperature, "temperature", "softmax divisor", 0.0, 1e6, true);
  double h = 0;
  for (double p : softmax_t(logits, temperature))
    if (p > 0) h -= p * std::log(p);
  return std::exp(h);
}

LogitStorage logit_storage(double tokens, std::int64_t vocab, double bytes_per_logit,
                           std::int64_t top_k, double index_bytes) {
  require_real(tokens, "tokens", "tokens", 1.0, kMaxTrainTokens);
  require_count(vocab, "vocab", "tokens", 2, 100'000'000);
  require_real(bytes_per_logit, "bytes_per_logit", "bytes", 0.0, 16.0, true);
  require_count(top_k, "top-k", "logits kept per token (0: none)", 0, vocab - 1);
  require_real(index_bytes, "index_bytes", "bytes", 0.0, 16.0, true);
  LogitStorage s;
  s.full_bytes = tokens * static_cast<double>(vocab) * bytes_per_logit;
  if (top_k > 0) {
    s.top_k_bytes =
        tokens * (static_cast<double>(top_k) * (bytes_per_logit + index_bytes) + bytes_per_logit);
    s.reduction = s.full_bytes / s.top_k_bytes;
  }
  return s;
}

}  // namespace napkin
