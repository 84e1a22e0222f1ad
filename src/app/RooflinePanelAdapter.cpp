// RooflinePanel as a Panel, until it migrates onto the kit (its own folder,
// ReadoutGrid, ControlColumn, one class per plot).
#include "LegacyReadouts.h"
#include "RooflinePanel.h"

namespace napkin {

QString RooflinePanel::panelKey() const { return QStringLiteral("roofline"); }
QString RooflinePanel::title() const { return tr("Roofline"); }

ReportSection RooflinePanel::reportSection() const {
  ReportSection s;
  s.title = title();
  s.summary =
      tr("Intensity vs ridge, the MFU budget, the latency napkin and the co-design "
         "levers.");
  s.tables.push_back({tr("Key numbers"), legacyReadoutRows(this)});
  s.formulas = {
      {QStringLiteral("attainable = min(peak, bandwidth × intensity)"), tr("the roofline")},
      {QStringLiteral("prefill = 2N·tokens / (chips × peak × MFU)"), tr("compute-bound")},
      {QStringLiteral("decode = (N·b + KV) × tokens / (chips × bandwidth)"), tr("memory-bound")}};
  s.charts = plots();
  s.charts_per_row = 1;  // labelled points and notes need the width
  return s;
}

}  // namespace napkin
