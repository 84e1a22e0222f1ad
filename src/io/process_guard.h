// What a Napkin process does first, before it writes anything: write errors
// become return values instead of signals, and a standard descriptor that the
// caller closed cannot be taken over by the next file opened.
#pragma once

#include <cstdio>
#include <string>

namespace napkin {

// Ignores SIGPIPE and SIGXFSZ: a write to a pipe whose reader went away then
// fails with EPIPE ("Broken pipe") and a write past a file-size limit with
// EFBIG ("File too large"), and the writer reports it like any other failure.
void ignore_write_signals();

// Opens /dev/null read-only on any of descriptors 0, 1 and 2 that is closed,
// so that no file opened later becomes standard output by accident; a write
// to such a standard output fails with EBADF ("Bad file descriptor").
void reserve_standard_descriptors();

// Flushes and closes `stream` (standard output): true when every write to it,
// the flush and the close succeeded; otherwise false with *reason, the
// operating system's words ("No space left on device", "Broken pipe").
bool close_output_stream(std::FILE* stream, std::string* reason);

}  // namespace napkin
