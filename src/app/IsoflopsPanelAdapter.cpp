// IsoflopsPanel as a Panel, until it migrates onto the kit (its own folder,
// ReadoutGrid, ControlColumn, one class per plot).
#include "IsoflopsPanel.h"
#include "LegacyReadouts.h"

namespace napkin {

QString IsoflopsPanel::panelKey() const { return QStringLiteral("isoflops"); }
QString IsoflopsPanel::title() const { return tr("IsoFLOPs & scaling laws"); }

ReportSection IsoflopsPanel::reportSection() const {
  ReportSection s;
  s.title = title();
  s.summary =
      tr("Ladders, parabola vertices, power laws, the parametric fit and the bootstrap "
         "forecast.");
  s.tables.push_back({tr("Key numbers"), legacyReadoutRows(this)});
  s.formulas = {
      {QStringLiteral("L = E + A/N^α + B/D^β"), tr("the parametric loss law")},
      {QStringLiteral("log L̂ = LSE(a − α log N, b − β log D, e)"), tr("fitted on log loss")},
      {QStringLiteral("N_opt ∝ C^a, D_opt ∝ C^b, a + b = 1"), tr("IsoFLOPs power laws")}};
  s.charts = plots();
  s.charts_per_row = 1;  // labelled points and notes need the width
  return s;
}

}  // namespace napkin
