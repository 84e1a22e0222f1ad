// Flags beside --scenario (budget, parallel, isoflops): each registered input
// the command reads replaces the file's value, checked as the file's own
// value is; the output says what was replaced; --save writes the scenario so
// changed. A flag that would change nothing the command shows is refused.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>

#include "budget_view.h"
#include "cli_test_util.h"
#include "parallel_view.h"
#include "plan.h"
#include "scenario.h"

namespace {

using napkin::Scenario;

QStringList with_scenario(const char* command, const QString& path, const char* flags) {
  QStringList w{QString::fromUtf8(command), QStringLiteral("--scenario"), path};
  if (*flags) w += words(flags);
  return w;
}

const QByteArray kScenario =
    R"({"format": "napkin-scenario", "version": 2, "hardware": {"chip": "H100", "chips": 2048},
        "budget": {"days": 30}})";

TEST(CliScenarioFlags, BudgetFlagsReplaceTheFilesValues) {
  QTemporaryDir dir;
  const QString path = write_test_file(dir, "s.json", kScenario);
  Scenario s;
  s.chip = "H200";
  s.n_chips = 4096;
  s.days = 60;
  const napkin::BudgetView app = make_budget_view(s);
  ASSERT_TRUE(app.valid()) << app.error;

  const CliResult r = json_ok(with_scenario("budget", path, "--chips 4096 --days 60 --chip H200"));
  EXPECT_DOUBLE_EQ(r.json["flops"].toDouble(), app.report.flops);
  const QJsonObject sc = r.json["scenario"].toObject();
  EXPECT_TRUE(sc["subject"].toString().contains(QStringLiteral("4,096 × H200")));
  EXPECT_DOUBLE_EQ(sc["plan"].toObject()["compute_flops"].toDouble(), app.plan.compute_flops);
  const QJsonArray o = sc["overrides"].toArray();
  ASSERT_EQ(o.size(), 3);
  EXPECT_EQ(o[0].toObject()["flag"].toString(), QStringLiteral("--chips"));
  EXPECT_EQ(o[0].toObject()["key"].toString(), QStringLiteral("hardware.chips"));
  EXPECT_DOUBLE_EQ(o[0].toObject()["file"].toDouble(), 2048);
  EXPECT_DOUBLE_EQ(o[0].toObject()["value"].toDouble(), 4096);
  EXPECT_EQ(o[2].toObject()["file"].toString(), QStringLiteral("H100"));
  EXPECT_EQ(o[2].toObject()["value"].toString(), QStringLiteral("H200"));

  const CliResult text = run_cli(with_scenario("budget", path, "--chips 4096"));
  EXPECT_EQ(text.exit_code, 0) << text.err.toStdString();
  EXPECT_TRUE(
      text.out.contains(QStringLiteral("Overrides: --chips 4,096 chips (the file: 2,048 chips)")))
      << text.out.toStdString();
  // Without flags: no overrides, the file's values.
  const CliResult plain = json_ok(with_scenario("budget", path, ""));
  EXPECT_TRUE(plain.json["scenario"].toObject()["overrides"].toArray().isEmpty());
  EXPECT_TRUE(plain.json["scenario"].toObject()["subject"].toString().contains(
      QStringLiteral("2,048 × H100")));
}

TEST(CliScenarioFlags, SaveWritesTheChangedScenario) {
  QTemporaryDir dir;
  const QString path = write_test_file(dir, "s.json", kScenario);
  const QString saved = dir.filePath(QStringLiteral("changed.json"));
  const CliResult r = json_ok(with_scenario("budget", path, "--chips 512 --price 3.5") +
                              QStringList{"--save", saved});
  const CliResult again = json_ok(with_scenario("budget", saved, ""));
  EXPECT_DOUBLE_EQ(again.json["flops"].toDouble(), r.json["flops"].toDouble());
  EXPECT_DOUBLE_EQ(again.json["rental_dollars"].toDouble(), r.json["rental_dollars"].toDouble());
  EXPECT_TRUE(again.json["scenario"].toObject()["subject"].toString().contains(
      QStringLiteral("512 × H100")));
  // The file read is left as it was.
  const CliResult original = json_ok(with_scenario("budget", path, ""));
  EXPECT_TRUE(original.json["scenario"].toObject()["subject"].toString().contains(
      QStringLiteral("2,048 × H100")));
}

TEST(CliScenarioFlags, BadOrUselessFlagsAreRefused) {
  QTemporaryDir dir;
  const QString path = write_test_file(dir, "s.json", kScenario);
  // Out of the registry's range, or not a chip: the flag's own message.
  expect_usage_error(with_scenario("budget", path, "--chips 0"),
                     QStringLiteral("--chips must be a whole number in 1 – 10,000,000 chips"));
  expect_usage_error(with_scenario("budget", path, "--chip H300"),
                     QStringLiteral("--chip must be one of H100"));
  // A flag the command reads only without --scenario.
  expect_usage_error(with_scenario("budget", path, "--law replication"),
                     QStringLiteral("--law cannot be combined with --scenario"));
  // --mfu when the plan's MFU is predicted for its layout: it would change nothing.
  const QString predicted =
      write_test_file(dir, "p.json",
                      R"({"format": "napkin-scenario", "version": 2, "hardware": {"chips": 2048},
          "parallel": {"mfu_source": "predicted"}})");
  Scenario s;
  s.n_chips = 2048;
  s.parallel.mfu_source = napkin::MfuSource::predicted;
  ASSERT_EQ(napkin::budget_mfu(s).source, napkin::MfuSource::predicted);
  const CliResult mfu = run_cli(with_scenario("budget", predicted, "--mfu 0.5"));
  EXPECT_EQ(mfu.exit_code, 2);
  EXPECT_TRUE(mfu.err.contains(QStringLiteral("--mfu changes nothing"))) << mfu.err.toStdString();
  // When no layout runs, the assumed MFU stands in and --mfu sets it.
  const CliResult few = json_ok(with_scenario("budget", predicted, "--mfu 0.5 --chips 7"));
  const QJsonObject plan = few.json["scenario"].toObject()["plan"].toObject();
  EXPECT_EQ(plan["mfu_source"].toString(), QStringLiteral("assumed"));
  EXPECT_DOUBLE_EQ(plan["mfu"].toDouble(), 0.5);
}

TEST(CliScenarioFlags, ParallelTakesItsJobsFlags) {
  QTemporaryDir dir;
  const QString path = write_test_file(dir, "s.json", kScenario);
  Scenario s;
  s.n_chips = 1024;
  s.parallel.gpus_per_node = 4;
  const napkin::SearchResult search = napkin::scenario_layouts(s);
  const napkin::ParallelView app = make_parallel_view(s, &search);
  ASSERT_TRUE(app.valid()) << app.error;
  ASSERT_TRUE(app.layout);
  const CliResult r =
      json_ok(with_scenario("parallel", path, "--chips 1024 --gpus-per-node 4 --top 1"));
  const QJsonObject sc = r.json["scenario"].toObject();
  EXPECT_DOUBLE_EQ(sc["runs"].toObject()["step_seconds"].toDouble(), app.layout->step_seconds);
  EXPECT_EQ(r.json["overrides"].toArray().size(), 2);
  // A value whose lowest setting means something else is said so.
  const CliResult measured = run_cli(with_scenario("parallel", path, "--non-tensor-gb 3 --top 1"));
  EXPECT_TRUE(measured.out.contains(
      QStringLiteral("Overrides: --non-tensor-gb 3.00 GB (the file: estimated)")))
      << measured.out.toStdString();
  // --days is the Budget planner's, not a flag of parallel.
  expect_usage_error(with_scenario("parallel", path, "--days 3"), QStringLiteral("--days"));
  // The model's dense shape: the job's model, as the panel's.
  Scenario deeper;
  deeper.n_chips = 2048;
  deeper.shape.n_layers = 96;
  deeper.model_name = "Custom";
  const napkin::SearchResult deeper_search = napkin::scenario_layouts(deeper);
  const napkin::ParallelView deeper_app = make_parallel_view(deeper, &deeper_search);
  ASSERT_TRUE(deeper_app.valid() && deeper_app.layout) << deeper_app.error;
  const CliResult layers = json_ok(with_scenario("parallel", path, "--layers 96 --top 1"));
  EXPECT_DOUBLE_EQ(layers.json["scenario"].toObject()["runs"].toObject()["step_seconds"].toDouble(),
                   deeper_app.layout->step_seconds);
}

TEST(CliScenarioFlags, IsoflopsTargetFollowsTheBudgetFlags) {
  QTemporaryDir dir;
  const QString path = write_test_file(dir, "s.json", kScenario);
  const CliResult base = json_ok(with_scenario("isoflops", path, "--max-seconds 30"));
  const CliResult twice = json_ok(with_scenario("isoflops", path, "--max-seconds 30 --chips 4096"));
  ASSERT_TRUE(base.json["target_follows_budget"].toBool());
  EXPECT_NEAR(twice.json["target_flops"].toDouble(), 2 * base.json["target_flops"].toDouble(),
              1e-9 * base.json["target_flops"].toDouble());
  EXPECT_EQ(twice.json["overrides"].toArray().size(), 1);
  // A panel with its own target: the budget's flags change nothing it shows.
  const QString own = write_test_file(dir, "own.json",
                                      R"({"format": "napkin-scenario", "version": 2,
          "isoflops": {"target": {"follows_budget": false, "manual_target_flops": 1e23}}})");
  const QString saved = dir.filePath(QStringLiteral("refused.json"));
  const CliResult refused =
      run_cli(with_scenario("isoflops", own, "--chips 4096") + QStringList{"--save", saved});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_TRUE(refused.err.contains(QStringLiteral("--chips changes nothing")))
      << refused.err.toStdString();
  EXPECT_FALSE(QFile::exists(saved));  // nothing refused is saved
}

}  // namespace

namespace {

TEST(CliScenarioFlags, ServeTakesTheBenchmarkRunsFlags) {
  QTemporaryDir dir;
  const QString path = write_test_file(dir, "s.json", kScenario);
  const CliResult base = json_ok(with_scenario("serve", path, ""));
  EXPECT_EQ(base.json["requests"].toInteger(), 1000);  // the registry's default
  const CliResult r = json_ok(with_scenario("serve", path, "--requests 200 --prompt-spread 64"));
  EXPECT_EQ(r.json["requests"].toInteger(), 200);
  EXPECT_EQ(r.json["overrides"].toArray().size(), 2);
  expect_usage_error(with_scenario("serve", path, "--requests 0"),
                     QStringLiteral("--requests must be a whole number in 1 – 100,000 requests"));
  // The Budget planner does not read the benchmark run.
  expect_usage_error(with_scenario("budget", path, "--requests 200"), QStringLiteral("--requests"));
}

}  // namespace

namespace {

// The inputs the Budget planner's ranges cover take low:likely:high beside
// --scenario too, setting the range; a number clears the file's range, as
// the budget command reads a number.
TEST(CliScenarioFlags, ARangeSetsTheBudgetPlannersRange) {
  QTemporaryDir dir;
  const QString path = write_test_file(dir, "s.json", kScenario);
  Scenario s;
  s.n_chips = 2048;
  s.ranges.mfu = napkin::Spread{0.3, 0.5};
  const napkin::BudgetView app = make_budget_view(s);
  ASSERT_TRUE(app.ranges);
  const CliResult r = json_ok(with_scenario("budget", path, "--mfu 0.3:0.4:0.5"));
  const QJsonObject sc = r.json["scenario"].toObject();
  EXPECT_DOUBLE_EQ(sc["ranges"].toObject()["days"].toObject()["p50"].toDouble(),
                   app.ranges->days.p.p50);
  const QJsonObject o = sc["overrides"].toArray()[0].toObject();
  EXPECT_DOUBLE_EQ(o["range"].toObject()["low"].toDouble(), 0.3);
  EXPECT_DOUBLE_EQ(o["range"].toObject()["high"].toDouble(), 0.5);
  EXPECT_TRUE(o["file_range"].isNull());
  const CliResult text = run_cli(with_scenario("budget", path, "--mfu 0.3:0.4:0.5"));
  EXPECT_TRUE(text.out.contains(
      QStringLiteral("Overrides: --mfu 40 % (range 30 % – 50 %) (the file: 40 %)")))
      << text.out.toStdString();

  const QString ranged = write_test_file(
      dir, "r.json",
      R"({"format": "napkin-scenario", "version": 2, "ranges": {"mfu": {"low": 0.3, "high": 0.45}}})");
  const CliResult point = json_ok(with_scenario("budget", ranged, "--mfu 0.42"));
  EXPECT_TRUE(point.json["scenario"].toObject()["ranges"].isNull());
  expect_usage_error(with_scenario("budget", path, "--mfu 0.5:0.4:0.3"),
                     QStringLiteral("--mfu range must be low:likely:high"));
}

// An input the file leaves unset (the checkpoint write time, derived from the
// storage bandwidth) is replaced by its flag and said as what it was.
TEST(CliScenarioFlags, AnUnsetInputIsSaidAsWhatItIsDerivedFrom) {
  QTemporaryDir dir;
  const QString path = write_test_file(dir, "s.json", kScenario);
  const CliResult text = run_cli(with_scenario("budget", path, "--checkpoint-write-min 5"));
  EXPECT_EQ(text.exit_code, 0) << text.err.toStdString();
  EXPECT_TRUE(text.out.contains(QStringLiteral(
      "Overrides: --checkpoint-write-min 5.00 min (the file: from the storage bandwidth)")))
      << text.out.toStdString();
  const CliResult r = json_ok(with_scenario("budget", path, "--checkpoint-write-min 5"));
  EXPECT_DOUBLE_EQ(r.json["checkpoint_write_min"].toDouble(), 5);
  const QJsonObject o = r.json["scenario"].toObject()["overrides"].toArray()[0].toObject();
  EXPECT_EQ(o["file"].toString(), QStringLiteral("from the storage bandwidth"));
  // Refused alike with and without a scenario, in the registry's range.
  for (const QStringList& w : {with_scenario("budget", path, "--checkpoint-write-min 2e7"),
                               words("budget --checkpoint-write-min 2e7"),
                               words("goodput --hours 100 --chips 1000 "
                                     "--checkpoint-write-min 2e7")}) {
    const CliResult bad = run_cli(w);
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_TRUE(bad.err.contains(QStringLiteral("0 – 10,000,000 min"))) << bad.err.toStdString();
  }
}

}  // namespace

// Issue 22: the model's shape is registered, so --layers, --d-model, --heads
// and the rest change the scenario's model beside --scenario as its controls
// do: the model becomes "Custom", the parameters follow, and a shape the
// file could not hold (KV heads that do not divide the heads) is refused
// naming the flags, never adjusted silently.
TEST(CliScenarioFlags, TheModelsShapeFlagsChangeTheModel) {
  QTemporaryDir dir;
  const QString path = write_test_file(dir, "s.json", kScenario);
  Scenario s;
  s.n_chips = 2048;
  s.shape.n_layers = 96;
  s.shape.n_heads = 48;
  s.model_name = "Custom";
  const napkin::BudgetView app = make_budget_view(s);
  ASSERT_TRUE(app.valid()) << app.error;
  const CliResult r = json_ok(with_scenario("budget", path, "--layers 96 --heads 48"));
  const QJsonObject sc = r.json["scenario"].toObject();
  EXPECT_TRUE(sc["subject"].toString().startsWith(QStringLiteral("Custom on 2,048 × H100")))
      << sc["subject"].toString().toStdString();
  EXPECT_DOUBLE_EQ(sc["memory_per_device_bytes"].toDouble(), app.memory_per_device_bytes());
  const QJsonArray o = sc["overrides"].toArray();
  ASSERT_EQ(o.size(), 2);
  EXPECT_EQ(o[0].toObject()["key"].toString(), QStringLiteral("model.layers"));
  EXPECT_DOUBLE_EQ(o[0].toObject()["file"].toDouble(), 80);

  expect_usage_error(with_scenario("budget", path, "--heads 36"),
                     QStringLiteral("must divide --heads = 36; got 8"));
  expect_usage_error(with_scenario("budget", path, "--layers 100001"),
                     QStringLiteral("--layers must be a whole number in 1 – 100,000 blocks"));
}
