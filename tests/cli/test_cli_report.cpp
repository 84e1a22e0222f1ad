// napkin-cli report: a real PDF, read back with poppler's pdftotext/pdfinfo.
#include <gtest/gtest.h>

#include <QRegularExpression>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>

#include "cli_runner.h"

namespace {

QString tool(const QString& program, const QStringList& args) {
  QProcess p;
  p.start(program, args);
  p.waitForFinished(60000);
  return QString::fromUtf8(p.readAllStandardOutput());
}

QString text(const QString& pdf) {
  return tool(QStringLiteral("pdftotext"), {QStringLiteral("-layout"), pdf, QStringLiteral("-")});
}

}  // namespace

// Outside the anonymous namespace: TEST_F's classes derive from it, and in a
// unity build a base of internal linkage draws -Wsubobject-linkage.
class CliReport : public ::testing::Test {
 protected:
  void SetUp() override { qputenv("SOURCE_DATE_EPOCH", "1798761600"); }  // 2027-01-01
  QTemporaryDir dir;
};

TEST_F(CliReport, DefaultScenarioHasTheHeadlineNumbersAndMetadata) {
  const QString pdf = dir.filePath(QStringLiteral("default.pdf"));
  const CliResult r = run_cli({QStringLiteral("report"), QStringLiteral("-o"), pdf});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  const QString t = text(pdf);
  for (const char* s :
       {"1.026e+24 FLOPs", "92.5B", "1.85T", "$1,800,000", "$1,753.65", "What to train",
        "Recommendation", "Servability", "to hold its weights", "Sanity checks", "Loss forecast"})
    EXPECT_TRUE(t.contains(QString::fromUtf8(s))) << s;
  // Text inside the charts is text, so the charts are vector.
  for (const char* s :
       {"Training memory per device", "ZeRO-0", "KV cache per request", "served tokens"})
    EXPECT_TRUE(t.contains(QString::fromUtf8(s))) << s;
  // "nan" as a word ("Narayanan" in a formula's source is fine).
  EXPECT_FALSE(t.contains(QRegularExpression(QStringLiteral("\\b(nan|inf)\\b"),
                                             QRegularExpression::CaseInsensitiveOption)));
  const QString info = tool(QStringLiteral("pdfinfo"), {pdf});
  EXPECT_TRUE(
      info.contains(QStringLiteral("Title:           Napkin report: Llama-3-70B on 1,000 × H100")))
      << info.toStdString();
  EXPECT_TRUE(info.contains(QStringLiteral("Creator:         Napkin"))) << info.toStdString();
  EXPECT_TRUE(info.contains(QStringLiteral("Pages:"))) << info.toStdString();
  EXPECT_LT(QFileInfo(pdf).size(), 2 * 1024 * 1024);
  EXPECT_GT(QFileInfo(pdf).size(), 10 * 1024);
}

TEST_F(CliReport, SecondScenarioAndLetterPages) {
  const QString pdf = dir.filePath(QStringLiteral("mixtral.pdf"));
  const CliResult r =
      run_cli({QStringLiteral("report"), QStringLiteral("--scenario"),
               QStringLiteral(NAPKIN_TEST_DATA "/scenarios/mixtral-tpu-v5p.napkin.json"),
               QStringLiteral("-o"), pdf, QStringLiteral("--page-size"), QStringLiteral("letter")});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  const QString t = text(pdf);
  EXPECT_TRUE(t.contains(QStringLiteral("Mixtral-8x7B"))) << t.left(400).toStdString();
  EXPECT_TRUE(t.contains(QStringLiteral("TPU v5p")));
  EXPECT_TRUE(t.contains(QStringLiteral("2,048")));
  EXPECT_TRUE(tool(QStringLiteral("pdfinfo"), {pdf}).contains(QStringLiteral("(letter)")));
}

TEST_F(CliReport, SameScenarioSameTextTwice) {
  const QString a = dir.filePath(QStringLiteral("a.pdf")),
                b = dir.filePath(QStringLiteral("b.pdf"));
  ASSERT_EQ(run_cli({QStringLiteral("report"), QStringLiteral("-o"), a}).exit_code, 0);
  ASSERT_EQ(run_cli({QStringLiteral("report"), QStringLiteral("-o"), b}).exit_code, 0);
  EXPECT_EQ(text(a), text(b));
  EXPECT_TRUE(text(a).contains(QStringLiteral("2027-01-01")));
}

TEST_F(CliReport, UnwritablePathFailsCleanlyAndLeavesNothing) {
  const QString pdf = dir.filePath(QStringLiteral("missing-dir/out.pdf"));
  const CliResult r = run_cli({QStringLiteral("report"), QStringLiteral("-o"), pdf});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.count(QLatin1Char('\n')), 1) << r.err.toStdString();
  EXPECT_TRUE(r.err.contains(QStringLiteral("missing-dir/out.pdf"))) << r.err.toStdString();
  EXPECT_FALSE(QFileInfo::exists(pdf));
  EXPECT_TRUE(QDir(dir.path()).entryList(QDir::Files).isEmpty());
}

TEST_F(CliReport, ExistingReportSurvivesAFailedExport) {
  const QString pdf = dir.filePath(QStringLiteral("keep.pdf"));
  ASSERT_EQ(run_cli({QStringLiteral("report"), QStringLiteral("-o"), pdf}).exit_code, 0);
  const QByteArray before = [&] {
    QFile f(pdf);
    f.open(QIODevice::ReadOnly);
    return f.readAll();
  }();
  const CliResult r =
      run_cli({QStringLiteral("report"), QStringLiteral("--scenario"),
               QStringLiteral("/nonexistent.napkin.json"), QStringLiteral("-o"), pdf});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.contains(QStringLiteral("nonexistent.napkin.json")));
  QFile f(pdf);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  EXPECT_EQ(f.readAll(), before);
}

TEST_F(CliReport, BadFlagsExitTwo) {
  EXPECT_EQ(run_cli({QStringLiteral("report")}).exit_code, 2);
  EXPECT_EQ(run_cli({QStringLiteral("report"), QStringLiteral("-o"),
                     dir.filePath(QStringLiteral("x.pdf")), QStringLiteral("--page-size"),
                     QStringLiteral("a3")})
                .exit_code,
            2);
}

TEST_F(CliReport, ABaselineOpensTheReportWithPlanAVsPlanB) {
  const QString pdf = dir.filePath(QStringLiteral("compare.pdf"));
  const CliResult r =
      run_cli({QStringLiteral("report"), QStringLiteral("--baseline"),
               QStringLiteral(NAPKIN_TEST_DATA "/scenarios/llama3-70b-h100-30d.napkin.json"),
               QStringLiteral("--scenario"),
               QStringLiteral(NAPKIN_TEST_DATA "/scenarios/llama3-70b-tpu-v5p-45d.napkin.json"),
               QStringLiteral("-o"), pdf});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  const QString t = text(pdf)
                        .replace(QChar(0xFB00), QLatin1String("ff"))
                        .replace(QChar(0xFB01), QLatin1String("fi"));
  const qsizetype page = t.indexOf(QStringLiteral("Plan A vs plan B"));
  ASSERT_GE(page, 0) << t.left(600).toStdString();
  EXPECT_LT(page, t.indexOf(QStringLiteral("Napkin report")));  // the first page
  for (const char* s : {"Inputs that differ", "Headline outputs", "llama3-70b-h100-30d.napkin.json",
                        "TPU v5p", "Better", "Compute C"})
    EXPECT_TRUE(t.contains(QString::fromUtf8(s))) << s;
  // A baseline that cannot be read: exit 2, one line naming the file.
  const CliResult bad =
      run_cli({QStringLiteral("report"), QStringLiteral("--baseline"),
               QStringLiteral("/nonexistent-baseline.json"), QStringLiteral("-o"), pdf});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err.count(QLatin1Char('\n')), 1) << bad.err.toStdString();
  EXPECT_TRUE(bad.err.contains(QStringLiteral("nonexistent-baseline.json")))
      << bad.err.toStdString();
}

// Issue 25: a scenario whose chip comes from --chip-file renders with that
// chip (the renderer is handed the file); without the file the chip is unknown
// and the renderer's reason reaches the user.
TEST_F(CliReport, AChipFromChipFileReachesTheRenderer) {
  const QString chip = dir.filePath(QStringLiteral("site chip.json"));
  {
    QFile f(chip);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(R"({"name": "Site-H100-R", "like": "H100",
        "peak_tflops": {"value": 500, "kind": "measured", "source": "MAMF on our nodes"},
        "watts": {"value": 600, "kind": "datasheet", "source": "vendor sheet"}})");
  }
  QFile in(QStringLiteral(NAPKIN_TEST_DATA "/scenarios/llama3-70b-h100-30d.napkin.json"));
  ASSERT_TRUE(in.open(QIODevice::ReadOnly));
  QByteArray doc = in.readAll();
  ASSERT_TRUE(doc.contains(R"("chip": "H100")"));
  doc.replace(R"("chip": "H100")", R"("chip": "Site-H100-R")");
  const QString scenario = dir.filePath(QStringLiteral("site.napkin.json"));
  {
    QFile f(scenario);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(doc);
  }
  const QString pdf = dir.filePath(QStringLiteral("site.pdf"));
  const CliResult r = run_cli({QStringLiteral("report"), QStringLiteral("--chip-file"), chip,
                               QStringLiteral("--scenario"), scenario, QStringLiteral("-o"), pdf});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  const QString t = text(pdf);
  EXPECT_TRUE(t.contains(QStringLiteral("Site-H100-R"))) << t.left(600).toStdString();
  EXPECT_TRUE(tool(QStringLiteral("pdfinfo"), {pdf}).contains(QStringLiteral("× Site-H100-R")));

  const QString missing = dir.filePath(QStringLiteral("missing.pdf"));
  const CliResult without = run_cli({QStringLiteral("report"), QStringLiteral("--scenario"),
                                     scenario, QStringLiteral("-o"), missing});
  EXPECT_EQ(without.exit_code, 2);
  EXPECT_TRUE(without.err.contains(QStringLiteral("Site-H100-R"))) << without.err.toStdString();
  EXPECT_FALSE(QFileInfo::exists(missing));
}

// Issue 25: the flags of the scenario's inputs beside --scenario change the
// file's values for the report, as in the panels' commands; the cover names
// the file and what was changed, --save keeps the changed scenario, and the
// file itself is untouched. Without --scenario they are refused.
TEST_F(CliReport, FlagsBesideTheScenarioChangeItAndTheCoverSaysSo) {
  const QString plan =
      QStringLiteral(NAPKIN_TEST_DATA "/scenarios/llama3-70b-h100-30d.napkin.json");
  const QString pdf = dir.filePath(QStringLiteral("changed.pdf"));
  const QString saved = dir.filePath(QStringLiteral("changed.napkin.json"));
  const CliResult r =
      run_cli({QStringLiteral("report"), QStringLiteral("--scenario"), plan,
               QStringLiteral("--chips"), QStringLiteral("4096"), QStringLiteral("--days"),
               QStringLiteral("60"), QStringLiteral("--save"), saved, QStringLiteral("-o"), pdf});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  EXPECT_TRUE(
      r.out.contains(QStringLiteral("Overrides: --chips 4,096 chips (the file: 2,048 chips)")))
      << r.out.toStdString();
  const QString t = text(pdf).simplified();
  EXPECT_TRUE(t.contains(QStringLiteral("Llama-3-70B on 4,096 × H100 for 60 days")))
      << t.left(600).toStdString();
  EXPECT_TRUE(
      t.contains(QStringLiteral("Not as saved in llama3-70b-h100-30d.napkin.json: Chips "
                                "2,048 chips → 4,096 chips; Days 30 days → 60 days.")))
      << t.left(800).toStdString();
  const CliResult again = run_cli(
      {QStringLiteral("budget"), QStringLiteral("--scenario"), saved, QStringLiteral("--json")});
  ASSERT_EQ(again.exit_code, 0) << again.err.toStdString();
  EXPECT_TRUE(again.out.contains(QStringLiteral("on 4,096 × H100"))) << again.out.toStdString();

  // The file as saved: no such line on the cover.
  const QString plain = dir.filePath(QStringLiteral("plain.pdf"));
  ASSERT_EQ(run_cli({QStringLiteral("report"), QStringLiteral("--scenario"), plan,
                     QStringLiteral("-o"), plain})
                .exit_code,
            0);
  EXPECT_FALSE(text(plain).contains(QStringLiteral("Not as saved")));

  // Refused, one line each, no PDF: a value out of range, a flag without a file.
  const QString none = dir.filePath(QStringLiteral("none.pdf"));
  const CliResult big =
      run_cli({QStringLiteral("report"), QStringLiteral("--scenario"), plan,
               QStringLiteral("--chips"), QStringLiteral("1e9"), QStringLiteral("-o"), none});
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_TRUE(big.err.contains(QStringLiteral("--chips must be a whole number in 1 – 10,000,000")))
      << big.err.toStdString();
  const CliResult alone = run_cli({QStringLiteral("report"), QStringLiteral("--days"),
                                   QStringLiteral("60"), QStringLiteral("-o"), none});
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_TRUE(alone.err.contains(QStringLiteral("--days changes a saved scenario")))
      << alone.err.toStdString();
  EXPECT_FALSE(QFileInfo::exists(none));
}
