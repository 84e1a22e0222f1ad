// Issue 25, item 3, in the app: a chip described in the data folder's chips/
// is offered by every chip list (the Budget planner's chip and serving chip,
// the Roofline's chip and its overlays), in the one order chip_list() gives,
// and a scenario on it is computed by the panels that follow the chip.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>

#include "PlotWidget.h"
#include "ScenarioModel.h"
#include "budget/BudgetPanel.h"
#include "hardware.h"
#include "hardware_json.h"
#include "parallel/ParallelPanel.h"
#include "roofline/RooflinePanel.h"
#include "scenario.h"
#include "shell/MainWindow.h"

using namespace napkin;

namespace {

constexpr const char* kUserChip = "Lab-H100-G";

// Registers the user's chip once per process, as the app does at start-up:
// from a chips/ folder named by NAPKIN_DATA_DIR.
void registerUserChip() {
  for (const Chip* c : chip_list())
    if (c->name == kUserChip) return;
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  ASSERT_TRUE(QDir(dir.path()).mkpath(QStringLiteral("chips")));
  QFile f(dir.filePath(QStringLiteral("chips/lab.json")));
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(R"({"name": "Lab-H100-G", "like": "H100",
      "peak_tflops": {"value": 500, "kind": "measured", "source": "MAMF on our nodes"},
      "watts": {"value": 600, "kind": "datasheet", "source": "vendor sheet"}})");
  f.close();
  const QByteArray old = qgetenv("NAPKIN_DATA_DIR");
  qputenv("NAPKIN_DATA_DIR", dir.path().toLocal8Bit());
  const UserHardware loaded = load_user_hardware(user_data_folder());
  if (old.isEmpty())
    qunsetenv("NAPKIN_DATA_DIR");
  else
    qputenv("NAPKIN_DATA_DIR", old);
  ASSERT_EQ(loaded.chips, std::vector<std::string>{kUserChip})
      << (loaded.refused.empty() ? std::string() : loaded.refused.front());
}

QStringList names(const QComboBox* combo) {
  QStringList out;
  for (int i = 0; i < combo->count(); ++i) out << combo->itemData(i).toString();
  return out;
}

QStringList chipListNames() {
  QStringList out;
  for (const Chip* c : chip_list())
    out << QString::fromUtf8(c->name.data(), static_cast<qsizetype>(c->name.size()));
  return out;
}

double highest(const QCPGraph* g) {
  double top = 0;
  for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
    top = std::max(top, it->value);
  return top;
}

QCPGraph* graphNamed(PlotWidget* plot, const QString& name) {
  for (int i = 0; i < plot->graphCount(); ++i)
    if (plot->graph(i)->name() == name) return plot->graph(i);
  return nullptr;
}

}  // namespace

TEST(UserChips, EveryChipListOffersTheDataFolderChips) {
  registerUserChip();
  MainWindow w(MainWindow::Session::fresh);
  w.resize(1280, 800);
  w.show();
  const QStringList all = chipListNames();
  ASSERT_TRUE(all.contains(QLatin1String(kUserChip)));
  ASSERT_TRUE(all.contains(QStringLiteral("H100")));
  int chip_combos = 0, serving_combos = 0;
  for (Panel* panel : std::initializer_list<Panel*>{
           w.panel<BudgetPanel>(), w.panel<RooflinePanel>(), w.panel<ParallelPanel>()}) {
    ASSERT_NE(panel, nullptr);
    for (QComboBox* c : panel->findChildren<QComboBox*>(QStringLiteral("chip"))) {
      EXPECT_EQ(names(c), all) << panel->title().toStdString();
      ++chip_combos;
    }
    for (QComboBox* c : panel->findChildren<QComboBox*>(QStringLiteral("serving_chip"))) {
      EXPECT_EQ(names(c), QStringList{QString()} + all) << panel->title().toStdString();
      ++serving_combos;
    }
  }
  EXPECT_EQ(chip_combos, 2);     // Budget planner, Roofline
  EXPECT_EQ(serving_combos, 1);  // Budget planner
  RooflinePanel* roof = w.panel<RooflinePanel>();
  for (const QString& chip : all) EXPECT_NE(roof->overlayBox(chip), nullptr) << chip.toStdString();

  // The user's chip as the scenario's chip: every chip combo shows it.
  ASSERT_TRUE(w.model()->edit(QStringLiteral("chip"), 1, [](Scenario& s) { s.chip = kUserChip; }));
  QCoreApplication::processEvents();
  for (const char* key : {"budget", "roofline"}) {  // a hidden panel catches up when shown
    ASSERT_TRUE(w.showPanel(QString::fromLatin1(key)));
    QCoreApplication::processEvents();
    EXPECT_EQ(w.currentPanel()->findChild<QComboBox*>(QStringLiteral("chip"))->currentData(),
              QVariant(QString::fromLatin1(kUserChip)))
        << key;
  }
  EXPECT_FALSE(roof->overlayBox(QLatin1String(kUserChip))->isEnabled());  // the chosen chip
}

// The overlays are drawn by name: ticked in another order than the list's,
// each overlay still carries its own chip's roof (MI300X's peak is over six
// times TPU v5e's).
TEST(UserChips, OverlaysTickedOutOfListOrderKeepTheirOwnRoofs) {
  registerUserChip();
  MainWindow w(MainWindow::Session::fresh);
  w.resize(1280, 800);
  w.show();
  ASSERT_TRUE(w.showPanel(QStringLiteral("roofline")));
  RooflinePanel* p = w.panel<RooflinePanel>();
  for (const char* name : {"MI300X", "TPU v5e", kUserChip}) {
    QCheckBox* box = p->overlayBox(QString::fromUtf8(name));
    ASSERT_NE(box, nullptr) << name;
    QTest::mouseClick(box, Qt::LeftButton, {}, QPoint(6, box->height() / 2));
    EXPECT_TRUE(box->isChecked()) << name;
  }
  QCoreApplication::processEvents();
  PlotWidget* chart = p->plots()[0];
  chart->replot();
  QCPGraph* mi300x = graphNamed(chart, QStringLiteral("MI300X"));
  QCPGraph* v5e = graphNamed(chart, QStringLiteral("TPU v5e"));
  QCPGraph* lab = graphNamed(chart, QLatin1String(kUserChip));
  ASSERT_TRUE(mi300x && v5e && lab);
  EXPECT_NEAR(highest(mi300x), chip_by_name("MI300X").peak_flops_per_s,
              0.01 * chip_by_name("MI300X").peak_flops_per_s);
  EXPECT_NEAR(highest(v5e), chip_by_name("TPU v5e").peak_flops_per_s,
              0.01 * chip_by_name("TPU v5e").peak_flops_per_s);
  EXPECT_NEAR(highest(lab), 500e12, 5e12);
  EXPECT_TRUE(chart->dataCsv().contains(QLatin1String(kUserChip)));
}
