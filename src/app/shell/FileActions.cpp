// MainWindow's file actions: open, save, import a model, export the report
// and the Compare list, and pin a baseline. Every file goes through the
// atomic writer (atomic_writer.h) and a failure names the path and the OS's
// reason in one dialog.
#include "shell/FileActions.h"

#include <sys/stat.h>

#include <QBuffer>
#include <QClipboard>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QImageWriter>
#include <QPrintDialog>
#include <QPrinter>
#include <QPushButton>
#include <QStatusBar>
#include <QToolButton>
#include <algorithm>

#include "atomic_writer.h"
#include "config_import.h"
#include "format.h"
#include "moe/MoePanel.h"
#include "report/ReportWriter.h"
#include "scenario_json.h"
#include "shell/BaselineController.h"
#include "shell/CliCommand.h"
#include "shell/CompareDock.h"
#include "shell/MainWindow.h"

namespace napkin {

namespace {

// The atomic writer says when the previous file is untouched; say it once.
QString withPreviousFileNote(const QString& message) {
  return message.contains(QLatin1String("untouched"))
             ? message
             : QObject::tr("%1\n\nThe previous file, if any, is untouched.").arg(message);
}

}  // namespace

bool writeImage(const QImage& image, const QString& path, QString* error) {
  if (image.isNull()) {
    if (error) *error = QObject::tr("%1: nothing to write (the image is empty)").arg(path);
    return false;
  }
  // Encoded in memory, then written by the atomic writer: a full disk or a
  // file-size limit is the writer's one clear error, never the PNG library's
  // own message on stderr.
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  QImageWriter writer(&buffer, "PNG");
  if (!writer.write(image)) {
    if (error) *error = QObject::tr("%1: %2").arg(path, writer.errorString());
    return false;
  }
  return write_file_atomically(path, bytes, error);
}

QString chooseModelPath(QWidget* parent) {
  QFileDialog dialog(parent,
                     QObject::tr("Import a model: its config.json, or a checkpoint folder"));
  dialog.setOption(QFileDialog::DontUseNativeDialog);  // for the folder button
  dialog.setFileMode(QFileDialog::ExistingFile);
  dialog.setNameFilters({QObject::tr("config.json (*.json)"), QObject::tr("All files (*)")});
  QString folder;
  if (auto* box = dialog.findChild<QDialogButtonBox*>()) {
    QPushButton* b =
        box->addButton(QObject::tr("Import this &folder"), QDialogButtonBox::ActionRole);
    b->setToolTip(
        QObject::tr("Import the selected (or shown) folder: its config.json and, when "
                    "present, model.safetensors.index.json"));
    QObject::connect(b, &QPushButton::clicked, &dialog, [&] {
      const QStringList sel = dialog.selectedFiles();
      folder = !sel.isEmpty() && QFileInfo(sel.first()).isDir() ? sel.first()
                                                                : dialog.directory().absolutePath();
      static_cast<QDialog&>(dialog).done(
          QDialog::Accepted);  // not accept(): it would enter the folder
    });
  }
  if (dialog.exec() != QDialog::Accepted) return {};
  if (!folder.isEmpty()) return folder;
  const QStringList files = dialog.selectedFiles();
  return files.isEmpty() ? QString() : files.first();
}

QString MainWindow::askPath(PathPurpose purpose, const QString& suggested) {
  const QString scenarios = tr("Napkin scenario (*.napkin.json *.json)");
  switch (purpose) {
    case PathPurpose::open:
      return QFileDialog::getOpenFileName(this, tr("Open scenario"), QString(), scenarios);
    case PathPurpose::open_baseline:
      return QFileDialog::getOpenFileName(this, tr("Open a scenario as the baseline (plan A)"),
                                          QString(), scenarios);
    case PathPurpose::save_as:
      return QFileDialog::getSaveFileName(this, tr("Save scenario"), suggested, scenarios);
    case PathPurpose::import_config: return chooseModelPath(this);
    case PathPurpose::import_training_config: return chooseTrainingConfigPath(this);
    case PathPurpose::export_report:
      return QFileDialog::getSaveFileName(this, tr("Export report"), suggested, tr("PDF (*.pdf)"));
    case PathPurpose::export_csv:
      return QFileDialog::getSaveFileName(this, tr("Export the comparison"), suggested,
                                          tr("CSV (*.csv)"));
  }
  return QString();
}

bool MainWindow::openFile(const QString& path) {
  try {
    std::vector<std::string> warnings;
    const Scenario s = load_scenario_file(path.toStdString(), &warnings);
    model_.load(s, path);
    addRecent(path);
    // Fields a newer version wrote are kept and said so until the next message.
    if (warnings.empty())
      statusBar()->showMessage(tr("Opened %1").arg(path), 4000);
    else
      statusBar()->showMessage(QString::fromStdString(warnings.front()));
    return true;
  } catch (const std::exception& e) {
    showError(tr("Could not open the scenario"), QString::fromStdString(e.what()));
    return false;
  }
}

QString notAScenarioFile(const QString& path) {
  struct stat st {};
  if (::stat(QFile::encodeName(path).constData(), &st) != 0) return {};
  const char* kind = S_ISFIFO(st.st_mode)                         ? "a named pipe (FIFO)"
                     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                     : S_ISDIR(st.st_mode)                        ? "a folder"
                     : S_ISSOCK(st.st_mode)                       ? "a socket"
                                                                  : nullptr;
  if (!kind) return {};
  return QCoreApplication::translate("napkin::MainWindow",
                                     "%1 is %2, not a scenario file; nothing was opened")
      .arg(path, QLatin1String(kind));
}

Scenario savedDocument(const MainWindow& window, QString* note) {
  Scenario doc = window.model()->scenario();
  const MoePanel* moe = window.panel<MoePanel>();
  const QString said = moe ? moe->stampRun(doc) : QString();
  if (note) *note = said;
  return doc;
}

bool MainWindow::saveTo(const QString& path) {
  try {
    QString note;
    const Scenario doc = savedDocument(*this, &note);
    save_scenario_file(doc, path.toStdString());  // atomic, with the OS's reason
    model_.markSaved(path);
    addRecent(path);
    statusBar()->showMessage(
        note.isEmpty() ? tr("Saved %1").arg(path) : tr("Saved %1. %2").arg(path, note),
        note.isEmpty() ? 4000 : 15000);
    return true;
  } catch (const std::exception& e) {
    showError(tr("Could not save the scenario"),
              withPreviousFileNote(QString::fromStdString(e.what())));
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

bool MainWindow::importModel(const QString& path) {
  const QFileInfo info(path);
  // "Meta-Llama-3-8B" for a folder or its config.json, else the file's name.
  const QString name =
      info.isDir() ? info.fileName()
      : info.fileName() == QLatin1String("config.json") && !info.dir().dirName().isEmpty()
          ? info.dir().dirName() + QStringLiteral("/config.json")
          : info.fileName();
  try {
    const ImportedConfig c = import_model_path(path.toStdString());
    Scenario s = model_.scenario();
    s.shape = c.shape;
    s.model_name = c.family + " (" + name.toStdString() + ")";
    s.validate();  // throws with the field and its range
    const std::int64_t total = count_params(c.shape).total;
    if (!model_.replace(s, tr("Import %1").arg(name)))
      throw std::invalid_argument("the imported shape was refused by the scenario");
    QString text =
        tr("Imported %1: %2 parameters")
            .arg(name, QString::fromStdString(format_grouped(static_cast<double>(total))));
    if (c.checkpoint) {
      // What the checkpoint's index says against the count (agreement, or the difference and
      // what it is made of).
      const CheckpointCheck& k = *c.checkpoint;
      QStringList notes;
      for (const std::string& n : k.notes) notes << QString::fromStdString(n);
      if (notes.isEmpty() && k.stored_params > 0)
        notes << tr("the checkpoint stores %1 parameters")
                     .arg(QString::fromStdString(
                         format_grouped(static_cast<double>(k.stored_params))));
      if (!notes.isEmpty())
        text += tr("; checkpoint index: %1").arg(notes.join(QStringLiteral("; ")));
    }
    last_import_ = text;
    statusBar()->showMessage(text, 15000);
    return true;
  } catch (const std::exception& e) {
    showError(tr("Could not import the model"),
              tr("%1\n\nImport accepts a Hugging Face config.json, or a checkpoint folder holding "
                 "config.json (and optionally model.safetensors.index.json).")
                  .arg(QString::fromStdString(e.what())));
    return false;
  }
}

bool MainWindow::exportReport(const QString& path) {
  settle();
  ReportOptions options;
  options.page_size = reportPageSize();
  ReportWriter writer(reportInput(), options);
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
  ReportWriter(reportInput(), options).paint(&printer);
}

ReportInput MainWindow::reportInput() const {
  ReportInput in;
  in.scenario = model_.scenario();
  in.file_path = model_.filePath();
  in.unsaved_changes = model_.isModified() && !in.file_path.isEmpty();
  if (in.unsaved_changes) {
    try {
      in.saved = load_scenario_file(in.file_path.toStdString());
    } catch (const std::exception&) {
      in.saved.reset();  // the cover then says only that it differs from the file
    }
  }
  in.panels = panels_;
  if (const Scenario* b = baseline_->baseline()) {
    in.baseline = *b;
    in.baseline_label = baseline_->label();
  }
  return in;
}

// ---- plan A

void MainWindow::pinBaseline() {
  baseline_->pin(model_.scenario());
  statusBar()->showMessage(
      tr("Pinned the current scenario as plan A: changes from now on show against it"), 6000);
}

bool MainWindow::openBaseline(const QString& path) {
  try {
    baseline_->pinFile(path);
    statusBar()->showMessage(tr("Pinned %1 as plan A").arg(path), 6000);
    return true;
  } catch (const std::exception& e) {
    showError(tr("Could not open the baseline"), QString::fromStdString(e.what()));
    return false;
  }
}

void MainWindow::unpinBaseline() {
  baseline_->unpin();
  statusBar()->showMessage(tr("Baseline unpinned"), 4000);
}

void MainWindow::baselineChanged() {
  // Once per pin: each panel computes the baseline's view here, not per change.
  const Scenario* a = baseline_->baseline();
  for (Panel* p : panels_) p->setBaseline(a);
  badge_->setVisible(a != nullptr);
  badge_->setText(a ? tr("Baseline: %1").arg(baseline_->label()) : QString());
  if (unpin_action_) unpin_action_->setEnabled(a != nullptr);
}

void MainWindow::showCompare() {
  const bool was_hidden = compare_->isHidden();
  compare_->show();
  // A third of the window at most, so the panel above stays usable.
  if (was_hidden) resizeDocks({compare_}, {std::max(180, height() / 3)}, Qt::Vertical);
  compare_->raise();
}

bool MainWindow::exportCompareCsv(const QString& path) {
  if (!baseline_->isPinned()) {
    last_error_ = tr("There is no comparison to export: pin a baseline (plan A) first.");
    statusBar()->showMessage(last_error_, 6000);
    return false;
  }
  compare_->settle();
  QString error;
  if (!compare_->exportCsv(path, &error)) {
    showError(tr("Could not export the comparison"), withPreviousFileNote(error));
    return false;
  }
  statusBar()->showMessage(tr("Exported %1").arg(path), 4000);
  return true;
}

void MainWindow::copyCliCommand() {
  const QString path = model_.filePath();
  if (path.isEmpty()) {
    showLongStatus(tr("Nothing copied: the napkin-cli command reads a saved scenario file; save "
                      "the scenario first (Ctrl+S)"),
                   10000);
    return;
  }
  const Panel* panel = currentPanel();
  const QString key = panel ? panel->panelKey() : QString();
  QString command = cliCommandFor(key, QFileInfo(path).absoluteFilePath());
  // Changes since the save that the command takes as flags ride along.
  std::optional<QString> flags;
  if (model_.isModified()) {
    try {
      flags = cliOverridesFor(key, load_scenario_file(path.toStdString()), model_.scenario());
    } catch (const std::exception&) {
      flags.reset();  // the file as saved cannot be read back: say so below
    }
  }
  if (flags && !flags->isEmpty()) command += QLatin1Char(' ') + *flags;
  QGuiApplication::clipboard()->setText(command);
  showLongStatus(!model_.isModified() ? tr("Copied %1").arg(command)
                 : flags
                     ? tr("Copied %1 — the changes since the last save as its flags").arg(command)
                     : tr("Copied %1 — it reads the file as last saved; save (Ctrl+S) to "
                          "include the changes since")
                           .arg(command),
                 10000);
}

}  // namespace napkin
