#include "report/ReportHtml.h"

#include <QObject>
#include <QRegularExpression>
#include <cmath>

#include "Text.h"
#include "budget_view.h"
#include "format.h"
#include "hardware.h"
#include "roofline_view.h"

namespace napkin {

namespace {

// The longest note that reads in half a page's table without wrapping a
// word a line (about two lines of the note column at the report's font).
constexpr qsizetype kHalfPageNoteChars = 48;

// Escaped, with a layout's axes kept whole: "TP 8 × PP 4" may break before a
// "×", never between "TP" and its 8.
QString esc(const QString& s) {
  static const QRegularExpression kAxis(QStringLiteral("\\b(TP|PP|DP|EP|CP|VP|SP|ZeRO) (?=\\d)"));
  return s.toHtmlEscaped().replace(kAxis, QStringLiteral("\\1&nbsp;"));
}

QString row(const QString& k, const QString& v) {
  return QStringLiteral("<tr><td>%1</td><td class='num'><b>%2</b></td></tr>").arg(esc(k), esc(v));
}

}  // namespace

QString inputsHtml(const Scenario& s, const ResolvedPlan& plan) {
  const Chip& chip = chip_by_name(s.chip);
  const ModelShape& m = s.shape;
  auto section = [](const QString& title, const QString& rows) {
    return QStringLiteral(
               "<td valign='top' width='33%'><table width='100%'><tr><th "
               "colspan='2'>%1</th></tr>%2</table></td>")
        .arg(title, rows);
  };
  const QString hw =
      row(QObject::tr("Chip"), qs(s.chip)) +
      row(QObject::tr("Chips"), qs(format_grouped(static_cast<double>(s.n_chips)))) +
      row(QObject::tr("Peak bf16"),
          qs(format_grouped(chip.peak_flops_per_s / 1e12, 0)) + QStringLiteral(" TFLOP/s")) +
      // The datasheet's capacity, then the device total CUDA reports, which
      // the Parallelism panel and the Budget planner fit layouts against.
      row(QObject::tr("HBM / chip"), qs(format_bytes(static_cast<double>(chip.hbm_bytes), 0))) +
      row(QObject::tr("Device memory"),
          qs(format_bytes(static_cast<double>(device_memory(chip).bytes), 1))) +
      row(QObject::tr("HBM bandwidth"),
          qs(format_grouped(chip.hbm_bytes_per_s / 1e12, 2)) + QStringLiteral(" TB/s")) +
      row(QObject::tr("Power / chip"), qs(format_grouped(chip.watts, 0)) + QStringLiteral(" W"));
  const QString budget =
      row(QObject::tr("Days"), qs(format_grouped(s.days, 1))) +
      // The cover's narrow column: the MFU and its source; its layout and
      // where its range comes from are in the Budget planner's section.
      row(QObject::tr("MFU used"),
          qs(format_percent(plan.mfu.mfu, 1) + " (" + std::string(plan.mfu_source_name()) + ")")) +
      (plan.mfu.source == MfuSource::predicted
           ? (plan.mfu.mfu_low < plan.mfu.mfu_high
                  ? row(QObject::tr("MFU range"), qs(format_grouped(plan.mfu.mfu_low * 100, 1) +
                                                     "–" + format_percent(plan.mfu.mfu_high, 1)))
                  : QString()) +
                 row(QObject::tr("MFU slider (not used)"), qs(format_percent(s.mfu, 0)))
           : QString()) +
      row(QObject::tr("Price"),
          qs(format_dollars(s.price_per_chip_hour_dollars, 2)) + QStringLiteral(" / chip-hour")) +
      row(QObject::tr("Energy price"),
          qs(format_dollars(s.kwh_price_dollars, 3)) + QStringLiteral(" / kWh")) +
      row(QObject::tr("PUE"), qs(format_grouped(s.pue, 2))) +
      row(QObject::tr("Tokens / parameter"), qs(format_grouped(s.tokens_per_param, 1))) +
      row(QObject::tr("Unique tokens"), qs(format_count(s.tokens_available, 1)));
  const QString model =
      row(QObject::tr("Model"), qs(s.model_name)) +
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
      row(QObject::tr("Optimizer"), qs(std::string(to_string(t.optimizer)))) +
      row(QObject::tr("Precision"), qs(std::string(to_string(t.precision)))) +
      row(QObject::tr("ZeRO / DP"), QStringLiteral("%1 / %2").arg(t.zero_stage).arg(t.dp_degree)) +
      row(QObject::tr("Checkpointing"), qs(std::string(to_string(t.checkpointing)))) +
      row(QObject::tr("Micro-batch × seq"),
          QStringLiteral("%1 × %2").arg(t.micro_batch).arg(t.seq_len));
  const ServingSetup& v = s.serving;
  const QString serving =
      row(QObject::tr("Context"),
          qs(format_grouped(static_cast<double>(v.context_len))) + QObject::tr(" tokens")) +
      row(QObject::tr("Served tokens"), qs(format_count(v.served_tokens, 1))) +
      row(QObject::tr("Decode batch"), QString::number(v.batch)) +
      row(QObject::tr("Prompt / decode"),
          QStringLiteral("%1 / %2 tokens").arg(v.prompt_tokens).arg(v.decode_tokens)) +
      row(QObject::tr("Latency budget"), qs(format_seconds(v.latency_budget_seconds))) +
      row(QObject::tr("Overhead"), qs(format_seconds(v.overhead_seconds))) +
      row(QObject::tr("Weights / KV cache"),
          QStringLiteral("%1 / %2").arg(qs(std::string(to_string(v.weight_dtype))),
                                        qs(std::string(to_string(v.kv_dtype)))));
  return QStringLiteral("<table width='100%' cellspacing='4'><tr>") +
         section(QObject::tr("Hardware"), hw) + section(QObject::tr("Budget"), budget) +
         section(QObject::tr("Model"), model) + QStringLiteral("</tr><tr>") +
         section(QObject::tr("Training set-up"), training) +
         section(QObject::tr("Serving targets"), serving) +
         QStringLiteral("<td></td></tr></table>") +
         // Where the chip's numbers come from: a datasheet, or what a user's
         // chip file says of each value (a power limit, a measured copy rate).
         QStringLiteral("<p><b>%1</b> %2</p>")
             .arg(QObject::tr("Chip:").toHtmlEscaped(), esc(qs(std::string(chip.source))));
}

namespace {

// Servability of a model of `n_params` under the scenario's serving targets,
// with the roofline napkin (seed Claim 14, Phase 03): the model's verdict.
QString servabilityText(const Scenario& s, double n_params, const QString& who) {
  const ServingNeed sv = servability(s, n_params);
  const QString hold =
      QObject::tr("%1 %2 to hold its weights").arg(sv.chips_to_hold_weights).arg(qs(s.chip));
  if (sv.verdict == LatencyVerdict::below_overhead)
    return QObject::tr(
               "%1 (%2) needs %3; the %4 latency budget is below the %5 fixed overhead, so no "
               "amount of hardware meets it.")
        .arg(who, qs(format_count(n_params)), hold,
             qs(format_seconds(s.serving.latency_budget_seconds)),
             qs(format_seconds(s.serving.overhead_seconds)));
  if (!sv.chips_for_budget)
    return QObject::tr(
               "%1 (%2) needs %3, and no slice of %4 meets the %5 turn (%6 prompt + %7 generated "
               "tokens).")
        .arg(who, qs(format_count(n_params)), hold, qs(s.chip),
             qs(format_seconds(s.serving.latency_budget_seconds)))
        .arg(s.serving.prompt_tokens)
        .arg(s.serving.decode_tokens);
  return QObject::tr(
             "%1 (%2) needs %3 and %4 %5 to answer a turn of %6 prompt + %7 generated tokens "
             "within %8.")
      .arg(who, qs(format_count(n_params)), hold)
      .arg(*sv.chips_for_budget)
      .arg(qs(s.chip))
      .arg(s.serving.prompt_tokens)
      .arg(s.serving.decode_tokens)
      .arg(qs(format_seconds(s.serving.latency_budget_seconds)));
}

QString checksTable(const std::vector<Check>& checks) {
  QString out = QStringLiteral("<table cellspacing='2'>");
  for (const Check& c : checks)
    out += QStringLiteral("<tr><td class='%1'>&nbsp;%2&nbsp;</td><td><b>%3</b>: %4</td></tr>")
               .arg(c.ok ? QStringLiteral("ok") : QStringLiteral("fail"),
                    c.ok ? QStringLiteral("OK") : QStringLiteral("FAIL"), esc(qs(c.name)),
                    esc(qs(c.detail)));
  return out + QStringLiteral("</table>");
}

QString toneColor(Tone t) {
  switch (t) {
    case Tone::ok: return QStringLiteral("#2e7d32");
    case Tone::warn: return QStringLiteral("#c87800");
    case Tone::fail: return QStringLiteral("#c62828");
    case Tone::normal: break;
  }
  return QStringLiteral("#202020");
}

QString tableHtml(const ReportTable& t) {
  QString html;
  if (!t.title.isEmpty()) html += QStringLiteral("<h3>%1</h3>").arg(esc(t.title));
  // Across its half of the page: the notes take the room the values leave,
  // rather than wrapping a word a line.
  html += QStringLiteral("<table width='100%' cellspacing='2'>");
  for (const ReportRow& r : t.rows) {
    // A unit per something stays in one piece ("tokens/s", not "tokens/" over
    // "s"), and a number with its unit ("4.57 s", not "4.57" over "s").
    QString value = r.unit.isEmpty() ? r.value : r.value + QLatin1Char(' ') + r.unit;
    value.replace(QLatin1Char('/'), QStringLiteral("/\u2060"));
    static const QRegularExpression numberSpace(QStringLiteral("(?<=\\d) "));
    value.replace(numberSpace, QStringLiteral("\u00a0"));
    // Checks carry a badge; numbers are bold, coloured by their verdict.
    const QString cell =
        t.verdicts ? QStringLiteral("<td valign='top'><span class='%1'>&nbsp;%2&nbsp;</span></td>")
                         .arg(r.tone == Tone::ok     ? QStringLiteral("ok")
                              : r.tone == Tone::warn ? QStringLiteral("warn")
                                                     : QStringLiteral("fail"),
                              esc(value))
                   : QStringLiteral("<td class='num'><b><span style='color:%1'>%2</span></b></td>")
                         .arg(toneColor(r.tone), esc(value));
    html +=
        QStringLiteral("<tr><td valign='top'>%1</td>%2<td valign='top' class='muted'>%3</td></tr>")
            .arg(esc(r.name), cell, esc(r.note));
  }
  return html + QStringLiteral("</table>");
}

}  // namespace

QString reportEscape(const QString& s) { return esc(s); }

QString headlineHtml(const BudgetView& v) {
  const BudgetReport& r = v.report;
  const Scenario& s = v.scenario;
  return QStringLiteral(
             "<h2>%1</h2><p><b>C = %2 FLOPs</b> → Chinchilla-optimal <b>N = %3</b> parameters on "
             "<b>D = %4</b> tokens (%5 tokens per parameter), %6 days at %7; %8 rental, %9 MWh "
             "at the wall.</p><p>%10</p>")
      .arg(QObject::tr("Headline"), qs(format_sci(r.flops)), qs(format_count(r.split.params)),
           qs(format_count(r.split.tokens, 2)), qs(format_grouped(s.tokens_per_param, 0)),
           qs(format_grouped(r.days, 1)),
           qs(format_percent(v.plan.mfu.mfu, 1) + " MFU (" + std::string(v.plan.mfu_source_name()) +
              ")"),
           qs(format_dollars(r.cost.rental_dollars)),
           qs(format_grouped(r.cost.energy_kwh / 1000, 1)), esc(qs(r.recommendation)));
}

QStringList sectionBlocks(int number, const ReportSection& sec) {
  // Blocks the layout may put on separate pages: the title with the first
  // row of tables, each further row, the formulas.
  QStringList blocks;
  QString html = QStringLiteral("<h2>%1. %2</h2>").arg(number).arg(esc(sec.title));
  if (!sec.summary.isEmpty())
    html += QStringLiteral("<p class='muted'>%1</p>").arg(esc(sec.summary));
  // Tables two a row (numbers beside their checks), but a table whose notes
  // are sentences takes the page's width: in half of it they wrap a word a line.
  const auto wide = [](const ReportTable& t) {
    for (const ReportRow& r : t.rows)
      if (r.note.size() > kHalfPageNoteChars) return true;
    return false;
  };
  for (std::size_t i = 0; i < sec.tables.size();) {
    const bool pair = i + 1 < sec.tables.size() && !wide(sec.tables[i]) && !wide(sec.tables[i + 1]);
    if (pair)
      html += QStringLiteral("<table width='100%'><tr><td valign='top' width='50%'>") +
              tableHtml(sec.tables[i]) + QStringLiteral("</td><td valign='top' width='50%'>") +
              tableHtml(sec.tables[i + 1]) + QStringLiteral("</td></tr></table>");
    else if (wide(sec.tables[i]))
      html += QStringLiteral("<table width='100%'><tr><td valign='top'>") +
              tableHtml(sec.tables[i]) + QStringLiteral("</td></tr></table>");
    else  // alone, in the left half
      html += QStringLiteral("<table width='100%'><tr><td valign='top' width='50%'>") +
              tableHtml(sec.tables[i]) +
              QStringLiteral("</td><td valign='top' width='50%'></td></tr></table>");
    i += pair ? 2 : 1;
    blocks.append(html);
    html.clear();
  }
  if (!sec.formulas.empty()) {
    html += QStringLiteral("<h3>%1</h3><table class='formula'>").arg(QObject::tr("Formulas"));
    for (const ReportFormula& f : sec.formulas)
      html += QStringLiteral("<tr><td>%1</td><td class='muted'>%2</td></tr>")
                  .arg(esc(f.formula), esc(f.meaning));
    html += QStringLiteral("</table>");
  }
  if (!html.isEmpty()) blocks.append(html);
  return blocks;
}

QString memoHtml(const BudgetView& v) {
  const BudgetReport& r = v.report;
  const InferenceAwarePlan& p = r.plan;
  const Scenario& s = v.scenario;
  QString memo = QStringLiteral("<h2>%1</h2>").arg(QObject::tr("Recommendation"));
  memo += QStringLiteral("<h3>%1</h3><p>%2</p>")
              .arg(QObject::tr("What to train"), esc(qs(r.recommendation)));
  QString forecast = QObject::tr(
                         "Under %10 (E %1, A %2, α %3, B %4, β %5) the "
                         "Chinchilla answer reaches %6 nats "
                         "per token. C = %7 FLOPs is %8 decades above the largest run of the "
                         "ladder that law was fitted on (%9 FLOPs), so the "
                         "forecast is an extrapolation; the IsoFLOPs section gives the fitted "
                         "law and its bootstrap interval.")
                         .arg(p.law.E)
                         .arg(p.law.A)
                         .arg(p.law.alpha)
                         .arg(p.law.B)
                         .arg(p.law.beta)
                         .arg(qs(format_grouped(p.chinchilla_loss, 3)), qs(format_sci(r.flops)),
                              qs(format_grouped(v.decades_beyond_ladder, 1)),
                              qs(format_sci(r.law.ladder_max_flops)), qs(r.law.name));
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
          .arg(qs(format_grouped(v.chip_hours)), qs(format_dollars(r.cost.rental_dollars)),
               qs(format_dollars(r.cost.dollars_per_1e21_flops, 2)),
               qs(format_grouped(r.cost.facility_watts / 1e6, 2)),
               qs(format_grouped(r.cost.energy_kwh / 1000, 1)),
               qs(format_dollars(r.cost.energy_dollars)),
               qs(format_dollars(s.kwh_price_dollars, 3)), qs(format_grouped(s.pue, 2)));
  memo += QStringLiteral("<h3>%1</h3><p>%2</p>").arg(QObject::tr("Cost and energy"), esc(cost));
  int failed = 0;
  for (const Check& c : v.checks) failed += c.ok ? 0 : 1;
  memo += QStringLiteral("<h3>%1</h3>").arg(QObject::tr("Checks")) + checksTable(v.checks) +
          QStringLiteral("<p>%1</p>")
              .arg(failed == 0
                       ? QObject::tr("All %n sanity check(s) pass.", nullptr,
                                     static_cast<int>(v.checks.size()))
                       : QObject::tr(
                             "%n sanity check(s) fail: resolve them before committing the budget.",
                             nullptr, failed));
  return memo;
}

}  // namespace napkin
