#include "MainWindow.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
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
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QUndoStack>

#include "IsoflopsPanel.h"
#include "MoePanel.h"
#include "PlotWidget.h"
#include "roofline/RooflinePanel.h"
#include "budget/BudgetPanel.h"
#include "config_import.h"
#include "hardware.h"
#include "report/ReportWriter.h"
#include "scenario_json.h"

namespace napkin {

namespace {

constexpr int kMaxRecent = 8;
// A laptop screen (1024×768 less the desktop's bars) must hold the window.
constexpr QSize kMinimumWindow(960, 600);

}  // namespace

MainWindow::MainWindow(Session session, QWidget* parent) : QMainWindow(parent), session_(session) {
  setWindowIcon(QIcon(QStringLiteral(":/napkin/napkin.svg")));
  tabs_ = new QTabWidget(this);
  tabs_->setDocumentMode(true);
  // The panels, in tab order: one line each.
  addPanel(new BudgetPanel(&model_, tabs_));
  addPanel(new IsoflopsPanel(&model_, tabs_));
  addPanel(new MoePanel(&model_, tabs_));
  addPanel(new RooflinePanel(&model_, tabs_));
  setCentralWidget(tabs_);
  setMinimumSize(kMinimumWindow);

  file_label_ = new QLabel(this);
  statusBar()->addPermanentWidget(file_label_);
  connect(&model_, &ScenarioModel::fileStateChanged, this, &MainWindow::updateTitle);
  connect(&model_, &ScenarioModel::changed, this, &MainWindow::updateTitle);
  connect(&model_, &ScenarioModel::editRejected, this, [this](const QString& why) {
    statusBar()->showMessage(tr("Not applied: %1").arg(why), 8000);
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
    const QString scenarios = tr("Napkin scenario (*.napkin.json *.json)");
    switch (purpose) {
      case PathPurpose::open:
        return QFileDialog::getOpenFileName(this, tr("Open scenario"), QString(), scenarios);
      case PathPurpose::save_as:
        return QFileDialog::getSaveFileName(this, tr("Save scenario"), suggested, scenarios);
      case PathPurpose::import_config:
        return QFileDialog::getOpenFileName(this, tr("Import a Hugging Face config.json"),
                                            QString(), tr("config.json (*.json)"));
      case PathPurpose::export_report:
        return QFileDialog::getSaveFileName(this, tr("Export report"), suggested,
                                            tr("PDF (*.pdf)"));
    }
    return QString();
  };
  buildMenus();
  resize(1280, 800);
  recover_prompt_ = [this](const QString& when) {
    return QMessageBox::question(
               this, tr("Recover unsaved work?"),
               tr("Napkin did not close cleanly. Recover the scenario autosaved at %1?").arg(when),
               QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes) == QMessageBox::Yes;
  };
  if (session_ == Session::restore) {
    restoreSession();
    // Offer recovery once the window is up, so the question has a parent on screen.
    QTimer::singleShot(0, this, &MainWindow::offerRecovery);
    autosave_timer_ = new QTimer(this);
    autosave_timer_->setSingleShot(true);
    autosave_timer_->setInterval(1500);
    connect(autosave_timer_, &QTimer::timeout, this, &MainWindow::autosave);
    connect(&model_, &ScenarioModel::changed, autosave_timer_, [this] {
      if (!autosave_timer_->isActive()) autosave_timer_->start();
    });
  }
  updateTitle();
  updateRecentMenu();
}

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

void MainWindow::buildMenus() {
  // Every menu item says in the status bar what it does (hover it).
  auto tip = [](QAction* a, const QString& text) {
    a->setStatusTip(text);
    return a;
  };
  QMenu* file = menuBar()->addMenu(tr("&File"));
  tip(file->addAction(tr("&New"), QKeySequence::New, this,
                      [this] {
                        if (maybeSave()) newScenario();
                      }),
      tr("Start a new scenario from the defaults (asks to save unsaved changes)"));
  tip(file->addAction(tr("&Open…"), QKeySequence::Open, this,
                      [this] {
                        if (!maybeSave()) return;
                        const QString path = path_prompt_(PathPurpose::open, QString());
                        if (!path.isEmpty()) openFile(path);
                      }),
      tr("Open a saved scenario (.napkin.json)"));
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  recent_menu_->menuAction()->setStatusTip(tr("Open one of the scenarios opened or saved lately"));
  tip(file->addAction(tr("&Save"), QKeySequence(tr("Ctrl+S")), this, [this] { save(); }),
      tr("Save the scenario to its file (asks for a name the first time)"));
  tip(file->addAction(tr("Save &As…"), QKeySequence(tr("Ctrl+Shift+S")), this,
                      [this] { saveAs(); }),
      tr("Save the scenario under a new name"));
  file->addSeparator();
  tip(file->addAction(tr("&Import config.json…"), QKeySequence(tr("Ctrl+I")), this,
                      [this] {
                        const QString path = path_prompt_(PathPurpose::import_config, QString());
                        if (!path.isEmpty()) importConfig(path);
                      }),
      tr("Read a model shape from a Hugging Face config.json into the scenario"));
  tip(file->addAction(tr("&Export report…"), QKeySequence(tr("Ctrl+E")), this,
                      [this] {
                        const QString path = path_prompt_(PathPurpose::export_report,
                                                          QStringLiteral("napkin-report.pdf"));
                        if (!path.isEmpty()) exportReport(path);
                      }),
      tr("Write the scenario's report as a PDF: every panel's numbers and charts, and a memo"));
  QMenu* page = file->addMenu(tr("Report &page size"));
  page->menuAction()->setStatusTip(tr("Paper size of the exported and printed report"));
  auto* sizes = new QActionGroup(this);
  for (const auto& [label, id] :
       {std::pair{tr("A4"), QPageSize::A4}, std::pair{tr("Letter"), QPageSize::Letter}}) {
    QAction* a = page->addAction(label);
    a->setStatusTip(tr("Lay the report out on %1 pages").arg(label));
    a->setCheckable(true);
    a->setChecked(reportPageSize().id() == id);
    sizes->addAction(a);
    connect(a, &QAction::triggered, this, [this, pid = id] { setReportPageSize(QPageSize(pid)); });
  }
  tip(file->addAction(tr("&Print…"), QKeySequence::Print, this, &MainWindow::printReport),
      tr("Print the report"));
  file->addSeparator();
  tip(file->addAction(tr("&Quit"), QKeySequence(tr("Ctrl+Q")), this, &QWidget::close),
      tr("Quit Napkin (asks to save unsaved changes)"));

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QAction* undo = model_.undoStack()->createUndoAction(this, tr("&Undo"));
  undo->setShortcuts({QKeySequence(tr("Ctrl+Z"))});
  undo->setStatusTip(tr("Undo the last change to the scenario"));
  QAction* redo = model_.undoStack()->createRedoAction(this, tr("&Redo"));
  redo->setShortcuts({QKeySequence(tr("Ctrl+Shift+Z")), QKeySequence(tr("Ctrl+Y"))});
  redo->setStatusTip(tr("Redo the change last undone"));
  edit->addAction(undo);
  edit->addAction(redo);
  edit->addSeparator();
  tip(edit->addAction(tr("Reset to &defaults"), this, &MainWindow::resetToDefaults),
      tr("Put every input back to its default (one undo step)"));

  QMenu* view = menuBar()->addMenu(tr("&View"));
  side_nav_action_ = view->addAction(tr("&Side navigation"));
  side_nav_action_->setStatusTip(tr("Show the panel tabs down the left side"));
  side_nav_action_->setCheckable(true);
  connect(side_nav_action_, &QAction::toggled, this, [this](bool on) {
    setSideNavigation(on);
    if (session_ == Session::restore)
      QSettings().setValue(QStringLiteral("view/sideNavigation"), on);
  });
  view->addSeparator();
  for (int i = 0; i < static_cast<int>(panels_.size()); ++i)
    tip(view->addAction(tabs_->tabText(i), QKeySequence(QStringLiteral("Ctrl+%1").arg(i + 1)), this,
                        [this, i] { tabs_->setCurrentIndex(i); }),
        tr("Show the %1 panel").arg(panels_[static_cast<std::size_t>(i)]->title()));

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  tip(help->addAction(tr("How to read this &panel"), QKeySequence(tr("F1")), this,
                      &MainWindow::showHelp),
      tr("What the current panel shows and how its numbers are computed"));
  QAction* about = help->addAction(tr("&About Napkin"), this, [this] {
    QString chips;
    for (const Chip& c : hardware_table())
      chips +=
          QStringLiteral("<li>%1: %2</li>")
              .arg(QString::fromUtf8(c.name.data(), static_cast<qsizetype>(c.name.size())),
                   QString::fromUtf8(c.source.data(), static_cast<qsizetype>(c.source.size())));
    QMessageBox::about(
        this, tr("About Napkin"),
        tr("<h3>Napkin %1</h3><p>The arithmetic of LLM pre-training as instruments.</p>"
           "<p>Formulas: the seed track's Phase 00–03 (6ND, 18BTDF + 24BTDNH, training memory, "
           "KV cache); Hoffmann et al. 2022 and Besiroglu et al. 2024 (the Chinchilla law); "
           "Sardana et al. 2024 (lifetime cost).</p><p>Hardware table:</p><ul>%2</ul>"
           "<p>Licence: MIT.</p>")
            .arg(QApplication::applicationVersion(), chips));
  });
  about->setStatusTip(tr("Version, sources of the formulas and of the hardware table, licence"));
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

bool MainWindow::openFile(const QString& path) {
  try {
    const Scenario s = load_scenario_file(path.toStdString());
    model_.load(s, path);
    addRecent(path);
    statusBar()->showMessage(tr("Opened %1").arg(path), 4000);
    return true;
  } catch (const std::exception& e) {
    showError(tr("Could not open the scenario"), QString::fromStdString(e.what()));
    return false;
  }
}

bool MainWindow::saveTo(const QString& path) {
  try {
    save_scenario_file(model_.scenario(), path.toStdString());
    model_.markSaved(path);
    addRecent(path);
    statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    return true;
  } catch (const std::exception& e) {
    showError(tr("Could not save the scenario"), QString::fromStdString(e.what()));
    return false;
  }
}

bool MainWindow::save() {
  if (model_.filePath().isEmpty()) return saveAs();
  return saveTo(model_.filePath());
}

bool MainWindow::saveAs() {
  QString path = path_prompt_(PathPurpose::save_as, QStringLiteral("scenario.napkin.json"));
  if (path.isEmpty()) return false;
  if (!path.endsWith(QLatin1String(".json"))) path += QStringLiteral(".napkin.json");
  return saveTo(path);
}

bool MainWindow::importConfig(const QString& path) {
  try {
    const ImportedConfig c = import_hf_config_file(path.toStdString());
    Scenario s = model_.scenario();
    s.shape = c.shape;
    s.model_name = c.family + " (" + QFileInfo(path).fileName().toStdString() + ")";
    model_.replace(s, tr("Import %1").arg(QFileInfo(path).fileName()));
    statusBar()->showMessage(
        tr("Imported %1: %2 parameters").arg(path, QString::number(count_params(c.shape).total)),
        6000);
    return true;
  } catch (const std::exception& e) {
    showError(tr("Could not import config.json"), QString::fromStdString(e.what()));
    return false;
  }
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

bool MainWindow::exportReport(const QString& path) {
  settle();
  ReportOptions options;
  options.page_size = reportPageSize();
  ReportWriter writer(this, options);
  QString error;
  if (!writer.writePdf(path, &error)) {
    showError(tr("Could not export the report"), error);
    return false;
  }
  statusBar()->showMessage(tr("Exported %1").arg(path), 4000);
  return true;
}

void MainWindow::printReport() {
  QPrinter printer(QPrinter::ScreenResolution);  // the report lays out at 96 dpi
  printer.setPageSize(reportPageSize());
  QPrintDialog dialog(&printer, this);
  dialog.setWindowTitle(tr("Print report"));
  if (dialog.exec() != QDialog::Accepted) return;
  settle();
  ReportOptions options;
  options.page_size = printer.pageLayout().pageSize();
  ReportWriter(this, options).paint(&printer);
}

void MainWindow::newScenario() { model_.load(Scenario{}, QString()); }

void MainWindow::resetToDefaults() { model_.replace(Scenario{}, tr("Reset to defaults")); }

bool MainWindow::maybeSave() {
  if (!model_.isModified()) return true;
  switch (prompt_()) {
    case QMessageBox::Save: return save();
    case QMessageBox::Discard: return true;
    default: return false;
  }
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (session_ == Session::restore) saveSession();
  if (!maybeSave()) {
    event->ignore();
    return;
  }
  if (session_ == Session::restore) {
    saveSession();
    QFile::remove(autosavePath());  // a clean exit: nothing to recover
  }
  event->accept();
}

QString MainWindow::autosavePath() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
         QStringLiteral("/autosave.napkin.json");
}

void MainWindow::autosave() {
  if (!model_.isModified()) {
    QFile::remove(autosavePath());
    return;
  }
  QDir().mkpath(QFileInfo(autosavePath()).absolutePath());
  try {
    save_scenario_file(model_.scenario(), autosavePath().toStdString());
  } catch (const std::exception& e) {
    statusBar()->showMessage(tr("Autosave failed: %1").arg(QString::fromStdString(e.what())), 8000);
  }
}

void MainWindow::offerRecovery() {
  const QString path = autosavePath();
  if (!QFileInfo::exists(path)) return;
  const QString when = QLocale().toString(QFileInfo(path).lastModified(), QLocale::ShortFormat);
  if (recover_prompt_(when)) {
    try {
      model_.load(load_scenario_file(path.toStdString()), QString());
      model_.setModified();
      statusBar()->showMessage(tr("Recovered the scenario autosaved at %1").arg(when), 8000);
    } catch (const std::exception& e) {
      showError(tr("Could not recover the autosave"), QString::fromStdString(e.what()));
    }
  }
  QFile::remove(path);
}

void MainWindow::saveSession() {
  QSettings st;
  st.setValue(QStringLiteral("session/scenario"),
              QString::fromStdString(scenario_to_json(model_.scenario())));
  st.setValue(QStringLiteral("session/path"), model_.filePath());
  st.setValue(QStringLiteral("session/modified"), model_.isModified());
  st.setValue(QStringLiteral("window/geometry"), saveGeometry());
}

void MainWindow::restoreSession() {
  QSettings st;
  setSideNavigation(st.value(QStringLiteral("view/sideNavigation"), false).toBool());
  restoreGeometry(st.value(QStringLiteral("window/geometry")).toByteArray());
  const QString json = st.value(QStringLiteral("session/scenario")).toString();
  if (!json.isEmpty()) {
    try {
      const Scenario s = scenario_from_json(json.toStdString(), "the last session");
      model_.load(s, st.value(QStringLiteral("session/path")).toString());
      if (st.value(QStringLiteral("session/modified"), false).toBool()) model_.setModified();
    } catch (const std::exception& e) {
      statusBar()->showMessage(
          tr("The last session could not be restored: %1").arg(QString::fromStdString(e.what())),
          10000);
    }
  }
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
                      if (maybeSave()) openFile(p);
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
  if (!panel.isEmpty() && !w.showPanel(panel)) {
    std::fprintf(stderr, "napkin: --panel must be one of %s; got \"%s\"\n",
                 w.panelKeys().toLocal8Bit().constData(), panel.toLocal8Bit().constData());
    return 2;
  }
  // The window is drawn at exactly the size asked for (even below its
  // minimum, so a screenshot shows what that screen would show).
  w.setMinimumSize(1, 1);
  w.resize(size);
  w.show();
  for (int i = 0; i < 5; ++i) QApplication::processEvents();
  for (PlotWidget* p : w.findChildren<PlotWidget*>()) p->replot(QCustomPlot::rpImmediateRefresh);
  const QImage img = w.grab().toImage();
  if (img.isNull() || !img.save(file, "PNG")) {
    std::fprintf(stderr, "napkin: could not write %s\n", file.toLocal8Bit().constData());
    return 2;
  }
  return 0;
}

}  // namespace napkin
