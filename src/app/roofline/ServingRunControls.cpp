#include "roofline/ServingRunControls.h"

#include <QComboBox>
#include <QCoreApplication>
#include <vector>

#include "ControlColumn.h"
#include "ScenarioBinding.h"
#include "ScenarioControls.h"
#include "SliderSpin.h"
#include "Text.h"
#include "roofline/RooflineControls.h"
#include "scenario.h"

namespace napkin {

namespace {

// Field ids after the Roofline panel's own (160..190): consecutive edits of
// one field within a drag merge into one undo step.
enum Field {
  kRunMode = 191,
  kRunConcurrency,
  kRunRate,
  kRunRequests,
  kRunPromptSpread,
  kRunOutputSpread
};

QString tr(const char* text) {
  return QCoreApplication::translate("napkin::ServingRunControls", text);
}

using S = Scenario;

}  // namespace

void declareServingRun(ControlColumn* col, ScenarioModel* m, RooflineControls& c) {
  col->group(tr("Benchmark run"));
  c.run_mode = declareChoice(col, m, kRunMode, "roofline.serving_layout.run_mode",
                             QStringLiteral("run_mode"));
  c.run_concurrency = col->combo(
      {.key = QStringLiteral("run_concurrency"),
       .label = tr("Concurrency"),
       .tooltip = tr("Requests in flight at most (napkin-cli serve --concurrency); static: the "
                     "batch. Auto: what memory and the engine's scheduler allow (static: the "
                     "serving turn's batch)."),
       .dynamic_items =
           [m] {
             std::vector<qint64> caps;
             for (qint64 n = 1; n <= 4096; n *= 2) caps.push_back(n);
             return countItems(tr("auto"), caps,
                               m->scenario().roofline.serving_layout.run_concurrency);
           }},
      scenarioBinding<QVariant>(
          m, kRunConcurrency, tr("benchmark concurrency"),
          [](const S& s) { return QVariant(qint64{s.roofline.serving_layout.run_concurrency}); },
          [](S& s, QVariant v) { s.roofline.serving_layout.run_concurrency = v.toLongLong(); }));
  // The run's four numbers are registered inputs (inputs.h): label, range,
  // slider, tooltip and the serve flag they share.
  c.run_rate = declareInput(col, m, kRunRate, "roofline.serving_layout.run_request_rate_per_second",
                            QStringLiteral("run_rate"));
  c.run_requests = declareInput(col, m, kRunRequests, "roofline.serving_layout.run_requests",
                                QStringLiteral("run_requests"));
  c.run_prompt_spread =
      declareInput(col, m, kRunPromptSpread, "roofline.serving_layout.run_prompt_spread_tokens",
                   QStringLiteral("run_prompt_spread"));
  c.run_output_spread =
      declareInput(col, m, kRunOutputSpread, "roofline.serving_layout.run_output_spread_tokens",
                   QStringLiteral("run_output_spread"));
}

void showServingRunInUse(const RooflineControls& c, const Scenario& s) {
  const BatchingMode mode = s.roofline.serving_layout.run_mode;
  c.run_rate->setUnused(mode == BatchingMode::server
                            ? QString()
                            : tr("Only server runs have a request rate; this run is %1.")
                                  .arg(qs(std::string(to_string(mode)))));
  const bool batch = mode == BatchingMode::static_batch;
  c.run_requests->setUnused(batch ? tr("A static run serves one batch: its size is the "
                                       "concurrency (auto: the serving turn's batch).")
                                  : QString());
  const QString fixed =
      batch ? tr("A static run's requests all have the serving turn's lengths.") : QString();
  c.run_prompt_spread->setUnused(fixed);
  c.run_output_spread->setUnused(fixed);
}

}  // namespace napkin
