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
#include <QJsonObject>
#include <QLockFile>
#include <QString>
#include <memory>
#include <vector>

namespace napkin {

inline constexpr int kAutosaveContextVersion = 2;
// The context's size limit (a baseline may embed an IsoFLOPs ladder: the
// same bound as a scenario file, twice).
inline constexpr qint64 kMaxAutosaveContextBytes = qint64{64} << 20;

// The context beside `autosave_path` as an object (empty when there is none
// or it does not parse), with "file" taken from the previous release's
// ".document" file when the context has no version or no file.
QJsonObject read_autosave_context(const QString& autosave_path);

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
  // What the scenario file cannot hold, in one side file beside each
  // autosave ("<...>.context.json", a JSON object with "version": 2): the
  // document the work belongs to ("file"; "" when untitled) and the pinned
  // baseline. Written by the app's Autosave before the scenario itself.
  static QString contextPathFor(const QString& autosave_path);
  // The second side file of the previous release ("<autosave>.document", the
  // document's path on one UTF-8 line): read when the context has no
  // version, removed with the autosave. Not written any more.
  static QString legacyDocumentPathFor(const QString& autosave_path);
  static inline const char* const kLegacyAutosaveName = "autosave.napkin.json";

 private:
  QString folder_;
  QString id_;
  std::unique_ptr<QLockFile> lock_;
};

}  // namespace napkin
