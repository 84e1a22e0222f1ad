// Real write failures for tests: a small, full tmpfs (when the test may mount
// one: root with CAP_SYS_ADMIN, as in CI) and a file-size limit
// (RLIMIT_FSIZE), which any user can set and which makes write() fail with
// EFBIG exactly as a full disk fails with ENOSPC.
#pragma once

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace napkin::testing {

// A tmpfs of `kilobytes` mounted on a fresh folder under /tmp; unmounted and
// removed on destruction. ok() is false (with why()) where mounting is not
// permitted: the caller skips.
class SmallTmpfs {
 public:
  explicit SmallTmpfs(int kilobytes = 100) {
    char tmpl[] = "/tmp/napkin-tmpfs-XXXXXX";
    if (!::mkdtemp(tmpl)) {
      why_ = std::string("mkdtemp: ") + std::strerror(errno);
      return;
    }
    dir_ = tmpl;
    const std::string options = "size=" + std::to_string(kilobytes) + "k,mode=0777";
    if (::mount("tmpfs", dir_.c_str(), "tmpfs", 0, options.c_str()) != 0) {
      why_ = std::string("mount tmpfs: ") + std::strerror(errno);
      ::rmdir(dir_.c_str());
      dir_.clear();
      return;
    }
    mounted_ = true;
  }
  ~SmallTmpfs() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
    if (!dir_.empty()) ::rmdir(dir_.c_str());
  }
  SmallTmpfs(const SmallTmpfs&) = delete;
  SmallTmpfs& operator=(const SmallTmpfs&) = delete;

  bool ok() const { return mounted_; }
  const std::string& why() const { return why_; }
  const std::string& dir() const { return dir_; }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  // Fills every free block with a filler file, then gives back `leave_bytes`:
  // a write fails with ENOSPC at once (0) or part-way through (> 0, as a
  // nearly full disk fails). Returns the filler's size in bytes.
  long fill(long leave_bytes = 0) const {
    const std::string filler = path(".filler");
    const int fd = ::open(filler.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) return -1;
    char block[4096];
    std::memset(block, 'F', sizeof block);
    long total = 0;
    for (std::size_t chunk : {sizeof block, std::size_t{512}, std::size_t{1}}) {
      for (;;) {
        const ssize_t n = ::write(fd, block, chunk);
        if (n <= 0) break;
        total += n;
      }
    }
    if (leave_bytes > 0 && ::ftruncate(fd, total > leave_bytes ? total - leave_bytes : 0) != 0)
      total = -1;
    ::close(fd);
    return total;
  }

 private:
  std::string dir_;
  std::string why_;
  bool mounted_ = false;
};

// While it lives, this process cannot grow any file past `bytes`: a write
// beyond fails with EFBIG (SIGXFSZ is ignored). Children inherit both.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(long bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = static_cast<rlim_t>(bytes);
    ok_ = ::setrlimit(RLIMIT_FSIZE, &limit) == 0;
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, old_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;
  bool ok() const { return ok_; }

  // For a child process (QProcess::setChildProcessModifier): the same limit.
  static void apply_in_child(long bytes) {
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit{};
    ::getrlimit(RLIMIT_FSIZE, &limit);
    limit.rlim_cur = static_cast<rlim_t>(bytes);
    ::setrlimit(RLIMIT_FSIZE, &limit);
  }

 private:
  rlimit saved_{};
  void (*old_handler_)(int) = SIG_DFL;
  bool ok_ = false;
};

inline std::string read_all(const std::string& path) {
  std::string out;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return "<missing>";
  char buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  return out;
}

inline void write_all(const std::string& path, const std::string& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
}

// Bytes that are easy to tell apart from any rewrite.
inline std::string distinctive_bytes(std::size_t n, unsigned seed = 1) {
  std::string s(n, '\0');
  unsigned x = seed * 2654435761u + 12345u;
  for (auto& c : s) {
    x = x * 1103515245u + 12345u;
    c = static_cast<char>(x >> 24);
  }
  return s;
}

}  // namespace napkin::testing
