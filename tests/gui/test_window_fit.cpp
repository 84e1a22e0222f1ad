// A window that fits a laptop: at 1024×700 and 1280×800 every control and
// read-out of every panel is on screen or inside a scroll area that reaches
// it; the window's minimum is at most 1000×650; plots reflow to fewer columns.
#include <gtest/gtest.h>

#include <QAbstractButton>
#include <QAbstractScrollArea>
#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QScrollBar>
#include <QSlider>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBrowser>

#include "PlotWidget.h"
#include "ReadoutGrid.h"
#include "ReflowGrid.h"
#include "SliderSpin.h"
#include "WindowPlacement.h"
#include "budget/BudgetPanel.h"
#include "shell/MainWindow.h"

using namespace napkin;

namespace {

bool insideInternals(const QWidget* w, const QWidget* panel) {
  for (const QWidget* p = w->parentWidget(); p && p != panel; p = p->parentWidget())
    if (qobject_cast<const QTabBar*>(p) || qobject_cast<const QScrollBar*>(p) ||
        qobject_cast<const QAbstractSpinBox*>(p) || qobject_cast<const SliderSpin*>(p) ||
        qobject_cast<const QComboBox*>(p))
      return true;
  return false;
}

// What a user must be able to reach: controls, read-outs, checks, memos,
// buttons, tables and plots.
std::vector<QWidget*> reachables(QWidget* panel) {
  std::vector<QWidget*> out;
  for (QWidget* w : panel->findChildren<QWidget*>()) {
    if (!w->isVisibleTo(panel->window()) || insideInternals(w, panel)) continue;
    const bool wanted =
        qobject_cast<SliderSpin*>(w) || qobject_cast<QComboBox*>(w) ||
        qobject_cast<QAbstractButton*>(w) || qobject_cast<QSlider*>(w) ||
        qobject_cast<QTextBrowser*>(w) || qobject_cast<QPlainTextEdit*>(w) ||
        qobject_cast<QTableWidget*>(w) || qobject_cast<QProgressBar*>(w) ||
        qobject_cast<PlotWidget*>(w) ||
        (qobject_cast<QLabel*>(w) && w->objectName().startsWith(QLatin1String("readout_")));
    if (wanted && !qobject_cast<QTabBar*>(w->parentWidget())) out.push_back(w);
  }
  return out;
}

// Why `w` cannot be reached, or "" when it can: each ancestor either shows
// the widget's whole rectangle or is a scroll area that can scroll to it.
QString unreachable(QWidget* w, QWidget* window) {
  QRect r = w->rect();
  QWidget* cur = w;
  while (cur != window) {
    QWidget* parent = cur->parentWidget();
    if (!parent) return QStringLiteral("no parent");
    r.translate(cur->pos());
    auto* area = qobject_cast<QAbstractScrollArea*>(parent->parentWidget());
    if (area && area->viewport() == parent) {
      // cur is the scrolled content: all of it is reachable along an axis
      // whose scroll bar may appear.
      const QRect content = cur->geometry();
      const bool h = area->horizontalScrollBarPolicy() != Qt::ScrollBarAlwaysOff;
      const bool v = area->verticalScrollBarPolicy() != Qt::ScrollBarAlwaysOff;
      const QRect view = parent->rect();
      if (!h && r.right() - content.left() > view.width() + 1)
        return QStringLiteral("beyond the right edge of a scroll area that cannot scroll sideways");
      if (!v && r.bottom() - content.top() > view.height() + 1)
        return QStringLiteral("below a scroll area that cannot scroll down");
      r = view;  // the scroll area must show its viewport
    } else if (!parent->rect().adjusted(-1, -1, 1, 1).contains(r)) {
      return QStringLiteral("clipped by %1 (%2)")
          .arg(QString::fromLatin1(parent->metaObject()->className()), parent->objectName());
    }
    cur = parent;
  }
  if (!window->rect().adjusted(-1, -1, 1, 1).contains(r)) return QStringLiteral("off the window");
  return {};
}

void checkEveryPanel(const QSize& size) {
  MainWindow w(MainWindow::Session::fresh);
  w.resize(size);
  w.show();
  QCoreApplication::processEvents();
  ASSERT_EQ(w.size(), size);
  for (Panel* p : w.panels()) {
    ASSERT_TRUE(w.showPanel(p->panelKey()));
    QCoreApplication::processEvents();
    // Every page of the panel's own tabs, one at a time.
    std::vector<std::pair<QTabWidget*, int>> pages{{nullptr, 0}};
    for (QTabWidget* t : p->findChildren<QTabWidget*>())
      for (int i = 0; i < t->count(); ++i) pages.emplace_back(t, i);
    int checked = 0;
    for (const auto& [tabs, index] : pages) {
      if (tabs) tabs->setCurrentIndex(index);
      QCoreApplication::processEvents();
      for (QWidget* c : reachables(p)) {
        const QString why = unreachable(c, &w);
        EXPECT_TRUE(why.isEmpty())
            << size.width() << "x" << size.height() << " " << p->panelKey().toStdString() << ": "
            << c->metaObject()->className() << " '" << c->objectName().toStdString() << "' "
            << c->accessibleName().toStdString() << ": " << why.toStdString();
        // Not squeezed below what it needs to be used (text areas scroll their own text).
        const QSize min = c->minimumSizeHint();
        if (min.isValid() && !qobject_cast<QAbstractScrollArea*>(c) &&
            !qobject_cast<PlotWidget*>(c)) {
          EXPECT_GE(c->height() + 1, std::min(min.height(), 60))
              << p->panelKey().toStdString() << ": " << c->objectName().toStdString();
        }
        ++checked;
      }
    }
    EXPECT_GT(checked, 10) << p->panelKey().toStdString();
  }
}

}  // namespace

TEST(WindowFit, MinimumSizeFitsALaptop) {
  MainWindow w(MainWindow::Session::fresh);
  EXPECT_LE(w.minimumSize().width(), 1000);
  EXPECT_LE(w.minimumSize().height(), 650);
  EXPECT_LE(w.minimumSizeHint().width(), 1000);
  EXPECT_LE(w.minimumSizeHint().height(), 650);
  w.resize(1000, 650);
  w.show();
  QCoreApplication::processEvents();
  EXPECT_EQ(w.size(), QSize(1000, 650));
}

TEST(WindowFit, EveryControlAndReadoutReachableAt1024x700) { checkEveryPanel(QSize(1024, 700)); }

TEST(WindowFit, EveryControlAndReadoutReachableAt1280x800) { checkEveryPanel(QSize(1280, 800)); }

TEST(WindowFit, BudgetPlotsReflowToTheWidth) {
  MainWindow w(MainWindow::Session::fresh);
  BudgetPanel* p = w.panel<BudgetPanel>();
  auto* grid = p->findChild<ReflowGrid*>(QStringLiteral("plotGrid"));
  ASSERT_NE(grid, nullptr);
  w.show();
  for (const auto& [size, columns] :
       {std::pair{QSize(1600, 1000), 3}, std::pair{QSize(1024, 700), 2}}) {
    w.resize(size);
    QCoreApplication::processEvents();
    EXPECT_EQ(grid->columns(), columns) << size.width();
  }
  // Read-outs wrap to the width they get.
  auto* readouts = p->findChild<ReadoutGrid*>();
  ASSERT_NE(readouts, nullptr);
  EXPECT_GE(readouts->columns(), 1);
}

TEST(WindowFit, ScreenshotIsExactlyTheSizeAsked) {
  QTemporaryDir dir;
  for (const char* size : {"1024x700", "1600x1000"}) {
    const QString png = dir.filePath(QStringLiteral("shot.png"));
    QProcess p;
    p.start(QStringLiteral(NAPKIN_APP),
            {QStringLiteral("--screenshot"), png, QStringLiteral("--size"),
             QString::fromLatin1(size), QStringLiteral("--panel"), QStringLiteral("budget")});
    ASSERT_TRUE(p.waitForFinished(60000));
    EXPECT_EQ(p.exitCode(), 0) << p.readAllStandardError().toStdString();
    const QStringList wh = QString::fromLatin1(size).split(QLatin1Char('x'));
    EXPECT_EQ(QImage(png).size(), QSize(wh[0].toInt(), wh[1].toInt())) << size;
  }
}

// Issue 27.5: 1,280 × 800 plus its frame on a 1,024 × 768 screen, or on a
// 1,280 × 800 laptop with a panel, had its right quarter or its status bar
// off-screen. The first window fits the available area, frame included.
TEST(WindowFit, TheFirstWindowFitsTheScreenItOpensOn) {
  const QRect first(0, 0, 1280, 800);
  for (const QRect& screen : {QRect(0, 0, 1024, 768), QRect(0, 0, 1280, 800 - 32),
                              QRect(1920, 28, 1280, 800 - 28), QRect(0, 0, 1366, 768)}) {
    const QRect g = fitOnScreen(first, screen, QSize(1000, 650));
    EXPECT_TRUE(screen.contains(g.marginsAdded(kFrameAllowance)))
        << screen.width() << "x" << screen.height();
    EXPECT_GE(g.width(), 1000);
    EXPECT_GE(g.height(), 650);
  }
  // On a large screen it keeps its size, and a window already on it stays put.
  EXPECT_EQ(fitOnScreen(first, QRect(0, 0, 1900, 1080)).size(), first.size());
  const QRect placed(200, 100, 1280, 800);
  EXPECT_EQ(fitOnScreen(placed, QRect(0, 0, 1900, 1080)), placed);
  // One restored from a monitor no longer there comes back onto this one.
  EXPECT_TRUE(QRect(0, 0, 1900, 1080)
                  .contains(fitOnScreen(QRect(3000, 900, 1280, 800), QRect(0, 0, 1900, 1080))));
}
