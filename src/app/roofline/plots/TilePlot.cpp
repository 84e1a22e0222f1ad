#include "TilePlot.h"

#include <algorithm>

#include "format.h"

namespace napkin {

TilePlot::TilePlot(QWidget* parent)
    : RooflinePanelPlot(tr("Tile efficiency vs dimension"), parent) {
  setObjectName(QStringLiteral("plot_tile"));
  setXAxis(tr("matmul dimension (elements)"), false, fmtSi);
  setYAxis(tr("useful fraction of the padded tile"), false, fmtPercent);
  efficiency_ = addCurve(this, tr("efficiency"), plotPen(plot_color::blue, 1.4));
  worst_ =
      addCurve(this, tr("tile + 1"), QPen(Qt::NoPen),
               QCPScatterStyle(QCPScatterStyle::ssCircle, plot_color::red, Qt::white, 7), false);
  yAxis->setRange(0, 1.08);
  note_ = new Note(this, Qt::AlignRight | Qt::AlignBottom, 0.98, 0.97);
  showLegendBelow(2);
}

void TilePlot::drawView(const RooflineView& v) {
  const RooflineScenario& sc = v.inputs;
  std::vector<double> x, y;
  for (const TilePoint& t : v.data.tiles) {
    x.push_back(static_cast<double>(t.dim));
    y.push_back(t.efficiency);
  }
  if (!inputsChanged(sc.tile, y) || v.data.tiles.empty()) return;
  setCurve(efficiency_, x, y);
  efficiency_->setName(tr("tile %1").arg(sc.tile));
  const std::int64_t worst = sc.tile + 1;
  const double worst_eff = tile_efficiency(worst, sc.tile);
  if (worst >= sc.tile_dim_lo && worst <= sc.tile_dim_hi) {
    setCurve(worst_, {static_cast<double>(worst)}, {worst_eff});
    worst_->setName(tr("%1 \u2192 %2").arg(worst).arg(qs(format_percent(worst_eff))));
  } else {
    worst_->data()->clear();
  }
  xAxis->setRange(static_cast<double>(sc.tile_dim_lo) - 8, static_cast<double>(sc.tile_dim_hi) + 8);
  note_->setText(tr("%1 pads to %2: %3 of the work is real\na dimension should be a multiple of %4")
                     .arg(worst)
                     .arg(2 * sc.tile)
                     .arg(qs(format_percent(worst_eff)))
                     .arg(sc.tile));
  requestReplot();
}

void TilePlot::drawBaseline(const RooflineView* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  std::vector<double> x, y;
  for (const TilePoint& t : b->data.tiles) {
    x.push_back(static_cast<double>(t.dim));
    y.push_back(t.efficiency);
  }
  setCurve(ghost(efficiency_), x, y);
  requestReplot();
}

}  // namespace napkin
