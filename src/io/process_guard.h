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

// Empty when every argument is valid UTF-8; otherwise the one line to print
// and exit 2 with. File names reach Qt as UTF-8 text, and bytes that are not
// UTF-8 would become U+FFFD: a different name, perhaps another file's. Such
// a name is refused, never silently changed.
std::string non_utf8_argument(int argc, char** argv);

}  // namespace napkin
