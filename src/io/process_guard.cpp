#include "process_guard.h"

#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <csignal>
#include <cstring>

namespace napkin {

void ignore_write_signals() {
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGXFSZ, SIG_IGN);
}

void reserve_standard_descriptors() {
  // Lowest first: open() returns the lowest free descriptor, so each closed
  // one is filled in turn.
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int opened = ::open("/dev/null", O_RDONLY);
    if (opened > fd) {
      ::dup2(opened, fd);
      ::close(opened);
    }
  }
}

bool close_output_stream(std::FILE* stream, std::string* reason) {
  const int before = errno;  // after a failed write, its reason
  const bool earlier = std::ferror(stream) != 0;
  errno = 0;
  const bool flushed = std::fflush(stream) == 0;
  int error = errno;
  errno = 0;
  const bool closed = std::fclose(stream) == 0;
  if (!closed && error == 0) error = errno;
  if (flushed && closed && !earlier) return true;
  if (error == 0) error = before != 0 ? before : EIO;
  if (reason) *reason = std::strerror(error);
  return false;
}

}  // namespace napkin
