#include "shell/Autosave.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>
#include <stdexcept>

#include "ScenarioModel.h"
#include "atomic_writer.h"
#include "scenario_json.h"
#include "shell/BaselineController.h"

namespace napkin {

namespace {

// The one side file (session_lock.h): the document's path and the baseline.
QByteArray contextJson(const ScenarioModel& model, const BaselineController* baseline) {
  QJsonObject o;
  o[QStringLiteral("version")] = kAutosaveContextVersion;
  o[QStringLiteral("file")] = model.filePath();
  if (baseline && baseline->baseline()) {
    o[QStringLiteral("baseline")] = QString::fromStdString(scenario_to_json(*baseline->baseline()));
    o[QStringLiteral("baseline_label")] = baseline->label();
    o[QStringLiteral("baseline_path")] = baseline->sourcePath();
  }
  return QJsonDocument(o).toJson(QJsonDocument::Compact);
}
}  // namespace

Autosave::Autosave(ScenarioModel* model, BaselineController* baseline, const QString& folder,
                   QObject* parent)
    : QObject(parent), model_(model), baseline_(baseline), lock_(folder) {
  timer_ = new QTimer(this);
  timer_->setSingleShot(true);
  timer_->setInterval(1500);
  connect(timer_, &QTimer::timeout, this, [this] {
    QString error;
    if (!writeNow(&error)) emit failed(error);
  });
}

bool Autosave::start(QString* error) {
  if (!lock_.acquire(error)) return false;
  const auto schedule = [this] {
    if (!timer_->isActive()) timer_->start();
  };
  connect(model_, &ScenarioModel::changed, timer_, schedule);
  connect(model_, &ScenarioModel::fileStateChanged, timer_, schedule);
  if (baseline_) connect(baseline_, &BaselineController::changed, timer_, schedule);
  return true;
}

QString Autosave::path() const { return isActive() ? lock_.autosavePath() : QString(); }

bool Autosave::writeNow(QString* error) {
  if (!isActive()) return true;
  if (!model_->isModified()) {
    lock_.removeAutosave();
    return true;
  }
  try {
    // The context first: a scenario written without it would recover as "Untitled".
    QString why;
    if (!write_file_atomically(SessionLock::contextPathFor(path()), contextJson(*model_, baseline_),
                               &why))
      throw std::runtime_error(why.toStdString());
    save_scenario_file(document_ ? document_() : model_->scenario(), path().toStdString());
    return true;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

void Autosave::remove() {
  timer_->stop();
  lock_.removeAutosave();
}

std::vector<OrphanAutosave> Autosave::claimOrphans() const { return lock_.claimOrphans(); }

AutosaveContext Autosave::readContext(const QString& autosave_path) {
  AutosaveContext out;
  // This release's one side file, or the previous release's two.
  const QJsonObject o = read_autosave_context(autosave_path);
  out.file_path = o.value(QStringLiteral("file")).toString();
  const QString baseline = o.value(QStringLiteral("baseline")).toString();
  if (baseline.isEmpty()) return out;
  try {
    out.baseline = scenario_from_json(baseline.toStdString(), "the autosaved baseline");
    out.baseline_label = o.value(QStringLiteral("baseline_label")).toString();
    out.baseline_path = o.value(QStringLiteral("baseline_path")).toString();
  } catch (const std::exception&) {
    out.baseline.reset();  // the edits still come back
  }
  return out;
}

}  // namespace napkin
