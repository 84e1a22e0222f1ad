#include "roofline/RooflineTexts.h"

#include <QCoreApplication>
#include <QHeaderView>
#include <QScrollBar>
#include <QTableWidget>

#include "PlotStyle.h"
#include "PlotWidget.h"
#include "Text.h"
#include "format.h"
#include "roofline/RooflineFormat.h"
#include "roofline_view.h"

namespace napkin {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("napkin::RooflineTexts", text); }
constexpr int kColumns = 7;

QString action(MfuLever l) {
  switch (l) {
    case MfuLever::vector: return tr("fuse norms and activations into the matmul epilogues");
    case MfuLever::memory: return tr("fuse kernels, keep activations on chip, cut bytes");
    case MfuLever::comms: return tr("overlap collectives with compute, reshard");
    case MfuLever::optimizer: return tr("a fused or sharded optimizer step");
    case MfuLever::none: break;
  }
  return QString();
}

struct Dim {
  const char* name;
  std::int64_t dim;
};
std::vector<Dim> dims(const ModelShape& m) {
  return {{"d_model", m.d_model},
          {"d_ff", m.is_moe() ? m.effective_expert_d_ff() : m.d_ff},
          {"d_head", m.d_head},
          {"vocab", m.vocab}};
}
}  // namespace

QTableWidget* makeOperationsTable(QWidget* parent) {
  auto* t = new QTableWidget(5, kColumns, parent);
  t->setObjectName(QStringLiteral("operations"));
  t->setHorizontalHeaderLabels({tr("Operation"), tr("FLOPs"), tr("Bytes"), tr("Intensity"),
                                tr("Attainable"), tr("of peak"), tr("Verdict: lever")});
  t->verticalHeader()->setVisible(false);
  t->setEditTriggers(QAbstractItemView::NoEditTriggers);
  t->setSelectionMode(QAbstractItemView::ContiguousSelection);
  t->setFocusPolicy(Qt::NoFocus);
  t->horizontalHeader()->setStretchLastSection(true);
  QFont f = t->font();
  f.setPointSizeF(f.pointSizeF() * 0.92);
  t->setFont(f);
  const int rh = QFontMetrics(f).height() + 4;
  t->verticalHeader()->setDefaultSectionSize(rh);
  t->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  const int widths[] = {140, 72, 72, 96, 100, 58};
  for (int c = 0; c < 6; ++c) t->setColumnWidth(c, widths[c]);
  for (int r = 0; r < 5; ++r)
    for (int c = 0; c < kColumns; ++c) {
      auto* item = new QTableWidgetItem;
      item->setTextAlignment(c == 0 || c == 6 ? Qt::AlignLeft | Qt::AlignVCenter
                                              : Qt::AlignRight | Qt::AlignVCenter);
      t->setItem(r, c, item);
    }
  t->setFixedHeight(t->horizontalHeader()->sizeHint().height() + 5 * rh + 4 +
                    t->horizontalScrollBar()->sizeHint().height());
  t->setToolTip(
      tr("The placed operations on the chosen chip: intensity = FLOPs ÷ bytes; "
         "attainable = min(peak, bandwidth × intensity)."));
  return t;
}

void fillOperationsTable(QTableWidget* table, const RooflineView& v) {
  const std::vector<PlacedOperation>& ops = v.data.operations;
  for (int r = 0; r < table->rowCount(); ++r) {
    const PlacedOperation* op =
        r < static_cast<int>(ops.size()) ? &ops[static_cast<std::size_t>(r)] : nullptr;
    const QString cells[kColumns] = {
        op ? operationTitle(*op, v.inputs.operations, v.inputs.shape) : QString(),
        op ? fmtSci(op->flops) : QString(),
        op ? fmtBytes(op->bytes) : QString(),
        op ? intensityText(op->intensity) : QString(),
        op ? fmtSi(op->attainable_flops_per_s) + QStringLiteral(" FLOP/s") : QString(),
        op ? qs(format_percent(op->fraction_of_peak)) : QString(),
        op ? boundText(op->bound) + QStringLiteral(": ") + qs(lever(op->bound)) : QString()};
    for (int c = 0; c < kColumns; ++c) {
      QTableWidgetItem* item = table->item(r, c);
      if (item->text() != cells[c]) item->setText(cells[c]);
      if (c == 6 && op)
        item->setForeground(op->bound == Bound::memory ? plot_color::red
                                                       : plot_color::green.darker(130));
    }
  }
}

ReportTable operationsReport(const RooflineView& v) {
  ReportTable t{tr("Operations on %1").arg(qs(v.scenario.chip)), {}, false};
  for (const PlacedOperation& op : v.data.operations)
    t.rows.push_back({operationTitle(op, v.inputs.operations, v.inputs.shape),
                      intensityText(op.intensity), QString(),
                      tr("%1 of peak, %2: %3")
                          .arg(qs(format_percent(op.fraction_of_peak)), boundText(op.bound),
                               qs(lever(op.bound))),
                      op.bound == Bound::memory ? Tone::warn : Tone::normal});
  return t;
}

QString agendaHtml(const RooflineView& v) {
  const MfuBudget& m = v.data.mfu_budget;
  QString html = tr("<p style='margin:0'><b>MFU %1 is an identity, not a grade.</b> The rest of "
                    "the step is the agenda:</p><ol style='margin:2px 0 0 -20px'>")
                     .arg(qs(format_percent(m.mfu)));
  for (const MfuAgendaItem& item : v.data.mfu_agenda)
    html += QStringLiteral("<li><b>%1</b> %2: %3</li>")
                .arg(qs(to_string(item.lever)), qs(format_percent(item.fraction)),
                     action(item.lever).toHtmlEscaped());
  html += QStringLiteral("</ol>");
  html += tr("<p style='margin:2px 0 0 0'>Removing the biggest lever lifts MFU to <b>%1</b>. "
             "HFU counts recompute (× %2) as useful work and is always ≥ MFU: ask which one a "
             "number is.</p>")
              .arg(qs(format_percent(v.data.mfu_without_lever.mfu)))
              .arg(v.data.hfu_over_mfu, 0, 'f', 2);
  return html;
}

ReportTable agendaReport(const RooflineView& v) {
  ReportTable t{tr("MFU agenda"), {}, false};
  t.rows.push_back({tr("MFU"), qs(format_percent(v.data.mfu_budget.mfu)), QString(),
                    tr("matmul share of the step"), Tone::normal});
  for (const MfuAgendaItem& item : v.data.mfu_agenda)
    t.rows.push_back({qs(to_string(item.lever)), qs(format_percent(item.fraction)), QString(),
                      action(item.lever), Tone::normal});
  t.rows.push_back({tr("MFU without the biggest lever"),
                    qs(format_percent(v.data.mfu_without_lever.mfu)), QString(), QString(),
                    Tone::normal});
  return t;
}

QString dimensionsHtml(const RooflineView& v) {
  const std::int64_t tile = v.inputs.tile;
  QString html = tr("<b>This model's matmul dimensions</b> on a %1-wide tile:<br>").arg(tile);
  for (const Dim& d : dims(v.inputs.shape)) {
    const double e = tile_efficiency(d.dim, tile);
    html += QStringLiteral("%1 %2: <b style='color:%3'>%4</b><br>")
                .arg(QLatin1String(d.name), qs(format_grouped(d.dim)),
                     e >= 0.999 ? QStringLiteral("#1b5e20") : QStringLiteral("#b71c1c"),
                     qs(format_percent(e)));
  }
  html += tr("<br>KV heads are computed for this model on one 8-chip %1 node at %2 KV cache, "
             "depth vs width on the scenario's %3 chips.")
              .arg(qs(v.scenario.chip).toHtmlEscaped(), dtypeText(v.scenario.serving.kv_dtype),
                   qs(format_grouped(v.inputs.turn.n_chips)));
  return html;
}

ReportTable dimensionsReport(const RooflineView& v) {
  ReportTable t{
      tr("Tile efficiency of the model's dimensions (tile %1)").arg(v.inputs.tile), {}, false};
  for (const Dim& d : dims(v.inputs.shape)) {
    const double e = tile_efficiency(d.dim, v.inputs.tile);
    t.rows.push_back({QLatin1String(d.name), qs(format_percent(e)), QString(),
                      qs(format_grouped(d.dim)), e >= 0.999 ? Tone::ok : Tone::warn});
  }
  return t;
}

}  // namespace napkin
