// Autosave and crash recovery for several instances of the app at once.
//
// Each running instance has its own autosave file and holds a lock file
// (QLockFile) beside it for as long as it runs. At start, an instance offers
// to recover only the autosaves whose lock no live process holds (their
// instance crashed or was killed); it takes each such lock before offering, so
// two instances starting together never offer the same file, and it removes
// only its own autosave on a clean exit. A lock is stale only when its
// process is gone: a live instance keeps its autosave however long it runs.
#pragma once

#include <QDateTime>
#include <QLockFile>
#include <QString>
#include <memory>
#include <vector>

namespace napkin {

// An autosave left by an instance that is no longer running. While the
// object lives, this instance holds its lock: no other instance offers it.
class OrphanAutosave {
 public:
  OrphanAutosave(QString path, std::unique_ptr<QLockFile> lock);
  OrphanAutosave(OrphanAutosave&&) noexcept;
  OrphanAutosave& operator=(OrphanAutosave&&) noexcept;
  ~OrphanAutosave();  // releases the lock, keeps the file (offered again next time)

  const QString& path() const { return path_; }
  QDateTime lastModified() const;
  // The path of the document the autosaved scenario was opened from or last
  // saved to ("" for an untitled one, or an autosave written without it).
  QString documentPath() const;
  // Moves the autosave (and what it records) to `target`, a free path, then
  // releases its lock: it is then an ordinary scenario file. False with
  // *error when the move fails; the autosave then stays where it was.
  bool keepAs(const QString& target, QString* error = nullptr);
  // Deletes the autosave, what it records and its lock (after it was
  // recovered or declined).
  bool discard();

 private:
  QString path_;
  std::unique_ptr<QLockFile> lock_;  // null for a legacy autosave (no lock)
};

class SessionLock {
 public:
  // `folder`: where autosaves live (created if missing), e.g. the app's
  // QStandardPaths::AppDataLocation.
  explicit SessionLock(QString folder);
  ~SessionLock();  // releases the lock; the autosave stays unless removeAutosave() ran
  SessionLock(const SessionLock&) = delete;
  SessionLock& operator=(const SessionLock&) = delete;

  // Takes a new instance id and its lock. False with *error (the folder and
  // the reason) when the folder cannot be written.
  bool acquire(QString* error = nullptr);
  bool isAcquired() const;

  // This instance's autosave file: "<folder>/autosave-<id>.napkin.json".
  QString autosavePath() const;
  // Removes this instance's autosave (a clean exit, or nothing unsaved).
  void removeAutosave() const;

  // Autosaves of instances that are no longer running, newest first, each
  // locked by this instance until the returned object is destroyed. Includes
  // the single "autosave.napkin.json" written by versions without locking.
  std::vector<OrphanAutosave> claimOrphans() const;

  const QString& folder() const { return folder_; }

  static QString lockPathFor(const QString& autosave_path);
  // What the scenario file cannot hold, beside each autosave: the file the
  // work belongs to and the pinned baseline ("<...>.context.json").
  static QString contextPathFor(const QString& autosave_path);
  // Beside an autosave: the path of the document it belongs to, one UTF-8
  // line (absent for an untitled scenario).
  static QString documentPathFor(const QString& autosave_path);
  // Writes (or, for "", removes) this instance's record of its document path.
  bool recordDocumentPath(const QString& document_path, QString* error = nullptr) const;
  static inline const char* const kLegacyAutosaveName = "autosave.napkin.json";

 private:
  QString folder_;
  QString id_;
  std::unique_ptr<QLockFile> lock_;
};

}  // namespace napkin
