#include "shell/BaselineController.h"

#include <QFileInfo>
#include <QLocale>
#include <QSettings>

#include "scenario_json.h"

namespace napkin {

namespace {
const QString kKeyScenario = QStringLiteral("session/baseline");
const QString kKeyLabel = QStringLiteral("session/baselineLabel");
const QString kKeyPath = QStringLiteral("session/baselinePath");
}  // namespace

BaselineController::BaselineController(QObject* parent) : QObject(parent) {}

void BaselineController::pin(const Scenario& s, const QString& label) {
  baseline_ = s;
  label_ = label.isEmpty()
               ? tr("pinned %1")
                     .arg(QLocale::c().toString(QTime::currentTime(), QStringLiteral("HH:mm")))
               : label;
  path_.clear();
  emit changed();
}

void BaselineController::pinFile(const QString& path) {
  const Scenario s = load_scenario_file(path.toStdString());  // throws with the reason
  baseline_ = s;
  label_ = QFileInfo(path).fileName();
  path_ = path;
  emit changed();
}

void BaselineController::restoreAs(const Scenario& s, const QString& label, const QString& path) {
  baseline_ = s;
  label_ = label.isEmpty() ? tr("pinned") : label;
  path_ = path;
  emit changed();
}

void BaselineController::unpin() {
  if (!baseline_) return;
  baseline_.reset();
  label_.clear();
  path_.clear();
  emit changed();
}

void BaselineController::save(QSettings& settings) const {
  if (!baseline_) {
    settings.remove(kKeyScenario);
    settings.remove(kKeyLabel);
    settings.remove(kKeyPath);
    return;
  }
  settings.setValue(kKeyScenario, QString::fromStdString(scenario_to_json(*baseline_)));
  settings.setValue(kKeyLabel, label_);
  settings.setValue(kKeyPath, path_);
}

bool BaselineController::restore(QSettings& settings) {
  const QString json = settings.value(kKeyScenario).toString();
  if (json.isEmpty()) return false;
  try {
    baseline_ = scenario_from_json(json.toStdString(), "the pinned baseline");
  } catch (const std::exception&) {
    return false;
  }
  label_ = settings.value(kKeyLabel).toString();
  if (label_.isEmpty()) label_ = tr("pinned");
  path_ = settings.value(kKeyPath).toString();
  emit changed();
  return true;
}

}  // namespace napkin
