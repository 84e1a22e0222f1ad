// One way to write a file so that a failure never destroys what was there.
//
// A regular file (or a new one) is written to a temporary file in the same
// folder; every write, the final flush and fsync are checked, and only then is
// the temporary renamed over the target. On any failure (a full disk, a quota,
// a file-size limit, an I/O error, a kill) the previous file stays byte for
// byte as it was and no temporary is left behind that breaks the next write.
//
// A device or a FIFO (/dev/null, /dev/full, a named pipe, /dev/stdout) is
// written through, never renamed over. A symbolic link is followed: its
// target is replaced and the link stays. A folder, a block device or a socket
// is refused. Every error names the path and gives the operating system's
// reason.
#pragma once

#include <QByteArray>
#include <QIODevice>
#include <QString>
#include <memory>

namespace napkin {

// A write-only QIODevice for one target path: open(), write (directly, or
// through QPdfWriter, QImageWriter, QTextStream — flush a stream before
// committing), then commit(). Destroying or close()-ing it without a
// successful commit() discards what was written and leaves the target as it
// was. Writes are unbuffered: a failure is seen at the write that failed.
class AtomicFile : public QIODevice {
 public:
  explicit AtomicFile(const QString& path, QObject* parent = nullptr);
  ~AtomicFile() override;

  // Only QIODevice::WriteOnly (Unbuffered is implied; Text is refused: the
  // bytes are written as given). False with errorString() on failure.
  bool open(OpenMode mode = WriteOnly) override;
  // Makes what was written the file's content. False (and the previous file
  // untouched) when any write, the flush or the rename failed.
  bool commit();
  // Discards what was written; the target stays as it was.
  void cancel();
  // Same as cancel().
  void close() override;

  bool isSequential() const override;
  bool seek(qint64 pos) override;
  qint64 size() const override;

  // The path as given, and the file actually written (a symlink's target).
  QString path() const;
  QString targetPath() const;
  // True when the target is a device or a FIFO, written in place.
  bool writesThrough() const;
  // True once a write has failed (commit() will then fail).
  bool hasFailed() const;

 protected:
  qint64 readData(char* data, qint64 maxlen) override;
  qint64 writeData(const char* data, qint64 len) override;

 private:
  struct State;
  std::unique_ptr<State> d_;
  void fail(const QString& what, int error_number);
};

// Writes `data` to `path` through an AtomicFile. False with `*error` (the path
// and the operating system's reason) on failure; the previous file is then
// untouched.
bool write_file_atomically(const QString& path, const QByteArray& data, QString* error = nullptr);

namespace detail {
// Tests only: when false, the temporary is a named file in the target's folder
// (the fallback used where unnamed temporaries are not supported) instead of
// an unnamed O_TMPFILE.
void set_unnamed_temporaries(bool enabled);
// The prefix and suffix of named temporaries for `file_name` (a temporary is
// prefix + "<pid>-<random>" + suffix); stale ones of dead processes are removed
// by the next write to the same file.
QString temporary_prefix(const QString& file_name);
inline constexpr const char* kTemporarySuffix = ".tmp";
}  // namespace detail

}  // namespace napkin
