// Crash safety for one running instance: the scenario is written (debounced,
// through the atomic writer) to this instance's own autosave file while it
// has unsaved changes, and removed on a clean exit or when the changes are
// discarded. The instance holds a lock beside its file (session_lock.h), so a
// second instance has its own slot and never offers or deletes a live
// instance's work; at start, only autosaves of instances that are gone are
// offered back.
#pragma once

#include <QObject>
#include <QString>
#include <functional>
#include <optional>
#include <vector>

#include "scenario.h"

#include "session_lock.h"

class QTimer;

namespace napkin {

class BaselineController;
class ScenarioModel;

// What an autosave's scenario cannot hold: the file the work belongs to and
// the pinned baseline. Recovery brings both back with the edits.
struct AutosaveContext {
  QString file_path;  // "" for untitled work
  std::optional<Scenario> baseline;
  QString baseline_label;
  QString baseline_path;
};

class Autosave : public QObject {
  Q_OBJECT
 public:
  // `baseline` (may be null) is written beside the scenario.
  Autosave(ScenarioModel* model, BaselineController* baseline, const QString& folder,
           QObject* parent = nullptr);

  // Takes this instance's lock. False with *error (the folder and the
  // reason) when it cannot: autosave is then off for this instance.
  bool start(QString* error);
  // What is written (default: the model's scenario).
  void setDocument(std::function<Scenario()> document) { document_ = std::move(document); }
  bool isActive() const { return lock_.isAcquired(); }
  // This instance's autosave file ("" when autosave is off).
  QString path() const;
  // Writes the scenario now when it has unsaved changes, removes the file
  // when it has none. False with *error (the path and the OS's reason); the
  // previous autosave is then intact.
  bool writeNow(QString* error = nullptr);
  // Removes this instance's autosave (a clean exit, or Discard).
  void remove();
  // Autosaves of instances that are no longer running, newest first (each
  // locked by this instance while the returned objects live).
  std::vector<OrphanAutosave> claimOrphans() const;
  // The context written beside `autosave_path` (at most 64 MiB); empty when
  // there is none or it does not parse (the edits are still recovered).
  static AutosaveContext readContext(const QString& autosave_path);

 signals:
  // An autosave could not be written: the path and the OS's reason.
  void failed(const QString& why);

 private:
  ScenarioModel* model_;
  BaselineController* baseline_;
  std::function<Scenario()> document_;
  SessionLock lock_;
  QTimer* timer_ = nullptr;
};

}  // namespace napkin
