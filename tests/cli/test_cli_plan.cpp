// napkin-cli goodput, and the budget's goodput, data, serving, range and
// train-this-model flags (issue 16).
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>

#include "budget_view.h"
#include "cli_test_util.h"
#include "scenario.h"

namespace {

double num(const QJsonObject& o, const char* key) { return o[QString::fromUtf8(key)].toDouble(); }

QJsonObject obj(const QJsonObject& o, const char* key) {
  return o[QString::fromUtf8(key)].toObject();
}

}  // namespace

TEST(CliGoodput, SeedClaim13AsJson) {
  CliResult r = run_cli(
      words("goodput --hours 960 --crashes 200 --restart-min 45 --checkpoint-min 120 --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  ASSERT_TRUE(r.json_ok) << r.out.toStdString();
  EXPECT_NEAR(num(r.json, "goodput"), 0.635, 5e-4);
  EXPECT_NEAR(num(r.json, "goodput_seed"), 0.635, 5e-4);
  EXPECT_NEAR(num(r.json, "lost_hours"), 350.0, 1e-9);
  ASSERT_TRUE(r.json[QStringLiteral("optimal_checkpoint_min")].isDouble());
  EXPECT_EQ(num(r.json, "optimal_checkpoint_min"), 0.0);  // free writes: checkpoint continuously
  r = run_cli(
      words("goodput --hours 960 --crashes 200 --restart-min 10 --checkpoint-min 15 --json"));
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NEAR(num(r.json, "goodput"), 0.939, 5e-4);
  // With a 5-minute write, Young/Daly: √(2 · 5 · 288) = 53.7 minutes.
  r =
      run_cli(words("goodput --hours 960 --crashes 200 --restart-min 45 --checkpoint-min 120 "
                    "--checkpoint-write-min 5 --json --curve"));
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NEAR(num(r.json, "optimal_checkpoint_min"), 53.67, 0.005);
  EXPECT_GT(num(r.json, "goodput_at_optimum"), num(r.json, "goodput"));
  const QJsonObject curve = obj(r.json, "curve");
  EXPECT_EQ(curve[QStringLiteral("interval_min")].toArray().size(),
            curve[QStringLiteral("goodput")].toArray().size());
  EXPECT_GT(curve[QStringLiteral("goodput")].toArray().size(), 100);
}

TEST(CliGoodput, FromARateAndReadable) {
  CliResult r = run_cli(words("goodput --hours 1296 --chips 16384 --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  EXPECT_NEAR(num(r.json, "expected_crashes"), 419.0, 1e-6);  // Llama 3's 54 days
  r = run_cli(words("goodput --hours 960 --crashes 200 --restart-min 45 --checkpoint-min 120"));
  ASSERT_EQ(r.exit_code, 0);
  for (const char* s : {"63.5 %", "0.635", "350.0", "105.0 min"})
    EXPECT_TRUE(r.out.contains(QString::fromUtf8(s))) << s << "\n" << r.out.toStdString();
}

TEST(CliGoodput, BadValuesGiveOneClearMessage) {
  struct Case {
    const char* args;
    const char* needle;
  };
  for (const Case& c :
       {Case{"goodput --hours 960 --crashes -3", "--crashes"},
        Case{"goodput --hours 960 --crashes 3 --restart-min -1", "--restart-min"},
        Case{"goodput --hours 0 --crashes 3", "--hours"},
        Case{"goodput --hours 10 --crashes 3 --interruptions-per-1000-chip-days 1 --chips 8",
             "not both"},
        Case{"goodput --hours 10 --chips 8 --interruptions-per-1000-chip-days -2",
             "--interruptions-per-1000-chip-days"},
        Case{"goodput --hours 10 --crashes 1 --checkpoint-min 5 --checkpoint-write-min 10 "
             "--checkpoint-async",
             "checkpoint-min"}}) {
    const CliResult r = run_cli(words(c.args));
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_TRUE(r.err.contains(QString::fromUtf8(c.needle))) << r.err.toStdString();
    EXPECT_EQ(r.err.count(QLatin1Char('\n')), 1) << r.err.toStdString();
  }
}

TEST(CliBudgetPlan, GoodputDataAndRangesKeys) {
  const CliResult r =
      run_cli(words("budget --chip H100 --chips 1000 --days 30 --mfu 0.3:0.4:0.45 "
                    "--tokens-available 5e11 --restart-min 5:10:60 --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  ASSERT_TRUE(r.json_ok);
  const QJsonObject& j = r.json;
  EXPECT_EQ(j[QStringLiteral("mode")].toString(), QStringLiteral("budget"));
  EXPECT_GT(num(j, "goodput"), 0.97);
  EXPECT_LT(num(j, "goodput"), 1.0);
  EXPECT_NEAR(num(j, "effective_days"), 30 * num(j, "goodput"), 1e-9);
  EXPECT_GT(num(j, "epochs"), 1.0);
  EXPECT_LT(num(j, "effective_tokens"), num(obj(j, "recommended"), "tokens"));
  EXPECT_FALSE(obj(j, "data")[QStringLiteral("chinchilla_fits")].toBool());
  EXPECT_GE(num(obj(j, "data"), "repetition_penalty_nats"), 0.0);
  const QJsonObject ranges = obj(j, "ranges");
  for (const char* k : {"days", "dollars", "energy_kwh", "loss"}) {
    const QJsonObject p = obj(ranges, k);
    EXPECT_LE(num(p, "p10"), num(p, "p50")) << k;
    EXPECT_LE(num(p, "p50"), num(p, "p90")) << k;
  }
  EXPECT_LT(num(obj(ranges, "days"), "p10"), num(obj(ranges, "days"), "p90"));
  const QJsonArray tornado = ranges[QStringLiteral("tornado")].toArray();
  ASSERT_EQ(tornado.size(), 2);
  EXPECT_EQ(tornado[0].toObject()[QStringLiteral("input")].toString(), QStringLiteral("mfu"));
  // The seed's chain is still there: C and N at 100 % goodput.
  EXPECT_NEAR(num(j, "params"), 92.5e9, 0.05e9);
  // Points only: no ranges key.
  const CliResult p = run_cli(words("budget --json"));
  ASSERT_EQ(p.exit_code, 0);
  EXPECT_FALSE(p.json.contains(QStringLiteral("ranges")));
  EXPECT_TRUE(p.json.contains(QStringLiteral("goodput")));
}

TEST(CliBudgetPlan, ReadableSections) {
  const CliResult r = run_cli(words("budget --mfu 0.3:0.4:0.45 --tokens-available 5e11"));
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  for (const char* s : {"Goodput", "Young/Daly", "Data", "best under the limit", "Serving",
                        "Recommended run", "Ranges (triangular, 10,000 draws, seed 1)", "P10",
                        "Tornado", "What I would train", "Crashes:"})
    EXPECT_TRUE(r.out.contains(QString::fromUtf8(s))) << s << "\n" << r.out.toStdString();
  EXPECT_FALSE(r.out.contains(QStringLiteral("nan")));
  EXPECT_FALSE(r.out.contains(QStringLiteral("inf ")));
}

TEST(CliBudgetPlan, TrainThisModel) {
  CliResult r =
      run_cli(words("budget --params 70e9 --tokens 15e12 --chip H100 --chips 1000 "
                    "--interruptions-per-1000-chip-days 0 --checkpoint-write-min 0 "
                    "--json"));
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  const QJsonObject& j = r.json;
  EXPECT_EQ(j[QStringLiteral("mode")].toString(), QStringLiteral("train_model"));
  EXPECT_NEAR(num(j, "flops"), 6.3e24, 1e12);
  EXPECT_NEAR(num(j, "days"), 6.3e24 / (1000 * 990e12 * 0.4 * 86400), 1e-9);
  EXPECT_EQ(num(j, "goodput"), 1.0);
  EXPECT_NEAR(num(j, "rental_dollars"), num(j, "days") * 24 * 1000 * 2.5, 1e-6);
  EXPECT_TRUE(j[QStringLiteral("data_suffice")].toBool());
  EXPECT_EQ(num(j, "epochs"), 1.0);
  EXPECT_GT(num(j, "loss"), 1.8);
  EXPECT_LT(num(j, "loss"), 2.1);
  // With crashes the same model takes longer; with too little data it repeats.
  r =
      run_cli(words("budget --params 70e9 --tokens 15e12 --chips 1000 --tokens-available 5e12 "
                    "--mfu 0.35:0.4:0.45 --json"));
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  EXPECT_GT(num(r.json, "days"), num(r.json, "productive_days"));
  EXPECT_FALSE(r.json[QStringLiteral("data_suffice")].toBool());
  EXPECT_NEAR(num(r.json, "epochs"), 3.0, 1e-12);
  EXPECT_LT(num(r.json, "effective_tokens"), 15e12);
  EXPECT_TRUE(r.json.contains(QStringLiteral("ranges")));
  // From a config.json: an MoE counts its active parameters in 6ND.
  r = run_cli({QStringLiteral("budget"), QStringLiteral("--config"),
               QStringLiteral(NAPKIN_TEST_DATA "/configs/mixtral-8x7b.json"),
               QStringLiteral("--tokens"), QStringLiteral("2e12"), QStringLiteral("--json")});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  EXPECT_EQ(num(r.json, "params"), 46'702'792'704.0);
  EXPECT_LT(num(r.json, "active_params"), 13e9);
  r = run_cli(words("budget --params 70e9 --tokens 15e12"));
  ASSERT_EQ(r.exit_code, 0);
  for (const char* s : {"Train this model", "wall-clock days", "Summary", "optimal checkpoint"})
    EXPECT_TRUE(r.out.contains(QString::fromUtf8(s))) << s << "\n" << r.out.toStdString();
}

TEST(CliBudgetPlan, BadValuesGiveOneClearMessage) {
  struct Case {
    const char* args;
    const char* needle;
  };
  for (const Case& c : {
           Case{"budget --mfu 0.45:0.4:0.3", "--mfu range must be low:likely:high"},
           Case{"budget --mfu 0.3:0.4", "--mfu must be"},
           Case{"budget --mfu 0.3:x:0.5", "--mfu must be"},
           Case{"budget --restart-min -5", "--restart-min"},
           Case{"budget --interruptions-per-1000-chip-days -1",
                "--interruptions-per-1000-chip-days"},
           Case{"budget --interruptions-per-1000-chip-days 5000", "makes no progress"},
           Case{"budget --price 3:2:1", "--price range"},
           Case{"budget --checkpoint-min 0", "--checkpoint-min"},
           Case{"budget --params 7e9 --days 3", "--days is a budget"},
           Case{"budget --params -7", "--params"},
           Case{"budget --range-shape uniform", "--range-shape"},
           Case{"budget --range-shape lognormal --restart-min 0:10:30",
                "restart-min range needs low > 0"},
       }) {
    const CliResult r = run_cli(words(c.args));
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_TRUE(r.err.contains(QString::fromUtf8(c.needle)))
        << c.args << ": " << r.err.toStdString();
    EXPECT_EQ(r.err.count(QLatin1Char('\n')), 1) << r.err.toStdString();
  }
}

// budget --scenario: a saved scenario's Budget planner with the numbers the
// panel shows (the model's view of that scenario): C, the recommended run,
// the panel's checks, the resolved plan, the ranges and the planned run of
// "train this model". The budget's own flags that set no scenario input do
// not combine with it (those that do: test_cli_scenario_flags.cpp).
TEST(CliBudget, AScenarioRunsItsBudgetPlanner) {
  using namespace napkin;
  QTemporaryDir dir;
  const QString budget =
      write_test_file(dir, "b.json", R"({"format": "napkin-scenario", "version": 2,
    "hardware": {"chips": 2048}, "ranges": {"mfu": {"low": 0.3, "high": 0.45}}})");
  Scenario s;
  s.n_chips = 2048;
  s.ranges.mfu = Spread{0.3, 0.45};
  const BudgetView app = make_budget_view(s);
  ASSERT_TRUE(app.valid()) << app.error;
  ASSERT_TRUE(app.ranges);
  CliResult r = json_ok({QStringLiteral("budget"), QStringLiteral("--scenario"), budget});
  EXPECT_DOUBLE_EQ(num(r.json, "flops"), app.report.flops);
  EXPECT_DOUBLE_EQ(num(obj(r.json, "recommended"), "params"), app.report.recommended.run.params);
  EXPECT_EQ(r.json[QStringLiteral("checks")].toArray().size(),
            static_cast<qsizetype>(app.checks.size()));  // the memory check too
  const QJsonObject sc = obj(r.json, "scenario");
  EXPECT_EQ(sc[QStringLiteral("plan_mode")].toString(), QStringLiteral("budget"));
  EXPECT_EQ(obj(sc, "plan")[QStringLiteral("mfu_source")].toString(), QStringLiteral("assumed"));
  EXPECT_DOUBLE_EQ(num(obj(sc, "plan"), "compute_flops"), app.plan.compute_flops);
  EXPECT_TRUE(sc[QStringLiteral("train")].isNull());
  EXPECT_DOUBLE_EQ(num(obj(obj(sc, "ranges"), "days"), "p50"), app.ranges->days.p.p50);

  const QString train =
      write_test_file(dir, "t.json", R"({"format": "napkin-scenario", "version": 2,
    "plan": {"mode": "train_model", "train_tokens": 2e12}})");
  Scenario t;
  t.plan.mode = PlanMode::train_model;
  t.plan.train_tokens = 2e12;
  const BudgetView tv = make_budget_view(t);
  ASSERT_TRUE(tv.train);
  r = json_ok({QStringLiteral("budget"), QStringLiteral("--scenario"), train});
  const QJsonObject run = obj(obj(r.json, "scenario"), "train");
  EXPECT_DOUBLE_EQ(num(run, "tokens"), 2e12);
  EXPECT_DOUBLE_EQ(num(run, "days"), tv.train->wall_clock_days);
  EXPECT_DOUBLE_EQ(num(run, "loss"), tv.train->loss);
  const CliResult text = run_cli({QStringLiteral("budget"), QStringLiteral("--scenario"), train});
  EXPECT_EQ(text.exit_code, 0) << text.err.toStdString();
  EXPECT_TRUE(text.out.contains(QStringLiteral("The planned run (train this model: Llama-3-70B")))
      << text.out.toStdString();
  EXPECT_TRUE(text.out.contains(QStringLiteral("Budget MFU")));

  // A flag of the budget command that is no scenario input or choice.
  expect_usage_error({QStringLiteral("budget"), QStringLiteral("--scenario"), budget,
                      QStringLiteral("--serving-chip"), QStringLiteral("H200")},
                     QStringLiteral("--serving-chip cannot be combined with --scenario"));
  const CliResult missing =
      run_cli({QStringLiteral("budget"), QStringLiteral("--scenario"), dir.filePath("no.json")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(missing.err.contains(QStringLiteral("no.json"))) << missing.err.toStdString();
}
