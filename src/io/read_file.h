// Reads a whole input file with a size cap: a regular file, a pipe or FIFO,
// a /proc file (whose size reads as 0) or standard input ("-" is not special
// here: pass the descriptor). A regular file over the cap is refused before
// anything is read; a stream is refused as soon as it passes the cap.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace napkin {

// Bytes read so far and the file's size (0 when unknown: a pipe); false
// stops the read. Called after every 64 KiB read.
// The largest configuration file any reader accepts (a model's config.json,
// a framework's arguments or YAML): 16 MiB, far above any real one.
inline constexpr std::int64_t kMaxConfigBytes = std::int64_t{16} << 20;

using ReadProgress = std::function<bool(std::int64_t done, std::int64_t total)>;

// False with *error ("<path>: <reason>") when the file cannot be read, is a
// folder, holds more than `max_bytes`, or `progress` stopped the read ("<path>:
// stopped after N bytes").
bool read_file_capped(const std::string& path, std::int64_t max_bytes, std::string* out,
                      std::string* error, const ReadProgress& progress = {});
// The same for an open descriptor (0 for standard input); `name` is used in
// messages. The descriptor is not closed.
bool read_fd_capped(int fd, const std::string& name, std::int64_t max_bytes, std::string* out,
                    std::string* error, const ReadProgress& progress = {});

}  // namespace napkin
