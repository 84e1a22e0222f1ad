// napkin-cli: every computation of the model library, headless.
#include <QCoreApplication>
#include <clocale>
#include <cstdio>
#include <string>
#include <vector>

#include "cli_common.h"
#include "process_guard.h"

int main(int argc, char** argv) {
  napkin::reserve_standard_descriptors();
  napkin::ignore_write_signals();
  if (const std::string bad = napkin::non_utf8_argument(argc, argv); !bad.empty()) {
    std::fprintf(stderr, "napkin-cli: %s\n", bad.c_str());
    return 2;
  }
  QCoreApplication app(argc, argv);  // for Qt's file and JSON classes; no GUI
  // QCoreApplication adopts the environment's locale; the CLI reads and
  // prints numbers in the C locale ("1.5", never "1,5") whatever LC_ALL says.
  std::setlocale(LC_NUMERIC, "C");
  const int status = napkin::cli::dispatch(std::vector<std::string>(argv + 1, argv + argc));
  std::string reason;
  if (!napkin::close_output_stream(stdout, &reason)) {
    std::fprintf(stderr, "napkin-cli: cannot write to standard output: %s\n", reason.c_str());
    return status != 0 ? status : 2;
  }
  return status;
}
