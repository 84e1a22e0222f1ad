#include "MfuHeatmapPlot.h"

#include <algorithm>
#include <set>

#include "format.h"

namespace napkin {

namespace {
constexpr double kCellHalf = 0.48;

// White-to-blue by MFU between the map's lowest and highest.
QColor heat(double t) {
  t = std::clamp(t, 0.0, 1.0);
  const QColor lo(222, 235, 247), hi(8, 69, 148);
  auto mix = [t](int a, int b) { return static_cast<int>(a + (b - a) * t); };
  return QColor(mix(lo.red(), hi.red()), mix(lo.green(), hi.green()), mix(lo.blue(), hi.blue()));
}

std::vector<std::int64_t> sorted(const std::set<std::int64_t>& s) { return {s.begin(), s.end()}; }

int indexOf(const std::vector<std::int64_t>& v, std::int64_t x) {
  const auto it = std::find(v.begin(), v.end(), x);
  return it == v.end() ? -1 : static_cast<int>(it - v.begin());
}
}  // namespace

MfuHeatmapPlot::MfuHeatmapPlot(QWidget* parent)
    : ParallelPlot(tr("Best MFU by TP and PP"), parent) {
  setXAxis(tr("tensor-parallel ranks (TP)"), false);
  setYAxis(tr("pipeline stages (PP)"), false);
  xAxis->grid()->setVisible(false);
  yAxis->grid()->setVisible(false);
  centers_ = addCurve(this, tr("cells"), QPen(Qt::NoPen), QCPScatterStyle(), false);
  centers_->removeFromLegend();
  setHoverFormat(
      [this](double x) {
        const auto i = static_cast<std::size_t>(std::max(0L, std::lround(x)));
        return i < tps_.size() ? QStringLiteral("TP %1").arg(tps_[i]) : QString();
      },
      [this](double y) {
        const auto i = static_cast<std::size_t>(std::max(0L, std::lround(y)));
        return i < pps_.size() ? QStringLiteral("PP %1").arg(pps_[i]) : QString();
      });
  chosen_ = new QCPItemRect(this);
  chosen_->setPen(plotPen(plot_color::orange, 2.5));
  chosen_->setBrush(Qt::NoBrush);
  baseline_ = new QCPItemRect(this);
  baseline_->setPen(ghostPen(plotPen(plot_color::orange, 2.5)));
  baseline_->setBrush(Qt::NoBrush);
  baseline_->setVisible(false);
  note_ = new Note(this, Qt::AlignLeft | Qt::AlignTop, 0.02, 0.03);
  note_->setVisible(false);
}

MfuHeatmapPlot::Cell MfuHeatmapPlot::cell(int i) {
  while (static_cast<int>(pool_.size()) <= i) {
    auto* r = new QCPItemRect(this);
    r->setPen(QPen(Qt::white, 1));
    r->setClipToAxisRect(true);
    auto* t = new QCPItemText(this);
    t->setFont(PlotFonts::small(font()));
    t->setClipToAxisRect(true);
    pool_.push_back({r, t});
  }
  return pool_[static_cast<std::size_t>(i)];
}

void MfuHeatmapPlot::outline(QCPItemRect* item, const std::optional<LayoutResult>& layout) {
  const int x = layout ? indexOf(tps_, layout->layout.tp) : -1;
  const int y = layout ? indexOf(pps_, layout->layout.pp) : -1;
  item->setVisible(x >= 0 && y >= 0);
  item->topLeft->setCoords(x - kCellHalf, y + kCellHalf);
  item->bottomRight->setCoords(x + kCellHalf, y - kCellHalf);
}

void MfuHeatmapPlot::drawView(const ParallelView& v) {
  std::vector<double> key;
  for (const MfuCell& c : v.mfu_grid)
    key.insert(key.end(),
               {static_cast<double>(c.tp), static_cast<double>(c.pp), c.mfu, c.fits ? 1.0 : 0.0});
  if (!inputsChanged(key, v.layout ? v.layout->layout.tp : 0, v.layout ? v.layout->layout.pp : 0))
    return;
  cells_ = v.mfu_grid;
  std::set<std::int64_t> tps, pps;
  double lo = 1, hi = 0;
  for (const MfuCell& c : cells_) {
    tps.insert(c.tp);
    pps.insert(c.pp);
    if (c.fits) lo = std::min(lo, c.mfu), hi = std::max(hi, c.mfu);
  }
  tps_ = sorted(tps);
  pps_ = sorted(pps);
  std::vector<double> cx, cy;
  const bool labels = cells_.size() <= 80;
  for (std::size_t i = 0; i < cells_.size(); ++i) {
    const MfuCell& c = cells_[i];
    const double x = indexOf(tps_, c.tp), y = indexOf(pps_, c.pp);
    const Cell item = cell(static_cast<int>(i));
    item.rect->topLeft->setCoords(x - 0.5, y + 0.5);
    item.rect->bottomRight->setCoords(x + 0.5, y - 0.5);
    const double t = hi > lo ? (c.mfu - lo) / (hi - lo) : 1.0;
    item.rect->setBrush(c.fits ? heat(t) : QColor(225, 225, 225));
    item.rect->setVisible(true);
    item.text->position->setCoords(x, y);
    item.text->setText(c.fits ? QString::number(c.mfu * 100, 'f', 0) : QStringLiteral("\u2717"));
    item.text->setColor(c.fits ? (t > 0.55 ? Qt::white : Qt::black) : plot_color::fail);
    item.text->setVisible(labels);
    cx.push_back(x);
    cy.push_back(y);
  }
  for (std::size_t i = cells_.size(); i < pool_.size(); ++i) {
    pool_[i].rect->setVisible(false);
    pool_[i].text->setVisible(false);
  }
  setCurve(centers_, cx, cy);
  auto xt = QSharedPointer<QCPAxisTickerText>::create();
  for (std::size_t i = 0; i < tps_.size(); ++i)
    xt->addTick(static_cast<double>(i), QString::number(tps_[i]));
  auto yt = QSharedPointer<QCPAxisTickerText>::create();
  for (std::size_t i = 0; i < pps_.size(); ++i)
    yt->addTick(static_cast<double>(i), QString::number(pps_[i]));
  xAxis->setTicker(xt);
  yAxis->setTicker(yt);
  xAxis->setRange(-0.5, std::max<double>(static_cast<double>(tps_.size()) - 0.5, 0.5));
  yAxis->setRange(-0.5, std::max<double>(static_cast<double>(pps_.size()) - 0.5, 0.5));
  outline(chosen_, v.layout);
  note_->setVisible(cells_.empty());
  note_->setText(tr("no layout to map"));
  xAxis->setLabel(labels ? tr("TP (cells: best MFU %, \u2717 = nothing fits)")
                         : tr("tensor-parallel ranks (TP)"));
  requestReplot();
}

void MfuHeatmapPlot::drawBaseline(const ParallelView* b) {
  if (!b) {
    baseline_->setVisible(false);
  } else {
    outline(baseline_, b->layout);
  }
  requestReplot();
}

}  // namespace napkin
