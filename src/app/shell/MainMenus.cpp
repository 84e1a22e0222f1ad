// MainWindow's menus. Every item says in the status bar what it does (hover
// it), and every shortcut is an application shortcut that also works while a
// value is being typed in a spin box (SciSpinBox lets chords through).
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QMenuBar>
#include <QSettings>
#include <QTabWidget>
#include <QUndoStack>

#include "MainWindow.h"
#include "hardware.h"
#include "report/ReportWriter.h"
#include "shell/BaselineController.h"
#include "shell/CompareDock.h"

namespace napkin {

void MainWindow::buildMenus() {
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
  tip(file->addAction(tr("Open as &baseline…"), this,
                      [this] {
                        const QString path = path_prompt_(PathPurpose::open_baseline, QString());
                        if (!path.isEmpty()) openBaseline(path);
                      }),
      tr("Load a saved scenario as plan A, to compare the current scenario with it"));
  tip(file->addAction(tr("&Save"), QKeySequence(tr("Ctrl+S")), this, [this] { save(); }),
      tr("Save the scenario to its file (asks for a name the first time)"));
  tip(file->addAction(tr("Save &As…"), QKeySequence(tr("Ctrl+Shift+S")), this,
                      [this] { saveAs(); }),
      tr("Save the scenario under a new name"));
  file->addSeparator();
  tip(file->addAction(tr("&Import model…"), QKeySequence(tr("Ctrl+I")), this,
                      [this] {
                        const QString path = path_prompt_(PathPurpose::import_config, QString());
                        if (!path.isEmpty()) importModel(path);
                      }),
      tr("Read a model shape from a Hugging Face config.json or a checkpoint folder (config.json "
         "and model.safetensors.index.json) into the scenario"));
  tip(file->addAction(tr("Import &training config…"), this,
                      [this] {
                        const QString path =
                            path_prompt_(PathPurpose::import_training_config, QString());
                        if (!path.isEmpty()) importTrainingConfig(path);
                      }),
      tr("Read the model, chips, layout, batch and sequence length from a Megatron-LM launch "
         "script or printed arguments, a torchtitan TOML, a NeMo YAML or a DeepSpeed JSON; what "
         "the file does not say is listed and left as it was"));
  tip(file->addAction(tr("&Export report…"), QKeySequence(tr("Ctrl+E")), this,
                      [this] {
                        const QString path = path_prompt_(PathPurpose::export_report,
                                                          QStringLiteral("napkin-report.pdf"));
                        if (!path.isEmpty()) exportReport(path);
                      }),
      tr("Write the scenario's report as a PDF: every panel's numbers and charts, and a memo "
         "(opening with plan A vs plan B when a baseline is pinned)"));
  QAction* compare_csv = file->addAction(tr("Export &comparison as CSV…"), this, [this] {
    const QString path = path_prompt_(PathPurpose::export_csv, QStringLiteral("compare.csv"));
    if (!path.isEmpty()) exportCompareCsv(path);
  });
  compare_csv->setObjectName(QStringLiteral("exportCompareCsv"));
  tip(compare_csv,
      tr("Write the Compare list (inputs that differ, headline outputs of plan A and B) as CSV; "
         "needs a pinned baseline (plan A)"));
  // With no baseline there is nothing to compare: a header-only file helps nobody.
  compare_csv->setEnabled(baseline_->isPinned());
  connect(baseline_, &BaselineController::changed, compare_csv,
          [this, compare_csv] { compare_csv->setEnabled(baseline_->isPinned()); });
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
      tr("Quit Napkin (asks to save unsaved changes; Discard throws them away for good)"));

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
  tip(view->addAction(tr("&Pin as baseline"), QKeySequence(tr("Ctrl+B")), this,
                      &MainWindow::pinBaseline),
      tr("Freeze the current scenario as plan A: every read-out then shows the change from it "
         "and every plot draws it faded"));
  unpin_action_ = tip(view->addAction(tr("&Unpin baseline"), QKeySequence(tr("Ctrl+Shift+U")), this,
                                      &MainWindow::unpinBaseline),
                      tr("Stop comparing with the pinned plan A"));
  unpin_action_->setEnabled(baseline_->isPinned());
  QAction* compare = compare_->toggleViewAction();
  compare->setText(tr("&Compare plans"));
  compare->setShortcut(QKeySequence(tr("Ctrl+Shift+B")));
  compare->setStatusTip(
      tr("Show or hide the list of inputs that differ and the headline outputs "
         "of plan A and plan B"));
  view->addAction(compare);
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

}  // namespace napkin
