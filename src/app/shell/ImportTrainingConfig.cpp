// File → Import training config…: a Megatron-LM argument list, a torchtitan
// TOML, a NeMo YAML or a DeepSpeed JSON into the scenario (framework_config.h).
// What the file states replaces the scenario's values in one undo step; what
// it does not state is listed in the status bar and kept as it was.
#include <QFileDialog>
#include <QFileInfo>
#include <QStatusBar>
#include <QStringList>

#include "framework_config.h"
#include "shell/MainWindow.h"

namespace napkin {

QString chooseTrainingConfigPath(QWidget* parent) {
  return QFileDialog::getOpenFileName(
      parent, QObject::tr("Import training config"), QString(),
      QObject::tr("Training configs (*.sh *.log *.txt *.toml *.yaml *.yml *.json);;All files (*)"));
}

bool MainWindow::importTrainingConfig(const QString& path) {
  try {
    const TrainingConfig c = import_training_config_file(path.toStdString());
    const Scenario s = apply_to_scenario(c, model_.scenario());
    const QString name = QFileInfo(path).fileName();
    if (!model_.replace(s, tr("Import %1").arg(name)))
      throw std::invalid_argument("the imported settings were refused by the scenario");
    QString text = tr("Imported %1 (%2): %3")
                       .arg(name, QString::fromUtf8(to_string(c.framework).data()),
                            QString::fromStdString(to_string(c.layout)));
    if (!c.missing.empty()) {
      QStringList items;
      for (const std::string& m : c.missing)
        items << QString::fromStdString(m.substr(0, m.find(':')));
      text += tr("; not in the file, kept as before: %1").arg(items.join(QStringLiteral(", ")));
    }
    last_import_ = text;
    statusBar()->showMessage(text, 20000);
    return true;
  } catch (const std::exception& e) {
    showError(tr("Could not import the training config"),
              tr("%1\n\nImport accepts a Megatron-LM launch script or its printed arguments, a "
                 "torchtitan .toml, a NeMo .yaml or a DeepSpeed .json.")
                  .arg(QString::fromStdString(e.what())));
    return false;
  }
}

}  // namespace napkin
