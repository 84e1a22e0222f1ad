#include "shell/Autosave.h"

#include <QFile>
#include <QTimer>

#include "ScenarioModel.h"
#include "scenario_json.h"

namespace napkin {

Autosave::Autosave(ScenarioModel* model, const QString& folder, QObject* parent)
    : QObject(parent), model_(model), lock_(folder) {
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
  connect(model_, &ScenarioModel::changed, timer_, [this] {
    if (!timer_->isActive()) timer_->start();
  });
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
    save_scenario_file(model_->scenario(), path().toStdString());
    // The document's name goes with it: a recovered scenario keeps it.
    return lock_.recordDocumentPath(model_->filePath(), error);
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

}  // namespace napkin
