// Issue 18, at the CLI: full disks and special files keep what was there; a
// flag's value is never the next flag; integers are range-checked before any
// conversion; messages name the flags the user typed; CSV on a pipe or in
// UTF-16; progress, Ctrl+C, --max-seconds and limits for long runs.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <csignal>
#include <functional>

#include "cli_runner.h"
#include "write_failure.h"

using napkin::testing::distinctive_bytes;
using napkin::testing::FileSizeLimit;
using napkin::testing::read_all;
using napkin::testing::SmallTmpfs;
using napkin::testing::write_all;

namespace {

const QString kChinchilla =
    QStringLiteral(NAPKIN_TEST_DATA "/chinchilla_besiroglu2024/svg_extracted_data.csv");

QStringList chinchilla_fit(const QStringList& extra = {}) {
  return QStringList{"fit",        "--csv",   kChinchilla,    "--n-col",
                     "Model Size", "--c-col", "Training FLOP"} +
         extra;
}

struct RunOptions {
  QByteArray stdin_bytes;
  bool close_stdin = true;
  QStringList env;  // NAME=VALUE
  long file_size_limit = 0;
  // Called once the process has started; may signal it.
  std::function<void(QProcess&)> while_running;
};

CliResult run(const QStringList& args, const RunOptions& o = {}) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  for (const QString& kv : o.env) env.insert(kv.section('=', 0, 0), kv.section('=', 1));
  p.setProcessEnvironment(env);
  if (o.file_size_limit > 0) {
    const long limit = o.file_size_limit;
    p.setChildProcessModifier([limit] { FileSizeLimit::apply_in_child(limit); });
  }
  p.start(QStringLiteral(NAPKIN_CLI), args);
  CliResult r;
  if (!p.waitForStarted(30000)) return r;
  if (!o.stdin_bytes.isEmpty()) p.write(o.stdin_bytes);
  if (o.close_stdin) p.closeWriteChannel();
  if (o.while_running) o.while_running(p);
  if (!p.waitForFinished(180000)) {
    p.kill();
    p.waitForFinished();
    r.err = QStringLiteral("timed out");
    return r;
  }
  r.exit_code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = QString::fromUtf8(p.readAllStandardOutput());
  r.err += QString::fromUtf8(p.readAllStandardError());
  return r;
}

int lines(const QString& s) { return static_cast<int>(s.count(QLatin1Char('\n'))); }

std::string s(const QString& q) { return q.toStdString(); }

}  // namespace

// ------------------------------------------------ case 1: a full disk

TEST(CliReliability, ReportOnAFullFilesystemKeepsTheOldPdf) {
  SmallTmpfs fs(100);
  if (!fs.ok()) GTEST_SKIP() << "cannot mount a tmpfs here (" << fs.why() << ")";
  const std::string old_pdf = fs.path("OLD.pdf");
  const std::string old = "%PDF-1.4 the good report " + distinctive_bytes(40000, 2);
  write_all(old_pdf, old);
  ASSERT_GT(fs.fill(48 * 1024), 0);  // nearly full: the ~1 MB report fails part-way
  const CliResult r = run({"report", "-o", QString::fromStdString(old_pdf)});
  EXPECT_EQ(r.exit_code, 2) << s(r.out);
  EXPECT_FALSE(r.out.contains("wrote"));
  EXPECT_TRUE(r.err.contains("No space left on device")) << s(r.err);
  EXPECT_EQ(lines(r.err), 1) << s(r.err);
  EXPECT_TRUE(read_all(old_pdf) == old) << "the old report was destroyed";
}

// Without root: the same failure from a file-size limit (EFBIG).
TEST(CliReliability, ReportUnderAFileSizeLimitKeepsTheOldPdf) {
  QTemporaryDir tmp;
  const std::string old_pdf = tmp.filePath("OLD.pdf").toStdString();
  const std::string old = distinctive_bytes(50000, 3);
  write_all(old_pdf, old);
  RunOptions o;
  o.file_size_limit = 20000;  // a report is ~70 KB or more
  const CliResult r = run({"report", "-o", QString::fromStdString(old_pdf)}, o);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(read_all(old_pdf) == old) << "the old report was destroyed";
  EXPECT_EQ(QDir(tmp.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
}

// ------------------------------------------------ case 2: special files

TEST(CliReliability, ReportToAFullDeviceFailsAndKeepsTheDeviceNode) {
  QTemporaryDir tmp;
  // As root, a private node of /dev/full (so that a regression cannot replace
  // the system's); otherwise /dev/full itself, which a user cannot replace.
  std::string dev = tmp.filePath("full").toStdString();
  if (::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0) dev = "/dev/full";
  const CliResult r = run({"report", "-o", QString::fromStdString(dev)});
  EXPECT_EQ(r.exit_code, 2) << s(r.out);
  EXPECT_TRUE(r.err.contains("No space left on device")) << s(r.err);
  struct stat st {};
  ASSERT_EQ(::lstat(dev.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << dev << " was replaced by a regular file";
}

TEST(CliReliability, ReportToAFifoWritesThePdfThroughIt) {
  QTemporaryDir tmp;
  const std::string fifo = tmp.filePath("pdf.fifo").toStdString();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // This test is the reader: its end is open before the writer starts (the
  // writer refuses a FIFO nobody reads), and it drains while the PDF streams.
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  QProcess p;
  p.start(QStringLiteral(NAPKIN_CLI), {"report", "-o", QString::fromStdString(fifo)});
  ASSERT_TRUE(p.waitForStarted());
  std::string received;
  char buf[65536];
  auto drain = [&] {
    for (ssize_t n; (n = ::read(reader, buf, sizeof buf)) > 0;)
      received.append(buf, static_cast<std::size_t>(n));
  };
  for (int i = 0; i < 18000 && p.state() != QProcess::NotRunning; ++i) {
    drain();
    p.waitForFinished(10);
  }
  drain();
  ::close(reader);
  EXPECT_EQ(p.exitCode(), 0) << p.readAllStandardError().toStdString();
  EXPECT_EQ(received.substr(0, 5), "%PDF-");
  EXPECT_NE(received.find("%%EOF", received.size() > 1024 ? received.size() - 1024 : 0),
            std::string::npos);
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced by a regular file";
}

TEST(CliReliability, ReportThroughASymlinkReplacesTheTargetAndKeepsTheLink) {
  QTemporaryDir tmp;
  const std::string target = tmp.filePath("real.pdf").toStdString();
  const std::string link = tmp.filePath("link.pdf").toStdString();
  write_all(target, "old");
  ASSERT_EQ(::symlink("real.pdf", link.c_str()), 0);
  const CliResult r = run({"report", "-o", QString::fromStdString(link)});
  EXPECT_EQ(r.exit_code, 0) << s(r.err);
  struct stat st {};
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(read_all(target).substr(0, 5), "%PDF-");
}

TEST(CliReliability, ReportToStandardOutput) {
  const CliResult r = run({"report", "-o", "-"});
  EXPECT_EQ(r.exit_code, 0) << s(r.err);
  EXPECT_TRUE(r.out.startsWith("%PDF-"));
}

TEST(CliReliability, ReportToAMissingFolderGivesTheReason) {
  const CliResult r = run({"report", "-o", "/nonexistent-folder/r.pdf"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.contains("No such file or directory")) << s(r.err);
}

// ------------------------------------------------ case 3: a flag as a value

TEST(CliReliability, AFlagIsNeverTakenAsTheValueOfTheFlagBefore) {
  QTemporaryDir tmp;
  QProcess p;
  p.setWorkingDirectory(tmp.path());
  p.start(QStringLiteral(NAPKIN_CLI),
          {"report", "-o", "--scenario",
           QStringLiteral(NAPKIN_TEST_DATA "/scenarios/mixtral-tpu-v5p.napkin.json")});
  ASSERT_TRUE(p.waitForFinished(120000));
  const QString err = QString::fromUtf8(p.readAllStandardError());
  EXPECT_EQ(p.exitCode(), 2);
  EXPECT_TRUE(err.contains("-o needs a value")) << s(err);
  EXPECT_TRUE(err.contains("--scenario")) << s(err);
  EXPECT_EQ(lines(err), 1);
  EXPECT_FALSE(QFileInfo::exists(tmp.filePath("--scenario"))) << "a file named --scenario";

  for (const QStringList& args :
       {QStringList{"budget", "--chip", "--chips", "8"}, QStringList{"fit", "--csv", "--json"},
        QStringList{"moe", "collapse", "--seed", "--steps", "5"}}) {
    const CliResult r = run(args);
    EXPECT_EQ(r.exit_code, 2) << s(args.join(' '));
    EXPECT_TRUE(r.err.contains(args[args[0] == "moe" ? 2 : 1] + " needs a value")) << s(r.err);
  }
  // Negative numbers and the --flag=VALUE form are values.
  EXPECT_TRUE(run({"budget", "--price=-1"}).err.contains("--price must be"));
  EXPECT_TRUE(run({"budget", "--price", "-1"}).err.contains("--price must be"));
}

// ------------------------------------------------ case 4: integer ranges

TEST(CliReliability, IntegersAreRangeCheckedBeforeAnyConversion) {
  for (const QStringList& cmd :
       {QStringList{"isoflops"}, QStringList{"moe", "collapse", "--steps", "1"},
        chinchilla_fit()}) {
    for (const char* seed : {"9223372036854775808", "9.3e18", "1e300", "18446744073709551616",
                             "-9223372036854775809", "-1e19"}) {
      const CliResult r = run(cmd + QStringList{"--seed", seed});
      EXPECT_EQ(r.exit_code, 2) << s(cmd.join(' ')) << " --seed " << seed;
      EXPECT_EQ(lines(r.err), 1) << s(r.err);
      // Each seed is a registered input: its range said as the panel's.
      EXPECT_TRUE(r.err.contains("--seed must be a whole number in 0 – ")) << s(r.err);
    }
  }
  const CliResult max = run({"isoflops", "--seed", "1000000000000000", "--json"});
  EXPECT_EQ(max.exit_code, 0) << s(max.err);
}

// ------------------------------------------------ case 6: long runs

TEST(CliReliability, LimitsAreStatedAndEnforced) {
  CliResult r = run(chinchilla_fit({"--bootstrap", "1e6"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.contains("--bootstrap must be an integer number of resamples in [1, 100,000]"))
      << s(r.err);
  r = run({"moe", "collapse", "--experts", "1024", "--top-k", "2", "--tokens", "65536", "--steps",
           "1000000"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.contains("the limit is 2e+10")) << s(r.err);
  const CliResult help = run({"help"});
  EXPECT_TRUE(help.out.contains("at most 100,000")) << s(help.out);
  EXPECT_TRUE(help.out.contains("steps × tokens × experts ≤ 2e10"));
  EXPECT_TRUE(help.out.contains("--max-seconds"));
  EXPECT_TRUE(help.out.contains("status 130"));
}

namespace {

// Waits (bounded) until the process has printed `needle` on stderr, then
// sends SIGINT. Returns what stderr held by then.
std::function<void(QProcess&)> interrupt_after(const QString& needle, QString* seen) {
  return [needle, seen](QProcess& p) {
    for (int i = 0; i < 1200 && !seen->contains(needle); ++i) {
      p.waitForReadyRead(100);
      *seen += QString::fromUtf8(p.readAllStandardError());
      if (p.state() == QProcess::NotRunning) return;
    }
    ::kill(static_cast<pid_t>(p.processId()), SIGINT);
  };
}

}  // namespace

TEST(CliReliability, CtrlCStopsABootstrapCleanlyWithStatus130) {
  QString seen;
  RunOptions o;
  o.env = {"NAPKIN_PROGRESS=1"};
  o.while_running = interrupt_after("resamples (", &seen);
  const CliResult r = run(chinchilla_fit({"--bootstrap", "100000"}), o);
  EXPECT_TRUE(seen.contains("/ 100,000 bootstrap resamples")) << s(seen);
  EXPECT_EQ(r.exit_code, 130) << s(seen + r.err);
  EXPECT_TRUE(r.err.contains("napkin-cli fit: interrupted (Ctrl+C) after ")) << s(r.err);
  EXPECT_TRUE(r.out.isEmpty());
}

TEST(CliReliability, CtrlCStopsARouterSimulationCleanly) {
  QString seen;
  RunOptions o;
  o.env = {"NAPKIN_PROGRESS=1"};
  o.while_running = interrupt_after("router steps (", &seen);
  const CliResult r =
      run({"moe", "collapse", "--experts", "64", "--tokens", "65536", "--steps", "2000"}, o);
  EXPECT_EQ(r.exit_code, 130) << s(seen + r.err);
  EXPECT_TRUE(r.err.contains("napkin-cli moe: interrupted (Ctrl+C) after ")) << s(r.err);
}

TEST(CliReliability, MaxSecondsStopsWithStatus124) {
  const CliResult r = run(chinchilla_fit({"--bootstrap", "100000", "--max-seconds", "0.5"}));
  EXPECT_EQ(r.exit_code, 124) << s(r.err);
  EXPECT_TRUE(r.err.contains("stopped at --max-seconds 0.5 after")) << s(r.err);
  EXPECT_EQ(lines(r.err), 1);
}

TEST(CliReliability, NoProgressWithJsonOrWhenStderrIsNotATerminal) {
  RunOptions forced;
  forced.env = {"NAPKIN_PROGRESS=1"};
  CliResult r = run(chinchilla_fit({"--bootstrap", "30", "--json"}), forced);
  EXPECT_EQ(r.exit_code, 0) << s(r.err);
  EXPECT_TRUE(r.err.isEmpty()) << s(r.err);
  r = run(chinchilla_fit({"--bootstrap", "30"}));  // stderr is a pipe here
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.err.isEmpty()) << s(r.err);
  r = run(chinchilla_fit({"--bootstrap", "30"}), forced);
  EXPECT_TRUE(r.err.contains("/ 30 bootstrap resamples")) << s(r.err);
}

// ------------------------------------------------ case 7: messages

TEST(CliReliability, MessagesUseTheFlagsTheUserTyped) {
  CliResult r = run({"latency", "--params", "1e9", "--chip", "H100", "--chips", "8", "--budget-s",
                     "0.5", "--overhead-s", "0.5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.contains("--budget-s (s) must be greater than --overhead-s")) << s(r.err);
  EXPECT_FALSE(r.err.contains("budget_seconds"));

  r = run({"params", "--layers", "1", "--d-model", "1000000", "--d-ff", "8", "--heads", "1",
           "--vocab", "8"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(r.err.contains("head_dim")) << s(r.err);
  EXPECT_TRUE(r.err.contains("give --head-dim")) << s(r.err);

  // Budgets whose noisy sweep has no vertex are skipped and said why, in words.
  r = run({"isoflops", "--noise", "1"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_FALSE(r.out.contains("parabola coefficient")) << s(r.out);
  EXPECT_TRUE(r.out.contains("no interior minimum")) << s(r.out);
  // With too few vertices left for the exponents, the error says what to change.
  r = run({"isoflops", "--noise", "1", "--seed", "2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(r.err.contains("parabola coefficient")) << s(r.err);
  EXPECT_TRUE(r.err.contains("lower --noise")) << s(r.err);

  r = run({"isoflops", "--budgets", QString("1e18,").repeated(1500) + "1e19"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.contains("--budgets (number of budgets) must be")) << s(r.err);
  EXPECT_FALSE(r.err.contains("budgets_flops"));

  r = run({"kv", "--layers", "100000", "--kv-heads", "100000", "--head-dim", "100000", "--seq",
           "1000000000", "--batch", "1000000000"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err), 1);
}

TEST(CliReliability, AFlagThatNeedsAnotherFlagSaysWhich) {
  CliResult r = run({"memory", "--params", "1e9", "--layers", "4"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.contains("--layers needs --batch")) << s(r.err);
  EXPECT_FALSE(r.err.contains("unknown flag"));
  r = run({"kv", "--layers", "1", "--kv-heads", "1", "--head-dim", "1", "--seq", "1", "--batch",
           "1", "--params", "1e9"});
  EXPECT_TRUE(r.err.contains("--params needs --hbm-gb")) << s(r.err);
  r = run({"params", "--layers", "1", "--d-model", "8", "--d-ff", "8", "--heads", "1", "--vocab",
           "8", "--top-k", "2"});
  EXPECT_TRUE(r.err.contains("--top-k needs --experts")) << s(r.err);
  r = run({"params", "--config", QStringLiteral(NAPKIN_TEST_DATA "/configs/llama-3-8b.json"),
           "--layers", "3"});
  EXPECT_TRUE(r.err.contains("--layers cannot be combined with --config")) << s(r.err);
  r = run({"moe", "capacity", "--counts", "4,3", "--steps", "5"});
  EXPECT_TRUE(r.err.contains("--steps is a flag of \"moe collapse\"")) << s(r.err);
  r = run({"budget", "--layers", "4"});
  EXPECT_TRUE(r.err.contains("unknown flag --layers for budget")) << s(r.err);
}

TEST(CliReliability, LongValuesAreCutInMessages) {
  const QString huge(100000, QLatin1Char('9'));
  for (const QStringList& args :
       {QStringList{"budget", "--mfu", huge}, QStringList{"budget", "--chip", huge},
        QStringList{"budget", "--optimizer", huge}, QStringList{"budget", "--" + huge},
        QStringList{huge}, QStringList{"fit", "--csv", huge}}) {
    const CliResult r = run(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(lines(r.err), 1);
    EXPECT_LT(r.err.size(), 800) << s(r.err.left(200));
  }
}

TEST(CliReliability, CsvOnStandardInputOrAPipeIsRead) {
  const QByteArray csv = QByteArray::fromStdString(read_all(kChinchilla.toStdString()));
  RunOptions o;
  o.stdin_bytes = csv;
  const QStringList tail{"--n-col", "Model Size", "--c-col", "Training FLOP", "--json"};
  const CliResult from_file = run(chinchilla_fit({"--json"}));
  ASSERT_EQ(from_file.exit_code, 0);
  for (const char* path : {"-", "/dev/stdin"}) {
    const CliResult r = run(QStringList{"fit", "--csv", path} + tail, o);
    EXPECT_EQ(r.exit_code, 0) << path << ": " << s(r.err);
    EXPECT_EQ(r.out, from_file.out) << path;
  }
  // Nothing on standard input: an empty file, said so.
  const CliResult empty = run(QStringList{"fit", "--csv", "-"} + tail);
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_TRUE(empty.err.contains("standard input")) << s(empty.err);
}

TEST(CliReliability, Utf16CsvIsDetectedAndSaidSo) {
  QTemporaryDir tmp;
  const QString text = QStringLiteral("N,D,loss\n1e9,2e10,2.5\n2e9,4e10,2.4\n");
  QByteArray le("\xFF\xFE", 2), be("\xFE\xFF", 2), bare;
  for (QChar c : text) {
    le.append(static_cast<char>(c.unicode() & 0xff)).append('\0');
    be.append('\0').append(static_cast<char>(c.unicode() & 0xff));
    bare.append(static_cast<char>(c.unicode() & 0xff)).append('\0');
  }
  for (const auto& [name, bytes] :
       {std::pair{"le.csv", le}, std::pair{"be.csv", be}, std::pair{"bare.csv", bare}}) {
    const QString path = tmp.filePath(QString::fromLatin1(name));
    write_all(path.toStdString(), bytes.toStdString());
    const CliResult r = run({"fit", "--csv", path});
    EXPECT_EQ(r.exit_code, 2) << name;
    EXPECT_TRUE(r.err.contains("UTF-16")) << name << ": " << s(r.err);
    EXPECT_EQ(lines(r.err), 1);
  }
}
