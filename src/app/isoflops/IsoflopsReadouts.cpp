#include "isoflops/IsoflopsReadouts.h"
#include "Text.h"

#include <QCoreApplication>
#include <cmath>

#include "PlotWidget.h"
#include "format.h"
#include "isoflops_view.h"

namespace napkin {

namespace {

QString tr(const char* text) {
  return QCoreApplication::translate("napkin::IsoflopsReadouts", text);
}
// Read-out numbers: "n/a" instead of nan, inf or a dash.
QString count(double v, int decimals = 2) {
  return std::isfinite(v) && v > 0 ? qs(format_count(v, decimals)) : QStringLiteral("n/a");
}
QString nats(double v, int decimals = 4) {
  return std::isfinite(v) ? QString::number(v, 'f', decimals) : QStringLiteral("n/a");
}
// A signed percentage with a real minus sign: −45.2 %.
QString signedPercent(double fraction, int decimals = 1) {
  const QString t = fixed(std::abs(fraction) * 100.0, decimals) + QStringLiteral(" %");
  return (fraction < 0 ? QStringLiteral("\u2212") : QStringLiteral("+")) + t;
}
QString sig3(double v) { return QString::number(v, 'g', 3); }

// What a fit-dependent row says when there is no fit to show.
QString noFit(JobState state) {
  switch (state) {
    case JobState::failed: return tr("n/a (fit failed)");
    case JobState::cancelled: return tr("cancelled");
    default: return tr("updating…");
  }
}

}  // namespace

IsoflopsReadouts::IsoflopsReadouts(ReadoutGrid* grid) : grid_(grid) {
  const QString wide = QStringLiteral("999.99B [999.9B \u2013 999.9B]");
  forecast_section = grid->addSection(tr("Forecast at the target C*"));
  target = grid->add({.key = QStringLiteral("target"),
                      .name = tr("Target C*"),
                      .tooltip = tr("The compute of the flagship run (FLOPs): the Budget panel's "
                                    "C by default."),
                      .format = fmtSci,
                      .widest = QStringLiteral("1.026e+24 FLOPs (Budget panel)")});
  n_opt = grid->add({.key = QStringLiteral("n_opt"),
                     .name = tr("N_opt @ C*"),
                     .tooltip = tr("Recommended parameters at C*: the IsoFLOPs power law N_opt = "
                                   "k·C^a extrapolated to C* (from the fitted law when the "
                                   "ladder has no budget labels)."),
                     .format = fmtSi});
  d_opt = grid->add({.key = QStringLiteral("d_opt"),
                     .name = tr("D_opt @ C*"),
                     .tooltip = tr("Recommended tokens at C*: D_opt = k·C^b (C = 6ND)."),
                     .format = fmtSi});
  forecast = grid->add({.key = QStringLiteral("forecast"),
                        .name = tr("Forecast L*"),
                        .tooltip = tr("The fitted law's optimal loss at C* (nats/token): L(N_opt, "
                                      "D_opt) with N_opt = [αA/(βB)·(C/6)^β]^(1/(α+β))."),
                        .better = Better::lower,
                        .format = sig3});
  ci = grid->add({.key = QStringLiteral("ci"),
                  .name = tr("95 % interval"),
                  .tooltip = tr("Bootstrap percentile interval of the optimal loss at C*: the law "
                                "refitted on the ladder resampled with replacement. The change "
                                "from a baseline is that of its width."),
                  .better = Better::lower,
                  .format = sig3,
                  .widest = QStringLiteral("[9.9999, 9.9999] nats")});
  decades = grid->add({.key = QStringLiteral("decades"),
                       .name = tr("Extrapolation"),
                       .tooltip = tr("log10(C* / the ladder's largest budget): how far the "
                                     "forecast reaches beyond the data."),
                       .better = Better::lower,
                       .format = sig3});
  exponent_section = grid->addSection(tr("IsoFLOPs exponents and the LR-decay lesson"));
  a = grid->add({.key = QStringLiteral("a"),
                 .name = tr("a (N ∝ C^a)"),
                 .tooltip = tr("Exponent of N_opt ∝ C^a fitted to the parabola vertices (log-log "
                               "least squares). Kaplan: 0.73; Chinchilla: ≈ 0.5."),
                 .format = sig3});
  b = grid->add({.key = QStringLiteral("b"),
                 .name = tr("b (D ∝ C^b)"),
                 .tooltip = tr("Exponent of D_opt ∝ C^b."),
                 .format = sig3});
  sum = grid->add({.key = QStringLiteral("sum"),
                   .name = tr("a + b"),
                   .tooltip = tr("Must be 1: D = C/6N at every vertex, so N_opt·D_opt ∝ C."),
                   .format = sig3});
  n_opt_law = grid->add({.key = QStringLiteral("n_opt_law"),
                         .name = tr("N_opt (law)"),
                         .tooltip = tr("The fitted law's compute-optimal N at C*, with the "
                                       "bootstrap's 95 % interval."),
                         .format = fmtSi,
                         .widest = wide});
  bias = grid->add({.key = QStringLiteral("bias"),
                    .name = tr("With bias"),
                    .tooltip = tr("N_opt at C* from the same ladder with the LR-decay bias "
                                  "injected, and how far it moved from the clean ladder's: the "
                                  "bias is not uniform, so it tilts a."),
                    .format = fmtSi});
  offset = grid->add({.key = QStringLiteral("offset"),
                      .name = tr("With offset"),
                      .tooltip = tr("N_opt at C* with a uniform offset added to every run: a "
                                    "parabola shifted up has the same vertex, so nothing moves."),
                      .format = fmtSi});
  law_section = grid->addSection(tr("Fitted law L = E + A/N^α + B/D^β"));
  E = grid->add({.key = QStringLiteral("E"),
                 .name = tr("Fitted E"),
                 .tooltip = tr("Irreducible loss E of the fitted law (nats/token)."),
                 .format = sig3});
  A = grid->add({.key = QStringLiteral("A"),
                 .name = tr("Fitted A"),
                 .tooltip = tr("Capacity coefficient A of the fitted law."),
                 .format = sig3});
  alpha = grid->add({.key = QStringLiteral("alpha"),
                     .name = tr("Fitted α"),
                     .tooltip = tr("Capacity exponent α of the fitted law."),
                     .format = sig3});
  B = grid->add({.key = QStringLiteral("B"),
                 .name = tr("Fitted B"),
                 .tooltip = tr("Data coefficient B of the fitted law."),
                 .format = sig3});
  beta = grid->add({.key = QStringLiteral("beta"),
                    .name = tr("Fitted β"),
                    .tooltip = tr("Data exponent β of the fitted law."),
                    .format = sig3});
  fit = grid->add({.key = QStringLiteral("fit"),
                   .name = tr("Fit"),
                   .tooltip = tr("Estimator and the number of runs fitted."),
                   .widest = QStringLiteral("huber-log, 9999 runs")});
}

void IsoflopsReadouts::show(const IsoflopsShown& s) {
  showForecast(s);
  showExponents(s);
  showLesson(s);
  showLaw(s);
}

// A value, in the warning tone with "updating…" for its note while the fit
// or the band it comes from is being redone.
void IsoflopsReadouts::put(ReadoutGrid::Row row, const QString& value, const QString& unit,
                           std::optional<double> number, bool stale, const QString& note) {
  grid_->set(row, {.value = value,
                   .unit = unit,
                   .note = stale ? tr("updating…") : note,
                   .tone = stale ? Tone::warn : Tone::normal,
                   .number = number});
}

// The target C*, the optimum there, its forecast loss, interval and extrapolation.
void IsoflopsReadouts::showForecast(const IsoflopsShown& s) {
  const IsoflopsView& v = s.view();
  const IsoflopsForecast& f = s.forecast;
  const double C = s.target();
  const bool fit_stale = s.fitStale();
  const bool band_stale = s.bandStale();
  const QString updating = tr("updating…");
  put(target, qs(format_sci(C, 3)),
      s.follows_budget ? tr("FLOPs (Budget panel)") : tr("FLOPs (manual)"), C);
  if (f.n_opt && f.d_opt) {
    const bool law = f.optimum_from_law;
    put(n_opt, count(*f.n_opt), law ? tr("(law)") : tr("params"), f.n_opt, law && fit_stale,
        law ? tr("the fitted law's optimum: the ladder has no budget labels")
            : tr("IsoFLOPs power law N_opt = k·C^a at C*"));
    put(d_opt, count(*f.d_opt), law ? tr("(law)") : tr("tokens"), f.d_opt, law && fit_stale);
  } else {
    put(n_opt, tr("n/a (see status)"), {}, std::nullopt);
    put(d_opt, tr("n/a (see status)"), {}, std::nullopt);
  }
  if (f.loss)
    put(forecast, nats(*f.loss), tr("nats"), f.loss, fit_stale,
        // The law's own optimum, which need not be the vertices' N_opt above.
        f.n_opt_law ? tr("the fitted law at its optimum at C*: %1 params").arg(count(*f.n_opt_law))
                    : tr("the fitted law at C*"));
  else
    put(forecast, s.fit ? tr("n/a") : noFit(s.fit_state), {}, std::nullopt);
  if (f.interval) {
    put(ci, QStringLiteral("[%1, %2]").arg(nats(f.interval->low), nats(f.interval->high)),
        tr("nats"), f.interval->high - f.interval->low, band_stale,
        tr("width %1 nats").arg(nats(f.interval->high - f.interval->low)));
  } else {
    switch (s.boot_state) {
      case JobState::failed: put(ci, tr("n/a (see status)"), {}, std::nullopt); break;
      case JobState::cancelled: put(ci, tr("cancelled"), {}, std::nullopt); break;
      default: put(ci, updating, {}, std::nullopt); break;
    }
  }
  const double d = v.extrapolation_decades;
  put(decades,
      !std::isfinite(d) ? tr("n/a")
      : d > 0           ? tr("%1 decades beyond").arg(fixed(d, 2))
                        : tr("none (interpolation)"),
      {}, std::isfinite(d) ? std::optional<double>(d) : std::nullopt);
}

// The fitted exponents a and b, and N_opt by the law.
void IsoflopsReadouts::showExponents(const IsoflopsShown& s) {
  const IsoflopsForecast& f = s.forecast;
  const bool fit_stale = s.fitStale();
  const bool band_stale = s.bandStale();
  if (f.exponents) {
    const ScalingExponents& e = *f.exponents;
    const bool law = f.exponents_from_law;
    const QString suffix = law ? tr(" (law)") : QString();
    put(a, fixed(e.a, 4) + suffix, {}, e.a, law && fit_stale);
    put(b, fixed(e.b, 4) + suffix, {}, e.b, law && fit_stale);
    put(sum,
        law ? tr("1.0000 (law)")
            : fixed(e.sum, 4) + (e.sums_to_one ? tr(" \u2713 (C = 6ND)") : tr(" \u2717 (≠ 1)")),
        {}, e.sum, law && fit_stale);
  } else {
    put(a, tr("n/a (see status)"), {}, std::nullopt);
    put(b, tr("n/a (see status)"), {}, std::nullopt);
    put(sum, tr("n/a"), {}, std::nullopt);
  }
  if (f.n_opt_law) {
    QString t = count(*f.n_opt_law);
    if (f.n_opt_law_interval)
      t += QStringLiteral(" [%1 \u2013 %2]")
               .arg(count(f.n_opt_law_interval->low, 1), count(f.n_opt_law_interval->high, 1));
    put(n_opt_law, t, {}, f.n_opt_law, fit_stale || band_stale);
  } else {
    put(n_opt_law, s.fit ? tr("n/a") : noFit(s.fit_state), {}, std::nullopt);
  }
}

// The lesson: how far the LR-decay bias and the offset move the vertex.
void IsoflopsReadouts::showLesson(const IsoflopsShown& s) {
  const ScheduleLesson& l = s.ladder.lesson;
  if (!s.ladder.synthetic) {
    put(bias, tr("n/a (synthetic only)"), {}, std::nullopt);
    put(offset, tr("n/a (synthetic only)"), {}, std::nullopt);
  } else {
    if (l.n_bias && l.bias_shift)
      put(bias, tr("%1 (moved %2)").arg(count(*l.n_bias), signedPercent(*l.bias_shift)), {},
          l.n_bias);
    else
      put(bias, tr("n/a (no vertex)"), {}, std::nullopt);
    if (l.n_offset && l.offset_shift) {
      const double rel = *l.offset_shift;
      put(offset,
          std::abs(rel) < 1e-9 ? tr("unchanged (\u0394 0.000 %)")
                               : tr("%1 (moved %2)").arg(count(*l.n_offset), signedPercent(rel, 3)),
          {}, l.n_offset);
    } else {
      put(offset, tr("n/a (no vertex)"), {}, std::nullopt);
    }
  }
}

// The fitted law's constants and the fit.
void IsoflopsReadouts::showLaw(const IsoflopsShown& s) {
  const bool fit_stale = s.fitStale();
  const QString fitted = s.fit ? qs(to_string(s.fit->estimator)) : QString();
  if (s.fit) {
    const LossLaw& law = s.fit->law;
    put(E, nats(law.E), tr("nats"), law.E, fit_stale);
    put(A, nats(law.A, 1), {}, law.A, fit_stale);
    put(alpha, nats(law.alpha), {}, law.alpha, fit_stale);
    put(B, nats(law.B, 1), {}, law.B, fit_stale);
    put(beta, nats(law.beta), {}, law.beta, fit_stale);
    put(fit, tr("%1, %2 runs").arg(fitted).arg(s.fit->n_points), {}, std::nullopt, fit_stale,
        s.fit->converged ? tr("converged") : tr("not converged"));
  } else {
    for (ReadoutGrid::Row r : {E, A, alpha, B, beta}) put(r, noFit(s.fit_state), {}, std::nullopt);
    put(fit, s.fit_state == JobState::failed ? tr("failed (see status)") : noFit(s.fit_state), {},
        std::nullopt);
  }
}

void IsoflopsReadouts::setBaseline(const IsoflopsShown* s) {
  grid_->clearBaselines();
  if (!s) return;
  const IsoflopsForecast& f = s->forecast;
  grid_->setBaseline(target, s->target());
  grid_->setBaseline(n_opt, f.n_opt);
  grid_->setBaseline(d_opt, f.d_opt);
  grid_->setBaseline(forecast, f.loss);
  if (f.interval) grid_->setBaseline(ci, f.interval->high - f.interval->low);
  if (std::isfinite(s->view().extrapolation_decades))
    grid_->setBaseline(decades, s->view().extrapolation_decades);
  if (f.exponents) {
    grid_->setBaseline(a, f.exponents->a);
    grid_->setBaseline(b, f.exponents->b);
    // a + b is 1 by construction: its change would be rounding noise.
  }
  grid_->setBaseline(n_opt_law, f.n_opt_law);
  if (s->ladder.synthetic) {
    grid_->setBaseline(bias, s->ladder.lesson.n_bias);
    grid_->setBaseline(offset, s->ladder.lesson.n_offset);
  }
  if (s->fit) {
    const LossLaw& law = s->fit->law;
    grid_->setBaseline(E, law.E);
    grid_->setBaseline(A, law.A);
    grid_->setBaseline(alpha, law.alpha);
    grid_->setBaseline(B, law.B);
    grid_->setBaseline(beta, law.beta);
  }
}

ReadoutGrid::Row IsoflopsReadouts::row(const QString& key) const {
  const QString name = QStringLiteral("readout_") + key;
  for (int i = 0; i < grid_->rowCount(); ++i)
    if (grid_->valueLabel({i})->objectName() == name) return {i};
  return {};
}

QString IsoflopsReadouts::text(const QString& key) const {
  const ReadoutGrid::Row r = row(key);
  return r.index >= 0 ? grid_->text(r) : QString();
}

}  // namespace napkin
