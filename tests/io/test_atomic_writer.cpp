// The atomic writer under real failures: a full filesystem (a 100 KB tmpfs,
// when the test may mount one), a file-size limit (any user), /dev/full, a
// FIFO, symlinks, an unwritable folder and a writer killed mid-write. In each
// case the previous file survives byte for byte.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <QDir>
#include <QTemporaryDir>
#include <QTextStream>
#include <csignal>
#include <string>

#include "atomic_writer.h"
#include "scenario_json.h"
#include "write_failure.h"

using namespace napkin;
using napkin::testing::distinctive_bytes;
using napkin::testing::FileSizeLimit;
using napkin::testing::read_all;
using napkin::testing::SmallTmpfs;
using napkin::testing::write_all;

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }
QByteArray qb(const std::string& s) {
  return QByteArray(s.data(), static_cast<qsizetype>(s.size()));
}

// The names in a folder (hidden ones included), sorted.
QStringList entries(const std::string& dir) {
  QStringList e = QDir(qs(dir)).entryList(QDir::AllEntries | QDir::Hidden | QDir::System |
                                          QDir::NoDotAndDotDot);
  e.sort();
  return e;
}

}  // namespace

// Outside the anonymous namespace: TEST_F's classes derive from it (a base of
// internal linkage draws -Wsubobject-linkage in a unity build).
struct AtomicWriterTest : ::testing::Test {
  QTemporaryDir tmp;
  std::string dir() const { return tmp.path().toStdString(); }
  std::string path(const char* name) const { return dir() + "/" + name; }
  void TearDown() override { detail::set_unnamed_temporaries(true); }
};

TEST_F(AtomicWriterTest, WritesANewFileAndReplacesAnOldOne) {
  const std::string p = path("a.txt");
  QString error;
  ASSERT_TRUE(write_file_atomically(qs(p), "first", &error)) << error.toStdString();
  EXPECT_EQ(read_all(p), "first");
  ASSERT_TRUE(write_file_atomically(qs(p), "second, longer", &error)) << error.toStdString();
  EXPECT_EQ(read_all(p), "second, longer");
  ASSERT_TRUE(write_file_atomically(qs(p), QByteArray(), &error));
  EXPECT_EQ(read_all(p), "");
  EXPECT_EQ(entries(dir()), QStringList{QStringLiteral("a.txt")});  // no temporary left
}

TEST_F(AtomicWriterTest, NamedTemporaryFallbackWorksToo) {
  detail::set_unnamed_temporaries(false);
  const std::string p = path("a.txt");
  write_all(p, "old");
  ASSERT_TRUE(write_file_atomically(qs(p), "new"));
  EXPECT_EQ(read_all(p), "new");
  EXPECT_EQ(entries(dir()), QStringList{QStringLiteral("a.txt")});
}

TEST_F(AtomicWriterTest, KeepsThePermissionsOfTheFileItReplaces) {
  const std::string p = path("a.txt");
  write_all(p, "old");
  ASSERT_EQ(::chmod(p.c_str(), 0640), 0);
  ASSERT_TRUE(write_file_atomically(qs(p), "new"));
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
}

TEST_F(AtomicWriterTest, StreamingWithSeeksAndATextStream) {
  const std::string p = path("s.txt");
  AtomicFile f(qs(p));
  ASSERT_TRUE(f.open(QIODevice::WriteOnly)) << f.errorString().toStdString();
  EXPECT_FALSE(f.isSequential());
  {
    QTextStream out(&f);
    out << "hello " << 42 << " world\n";
    out.flush();
  }
  ASSERT_TRUE(f.seek(0));
  ASSERT_EQ(f.write("J"), 1);
  EXPECT_EQ(f.size(), 15);
  ASSERT_TRUE(f.commit()) << f.errorString().toStdString();
  EXPECT_EQ(read_all(p), "Jello 42 world\n");
}

TEST_F(AtomicWriterTest, DestroyingWithoutCommitLeavesTheOldFile) {
  const std::string p = path("a.txt");
  write_all(p, "old");
  {
    AtomicFile f(qs(p));
    ASSERT_TRUE(f.open());
    f.write("half-written");
  }
  EXPECT_EQ(read_all(p), "old");
  EXPECT_EQ(entries(dir()), QStringList{QStringLiteral("a.txt")});
}

// ------------------------------------------------------ a full filesystem

TEST(AtomicWriterFullDisk, SmallTmpfsKeepsTheOldFileByteForByte) {
  SmallTmpfs fs(100);
  if (!fs.ok()) GTEST_SKIP() << "cannot mount a tmpfs here (" << fs.why() << ")";
  const std::string p = fs.path("report.pdf");
  const std::string old = distinctive_bytes(40 * 1024, 7);
  write_all(p, old);
  ASSERT_GT(fs.fill(), 0);
  for (std::size_t size : {std::size_t{10}, std::size_t{5000}, std::size_t{300 * 1024}}) {
    QString error;
    EXPECT_FALSE(write_file_atomically(qs(p), qb(distinctive_bytes(size, 9)), &error)) << size;
    EXPECT_NE(error.indexOf(QLatin1String("No space left on device")), -1) << error.toStdString();
    EXPECT_NE(error.indexOf(QLatin1String("previous file is untouched")), -1);
    EXPECT_EQ(read_all(p), old) << "the old file was damaged writing " << size << " bytes";
  }
  EXPECT_EQ(entries(fs.dir()),
            (QStringList{QStringLiteral(".filler"), QStringLiteral("report.pdf")}));
}

TEST(AtomicWriterFullDisk, NearlyFullTmpfsFailsPartWayAndKeepsTheOldFile) {
  SmallTmpfs fs(100);
  if (!fs.ok()) GTEST_SKIP() << "cannot mount a tmpfs here (" << fs.why() << ")";
  const std::string p = fs.path("report.pdf");
  const std::string old = distinctive_bytes(30 * 1024, 8);
  write_all(p, old);
  ASSERT_GT(fs.fill(48 * 1024), 0);
  AtomicFile f(qs(p));
  ASSERT_TRUE(f.open());
  qint64 written = 0;
  for (int i = 0; i < 100 && !f.hasFailed(); ++i)
    written += std::max<qint64>(0, f.write(QByteArray(4096, 'n')));
  EXPECT_TRUE(f.hasFailed());
  EXPECT_GT(written, 0) << "the first writes should have succeeded";
  EXPECT_FALSE(f.commit());
  EXPECT_TRUE(read_all(p) == old);
}

TEST(AtomicWriterFullDisk, ScenarioSaveOnAFullTmpfsKeepsTheOldScenario) {
  SmallTmpfs fs(100);
  if (!fs.ok()) GTEST_SKIP() << "cannot mount a tmpfs here (" << fs.why() << ")";
  const std::string p = fs.path("plan.napkin.json");
  Scenario s;
  s.n_chips = 4096;
  save_scenario_file(s, p);
  const std::string old = read_all(p);
  ASSERT_GT(fs.fill(), 0);
  s.n_chips = 8192;
  try {
    save_scenario_file(s, p);
    FAIL() << "a save onto a full disk reported success";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_all(p), old);
  EXPECT_EQ(load_scenario_file(p).n_chips, 4096);
}

// The same failure without root: a file-size limit makes write() fail with
// EFBIG, at the first write for large data and at the final flush for small.
TEST_F(AtomicWriterTest, InjectedWriteFailureKeepsTheOldFileByteForByte) {
  const std::string p = path("a.bin");
  const std::string old = distinctive_bytes(2000, 3);
  write_all(p, old);
  for (std::size_t size : {std::size_t{1500}, std::size_t{64 * 1024}}) {
    QString error;
    {
      FileSizeLimit limit(1000);
      ASSERT_TRUE(limit.ok());
      EXPECT_FALSE(write_file_atomically(qs(p), qb(distinctive_bytes(size, 5)), &error));
    }
    EXPECT_NE(error.indexOf(QLatin1String("File too large")), -1) << error.toStdString();
    EXPECT_EQ(read_all(p), old);
  }
  EXPECT_EQ(entries(dir()), QStringList{QStringLiteral("a.bin")});
}

TEST_F(AtomicWriterTest, InjectedFailureOnStreamedWritesFailsTheCommit) {
  const std::string p = path("a.bin");
  write_all(p, "old");
  FileSizeLimit limit(4096);
  AtomicFile f(qs(p));
  ASSERT_TRUE(f.open());
  for (int i = 0; i < 10; ++i) f.write(QByteArray(1000, 'x'));  // the 5th write fails
  EXPECT_TRUE(f.hasFailed());
  EXPECT_FALSE(f.commit());
  EXPECT_NE(f.errorString().indexOf(QLatin1String("File too large")), -1);
  EXPECT_EQ(read_all(p), "old");
}

TEST_F(AtomicWriterTest, ScenarioSaveUnderAnInjectedFailureKeepsTheOldScenario) {
  const std::string p = path("plan.napkin.json");
  Scenario s;
  s.n_chips = 4096;
  save_scenario_file(s, p);
  const std::string old = read_all(p);
  s.n_chips = 8192;
  {
    FileSizeLimit limit(100);  // a scenario is ~2 KB: the flush fails
    EXPECT_THROW(save_scenario_file(s, p), std::runtime_error);
  }
  EXPECT_EQ(read_all(p), old);
}

// ------------------------------------------------------------ special files

TEST_F(AtomicWriterTest, DevFullIsWrittenThroughAndReportsNoSpace) {
  struct stat before {};
  ASSERT_EQ(::stat("/dev/full", &before), 0);
  QString error;
  EXPECT_FALSE(write_file_atomically(QStringLiteral("/dev/full"), "data", &error));
  EXPECT_EQ(error, QStringLiteral("/dev/full: write failed: No space left on device"));
  struct stat after {};
  ASSERT_EQ(::lstat("/dev/full", &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode)) << "/dev/full was replaced";
  EXPECT_EQ(after.st_rdev, before.st_rdev);
}

TEST_F(AtomicWriterTest, DevNullIsWrittenThrough) {
  AtomicFile f(QStringLiteral("/dev/null"));
  ASSERT_TRUE(f.open());
  EXPECT_TRUE(f.writesThrough());
  EXPECT_TRUE(f.isSequential());
  EXPECT_EQ(f.write(QByteArray(100000, 'x')), 100000);
  EXPECT_TRUE(f.commit());
  struct stat st {};
  ASSERT_EQ(::lstat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST_F(AtomicWriterTest, AFifoIsWrittenThroughNotReplaced) {
  const std::string p = path("pipe");
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
  QString error;
  // No reader: a clear refusal, not a hang and not a regular file.
  EXPECT_FALSE(write_file_atomically(qs(p), "x", &error));
  EXPECT_NE(error.indexOf(QLatin1String("no program is reading")), -1) << error.toStdString();
  const int reader = ::open(p.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  const std::string data = distinctive_bytes(10000, 4);
  ASSERT_TRUE(write_file_atomically(qs(p), qb(data), &error)) << error.toStdString();
  std::string got(20000, '\0');
  const ssize_t n = ::read(reader, got.data(), got.size());
  ::close(reader);
  ASSERT_EQ(n, static_cast<ssize_t>(data.size()));
  got.resize(static_cast<std::size_t>(n));
  EXPECT_EQ(got, data);
  struct stat st {};
  ASSERT_EQ(::lstat(p.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
}

// Issue 28, item 11: a reader that opened the FIFO and never reads fills its
// buffer; the write waits for it, bounded, and then fails with the reason.
TEST_F(AtomicWriterTest, AFifoWhoseReaderNeverReadsIsAnErrorNotAHang) {
  const std::string p = path("stuck-pipe");
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
  const int reader = ::open(p.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  QString error;
  // Far more than a pipe's buffer (64 KiB by default, at most 1 MiB unprivileged).
  EXPECT_FALSE(write_file_atomically(qs(p), qb(distinctive_bytes(4 << 20, 5)), &error));
  ::close(reader);
  EXPECT_NE(error.indexOf(QLatin1String("read nothing for 10 s")), -1) << error.toStdString();
  struct stat st {};
  ASSERT_EQ(::lstat(p.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
}

TEST_F(AtomicWriterTest, AFifoWhoseReaderLeftReportsABrokenPipe) {
  const std::string p = path("pipe");
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
  const int reader = ::open(p.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  AtomicFile f(qs(p));
  ASSERT_TRUE(f.open());
  ::close(reader);
  EXPECT_EQ(f.write("x"), -1);  // EPIPE, not a SIGPIPE that kills the test
  EXPECT_FALSE(f.commit());
  EXPECT_NE(f.errorString().indexOf(QLatin1String("Broken pipe")), -1);
}

TEST_F(AtomicWriterTest, ASymlinkIsFollowedAndKept) {
  const std::string target = path("real.json"), link = path("link.json");
  write_all(target, "old");
  ASSERT_EQ(::symlink("real.json", link.c_str()), 0);
  AtomicFile f(qs(link));
  ASSERT_TRUE(f.open());
  EXPECT_EQ(f.targetPath(), QFileInfo(qs(target)).canonicalFilePath());
  f.write("new");
  ASSERT_TRUE(f.commit());
  struct stat st {};
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the symlink was replaced by a file";
  EXPECT_EQ(read_all(target), "new");
}

TEST_F(AtomicWriterTest, ADanglingSymlinkCreatesItsTarget) {
  const std::string link = path("link.json");
  ASSERT_EQ(::symlink("sub/../made.json", link.c_str()), 0);
  ASSERT_TRUE(QDir(tmp.path()).mkdir(QStringLiteral("sub")));
  ASSERT_TRUE(write_file_atomically(qs(link), "made"));
  EXPECT_EQ(read_all(path("made.json")), "made");
  struct stat st {};
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

TEST_F(AtomicWriterTest, ASymlinkToADeviceWritesThroughAndKeepsBoth) {
  const std::string link = path("full");
  ASSERT_EQ(::symlink("/dev/full", link.c_str()), 0);
  QString error;
  EXPECT_FALSE(write_file_atomically(qs(link), "x", &error));
  EXPECT_NE(error.indexOf(QLatin1String("No space left on device")), -1);
  struct stat st {};
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  ASSERT_EQ(::lstat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST_F(AtomicWriterTest, ASymlinkLoopIsAnError) {
  const std::string a = path("a"), b = path("b");
  ASSERT_EQ(::symlink("b", a.c_str()), 0);
  ASSERT_EQ(::symlink("a", b.c_str()), 0);
  QString error;
  EXPECT_FALSE(write_file_atomically(qs(a), "x", &error));
  EXPECT_NE(error.indexOf(QLatin1String("Too many levels of symbolic links")), -1)
      << error.toStdString();
}

TEST_F(AtomicWriterTest, FoldersBlockDevicesAndMissingFoldersAreRefusedWithTheReason) {
  QString error;
  EXPECT_FALSE(write_file_atomically(tmp.path(), "x", &error));
  EXPECT_NE(error.indexOf(QLatin1String("is a folder")), -1);
  EXPECT_FALSE(write_file_atomically(qs(path("no/such/folder.txt")), "x", &error));
  EXPECT_NE(error.indexOf(QLatin1String("No such file or directory")), -1) << error.toStdString();
  struct stat st {};
  if (::stat("/dev/loop0", &st) == 0 && S_ISBLK(st.st_mode)) {
    EXPECT_FALSE(write_file_atomically(QStringLiteral("/dev/loop0"), "x", &error));
    EXPECT_NE(error.indexOf(QLatin1String("block device")), -1);
  }
}

// As root a folder's permission bits do not stop a write, so the writer runs
// in a child that has dropped to an unprivileged user.
TEST_F(AtomicWriterTest, AnUnwritableFolderGivesTheReason) {
  ASSERT_EQ(::chmod(dir().c_str(), 0755), 0);  // the unprivileged child may enter
  const std::string locked = path("locked");
  ASSERT_EQ(::mkdir(locked.c_str(), 0555), 0);
  const std::string p = locked + "/a.txt";
  const std::string old_path = locked + "/old.txt";
  ::chmod(locked.c_str(), 0755);
  write_all(old_path, "old");
  ::chmod(locked.c_str(), 0555);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(fds[0]);
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(3);
    QString e1, e2;
    const bool w1 = write_file_atomically(qs(p), "x", &e1);
    const bool w2 = write_file_atomically(qs(old_path), "new", &e2);
    const QByteArray msg = (e1 + QLatin1Char('\n') + e2).toUtf8();
    (void)!::write(fds[1], msg.constData(), static_cast<std::size_t>(msg.size()));
    ::_exit(w1 || w2 ? 1 : 0);
  }
  ::close(fds[1]);
  std::string msg;
  char buf[512];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) msg.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::chmod(locked.c_str(), 0755);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_NE(WEXITSTATUS(status), 3) << "could not drop privileges";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "a write into an unwritable folder succeeded";
  EXPECT_NE(msg.find(p + ": cannot create a file in " + locked + ": Permission denied"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("Permission denied", msg.find('\n')), std::string::npos) << msg;
  EXPECT_EQ(read_all(old_path), "old");
}

// ------------------------------------------------------ killed mid-write

namespace {

// Forks a writer that streams a large file into `p` and SIGKILLs it once
// 4 MB are written.
void kill_a_writer_mid_write(const std::string& p) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(fds[0]);
    AtomicFile f(qs(p));
    if (!f.open()) ::_exit(2);
    const QByteArray chunk(1 << 20, 'k');
    for (int i = 0;; ++i) {
      if (f.write(chunk) != chunk.size()) ::_exit(3);
      if (i == 3) (void)!::write(fds[1], "w", 1);
      if (i > 3) ::usleep(1000);
    }
  }
  ::close(fds[1]);
  char c = 0;
  ASSERT_EQ(::read(fds[0], &c, 1), 1) << "the writer did not start";
  ::close(fds[0]);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
}

}  // namespace

TEST_F(AtomicWriterTest, KilledMidWriteLeavesTheOldFileAndNoTemporary) {
  const std::string p = path("big.bin");
  const std::string old = distinctive_bytes(100000, 11);
  write_all(p, old);
  kill_a_writer_mid_write(p);
  EXPECT_EQ(read_all(p), old);
  EXPECT_EQ(entries(dir()), QStringList{QStringLiteral("big.bin")});
  ASSERT_TRUE(write_file_atomically(qs(p), "next"));
  EXPECT_EQ(read_all(p), "next");
}

TEST_F(AtomicWriterTest, KilledMidWriteWithNamedTemporariesTheNextWriteCleansUp) {
  detail::set_unnamed_temporaries(false);
  const std::string p = path("big.bin");
  const std::string old = distinctive_bytes(100000, 12);
  write_all(p, old);
  kill_a_writer_mid_write(p);
  EXPECT_EQ(read_all(p), old);
  EXPECT_EQ(entries(dir()).size(), 2);  // the old file and the dead writer's temporary
  // A live writer's temporary (this process's) must survive the clean-up.
  const std::string live = dir() + "/" +
                           detail::temporary_prefix(QStringLiteral("big.bin")).toStdString() +
                           std::to_string(::getpid()) + "-live.tmp";
  write_all(live, "in progress");
  ASSERT_TRUE(write_file_atomically(qs(p), "next"));
  EXPECT_EQ(read_all(p), "next");
  EXPECT_EQ(entries(dir()), (QStringList{QString::fromStdString(live).section(QLatin1Char('/'), -1),
                                         QStringLiteral("big.bin")}));
}
