// The Roofline panel's Serving layout tab as a user drives it: the serving
// run's scheduler (tokens per iteration, chunked prefill) and "Copy launch
// flags" (issue 25).
#include <gtest/gtest.h>

#include <algorithm>

#include <qcustomplot.h>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QStyle>
#include <QTabWidget>
#include <QTest>
#include <QToolButton>
#include <QUndoStack>

#include "PlotWidget.h"
#include "SliderSpin.h"
#include "format.h"
#include "framework_config.h"
#include "gui_test_util.h"
#include "roofline/RooflineFormat.h"
#include "roofline/RooflinePanel.h"
#include "roofline_view.h"
#include "shell/MainWindow.h"

using namespace napkin;

namespace {

void choose(QComboBox* c, Qt::Key key) {
  c->setFocus();
  QTest::keyClick(c, key);
}

// The window on the Roofline panel, serving through vLLM with `prompt`-token
// prompts (one edit).
RooflinePanel* showServingOnVllm(MainWindow& w, std::int64_t prompt) {
  w.show();
  w.showPanel(QStringLiteral("roofline"));
  EXPECT_TRUE(w.model()->edit(QStringLiteral("engine"), 1, [prompt](Scenario& s) {
    s.serving.engine = "vllm";
    s.serving.prompt_tokens = prompt;
    s.serving.context_len = std::max(s.serving.context_len, prompt);
  }));
  return w.panel<RooflinePanel>();
}

}  // namespace

// Issue 25: "Copy launch flags" on the Serving layout tab puts the layout
// shown (TP, PP, batch, lengths, precisions) on the clipboard as vLLM or
// TensorRT-LLM runs it, and the flags read back as that layout.
TEST(RooflinePanel, CopyServingFlagsReadsBackAsTheLayoutShown) {
  MainWindow w(MainWindow::Session::fresh);
  RooflinePanel* p = w.panel<RooflinePanel>();
  ASSERT_TRUE(w.model()->edit(QStringLiteral("weights"), 1,
                              [](Scenario& s) { s.serving.weight_dtype = Dtype::fp8; }));
  p->settleServing();
  ASSERT_TRUE(p->servingView().valid()) << p->servingView().error;
  auto* button = p->findChild<QToolButton*>(QStringLiteral("servingCopyFlags"));
  ASSERT_NE(button, nullptr);
  EXPECT_TRUE(button->isEnabled());
  EXPECT_GE(button->width(), button->fontMetrics().horizontalAdvance(button->text()) +
                                 button->style()->pixelMetric(QStyle::PM_MenuButtonIndicator));
  const ServingResult& shown = p->servingView().view.chosen;
  const ServingInputs& in = p->servingView().inputs.inputs.search.serving;
  for (ServingFlagsEngine engine : {ServingFlagsEngine::vllm, ServingFlagsEngine::tensorrt_llm}) {
    const QString copied = p->copyServingFlags(engine);
    ASSERT_FALSE(copied.isEmpty());
    EXPECT_EQ(QApplication::clipboard()->text(), copied);
    EXPECT_TRUE(copied.contains(QString::fromStdString(w.model()->scenario().model_name)));
    const ServingFlagsInput back = parse_serving_flags(copied.toStdString(), "clipboard");
    EXPECT_EQ(back.tp, shown.layout.tp);
    EXPECT_EQ(back.pp, shown.layout.pp);
    EXPECT_EQ(back.max_batch, shown.batch);
    EXPECT_EQ(back.max_seq_tokens, in.prompt_tokens + in.cached_tokens + in.decode_tokens);
    EXPECT_EQ(back.weight_dtype, "fp8");
  }
  // No layout (the serving chips cannot be split): nothing to copy.
  ASSERT_TRUE(w.model()->edit(QStringLiteral("chip"), 1, [](Scenario& s) { s.chip = "H100"; }));
  p->settleServing();
  EXPECT_EQ(button->isEnabled(), p->servingView().valid());
}

// Issue 25: the serving run's scheduler is set from the panel, one undo step
// each; the frontier runs it and says so, and the copied launch flags carry
// the token budget.
TEST(RooflinePanel, SchedulerCombosDriveTheFrontierAndTheFlags) {
  MainWindow w(MainWindow::Session::fresh);
  RooflinePanel* p = showServingOnVllm(w, 2048);
  QComboBox* budget = p->combo(QStringLiteral("max_tokens"));
  QComboBox* chunked = p->combo(QStringLiteral("chunked_prefill"));
  ASSERT_TRUE(budget && chunked);
  EXPECT_EQ(budget->currentIndex(), 0);  // the engine's default
  const int before = w.model()->undoStack()->index();
  choose(budget, Qt::Key_Down);  // 2,048
  EXPECT_EQ(w.model()->scenario().roofline.serving_layout.max_tokens_per_step, 2048);
  choose(chunked, Qt::Key_End);  // off
  EXPECT_EQ(w.model()->scenario().roofline.serving_layout.chunked_prefill, false);
  EXPECT_EQ(w.model()->undoStack()->index(), before + 2);
  p->settleServing();
  p->subTabs()->setCurrentIndex(RooflinePanel::kServingTab);
  const ServingPanelView& v = p->servingView();
  ASSERT_TRUE(v.valid()) << v.error;
  EXPECT_EQ(v.inputs.max_tokens_per_step, 2048);
  EXPECT_EQ(v.inputs.chunked_prefill, false);
  bool said = false;
  for (PlotWidget* plot : p->plots())
    if (plot->objectName() == QStringLiteral("plot_serving_frontier"))
      for (int i = 0; i < plot->itemCount(); ++i) {
        auto* t = qobject_cast<QCPItemText*>(plot->item(i));
        said = said || (t && t->text().contains(QStringLiteral("2,048 tokens/iteration")) &&
                        t->text().contains(QStringLiteral("no chunked prefill")));
      }
  EXPECT_TRUE(said);
  const QString flags = p->copyServingFlags(ServingFlagsEngine::vllm);
  EXPECT_TRUE(flags.contains(QStringLiteral("--max-num-batched-tokens 2048")))
      << flags.toStdString();
  EXPECT_TRUE(flags.contains(QStringLiteral("chunked prefill off"))) << flags.toStdString();
  // Undo goes back to the engine's defaults.
  w.model()->undoStack()->undo();
  w.model()->undoStack()->undo();
  EXPECT_EQ(w.model()->scenario().roofline.serving_layout.max_tokens_per_step, 0);
  EXPECT_FALSE(w.model()->scenario().roofline.serving_layout.chunked_prefill);
  EXPECT_EQ(budget->currentIndex(), 0);
}

// The engine's memory setting is set from the panel in one undo step: on
// vLLM it is gpu_memory_utilization, so the layout holds more requests at
// 0.95 than at the preset's 0.9, and the copied flags carry it.
TEST(RooflinePanel, TheEngineMemoryComboSetsWhatFitsAndTheFlags) {
  MainWindow w(MainWindow::Session::fresh);
  RooflinePanel* p = showServingOnVllm(w, 2048);
  QComboBox* memory = p->combo(QStringLiteral("memory_fraction"));
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ(memory->currentIndex(), 0);  // the engine's default
  p->settleServing();
  const double preset = p->servingView().view.chosen.memory.usable_bytes;
  const int before = w.model()->undoStack()->index();
  choose(memory, Qt::Key_End);  // 0.95
  EXPECT_DOUBLE_EQ(w.model()->scenario().roofline.serving_layout.engine_memory_fraction, 0.95);
  EXPECT_EQ(w.model()->undoStack()->index(), before + 1);
  p->settleServing();
  EXPECT_GT(p->servingView().view.chosen.memory.usable_bytes, preset);
  const QString flags = p->copyServingFlags(ServingFlagsEngine::vllm);
  EXPECT_TRUE(flags.contains(QStringLiteral("--gpu-memory-utilization 0.95")))
      << flags.toStdString();
  w.model()->undoStack()->undo();
  EXPECT_DOUBLE_EQ(w.model()->scenario().roofline.serving_layout.engine_memory_fraction, 0);
  EXPECT_EQ(memory->currentIndex(), 0);
  // A fraction off the list (a file's 0.83) is listed and shown as itself.
  ASSERT_TRUE(w.model()->edit(QStringLiteral("engine"), 1, [](Scenario& s) {
    s.roofline.serving_layout.engine_memory_fraction = 0.83;
  }));
  QCoreApplication::processEvents();
  EXPECT_EQ(memory->currentText(), QStringLiteral("0.83"));
}

// A token budget off the combo's list (from a file or the CLI's scenario) is
// listed and shown as itself, not as another value.
TEST(RooflinePanel, AnOffListTokenBudgetIsShownAsItself) {
  MainWindow w(MainWindow::Session::fresh);
  RooflinePanel* p = w.panel<RooflinePanel>();
  ASSERT_TRUE(w.model()->edit(QStringLiteral("engine"), 1, [](Scenario& s) {
    s.roofline.serving_layout.max_tokens_per_step = 6000;
  }));
  QCoreApplication::processEvents();
  QComboBox* budget = p->combo(QStringLiteral("max_tokens"));
  ASSERT_NE(budget, nullptr);
  EXPECT_EQ(budget->currentText(), QStringLiteral("6,000"));
  EXPECT_EQ(budget->currentData().toLongLong(), 6000);
  EXPECT_EQ(w.model()->scenario().roofline.serving_layout.max_tokens_per_step, 6000);
}

// Issue 24/25: the Serving layout tab runs the benchmark a user sets — mode,
// concurrency, request rate, requests — and shows what napkin-cli serve
// --mode prints for it; the request rate is greyed unless the run is a
// server run, and the changes are undoable edits.
TEST(RooflinePanel, TheBenchmarkRunIsSetAndShownInTheTab) {
  MainWindow w(MainWindow::Session::fresh);
  RooflinePanel* p = showServingOnVllm(w, 1024);
  SliderSpin* rate = p->control(QStringLiteral("run_rate"));
  SliderSpin* requests = p->control(QStringLiteral("run_requests"));
  QComboBox* mode = p->combo(QStringLiteral("run_mode"));
  QComboBox* cap = p->combo(QStringLiteral("run_concurrency"));
  ASSERT_TRUE(rate && requests && mode && cap);
  EXPECT_EQ(mode->currentText(), QStringLiteral("offline"));
  EXPECT_TRUE(rate->isUnused());  // offline runs have no request rate
  const int before = w.model()->undoStack()->index();
  pick(mode, QStringLiteral("server"));
  EXPECT_FALSE(rate->isUnused());
  typeInto(rate, QStringLiteral("3"));
  typeInto(requests, QStringLiteral("400"));
  pick(cap, QStringLiteral("64"));
  const ServingLayoutSettings& r = w.model()->scenario().roofline.serving_layout;
  EXPECT_EQ(r.run_mode, BatchingMode::server);
  EXPECT_DOUBLE_EQ(r.run_request_rate_per_second, 3);
  EXPECT_EQ(r.run_requests, 400);
  EXPECT_EQ(r.run_concurrency, 64);
  EXPECT_GT(w.model()->undoStack()->index(), before);
  p->settleServing();
  const ServingPanelView& v = p->servingView();
  ASSERT_TRUE(v.run.valid()) << v.run.error;
  EXPECT_EQ(v.run.result.mode, BatchingMode::server);
  EXPECT_EQ(v.run.result.requests, 400);
  // The read-outs are the run's numbers, titled with what was run.
  const QString ttft = p->readoutText(QStringLiteral("run_ttft"));
  EXPECT_TRUE(ttft.contains(secondsText(v.run.result.ttft_seconds.p99))) << ttft.toStdString();
  EXPECT_TRUE(p->readoutText(QStringLiteral("run_in_flight")).startsWith(QStringLiteral("64 ")));
  // A server run's throughput is its request rate's: no published band.
  EXPECT_TRUE(v.run.track_record.empty());
  EXPECT_FALSE(
      p->readoutText(QStringLiteral("run_throughput")).contains(QStringLiteral("runs like")));
  bool titled = false;
  for (const ReportTable& t : p->servingReadouts().tables())
    titled = titled || t.title.contains(QStringLiteral("server at 3 req/s, 400 requests"));
  EXPECT_TRUE(titled) << p->servingReadouts().tables().at(1).title.toStdString();
  // Static: one batch; the request count is not used.
  SliderSpin* spread = p->control(QStringLiteral("run_prompt_spread"));
  ASSERT_NE(spread, nullptr);
  EXPECT_FALSE(spread->isUnused());
  // Spread lengths: the run's title and the frontier's note say so.
  typeInto(spread, QStringLiteral("256"));
  EXPECT_EQ(w.model()->scenario().roofline.serving_layout.run_prompt_spread_tokens, 256);
  p->settleServing();
  p->subTabs()->setCurrentIndex(RooflinePanel::kServingTab);
  bool noted = false;
  for (PlotWidget* plot : p->plots())
    if (plot->objectName() == QStringLiteral("plot_serving_frontier"))
      for (int i = 0; i < plot->itemCount(); ++i) {
        auto* t = qobject_cast<QCPItemText*>(plot->item(i));
        noted = noted || (t && t->text().contains(QStringLiteral("lengths \u00b1 256 / \u00b1 0")));
      }
  EXPECT_TRUE(noted);
  // An offline run's first token waits in a queue: no first-token band.
  EXPECT_TRUE(p->servingView().run.first_token.empty());
  EXPECT_FALSE(p->readoutText(QStringLiteral("run_ttft")).contains(QStringLiteral("runs like it")));
  pick(mode, QStringLiteral("static"));
  EXPECT_TRUE(spread->isUnused());
  EXPECT_TRUE(requests->isUnused());
  EXPECT_TRUE(rate->isUnused());
  p->settleServing();
  EXPECT_EQ(p->servingView().run.result.concurrency, 64);
  EXPECT_TRUE(
      p->readoutText(QStringLiteral("run_in_flight")).contains(QStringLiteral("the batch")));
  // A static batch's throughput beside what published runs like it measured
  // (vLLM reads TensorRT-LLM's runs, the model's own kind on the chip's
  // generation).
  const ServingRunView& run = p->servingView().run;
  const TrackRecord& record = run.track_record;
  EXPECT_EQ(record.scope, "TensorRT-LLM serving dense models on Hopper GPUs");
  EXPECT_NE(record.fallback.find("no published run of vllm"), std::string::npos) << record.fallback;
  const double low = record.measured_low(run.result.output_tokens_per_second_per_chip);
  EXPECT_TRUE(p->readoutText(QStringLiteral("run_throughput"))
                  .contains(QStringLiteral("(runs like it: %1 – ")
                                .arg(qs(format_grouped(low, low < 100 ? 1 : 0)))))
      << p->readoutText(QStringLiteral("run_throughput")).toStdString();
  // Its first token beside the published first tokens, above the prediction
  // on Hopper (Napkin's first tokens there come early).
  EXPECT_EQ(run.first_token.scope, "TensorRT-LLM first token, dense models on Hopper GPUs");
  EXPECT_GT(run.first_token.measured_time_high(run.result.ttft_seconds.p50),
            run.result.ttft_seconds.p50);
  EXPECT_TRUE(
      p->readoutText(QStringLiteral("run_ttft")).contains(QStringLiteral("(runs like it: ")))
      << p->readoutText(QStringLiteral("run_ttft")).toStdString();
}

// TensorRT-LLM's iteration of 8,192 tokens, without chunking, runs an
// 8,192-token prompt alone and then its decode: every concurrency is one
// request at a time, and the frontier's ends are one place, labelled once.
TEST(RooflinePanel, AFrontierWhoseEndsCoincideIsLabelledOnce) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("roofline"));
  ASSERT_TRUE(w.model()->edit(QStringLiteral("engine"), 1, [](Scenario& s) {
    s.serving.engine = "tensorrt-llm";
    s.serving.prompt_tokens = 8192;
    s.serving.context_len = 8192;
    s.serving.decode_tokens = 128;
  }));
  RooflinePanel* p = w.panel<RooflinePanel>();
  p->subTabs()->setCurrentIndex(RooflinePanel::kServingTab);
  p->settleServing();
  const ServingFrontierView& f = p->servingView().frontier;
  ASSERT_GE(f.points.size(), 2u) << f.error;
  EXPECT_NEAR(f.points.back().output_tokens_per_second_per_chip /
                  f.points.front().output_tokens_per_second_per_chip,
              1.0, 0.05);
  PlotWidget* plot = p->findChild<PlotWidget*>(QStringLiteral("plot_serving_frontier"));
  ASSERT_NE(plot, nullptr);
  int labels = 0;
  for (QCPItemText* t : plot->findChildren<QCPItemText*>())
    if (t->visible() && t->text().contains(QStringLiteral("concurrency"))) {
      ++labels;
      EXPECT_TRUE(t->text().contains(QStringLiteral(": the same"))) << t->text().toStdString();
    }
  EXPECT_EQ(labels, 1);
}
