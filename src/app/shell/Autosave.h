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
#include <vector>

#include "session_lock.h"

class QTimer;

namespace napkin {

class ScenarioModel;

class Autosave : public QObject {
  Q_OBJECT
 public:
  Autosave(ScenarioModel* model, const QString& folder, QObject* parent = nullptr);

  // Takes this instance's lock. False with *error (the folder and the
  // reason) when it cannot: autosave is then off for this instance.
  bool start(QString* error);
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

 signals:
  // An autosave could not be written: the path and the OS's reason.
  void failed(const QString& why);

 private:
  ScenarioModel* model_;
  SessionLock lock_;
  QTimer* timer_ = nullptr;
};

}  // namespace napkin
