#include "session_lock.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <algorithm>
#include <string>

#include "read_file.h"

namespace napkin {

namespace {

const QString kPrefix = QStringLiteral("autosave-");
const QString kSuffix = QStringLiteral(".napkin.json");

std::unique_ptr<QLockFile> make_lock(const QString& path) {
  auto lock = std::make_unique<QLockFile>(path);
  // Stale only when the owning process is gone, never by age: an instance may
  // run for weeks.
  lock->setStaleLockTime(0);
  return lock;
}

}  // namespace

OrphanAutosave::OrphanAutosave(QString path, std::unique_ptr<QLockFile> lock)
    : path_(std::move(path)), lock_(std::move(lock)) {}
OrphanAutosave::OrphanAutosave(OrphanAutosave&&) noexcept = default;
OrphanAutosave& OrphanAutosave::operator=(OrphanAutosave&&) noexcept = default;
OrphanAutosave::~OrphanAutosave() = default;

QDateTime OrphanAutosave::lastModified() const { return QFileInfo(path_).lastModified(); }

QJsonObject read_autosave_context(const QString& autosave_path) {
  std::string text, error;
  QJsonObject o;
  if (read_file_capped(SessionLock::contextPathFor(autosave_path).toStdString(),
                       kMaxAutosaveContextBytes, &text, &error))
    o = QJsonDocument::fromJson(QByteArray::fromStdString(text)).object();
  const QString file = QStringLiteral("file");
  if (o.contains(QStringLiteral("version")) && o.contains(file)) return o;
  // The previous release: the document's path in a second side file.
  if (read_file_capped(SessionLock::legacyDocumentPathFor(autosave_path).toStdString(), 64 * 1024,
                       &text, &error)) {
    const QString path =
        QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())).trimmed();
    if (!path.isEmpty()) o.insert(file, path);
  }
  return o;
}

QString OrphanAutosave::documentPath() const {
  return read_autosave_context(path_).value(QStringLiteral("file")).toString();
}

bool OrphanAutosave::keepAs(const QString& target, QString* error) {
  if (QFileInfo::exists(target) || !QFile::rename(path_, target)) {
    if (error) *error = QStringLiteral("%1: cannot move the autosave there").arg(target);
    return false;
  }
  QFile::remove(SessionLock::legacyDocumentPathFor(path_));
  QFile::remove(SessionLock::contextPathFor(path_));
  if (lock_) lock_->unlock();
  lock_.reset();
  return true;
}

bool OrphanAutosave::discard() {
  QFile::remove(SessionLock::legacyDocumentPathFor(path_));
  const bool removed = QFile::remove(path_) || !QFileInfo::exists(path_);
  QFile::remove(SessionLock::contextPathFor(path_));
  if (lock_) lock_->unlock();  // removes the lock file
  lock_.reset();
  return removed;
}

SessionLock::SessionLock(QString folder) : folder_(std::move(folder)) {}

SessionLock::~SessionLock() = default;

bool SessionLock::acquire(QString* error) {
  if (lock_ && lock_->isLocked()) return true;
  if (!QDir().mkpath(folder_)) {
    if (error) *error = QStringLiteral("%1: cannot create the folder").arg(folder_);
    return false;
  }
  for (int attempt = 0; attempt < 8; ++attempt) {
    id_ = QString::number(QCoreApplication::applicationPid()) + QLatin1Char('-') +
          QString::number(QRandomGenerator::global()->generate() & 0xffffffu, 36);
    auto lock = make_lock(lockPathFor(autosavePath()));
    if (lock->tryLock(0)) {
      lock_ = std::move(lock);
      return true;
    }
    if (lock->error() == QLockFile::PermissionError) {
      if (error) *error = QStringLiteral("%1: cannot write a lock file there").arg(folder_);
      id_.clear();
      return false;
    }
  }
  if (error) *error = QStringLiteral("%1: could not take an instance lock").arg(folder_);
  id_.clear();
  return false;
}

bool SessionLock::isAcquired() const { return lock_ && lock_->isLocked(); }

QString SessionLock::autosavePath() const {
  return folder_ + QLatin1Char('/') + kPrefix + id_ + kSuffix;
}

void SessionLock::removeAutosave() const {
  if (id_.isEmpty()) return;
  QFile::remove(autosavePath());
  QFile::remove(contextPathFor(autosavePath()));
  QFile::remove(legacyDocumentPathFor(autosavePath()));
}

QString SessionLock::legacyDocumentPathFor(const QString& autosave_path) {
  return autosave_path + QStringLiteral(".document");
}

QString SessionLock::lockPathFor(const QString& autosave_path) {
  QString base = autosave_path;
  if (base.endsWith(kSuffix)) base.chop(kSuffix.size());
  return base + QStringLiteral(".lock");
}

QString SessionLock::contextPathFor(const QString& autosave_path) {
  QString base = autosave_path;
  if (base.endsWith(kSuffix)) base.chop(kSuffix.size());
  return base + QStringLiteral(".context.json");
}

std::vector<OrphanAutosave> SessionLock::claimOrphans() const {
  std::vector<OrphanAutosave> out;
  const QDir dir(folder_);
  const QString own = isAcquired() ? QFileInfo(autosavePath()).fileName() : QString();
  for (const QString& name :
       dir.entryList({kPrefix + QLatin1Char('*') + kSuffix}, QDir::Files | QDir::Hidden)) {
    if (name == own) continue;
    const QString path = dir.filePath(name);
    auto lock = make_lock(lockPathFor(path));
    // Succeeds when no lock exists or its process is gone (QLockFile removes a
    // stale lock of a dead process); fails while the instance runs.
    if (!lock->tryLock(0)) continue;
    out.emplace_back(path, std::move(lock));
  }
  // Versions before per-instance autosaves wrote one unlocked file.
  const QString legacy = dir.filePath(QLatin1String(kLegacyAutosaveName));
  if (QFileInfo::exists(legacy)) {
    auto lock = make_lock(legacy + QStringLiteral(".lock"));
    if (lock->tryLock(0)) out.emplace_back(legacy, std::move(lock));
  }
  std::sort(out.begin(), out.end(), [](const OrphanAutosave& a, const OrphanAutosave& b) {
    return a.lastModified() > b.lastModified();
  });
  return out;
}

}  // namespace napkin
