#include "shell/MainWindow.h"

#include <algorithm>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QPrintDialog>
#include <QPrinter>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QUndoStack>
#include <stdexcept>

#include <QToolButton>

#include "PlotWidget.h"
#include "ReadableTooltips.h"
#include "WindowPlacement.h"
#include "budget/BudgetPanel.h"
#include "config_import.h"
#include "hardware.h"
#include "isoflops/IsoflopsPanel.h"
#include "moe/MoePanel.h"
#include "parallel/ParallelPanel.h"
#include "report/ReportWriter.h"
#include "roofline/RooflinePanel.h"
#include "scenario_json.h"
#include "shell/Autosave.h"
#include "shell/BaselineController.h"
#include "shell/CompareDock.h"
#include "shell/FileActions.h"
#include "ui_MainWindow.h"
#include "ui_RecoveryDialog.h"

namespace napkin {

namespace {

constexpr int kMaxRecent = 8;

}  // namespace

MainWindow::MainWindow(Session session, QWidget* parent)
    : QMainWindow(parent), session_(session), ui_(std::make_unique<Ui::MainWindow>()) {
  ui_->setupUi(this);
  installReadableTooltips();  // long explanations wrap instead of crossing the screen
  tabs_ = ui_->tabs;
  // The panels, in tab order: one line each.
  addPanel(new BudgetPanel(&model_, tabs_));
  addPanel(new IsoflopsPanel(&model_, tabs_));
  addPanel(new MoePanel(&model_, tabs_));
  addPanel(new RooflinePanel(&model_, tabs_));
  addPanel(new ParallelPanel(&model_, tabs_));

  // Plan A: the badge says which baseline is pinned; a click opens the Compare dock.
  baseline_ = new BaselineController(this);
  compare_ = new CompareDock(&model_, baseline_, this);
  addDockWidget(Qt::BottomDockWidgetArea, compare_);
  compare_->hide();
  connect(compare_, &CompareDock::exportRequested, this, [this] {
    const QString path = path_prompt_(PathPurpose::export_csv, QStringLiteral("compare.csv"));
    if (!path.isEmpty()) exportCompareCsv(path);
  });
  badge_ = new QToolButton(this);
  badge_->setObjectName(QStringLiteral("baselineBadge"));
  badge_->setAutoRaise(true);
  badge_->setToolTip(
      tr("A baseline (plan A) is pinned: read-outs show the change from it and "
         "plots draw it faded. Click to compare the two plans."));
  badge_->hide();
  connect(badge_, &QToolButton::clicked, this, &MainWindow::showCompare);
  statusBar()->addPermanentWidget(badge_);
  connect(baseline_, &BaselineController::changed, this, &MainWindow::baselineChanged);

  file_label_ = new QLabel(this);
  statusBar()->addPermanentWidget(file_label_);
  connect(&model_, &ScenarioModel::fileStateChanged, this, &MainWindow::updateTitle);
  connect(&model_, &ScenarioModel::changed, this, &MainWindow::updateTitle);
  // A refusal longer than the status bar's room is elided, never cut
  // mid-word; the whole of it is the bar's tooltip while it shows.
  connect(&model_, &ScenarioModel::editRejected, this,
          [this](const QString& why) { showLongStatus(tr("Not applied: %1").arg(why), 8000); });
  connect(statusBar(), &QStatusBar::messageChanged, this, [this](const QString& message) {
    if (message.isEmpty()) statusBar()->setToolTip(QString());
  });
  connect(tabs_, &QTabWidget::currentChanged, this, [this](int i) {
    if (session_ == Session::restore) QSettings().setValue(QStringLiteral("view/panel"), i);
  });
  prompt_ = [this] {
    return QMessageBox::question(
        this, tr("Unsaved changes"), tr("The scenario has unsaved changes. Save them first?"),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  };
  path_prompt_ = [this](PathPurpose purpose, const QString& suggested) {
    return askPath(purpose, suggested);
  };
  buildMenus();
  recover_prompt_ = [this](const QString& when) {
    QDialog dialog(this);
    Ui::RecoveryDialog ui;  // ui/RecoveryDialog.ui
    ui.setupUi(&dialog);
    ui.question->setText(
        tr("A Napkin window did not close cleanly. Recover the scenario it autosaved at %1?")
            .arg(when));
    ui.buttons->button(QDialogButtonBox::Yes)->setDefault(true);
    return dialog.exec() == QDialog::Accepted;
  };
  if (session_ == Session::restore) {
    restoreSession();
    // The first window (1,280 × 800) or the one restored from another
    // monitor fits the screen it opens on, frame and status bar included.
    if (const QScreen* screen = this->screen())
      setGeometry(fitOnScreen(geometry(), screen->availableGeometry(), minimumSizeHint()));
    // Each instance autosaves to its own file under its own lock, so a second
    // window never offers (or deletes) the first one's live work.
    autosave_ = new Autosave(&model_, baseline_, autosaveFolder(), this);
    autosave_->setDocument([this] { return savedDocument(*this); });
    QString error;
    if (!autosave_->start(&error))
      statusBar()->showMessage(tr("Autosave is off for this window: %1").arg(error), 15000);
    connect(autosave_, &Autosave::failed, this, [this](const QString& why) {
      statusBar()->showMessage(tr("Autosave failed: %1").arg(why), 15000);
    });
    // Offer recovery once the window is up, so the question has a parent on screen.
    QTimer::singleShot(0, this, &MainWindow::offerRecovery);
  }
  updateTitle();
  updateRecentMenu();
}

MainWindow::~MainWindow() = default;

void MainWindow::addPanel(Panel* panel) {
  panels_.push_back(panel);
  tabs_->addTab(panel, QString(panel->title()).replace(QLatin1Char('&'), QLatin1String("&&")));
  panel->forwardRefusals();
  connect(panel, &Panel::statusMessage, this,
          [this](const QString& text, int ms) { statusBar()->showMessage(text, ms); });
}

Panel* MainWindow::currentPanel() const {
  const int i = tabs_->currentIndex();
  return i >= 0 && i < static_cast<int>(panels_.size()) ? panels_[static_cast<std::size_t>(i)]
                                                        : nullptr;
}

QString MainWindow::panelKeys() const {
  QStringList keys;
  for (const Panel* p : panels_) keys << p->panelKey();
  return keys.join(QStringLiteral(", "));
}

void MainWindow::setSideNavigation(bool side) {
  tabs_->setTabPosition(side ? QTabWidget::West : QTabWidget::North);
  if (side_nav_action_->isChecked() != side) {
    const QSignalBlocker b(side_nav_action_);
    side_nav_action_->setChecked(side);
  }
}

bool MainWindow::showPanel(const QString& key) {
  for (Panel* p : panels_)
    if (p->panelKey() == key) {
      tabs_->setCurrentWidget(p);
      return true;
    }
  return false;
}

void MainWindow::updateTitle() {
  const QString path = model_.filePath();
  const QString name = path.isEmpty() ? tr("Untitled") : QFileInfo(path).fileName();
  setWindowTitle(QStringLiteral("%1[*] — Napkin").arg(name));
  setWindowModified(model_.isModified());
  file_label_->setText(model_.isModified() ? tr("%1 (modified)").arg(name) : name);
}

void MainWindow::showError(const QString& title, const QString& text) {
  last_error_ = text;
  statusBar()->showMessage(text, 10000);
  auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setObjectName(QStringLiteral("errorBox"));
  box->open();
}

void MainWindow::showLongStatus(const QString& text, int ms) {
  QStatusBar* bar = statusBar();
  const int room = std::max(80, bar->width() - file_label_->width() - 32);
  const QString shown = bar->fontMetrics().elidedText(text, Qt::ElideRight, room);
  bar->setToolTip(shown == text ? QString() : text);
  bar->showMessage(shown, ms);
}

QPageSize MainWindow::reportPageSize() const {
  if (session_ == Session::restore) {
    const QString id = QSettings().value(QStringLiteral("report/pageSize")).toString();
    if (id == QLatin1String("Letter")) return QPageSize(QPageSize::Letter);
    if (id == QLatin1String("A4")) return QPageSize(QPageSize::A4);
  }
  return report_page_size_.value_or(ReportOptions::defaultPageSize());
}

void MainWindow::setReportPageSize(const QPageSize& size) {
  report_page_size_ = size;
  if (session_ == Session::restore)
    QSettings().setValue(QStringLiteral("report/pageSize"), size.id() == QPageSize::Letter
                                                                ? QStringLiteral("Letter")
                                                                : QStringLiteral("A4"));
}

void MainWindow::settle() {
  // The report shows current, finished numbers: panels behind other tabs catch
  // up, and the scaling panel's debounced fit and bootstrap finish (bounded,
  // in case a job hangs).
  for (Panel* p : panels_) p->refreshIfStale();
  const auto busy = [this] {
    for (const Panel* p : panels_)
      if (p->isBusy()) return true;
    return false;
  };
  QElapsedTimer clock;
  clock.start();
  QCoreApplication::processEvents();
  while (busy() && clock.elapsed() < 120000)
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}

void MainWindow::newScenario() { model_.load(Scenario{}, QString()); }

void MainWindow::resetToDefaults() { model_.replace(Scenario{}, tr("Reset to defaults")); }

bool MainWindow::maybeSave(bool* discarded) {
  if (discarded) *discarded = false;
  if (!model_.isModified()) return true;
  switch (prompt_()) {
    case QMessageBox::Save: return save();
    case QMessageBox::Discard:
      if (discarded) *discarded = true;
      return true;
    default: return false;
  }
}

void MainWindow::closeEvent(QCloseEvent* event) {
  bool discarded = false;
  if (!maybeSave(&discarded)) {
    event->ignore();
    return;
  }
  if (session_ == Session::restore) {
    saveSession(discarded);
    if (autosave_) autosave_->remove();  // a clean exit: nothing to recover
  }
  event->accept();
}

QString MainWindow::autosaveFolder() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
}

QString MainWindow::autosavePath() const { return autosave_ ? autosave_->path() : QString(); }

void MainWindow::autosave() {
  if (!autosave_) return;
  QString error;
  if (!autosave_->writeNow(&error))
    statusBar()->showMessage(tr("Autosave failed: %1").arg(error), 15000);
}

void MainWindow::offerRecovery() {
  if (!autosave_) return;
  // Only instances that are gone: a running window keeps its lock. Each is
  // offered in turn, newest first, until one is recovered; this window holds
  // one scenario, so those after it become files in the recovered folder,
  // named in the status bar. A declined one is deleted; one that cannot be
  // read stays (a later version may read it).
  std::vector<OrphanAutosave> orphans = autosave_->claimOrphans();
  QString recovered;
  QStringList kept;
  for (std::size_t i = 0; i < orphans.size(); ++i) {
    OrphanAutosave& o = orphans[i];
    const QString document = o.documentPath();
    if (!recovered.isEmpty()) {
      const QString folder = autosaveFolder() + QStringLiteral("/recovered");
      const QString base =
          (document.isEmpty()
               ? QStringLiteral("untitled")
               : QFileInfo(document).fileName().remove(QStringLiteral(".napkin.json"))) +
          o.lastModified().toString(QStringLiteral("-yyyyMMdd-HHmmss"));
      QString target = folder + QLatin1Char('/') + base + QStringLiteral(".napkin.json");
      for (int n = 2; QFileInfo::exists(target); ++n)
        target = folder + QLatin1Char('/') + base + QStringLiteral("-%1.napkin.json").arg(n);
      if (QDir().mkpath(folder) && o.keepAs(target)) kept << target;
      continue;
    }
    QString what = QLocale().toString(o.lastModified(), QLocale::ShortFormat);
    QStringList about;
    if (!document.isEmpty()) about << QFileInfo(document).fileName();
    if (orphans.size() > 1) about << tr("%1 of %2").arg(i + 1).arg(orphans.size());
    if (!about.isEmpty())
      what += QStringLiteral(" (") + about.join(QStringLiteral("; ")) + QLatin1Char(')');
    if (!recover_prompt_(what)) {
      o.discard();
      continue;
    }
    try {
      // The file the edits belong to and the pinned baseline come back too.
      const AutosaveContext context = Autosave::readContext(o.path());
      const QString file = context.file_path.isEmpty() ? document : context.file_path;
      model_.load(load_scenario_file(o.path().toStdString()), file);
      model_.setModified();
      if (context.baseline)
        baseline_->restoreAs(*context.baseline, context.baseline_label, context.baseline_path);
      recovered = what;
      autosave();  // it is this window's unsaved work now
      o.discard();
    } catch (const std::exception& e) {
      showError(tr("Could not recover the autosave"), QString::fromStdString(e.what()));
    }
  }
  if (recovered.isEmpty()) return;
  // One arg() pass each: a "%1" in a file name stays as it is.
  QString message = tr("Recovered the scenario autosaved at %1").arg(recovered);
  if (!kept.isEmpty())
    message += tr("; %n more kept as files: %1", nullptr, static_cast<int>(kept.size()))
                   .arg(kept.join(QStringLiteral(", ")));
  statusBar()->showMessage(message, 30000);
}

void MainWindow::saveSession(bool discarded) {
  QSettings st;
  if (discarded) {
    // Discard: the next start opens the file as last saved, or the defaults.
    st.remove(QStringLiteral("session/scenario"));
    st.setValue(QStringLiteral("session/modified"), false);
  } else {
    st.setValue(QStringLiteral("session/scenario"),
                QString::fromStdString(scenario_to_json(savedDocument(*this))));
    st.setValue(QStringLiteral("session/modified"), model_.isModified());
  }
  st.setValue(QStringLiteral("session/path"), model_.filePath());
  st.setValue(QStringLiteral("window/geometry"), saveGeometry());
  st.setValue(QStringLiteral("window/state"), saveState());  // the Compare dock: where, shown
  baseline_->save(st);
}

void MainWindow::restoreSession() {
  QSettings st;
  setSideNavigation(st.value(QStringLiteral("view/sideNavigation"), false).toBool());
  restoreGeometry(st.value(QStringLiteral("window/geometry")).toByteArray());
  const QString json = st.value(QStringLiteral("session/scenario")).toString();
  const QString path = st.value(QStringLiteral("session/path")).toString();
  try {
    if (!json.isEmpty()) {
      const Scenario s = scenario_from_json(json.toStdString(), "the last session");
      model_.load(s, path);
      if (st.value(QStringLiteral("session/modified"), false).toBool()) model_.setModified();
    } else if (!path.isEmpty()) {
      // A named pipe there would stall every launch waiting for a writer.
      if (const QString why = notAScenarioFile(path); !why.isEmpty())
        throw std::runtime_error(why.toStdString());
      model_.load(load_scenario_file(path.toStdString()), path);  // changes were discarded
    }
  } catch (const std::exception& e) {
    statusBar()->showMessage(
        tr("The last session could not be restored: %1").arg(QString::fromStdString(e.what())),
        10000);
  }
  baseline_->restore(st);
  restoreState(st.value(QStringLiteral("window/state")).toByteArray());
  if (!baseline_->isPinned()) compare_->hide();  // nothing to compare
  tabs_->setCurrentIndex(
      std::clamp(st.value(QStringLiteral("view/panel"), 0).toInt(), 0, tabs_->count() - 1));
}

void MainWindow::addRecent(const QString& path) {
  if (session_ != Session::restore) return;
  QSettings st;
  QStringList recent = st.value(QStringLiteral("recentFiles")).toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > kMaxRecent) recent.removeLast();
  st.setValue(QStringLiteral("recentFiles"), recent);
  updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
  recent_menu_->clear();
  const QStringList recent = session_ == Session::restore
                                 ? QSettings().value(QStringLiteral("recentFiles")).toStringList()
                                 : QStringList();
  for (const QString& p : recent)
    recent_menu_
        ->addAction(QFileInfo(p).fileName(), this,
                    [this, p] {
                      if (!maybeSave()) return;
                      if (const QString why = notAScenarioFile(p); !why.isEmpty())
                        showError(tr("Could not open the scenario"), why);
                      else
                        openFile(p);
                    })
        ->setToolTip(p);
  recent_menu_->setEnabled(!recent.isEmpty());
}

void MainWindow::showHelp() {
  if (const Panel* p = currentPanel())
    QMessageBox::information(this, tr("How to read this panel"), p->help());
}

int MainWindow::screenshot(const QString& file, const QString& panel, const QString& scenario,
                           const QSize& size) {
  MainWindow w(Session::fresh);
  if (!scenario.isEmpty() && !w.openFile(scenario)) {
    std::fprintf(stderr, "napkin: %s\n", w.lastError().toLocal8Bit().constData());
    return 2;
  }
  // "roofline/serving": a panel, then one of its tabs by the first word of its title.
  const QString key = panel.section(QLatin1Char('/'), 0, 0);
  const QString tab = panel.section(QLatin1Char('/'), 1);
  if (!key.isEmpty() && !w.showPanel(key)) {
    std::fprintf(stderr, "napkin: --panel must be one of %s; got \"%s\"\n",
                 w.panelKeys().toLocal8Bit().constData(), key.toLocal8Bit().constData());
    return 2;
  }
  if (!tab.isEmpty()) {
    QStringList titles;
    bool found = false;
    for (QTabWidget* tabs : w.currentPanel()->findChildren<QTabWidget*>())
      for (int i = 0; i < tabs->count() && !found; ++i) {
        const QString title = tabs->tabText(i).replace(QStringLiteral("&&"), QStringLiteral("&"));
        titles << title;
        if (title.section(QLatin1Char(' '), 0, 0).compare(tab, Qt::CaseInsensitive) == 0) {
          tabs->setCurrentIndex(i);
          found = true;
        }
      }
    if (!found) {
      std::fprintf(stderr,
                   "napkin: after --panel %s/ comes the first word of one of its tabs (%s); got "
                   "\"%s\"\n",
                   key.toLocal8Bit().constData(),
                   titles.isEmpty() ? "it has none"
                                    : titles.join(QStringLiteral(", ")).toLocal8Bit().constData(),
                   tab.toLocal8Bit().constData());
      return 2;
    }
  }
  // The window is drawn at exactly the size asked for (even below its
  // minimum, so a screenshot shows what that screen would show).
  w.setMinimumSize(1, 1);
  w.resize(size);
  w.show();
  for (int i = 0; i < 5; ++i) QApplication::processEvents();
  w.settle();  // a run of record computed off the UI thread is in
  for (PlotWidget* p : w.findChildren<PlotWidget*>()) p->replot(QCustomPlot::rpImmediateRefresh);
  const QImage img = w.grab().toImage();
  QString error;
  if (!writeImage(img, file, &error)) {
    std::fprintf(stderr, "napkin: %s\n", error.toLocal8Bit().constData());
    return 2;
  }
  return 0;
}

}  // namespace napkin
