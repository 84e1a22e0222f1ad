// napkin-cli: every computation of the model library, headless.
#include <QCoreApplication>
#include <string>
#include <vector>

#include "cli_common.h"

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);  // for Qt's file and JSON classes; no GUI
  return napkin::cli::dispatch(std::vector<std::string>(argv + 1, argv + argc));
}
