#include "report/ComparePage.h"

#include <QObject>
#include <optional>

#include "Text.h"
#include "compare.h"
#include "format.h"
#include "report/ReportHtml.h"
#include "scenario.h"

namespace napkin {

namespace {

// The value alone ("2.102e+24 FLOPs"); without one, the display says why.
QString value(const std::optional<double>& v, const std::string& display, Unit unit) {
  return qs(v ? format_quantity(*v, unit) : display);
}

QString plan(const Scenario& s) {
  return QObject::tr("%1 on %2 × %3 for %4 days")
      .arg(qs(s.model_name), qs(format_grouped(static_cast<double>(s.n_chips))), qs(s.chip),
           qs(format_grouped(
               s.days, s.days == static_cast<double>(static_cast<long long>(s.days)) ? 0 : 1)));
}

}  // namespace

QString comparePageHtml(const Scenario& a, const QString& a_label, const Scenario& b,
                        const QString& b_label) {
  QString html = QStringLiteral("<h1>%1</h1>").arg(QObject::tr("Plan A vs plan B"));
  html += QStringLiteral(
              "<table><tr><td><b>%1</b></td><td>%2 <span class='muted'>(%3)</span></td>"
              "</tr><tr><td><b>%4</b></td><td>%5 <span class='muted'>(%6)</span></td>"
              "</tr></table>")
              .arg(QObject::tr("Plan A"), reportEscape(plan(a)), reportEscape(a_label),
                   QObject::tr("Plan B"), reportEscape(plan(b)), reportEscape(b_label));
  html += QStringLiteral("<p class='muted'>%1</p>")
              .arg(QObject::tr("Plan A is the pinned baseline; plan B is the scenario this report "
                               "is about (the rest of the report shows plan B, with plan A's "
                               "curves faded behind it)."));

  // ---- inputs that differ
  html += QStringLiteral("<h2>%1</h2>").arg(QObject::tr("Inputs that differ"));
  const std::vector<InputDifference> inputs = differing_inputs(a, b);
  if (inputs.empty()) {
    html += QStringLiteral("<p>%1</p>").arg(QObject::tr("No input differs."));
  } else {
    html += QStringLiteral("<table><tr><th>%1</th><th>%2</th><th>%3</th></tr>")
                .arg(QObject::tr("Input"), QObject::tr("Plan A"), QObject::tr("Plan B"));
    for (const InputDifference& d : inputs)
      html += QStringLiteral(
                  "<tr><td>%1</td><td class='num'>%2</td><td class='num'><b>%3</b></td>"
                  "</tr>")
                  .arg(reportEscape(qs(d.name)), reportEscape(qs(d.a)), reportEscape(qs(d.b)));
    html += QStringLiteral("</table>");
  }

  // ---- headline outputs
  html += QStringLiteral("<h2>%1</h2>").arg(QObject::tr("Headline outputs"));
  std::vector<OutputComparison> outputs;
  try {
    outputs = compare_outputs(headline_outputs(a), headline_outputs(b));
  } catch (const std::exception& e) {
    return html +
           QStringLiteral("<p>%1</p>")
               .arg(reportEscape(
                   QObject::tr("The headline outputs cannot be computed: %1").arg(qs(e.what()))));
  }
  int wins_a = 0, wins_b = 0;
  QString rows;
  for (const OutputComparison& c : outputs) {
    QString better = QStringLiteral("<span class='muted'>—</span>");
    switch (c.better) {
      case Winner::a:
        ++wins_a;
        better = QStringLiteral("<span class='ok'>&nbsp;A&nbsp;</span>");
        break;
      case Winner::b:
        ++wins_b;
        better = QStringLiteral("<span class='ok'>&nbsp;B&nbsp;</span>");
        break;
      case Winner::same: better = QObject::tr("same"); break;
      case Winner::none: break;
    }
    const QString delta = c.delta ? reportEscape(qs(format_delta(*c.delta, c.unit))) : QString();
    rows += QStringLiteral(
                "<tr><td>%1</td><td class='num'>%2</td><td class='num'><b>%3</b></td>"
                "<td class='num'>%4</td><td>%5</td></tr>")
                .arg(reportEscape(qs(c.name)), reportEscape(value(c.a, c.a_display, c.unit)),
                     reportEscape(value(c.b, c.b_display, c.unit)), delta, better);
  }
  html += QStringLiteral("<p>%1</p>")
              .arg(QObject::tr("Plan A is better on %1 and plan B on %2 of %3 headline outputs.")
                       .arg(wins_a)
                       .arg(wins_b)
                       .arg(outputs.size()));
  html += QStringLiteral("<table><tr><th>%1</th><th>%2</th><th>%3</th><th>%4</th><th>%5</th></tr>")
              .arg(QObject::tr("Output"), QObject::tr("Plan A"), QObject::tr("Plan B"),
                   QObject::tr("Δ (B − A)"), QObject::tr("Better")) +
          rows + QStringLiteral("</table>");
  return html;
}

}  // namespace napkin
