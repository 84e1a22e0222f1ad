// The Parallelism panel driven like a user: the ranked table, choosing a row
// (one undo step), locking an axis, the memory bars and the read-outs against
// the model's numbers, a pinned baseline.
#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardItemModel>
#include <QStyle>
#include <QTableView>
#include <QTest>
#include <QToolButton>
#include <QUndoStack>

#include "PlotWidget.h"
#include "ScenarioModel.h"
#include "SliderSpin.h"
#include "Text.h"
#include "budget.h"
#include "budget/BudgetPanel.h"
#include "format.h"
#include "framework_config.h"
#include "gui_test_util.h"
#include "model_presets.h"
#include "parallel/LayoutTableModel.h"
#include "parallel/ParallelPanel.h"
#include "parallel/plots/ScheduleGanttPlot.h"
#include "parallel/plots/StageMemoryPlot.h"
#include "parallel_view.h"

using namespace napkin;

namespace {

struct Fixture {
  ScenarioModel model;
  ParallelPanel panel{&model};
  Fixture() {
    panel.resize(1280, 800);
    panel.show();
    QCoreApplication::processEvents();
  }
  QString text(ReadoutGrid::Row ParallelReadouts::*row) const {
    return panel.readouts().text(panel.readouts().*row);
  }
  int rows() const { return panel.table()->model()->rowCount(); }
  // Qwen3-30B-A3B (128 experts of 768, top-8) on `chips` chips, one edit.
  bool useQwen30(std::int64_t chips) {
    return model.edit(QStringLiteral("model"), 1, [chips](Scenario& x) {
      for (const ModelPreset& p : model_presets())
        if (p.name == "Qwen3-30B-A3B") x.shape = p.shape;
      x.model_name = "Qwen3-30B-A3B";
      x.n_chips = chips;
    });
  }
};

void clickRow(QTableView* table, int row) {
  table->scrollTo(table->model()->index(row, LayoutTableModel::kTp));
  const QRect r = table->visualRect(table->model()->index(row, LayoutTableModel::kTp));
  QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, r.center());
}

}  // namespace

TEST(ParallelPanel, TheRankColumnFitsTheLastRank) {
  // The widths are fitted to the first rows; a search can list 22,146
  // layouts and the selection can sit far down: its rank must not clip.
  Fixture f;
  QTableView* t = f.panel.table();
  const QString widest = QString::number(f.rows());
  EXPECT_GE(t->columnWidth(LayoutTableModel::kRank),
            t->fontMetrics().horizontalAdvance(QStringLiteral("88888")) + 8);
  EXPECT_GE(t->columnWidth(LayoutTableModel::kRank),
            t->fontMetrics().horizontalAdvance(widest) + 8);
}

TEST(ParallelPanel, TheTableListsLayoutsThatFitByStepTime) {
  Fixture f;
  const SearchResult expected = scenario_layouts(f.model.scenario());
  ASSERT_GT(f.rows(), 1);
  EXPECT_EQ(f.rows(), expected.fitting);
  for (int i = 0; i < f.rows(); ++i) {
    const LayoutResult& r = f.panel.layoutAtRow(i);
    EXPECT_TRUE(r.fits);
    EXPECT_EQ(r.layout, expected.layouts[static_cast<std::size_t>(i)].layout);
    if (i > 0) {
      EXPECT_LE(f.panel.layoutAtRow(i - 1).step_seconds, r.step_seconds);
    }
    EXPECT_EQ(f.panel.table()->model()->index(i, LayoutTableModel::kStep).data().toString(),
              qs(format_seconds(r.step_seconds)));
  }
  // The first row is the layout the scenario runs, selected.
  EXPECT_EQ(f.panel.view().layout->layout, f.panel.layoutAtRow(0).layout);
  EXPECT_TRUE(f.panel.table()->selectionModel()->isRowSelected(0, {}));
  // Sorting by a header sorts the numbers, not their text.
  f.panel.table()->sortByColumn(LayoutTableModel::kStep, Qt::DescendingOrder);
  for (int i = 1; i < f.rows(); ++i)
    EXPECT_GE(f.panel.layoutAtRow(i - 1).step_seconds, f.panel.layoutAtRow(i).step_seconds);
  // Ticking the box adds the layouts that do not fit.
  QTest::mouseClick(f.panel.showAll(), Qt::LeftButton);
  EXPECT_EQ(f.rows(), static_cast<int>(expected.layouts.size()));
}

TEST(ParallelPanel, ClickingARowChoosesItAsOneUndoStep) {
  Fixture f;
  ASSERT_GT(f.rows(), 3);
  QUndoStack* undo = f.model.undoStack();
  const int before = undo->count();
  const Layout third = f.panel.layoutAtRow(2).layout;
  clickRow(f.panel.table(), 2);
  ASSERT_TRUE(f.model.scenario().parallel.chosen);
  EXPECT_EQ(*f.model.scenario().parallel.chosen, third);
  EXPECT_EQ(undo->count(), before + 1);
  EXPECT_EQ(f.panel.view().layout->layout, third);
  EXPECT_TRUE(f.panel.view().chosen);
  EXPECT_TRUE(f.panel.table()->selectionModel()->isRowSelected(2, {}));
  EXPECT_TRUE(f.panel.fastestButton()->isEnabled());
  // Clicking the same row again changes nothing.
  clickRow(f.panel.table(), 2);
  EXPECT_EQ(undo->count(), before + 1);
  undo->undo();
  EXPECT_FALSE(f.model.scenario().parallel.chosen);
  EXPECT_EQ(f.panel.view().layout->layout, f.panel.layoutAtRow(0).layout);
  // "Fastest that fits" forgets a chosen row, as one step.
  clickRow(f.panel.table(), 1);
  ASSERT_TRUE(f.model.scenario().parallel.chosen);
  QTest::mouseClick(f.panel.fastestButton(), Qt::LeftButton);
  EXPECT_FALSE(f.model.scenario().parallel.chosen);
  EXPECT_FALSE(f.panel.fastestButton()->isEnabled());
}

TEST(ParallelPanel, LockingTp8LeavesOnlyTp8Rows) {
  Fixture f;
  pick(f.panel.controls().tp, QStringLiteral("8"));
  EXPECT_EQ(f.model.scenario().parallel.tp, 8);
  f.panel.waitForSearch();
  QTest::mouseClick(f.panel.showAll(), Qt::LeftButton);  // every row, fitting or not
  ASSERT_GT(f.rows(), 0);
  for (int i = 0; i < f.rows(); ++i) EXPECT_EQ(f.panel.layoutAtRow(i).layout.tp, 8);
  EXPECT_EQ(f.panel.view().layout->layout.tp, 8);
  pick(f.panel.controls().tp, QStringLiteral("auto"));
  EXPECT_FALSE(f.model.scenario().parallel.tp);
  f.panel.waitForSearch();
  bool other = false;
  for (int i = 0; i < f.rows(); ++i) other = other || f.panel.layoutAtRow(i).layout.tp != 8;
  EXPECT_TRUE(other);
}

TEST(ParallelPanel, LocksTheFrameworkNeverRunsAreGreyedAndSayWhy) {
  // FSDP has no ZeRO-1; DeepSpeed's pipeline engine no interleaving or CP;
  // under modern every value is offered.
  Fixture f;
  auto itemOf = [](QComboBox* c, int value) {
    auto* items = qobject_cast<QStandardItemModel*>(c->model());
    return items->item(c->findText(QString::number(value)) >= 0
                           ? c->findText(QString::number(value))
                           : c->findData(value));
  };
  auto item = [&](int zero) { return itemOf(f.panel.controls().zero, zero); };
  pick(f.panel.controls().software, QStringLiteral("megatron-deepspeed"));
  f.panel.waitForSearch();
  EXPECT_FALSE(itemOf(f.panel.controls().vpp, 2)->isEnabled());
  EXPECT_EQ(itemOf(f.panel.controls().vpp, 2)->toolTip(),
            QStringLiteral("DeepSpeed's pipeline engine (megatron-deepspeed) has no interleaved "
                           "pipeline schedule"));
  EXPECT_TRUE(itemOf(f.panel.controls().vpp, 1)->isEnabled());
  EXPECT_FALSE(itemOf(f.panel.controls().cp, 2)->isEnabled());
  EXPECT_TRUE(item(2)->isEnabled());  // without a pipeline DeepSpeed runs ZeRO-2
  pick(f.panel.controls().software, QStringLiteral("megatron-2021"));
  f.panel.waitForSearch();
  QComboBox* rc = f.panel.controls().recompute;
  auto* rcItems = qobject_cast<QStandardItemModel*>(rc->model());
  EXPECT_FALSE(rcItems->item(rc->findText(QStringLiteral("selective")))->isEnabled());
  EXPECT_TRUE(rcItems->item(rc->findText(QStringLiteral("full")))->isEnabled());
  QComboBox* tpc = f.panel.controls().train_precision;
  auto* tpItems = qobject_cast<QStandardItemModel*>(tpc->model());
  EXPECT_FALSE(tpItems->item(tpc->findData(QStringLiteral("fp8")))->isEnabled());
  // The Budget planner's box of the same scenario says the same.
  BudgetPanel budget(&f.model);
  QComboBox* bpc = budget.controls().train_precision;
  auto* bpItems = qobject_cast<QStandardItemModel*>(bpc->model());
  QStandardItem* fp8 = bpItems->item(bpc->findData(QStringLiteral("fp8")));
  EXPECT_FALSE(fp8->isEnabled());
  EXPECT_EQ(fp8->toolTip(), QStringLiteral("Megatron-LM 2021 has no FP8 GEMMs"));
  pick(f.panel.controls().software, QStringLiteral("fsdp"));
  f.panel.waitForSearch();
  EXPECT_FALSE(item(1)->isEnabled());
  EXPECT_EQ(item(1)->toolTip(), QStringLiteral("PyTorch FSDP2 (torchtitan) runs ZeRO 0, 2 and 3"));
  EXPECT_TRUE(item(2)->isEnabled());
  EXPECT_TRUE(item(3)->isEnabled());
  for (int i = 0; i < f.rows(); ++i) EXPECT_NE(f.panel.layoutAtRow(i).layout.zero, 1);
  pick(f.panel.controls().software, QStringLiteral("modern"));
  f.panel.waitForSearch();
  for (int z = 0; z <= 3; ++z) EXPECT_TRUE(item(z)->isEnabled()) << z;
  EXPECT_TRUE(item(1)->toolTip().isEmpty());
  EXPECT_TRUE(itemOf(f.panel.controls().vpp, 2)->isEnabled());
  EXPECT_TRUE(rcItems->item(rc->findText(QStringLiteral("selective")))->isEnabled());
  EXPECT_TRUE(tpItems->item(tpc->findData(QStringLiteral("fp8")))->isEnabled());
}

TEST(ParallelPanel, TheMemoryBarsAreTheStagesOfTheLayout) {
  Fixture f;
  clickRow(f.panel.table(), 1);
  const Scenario& s = f.model.scenario();
  const std::vector<StageMemory> expected = memory_by_stage(training_job(s), *s.parallel.chosen);
  const std::vector<StageMemory>& drawn = f.panel.memoryPlot()->stages();
  ASSERT_EQ(drawn.size(), expected.size());
  ASSERT_EQ(static_cast<std::int64_t>(drawn.size()), s.parallel.chosen->pp);
  for (std::size_t i = 0; i < drawn.size(); ++i) {
    EXPECT_EQ(drawn[i].stage, expected[i].stage);
    EXPECT_EQ(drawn[i].weights_bytes, expected[i].weights_bytes);
    EXPECT_EQ(drawn[i].activations_bytes, expected[i].activations_bytes);
    EXPECT_EQ(drawn[i].total_bytes, expected[i].total_bytes);
  }
}

TEST(ParallelPanel, ReadoutsAreTheModelsNumbersForTheLayout) {
  Fixture f;
  for (int row : {0, 3}) {
    if (row >= f.rows()) break;
    if (row > 0) clickRow(f.panel.table(), row);
    const Layout l = f.panel.view().layout->layout;
    const LayoutResult r = evaluate_layout(training_job(f.model.scenario()), l);
    EXPECT_EQ(f.text(&ParallelReadouts::step), qs(format_seconds(r.step_seconds)));
    // The MFU beside the band published runs like it measured.
    const TrackRecord t = training_track_record(f.model.scenario().parallel.software,
                                                chip_by_name(f.model.scenario().chip));
    EXPECT_EQ(f.text(&ParallelReadouts::mfu), qs(format_percent(r.mfu) + " (runs like it: " +
                                                 format_percent(t.measured_low(r.mfu)) + " – " +
                                                 format_percent(t.measured_high(r.mfu)) + ")"));
    EXPECT_EQ(f.text(&ParallelReadouts::hfu), qs(format_percent(r.hfu)));
    EXPECT_EQ(f.text(&ParallelReadouts::days), qs(format_grouped(r.days, 1) + " days"));
    EXPECT_EQ(f.text(&ParallelReadouts::tokens),
              qs(format_grouped(r.tokens_per_second_per_chip, 0) + " tokens/s"));
    EXPECT_TRUE(f.text(&ParallelReadouts::memory)
                    .startsWith(fmtBytes(static_cast<double>(r.memory.total_bytes))));
    EXPECT_EQ(f.text(&ParallelReadouts::fits), QStringLiteral("yes"));
  }
}

TEST(ParallelPanel, TheBudgetMfuSourceIsAScenarioEdit) {
  Fixture f;
  EXPECT_TRUE(f.text(&ParallelReadouts::budget_mfu).contains(QStringLiteral("assumed")));
  pick(f.panel.controls().mfu_source, QStringLiteral("predicted (this layout)"));
  EXPECT_EQ(f.model.scenario().parallel.mfu_source, MfuSource::predicted);
  EXPECT_EQ(f.text(&ParallelReadouts::budget_mfu),
            qs(format_percent(f.panel.view().layout->mfu) + " (predicted)"));
  f.model.undoStack()->undo();
  EXPECT_EQ(f.model.scenario().parallel.mfu_source, MfuSource::assumed);
}

TEST(ParallelPanel, ASliderSearchesAgainOffTheUiThread) {
  Fixture f;
  SliderSpin* batch = f.panel.controls().global_batch;
  const std::int64_t mb_before = f.panel.view().layout->micro_batches;
  batch->slider()->setFocus();
  QTest::keyClick(batch->slider(), Qt::Key_PageUp);
  EXPECT_GT(f.model.scenario().parallel.global_batch_tokens,
            ParallelSettings{}.global_batch_tokens);
  // At once: the shown layout is re-evaluated for the new batch.
  EXPECT_EQ(f.panel.view().job.global_batch, step_sequences(f.model.scenario()));
  f.panel.waitForSearch();
  EXPECT_FALSE(f.panel.isBusy());
  EXPECT_EQ(f.panel.view().layout->layout, f.panel.layoutAtRow(0).layout);
  EXPECT_NE(f.panel.view().layout->micro_batches, mb_before);
}

TEST(ParallelPanel, ABaselineShowsDeltasAndGhosts) {
  Fixture f;
  Scenario a = f.model.scenario();
  a.parallel.tp = 2;
  f.panel.setBaseline(&a);
  EXPECT_FALSE(f.panel.readouts().grid()->deltaText(f.panel.readouts().step).isEmpty());
  EXPECT_GT(f.panel.memoryPlot()->ghostCount(), 0);
  f.panel.setBaseline(nullptr);
  EXPECT_TRUE(f.panel.readouts().grid()->deltaText(f.panel.readouts().step).isEmpty());
}

TEST(ParallelPanel, TheReportHasTheLayoutTheStagesAndTheStepParts) {
  Fixture f;
  const ReportSection r = f.panel.reportSection();
  EXPECT_EQ(r.charts.size(), 4u);
  bool stages = false, parts = false;
  for (const ReportTable& t : r.tables) {
    stages = stages || t.title.contains(QStringLiteral("pipeline stage"));
    parts = parts || t.title.contains(QStringLiteral("step"));
    for (const ReportRow& row : t.rows) {
      EXPECT_FALSE(row.value.contains(QStringLiteral("nan"), Qt::CaseInsensitive));
      EXPECT_FALSE(row.value.isEmpty()) << row.name.toStdString();
    }
  }
  EXPECT_TRUE(stages);
  EXPECT_TRUE(parts);
}

// Issue 25: "Copy launch flags" puts the running layout's Megatron-LM
// arguments (or torchtitan TOML) on the clipboard, and they import back.
TEST(ParallelPanel, CopyLaunchFlagsImportsBackAsTheRunningLayout) {
  Fixture f;
  f.panel.waitForSearch();
  ASSERT_TRUE(f.panel.view().layout.has_value());
  const Layout running = f.panel.view().layout->layout;
  const QString megatron = f.panel.copyLaunchFlags(false);
  ASSERT_FALSE(megatron.isEmpty());
  EXPECT_EQ(QApplication::clipboard()->text(), megatron);
  const TrainingConfig back =
      import_training_config(megatron.toStdString(), "clipboard", TrainingFramework::megatron);
  Layout expected = running;
  if (expected.tp == 1) expected.sequence_parallel = false;  // no effect at tp = 1: not emitted
  if (expected.zero == 2) expected.zero = 1;                 // Megatron-LM's distributed optimizer
  EXPECT_EQ(back.layout, expected) << megatron.toStdString();
  const QString titan = f.panel.copyLaunchFlags(true);
  EXPECT_TRUE(titan.contains(QStringLiteral("[parallelism]")));
}

// Issue 27 (task d): a kernel class that takes no time reads "none", not
// "0 ns (0.0 %)" (the default layout under a framework that dispatches ahead).
TEST(ParallelPanel, AKernelClassThatTakesNoTimeReadsNone) {
  Fixture f;
  const QString host = f.text(&ParallelReadouts::host_wait);
  EXPECT_EQ(host, QStringLiteral("none"));
  EXPECT_FALSE(f.text(&ParallelReadouts::gemm).startsWith(QStringLiteral("0 ")));
}

// Issue 27 (task d): the cluster's sliders start at one x, whatever their
// labels' lengths, and "Copy launch flags" has room for its text and arrow.
TEST(ParallelPanel, ClusterSlidersLineUpAndTheFlagsButtonIsNotCut) {
  Fixture f;
  f.panel.resize(1024, 700);
  QCoreApplication::processEvents();
  std::vector<int> xs;
  for (SliderSpin* s : f.panel.findChildren<SliderSpin*>())
    if (s->parentWidget() ==
        f.panel.findChild<SliderSpin*>(QStringLiteral("parallelGpusPerNode"))->parentWidget())
      xs.push_back(s->slider()->mapTo(&f.panel, QPoint(0, 0)).x());
  ASSERT_GE(xs.size(), 3u);
  for (int x : xs) EXPECT_EQ(x, xs.front());
  auto* flags = f.panel.findChild<QToolButton*>(QStringLiteral("parallelCopyFlags"));
  ASSERT_NE(flags, nullptr);
  EXPECT_GE(flags->width(), flags->fontMetrics().horizontalAdvance(flags->text()) +
                                flags->style()->pixelMetric(QStyle::PM_MenuButtonIndicator));
}

// Issue 26: the training precision is one scenario field that the
// Parallelism panel and the Budget planner both show; FP8 puts the FP8 peak
// and what is not priced into the budget memo.
TEST(ParallelPanel, TrainingPrecisionIsSharedWithTheBudgetPlanner) {
  Fixture f;
  BudgetPanel budget(&f.model);
  auto* mine = f.panel.findChild<QComboBox*>(QStringLiteral("parallelTrainPrecision"));
  auto* theirs = budget.findChild<QComboBox*>(QStringLiteral("trainPrecision"));
  ASSERT_NE(mine, nullptr);
  ASSERT_NE(theirs, nullptr);
  EXPECT_EQ(mine->currentData().toString(), QStringLiteral("bf16"));
  pick(mine, QStringLiteral("FP8 GEMMs"));
  EXPECT_EQ(f.model.scenario().training.precision, Precision::mixed_fp8);
  budget.show();  // the Budget planner refreshes its controls when shown
  QCoreApplication::processEvents();
  EXPECT_EQ(theirs->currentData().toString(), QStringLiteral("fp8"));
  const BudgetReport r = budget_report(f.model.scenario().budget_inputs());
  EXPECT_NE(r.recommendation.find("FP8 GEMMs"), std::string::npos) << r.recommendation;
  f.model.undoStack()->undo();
  QCoreApplication::processEvents();
  EXPECT_EQ(f.model.scenario().training.precision, Precision::mixed_bf16);
  EXPECT_EQ(mine->currentData().toString(), QStringLiteral("bf16"));
}

// Issue 27, defect 15: the read-outs say which model on how many of which chip
// they are for, in the layout section's title, and follow a change of either
// (the chip count edited in another panel, the model's preset) and a chosen row.
TEST(ParallelPanel, TheReadoutsNameTheModelAndChipCountTheyAreFor) {
  Fixture f;
  const ParallelReadouts& r = f.panel.readouts();
  const auto title = [&] { return r.grid()->sectionTitle(r.layout_section); };
  const Scenario& s = f.model.scenario();
  const QString subject = qs(s.model_name + " on " + format_grouped(s.n_chips) + " × " + s.chip);
  EXPECT_TRUE(subject.contains(QStringLiteral("1,000 × H100"))) << subject.toStdString();
  EXPECT_EQ(title(), QStringLiteral("Fastest layout that fits: ") + subject);
  ASSERT_TRUE(f.model.edit(QStringLiteral("chips"), 1, [](Scenario& x) {
    x.n_chips = 2048;
    x.chip = "A100-80";
    x.model_name = "Llama-3-8B";
  }));
  f.panel.waitForSearch();
  EXPECT_EQ(title(), QStringLiteral("Fastest layout that fits: Llama-3-8B on 2,048 × A100-80"));
  ASSERT_GT(f.rows(), 1);
  clickRow(f.panel.table(), 1);
  EXPECT_EQ(title(), QStringLiteral("Chosen layout: Llama-3-8B on 2,048 × A100-80"));
  // The report's read-out table carries the same title.
  bool in_report = false;
  for (const ReportTable& t : r.grid()->reportTables()) in_report = in_report || t.title == title();
  EXPECT_TRUE(in_report);
}

// Issue 23: the non-tensor memory control's 0 means "Napkin's estimate", so
// it reads "estimated", not "0.00 GB"; a typed figure is used as measured,
// and typing "estimated" (any case) goes back to the estimate.
TEST(ParallelPanel, TheNonTensorControlReadsEstimatedAtZero) {
  Fixture f;
  auto* control = f.panel.findChild<SliderSpin*>(QStringLiteral("parallelNonTensor"));
  ASSERT_NE(control, nullptr);
  SciSpinBox* spin = control->spinBox();
  EXPECT_EQ(f.model.scenario().parallel.non_tensor_gb, 0.0);
  EXPECT_EQ(spin->text(), QStringLiteral("estimated"));
  auto type = [&](const QString& text) {
    spin->setFocus();
    spin->selectAll();
    QTest::keyClicks(spin, text);
    QTest::keyClick(spin, Qt::Key_Return);
    QCoreApplication::processEvents();
  };
  type(QStringLiteral("4.5"));
  EXPECT_DOUBLE_EQ(f.model.scenario().parallel.non_tensor_gb, 4.5);
  EXPECT_EQ(spin->text(), QStringLiteral("4.50 GB"));
  type(QStringLiteral("Estimated"));
  EXPECT_EQ(f.model.scenario().parallel.non_tensor_gb, 0.0);
  EXPECT_EQ(spin->text(), QStringLiteral("estimated"));
  f.model.undoStack()->undo();  // back to the measured figure
  QCoreApplication::processEvents();
  EXPECT_DOUBLE_EQ(f.model.scenario().parallel.non_tensor_gb, 4.5);
  EXPECT_EQ(spin->text(), QStringLiteral("4.50 GB"));
}

// The pipeline schedule is a scenario choice (the software preset's unless
// picked): zb-h1 moves the step time and the chart draws its weight
// gradients; the chart's caption fits its plot whatever it says.
TEST(ParallelPanel, TheScheduleIsAChoiceTheChartDraws) {
  Fixture f;
  f.panel.resize(1024, 700);
  pick(f.panel.controls().pp, QStringLiteral("8"));
  pick(f.panel.controls().vpp, QStringLiteral("1"));
  f.panel.waitForSearch();
  ASSERT_TRUE(f.panel.view().layout && f.panel.view().layout->valid);
  const double one_f_one_b = f.panel.view().layout->step_seconds;
  EXPECT_EQ(f.panel.view().schedule.order, PipeSchedule::one_f_one_b);
  pick(f.panel.controls().pipe_schedule, QStringLiteral("zb-h1"));
  EXPECT_EQ(f.model.scenario().parallel.pipe_schedule, PipeSchedule::zb_h1);
  f.panel.waitForSearch();
  const ParallelView& v = f.panel.view();
  ASSERT_TRUE(v.layout && v.layout->valid);
  EXPECT_LT(v.layout->step_seconds, one_f_one_b);
  EXPECT_EQ(v.schedule.order, PipeSchedule::zb_h1);
  EXPECT_TRUE(std::any_of(v.schedule.ops.begin(), v.schedule.ops.end(),
                          [](const ScheduleOp& op) { return op.weight; }));
  EXPECT_NE(f.text(&ParallelReadouts::software).indexOf(QStringLiteral("zb-h1")), -1);
  auto* gantt = dynamic_cast<ScheduleGanttPlot*>(f.panel.plots().at(2));
  ASSERT_NE(gantt, nullptr);
  // The caption says what is drawn and fits the plot: a caption wider than
  // its room is broken between words (every plot's axis titles are).
  auto captionFits = [&] {
    gantt->replot();
    const QString shown = gantt->xAxis->label();
    const QFontMetricsF fm(gantt->xAxis->labelFont());
    for (const QString& line : shown.split(QLatin1Char('\n')))
      EXPECT_LE(fm.horizontalAdvance(line), gantt->width()) << shown.toStdString();
    EXPECT_EQ(
        QString(gantt->axisTitle(gantt->xAxis)).replace(QLatin1Char(' '), QString()),
        QString(shown).replace(QLatin1Char('\n'), QString()).replace(QLatin1Char(' '), QString()));
    return gantt->axisTitle(gantt->xAxis);
  };
  EXPECT_NE(captionFits().indexOf(QStringLiteral("zb-h1")), -1);
  bool legend = false;
  for (int i = 0; i < gantt->legend->itemCount(); ++i)
    if (auto* item = qobject_cast<QCPPlottableLegendItem*>(gantt->legend->item(i)))
      legend = legend || item->plottable()->name().contains(QStringLiteral("weight gradient"));
  EXPECT_TRUE(legend);
  // Interleaved, the chart says what it leaves out; DualPipe likewise.
  pick(f.panel.controls().vpp, QStringLiteral("auto"));
  f.panel.waitForSearch();
  if (f.panel.view().schedule.chunks > 1) {
    EXPECT_NE(captionFits().indexOf(QStringLiteral("without zb-h1")), -1);
  }
  pick(f.panel.controls().pipe_schedule, QStringLiteral("DualPipe"));
  pick(f.panel.controls().vpp, QStringLiteral("1"));
  f.panel.waitForSearch();
  if (f.panel.view().layout && f.panel.view().layout->valid) {
    EXPECT_NE(captionFits().indexOf(QStringLiteral("not DualPipe's")), -1);
  }
  // Back to the software's schedule; each entry the keyboard passed is one
  // undo step (DualPipe, zb-h1, 1F1B, the software's).
  pick(f.panel.controls().pipe_schedule, QStringLiteral("the software's"));
  EXPECT_FALSE(f.model.scenario().parallel.pipe_schedule);
  f.model.undoStack()->undo();
  QCoreApplication::processEvents();
  EXPECT_EQ(f.model.scenario().parallel.pipe_schedule, PipeSchedule::one_f_one_b);
  EXPECT_EQ(f.panel.controls().pipe_schedule->currentText(), QStringLiteral("1F1B"));
}

// Expert TP locked to 1 on a MoE model: every row folds EP over TP (or has no
// TP to fold over), and the EP cell names the experts' own TP.
TEST(ParallelPanel, LockingExpertTpOneFoldsEpOverTp) {
  Fixture f;
  ASSERT_TRUE(f.useQwen30(64));
  pick(f.panel.controls().tp, QStringLiteral("2"));
  pick(f.panel.controls().etp, QStringLiteral("1"));
  EXPECT_EQ(f.model.scenario().parallel.etp, 1);
  f.panel.waitForSearch();
  QTest::mouseClick(f.panel.showAll(), Qt::LeftButton);
  ASSERT_GT(f.rows(), 0);
  bool named = false;
  for (int i = 0; i < f.rows(); ++i) {
    const Layout& l = f.panel.layoutAtRow(i).layout;
    EXPECT_EQ(l.tp, 2);
    EXPECT_EQ(l.etp, 1) << to_string(l);
    const QString ep = f.panel.table()->model()->index(i, LayoutTableModel::kEp).data().toString();
    named = named || ep.contains(QStringLiteral("(ETP 1)"));
  }
  EXPECT_TRUE(named);
  pick(f.panel.controls().etp, QStringLiteral("auto"));
  EXPECT_FALSE(f.model.scenario().parallel.etp);
}

// The expert dispatch: flex (DeepEP, HybridEP) on an MoE layout that spans
// nodes shortens the step; the read-out names it; undo walks back.
TEST(ParallelPanel, TheExpertDispatchIsAChoice) {
  Fixture f;
  ASSERT_TRUE(f.useQwen30(16));
  pick(f.panel.controls().tp, QStringLiteral("1"));
  pick(f.panel.controls().pp, QStringLiteral("1"));
  pick(f.panel.controls().ep, QStringLiteral("16"));
  f.panel.waitForSearch();
  ASSERT_TRUE(f.panel.view().layout && f.panel.view().layout->valid);
  const double ep_a2a = f.panel.view().layout->time.ep_comm_seconds;
  ASSERT_GT(ep_a2a, 0);
  pick(f.panel.controls().ep_dispatch, QStringLiteral("flex (DeepEP, HybridEP)"));
  EXPECT_EQ(f.model.scenario().parallel.ep_dispatch, EpDispatch::deduplicated);
  f.panel.waitForSearch();
  ASSERT_TRUE(f.panel.view().layout && f.panel.view().layout->valid);
  EXPECT_LT(f.panel.view().layout->time.ep_comm_seconds, 0.5 * ep_a2a);
  EXPECT_NE(f.text(&ParallelReadouts::software).indexOf(QStringLiteral("flex expert dispatch")),
            -1);
  // Each entry the keyboard passed is one undo step (all-to-all, then flex).
  f.model.undoStack()->undo();
  QCoreApplication::processEvents();
  EXPECT_EQ(f.model.scenario().parallel.ep_dispatch, EpDispatch::all_to_all);
  f.model.undoStack()->undo();
  QCoreApplication::processEvents();
  EXPECT_FALSE(f.model.scenario().parallel.ep_dispatch);
  EXPECT_EQ(f.panel.controls().ep_dispatch->currentText(), QStringLiteral("the software's"));
}

// The chosen layout's text wraps between its entries, never inside one
// ("zero\n=1"), and "Copy read-outs" carries it as --layout reads it.
TEST(ParallelPanel, TheLayoutTextBreaksAtItsCommasAndCopiesPlain) {
  Fixture f;
  ASSERT_TRUE(f.panel.view().layout.has_value());
  const std::string plain = to_string(f.panel.view().layout->layout);
  QString note;
  for (const ReportRow& r : f.panel.readouts().grid()->reportRows())
    if (r.name == QStringLiteral("Layout")) note = r.note;
  EXPECT_EQ(note, qs(plain).replace(QLatin1Char(','), QStringLiteral(",\u200B")));
  const QString tsv = f.panel.readouts().grid()->toTsv();
  EXPECT_TRUE(tsv.contains(qs(plain))) << tsv.toStdString();
  EXPECT_FALSE(tsv.contains(QChar(0x200B)));
}

// The recompute lock takes typed text as --layout does: a partial full
// recomputation locks the search to it, and text it refuses snaps back with
// the model's message.
TEST(ParallelPanel, TheRecomputeLockTakesTypedLayoutValues) {
  Fixture f;
  QComboBox* rc = f.panel.controls().recompute;
  ASSERT_TRUE(rc->isEditable());
  auto type = [rc](const QString& text) {
    rc->lineEdit()->selectAll();
    QTest::keyClicks(rc->lineEdit(), text);
    QTest::keyClick(rc->lineEdit(), Qt::Key_Return);
  };
  type(QStringLiteral("full:2"));
  EXPECT_EQ(f.model.scenario().parallel.recompute_lock_text(), "full:2");
  f.panel.waitForSearch();
  QTest::mouseClick(f.panel.showAll(), Qt::LeftButton);
  ASSERT_GT(f.rows(), 0);
  for (int i = 0; i < f.rows(); ++i) {
    const Layout& l = f.panel.layoutAtRow(i).layout;
    EXPECT_EQ(recompute_text(l), "full:2") << to_string(l);
  }
  const int steps = f.model.undoStack()->count();
  QSignalSpy rejected(&f.model, &ScenarioModel::editRejected);
  type(QStringLiteral("full:zero"));
  ASSERT_EQ(rejected.count(), 1);
  EXPECT_TRUE(rejected.front().front().toString().contains(QStringLiteral("full:N")));
  EXPECT_EQ(f.model.scenario().parallel.recompute_lock_text(), "full:2");
  EXPECT_EQ(rc->currentText(), QStringLiteral("full:2"));  // snapped back
  EXPECT_EQ(f.model.undoStack()->count(), steps);
  type(QStringLiteral("auto"));  // an item's text picks the item
  EXPECT_FALSE(f.model.scenario().parallel.recompute);
  EXPECT_EQ(rc->currentText(), QStringLiteral("auto"));
}
