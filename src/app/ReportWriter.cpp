#include "ReportWriter.h"

#include <qcustomplot.h>
#include <QAbstractTextDocumentLayout>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QLabel>
#include <QLayout>
#include <QLocale>
#include <QPdfWriter>
#include <QSaveFile>
#include <QTextDocument>
#include <memory>
#include <vector>

#include "BudgetPanel.h"
#include "IsoflopsPanel.h"
#include "MainWindow.h"
#include "MoePanel.h"
#include "PlotWidget.h"
#include "RooflinePanel.h"
#include "budget_view.h"
#include "format.h"
#include "hardware.h"
#include "roofline.h"
#include "roofline_view.h"
#include "scaling.h"

namespace napkin {

QDateTime ReportOptions::defaultDate() {
  // SOURCE_DATE_EPOCH (reproducible-builds.org) pins the date for identical reports.
  bool ok = false;
  const qint64 epoch = qEnvironmentVariable("SOURCE_DATE_EPOCH").toLongLong(&ok);
  return ok ? QDateTime::fromSecsSinceEpoch(epoch, Qt::UTC) : QDateTime::currentDateTime();
}

QPageSize ReportOptions::defaultPageSize() {
  return QLocale().measurementSystem() == QLocale::ImperialUSSystem ? QPageSize(QPageSize::Letter)
                                                                    : QPageSize(QPageSize::A4);
}

namespace {

// Layout unit: 96 dpi, so charts and fonts come out at their on-screen proportions.
constexpr int kDpi = 96;
constexpr double kMargin = 56;  // ~15 mm
constexpr double kHeaderGap = 26;
constexpr double kChartHeight = 250;
constexpr double kWideChartHeight = 290;

QString q(const std::string& s) { return QString::fromStdString(s); }
QString esc(const QString& s) { return s.toHtmlEscaped(); }

const char* kCss =
    "body { font-family: 'DejaVu Sans'; font-size: 9pt; color: #202020; }"
    "h1 { font-size: 18pt; margin: 0 0 4px 0; } h2 { font-size: 13pt; margin: 10px 0 4px 0; color: "
    "#1f4e79; }"
    "h3 { font-size: 10pt; margin: 8px 0 2px 0; }"
    "table { border-collapse: collapse; } td, th { padding: 1px 6px; }"
    "th { text-align: left; background: #e8eef5; } .num { text-align: right; }"
    ".ok { background: #2e7d32; color: white; font-weight: bold; }"
    ".fail { background: #c62828; color: white; font-weight: bold; }"
    ".muted { color: #606060; } .formula { font-family: 'DejaVu Sans Mono'; font-size: 8.5pt; }";

struct Block {
  std::unique_ptr<QTextDocument> doc;  // text, or
  std::vector<PlotWidget*> charts;     // a row of charts
  bool page_break = false;
  double height = 0;
};

class Builder {
 public:
  explicit Builder(double width) : width_(width) {}

  void html(const QString& body) {
    Block b;
    b.doc = std::make_unique<QTextDocument>();
    b.doc->setDefaultStyleSheet(QString::fromLatin1(kCss));
    QFont f(QStringLiteral("DejaVu Sans"));
    f.setPointSizeF(9);
    b.doc->setDefaultFont(f);
    b.doc->setDocumentMargin(0);
    b.doc->setTextWidth(width_);
    b.doc->setHtml(QStringLiteral("<body>") + body + QStringLiteral("</body>"));
    b.height = b.doc->size().height() + 6;
    blocks_.push_back(std::move(b));
  }
  void charts(std::vector<PlotWidget*> row) {
    Block b;
    b.charts = std::move(row);
    b.height = (b.charts.size() == 1 ? kWideChartHeight : kChartHeight) + 8;
    blocks_.push_back(std::move(b));
  }
  void pageBreak() {
    Block b;
    b.page_break = true;
    blocks_.push_back(std::move(b));
  }
  std::vector<Block>& blocks() { return blocks_; }

 private:
  double width_;
  std::vector<Block> blocks_;
};

QString row(const QString& k, const QString& v) {
  return QStringLiteral("<tr><td>%1</td><td class='num'><b>%2</b></td></tr>").arg(esc(k), esc(v));
}

QString inputsTable(const Scenario& s) {
  const Chip& chip = chip_by_name(s.chip);
  const ModelShape& m = s.shape;
  auto section = [](const QString& title, const QString& rows) {
    return QStringLiteral(
               "<td valign='top' width='33%'><table width='100%'><tr><th "
               "colspan='2'>%1</th></tr>%2</table></td>")
        .arg(title, rows);
  };
  const QString hw =
      row(QObject::tr("Chip"), q(s.chip)) +
      row(QObject::tr("Chips"), q(format_grouped(static_cast<double>(s.n_chips)))) +
      row(QObject::tr("Peak bf16"),
          q(format_grouped(chip.peak_flops_per_s / 1e12, 0)) + QStringLiteral(" TFLOP/s")) +
      row(QObject::tr("HBM / chip"), q(format_bytes(static_cast<double>(chip.hbm_bytes), 0))) +
      row(QObject::tr("HBM bandwidth"),
          q(format_grouped(chip.hbm_bytes_per_s / 1e12, 2)) + QStringLiteral(" TB/s")) +
      row(QObject::tr("Power / chip"), q(format_grouped(chip.watts, 0)) + QStringLiteral(" W"));
  const QString budget =
      row(QObject::tr("Days"), q(format_grouped(s.days, 1))) +
      row(QObject::tr("MFU"), q(format_percent(s.mfu, 0))) +
      row(QObject::tr("Price"),
          q(format_dollars(s.price_per_chip_hour_dollars, 2)) + QStringLiteral(" / chip-hour")) +
      row(QObject::tr("Energy price"),
          q(format_dollars(s.kwh_price_dollars, 3)) + QStringLiteral(" / kWh")) +
      row(QObject::tr("PUE"), q(format_grouped(s.pue, 2))) +
      row(QObject::tr("Tokens / parameter"), q(format_grouped(s.tokens_per_param, 1))) +
      row(QObject::tr("Unique tokens"), q(format_count(s.tokens_available, 1)));
  const QString model =
      row(QObject::tr("Model"), q(s.model_name)) +
      row(QObject::tr("Layers"), QString::number(m.n_layers)) +
      row(QObject::tr("d_model / d_ff"), QStringLiteral("%1 / %2").arg(m.d_model).arg(m.d_ff)) +
      row(QObject::tr("Heads / KV heads"),
          QStringLiteral("%1 / %2").arg(m.n_heads).arg(m.n_kv_heads)) +
      row(QObject::tr("Head dim"), QString::number(m.d_head)) +
      row(QObject::tr("Vocabulary"), QString::number(m.vocab)) +
      row(QObject::tr("MLP / embeddings"),
          QStringLiteral("%1, %2").arg(
              m.gated ? QObject::tr("gated") : QObject::tr("ungated"),
              m.tied_embeddings ? QObject::tr("tied") : QObject::tr("untied"))) +
      row(QObject::tr("Experts"), m.is_moe() ? QStringLiteral("%1, top-%2, %3 shared")
                                                   .arg(m.n_experts)
                                                   .arg(m.top_k)
                                                   .arg(m.shared_experts)
                                             : QObject::tr("dense"));
  const TrainingSetup& t = s.training;
  const QString training =
      row(QObject::tr("Optimizer"), q(std::string(to_string(t.optimizer)))) +
      row(QObject::tr("Precision"), q(std::string(to_string(t.precision)))) +
      row(QObject::tr("ZeRO / DP"), QStringLiteral("%1 / %2").arg(t.zero_stage).arg(t.dp_degree)) +
      row(QObject::tr("Checkpointing"), q(std::string(to_string(t.checkpointing)))) +
      row(QObject::tr("Micro-batch × seq"),
          QStringLiteral("%1 × %2").arg(t.micro_batch).arg(t.seq_len));
  const ServingSetup& v = s.serving;
  const QString serving =
      row(QObject::tr("Context"),
          q(format_grouped(static_cast<double>(v.context_len))) + QObject::tr(" tokens")) +
      row(QObject::tr("Served tokens"), q(format_count(v.served_tokens, 1))) +
      row(QObject::tr("Decode batch"), QString::number(v.batch)) +
      row(QObject::tr("Prompt / decode"),
          QStringLiteral("%1 / %2 tokens").arg(v.prompt_tokens).arg(v.decode_tokens)) +
      row(QObject::tr("Latency budget"), q(format_seconds(v.latency_budget_seconds))) +
      row(QObject::tr("Overhead"), q(format_seconds(v.overhead_seconds))) +
      row(QObject::tr("Bytes / parameter"), q(format_grouped(v.bytes_per_param, 2)));
  return QStringLiteral("<table width='100%' cellspacing='4'><tr>") +
         section(QObject::tr("Hardware"), hw) + section(QObject::tr("Budget"), budget) +
         section(QObject::tr("Model"), model) + QStringLiteral("</tr><tr>") +
         section(QObject::tr("Training set-up"), training) +
         section(QObject::tr("Serving targets"), serving) +
         QStringLiteral("<td></td></tr></table>");
}

QString checksTable(const BudgetReport& r) {
  QString out = QStringLiteral("<table cellspacing='2'>");
  for (const Check& c : r.checks)
    out += QStringLiteral("<tr><td class='%1'>&nbsp;%2&nbsp;</td><td><b>%3</b>: %4</td></tr>")
               .arg(c.ok ? QStringLiteral("ok") : QStringLiteral("fail"),
                    c.ok ? QStringLiteral("OK") : QStringLiteral("FAIL"), esc(q(c.name)),
                    esc(q(c.detail)));
  return out + QStringLiteral("</table>");
}

// Servability of a model of `n_params` under the scenario's serving targets,
// with the roofline napkin (seed Claim 14, Phase 03): the model's verdict.
QString servabilityText(const Scenario& s, double n_params, const QString& who) {
  const ServingNeed sv = servability(s, n_params);
  const QString hold =
      QObject::tr("%1 %2 to hold its weights").arg(sv.chips_to_hold_weights).arg(q(s.chip));
  if (sv.verdict == LatencyVerdict::below_overhead)
    return QObject::tr(
               "%1 (%2) needs %3; the %4 latency budget is below the %5 fixed overhead, so no "
               "amount of hardware meets it.")
        .arg(who, q(format_count(n_params)), hold,
             q(format_seconds(s.serving.latency_budget_seconds)),
             q(format_seconds(s.serving.overhead_seconds)));
  if (!sv.chips_for_budget)
    return QObject::tr(
               "%1 (%2) needs %3, and no slice of %4 meets the %5 turn (%6 prompt + %7 generated "
               "tokens).")
        .arg(who, q(format_count(n_params)), hold, q(s.chip),
             q(format_seconds(s.serving.latency_budget_seconds)))
        .arg(s.serving.prompt_tokens)
        .arg(s.serving.decode_tokens);
  return QObject::tr(
             "%1 (%2) needs %3 and %4 %5 to answer a turn of %6 prompt + %7 generated tokens "
             "within %8.")
      .arg(who, q(format_count(n_params)), hold)
      .arg(*sv.chips_for_budget)
      .arg(q(s.chip))
      .arg(s.serving.prompt_tokens)
      .arg(s.serving.decode_tokens)
      .arg(q(format_seconds(s.serving.latency_budget_seconds)));
}

// The label a read-out sits beside in its layout (grid: the cell to its left;
// form: its label; box: the widget before it). Works for hidden tab pages,
// which have layouts but no geometry yet.
QString nameBeside(QLayout* layout, QWidget* value) {
  if (!layout) return {};
  const int index = layout->indexOf(value);
  if (index >= 0) {
    QWidget* name = nullptr;
    if (auto* grid = qobject_cast<QGridLayout*>(layout)) {
      int row = 0, col = 0, rs = 0, cs = 0;
      grid->getItemPosition(index, &row, &col, &rs, &cs);
      if (col > 0)
        if (QLayoutItem* it = grid->itemAtPosition(row, col - 1)) name = it->widget();
    } else if (auto* form = qobject_cast<QFormLayout*>(layout)) {
      name = form->labelForField(value);
    } else if (index > 0) {
      name = layout->itemAt(index - 1)->widget();
    }
    if (auto* label = qobject_cast<QLabel*>(name)) {
      QString t = label->text().trimmed();
      if (t.endsWith(QLatin1Char(':'))) t.chop(1);
      return t;
    }
    return {};
  }
  for (int i = 0; i < layout->count(); ++i)
    if (QLayout* child = layout->itemAt(i)->layout()) {
      const QString n = nameBeside(child, value);
      if (!n.isEmpty()) return n;
    }
  return {};
}

// Every read-out of a panel as (name, value), in the panel's own order.
QList<QPair<QString, QString>> labelledReadouts(QWidget* panel) {
  QList<QPair<QString, QString>> out;
  for (QLabel* v : panel->findChildren<QLabel*>()) {
    if (!v->objectName().startsWith(QLatin1String("readout_"))) continue;
    QString name = v->parentWidget() ? nameBeside(v->parentWidget()->layout(), v) : QString();
    if (name.isEmpty()) name = v->accessibleName();
    if (name.isEmpty()) name = v->objectName().mid(8).replace(QLatin1Char('_'), QLatin1Char(' '));
    out.append({name, v->text()});
  }
  return out;
}

void panelSection(Builder& b, const QString& title, const QString& intro,
                  const QList<QPair<QString, QString>>& numbers, const QString& formulas,
                  const std::vector<PlotWidget*>& plots) {
  b.pageBreak();
  QString html = QStringLiteral("<h2>%1</h2><p class='muted'>%2</p>").arg(esc(title), intro);
  if (!numbers.isEmpty()) {
    // Two columns of (name, value) pairs.
    html += QStringLiteral("<h3>%1</h3><table width='100%'>").arg(QObject::tr("Key numbers"));
    const int half = static_cast<int>((numbers.size() + 1) / 2);
    for (int i = 0; i < half; ++i) {
      html += QStringLiteral("<tr><td>%1</td><td class='num'><b>%2</b></td>")
                  .arg(esc(numbers[i].first), esc(numbers[i].second));
      if (i + half < numbers.size())
        html += QStringLiteral("<td>&nbsp;&nbsp;%1</td><td class='num'><b>%2</b></td>")
                    .arg(esc(numbers[i + half].first), esc(numbers[i + half].second));
      html += QStringLiteral("</tr>");
    }
    html += QStringLiteral("</table>");
  }
  if (!formulas.isEmpty())
    html += QStringLiteral("<h3>%1</h3>").arg(QObject::tr("Formulas")) + formulas;
  b.html(html);
  // These panels' charts carry labelled points and notes: one chart a row,
  // at the width they were drawn for on screen.
  for (PlotWidget* p : plots) b.charts({p});
}

}  // namespace

ReportWriter::ReportWriter(MainWindow* window, ReportOptions options)
    : window_(window), options_(std::move(options)) {}

int ReportWriter::paint(QPagedPaintDevice* device) {
  device->setPageSize(options_.page_size);
  device->setPageMargins(QMarginsF(0, 0, 0, 0));
  const Scenario& s = window_->model()->scenario();
  const BudgetView view = make_budget_view(s);
  const BudgetReport& r = view.report;
  const InferenceAwarePlan& p = r.plan;

  // Paper is white whatever the screen's palette: draw the charts light, then restore them.
  QPalette paper;
  paper.setColor(QPalette::Base, Qt::white);
  paper.setColor(QPalette::WindowText, QColor(20, 20, 20));
  std::vector<PlotWidget*> all_plots = window_->budgetPanel()->plots();
  struct Restore {
    std::vector<PlotWidget*>& plots;
    ~Restore() {
      for (PlotWidget* plot : plots) plot->applyPalette(plot->palette());
    }
  };
  if (IsoflopsPanel::isBuilt())
    for (PlotWidget* plot : window_->isoflopsPanel()->plots()) all_plots.push_back(plot);
  if (MoePanel::isBuilt())
    for (PlotWidget* plot : window_->moePanel()->plots()) all_plots.push_back(plot);
  if (RooflinePanel::isBuilt())
    for (PlotWidget* plot : window_->rooflinePanel()->plots()) all_plots.push_back(plot);
  Restore restore{all_plots};
  for (PlotWidget* plot : all_plots) plot->applyPalette(paper);

  QCPPainter painter;
  if (!painter.begin(device)) return 0;
  painter.setMode(QCPPainter::pmVectorized);
  painter.setMode(QCPPainter::pmNoCaching);
  painter.setMode(QCPPainter::pmNonCosmetic);
  // The device works at 96 dpi (see writePdf and MainWindow::printReport):
  // fonts in points, charts and text documents then keep their on-screen
  // proportions, and PDF coordinates stay floating point, so nothing is lost.
  const double page_w = device->width(), page_h = device->height();
  const double width = page_w - 2 * kMargin;
  Builder b(width);

  const QString title =
      QObject::tr("%1 on %2 × %3 for %4 days")
          .arg(q(s.model_name), q(format_grouped(static_cast<double>(s.n_chips))), q(s.chip),
               q(format_grouped(s.days, s.days == std::floor(s.days) ? 0 : 1)));
  const QString date =
      QLocale::c().toString(options_.generated, QStringLiteral("yyyy-MM-dd HH:mm"));
  const QString file = window_->model()->filePath().isEmpty()
                           ? QObject::tr("unsaved scenario")
                           : QFileInfo(window_->model()->filePath()).fileName();

  // ---- cover
  b.html(QStringLiteral("<h1>Napkin report</h1><p style='font-size:12pt'>%1</p><p class='muted'>%2 "
                        "· %3 · Napkin %4</p>")
             .arg(esc(title), date, esc(file), esc(QCoreApplication::applicationVersion())));
  b.html(QStringLiteral(
             "<h2>%1</h2><p><b>C = %2 FLOPs</b> → Chinchilla-optimal <b>N = %3</b> parameters on "
             "<b>D = %4</b> tokens (%5 tokens per parameter), %6 days at %7 MFU; %8 rental, %9 MWh "
             "at the wall.</p><p>%10</p>")
             .arg(QObject::tr("Headline"), q(format_sci(r.flops)), q(format_count(r.split.params)),
                  q(format_count(r.split.tokens, 2)), q(format_grouped(s.tokens_per_param, 0)),
                  q(format_grouped(r.days, 1)), q(format_percent(s.mfu, 0)),
                  q(format_dollars(r.cost.rental_dollars)),
                  q(format_grouped(r.cost.energy_kwh / 1000, 1)), esc(q(r.recommendation))));
  b.html(QStringLiteral("<h2>%1</h2>").arg(QObject::tr("Scenario inputs")) + inputsTable(s));

  // ---- Budget planner
  {
    BudgetPanel* bp = window_->budgetPanel();
    QStringList keys = {
        QStringLiteral("flops"),   QStringLiteral("params"), QStringLiteral("tokens"),
        QStringLiteral("days"),    QStringLiteral("states"), QStringLiteral("model"),
        QStringLiteral("memory"),  QStringLiteral("rental"), QStringLiteral("energy"),
        QStringLiteral("per1e21"), QStringLiteral("kv"),     QStringLiteral("attention")};
    const QStringList names = {QObject::tr("Compute C"),
                               QObject::tr("Chinchilla N"),
                               QObject::tr("Chinchilla D"),
                               QObject::tr("Days at MFU"),
                               QObject::tr("Model states (Adam, unsharded)"),
                               QObject::tr("Scenario model parameters"),
                               QObject::tr("Training memory per device"),
                               QObject::tr("Rental"),
                               QObject::tr("Energy at the wall"),
                               QObject::tr("$ per 1e21 FLOPs"),
                               QObject::tr("KV cache per request"),
                               QObject::tr("Attention share of FLOPs")};
    QString numbers = QStringLiteral("<table>");
    for (int i = 0; i < keys.size(); ++i) numbers += row(names[i], bp->readout(keys[i])->text());
    numbers += QStringLiteral("</table>");
    const QString formulas = QStringLiteral(
        "<table class='formula'>"
        "<tr><td>C = chips × peak FLOP/s × MFU × days × 86,400 s</td><td class='muted'>budget → "
        "FLOPs</td></tr>"
        "<tr><td>C = 6ND; N = √(C / 6r), D = r·N</td><td class='muted'>Chinchilla split, r "
        "tokens/parameter</td></tr>"
        "<tr><td>FLOPs/step = 18BTDF + 24BTDNH (+ 12·B·H·T²·d_h per layer)</td><td "
        "class='muted'>exact count, full-matrix mask</td></tr>"
        "<tr><td>memory = 2N + 2N + 12N (+ B·T·d·L·16·2)</td><td class='muted'>bf16 weights, "
        "grads, fp32 Adam; activations</td></tr>"
        "<tr><td>KV bytes = 2·L·n_kv·d_h·T·B·2</td><td class='muted'>per request at bf16</td></tr>"
        "<tr><td>lifetime = 6N·D_train + 2N·D_served</td><td class='muted'>training + serving "
        "FLOPs</td></tr>"
        "<tr><td>L(N, D) = E + A/N^α + B/D^β</td><td class='muted'>Besiroglu et al. 2024 "
        "constants</td></tr></table>");
    b.pageBreak();
    b.html(QStringLiteral("<h2>1. Budget planner</h2><p class='muted'>%1</p><table "
                          "width='100%'><tr><td valign='top'><h3>%2</h3>%3</td>"
                          "<td valign='top'><h3>%4</h3>%5</td></tr></table><h3>%6</h3>%7")
               .arg(QObject::tr("Chips × days × MFU → FLOPs → (N, D) → memory → serving → dollars "
                                "and joules (seed Phase 00)."),
                    QObject::tr("Key numbers"), numbers, QObject::tr("Sanity checks"),
                    checksTable(r), QObject::tr("Formulas"), formulas));
    const auto plots = bp->plots();
    for (std::size_t i = 0; i < plots.size(); i += 2) {
      std::vector<PlotWidget*> pair{plots[i]};
      if (i + 1 < plots.size()) pair.push_back(plots[i + 1]);
      b.charts(pair);
    }
  }
  // ---- the other panels, when built
  if (IsoflopsPanel::isBuilt())
    panelSection(
        b, QObject::tr("2. IsoFLOPs & scaling laws"),
        QObject::tr("Ladders, parabola vertices, power laws, the parametric fit and the bootstrap "
                    "forecast (seed Phase 01)."),
        labelledReadouts(window_->isoflopsPanel()),
        QStringLiteral(
            "<p class='formula'>L = E + A/N^α + B/D^β; log L̂ = LSE(a − α log N, b − β log D, e); "
            "N_opt ∝ C^a, D_opt ∝ C^b, a + b = 1</p>"),
        window_->isoflopsPanel()->plots());
  if (MoePanel::isBuilt())
    panelSection(b, QObject::tr("3. MoE router"),
                 QObject::tr("Top-k routing, load-balance and z-losses, capacity drops, router "
                             "collapse (seed Phase 02)."),
                 labelledReadouts(window_->moePanel()),
                 QStringLiteral("<p class='formula'>L_balance = E·Σ fᵢPᵢ (fᵢ over token-slots); "
                                "capacity = cf × tokens × k / E; "
                                "utilization = M / (M + S − 1)</p>"),
                 window_->moePanel()->plots());
  if (RooflinePanel::isBuilt())
    panelSection(
        b, QObject::tr("4. Roofline"),
        QObject::tr("Intensity vs ridge, the MFU budget, the latency napkin and the co-design "
                    "levers (seed Phase 03)."),
        labelledReadouts(window_->rooflinePanel()),
        QStringLiteral(
            "<p class='formula'>attainable = min(peak, bandwidth × intensity); prefill = 2N·tokens "
            "/ "
            "(chips × peak × MFU); decode = (N·b + KV) × tokens / (chips × bandwidth)</p>"),
        window_->rooflinePanel()->plots());

  // ---- recommendation memo
  {
    QString memo = QStringLiteral("<h2>%1</h2>").arg(QObject::tr("Recommendation"));
    memo += QStringLiteral("<h3>%1</h3><p>%2</p>")
                .arg(QObject::tr("What to train"), esc(q(r.recommendation)));
    const double decades = extrapolation_decades(kChinchillaLadderMaxFlops, r.flops);
    QString forecast = QObject::tr(
                           "Under the replicated Chinchilla law (E %1, A %2, α %3, B %4, β %5) the "
                           "Chinchilla answer reaches %6 nats "
                           "per token. C = %7 FLOPs is %8 decades above the largest run of the "
                           "Chinchilla ladder (1.3e22 FLOPs), so the "
                           "forecast is an extrapolation; the IsoFLOPs section gives the fitted "
                           "law and its bootstrap interval.")
                           .arg(p.law.E)
                           .arg(p.law.A)
                           .arg(p.law.alpha)
                           .arg(p.law.B)
                           .arg(p.law.beta)
                           .arg(q(format_grouped(p.chinchilla_loss, 3)), q(format_sci(r.flops)),
                                q(format_grouped(decades, 1)));
    memo += QStringLiteral("<h3>%1</h3><p>%2</p>").arg(QObject::tr("Loss forecast"), esc(forecast));
    QString serve = servabilityText(s, r.split.params, QObject::tr("The Chinchilla answer"));
    if (p.recommend_smaller)
      serve += QStringLiteral(" ") +
               servabilityText(s, p.same_loss.params, QObject::tr("The smaller model"));
    memo += QStringLiteral("<h3>%1</h3><p>%2</p>").arg(QObject::tr("Servability"), esc(serve));
    const QString cost =
        QObject::tr(
            "The run rents %1 chip-hours for %2 (%3 per 1e21 FLOPs) and draws %4 MW at the wall: "
            "%5 MWh, "
            "%6 of electricity at %7/kWh (PUE %8).")
            .arg(q(format_grouped(static_cast<double>(s.n_chips) * r.cost.hours)),
                 q(format_dollars(r.cost.rental_dollars)),
                 q(format_dollars(r.cost.dollars_per_1e21_flops, 2)),
                 q(format_grouped(r.cost.facility_watts / 1e6, 2)),
                 q(format_grouped(r.cost.energy_kwh / 1000, 1)),
                 q(format_dollars(r.cost.energy_dollars)),
                 q(format_dollars(s.kwh_price_dollars, 3)), q(format_grouped(s.pue, 2)));
    memo += QStringLiteral("<h3>%1</h3><p>%2</p>").arg(QObject::tr("Cost and energy"), esc(cost));
    int failed = 0;
    for (const Check& c : r.checks) failed += c.ok ? 0 : 1;
    memo +=
        QStringLiteral("<h3>%1</h3>").arg(QObject::tr("Checks")) + checksTable(r) +
        QStringLiteral("<p>%1</p>")
            .arg(failed == 0
                     ? QObject::tr("All four sanity checks pass.")
                     : QObject::tr(
                           "%n sanity check(s) fail: resolve them before committing the budget.",
                           nullptr, failed));
    b.pageBreak();
    b.html(memo);
  }

  // ---- paginate, then paint with page numbers
  const double top = kMargin + kHeaderGap, bottom = page_h - kMargin;
  std::vector<std::vector<std::pair<Block*, double>>> pages(1);
  double y = top;
  for (Block& blk : b.blocks()) {
    if (blk.page_break) {
      if (!pages.back().empty()) {
        pages.emplace_back();
        y = top;
      }
      continue;
    }
    if (y + blk.height > bottom && !pages.back().empty()) {
      pages.emplace_back();
      y = top;
    }
    pages.back().push_back({&blk, y});
    y += blk.height;
  }
  const int total = static_cast<int>(pages.size());
  QFont small(QStringLiteral("DejaVu Sans"));
  small.setPointSizeF(7.5);
  for (int i = 0; i < total; ++i) {
    if (i > 0) device->newPage();
    painter.setFont(small);
    painter.setPen(QColor(90, 90, 90));
    const QFontMetricsF fm(small, device);
    const double date_w = fm.horizontalAdvance(date) + 16;
    painter.drawText(
        QRectF(kMargin, kMargin - 10, width - date_w, 16), Qt::AlignLeft | Qt::AlignVCenter,
        fm.elidedText(QStringLiteral("Napkin · %1").arg(title), Qt::ElideRight, width - date_w));
    painter.drawText(QRectF(kMargin, kMargin - 10, width, 16), Qt::AlignRight | Qt::AlignVCenter,
                     date);
    painter.drawLine(QPointF(kMargin, kMargin + 10), QPointF(page_w - kMargin, kMargin + 10));
    painter.drawText(QRectF(kMargin, page_h - kMargin + 10, width, 16),
                     Qt::AlignHCenter | Qt::AlignVCenter,
                     QObject::tr("Page %1 of %2").arg(i + 1).arg(total));
    for (const auto& [blk, at] : pages[static_cast<std::size_t>(i)]) {
      if (blk->doc) {
        painter.save();
        painter.translate(kMargin, at);
        blk->doc->drawContents(&painter, QRectF(0, 0, width, blk->height));
        painter.restore();
      } else {
        // Two charts a row, or one across the page.
        const double gap = 12;
        const double w = blk->charts.size() == 1 ? width : (width - gap) / 2;
        for (std::size_t c = 0; c < blk->charts.size(); ++c) {
          painter.save();
          painter.translate(kMargin + static_cast<double>(c) * (w + gap), at);
          blk->charts[c]->toPainter(&painter, static_cast<int>(w),
                                    static_cast<int>(blk->height - 8));
          painter.restore();
        }
      }
    }
  }
  painter.end();
  return total;
}

bool ReportWriter::writePdf(const QString& path, QString* error) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    if (error) *error = QObject::tr("%1: cannot write: %2").arg(path, file.errorString());
    return false;
  }
  {
    QPdfWriter pdf(&file);
    pdf.setResolution(kDpi);
    pdf.setCreator(QStringLiteral("Napkin %1").arg(QCoreApplication::applicationVersion()));
    const Scenario& s = window_->model()->scenario();
    const QString title = QObject::tr("Napkin report: %1 on %2 × %3")
                              .arg(q(s.model_name))
                              .arg(s.n_chips)
                              .arg(q(s.chip));
    pdf.setTitle(title);
    const QString subject =
        QObject::tr("LLM pre-training budget, scaling, MoE and roofline analysis");
    pdf.setDocumentXmpMetadata(
        QStringLiteral(
            "<?xpacket begin='' id='W5M0MpCehiHzreSzNTczkc9d'?><x:xmpmeta xmlns:x='adobe:ns:meta/'>"
            "<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>"
            "<rdf:Description rdf:about='' xmlns:dc='http://purl.org/dc/elements/1.1/' "
            "xmlns:xmp='http://ns.adobe.com/xap/1.0/'>"
            "<dc:title><rdf:Alt><rdf:li xml:lang='x-default'>%1</rdf:li></rdf:Alt></dc:title>"
            "<dc:creator><rdf:Seq><rdf:li>Napkin</rdf:li></rdf:Seq></dc:creator>"
            "<dc:description><rdf:Alt><rdf:li "
            "xml:lang='x-default'>%2</rdf:li></rdf:Alt></dc:description>"
            "<xmp:CreatorTool>Napkin %3</xmp:CreatorTool>"
            "</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end='w'?>")
            .arg(title.toHtmlEscaped(), subject.toHtmlEscaped(),
                 QCoreApplication::applicationVersion())
            .toUtf8());
    if (paint(&pdf) == 0) {
      file.cancelWriting();
      if (error) *error = QObject::tr("%1: could not paint the report").arg(path);
      return false;
    }
  }
  if (!file.commit()) {
    if (error)
      *error = QObject::tr("%1: could not save the report (any previous file is untouched): %2")
                   .arg(path, file.errorString());
    return false;
  }
  return true;
}

}  // namespace napkin
