// Issue 28, at the CLI: output that cannot be written (a full device, a closed
// standard output, a reader that went away, a file-size limit) is an error
// with the operating system's reason, never a silent success or a signal;
// option-looking file names never reach the renderer's Qt as options; the
// renderer is found only where the user can see it; numbers do not depend on
// the locale.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <csignal>
#include <functional>

#include "cli_runner.h"
#include "write_failure.h"

using napkin::testing::distinctive_bytes;
using napkin::testing::read_all;
using napkin::testing::write_all;

namespace {

const QString kScenario = QStringLiteral(NAPKIN_TEST_DATA "/scenarios/plan-v2.napkin.json");

struct Hostile {
  QString program = QStringLiteral(NAPKIN_CLI);
  QString stdout_file;             // standard output to this file
  std::function<void()> in_child;  // runs in the child before exec
  QStringList env;                 // NAME=VALUE, added
  QStringList unset;               // removed from the environment
  QString working_dir;
};

struct Outcome {
  bool signalled = false;  // killed by a signal (the failures this file is about)
  int exit_code = -1;
  QString out, err;
};

Outcome run(const QStringList& args, const Hostile& h = {}) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  for (const QString& name : h.unset) env.remove(name);
  for (const QString& kv : h.env) env.insert(kv.section('=', 0, 0), kv.section('=', 1));
  p.setProcessEnvironment(env);
  if (!h.stdout_file.isEmpty()) p.setStandardOutputFile(h.stdout_file);
  if (h.in_child) p.setChildProcessModifier(h.in_child);
  if (!h.working_dir.isEmpty()) p.setWorkingDirectory(h.working_dir);
  p.start(h.program, args);
  Outcome o;
  if (!p.waitForStarted(30000)) return o;
  p.closeWriteChannel();
  if (!p.waitForFinished(180000)) {
    p.kill();
    p.waitForFinished();
    o.err = QStringLiteral("timed out");
    return o;
  }
  o.signalled = p.exitStatus() != QProcess::NormalExit;
  o.exit_code = o.signalled ? -1 : p.exitCode();
  o.out = QString::fromUtf8(p.readAllStandardOutput());
  o.err = QString::fromUtf8(p.readAllStandardError());
  return o;
}

std::string s(const QString& q) { return q.toStdString(); }

// In the child: standard output becomes a pipe whose reader has gone away,
// with SIGPIPE at its default (as a shell leaves it).
void broken_pipe_stdout() {
  int fds[2];
  if (::pipe(fds) != 0) ::_exit(99);
  ::close(fds[0]);
  ::dup2(fds[1], 1);
  ::close(fds[1]);
  std::signal(SIGPIPE, SIG_DFL);
}

// In the child: a file-size limit with SIGXFSZ at its default (as `ulimit -f`
// in a shell leaves it).
void file_size_limit(long bytes) {
  std::signal(SIGXFSZ, SIG_DFL);
  rlimit limit{};
  ::getrlimit(RLIMIT_FSIZE, &limit);
  limit.rlim_cur = static_cast<rlim_t>(bytes);
  ::setrlimit(RLIMIT_FSIZE, &limit);
}

}  // namespace

// ------------------------------------------------ 3: standard output fails

TEST(CliHostile, JsonToAFullDeviceExitsNonZeroWithTheReason) {
  Hostile h;
  h.stdout_file = QStringLiteral("/dev/full");
  const Outcome o = run({"budget", "--json"}, h);
  ASSERT_FALSE(o.signalled);
  EXPECT_NE(o.exit_code, 0);
  EXPECT_TRUE(o.err.contains("No space left on device")) << s(o.err);
  EXPECT_TRUE(o.err.contains("standard output")) << s(o.err);
}

TEST(CliHostile, AClosedStandardOutputIsAnError) {
  Hostile h;
  h.in_child = [] { ::close(1); };
  const Outcome o = run({"budget", "--json"}, h);
  ASSERT_FALSE(o.signalled);
  EXPECT_NE(o.exit_code, 0);
  EXPECT_TRUE(o.err.contains("Bad file descriptor")) << s(o.err);
}

TEST(CliHostile, JsonIntoAFileOverTheSizeLimitIsAnErrorNotASignal) {
  QTemporaryDir tmp;
  Hostile h;
  h.stdout_file = tmp.filePath("out.json");
  h.in_child = [] { file_size_limit(64); };
  const Outcome o = run({"budget", "--json"}, h);
  ASSERT_FALSE(o.signalled) << "killed by a signal";
  EXPECT_NE(o.exit_code, 0);
  EXPECT_TRUE(o.err.contains("File too large")) << s(o.err);
}

// ------------------------------------------------ 4: SIGPIPE

TEST(CliHostile, AReaderThatWentAwayIsABrokenPipeNotASignal) {
  Hostile h;
  h.in_child = broken_pipe_stdout;
  const Outcome o = run({"budget"}, h);
  ASSERT_FALSE(o.signalled) << "killed by SIGPIPE";
  EXPECT_NE(o.exit_code, 0);
  EXPECT_TRUE(o.err.contains("Broken pipe")) << s(o.err);
}

TEST(CliHostile, AReportToABrokenPipeSaysSo) {
  Hostile h;
  h.in_child = broken_pipe_stdout;
  const Outcome o = run({"report", "-o", "-"}, h);
  ASSERT_FALSE(o.signalled) << "killed by SIGPIPE";
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_TRUE(o.err.contains("Broken pipe")) << s(o.err);
}

TEST(CliHostile, TheAppWritingToABrokenPipeSaysSo) {
  Hostile h;
  h.program = QStringLiteral(NAPKIN_APP);
  h.env = {"QT_QPA_PLATFORM=offscreen"};
  h.in_child = broken_pipe_stdout;
  const Outcome o = run({"--report", "/dev/stdout"}, h);
  ASSERT_FALSE(o.signalled) << "killed by SIGPIPE";
  EXPECT_NE(o.exit_code, 0);
  EXPECT_TRUE(o.err.contains("Broken pipe")) << s(o.err);
}

// ------------------------------------------------ 5: SIGXFSZ

TEST(CliHostile, AReportOverTheFileSizeLimitIsAnErrorNotASignal) {
  QTemporaryDir tmp;
  const std::string old_pdf = tmp.filePath("OLD.pdf").toStdString();
  const std::string old = distinctive_bytes(50000, 7);
  write_all(old_pdf, old);
  Hostile h;
  h.in_child = [] { file_size_limit(20000); };
  const Outcome o = run({"report", "-o", QString::fromStdString(old_pdf)}, h);
  ASSERT_FALSE(o.signalled) << "killed by SIGXFSZ";
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_TRUE(o.err.contains("File too large")) << s(o.err);
  // The message names the file asked for (untouched), not a private temporary
  // file, and says it once.
  EXPECT_TRUE(o.err.contains(QString::fromStdString(old_pdf) + " was not touched")) << s(o.err);
  EXPECT_FALSE(o.err.contains("report.pdf")) << s(o.err);
  EXPECT_EQ(o.err.count("untouched") + o.err.count("not touched"), 1) << s(o.err);
  EXPECT_TRUE(read_all(old_pdf) == old) << "the old report was destroyed";
}

TEST(CliHostile, AScreenshotOverTheFileSizeLimitIsAnErrorNotASignal) {
  QTemporaryDir tmp;
  Hostile h;
  h.program = QStringLiteral(NAPKIN_APP);
  h.env = {"QT_QPA_PLATFORM=offscreen", "HOME=" + tmp.path(),
           "XDG_CONFIG_HOME=" + tmp.filePath("config"), "XDG_DATA_HOME=" + tmp.filePath("data")};
  h.in_child = [] { file_size_limit(20000); };
  const Outcome o = run({"--screenshot", tmp.filePath("shot.png")}, h);
  ASSERT_FALSE(o.signalled) << "killed by SIGXFSZ";
  EXPECT_NE(o.exit_code, 0);
  EXPECT_TRUE(o.err.contains("File too large")) << s(o.err);
  // The PNG is encoded in memory and written by the atomic writer: its error,
  // not the PNG library's own line.
  EXPECT_FALSE(o.err.contains("libpng")) << s(o.err);
}

// ------------------------------------------------ 6: option injection

TEST(CliHostile, AFileNameThatLooksLikeAQtOptionIsAFileName) {
  QTemporaryDir tmp;
  const QString out = tmp.filePath("r.pdf");
  const Outcome o =
      run({"report", "--scenario=-platformpluginpath", "--baseline=" + kScenario, "-o", out});
  ASSERT_FALSE(o.signalled);
  EXPECT_EQ(o.exit_code, 2) << s(o.out);
  EXPECT_TRUE(o.err.contains("-platformpluginpath")) << s(o.err);
  EXPECT_FALSE(QFile::exists(out)) << "a report of the wrong scenario was written";
}

TEST(CliHostile, ARelativeScenarioIsReadFromTheCallersFolder) {
  QTemporaryDir tmp;
  ASSERT_TRUE(QFile::copy(kScenario, tmp.filePath("-style")));
  Hostile h;
  h.working_dir = tmp.path();
  const Outcome o = run({"report", "--scenario=-style", "-o", "r.pdf"}, h);
  ASSERT_FALSE(o.signalled);
  EXPECT_EQ(o.exit_code, 0) << s(o.err);
  EXPECT_TRUE(read_all(tmp.filePath("r.pdf").toStdString()).rfind("%PDF-", 0) == 0);
}

TEST(CliHostile, TheRenderersOwnMessageNamesTheFileAsTyped) {
  QTemporaryDir tmp;
  write_all(tmp.filePath("bad.json").toStdString(), "{\"version\": 2}");
  Hostile h;
  h.working_dir = tmp.path();
  const Outcome o = run({"report", "--scenario", "bad.json", "-o", "r.pdf"}, h);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_TRUE(o.err.startsWith("napkin-cli report: bad.json: field \"format\"")) << s(o.err);
}

// ------------------------------------------------ 7: where the renderer is looked for

TEST(CliHostile, TheRendererIsNotFoundAtACompiledInBuildPath) {
  QTemporaryDir tmp;
  const QString cli = tmp.filePath("napkin-cli");
  ASSERT_TRUE(QFile::copy(QStringLiteral(NAPKIN_CLI), cli));
  Hostile h;
  h.program = cli;
  h.unset = {"NAPKIN_APP"};
  h.env = {"PATH=" + tmp.filePath("empty-bin")};
  const Outcome o = run({"report", "-o", tmp.filePath("r.pdf")}, h);
  ASSERT_FALSE(o.signalled);
  EXPECT_EQ(o.exit_code, 2) << "ran a program the user did not point at";
  EXPECT_TRUE(o.err.contains("NAPKIN_APP")) << s(o.err);
  EXPECT_FALSE(QFile::exists(tmp.filePath("r.pdf")));
}

TEST(CliHostile, TheRendererIsFoundOnThePath) {
  QTemporaryDir tmp;
  const QString bin = tmp.filePath("bin");
  ASSERT_TRUE(QDir().mkpath(bin));
  ASSERT_TRUE(QFile::link(QStringLiteral(NAPKIN_APP), bin + "/napkin"));
  const QString cli = tmp.filePath("napkin-cli");
  ASSERT_TRUE(QFile::copy(QStringLiteral(NAPKIN_CLI), cli));
  Hostile h;
  h.program = cli;
  h.unset = {"NAPKIN_APP"};
  h.env = {"PATH=" + bin};
  const Outcome o = run({"report", "-o", tmp.filePath("r.pdf")}, h);
  EXPECT_EQ(o.exit_code, 0) << s(o.err);
}

// ------------------------------------------------ 8: the locale

TEST(CliHostile, NumbersAreReadAndWrittenInTheCLocaleWhateverTheEnvironment) {
  QTemporaryDir tmp;
  // A decimal-comma locale built for this test (the machine may have none).
  QProcess def;
  def.start(QStringLiteral("localedef"),
            {"-i", "de_DE", "-f", "UTF-8", tmp.filePath("de_DE.UTF-8")});
  if (!def.waitForFinished(120000) || def.exitCode() != 0 ||
      !QFile::exists(tmp.filePath("de_DE.UTF-8")))
    GTEST_SKIP() << "cannot build a de_DE locale here";
  Hostile h;
  h.env = {"LOCPATH=" + tmp.path(), "LC_ALL=de_DE.UTF-8"};
  const Outcome point = run({"budget", "--days", "1.5"}, h);
  EXPECT_EQ(point.exit_code, 0) << s(point.err);
  const Outcome comma = run({"budget", "--days", "1,5"}, h);
  EXPECT_EQ(comma.exit_code, 2) << "a decimal comma was read as a number";
  const Outcome c_locale = run({"budget", "--days", "1.5"});
  EXPECT_EQ(point.out, c_locale.out) << "the text output depends on the locale";
}

// ------------------------------------------------ 9: impossible laws

namespace {

const QString kChinchilla =
    QStringLiteral(NAPKIN_TEST_DATA "/chinchilla_besiroglu2024/svg_extracted_data.csv");

QStringList fitOf(const QString& csv) {
  return {"fit", "--csv", csv, "--n-col", "Model Size", "--c-col", "Training FLOP"};
}

}  // namespace

// A typo row that leaves E positive but pulls the exponents flat: the law's
// optimum at the ladder's largest budget is a few parameters.
TEST(CliHostile, AFitWhoseOptimumNoRunSupportsIsRefusedNamingTheRow) {
  QTemporaryDir tmp;
  write_all(tmp.filePath("flat.csv").toStdString(),
            "N,D,loss\n1,1e9,3.0\n1e9,2e10,2.5\n2e9,1e10,2.45\n4e8,5e10,2.6\n1e9,1e11,2.3\n"
            "3e9,3e10,2.3\n");
  const Outcome o = run({"fit", "--csv", tmp.filePath("flat.csv")});
  EXPECT_EQ(o.exit_code, 2) << s(o.out);
  EXPECT_TRUE(o.err.contains("decades below the smallest model trained")) << s(o.err);
  EXPECT_TRUE(o.err.contains("line 2 (N = 1.00e+00")) << s(o.err);
  EXPECT_FALSE(o.err.contains("run 1 of")) << s(o.err);  // lines, not the panel's places
}

TEST(CliHostile, AFitPulledToAnImpossibleLawIsRefusedNamingTheRow) {
  QTemporaryDir tmp;
  // One typo row: N = 1 parameter among runs of millions to billions.
  const std::string csv = read_all(kChinchilla.toStdString()) + "0,0,#000,1,1e19,#000,3.0\n";
  write_all(tmp.filePath("typo.csv").toStdString(), csv);
  for (const QString& json : {QString(), QStringLiteral("--json")}) {
    QStringList args = fitOf(tmp.filePath("typo.csv"));
    if (!json.isEmpty()) args << json;
    const Outcome o = run(args);
    EXPECT_EQ(o.exit_code, 2) << s(o.out);
    EXPECT_TRUE(o.err.contains("not determine a physical law")) << s(o.err);
    EXPECT_TRUE(o.err.contains("E = 0")) << s(o.err);
    EXPECT_TRUE(o.err.contains("line 247")) << s(o.err);
    EXPECT_EQ(o.err.count('\n'), 1) << s(o.err);
  }
  // The clean ladder still fits.
  EXPECT_EQ(run(fitOf(kChinchilla)).exit_code, 0);
}

TEST(CliHostile, IsoflopsRefusesANegativeExponent) {
  // At the registry's largest noise and bias (the panel's and the file's too).
  const Outcome o = run({"isoflops", "--noise", "1", "--bias", "1", "--seed", "3"});
  EXPECT_EQ(o.exit_code, 2) << s(o.out);
  EXPECT_TRUE(o.err.contains("not physical")) << s(o.err);
  EXPECT_TRUE(o.err.contains("a = -0.8266")) << s(o.err);
  EXPECT_EQ(run({"isoflops"}).exit_code, 0);
}

// ------------------------------------------------ 13, 14: layouts

namespace {
const QString kLlama8b = QStringLiteral(NAPKIN_TEST_DATA "/configs/llama-3-8b.json");
}  // namespace

TEST(CliHostile, ALayoutThatGivesAKeyTwiceOrNothingIsRefused) {
  Outcome o = run({"parallel", "--config", kLlama8b, "--chips", "8", "--layout", "tp=8,tp=4"});
  EXPECT_EQ(o.exit_code, 2) << s(o.out);
  EXPECT_TRUE(o.err.contains("tp")) << s(o.err);
  EXPECT_TRUE(o.err.contains("twice")) << s(o.err);
  o = run({"parallel", "--config", kLlama8b, "--chips", "8", "--layout="});
  EXPECT_EQ(o.exit_code, 2) << s(o.out);
  EXPECT_TRUE(o.err.contains("--layout")) << s(o.err);
  EXPECT_EQ(run({"parallel", "--config", kLlama8b, "--chips", "8", "--layout", "tp=8"}).exit_code,
            0);
}

TEST(CliHostile, NoValidLayoutIsAnErrorWithAReason) {
  for (const QString& json : {QString(), QStringLiteral("--json")}) {
    QStringList args{"parallel", "--config", kLlama8b, "--chips", "7"};
    if (!json.isEmpty()) args << json;
    const Outcome o = run(args);
    EXPECT_NE(o.exit_code, 0) << s(o.out);
    EXPECT_TRUE(o.err.contains("no valid layout")) << s(o.err);
    EXPECT_TRUE(o.err.contains("multiple of")) << s(o.err);
  }
}

// ------------------------------------------------ 15: the app's options

TEST(CliHostile, TheAppExitsWithStatus2OnABadOption) {
  Hostile h;
  h.program = QStringLiteral(NAPKIN_APP);
  h.env = {"QT_QPA_PLATFORM=offscreen"};
  const Outcome o = run({"--no-such-option"}, h);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_TRUE(o.err.contains("no-such-option")) << s(o.err);
}

TEST(CliHostile, TheAppOpensAFileNamedAloneAndRefusesTwo) {
  // `napkin plan.napkin.json` opens the file as --scenario does (it was
  // silently ignored: the window came up Untitled); a missing one is named.
  Hostile h;
  h.program = QStringLiteral(NAPKIN_APP);
  h.env = {"QT_QPA_PLATFORM=offscreen"};
  QTemporaryDir tmp;
  const QString shot = tmp.filePath("shot.png");
  const QString missing = tmp.filePath("missing.napkin.json");
  const Outcome bad = run({"--screenshot", shot, "--size", "640x480", missing}, h);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(bad.err.contains("missing.napkin.json")) << s(bad.err);
  const Outcome good = run({"--screenshot", shot, "--size", "640x480", kScenario}, h);
  EXPECT_EQ(good.exit_code, 0) << s(good.err);
  EXPECT_TRUE(QFileInfo(shot).size() > 0);
  for (const QStringList& args :
       {QStringList{kScenario, kScenario}, QStringList{"--scenario", kScenario, kScenario}}) {
    const Outcome two = run(args, h);
    EXPECT_EQ(two.exit_code, 2) << s(args.join(' '));
    EXPECT_TRUE(two.err.contains("one scenario file at a time")) << s(two.err);
  }
  // --edit (napkin-cli report's changes) is for a report of a scenario only.
  const Outcome edit = run({"--screenshot", shot, "--edit", kScenario}, h);
  EXPECT_EQ(edit.exit_code, 2);
  EXPECT_TRUE(edit.err.contains("--edit is for --report")) << s(edit.err);
  const Outcome alone = run({"--report", tmp.filePath("r.pdf"), "--edit", kScenario}, h);
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_TRUE(alone.err.contains("--edit needs --scenario")) << s(alone.err);
  EXPECT_FALSE(QFileInfo::exists(tmp.filePath("r.pdf")));
}

// ------------------------------------------------ 2: the run of record's budget

TEST(CliHostile, AHeavyRunOfRecordIsRefusedByDiffAndReportNotRun) {
  QTemporaryDir tmp;
  const QString heavy = tmp.filePath("heavy.napkin.json");
  write_all(heavy.toStdString(),
            R"({"format":"napkin-scenario","version":2,"moe":{"experts":1024,"top_k":1024,)"
            R"("tokens_per_batch":65536,"steps":5000}})");
  for (const QStringList& args :
       {QStringList{"diff", kScenario, heavy},
        QStringList{"report", "--scenario", heavy, "-o", tmp.filePath("r.pdf")}}) {
    const Outcome o = run(args);
    EXPECT_EQ(o.exit_code, 2) << s(args.join(' ')) << ": " << s(o.err);
    EXPECT_TRUE(o.err.contains("moe.steps")) << s(o.err);
    EXPECT_TRUE(o.err.contains("5e8")) << s(o.err);
  }
}

// ------------------------------------------------ 13: strict numbers

TEST(CliHostile, NumbersAreDecimalOnly) {
  for (const char* bad : {"0x10", " 5", "5 ", "+-5", "1,5", "inf", "nan", "0x1p3"}) {
    const Outcome o = run({"budget", "--days", bad});
    EXPECT_EQ(o.exit_code, 2) << bad << " was accepted";
    EXPECT_TRUE(o.err.contains("--days")) << s(o.err);
  }
  for (const char* good : {"5", "+5", "1.5", "1e1", ".5", "2."})
    EXPECT_EQ(run({"budget", "--days", good}).exit_code, 0) << good << ": refused";
  EXPECT_EQ(run({"budget", "--chips", "0x10"}).exit_code, 2);
}

// ------------------------------------------------ 11: a FIFO nobody writes

TEST(CliHostile, AFifoWithNoWriterIsAnErrorNotAHang) {
  QTemporaryDir tmp;
  const QString fifo = tmp.filePath("ladder.fifo");
  ASSERT_EQ(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
  for (const QStringList& args : {fitOf(fifo), QStringList{"diff", kScenario, fifo}}) {
    const Outcome o = run(args);
    EXPECT_EQ(o.exit_code, 2) << s(args.join(' ')) << ": " << s(o.err);
    EXPECT_TRUE(o.err.contains("no writer")) << s(o.err);
  }
}
