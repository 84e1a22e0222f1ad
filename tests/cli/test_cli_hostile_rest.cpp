// Issue 28, items 10 to 16, at the CLI: --max-seconds, progress and Ctrl+C
// bound a whole fit (and diff's fits, and calibrate's); a FIFO nobody reads or writes is an
// error, not a hang; file names are never changed; lenient input is refused;
// messages speak the user's words.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <cmath>
#include <csignal>
#include <functional>
#include <string>

#include "write_failure.h"

using napkin::testing::write_all;

namespace {

struct Outcome {
  int exit_code = -1;  // -1: killed by a signal or timed out
  QString out, err;
  QString seen;  // stderr read while the process ran
};

// Runs napkin-cli; `while_running` may watch stderr and signal the process.
Outcome run(const QStringList& args, const QStringList& env_add = {},
            const std::function<void(QProcess&, QString*)>& while_running = {}) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  for (const QString& kv : env_add) env.insert(kv.section('=', 0, 0), kv.section('=', 1));
  p.setProcessEnvironment(env);
  p.start(QStringLiteral(NAPKIN_CLI), args);
  Outcome o;
  if (!p.waitForStarted(30000)) return o;
  p.closeWriteChannel();
  if (while_running) while_running(p, &o.seen);
  if (!p.waitForFinished(180000)) {
    p.kill();
    p.waitForFinished();
    o.err = QStringLiteral("timed out");
    return o;
  }
  o.exit_code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  o.out = QString::fromUtf8(p.readAllStandardOutput());
  o.err = o.seen + QString::fromUtf8(p.readAllStandardError());
  return o;
}

std::string s(const QString& q) { return q.toStdString(); }

// A ladder of `rows` runs on a Chinchilla-like law with a little
// deterministic noise: large enough that its fit takes seconds.
struct Run {
  double n, d, loss;
};
std::vector<Run> big_ladder(int rows) {
  std::vector<Run> out;
  for (int i = 0; i < rows; ++i) {
    const double n = 1e7 * std::pow(1000.0, (i % 97) / 96.0);
    const double d = 1e9 * std::pow(1000.0, (i % 89) / 88.0);
    const double noise = 1.0 + 0.01 * std::sin(0.7 * i);
    out.push_back({n, d, (1.69 + 406.4 / std::pow(n, 0.34) + 410.7 / std::pow(d, 0.28)) * noise});
  }
  return out;
}

std::string ladder_csv(int rows) {
  std::string csv = "N,D,loss\n";
  for (const Run& r : big_ladder(rows)) {
    char line[96];
    std::snprintf(line, sizeof line, "%.17g,%.17g,%.17g\n", r.n, r.d, r.loss);
    csv += line;
  }
  return csv;
}

// A scenario whose IsoFLOPs ladder is `rows` loaded runs.
std::string scenario_with_ladder(int rows) {
  std::string points;
  for (const Run& r : big_ladder(rows)) {
    char row[112];
    std::snprintf(row, sizeof row, "%s[%.17g,%.17g,%.17g,0]", points.empty() ? "" : ",", r.n, r.d,
                  r.loss);
    points += row;
  }
  return R"({"format":"napkin-scenario","version":2,"isoflops":{"ladder":{"loaded":)"
         R"({"file_name":"big.csv","points":[)" +
         points + "]}}}}";
}

QStringList fit_of(const QString& csv) { return {"fit", "--csv", csv, "--d-col", "D"}; }

}  // namespace

// ------------------------------------------------ 10: the whole fit is bounded

TEST(CliHostileRest, MaxSecondsBoundsTheWholeFitNotOnlyTheBootstrap) {
  QTemporaryDir tmp;
  const QString csv = tmp.filePath("big.csv");
  write_all(csv.toStdString(), ladder_csv(100'000));
  const Outcome o = run(fit_of(csv) << "--max-seconds"
                                    << "0.2");
  EXPECT_EQ(o.exit_code, 124) << s(o.err);
  EXPECT_TRUE(o.err.contains("stopped at --max-seconds 0.2 after")) << s(o.err);
  // Stopped while the ladder was read, or in the fit.
  EXPECT_TRUE(o.err.contains("fit steps") || o.err.contains("bytes of the ladder")) << s(o.err);
  EXPECT_TRUE(o.out.isEmpty()) << s(o.out);
}

// Task: reading a large ladder is bounded and interruptible itself. A
// 1,000,000-row file (about 60 MB) shows its bytes as it is read and parsed,
// and Ctrl+C stops it there (or, on a fast machine, in the fit after it).
TEST(CliHostileRest, ALargeLadderShowsItsReadAndStopsOnCtrlC) {
  QTemporaryDir tmp;
  const QString csv = tmp.filePath("huge.csv");
  write_all(csv.toStdString(), ladder_csv(1'000'000));
  const Outcome o = run(fit_of(csv), {"NAPKIN_PROGRESS=1"}, [](QProcess& p, QString* seen) {
    for (int i = 0; i < 1200 && !seen->contains("bytes of the ladder ("); ++i) {
      p.waitForReadyRead(50);
      *seen += QString::fromUtf8(p.readAllStandardError());
      if (p.state() == QProcess::NotRunning) return;
    }
    ::kill(static_cast<pid_t>(p.processId()), SIGINT);
  });
  EXPECT_TRUE(o.seen.contains("bytes of the ladder (")) << s(o.seen);
  EXPECT_EQ(o.exit_code, 130) << s(o.err);
  EXPECT_TRUE(o.err.contains("napkin-cli fit: interrupted (Ctrl+C) after ")) << s(o.err);
  EXPECT_TRUE(o.out.isEmpty());
}

TEST(CliHostileRest, TheFitShowsProgressAndStopsOnCtrlC) {
  QTemporaryDir tmp;
  const QString csv = tmp.filePath("big.csv");
  write_all(csv.toStdString(), ladder_csv(100'000));
  const Outcome o = run(fit_of(csv), {"NAPKIN_PROGRESS=1"}, [](QProcess& p, QString* seen) {
    for (int i = 0; i < 1200 && !seen->contains("fit steps ("); ++i) {
      p.waitForReadyRead(100);
      *seen += QString::fromUtf8(p.readAllStandardError());
      if (p.state() == QProcess::NotRunning) return;
    }
    ::kill(static_cast<pid_t>(p.processId()), SIGINT);
  });
  EXPECT_TRUE(o.seen.contains("fit steps (")) << s(o.seen);
  EXPECT_EQ(o.exit_code, 130) << s(o.err);
  EXPECT_TRUE(o.err.contains("napkin-cli fit: interrupted (Ctrl+C) after ")) << s(o.err);
  EXPECT_TRUE(o.out.isEmpty());
}

TEST(CliHostileRest, DiffFitsUnderMaxSeconds) {
  QTemporaryDir tmp;
  const QString a = tmp.filePath("a.napkin.json");
  write_all(a.toStdString(), scenario_with_ladder(100'000));
  const Outcome o = run({"diff", a, a, "--max-seconds", "0.2"});
  EXPECT_EQ(o.exit_code, 124) << s(o.err);
  EXPECT_TRUE(o.err.contains("napkin-cli diff: stopped at --max-seconds 0.2")) << s(o.err);
  EXPECT_TRUE(o.out.isEmpty()) << s(o.out);
}

namespace {

// The ten single-node vTrain rows calibrated with many resamples: seconds of
// work, as fit's large ladders are.
QStringList calibrate_long(const char* bootstrap) {
  return {"calibrate",
          "--runs",
          QStringLiteral(NAPKIN_TEST_DATA "/vtrain/single_node_runs.csv"),
          "--set",
          "chip=A100-80,vocab=50304,recompute=full,framework=megatron-deepspeed",
          "--lines",
          "21,59,63,74,78,103,106,123,237,242",
          "--bootstrap",
          bootstrap};
}

}  // namespace

TEST(CliHostileRest, CalibrateStopsAtMaxSeconds) {
  const Outcome o = run(calibrate_long("100000") << "--max-seconds"
                                                 << "0.2");
  EXPECT_EQ(o.exit_code, 124) << s(o.err);
  EXPECT_TRUE(o.err.contains("napkin-cli calibrate: stopped at --max-seconds 0.2 after"))
      << s(o.err);
  EXPECT_TRUE(o.out.isEmpty()) << s(o.out);
}

TEST(CliHostileRest, CalibrateShowsProgressAndStopsOnCtrlC) {
  const Outcome o =
      run(calibrate_long("100000"), {"NAPKIN_PROGRESS=1"}, [](QProcess& p, QString* seen) {
        for (int i = 0; i < 1200 && !seen->contains(" fits ("); ++i) {
          p.waitForReadyRead(100);
          *seen += QString::fromUtf8(p.readAllStandardError());
          if (p.state() == QProcess::NotRunning) return;
        }
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
      });
  // "12 / 100,011 fits (0 %)": the fit, ten leave-one-out fits, the resamples.
  EXPECT_TRUE(o.seen.contains(" / 100,011 fits (")) << s(o.seen);
  EXPECT_EQ(o.exit_code, 130) << s(o.err);
  EXPECT_TRUE(o.err.contains("napkin-cli calibrate: interrupted (Ctrl+C) after ")) << s(o.err);
  EXPECT_TRUE(o.out.isEmpty());
}

// ------------------------------------------------ 12: names are never changed

TEST(CliHostileRest, AFileNameThatIsNotUtf8IsRefusedNotChanged) {
  QTemporaryDir tmp;
  // "plan-\xE9.napkin.json": Latin-1 é, not UTF-8. Qt would read it as U+FFFD.
  const std::string raw = tmp.path().toStdString() + "/plan-\xE9.napkin.json";
  write_all(raw, R"({"format":"napkin-scenario","version":2})");
  // QProcess takes QStrings (UTF-8 in argv): a script passes the raw bytes.
  const std::string wrapper = tmp.path().toStdString() + "/run.sh";
  write_all(wrapper, "#!/bin/sh\nexec \"" + std::string(NAPKIN_CLI) + "\" diff \"" + raw + "\" \"" +
                         raw + "\"\n");
  ::chmod(wrapper.c_str(), 0700);
  QProcess q;
  q.start(QString::fromStdString(wrapper), {});
  ASSERT_TRUE(q.waitForFinished(60000));
  EXPECT_EQ(q.exitCode(), 2);
  const QString message = QString::fromUtf8(q.readAllStandardError());
  EXPECT_TRUE(message.contains("is not UTF-8 (byte 0xE9")) << s(message);
  EXPECT_TRUE(message.contains("rename the file")) << s(message);
  // The app too, before Qt reads its arguments.
  write_all(wrapper, "#!/bin/sh\nQT_QPA_PLATFORM=offscreen exec \"" + std::string(NAPKIN_APP) +
                         "\" --report r.pdf --scenario \"" + raw + "\"\n");
  QProcess app;
  app.start(QString::fromStdString(wrapper), {});
  ASSERT_TRUE(app.waitForFinished(60000));
  EXPECT_EQ(app.exitCode(), 2);
  const QString said = QString::fromUtf8(app.readAllStandardError());
  EXPECT_TRUE(said.contains("napkin: argument 4")) << s(said);
  EXPECT_TRUE(said.contains("is not UTF-8 (byte 0xE9")) << s(said);
}

// ------------------------------------------------ 15: help, page sizes

TEST(CliHostileRest, EveryCommandHasItsOwnHelp) {
  for (const char* command :
       {"flops",  "memory",     "kv",        "params",   "quantize", "decode-intensity",
        "tile",   "mfu",        "latency",   "fit",      "isoflops", "distill",
        "moe",    "roofline",   "serve",     "parallel", "goodput",  "budget",
        "report", "import-run", "calibrate", "validate", "diff"}) {
    for (const char* flag : {"--help", "-h"}) {
      const Outcome o = run({command, flag});
      EXPECT_EQ(o.exit_code, 0) << command << " " << flag << ": " << s(o.err);
      EXPECT_TRUE(o.out.contains(QStringLiteral("usage: ")) &&
                  o.out.contains(QStringLiteral(" ") + command + " "))
          << command << ": " << s(o.out);
      EXPECT_TRUE(o.err.isEmpty()) << s(o.err);
    }
  }
}

TEST(CliHostileRest, PageSizesInAnyCaseAsInTheApp) {
  QTemporaryDir tmp;
  for (const char* size : {"A4", "a4", "Letter"}) {
    const Outcome o = run({"report", "-o", tmp.filePath("r.pdf"), "--page-size", size});
    EXPECT_EQ(o.exit_code, 0) << size << ": " << s(o.err);
  }
  const Outcome o = run({"report", "-o", tmp.filePath("r.pdf"), "--page-size", "A5"});
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_TRUE(o.err.contains("--page-size")) << s(o.err);
}
