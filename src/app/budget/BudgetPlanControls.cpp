#include "BudgetPlanControls.h"
#include "Text.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGroupBox>
#include <QLabel>
#include <QTimer>
#include <QVBoxLayout>

#include "ControlColumn.h"
#include "ScenarioBinding.h"
#include "budget_view.h"
#include "format.h"
#include "plan_inputs.h"

namespace napkin {

namespace {

// Field ids (clear of BudgetControls' own): edits of one field in a drag merge.
enum Field {
  kMode = 101,
  kTrainTokens,
  kInterruptions,
  kRestart,
  kInterval,
  kWriteSource,
  kWriteMinutes,
  kStorage,
  kAsync,
  kShape,
  kRangeOn = 120,    // + input index
  kRangeLow = 130,   // + input index
  kRangeHigh = 140,  // + input index
};

using Scale = SliderSpin::Scale;
using S = Scenario;

QString tr(const char* text) {
  return QCoreApplication::translate("napkin::BudgetPlanControls", text);
}

// "Unit: …. Source …" from the one table of planning inputs.
QString tip(std::string_view key, const QString& extra = {}) {
  const InputInfo& i = plan_input_info(key);
  QString t = qs(i.description);
  if (!i.unit.empty()) t = tr("Unit: %1. ").arg(qs(i.unit)) + t;
  if (!extra.isEmpty()) t += QLatin1Char(' ') + extra;
  return t;
}

// The slider of one input's range bound, in the input's own unit.
SliderDecl boundDecl(RangeInput in, bool low) {
  const QString side = low ? tr("low") : tr("high");
  const QString key =
      QStringLiteral("range_%1_%2")
          .arg(qs(range_input_key(in)), low ? QStringLiteral("low") : QStringLiteral("high"));
  const QString what =
      low ? tr("Low end of the range (the likely value is the scenario's own; with log-normal "
               "ranges, the 10th percentile).")
          : tr("High end of the range (with log-normal ranges, the 90th percentile).");
  switch (in) {
    case RangeInput::mfu:
      return {.key = key,
              .label = tr("  MFU %1").arg(side),
              .unit = QStringLiteral("%"),
              .min = 0.05,
              .max = 0.95,
              .ladder = Ladder::multipleOf(0.01),
              .display_factor = 100,
              .tooltip = what};
    case RangeInput::interruptions:
      return {.key = key,
              .label = tr("  Interruptions %1").arg(side),
              .min = 0,
              .max = 20,
              .ladder = Ladder::multipleOf(0.001),
              .decimals = 3,
              .tooltip = what};
    case RangeInput::restart:
      return {.key = key,
              .label = tr("  Restart %1").arg(side),
              .unit = tr("min"),
              .min = 1,
              .max = 600,
              .scale = Scale::log,
              .ladder = Ladder::significant(2),
              .tooltip = what};
    case RangeInput::price:
      return {.key = key,
              .label = tr("  Price %1").arg(side),
              .unit = tr("$/chip-h"),
              .min = 0.1,
              .max = 20,
              .scale = Scale::log,
              .ladder = Ladder::significant(2),
              .decimals = 2,
              .tooltip = what};
    case RangeInput::tokens_available:
      return {.key = key,
              .label = tr("  Unique tokens %1").arg(side),
              .min = 1e10,
              .max = 1e15,
              .scale = Scale::log,
              .ladder = Ladder::significant(2),
              .decimals = 2,
              .scientific = true,
              .tooltip = what};
  }
  return {};
}

}  // namespace

void carry_range(Scenario& s, RangeInput input) {
  std::optional<Spread>& sp = range_spread(s.ranges, input);
  if (sp) sp = widened(*sp, range_likely(s, input));
}

namespace {

void carry(Scenario& s, RangeInput input) { carry_range(s, input); }

void show_message(QLabel* label, const QString& text) {
  if (!label) return;
  label->setText(text);
  label->setVisible(!text.isEmpty());
}

}  // namespace

void BudgetPlanControls::showMessage(const QString& text) const { show_message(message, text); }

void BudgetPlanControls::declareQuestion(BudgetPlanControls& c, ControlColumn* col,
                                         ScenarioModel* m, ViewGetter view) {
  auto bind = [m](int field, const QString& label, std::function<double(const S&)> get,
                  std::function<void(S&, double)> set) {
    return scenarioBinding<double>(m, field, label, std::move(get), std::move(set));
  };
  col->group(tr("Question"));
  c.mode = declareChoice(col, m, kMode, "plan.mode", QStringLiteral("plan_mode"));
  // Shows the planner's own choice (tokens per parameter × N) until typed;
  // typing 0 returns to it.
  c.train_tokens = col->slider(inputDecl("plan.train_tokens", QStringLiteral("train_tokens")),
                               bind(
                                   kTrainTokens, tr("Training tokens"),
                                   [view](const S& s) {
                                     return s.plan.train_tokens > 0 ? s.plan.train_tokens
                                                                    : view().plan_inputs.tokens();
                                   },
                                   [](S& s, double v) { s.plan.train_tokens = v; }));
}

void BudgetPlanControls::declareRun(BudgetPlanControls& c, ControlColumn* col, ScenarioModel* m,
                                    ViewGetter view) {
  auto bind = [m](int field, const QString& label, std::function<double(const S&)> get,
                  std::function<void(S&, double)> set) {
    return scenarioBinding<double>(m, field, label, std::move(get), std::move(set));
  };
  col->group(tr("Goodput (crashes per 1,000 chip-days)"));
  c.interruptions = declareInput(col, m, kInterruptions, "goodput.interruptions_per_1000_chip_days",
                                 QStringLiteral("interruptions"),
                                 [](S& s) { carry(s, RangeInput::interruptions); });
  c.restart =
      declareInput(col, m, kRestart, "goodput.restart_minutes", QStringLiteral("restart_minutes"),
                   [](S& s) { carry(s, RangeInput::restart); });
  c.checkpoint_interval = declareInput(col, m, kInterval, "goodput.checkpoint_interval_minutes",
                                       QStringLiteral("checkpoint_minutes"));
  c.write_source = col->combo(
      {.key = QStringLiteral("checkpoint_write_source"),
       .label = tr("Write time"),
       .tooltip = tip("checkpoint_write_minutes"),
       .items = {{tr("From storage bandwidth"), 0}, {tr("Typed"), 1}}},
      scenarioBinding<QVariant>(
          m, kWriteSource, tr("checkpoint write time source"),
          [](const S& s) { return QVariant(s.goodput.checkpoint_write_minutes ? 1 : 0); },
          [view](S& s, QVariant v) {
            if (v.toInt() == 1)
              s.goodput.checkpoint_write_minutes =
                  view().run().goodput_inputs.checkpoint_write_minutes;
            else
              s.goodput.checkpoint_write_minutes.reset();
          }));
  // Shown derived from the storage bandwidth until typed: the registry's
  // description with a binding of its own.
  SliderDecl write =
      inputDecl("goodput.checkpoint_write_minutes", QStringLiteral("checkpoint_write_minutes"));
  write.tooltip += QLatin1Char(' ') + tr("Shown derived from the storage bandwidth until typed.");
  c.write_minutes =
      col->slider(write, bind(
                             kWriteMinutes, tr("Checkpoint write"),
                             [view](const S& s) {
                               return s.goodput.checkpoint_write_minutes.value_or(
                                   view().run().goodput_inputs.checkpoint_write_minutes);
                             },
                             [](S& s, double v) { s.goodput.checkpoint_write_minutes = v; }));
  c.storage = declareInput(col, m, kStorage, "goodput.storage_bytes_per_s_per_chip",
                           QStringLiteral("storage_bandwidth"));
  c.async =
      declareSwitch(col, m, kAsync, "goodput.checkpoint_mode", QStringLiteral("checkpoint_async"));

  QGroupBox* group = col->group(tr("Ranges (Monte Carlo, 10,000 draws)"));
  c.range_shape = declareChoice(col, m, kShape, "ranges.shape", QStringLiteral("range_shape"));
  // A range edit: refused with a message naming the input when it makes no
  // range (low above high), else one undo step.
  c.message = new QLabel(group);
  QLabel* message = c.message;
  auto edit = [m, message, col](RangeInput in, int field, const QString& undo,
                                const std::function<void(std::optional<Spread>&, double)>& set,
                                double v) {
    const Scenario& now = m->scenario();
    std::optional<Spread> next = range_spread(now.ranges, in);
    set(next, v);
    if (next) {
      const std::string why = spread_problem(in, *next, range_likely(now, in));
      if (!why.empty()) {
        show_message(message, QString::fromStdString(why));
        QTimer::singleShot(0, col, [col] { col->sync(); });  // show the value in use again
        return;
      }
    }
    const bool ok = m->edit(undo, field, [&](Scenario& s) { range_spread(s.ranges, in) = next; });
    if (ok) {
      show_message(message, QString());
    } else {
      QTimer::singleShot(0, col, [col] { col->sync(); });
    }
  };
  for (std::size_t i = 0; i < kRangeInputs.size(); ++i) {
    const RangeInput in = kRangeInputs[i];
    const int k = static_cast<int>(i);
    const InputInfo& info = plan_input_info(range_input_key(in));
    const QString name = qs(info.label);
    RangeControls& r = c.ranges[i];
    r.on = col->check(
        {.key = QStringLiteral("range_%1").arg(qs(range_input_key(in))),
         .label = tr("%1 range").arg(name),
         .tooltip = tr("Give %1 as a range (low, likely, high) instead of one number; the "
                       "likely value is the scenario's own. Unit: %2.")
                        .arg(name, in == RangeInput::mfu ? QStringLiteral("%") : qs(info.unit))},
        {[m, in] { return range_spread(m->scenario().ranges, in).has_value(); },
         [m, edit, in, k, name](bool on) {
           edit(
               in, kRangeOn + k, tr("Change %1 range").arg(name),
               [on, in](std::optional<Spread>& s, double likely) {
                 if (!on)
                   s.reset();
                 else if (!s)
                   s = default_spread(in, likely);
               },
               range_likely(m->scenario(), in));
         }});
    for (const bool low : {true, false}) {
      SliderSpin* slider = col->slider(
          boundDecl(in, low),
          {[m, in, low] {
             const Scenario& s = m->scenario();
             const Spread sp =
                 range_spread(s.ranges, in).value_or(default_spread(in, range_likely(s, in)));
             return low ? sp.low : sp.high;
           },
           [m, edit, in, k, low, name](double v) {
             const double likely = range_likely(m->scenario(), in);
             edit(
                 in, (low ? kRangeLow : kRangeHigh) + k,
                 low ? tr("Change %1 range low").arg(name) : tr("Change %1 range high").arg(name),
                 [low, in, likely](std::optional<Spread>& s, double value) {
                   if (!s) s = default_spread(in, likely);
                   (low ? s->low : s->high) = value;
                 },
                 v);
           }});
      (low ? r.low : r.high) = slider;
    }
  }
  c.message->setObjectName(QStringLiteral("rangeMessage"));
  c.message->setWordWrap(true);
  c.message->setStyleSheet(QStringLiteral("color: rgb(198, 40, 40);"));
  c.message->setAccessibleName(tr("Why the range was refused"));
  c.message->hide();
  group->layout()->addWidget(c.message);
}

void BudgetPlanControls::updateEnabled(const BudgetView& v) const {
  const Scenario& s = v.scenario;
  if (train_tokens) train_tokens->setEnabled(s.plan.mode == PlanMode::train_model);
  if (write_minutes) write_minutes->setEnabled(s.goodput.checkpoint_write_minutes.has_value());
  if (storage) storage->setEnabled(!s.goodput.checkpoint_write_minutes.has_value());
  for (std::size_t i = 0; i < kRangeInputs.size(); ++i) {
    const bool on = range_spread(s.ranges, kRangeInputs[i]).has_value();
    if (ranges[i].low) ranges[i].low->setEnabled(on);
    if (ranges[i].high) ranges[i].high->setEnabled(on);
  }
}

}  // namespace napkin
