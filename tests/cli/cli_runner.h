// Runs the napkin-cli binary for tests and parses its JSON.
#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

struct CliResult {
  int exit_code = -1;
  QString out;
  QString err;
  QJsonObject json;  // stdout parsed, when it is a JSON object
  bool json_ok = false;
};

CliResult run_cli(const QStringList& args);
