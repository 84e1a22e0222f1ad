// The file loaders on real paths: the bytes are written to a temporary file,
// or fed through a pipe (read as /proc/self/fd/N, as a FIFO or /dev/stdin
// would be), or stand behind a sparse file just over the size cap. Every
// load either succeeds or throws the loader's documented exception; an
// oversized file is refused without being read.
#include <fcntl.h>
#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "config_import.h"
#include "csv_ladder.h"
#include "scenario_json.h"

namespace {

std::string temp_path() {
  static const std::string path = [] {
    char tmpl[] = "/tmp/napkin-fuzz-loader-XXXXXX";
    const int fd = ::mkstemp(tmpl);
    if (fd < 0) std::abort();
    ::close(fd);
    return std::string(tmpl);
  }();
  return path;
}

void load(int which, const std::string& path, std::int64_t csv_cap) {
  try {
    switch (which) {
      case 0: {
        napkin::CsvLadderOptions o;
        o.max_bytes = csv_cap;
        (void)napkin::load_csv_ladder(path, o);
        break;
      }
      case 1: (void)napkin::import_hf_config_file(path); break;
      default: (void)napkin::load_scenario_file(path); break;
    }
  } catch (const std::invalid_argument&) {
    if (which == 2) std::abort();  // the scenario loader throws runtime_error only
  } catch (const std::runtime_error&) {
    if (which != 2) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  // Control byte: bits 0-1 the loader (CSV, config, scenario; 3 = CSV),
  // bits 2-3 the medium (file, pipe, oversize; 3 = file), bits 4-7 the CSV cap.
  const int which = (data[0] & 3) % 3;
  const int medium = ((data[0] >> 2) & 3) % 3;
  const std::int64_t csv_cap = 1 + (data[0] >> 4) * 4096;  // also tiny caps
  const char* body = reinterpret_cast<const char*>(data + 1);
  const std::size_t n = size - 1;
  const std::string path = temp_path();
  if (medium == 0 || medium == 2) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC);
    if (fd < 0 || ::write(fd, body, n) != static_cast<ssize_t>(n)) std::abort();
    // Just over every cap: a sparse file the loaders must refuse unread.
    if (medium == 2 && ::ftruncate(fd, (std::int64_t{64} << 20) + 1) != 0) std::abort();
    ::close(fd);
    load(which, path, medium == 2 ? std::int64_t{64} << 20 : csv_cap);
    return 0;
  }
  int fds[2];
  if (::pipe(fds) != 0) std::abort();
  // A pipe holds 64 KiB; the run script caps inputs at that.
  if (n > 65536 || ::write(fds[1], body, n) != static_cast<ssize_t>(n)) {
    ::close(fds[0]);
    ::close(fds[1]);
    return 0;
  }
  ::close(fds[1]);
  load(which, "/proc/self/fd/" + std::to_string(fds[0]), csv_cap);
  ::close(fds[0]);
  return 0;
}
