#include "atomic_writer.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <ctime>

namespace napkin {

namespace {

bool g_unnamed_temporaries = true;

QString reason(int error_number) { return qt_error_string(error_number); }

QByteArray local(const QString& s) { return QFile::encodeName(s); }

// The final target of a dangling symlink chain (the file a write creates).
// Empty with *error_number set when the chain loops or a link is unreadable.
QString follow_dangling(const QString& path, int* error_number) {
  QString current = path;
  for (int depth = 0; depth < 40; ++depth) {
    struct stat st {};
    if (::lstat(local(current).constData(), &st) != 0 || !S_ISLNK(st.st_mode)) return current;
    char buffer[PATH_MAX];
    const ssize_t n = ::readlink(local(current).constData(), buffer, sizeof buffer - 1);
    if (n < 0) {
      *error_number = errno;
      return {};
    }
    const QString link = QFile::decodeName(QByteArray(buffer, static_cast<qsizetype>(n)));
    current = QDir::isAbsolutePath(link)
                  ? link
                  : QFileInfo(current).absolutePath() + QLatin1Char('/') + link;
  }
  *error_number = ELOOP;
  return {};
}

bool process_is_gone(qint64 pid) {
  if (pid <= 0 || pid > INT_MAX) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

// Removes named temporaries of `name` in `dir` left by processes that died
// mid-write (a live writer's temporary is kept).
void remove_stale_temporaries(const QString& dir, const QString& name) {
  const QString prefix = detail::temporary_prefix(name);
  const QString suffix = QLatin1String(detail::kTemporarySuffix);
  const QStringList entries = QDir(dir).entryList({prefix + QLatin1Char('*') + suffix},
                                                  QDir::Files | QDir::Hidden | QDir::System);
  for (const QString& e : entries) {
    const QString middle = e.mid(prefix.size(), e.size() - prefix.size() - suffix.size());
    bool ok = false;
    const qint64 pid = middle.section(QLatin1Char('-'), 0, 0).toLongLong(&ok);
    if (ok && process_is_gone(pid)) ::unlink(local(dir + QLatin1Char('/') + e).constData());
  }
}

// How long a write to a full FIFO waits for its reader to read something.
constexpr int kWriterFifoIdleMs = 10'000;

QString random_part() {
  return QString::number(QRandomGenerator::global()->generate64() & 0xffffffffffULL, 36);
}

// write() with SIGPIPE turned into EPIPE (a FIFO whose reader went away must
// not kill the process before the error can be reported).
ssize_t write_no_sigpipe(int fd, const char* data, std::size_t len) {
  sigset_t pipe_set, old_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  sigset_t pending;
  sigemptyset(&pending);
  sigpending(&pending);
  const bool already_pending = sigismember(&pending, SIGPIPE) == 1;
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
  const ssize_t n = ::write(fd, data, len);
  const int saved = errno;
  if (n < 0 && saved == EPIPE && !already_pending) {
    const timespec zero{0, 0};
    while (sigtimedwait(&pipe_set, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
  errno = saved;
  return n;
}

}  // namespace

namespace detail {

void set_unnamed_temporaries(bool enabled) { g_unnamed_temporaries = enabled; }

QString temporary_prefix(const QString& file_name) {
  // Bounded so that prefix + pid + random + suffix stays under NAME_MAX.
  return QLatin1Char('.') + file_name.left(96) + QStringLiteral(".napkin-");
}

}  // namespace detail

struct AtomicFile::State {
  QString path;
  QString target;
  QString dir;
  QString name;
  int fd = -1;
  bool through = false;  // a device or FIFO, written in place
  bool fifo = false;     // a FIFO (its descriptor is non-blocking)
  bool unnamed = false;  // an O_TMPFILE not yet linked
  QString temp;          // the named temporary, when there is one
  bool existed = false;  // a previous regular file is being replaced
  struct stat old {};    // its mode and owner
  bool failed = false;
  qint64 written = 0;
  qint64 end = 0;  // the largest offset written (the size)
};

AtomicFile::AtomicFile(const QString& path, QObject* parent)
    : QIODevice(parent), d_(std::make_unique<State>()) {
  d_->path = path;
  d_->target = path;
}

AtomicFile::~AtomicFile() { cancel(); }

QString AtomicFile::path() const { return d_->path; }
QString AtomicFile::targetPath() const { return d_->target; }
bool AtomicFile::writesThrough() const { return d_->through; }
bool AtomicFile::hasFailed() const { return d_->failed; }

void AtomicFile::fail(const QString& what, int error_number) {
  d_->failed = true;
  QString context = what;
  if (context.isEmpty())
    context = d_->through   ? QStringLiteral("write failed")
              : d_->existed ? QStringLiteral("not saved (the previous file is untouched)")
                            : QStringLiteral("not saved");
  setErrorString(QStringLiteral("%1: %2: %3").arg(d_->path, context, reason(error_number)));
}

bool AtomicFile::open(OpenMode mode) {
  if (isOpen()) {
    setErrorString(QStringLiteral("%1: already open").arg(d_->path));
    return false;
  }
  if ((mode & ReadOnly) || (mode & Append) || (mode & Text) || !(mode & WriteOnly)) {
    setErrorString(QStringLiteral("%1: an atomic file is opened WriteOnly").arg(d_->path));
    return false;
  }
  State& d = *d_;
  const QString given = d.path;
  d = State{};
  d.path = given;
  d.target = given;
  if (d.path.isEmpty()) {
    setErrorString(QStringLiteral("no file name given"));
    return false;
  }
  const QByteArray p = local(d.path);
  struct stat st {};
  if (::stat(p.constData(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      setErrorString(QStringLiteral("%1: is a folder, not a file").arg(d.path));
      return false;
    }
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
      // Written in place: a device or a pipe is never replaced by a regular file.
      d.fd = ::open(p.constData(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
      if (d.fd < 0) {
        const int e = errno;
        setErrorString(e == ENXIO && S_ISFIFO(st.st_mode)
                           ? QStringLiteral("%1: no program is reading from this FIFO").arg(d.path)
                           : QStringLiteral("%1: cannot write: %2").arg(d.path, reason(e)));
        return false;
      }
      // A FIFO stays non-blocking: a reader that stops reading makes a write
      // wait at most kWriterFifoIdleMs (writeData), not forever.
      d.fifo = S_ISFIFO(st.st_mode);
      if (!d.fifo) ::fcntl(d.fd, F_SETFL, ::fcntl(d.fd, F_GETFL) & ~O_NONBLOCK);
      d.through = true;
      return QIODevice::open(WriteOnly | Unbuffered);
    }
    if (!S_ISREG(st.st_mode)) {
      setErrorString(QStringLiteral("%1: is a %2; refusing to write over it")
                         .arg(d.path, S_ISBLK(st.st_mode)    ? QStringLiteral("block device")
                                      : S_ISSOCK(st.st_mode) ? QStringLiteral("socket")
                                                             : QStringLiteral("special file")));
      return false;
    }
    // A regular file, perhaps through symlinks: replace the file, keep the links.
    char resolved[PATH_MAX];
    if (!::realpath(p.constData(), resolved)) {
      setErrorString(QStringLiteral("%1: cannot resolve: %2").arg(d.path, reason(errno)));
      return false;
    }
    d.target = QFile::decodeName(resolved);
    if (::access(resolved, W_OK) != 0) {
      setErrorString(QStringLiteral("%1: cannot write: %2").arg(d.path, reason(errno)));
      return false;
    }
    d.existed = true;
    d.old = st;
  } else if (errno == ENOENT) {
    int e = 0;
    d.target = follow_dangling(d.path, &e);  // a new file, perhaps at a dangling link's target
    if (d.target.isEmpty()) {
      setErrorString(QStringLiteral("%1: cannot write: %2").arg(d.path, reason(e)));
      return false;
    }
  } else {
    setErrorString(QStringLiteral("%1: cannot write: %2").arg(d.path, reason(errno)));
    return false;
  }

  const QFileInfo info(d.target);
  d.dir = info.absolutePath();
  d.name = info.fileName();
  remove_stale_temporaries(d.dir, d.name);
  const QByteArray dir = local(d.dir);
  if (g_unnamed_temporaries && ::access("/proc/self/fd", X_OK) == 0) {
    d.fd = ::open(dir.constData(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    if (d.fd >= 0) {
      d.unnamed = true;
    } else if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
      setErrorString(
          QStringLiteral("%1: cannot create a file in %2: %3").arg(d.path, d.dir, reason(errno)));
      return false;
    }
  }
  if (d.fd < 0) {
    const QString prefix = d.dir + QLatin1Char('/') + detail::temporary_prefix(d.name) +
                           QString::number(::getpid()) + QLatin1Char('-');
    for (int attempt = 0; attempt < 16 && d.fd < 0; ++attempt) {
      d.temp = prefix + random_part() + QLatin1String(detail::kTemporarySuffix);
      d.fd = ::open(local(d.temp).constData(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
      if (d.fd < 0 && errno != EEXIST) break;
    }
    if (d.fd < 0) {
      const int e = errno;
      d.temp.clear();
      setErrorString(
          QStringLiteral("%1: cannot create a file in %2: %3").arg(d.path, d.dir, reason(e)));
      return false;
    }
  }
  if (d.existed) {
    // The new file keeps the old one's permissions (and owner, where allowed).
    (void)::fchmod(d.fd, d.old.st_mode & 07777);
    if (::geteuid() == 0) (void)::fchown(d.fd, d.old.st_uid, d.old.st_gid);
  }
  return QIODevice::open(WriteOnly | Unbuffered);
}

qint64 AtomicFile::readData(char*, qint64) { return -1; }

qint64 AtomicFile::writeData(const char* data, qint64 len) {
  State& d = *d_;
  if (d.failed || d.fd < 0) return -1;
  qint64 done = 0;
  while (done < len) {
    const auto chunk = static_cast<std::size_t>(std::min<qint64>(len - done, qint64{1} << 30));
    const ssize_t n =
        d.through ? write_no_sigpipe(d.fd, data + done, chunk) : ::write(d.fd, data + done, chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN && d.fifo) {  // the FIFO is full: wait, bounded, for its reader
        pollfd p{d.fd, POLLOUT, 0};
        const int ready = ::poll(&p, 1, kWriterFifoIdleMs);
        if (ready > 0 || (ready < 0 && errno == EINTR)) continue;
        d.failed = true;
        setErrorString(QStringLiteral("%1: write failed: the program reading this FIFO read "
                                      "nothing for %2 s")
                           .arg(d.path)
                           .arg(kWriterFifoIdleMs / 1000));
        return -1;
      }
      fail(QString(), errno);
      return -1;
    }
    if (n == 0) {  // no progress and no error: treat as a full device
      fail(QString(), ENOSPC);
      return -1;
    }
    done += n;
  }
  d.written += done;
  d.end = std::max(d.end, pos() + done);
  return done;
}

bool AtomicFile::isSequential() const { return d_->through; }

bool AtomicFile::seek(qint64 pos) {
  if (d_->through || d_->fd < 0 || pos < 0) return false;
  if (::lseek(d_->fd, static_cast<off_t>(pos), SEEK_SET) < 0) return false;
  return QIODevice::seek(pos);
}

qint64 AtomicFile::size() const { return d_->through ? d_->written : d_->end; }

bool AtomicFile::commit() {
  State& d = *d_;
  if (!isOpen() || d.fd < 0) {
    if (!d.failed) setErrorString(QStringLiteral("%1: not open for writing").arg(d.path));
    return false;
  }
  if (d.failed) {
    const QString error = errorString();
    cancel();
    setErrorString(error);
    return false;
  }
  if (d.through) {
    // fsync is meaningless on a pipe or most devices (EINVAL); other errors count.
    if (::fsync(d.fd) != 0 && errno != EINVAL && errno != EROFS && errno != ENOTSUP)
      fail({}, errno);
    if (::close(d.fd) != 0 && errno != EINTR && !d.failed) fail({}, errno);
    d.fd = -1;
    QIODevice::close();
    return !d.failed;
  }
  // Everything written must be on the disk before the old file is replaced.
  if (::fsync(d.fd) != 0) {
    fail({}, errno);
  } else if (d.unnamed) {
    const QByteArray proc = "/proc/self/fd/" + QByteArray::number(d.fd);
    const QString prefix = d.dir + QLatin1Char('/') + detail::temporary_prefix(d.name) +
                           QString::number(::getpid()) + QLatin1Char('-');
    for (int attempt = 0; attempt < 16; ++attempt) {
      d.temp = prefix + random_part() + QLatin1String(detail::kTemporarySuffix);
      if (::linkat(AT_FDCWD, proc.constData(), AT_FDCWD, local(d.temp).constData(),
                   AT_SYMLINK_FOLLOW) == 0)
        break;
      const int e = errno;
      d.temp.clear();
      if (e != EEXIST) {
        fail({}, e);
        break;
      }
    }
    d.unnamed = false;
  }
  if (::close(d.fd) != 0 && errno != EINTR && !d.failed) fail({}, errno);
  d.fd = -1;
  if (!d.failed && ::rename(local(d.temp).constData(), local(d.target).constData()) != 0)
    fail({}, errno);
  if (d.failed) {
    const QString error = errorString();
    cancel();
    setErrorString(error);
    return false;
  }
  d.temp.clear();
  // Make the rename itself durable; the new file is in place whatever this says.
  const int dir_fd = ::open(local(d.dir).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    (void)::fsync(dir_fd);
    ::close(dir_fd);
  }
  QIODevice::close();
  return true;
}

void AtomicFile::cancel() {
  State& d = *d_;
  if (d.fd >= 0) ::close(d.fd);
  d.fd = -1;
  d.unnamed = false;
  if (!d.temp.isEmpty()) ::unlink(local(d.temp).constData());
  d.temp.clear();
  if (isOpen()) QIODevice::close();
}

void AtomicFile::close() { cancel(); }

bool write_file_atomically(const QString& path, const QByteArray& data, QString* error) {
  AtomicFile f(path);
  bool ok = f.open(QIODevice::WriteOnly);
  if (ok && !data.isEmpty()) ok = f.write(data) == data.size();
  if (ok) ok = f.commit();
  if (!ok && error) *error = f.errorString();
  return ok;
}

}  // namespace napkin
