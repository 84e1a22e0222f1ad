#include "read_file.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstring>

namespace napkin {

namespace {

// A named pipe is opened without blocking; a read then waits at most this
// long for a writer or for more data, so a FIFO nobody writes is an error,
// not a hang (a writer that keeps writing is read to the end however long).
constexpr int kReaderFifoIdleMs = 5000;

std::string too_large(const std::string& name, const std::string& size, std::int64_t max_bytes) {
  return name + ": the file is " + size + " bytes; the limit is " + std::to_string(max_bytes) +
         " bytes";
}

}  // namespace

bool read_fd_capped(int fd, const std::string& name, std::int64_t max_bytes, std::string* out,
                    std::string* error, const ReadProgress& progress) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    *error = name + ": cannot read: " + std::strerror(errno);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    *error = name + ": is a folder, not a file";
    return false;
  }
  if (S_ISREG(st.st_mode) && st.st_size > max_bytes) {
    *error = too_large(name, std::to_string(st.st_size), max_bytes);
    return false;
  }
  out->clear();
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EAGAIN) {  // a FIFO opened without blocking: wait for its writer
      pollfd p{fd, POLLIN, 0};
      const int ready = ::poll(&p, 1, kReaderFifoIdleMs);
      if (ready == 0) {
        *error = name + ": a named pipe that nothing wrote to for " +
                 std::to_string(kReaderFifoIdleMs / 1000) + " s (no writer?)";
        out->clear();
        return false;
      }
      continue;
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      *error = name + ": cannot read: " + std::strerror(errno);
      return false;
    }
    if (n == 0) return true;
    if (static_cast<std::int64_t>(out->size()) + n > max_bytes) {
      *error = too_large(name, "more than " + std::to_string(max_bytes), max_bytes);
      out->clear();
      return false;
    }
    out->append(buffer, static_cast<std::size_t>(n));
    const auto done = static_cast<std::int64_t>(out->size());
    if (progress &&
        !progress(done, S_ISREG(st.st_mode) ? std::max<std::int64_t>(done, st.st_size) : 0)) {
      *error = name + ": stopped after " + std::to_string(done) + " bytes";
      out->clear();
      return false;
    }
  }
}

bool read_file_capped(const std::string& path, std::int64_t max_bytes, std::string* out,
                      std::string* error, const ReadProgress& progress) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) {
    // Before any writer has connected, a non-blocking read says end of file:
    // wait (bounded) until one connects and writes or leaves.
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, kReaderFifoIdleMs) == 0) {
      ::close(fd);
      *error = path + ": a named pipe that nothing wrote to for " +
               std::to_string(kReaderFifoIdleMs / 1000) + " s (no writer?)";
      return false;
    }
  } else {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // files and devices block as usual
  }
  const bool ok = read_fd_capped(fd, path, max_bytes, out, error, progress);
  ::close(fd);
  return ok;
}

}  // namespace napkin
