#include "distill_law.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <vector>

#include "format.h"
#include "minimize.h"
#include "scaling_detail.h"
#include "validate.h"

namespace napkin {

void DistillSupervisedLaw::validate() const {
  require_positive(E, "supervised_law.E", "nats/token");
  require_positive(A, "supervised_law.A", "coefficient");
  require_positive(B, "supervised_law.B", "coefficient");
  require_positive(alpha, "supervised_law.alpha", "exponent");
  require_positive(beta, "supervised_law.beta", "exponent");
  require_positive(gamma, "supervised_law.gamma", "exponent");
}

double DistillSupervisedLaw::loss(double n, double d) const {
  validate();
  require_positive(n, "params", "parameters");
  require_positive(d, "tokens", "tokens");
  return E + std::pow(A * std::pow(n, -alpha) + B * std::pow(d, -beta), gamma);
}

DistillSupervisedLaw busbridge2025_supervised_law() {
  // Busbridge et al. 2025, Appendix F.3, Table 6, supervised column.
  return DistillSupervisedLaw{1.220, 3355.0, 18186.0, 0.408, 0.431, 0.452};
}

DistillLaw busbridge2025_distill_law() {
  // Busbridge et al. 2025, Appendix F.3, Table 6, distillation column:
  // c0, c1, d1, f1, A', B', α', β', γ'.
  return DistillLaw{2.549, 522.6, 1.315, 0.090, 2243.0, 24181.0, 0.321, 0.637, 0.764};
}

SupervisedLoss supervised_loss(const LossLaw& law) {
  law.validate();
  return [law](double n, double d) { return law.loss(n, d); };
}

SupervisedLoss supervised_loss(const DistillSupervisedLaw& law) {
  law.validate();
  return [law](double n, double d) { return law.loss(n, d); };
}

void DistillLaw::validate() const {
  require_real(c0, "distill_law.c0", "exponent", 0.0, 5.0);
  require_real(c1, "distill_law.c1", "exponent", 0.0, 1e4);
  require_real(d1, "distill_law.d1", "ratio", 0.0, 100.0, true);
  require_real(f1, "distill_law.f1", "exponent", 0.0, 100.0, true);
  require_real(a, "distill_law.A", "coefficient", 0.0, 1e12);
  require_real(b, "distill_law.B", "coefficient", 0.0, 1e12);
  require_real(alpha, "distill_law.alpha", "exponent", 0.0, 5.0);
  require_real(beta, "distill_law.beta", "exponent", 0.0, 5.0);
  require_real(gamma, "distill_law.gamma", "exponent", 0.0, 5.0);
}

double DistillLaw::student_loss(double lt, double ls_tilde, double ns, double ds) const {
  validate();
  require_positive(lt, "teacher_loss", "nats/token");
  require_positive(ls_tilde, "student_supervised_loss", "nats/token");
  require_positive(ns, "student_params", "parameters");
  require_positive(ds, "distill_tokens", "tokens");
  const double gap = std::pow(1.0 + std::pow(lt / (ls_tilde * d1), 1.0 / f1), -c1 * f1);
  const double learn = std::pow(a * std::pow(ns, -alpha) + b * std::pow(ds, -beta), gamma);
  return lt + std::pow(lt, -c0) * gap * learn;
}

DistillLaw parse_distill_law(const std::string& text, const std::string& param) {
  const std::string form = " must be nine numbers c0,c1,d1,f1,A,B,alpha,beta,gamma";
  const std::vector<double> v = detail::parse_number_list(text, 9, param + form);
  DistillLaw law{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]};
  try {
    law.validate();
  } catch (const std::invalid_argument& e) {
    // "distill_law.f1 …" named as the caller's parameter: "--distill-law.f1 …".
    std::string m = e.what();
    if (const auto at = m.find("distill_law"); at != std::string::npos) m.replace(at, 11, param);
    throw std::invalid_argument(m);
  }
  return law;
}

DistillCompute distill_compute(double nt, double dt, double ns, double ds) {
  require_positive(nt, "teacher_params", "parameters");
  require_real(dt, "teacher_tokens", "tokens", 0.0, 1e18);
  require_positive(ns, "student_params", "parameters");
  require_positive(ds, "distill_tokens", "tokens");
  return DistillCompute{6.0 * nt * dt, 2.0 * nt * ds, 6.0 * ns * ds};
}

DistillSplit distill_split(const SupervisedLoss& supervised, const std::optional<DistillLaw>& law,
                           double c, double nt, double ns, double ds) {
  require_positive(c, "compute", "FLOPs");
  require_positive(nt, "teacher_params", "parameters");
  require_positive(ns, "student_params", "parameters");
  require_positive(ds, "tokens", "distillation tokens");
  const double left = c - 2.0 * nt * ds - 6.0 * ns * ds;
  if (!(left > 0))
    throw std::invalid_argument(
        "tokens: the teacher's logits over " + format_count(ds, 2) + " tokens and the student (" +
        format_sci(2.0 * nt * ds + 6.0 * ns * ds) + " FLOPs) spend all of the compute (" +
        format_sci(c) + " FLOPs), leaving the teacher no tokens to train on");
  DistillSplit s;
  s.distill_tokens = ds;
  s.teacher_tokens = left / (6.0 * nt);
  s.compute = distill_compute(nt, s.teacher_tokens, ns, ds);
  s.teacher_loss = supervised(nt, s.teacher_tokens);
  s.student_supervised_loss = supervised(ns, ds);
  if (law) s.student_loss = law->student_loss(s.teacher_loss, s.student_supervised_loss, ns, ds);
  return s;
}

DistillPlan plan_distillation(const SupervisedLoss& supervised,
                              const std::optional<DistillLaw>& law, double c, double nt, double ns,
                              std::optional<double> ds, double tokens_per_param) {
  require_positive(c, "compute", "FLOPs");
  require_positive(nt, "teacher_params", "parameters");
  require_positive(ns, "student_params", "parameters");
  require_real(tokens_per_param, "tokens_per_param", "tokens per parameter", 0.01, 1e6);
  DistillPlan p;
  p.compute_flops = c;
  p.teacher_params = nt;
  p.student_params = ns;
  p.student_alone_tokens = c / (6.0 * ns);
  p.student_alone_loss = supervised(ns, p.student_alone_tokens);
  if (ds) {
    p.split = distill_split(supervised, law, c, nt, ns, *ds);
  } else if (!law) {
    p.split = distill_split(supervised, law, c, nt, ns, tokens_per_param * ns);
  } else {
    // D_S over (0, C ÷ (2N_T + 6N_S)): log-spaced from 1e-6 of the limit to
    // just below it (the teacher keeps at least a sliver of the compute).
    const double limit = c / (2.0 * nt + 6.0 * ns);
    const double lo = std::log(limit * 1e-6);
    const double hi = std::log(limit * (1.0 - 1e-6));
    auto loss_at = [&](double log_ds) {
      const DistillSplit s = distill_split(supervised, law, c, nt, ns, std::exp(log_ds));
      return s.student_loss ? *s.student_loss : std::numeric_limits<double>::max();
    };
    p.split = distill_split(supervised, law, c, nt, ns, std::exp(minimize_1d(loss_at, lo, hi)));
    p.searched = true;
  }
  if (p.split.student_loss) p.gain_nats = p.student_alone_loss - *p.split.student_loss;
  return p;
}

}  // namespace napkin
