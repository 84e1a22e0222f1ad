// Helpers the CLI tests share (over cli_runner.h).
#pragma once

#include <gtest/gtest.h>

#include <QByteArray>
#include <QFile>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include "cli_runner.h"

// The words of a command line ("budget --chips 8").
inline QStringList words(const char* s) { return QString::fromUtf8(s).split(QLatin1Char(' ')); }

// A run that succeeds with a JSON object on stdout.
inline CliResult json_ok(const QStringList& args) {
  CliResult r = run_cli(args + QStringList{QStringLiteral("--json")});
  EXPECT_EQ(r.exit_code, 0) << r.err.toStdString();
  EXPECT_TRUE(r.json_ok) << r.out.toStdString();
  return r;
}

// A usage error: exit 2 and one stderr line naming `needle`.
inline void expect_usage_error(const QStringList& args, const QString& needle) {
  const CliResult r = run_cli(args);
  EXPECT_EQ(r.exit_code, 2) << r.out.toStdString();
  EXPECT_TRUE(r.err.contains(needle)) << r.err.toStdString();
  EXPECT_EQ(r.err.trimmed().count(QLatin1Char('\n')), 0) << r.err.toStdString();
}

// Writes `contents` to the file `name` in `dir` (a test's scenario file) and
// returns its path.
inline QString write_test_file(const QTemporaryDir& dir, const char* name,
                               const QByteArray& contents) {
  const QString path = dir.filePath(QString::fromLatin1(name));
  QFile f(path);
  EXPECT_TRUE(f.open(QIODevice::WriteOnly)) << name;
  EXPECT_EQ(f.write(contents), contents.size()) << name;
  return path;
}

// The text the README shows after its line `command` ("$ napkin-cli validate")
// up to the code block's end; empty (and a failure) when it has no such line.
inline QString readme_block(const QString& command) {
  QFile readme(QStringLiteral(NAPKIN_README));
  EXPECT_TRUE(readme.open(QIODevice::ReadOnly));
  const QString text = QString::fromUtf8(readme.readAll());
  const QString line = command + QLatin1Char('\n');
  const qsizetype start = text.indexOf(line);
  EXPECT_GE(start, 0) << "the README has no '" << command.toStdString() << "' block";
  if (start < 0) return {};
  const qsizetype body = start + line.size();
  return text.mid(body, text.indexOf(QStringLiteral("```"), body) - body);
}
