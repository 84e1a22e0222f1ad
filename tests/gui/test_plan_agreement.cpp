// One resolved plan and one input registry, seen from the window: every
// control of a registered input accepts the registry's range, and with the
// Budget MFU predicted every panel shows the same C and MFU while the unused
// MFU slider is disabled and says why.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QTemporaryDir>

#include "ScenarioModel.h"
#include "SliderSpin.h"
#include "Text.h"
#include "budget/BudgetPanel.h"
#include "budget/plots/MemoryPlot.h"
#include "choices.h"
#include "compare.h"
#include "format.h"
#include "gui_test_util.h"
#include "hardware.h"
#include "inputs.h"
#include "isoflops/IsoflopsPanel.h"
#include "moe/MoePanel.h"
#include "parallel/ParallelPanel.h"
#include "plan.h"
#include "roofline/RooflinePanel.h"
#include "scenario_json.h"
#include "shell/MainWindow.h"
#include "switches.h"

using namespace napkin;

namespace {

// The controls labelled `label` (the registry's labels are unique: the MoE
// router's "Experts per token k" is its run's, the model's "Top-k" the
// model's).
std::vector<SliderSpin*> controlsLabelled(MainWindow& w, std::string_view label) {
  std::vector<SliderSpin*> out;
  for (SliderSpin* s : w.findChildren<SliderSpin*>())
    if (s->spec().label == QString::fromUtf8(label.data(), static_cast<qsizetype>(label.size())))
      out.push_back(s);
  return out;
}

}  // namespace

TEST(PlanAgreement, EveryRegisteredInputsControlAcceptsTheRegistrysRange) {
  MainWindow w(MainWindow::Session::fresh);
  for (const ScenarioInput& in : scenario_inputs()) {
    SCOPED_TRACE(std::string(in.key));
    // The KV heads are a choice among the divisors of the heads.
    if (in.key == "model.kv_heads") {
      EXPECT_NE(w.findChild<QComboBox*>(QStringLiteral("kv_heads")), nullptr);
      continue;
    }
    const std::vector<SliderSpin*> controls = controlsLabelled(w, in.label);
    ASSERT_FALSE(controls.empty()) << "no control labelled " << in.label;
    for (SliderSpin* c : controls) {
      EXPECT_DOUBLE_EQ(c->spinBox()->acceptedMin(), in.lo * in.display_factor);
      EXPECT_DOUBLE_EQ(c->spinBox()->acceptedMax(), in.hi * in.display_factor);
      EXPECT_DOUBLE_EQ(c->spec().min, in.slider_lo);
      EXPECT_DOUBLE_EQ(c->spec().max, in.slider_hi);
      // The training tokens' control shows the planner's own choice (tokens
      // per parameter × N) while the input is 0.
      // The checkpoint write time, unset, shows the one derived from the
      // storage bandwidth.
      if (in.key == "plan.train_tokens" || in.key == "goodput.checkpoint_write_minutes")
        EXPECT_GT(c->value(), 0);
      else
        EXPECT_DOUBLE_EQ(c->value(), in.default_value);
      EXPECT_TRUE(c->spinBox()->toolTip().contains(qs(std::string(in.tooltip))));
    }
  }
}

TEST(PlanAgreement, ATypedValueBeyondTheSliderIsKept) {
  MainWindow w(MainWindow::Session::fresh);
  SliderSpin* chips = controlsLabelled(w, "Chips").front();
  // Past the slider's 100,000, inside the accepted 10 million (and where a
  // run still progresses at Llama 3's interruption rate).
  chips->spinBox()->setValue(150'000);
  QCoreApplication::processEvents();
  EXPECT_EQ(w.model()->scenario().n_chips, 150'000);
  EXPECT_EQ(chips->slider()->value(), chips->slider()->maximum());
}

// The model's shape is registered: its Layers control takes what the file and
// napkin-cli take (300 blocks, past the slider's 200), and an edit renames
// the model Custom; a file's shape past the old slider loads and shows as
// it is.
TEST(PlanAgreement, TheModelsShapeTakesTheRegistrysRange) {
  MainWindow w(MainWindow::Session::fresh);
  SliderSpin* layers = controlsLabelled(w, "Layers").front();
  layers->spinBox()->setValue(300);
  QCoreApplication::processEvents();
  EXPECT_EQ(w.model()->scenario().shape.n_layers, 300);
  EXPECT_EQ(w.model()->scenario().model_name, "Custom");
  EXPECT_EQ(layers->slider()->value(), layers->slider()->maximum());
  // A value beyond the registry's range is not taken.
  layers->spinBox()->setValue(kMaxLayers + 1);
  QCoreApplication::processEvents();
  EXPECT_LE(w.model()->scenario().shape.n_layers, kMaxLayers);
}

TEST(PlanAgreement, WithAPredictedMfuEveryPanelShowsTheSameComputeAndMfu) {
  MainWindow w(MainWindow::Session::fresh);
  ASSERT_TRUE(w.model()->edit(QStringLiteral("predicted"), 9001,
                              [](Scenario& s) { s.parallel.mfu_source = MfuSource::predicted; }));
  w.settle();
  QCoreApplication::processEvents();
  const ResolvedPlan plan = resolve_plan(w.model()->scenario());
  ASSERT_EQ(plan.mfu.source, MfuSource::predicted) << plan.mfu.note;
  ASSERT_NE(plan.mfu.mfu, w.model()->scenario().mfu);

  auto* budget = w.panel<BudgetPanel>();
  ASSERT_NE(budget, nullptr);
  EXPECT_DOUBLE_EQ(budget->view().report.flops, plan.compute_flops);
  EXPECT_TRUE(budget->readouts()
                  .text(budget->readouts().flops)
                  .startsWith(qs(format_sci(plan.compute_flops) + " FLOPs")));
  // Its range beside it: the band published runs like it measured.
  ASSERT_LT(plan.mfu.mfu_low, plan.mfu.mfu_high);
  EXPECT_EQ(budget->readouts().text(budget->readouts().mfu),
            qs(format_percent(plan.mfu.mfu, 1) + " (range " + format_percent(plan.mfu.mfu_low, 1) +
               " – " + format_percent(plan.mfu.mfu_high, 1) + ")"));

  auto* isoflops = w.panel<IsoflopsPanel>();
  ASSERT_NE(isoflops, nullptr);
  EXPECT_TRUE(isoflops->readouts()
                  .text(QStringLiteral("target"))
                  .startsWith(qs(format_sci(plan.compute_flops, 3) + " FLOPs")));

  auto* parallel = w.panel<ParallelPanel>();
  ASSERT_NE(parallel, nullptr);
  EXPECT_TRUE(parallel->readouts()
                  .text(parallel->readouts().budget_mfu)
                  .startsWith(qs(format_percent(plan.mfu.mfu))));

  auto* roofline = w.panel<RooflinePanel>();
  ASSERT_NE(roofline, nullptr);
  roofline->refreshIfStale();
  EXPECT_TRUE(roofline->readoutText(QStringLiteral("planMfu"))
                  .startsWith(qs(format_percent(plan.mfu.mfu) +
                                 " (predicted), C = " + format_sci(plan.compute_flops, 3))))
      << roofline->readoutText(QStringLiteral("planMfu")).toStdString();

  // The slider and its range are not used, and say so; greyed, the slider
  // shows the MFU the plan runs at, and its tooltip the assumed one kept.
  SliderSpin* mfu = budget->controls().mfu;
  const double assumed = w.model()->scenario().mfu;
  EXPECT_FALSE(mfu->isEnabled());
  EXPECT_TRUE(mfu->isUnused());
  EXPECT_TRUE(mfu->spinBox()->toolTip().startsWith(QStringLiteral("Not used")));
  EXPECT_DOUBLE_EQ(mfu->value(), plan.mfu.mfu);
  EXPECT_NE(plan.mfu.mfu, assumed);
  EXPECT_TRUE(mfu->spinBox()->toolTip().contains(qs(format_percent(assumed))))
      << mfu->spinBox()->toolTip().toStdString();
  EXPECT_FALSE(budget->controls().plan.ranges[0].on->isEnabled());
  // The range's bounds show the band in use, greyed, and say where it is from.
  SliderSpin* low = budget->controls().plan.ranges[0].low;
  SliderSpin* high = budget->controls().plan.ranges[0].high;
  for (SliderSpin* bound : {low, high}) {
    EXPECT_FALSE(bound->isEnabled());
    EXPECT_TRUE(bound->spinBox()->toolTip().contains(QStringLiteral("published runs like it")))
        << bound->spinBox()->toolTip().toStdString();
  }
  EXPECT_DOUBLE_EQ(low->value(), plan.mfu.mfu_low);
  EXPECT_DOUBLE_EQ(high->value(), plan.mfu.mfu_high);
  EXPECT_TRUE(parallel->readouts()
                  .text(parallel->readouts().mfu)
                  .contains(qs("(runs like it: " + format_percent(plan.mfu.mfu_low) + " – " +
                               format_percent(plan.mfu.mfu_high) + ")")))
      << parallel->readouts().text(parallel->readouts().mfu).toStdString();

  // Back to assumed: the slider is used again.
  ASSERT_TRUE(w.model()->edit(QStringLiteral("assumed"), 9001,
                              [](Scenario& s) { s.parallel.mfu_source = MfuSource::assumed; }));
  w.settle();
  QCoreApplication::processEvents();
  EXPECT_TRUE(mfu->isEnabled());
  EXPECT_DOUBLE_EQ(mfu->value(), assumed);
  EXPECT_FALSE(mfu->spinBox()->toolTip().startsWith(QStringLiteral("Not used")));
  EXPECT_TRUE(budget->controls().plan.ranges[0].on->isEnabled());
  // The range's bounds are the user's again, off with their check box.
  EXPECT_FALSE(low->isUnused());
  EXPECT_EQ(low->isEnabled(), w.model()->scenario().ranges.mfu.has_value());
  EXPECT_NE(low->value(), plan.mfu.mfu_low);
  EXPECT_TRUE(isoflops->readouts()
                  .text(QStringLiteral("target"))
                  .startsWith(qs(format_sci(resolve_plan(w.model()->scenario()).compute_flops, 3) +
                                 " FLOPs")));
}

TEST(PlanAgreement, WithALayoutInThePlanEveryMemoryFigureIsItsStages) {
  MainWindow w(MainWindow::Session::fresh);
  auto* budget = w.panel<BudgetPanel>();
  auto* parallel = w.panel<ParallelPanel>();
  ASSERT_NE(budget, nullptr);
  ASSERT_NE(parallel, nullptr);
  // Assumed MFU and no chosen row: the data-parallel estimate, said so.
  EXPECT_FALSE(budget->view().layout_memory);
  EXPECT_FALSE(budget->memoryPlot()->showsStages());
  EXPECT_TRUE(
      budget->memoryPlot()->xAxis->label().contains(QStringLiteral("data parallelism only")));
  // Against the device memory the Parallelism panel counts (the driver's
  // 85.0 GB on an H100, not the datasheet's 80 GB).
  const QString device =
      QStringLiteral(" of ") +
      qs(format_bytes(static_cast<double>(device_memory(chip_by_name("H100")).bytes), 1));
  EXPECT_TRUE(budget->readouts().text(budget->readouts().memory).contains(device))
      << budget->readouts().text(budget->readouts().memory).toStdString();

  ASSERT_TRUE(w.model()->edit(QStringLiteral("predicted"), 9001,
                              [](Scenario& s) { s.parallel.mfu_source = MfuSource::predicted; }));
  w.settle();
  parallel->waitForSearch();
  QCoreApplication::processEvents();
  const auto& lm = budget->view().layout_memory;
  ASSERT_TRUE(lm);
  const ParallelView& pv = parallel->view();
  ASSERT_TRUE(pv.layout);
  EXPECT_EQ(lm->layout, to_string(pv.layout->layout));
  EXPECT_EQ(lm->axes, layout_axes_text(pv.layout->layout));
  // The Budget planner's bars are the Parallelism panel's stages, byte for byte.
  ASSERT_EQ(lm->stages.size(), pv.stages.size());
  ASSERT_EQ(static_cast<std::int64_t>(lm->stages.size()), pv.layout->layout.pp);
  std::int64_t peak = 0;
  for (std::size_t i = 0; i < lm->stages.size(); ++i) {
    EXPECT_EQ(lm->stages[i].total_bytes, pv.stages[i].total_bytes);
    peak = std::max(peak, lm->stages[i].total_bytes);
  }
  EXPECT_EQ(peak, lm->peak_stage_bytes);
  EXPECT_EQ(peak, pv.layout->memory.total_bytes);
  EXPECT_TRUE(budget->memoryPlot()->showsStages());
  EXPECT_TRUE(budget->memoryPlot()->xAxis->label().contains(qs(lm->axes)));
  EXPECT_TRUE(budget->readouts()
                  .text(budget->readouts().memory)
                  .startsWith(qs(format_bytes(static_cast<double>(peak), 1)) + device));
  // Both read-outs print the same figure, to the same decimal.
  EXPECT_TRUE(parallel->readouts()
                  .text(parallel->readouts().memory)
                  .startsWith(qs(format_bytes(static_cast<double>(peak), 1)) + device))
      << parallel->readouts().text(parallel->readouts().memory).toStdString();
  // A baseline's bar tops are ghosted only over bars that mean the same:
  // not a ZeRO estimate's four over a layout's stages; the same plan's, yes.
  auto ghostTops = [&] {
    return budget->memoryPlot()->dataCsv().count(QStringLiteral("\"baseline: total\""));
  };
  Scenario assumed = w.model()->scenario();
  assumed.parallel.mfu_source = MfuSource::assumed;
  budget->setBaseline(&assumed);
  EXPECT_EQ(ghostTops(), 0);
  const Scenario same = w.model()->scenario();
  budget->setBaseline(&same);
  EXPECT_EQ(ghostTops(), static_cast<int>(lm->stages.size()));
  budget->setBaseline(nullptr);
  // The Compare dock and diff read the same figure.
  std::optional<double> compared;
  for (const HeadlineOutput& o : headline_outputs(w.model()->scenario()))
    if (o.name == "Memory per device") compared = o.value;
  ASSERT_TRUE(compared);
  EXPECT_DOUBLE_EQ(*compared, static_cast<double>(peak));
}

// The checkpoint write time, left unset, shows the one derived from the
// storage bandwidth, disabled; typed, it takes the registry's whole range,
// 0 (free checkpoints) too, below its logarithmic slider.
TEST(PlanAgreement, TheCheckpointWriteTimeIsDerivedUntilTyped) {
  MainWindow w(MainWindow::Session::fresh);
  w.showPanel(QStringLiteral("budget"));
  SliderSpin* write = w.findChild<SliderSpin*>(QStringLiteral("checkpoint_write_minutes"));
  QComboBox* source = w.findChild<QComboBox*>(QStringLiteral("checkpoint_write_source"));
  ASSERT_NE(write, nullptr);
  ASSERT_NE(source, nullptr);
  EXPECT_FALSE(w.model()->scenario().goodput.checkpoint_write_minutes);
  EXPECT_FALSE(write->isEnabled());
  EXPECT_GT(write->value(), 0);
  pick(source, QStringLiteral("Typed"));
  QCoreApplication::processEvents();
  ASSERT_TRUE(write->isEnabled());
  write->spinBox()->setValue(0);
  QCoreApplication::processEvents();
  ASSERT_TRUE(w.model()->scenario().goodput.checkpoint_write_minutes);
  EXPECT_EQ(*w.model()->scenario().goodput.checkpoint_write_minutes, 0);
  EXPECT_EQ(write->value(), 0);
  write->spinBox()->setValue(5000);  // past the slider's 600, inside the accepted range
  QCoreApplication::processEvents();
  EXPECT_EQ(*w.model()->scenario().goodput.checkpoint_write_minutes, 5000);
}

// A choice the file holds is the one its control shows, whichever option it
// is: an old file's 4 bytes per parameter opens as fp32 weights, which the
// Weights combo showed as bf16 while the read-outs said fp32 (it listed four
// of the five formats the file and `serve` accept). Picking an option in the
// combo sets the document's choice by the registry's name.
TEST(PlanAgreement, AChoiceFromAFileIsTheOneItsControlShows) {
  QTemporaryDir dir;
  const std::string path = dir.filePath(QStringLiteral("choices.napkin.json")).toStdString();
  Scenario s;
  set_choice(scenario_choice("serving.weight_precision"), s, "fp32");
  set_choice(scenario_choice("serving.kv_precision"), s, "fp8");
  set_choice(scenario_choice("serving.engine"), s, "vllm");
  save_scenario_file(s, path);
  MainWindow w(MainWindow::Session::fresh);
  ASSERT_TRUE(w.openFile(QString::fromStdString(path)));
  w.showPanel(QStringLiteral("roofline"));
  RooflinePanel* p = w.panel<RooflinePanel>();
  EXPECT_EQ(p->combo(QStringLiteral("precision"))->currentText(), QStringLiteral("fp32 (32 bits)"));
  EXPECT_EQ(p->combo(QStringLiteral("kv_precision"))->currentText(),
            QStringLiteral("fp8 (8.002 bits)"));
  EXPECT_EQ(p->combo(QStringLiteral("engine"))->currentText(), QStringLiteral("vllm"));
  // Every option the registry accepts is listed, in its order.
  const auto options = scenario_choice("serving.weight_precision").options();
  ASSERT_EQ(p->combo(QStringLiteral("precision"))->count(), static_cast<int>(options.size()));
  for (std::size_t i = 0; i < options.size(); ++i)
    EXPECT_EQ(p->combo(QStringLiteral("precision"))->itemData(static_cast<int>(i)).toString(),
              qs(options[i].name));
  pick(p->combo(QStringLiteral("precision")), QStringLiteral("int8 (8.125 bits)"));
  EXPECT_EQ(w.model()->scenario().serving.weight_dtype, Dtype::int8);
  // One undo step, named as the comparison names the choice.
  EXPECT_EQ(w.model()->undoStack()->undoText(), QStringLiteral("Change serving weight precision"));
}

// Every registered choice has a combo in the window listing exactly the
// registry's options, in its order ("the software's"-style unset first).
TEST(PlanAgreement, EveryRegisteredChoiceHasAComboListingItsOptions) {
  MainWindow w(MainWindow::Session::fresh);
  for (const char* panel : {"budget", "isoflops", "moe", "roofline", "parallel"})
    w.showPanel(QString::fromUtf8(panel));
  const QList<QComboBox*> combos = w.findChildren<QComboBox*>();
  for (const ScenarioChoice& c : scenario_choices()) {
    SCOPED_TRACE(std::string(c.key));
    QStringList expected;
    if (!c.unset_label.empty()) expected << QString();
    for (const ChoiceOption& o : c.options()) expected << qs(o.name);
    int found = 0;
    for (const QComboBox* combo : combos) {
      QStringList data;
      for (int i = 0; i < combo->count(); ++i) data << combo->itemData(i).toString();
      if (data == expected) {
        ++found;
        // It shows what the scenario holds.
        EXPECT_EQ(combo->currentData().toString(), qs(c.get(w.model()->scenario())));
      }
    }
    EXPECT_GE(found, 1) << "no combo lists " << expected.join(QLatin1Char('|')).toStdString();
  }
}

// Every registered switch has a check box in the window, labelled as the
// registry says and ticked as the scenario holds; ticking it is one edit.
TEST(PlanAgreement, EveryRegisteredSwitchHasACheckBox) {
  MainWindow w(MainWindow::Session::fresh);
  for (const char* panel : {"budget", "isoflops", "moe", "roofline", "parallel"})
    w.showPanel(QString::fromUtf8(panel));
  const QList<QCheckBox*> boxes = w.findChildren<QCheckBox*>();
  std::size_t clicked = 0;
  for (const ScenarioSwitch& sw : scenario_switches()) {
    SCOPED_TRACE(std::string(sw.key));
    QCheckBox* box = nullptr;
    for (QCheckBox* b : boxes)
      if (b->text() == qs(sw.label)) box = b;
    ASSERT_NE(box, nullptr) << "no check box reads " << sw.label;
    // A box the plan does not use shows the state it runs with (the loss
    // cut on the synthetic ladder): not this test's.
    if (!box->isEnabled()) continue;
    const bool before = sw.get(w.model()->scenario());
    EXPECT_EQ(box->isChecked(), before == sw.ticked_when);
    box->click();
    ++clicked;
    EXPECT_EQ(sw.get(w.model()->scenario()), !before);
    w.model()->undoStack()->undo();
    QCoreApplication::processEvents();
    EXPECT_EQ(sw.get(w.model()->scenario()), before);
    EXPECT_EQ(box->isChecked(), before == sw.ticked_when);
  }
  EXPECT_GE(clicked + 1, scenario_switches().size());  // the loss cut alone is unused
}
