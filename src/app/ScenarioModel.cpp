#include "ScenarioModel.h"

#include <QUndoCommand>
#include <stdexcept>

namespace napkin {

namespace {

class SetScenarioCommand : public QUndoCommand {
 public:
  SetScenarioCommand(ScenarioModel* model, Scenario before, Scenario after, const QString& text,
                     int field, int gesture)
      : QUndoCommand(text),
        model_(model),
        before_(std::move(before)),
        after_(std::move(after)),
        field_(field),
        gesture_(gesture) {}

  void undo() override { model_->apply(before_); }
  void redo() override { model_->apply(after_); }
  int id() const override { return field_ > 0 && gesture_ > 0 ? field_ : -1; }
  bool mergeWith(const QUndoCommand* other) override {
    const auto* o = static_cast<const SetScenarioCommand*>(other);
    if (o->field_ != field_ || o->gesture_ != gesture_) return false;
    after_ = o->after_;
    return true;
  }

 private:
  ScenarioModel* model_;
  Scenario before_, after_;
  int field_;
  int gesture_;
};

}  // namespace

ScenarioModel::ScenarioModel(QObject* parent) : QObject(parent) {
  connect(&undo_, &QUndoStack::cleanChanged, this, &ScenarioModel::fileStateChanged);
}

ScenarioModel::~ScenarioModel() { undo_.blockSignals(true); }

bool ScenarioModel::edit(const QString& text, int field,
                         const std::function<void(Scenario&)>& change) {
  Scenario next = scenario_;
  try {
    change(next);
    next.validate();
    (void)count_params(next.shape);
  } catch (const std::invalid_argument& e) {
    emit editRejected(QString::fromStdString(e.what()));
    emit changed();  // let the controls snap back to the scenario's values
    return false;
  }
  if (next == scenario_) return true;
  undo_.push(new SetScenarioCommand(this, scenario_, std::move(next), text, field, gesture_));
  return true;
}

bool ScenarioModel::replace(const Scenario& s, const QString& text) {
  try {
    s.validate();
    (void)count_params(s.shape);
  } catch (const std::invalid_argument& e) {
    emit editRejected(QString::fromStdString(e.what()));
    return false;
  }
  if (s == scenario_) return true;
  undo_.push(new SetScenarioCommand(this, scenario_, s, text, 0, 0));
  return true;
}

void ScenarioModel::load(const Scenario& s, const QString& path) {
  undo_.clear();
  forced_modified_ = false;
  path_ = path;
  apply(s);
  undo_.setClean();
  emit fileStateChanged();
}

void ScenarioModel::beginGesture() {
  gesture_ = next_gesture_++;
  emit gestureActive(true);
}

void ScenarioModel::endGesture() {
  gesture_ = 0;
  emit gestureActive(false);
}

void ScenarioModel::setModified() {
  forced_modified_ = true;
  emit fileStateChanged();
}

void ScenarioModel::markSaved(const QString& path) {
  path_ = path;
  forced_modified_ = false;
  undo_.setClean();
  emit fileStateChanged();
}

void ScenarioModel::apply(const Scenario& s) {
  scenario_ = s;
  emit changed();
}

}  // namespace napkin
