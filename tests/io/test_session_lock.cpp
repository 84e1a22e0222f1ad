// Autosave and recovery with several instances: each has its own autosave and
// lock; recovery offers only the autosaves of instances no longer running.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QSysInfo>
#include <QTemporaryDir>

#include "atomic_writer.h"
#include "session_lock.h"

using namespace napkin;

namespace {

void touch(const QString& path, const char* text) {
  ASSERT_TRUE(write_file_atomically(path, text));
}

// A lock file as QLockFile writes it, owned by a process that has exited.
void write_dead_lock(const QString& lock_path) {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  QLockFile probe(QDir::tempPath() + QStringLiteral("/napkin-probe.lock"));
  ASSERT_TRUE(probe.tryLock(0));
  qint64 pid = 0;
  QString host, app;
  ASSERT_TRUE(probe.getLockInfo(&pid, &host, &app));
  probe.unlock();
  QFile f(lock_path);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(QByteArray::number(static_cast<qint64>(child)) + '\n' + app.toUtf8() + '\n' +
          host.toUtf8() + '\n');
}

}  // namespace

TEST(SessionLock, EachInstanceHasItsOwnAutosaveAndLock) {
  QTemporaryDir tmp;
  SessionLock first(tmp.path()), second(tmp.path());
  ASSERT_TRUE(first.acquire());
  ASSERT_TRUE(second.acquire());
  EXPECT_NE(first.autosavePath(), second.autosavePath());
  EXPECT_TRUE(QFileInfo::exists(SessionLock::lockPathFor(first.autosavePath())));
  EXPECT_TRUE(QFileInfo::exists(SessionLock::lockPathFor(second.autosavePath())));
}

// Issue case 5: a second instance must not offer, or delete, the first one's
// live autosave, however long the first has been running.
TEST(SessionLock, ASecondInstanceDoesNotOfferALiveInstancesAutosave) {
  QTemporaryDir tmp;
  SessionLock first(tmp.path());
  ASSERT_TRUE(first.acquire());
  touch(first.autosavePath(), "first's unsaved work");
  // Make the lock look old: a live lock is never stale by age.
  QFile lock(SessionLock::lockPathFor(first.autosavePath()));
  ASSERT_TRUE(lock.open(QIODevice::ReadWrite));
  ASSERT_TRUE(lock.setFileTime(QDateTime::currentDateTime().addDays(-3),
                               QFileDevice::FileModificationTime));
  lock.close();

  SessionLock second(tmp.path());
  ASSERT_TRUE(second.acquire());
  EXPECT_TRUE(second.claimOrphans().empty());
  EXPECT_TRUE(QFileInfo::exists(first.autosavePath()));
  // Nor does the first see the second's.
  touch(second.autosavePath(), "second's");
  EXPECT_TRUE(first.claimOrphans().empty());
}

TEST(SessionLock, AnAutosaveWithAStaleLockOfADeadProcessIsOfferedOnce) {
  QTemporaryDir tmp;
  const QString dead_autosave = tmp.path() + QStringLiteral("/autosave-1-dead.napkin.json");
  touch(dead_autosave, "crashed instance's work");
  write_dead_lock(SessionLock::lockPathFor(dead_autosave));

  SessionLock me(tmp.path()), other(tmp.path());
  ASSERT_TRUE(me.acquire());
  ASSERT_TRUE(other.acquire());
  std::vector<OrphanAutosave> orphans = me.claimOrphans();
  ASSERT_EQ(orphans.size(), 1u);
  EXPECT_EQ(orphans[0].path(), dead_autosave);
  // While `me` holds it, another starting instance does not offer it too.
  EXPECT_TRUE(other.claimOrphans().empty());
  ASSERT_TRUE(orphans[0].discard());
  EXPECT_FALSE(QFileInfo::exists(dead_autosave));
  EXPECT_FALSE(QFileInfo::exists(SessionLock::lockPathFor(dead_autosave)));
  EXPECT_TRUE(other.claimOrphans().empty());
}

TEST(SessionLock, AnOrphanNotDiscardedIsOfferedAgain) {
  QTemporaryDir tmp;
  const QString orphan = tmp.path() + QStringLiteral("/autosave-2-gone.napkin.json");
  touch(orphan, "work");  // no lock at all: its instance died before locking
  SessionLock me(tmp.path());
  ASSERT_TRUE(me.acquire());
  { EXPECT_EQ(me.claimOrphans().size(), 1u); }
  EXPECT_EQ(me.claimOrphans().size(), 1u);
  EXPECT_TRUE(QFileInfo::exists(orphan));
}

TEST(SessionLock, ACrashedInstanceIsOfferedAndTheLegacyAutosaveToo) {
  QTemporaryDir tmp;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // A real instance that dies without cleaning up.
    SessionLock crashed(tmp.path());
    if (!crashed.acquire()) ::_exit(2);
    if (!write_file_atomically(crashed.autosavePath(), "crashed")) ::_exit(3);
    ::_exit(0);  // no destructors: the lock file stays, its process is gone
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  touch(tmp.path() + QStringLiteral("/") + QLatin1String(SessionLock::kLegacyAutosaveName),
        "legacy");
  SessionLock me(tmp.path());
  ASSERT_TRUE(me.acquire());
  std::vector<OrphanAutosave> orphans = me.claimOrphans();
  ASSERT_EQ(orphans.size(), 2u);
  for (auto& o : orphans) EXPECT_TRUE(o.discard());
  EXPECT_TRUE(me.claimOrphans().empty());
}

TEST(SessionLock, RemovesOnlyItsOwnAutosave) {
  QTemporaryDir tmp;
  SessionLock a(tmp.path()), b(tmp.path());
  ASSERT_TRUE(a.acquire());
  ASSERT_TRUE(b.acquire());
  touch(a.autosavePath(), "a");
  touch(b.autosavePath(), "b");
  a.removeAutosave();
  EXPECT_FALSE(QFileInfo::exists(a.autosavePath()));
  EXPECT_TRUE(QFileInfo::exists(b.autosavePath()));
}

TEST(SessionLock, AnUnwritableFolderIsAnError) {
  SessionLock lock(QStringLiteral("/proc/napkin-cannot-exist"));
  QString error;
  EXPECT_FALSE(lock.acquire(&error));
  EXPECT_FALSE(error.isEmpty());
  EXPECT_FALSE(lock.isAcquired());
}

// Issue 28, item 16: an autosave records its document's path, and an orphan
// can be kept as an ordinary file instead of being deleted. One side file
// holds the record (the context, with a version); the previous release's two
// (a context without a version and "<autosave>.document") are still read.
TEST(SessionLock, AnOrphanKnowsItsDocumentAndCanBeKeptAsAFile) {
  for (const bool legacy : {false, true}) {
    SCOPED_TRACE(legacy ? "the previous release's two side files" : "one side file");
    QTemporaryDir tmp;
    QString autosave;
    {
      SessionLock gone(tmp.path());
      ASSERT_TRUE(gone.acquire());
      autosave = gone.autosavePath();
      touch(autosave, "unsaved work");
      if (legacy) {
        touch(SessionLock::contextPathFor(autosave), R"({"baseline_label":"pinned"})");
        touch(SessionLock::legacyDocumentPathFor(autosave), "/plans/a %1.napkin.json\n");
      } else {
        touch(SessionLock::contextPathFor(autosave),
              R"({"version":2,"file":"/plans/a %1.napkin.json"})");
      }
    }  // the instance is gone: its lock is released, the autosave stays
    SessionLock next(tmp.path());
    ASSERT_TRUE(next.acquire());
    std::vector<OrphanAutosave> orphans = next.claimOrphans();
    ASSERT_EQ(orphans.size(), 1u);
    EXPECT_EQ(orphans[0].documentPath(), QStringLiteral("/plans/a %1.napkin.json"));
    EXPECT_EQ(read_autosave_context(autosave).value(QStringLiteral("file")).toString(),
              QStringLiteral("/plans/a %1.napkin.json"));
    const QString kept = tmp.filePath(QStringLiteral("kept.napkin.json"));
    ASSERT_TRUE(orphans[0].keepAs(kept));
    EXPECT_FALSE(QFileInfo::exists(autosave));
    EXPECT_FALSE(QFileInfo::exists(SessionLock::contextPathFor(autosave)));
    EXPECT_FALSE(QFileInfo::exists(SessionLock::legacyDocumentPathFor(autosave)));
    QFile f(kept);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    EXPECT_EQ(f.readAll(), QByteArray("unsaved work"));
    orphans.clear();
    EXPECT_TRUE(next.claimOrphans().empty());
  }
  // A versioned context's "file" wins over a stray old record; an untitled
  // scenario's context says "" and no old record is looked for.
  QTemporaryDir tmp;
  const QString autosave = tmp.filePath(QStringLiteral("autosave-x.napkin.json"));
  touch(SessionLock::legacyDocumentPathFor(autosave), "/old.napkin.json\n");
  touch(SessionLock::contextPathFor(autosave), R"({"version":2,"file":""})");
  EXPECT_EQ(read_autosave_context(autosave).value(QStringLiteral("file")).toString(), QString());
  // No context at all: the old record alone.
  QFile::remove(SessionLock::contextPathFor(autosave));
  EXPECT_EQ(read_autosave_context(autosave).value(QStringLiteral("file")).toString(),
            QStringLiteral("/old.napkin.json"));
}
