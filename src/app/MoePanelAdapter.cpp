// MoePanel as a Panel, until it migrates onto the kit (its own folder,
// ReadoutGrid, ControlColumn, one class per plot).
#include "LegacyReadouts.h"
#include "MoePanel.h"

namespace napkin {

QString MoePanel::panelKey() const { return QStringLiteral("moe"); }
QString MoePanel::title() const { return tr("MoE router"); }

ReportSection MoePanel::reportSection() const {
  ReportSection s;
  s.title = title();
  s.summary = tr("Top-k routing, load-balance and z-losses, capacity drops and router collapse.");
  s.tables.push_back({tr("Key numbers"), legacyReadoutRows(this)});
  s.formulas = {{QStringLiteral("L_balance = E·Σ fᵢPᵢ"), tr("fᵢ over token-slots")},
                {QStringLiteral("capacity = cf × tokens × k / E"), tr("slots per expert")},
                {QStringLiteral("utilization = M / (M + S − 1)"), tr("pipelined prefill")}};
  s.charts = plots();
  s.charts_per_row = 1;  // labelled points and notes need the width
  return s;
}

}  // namespace napkin
