// MainWindow's menus. The fixed items, their shortcuts and status-bar hints are
// in the form ui/MainWindow.ui; here they are connected, and the items that
// depend on the window (undo/redo, the Compare dock, the panels) are added.
// Every item says in the status bar what it does (hover it), and every
// shortcut also works while a value is being typed in a spin box (SciSpinBox
// lets chords through).
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDialog>
#include <QMenuBar>
#include <QSettings>
#include <QTabWidget>
#include <QUndoStack>

#include "hardware.h"
#include "report/ReportWriter.h"
#include "shell/BaselineController.h"
#include "shell/CompareDock.h"
#include "shell/FileActions.h"
#include "shell/MainWindow.h"
#include "ui_AboutDialog.h"
#include "ui_MainWindow.h"

namespace napkin {

void MainWindow::buildMenus() {
  Ui::MainWindow& ui = *ui_;
  const auto on = [this](QAction* a, auto slot) { connect(a, &QAction::triggered, this, slot); };
  on(ui.actionNew, [this] {
    if (maybeSave()) newScenario();
  });
  on(ui.actionOpen, [this] {
    if (!maybeSave()) return;
    const QString path = path_prompt_(PathPurpose::open, QString());
    if (path.isEmpty()) return;
    // A named pipe would wait for a writer: refused at once, with what it is.
    if (const QString why = notAScenarioFile(path); !why.isEmpty())
      showError(tr("Could not open the scenario"), why);
    else
      openFile(path);
  });
  recent_menu_ = ui.menuRecent;
  recent_menu_->menuAction()->setStatusTip(tr("Open one of the scenarios opened or saved lately"));
  on(ui.actionOpenBaseline, [this] {
    const QString path = path_prompt_(PathPurpose::open_baseline, QString());
    if (!path.isEmpty()) openBaseline(path);
  });
  on(ui.actionSave, [this] { save(); });
  on(ui.actionSaveAs, [this] { saveAs(); });
  on(ui.actionImportModel, [this] {
    const QString path = path_prompt_(PathPurpose::import_config, QString());
    if (!path.isEmpty()) importModel(path);
  });
  on(ui.actionImportTrainingConfig, [this] {
    const QString path = path_prompt_(PathPurpose::import_training_config, QString());
    if (!path.isEmpty()) importTrainingConfig(path);
  });
  on(ui.actionExportReport, [this] {
    const QString path =
        path_prompt_(PathPurpose::export_report, QStringLiteral("napkin-report.pdf"));
    if (!path.isEmpty()) exportReport(path);
  });
  QAction* compare_csv = ui.exportCompareCsv;
  on(compare_csv, [this] {
    const QString path = path_prompt_(PathPurpose::export_csv, QStringLiteral("compare.csv"));
    if (!path.isEmpty()) exportCompareCsv(path);
  });
  // With no baseline there is nothing to compare: a header-only file helps nobody.
  compare_csv->setEnabled(baseline_->isPinned());
  connect(baseline_, &BaselineController::changed, compare_csv,
          [this, compare_csv] { compare_csv->setEnabled(baseline_->isPinned()); });
  ui.menuPageSize->menuAction()->setStatusTip(tr("Paper size of the exported and printed report"));
  for (const auto& [a, id] : {std::pair{ui.actionPageA4, QPageSize::A4},
                              std::pair{ui.actionPageLetter, QPageSize::Letter}}) {
    a->setChecked(reportPageSize().id() == id);
    on(a, [this, pid = id] { setReportPageSize(QPageSize(pid)); });
  }
  on(ui.actionPrint, &MainWindow::printReport);
  on(ui.actionQuit, &QWidget::close);

  // Undo and redo come from the scenario's undo stack, before Reset to defaults.
  QAction* undo = model_.undoStack()->createUndoAction(this, tr("&Undo"));
  undo->setShortcuts({QKeySequence(tr("Ctrl+Z"))});
  undo->setStatusTip(tr("Undo the last change to the scenario"));
  QAction* redo = model_.undoStack()->createRedoAction(this, tr("&Redo"));
  redo->setShortcuts({QKeySequence(tr("Ctrl+Shift+Z")), QKeySequence(tr("Ctrl+Y"))});
  redo->setStatusTip(tr("Redo the change last undone"));
  ui.menuEdit->insertActions(ui.menuEdit->actions().value(0), {undo, redo});
  on(ui.actionCopyCliCommand, &MainWindow::copyCliCommand);
  on(ui.actionResetDefaults, &MainWindow::resetToDefaults);

  side_nav_action_ = ui.actionSideNavigation;
  connect(side_nav_action_, &QAction::toggled, this, [this](bool checked) {
    setSideNavigation(checked);
    if (session_ == Session::restore)
      QSettings().setValue(QStringLiteral("view/sideNavigation"), checked);
  });
  on(ui.actionPinBaseline, &MainWindow::pinBaseline);
  unpin_action_ = ui.actionUnpinBaseline;
  on(unpin_action_, &MainWindow::unpinBaseline);
  unpin_action_->setEnabled(baseline_->isPinned());
  // The Compare dock's own toggle, after Unpin; then one item per panel.
  QAction* compare = compare_->toggleViewAction();
  compare->setText(tr("&Compare plans"));
  compare->setShortcut(QKeySequence(tr("Ctrl+Shift+B")));
  compare->setStatusTip(
      tr("Show or hide the list of inputs that differ and the headline outputs "
         "of plan A and plan B"));
  QMenu* view = ui.menuView;
  view->insertAction(view->actions().value(view->actions().indexOf(unpin_action_) + 1), compare);
  for (int i = 0; i < static_cast<int>(panels_.size()); ++i) {
    QAction* a =
        view->addAction(tabs_->tabText(i), QKeySequence(QStringLiteral("Ctrl+%1").arg(i + 1)), this,
                        [this, i] { tabs_->setCurrentIndex(i); });
    a->setStatusTip(tr("Show the %1 panel").arg(panels_[static_cast<std::size_t>(i)]->title()));
  }

  on(ui.actionHelpPanel, &MainWindow::showHelp);
  on(ui.actionAbout, [this] {
    QString chips;
    for (const Chip* c : chip_list())  // the user's chips with their sources too
      chips +=
          QStringLiteral("<li>%1: %2</li>")
              .arg(QString::fromUtf8(c->name.data(), static_cast<qsizetype>(c->name.size()))
                       .toHtmlEscaped(),
                   QString::fromUtf8(c->source.data(), static_cast<qsizetype>(c->source.size()))
                       .toHtmlEscaped());
    QDialog dialog(this);
    Ui::AboutDialog about;  // ui/AboutDialog.ui
    about.setupUi(&dialog);
    about.icon->setPixmap(windowIcon().pixmap(64, 64));
    about.aboutText->setText(
        tr("<h3>Napkin %1</h3><p>The arithmetic of LLM pre-training as instruments.</p>"
           "<p>Formulas: the seed track's Phase 00–03 (6ND, 18BTDF + 24BTDNH, training memory, "
           "KV cache); Hoffmann et al. 2022 and Besiroglu et al. 2024 (the Chinchilla law); "
           "Sardana et al. 2024 (lifetime cost).</p><p>Hardware table:</p><ul>%2</ul>"
           "<p>Licence: MIT.</p>")
            .arg(QApplication::applicationVersion(), chips));
    dialog.exec();
  });
}

}  // namespace napkin
