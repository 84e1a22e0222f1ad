#include "read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>

namespace napkin {

namespace {

std::string too_large(const std::string& name, const std::string& size, std::int64_t max_bytes) {
  return name + ": the file is " + size + " bytes; the limit is " + std::to_string(max_bytes) +
         " bytes";
}

}  // namespace

bool read_fd_capped(int fd, const std::string& name, std::int64_t max_bytes, std::string* out,
                    std::string* error) {
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
  }
}

bool read_file_capped(const std::string& path, std::int64_t max_bytes, std::string* out,
                      std::string* error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  const bool ok = read_fd_capped(fd, path, max_bytes, out, error);
  ::close(fd);
  return ok;
}

}  // namespace napkin
