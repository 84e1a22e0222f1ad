// Plan A vs plan B in the window: pinning a baseline (Ctrl+B, also while a
// value is being typed), the change that follows on the Budget read-outs, the
// status-bar badge, unpinning, a baseline restored with the session, and the
// Compare dock's list (sorted, copied, exported).
#include <gtest/gtest.h>

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include "ReadoutGrid.h"
#include "SliderSpin.h"
#include "autosave_cleanup.h"
#include "budget/BudgetPanel.h"
#include "budget/BudgetReadouts.h"
#include "scenario_json.h"
#include "shell/BaselineController.h"
#include "shell/CompareDock.h"
#include "shell/MainWindow.h"

using namespace napkin;

namespace {

struct Shown {
  MainWindow w{MainWindow::Session::fresh};
  Shown() {
    w.resize(1280, 800);
    w.show();
    QApplication::setActiveWindow(&w);
    EXPECT_TRUE(QTest::qWaitForWindowActive(&w));
  }
  SciSpinBox* chips() { return w.panel<BudgetPanel>()->controls().chips->spinBox(); }
  void type(SciSpinBox* spin, const QString& text) {
    spin->setFocus();
    spin->selectAll();
    QTest::keyClicks(spin, text);
    QTest::keyClick(spin, Qt::Key_Return);
  }
  const BudgetReadouts& readouts() { return w.panel<BudgetPanel>()->readouts(); }
  QString flopsDelta() { return readouts().grid()->deltaText(readouts().flops); }
};

// Row texts of the dock's list as shown: "Kind|Name|A|B|Δ|Better".
QStringList rows(const CompareDock* d) {
  QStringList out;
  const QSortFilterProxyModel* m = d->proxy();
  for (int r = 0; r < m->rowCount(); ++r) {
    QStringList cells;
    for (int c = 0; c < CompareDock::column_count; ++c) cells << m->index(r, c).data().toString();
    out << cells.join(QLatin1Char('|'));
  }
  return out;
}

QString rowNamed(const CompareDock* d, const QString& name) {
  for (const QString& r : rows(d))
    if (r.section(QLatin1Char('|'), 1, 1) == name) return r;
  return {};
}

using testing_util::removeAutosaves;

}  // namespace

TEST(Compare, PinAChangeAndTheDeltasThatFollowThenUnpin) {
  Shown t;
  EXPECT_FALSE(t.w.baselineBadge()->isVisible());
  // Ctrl+B while the chips value is being typed pins the current scenario.
  t.chips()->setFocus();
  QTest::keyClick(t.chips(), Qt::Key_B, Qt::ControlModifier);
  ASSERT_TRUE(t.w.baseline()->isPinned());
  EXPECT_EQ(*t.w.baseline()->baseline(), t.w.model()->scenario());
  EXPECT_TRUE(t.w.baselineBadge()->isVisible());
  EXPECT_TRUE(t.w.baselineBadge()->text().startsWith(QStringLiteral("Baseline: pinned ")))
      << t.w.baselineBadge()->text().toStdString();
  EXPECT_EQ(t.flopsDelta(), QStringLiteral("= baseline"));

  // A change: plan B has twice the chips; the read-outs show it against plan A.
  t.type(t.chips(), QStringLiteral("2000"));
  ASSERT_EQ(t.w.model()->scenario().n_chips, 2000);
  EXPECT_EQ(t.w.baseline()->baseline()->n_chips, 1000);  // frozen
  EXPECT_TRUE(t.flopsDelta().startsWith(QStringLiteral("+100.0 %")))
      << t.flopsDelta().toStdString();
  EXPECT_TRUE(
      t.readouts().grid()->deltaText(t.readouts().rental).startsWith(QStringLiteral("+100.0 %")));
  // A fraction's change reads in percentage points beside its relative change.
  const QString goodput = t.readouts().grid()->deltaText(t.readouts().goodput);
  EXPECT_TRUE(goodput.startsWith(QStringLiteral("\u2212"))) << goodput.toStdString();
  EXPECT_TRUE(goodput.endsWith(QStringLiteral(" pp)"))) << goodput.toStdString();
  // Every number row compares, lifetime dollars too, each change with its unit.
  EXPECT_TRUE(t.readouts().grid()->deltaText(t.readouts().lifetime).contains(QLatin1Char('$')))
      << t.readouts().grid()->deltaText(t.readouts().lifetime).toStdString();
  EXPECT_TRUE(
      t.readouts().grid()->deltaText(t.readouts().epochs).endsWith(QStringLiteral(" epochs)")))
      << t.readouts().grid()->deltaText(t.readouts().epochs).toStdString();

  // The badge opens the Compare dock, which lists what differs.
  QTest::mouseClick(t.w.baselineBadge(), Qt::LeftButton);
  CompareDock* d = t.w.compareDock();
  EXPECT_TRUE(d->isVisible());
  d->settle();
  EXPECT_FALSE(d->isBusy());
  EXPECT_EQ(rowNamed(d, QStringLiteral("Chips")),
            QStringLiteral("Input|Chips|1,000 chips|2,000 chips||"))
      << rows(d).join(QLatin1Char('\n')).toStdString();
  const QString compute = rowNamed(d, QStringLiteral("Compute C"));
  EXPECT_TRUE(
      compute.startsWith(QStringLiteral("Output|Compute C|1.026e+24 FLOPs|2.053e+24 FLOPs|+")))
      << compute.toStdString();
  EXPECT_TRUE(compute.contains(QStringLiteral("(+100.0 %)"))) << compute.toStdString();
  // A fall is signed with the minus sign, as in the read-outs, never a hyphen.
  const QString loss = rowNamed(d, QStringLiteral("IsoFLOPs forecast L*"));
  EXPECT_TRUE(loss.contains(QStringLiteral("|\u2212"))) << loss.toStdString();
  EXPECT_TRUE(loss.contains(QStringLiteral("(\u2212"))) << loss.toStdString();
  EXPECT_FALSE(loss.contains(QLatin1Char('-'))) << loss.toStdString();
  const QString cost = rowNamed(d, QStringLiteral("Cost"));
  EXPECT_TRUE(cost.endsWith(QStringLiteral("|A"))) << cost.toStdString();  // A is cheaper
  EXPECT_TRUE(d->statusText().contains(QStringLiteral("1 input differs")))
      << d->statusText().toStdString();

  // While plan B's outputs are recomputed the dock says so.
  t.type(t.chips(), QStringLiteral("4000"));
  EXPECT_TRUE(d->isBusy());
  EXPECT_TRUE(d->statusText().contains(QStringLiteral("Computing")))
      << d->statusText().toStdString();
  d->settle();
  EXPECT_EQ(rowNamed(d, QStringLiteral("Chips")),
            QStringLiteral("Input|Chips|1,000 chips|4,000 chips||"));

  // Unpin (Ctrl+Shift+U, again from the spin box): no badge, no change shown.
  QTest::keyClick(t.chips(), Qt::Key_U, Qt::ControlModifier | Qt::ShiftModifier);
  EXPECT_FALSE(t.w.baseline()->isPinned());
  EXPECT_FALSE(t.w.baselineBadge()->isVisible());
  EXPECT_TRUE(t.flopsDelta().isEmpty());
  EXPECT_TRUE(rows(d).isEmpty());
  EXPECT_TRUE(d->statusText().startsWith(QStringLiteral("Pin a baseline")));
}

TEST(Compare, OpenAsBaselineAndAFileThatFails) {
  Shown t;
  QTemporaryDir dir;
  EXPECT_FALSE(t.w.openBaseline(dir.filePath(QStringLiteral("missing.napkin.json"))));
  EXPECT_TRUE(t.w.lastError().contains(QStringLiteral("missing.napkin.json")));
  EXPECT_FALSE(t.w.baseline()->isPinned());
  const QString a =
      QStringLiteral(NAPKIN_TEST_DATA "/scenarios/llama3-70b-tpu-v5p-45d.napkin.json");
  ASSERT_TRUE(t.w.openBaseline(a));
  EXPECT_EQ(t.w.baselineBadge()->text(),
            QStringLiteral("Baseline: llama3-70b-tpu-v5p-45d.napkin.json"));
  EXPECT_EQ(*t.w.baseline()->baseline(), load_scenario_file(a.toStdString()));
  EXPECT_FALSE(t.flopsDelta().isEmpty());
  EXPECT_NE(t.flopsDelta(), QStringLiteral("= baseline"));
}

TEST(Compare, TheCompareDockComesBackAsItWasLeft) {
  QSettings().clear();
  removeAutosaves();
  const QString a =
      QStringLiteral(NAPKIN_TEST_DATA "/scenarios/llama3-70b-tpu-v5p-45d.napkin.json");
  {
    MainWindow w(MainWindow::Session::restore);
    w.show();
    ASSERT_TRUE(w.openBaseline(a));
    w.compareDock()->show();
    w.close();
  }
  {
    MainWindow again(MainWindow::Session::restore);
    again.show();
    EXPECT_TRUE(again.compareDock()->isVisible());  // shown, as it was left
    again.compareDock()->hide();
    again.close();
  }
  {
    MainWindow third(MainWindow::Session::restore);
    third.show();
    EXPECT_FALSE(third.compareDock()->isVisible());  // hidden, as it was left
    third.unpinBaseline();
    third.compareDock()->show();
    third.close();
  }
  {
    MainWindow fourth(MainWindow::Session::restore);
    fourth.show();
    EXPECT_FALSE(fourth.compareDock()->isVisible());  // nothing pinned: nothing to compare
    fourth.close();
  }
  QSettings().clear();
  removeAutosaves();
}

TEST(Compare, TheBaselineIsRestoredWithTheSession) {
  QSettings().clear();
  removeAutosaves();
  const QString a =
      QStringLiteral(NAPKIN_TEST_DATA "/scenarios/llama3-70b-tpu-v5p-45d.napkin.json");
  {
    MainWindow w(MainWindow::Session::restore);
    ASSERT_TRUE(w.openBaseline(a));
    w.close();
  }
  {
    MainWindow again(MainWindow::Session::restore);
    ASSERT_TRUE(again.baseline()->isPinned());
    EXPECT_EQ(again.baseline()->label(), QStringLiteral("llama3-70b-tpu-v5p-45d.napkin.json"));
    EXPECT_EQ(*again.baseline()->baseline(), load_scenario_file(a.toStdString()));
    const BudgetReadouts& r = again.panel<BudgetPanel>()->readouts();
    EXPECT_FALSE(r.grid()->deltaText(r.flops).isEmpty());  // the panels compare again
    EXPECT_TRUE(again.baselineBadge()->text().contains(QStringLiteral("llama3-70b-tpu-v5p-45d")));
    // Unpinned at quit: nothing pinned at the next start.
    again.unpinBaseline();
    again.close();
  }
  {
    MainWindow third(MainWindow::Session::restore);
    EXPECT_FALSE(third.baseline()->isPinned());
    third.close();
  }
  QSettings().clear();
  removeAutosaves();
}

TEST(Compare, TheListSortsCopiesAndExports) {
  Shown t;
  t.w.pinBaseline();
  Scenario b = t.w.model()->scenario();
  b.n_chips = 2048;
  b.days = 45;
  b.chip = "TPU v5p";
  ASSERT_TRUE(t.w.model()->replace(b, QStringLiteral("plan B")));
  t.w.showCompare();
  CompareDock* d = t.w.compareDock();
  d->settle();
  if (qEnvironmentVariableIsSet("NAPKIN_SAVE_SCREENSHOTS"))
    t.w.grab().save(QStringLiteral("/tmp/compare-dock.png"));
  const QStringList natural = rows(d);
  ASSERT_GE(natural.size(), 15);
  EXPECT_TRUE(natural.first().startsWith(QStringLiteral("Input|")));  // inputs, then outputs
  EXPECT_TRUE(natural.last().startsWith(QStringLiteral("Output|")));

  // Click the Name header: sorted by name.
  QHeaderView* header = d->table()->horizontalHeader();
  QTest::mouseClick(header->viewport(), Qt::LeftButton, {},
                    QPoint(header->sectionViewportPosition(CompareDock::name_col) + 5, 5));
  QStringList names;
  for (const QString& r : rows(d)) names << r.section(QLatin1Char('|'), 1, 1);
  QStringList sorted = names;
  std::sort(sorted.begin(), sorted.end(), [](const QString& x, const QString& y) {
    return x.compare(y, Qt::CaseInsensitive) < 0;
  });
  EXPECT_EQ(names, sorted);
  // By Δ, largest relative change first.
  d->table()->sortByColumn(CompareDock::delta_col, Qt::DescendingOrder);
  const QString top = rows(d).first();
  EXPECT_TRUE(top.section(QLatin1Char('|'), 4, 4).startsWith(QLatin1Char('+')))
      << rows(d).join(QLatin1Char('\n')).toStdString();

  // Ctrl+C copies the selected rows as tab-separated text.
  d->table()->setFocus();
  d->table()->selectRow(0);
  d->table()->selectionModel()->select(d->proxy()->index(1, 0),
                                       QItemSelectionModel::Select | QItemSelectionModel::Rows);
  QTest::keyClick(d->table(), Qt::Key_C, Qt::ControlModifier);
  const QStringList copied =
      QApplication::clipboard()->text().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  ASSERT_EQ(copied.size(), 2);
  EXPECT_EQ(copied[0], rows(d)[0].replace(QLatin1Char('|'), QLatin1Char('\t')));

  // Export CSV: a header and every row, in the order shown; a failure names the path.
  QTemporaryDir dir;
  const QString csv = dir.filePath(QStringLiteral("compare.csv"));
  ASSERT_TRUE(t.w.exportCompareCsv(csv));
  QFile f(csv);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  const QStringList lines =
      QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  ASSERT_EQ(lines.size(), rows(d).size() + 1);
  EXPECT_TRUE(lines[0].startsWith(QStringLiteral("Kind,Name,Plan A,Plan B,")))
      << lines[0].toStdString();
  EXPECT_TRUE(lines[1].startsWith(
      top.section(QLatin1Char('|'), 0, 1).replace(QLatin1Char('|'), QLatin1Char(','))))
      << lines[1].toStdString();
  bool chips = false;
  for (const QString& l : lines)
    chips = chips || l.startsWith(QStringLiteral("Input,Chips,\"1,000 chips\",\"2,048 chips\""));
  EXPECT_TRUE(chips);
  EXPECT_FALSE(t.w.exportCompareCsv(dir.filePath(QStringLiteral("no/such/dir/c.csv"))));
  EXPECT_TRUE(t.w.lastError().contains(QStringLiteral("no/such/dir/c.csv")))
      << t.w.lastError().toStdString();
}
