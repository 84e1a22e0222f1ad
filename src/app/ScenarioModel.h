// The shared scenario as the panels see it: one Scenario value, observed
// through changed(), edited only through undoable steps.
#pragma once

#include <QObject>
#include <QString>
#include <QUndoStack>
#include <functional>

#include "scenario.h"

namespace napkin {

class ScenarioModel : public QObject {
  Q_OBJECT
 public:
  explicit ScenarioModel(QObject* parent = nullptr);
  // Says nothing while it is destroyed: the undo stack announces a change of
  // its clean state as it goes, when the path (and the window observing the
  // model) may already be gone.
  ~ScenarioModel() override;

  const Scenario& scenario() const { return scenario_; }
  QUndoStack* undoStack() { return &undo_; }

  // Applies `change` to a copy of the scenario as one undo step named
  // `text`. Consecutive edits of the same `field` inside one gesture (a
  // slider drag) merge into a single step. An edit that leaves the scenario
  // invalid is refused: returns false and emits editRejected(reason).
  bool edit(const QString& text, int field, const std::function<void(Scenario&)>& change);
  // Replaces the whole scenario as one undo step (preset, import, reset).
  bool replace(const Scenario& s, const QString& text);
  // Loads a document: the scenario is replaced, undo history cleared, the
  // document marked unmodified.
  void load(const Scenario& s, const QString& path);

  void beginGesture();
  void endGesture();
  bool inGesture() const { return gesture_ != 0; }

  QString filePath() const { return path_; }
  bool isModified() const { return forced_modified_ || !undo_.isClean(); }
  // Marks the document modified without an undo step (a restored unsaved session).
  void setModified();
  void markSaved(const QString& path);

  // Used by the undo commands.
  void apply(const Scenario& s);

 signals:
  void changed();
  void fileStateChanged();
  void editRejected(const QString& reason);
  // A slider drag started (true) or ended (false): plots may trade polish for speed.
  void gestureActive(bool active);

 private:
  Scenario scenario_;
  QUndoStack undo_;
  QString path_;
  bool forced_modified_ = false;
  int gesture_ = 0;  // id of the gesture in progress, 0 when none
  int next_gesture_ = 1;
};

}  // namespace napkin
