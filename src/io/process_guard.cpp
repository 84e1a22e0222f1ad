#include "process_guard.h"

#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>

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

namespace {

// The offset of the first byte of `s` that is not part of valid UTF-8
// (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF), or npos.
std::size_t first_invalid_utf8(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = 0;
    unsigned lo = 0x80, hi = 0xBF;  // the second byte's range
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return i;
    }
    if (i + n >= s.size()) return i;  // cut short
    for (std::size_t k = 1; k <= n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) return i;
    }
    i += n + 1;
  }
  return std::string::npos;
}

}  // namespace

std::string non_utf8_argument(int argc, char** argv) {
  for (int a = 1; a < argc; ++a) {
    const std::string arg(argv[a]);
    const std::size_t at = first_invalid_utf8(arg);
    if (at == std::string::npos) continue;
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(arg[at]));
    std::string shown;
    for (unsigned char c : arg.substr(0, 60))
      shown += c >= 0x20 && c < 0x80 ? static_cast<char>(c) : '?';
    return "argument " + std::to_string(a) + " (\"" + shown + "\") is not UTF-8 (byte " + byte +
           " at offset " + std::to_string(at) +
           "); file names are read as UTF-8 and this one would change: rename the file";
  }
  return {};
}

}  // namespace napkin
