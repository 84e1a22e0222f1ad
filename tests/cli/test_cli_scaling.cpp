// napkin-cli fit and isoflops, run as a user would.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <cmath>

#include "cli_runner.h"

namespace {

const QString kChinchilla = QStringLiteral(NAPKIN_TEST_DATA) +
                            QStringLiteral("/chinchilla_besiroglu2024/svg_extracted_data.csv");

QStringList chinchilla_fit(const QStringList& extra = {}) {
  QStringList args = {"fit",     "--csv",         kChinchilla,  "--n-col", "Model Size",
                      "--c-col", "Training FLOP", "--max-loss", "3.4469",  "--json"};
  return args + extra;
}

}  // namespace

TEST(CliFit, ChinchillaCsvHuberLog) {
  const CliResult r = run_cli(chinchilla_fit());
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  ASSERT_TRUE(r.json_ok) << r.out.toStdString();
  const QJsonObject& j = r.json;
  for (const char* key : {"E", "A", "alpha", "B", "beta", "objective", "n_points", "n_opt", "d_opt",
                          "loss_at_target"})
    EXPECT_TRUE(j.contains(QLatin1String(key))) << key;
  EXPECT_FALSE(j.contains("ci_low"));
  EXPECT_EQ(j["n_points"].toInt(), 240);
  EXPECT_NEAR(j["objective"].toDouble(), 1.018274e-3, 5e-10);
  EXPECT_NEAR(j["E"].toDouble(), 1.817, 1e-3);
  EXPECT_NEAR(j["A"].toDouble(), 477.8, 1.0);
  EXPECT_NEAR(j["alpha"].toDouble(), 0.3473, 2e-4);
  EXPECT_NEAR(j["B"].toDouble(), 2143.9, 10.0);
  EXPECT_NEAR(j["beta"].toDouble(), 0.3672, 2e-4);
  // The compute-optimal point at the default 1e24 FLOPs spends the budget.
  EXPECT_NEAR(6 * j["n_opt"].toDouble() * j["d_opt"].toDouble() / 1e24, 1.0, 1e-12);
  EXPECT_GT(j["loss_at_target"].toDouble(), j["E"].toDouble());
}

TEST(CliFit, EstimatorsAndTarget) {
  double huber_target_loss = 0;
  for (const char* est : {"huber-log", "ls-log", "ls-linear", "seed-cd"}) {
    const CliResult r = run_cli(chinchilla_fit({"--estimator", est, "--target-flops", "1e25"}));
    ASSERT_EQ(r.exit_code, 0) << est << r.err.toStdString();
    EXPECT_EQ(r.json["estimator"].toString(), QString::fromLatin1(est));
    EXPECT_GT(r.json["objective"].toDouble(), 0) << est;
    EXPECT_NEAR(6 * r.json["n_opt"].toDouble() * r.json["d_opt"].toDouble() / 1e25, 1.0, 1e-12);
    if (QLatin1String(est) == QLatin1String("huber-log"))
      huber_target_loss = r.json["loss_at_target"].toDouble();
    else
      EXPECT_NE(r.json["loss_at_target"].toDouble(), huber_target_loss) << est;
  }
}

TEST(CliFit, BootstrapIsSeededAndDeterministic) {
  const QStringList args = chinchilla_fit({"--bootstrap", "40", "--seed", "3"});
  const CliResult a = run_cli(args), b = run_cli(args);
  ASSERT_EQ(a.exit_code, 0) << a.err.toStdString();
  EXPECT_EQ(a.out, b.out);  // same input ⇒ identical bytes
  const double lo = a.json["ci_low"].toDouble(), hi = a.json["ci_high"].toDouble();
  EXPECT_LT(lo, hi);
  EXPECT_GT(lo, 1.5);
  EXPECT_LT(hi, 2.5);
}

TEST(CliFit, TextReport) {
  const CliResult r = run_cli({"fit", "--csv", kChinchilla, "--n-col", "Model Size", "--c-col",
                               "Training FLOP", "--max-loss", "3.4469"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  EXPECT_TRUE(r.out.contains("240 of 245 rows"));
  EXPECT_TRUE(r.out.contains("nats/token"));
}

TEST(CliFit, UsageErrors) {
  CliResult r = run_cli({"fit", "--json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.contains("--csv"));
  r = run_cli({"fit", "--csv", kChinchilla, "--d-col", "D", "--c-col", "C"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.contains("--d-col"));
  r = run_cli(chinchilla_fit({"--estimator", "mle"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.contains("--estimator"));
  r = run_cli(chinchilla_fit({"--delta", "-1"}));
  EXPECT_EQ(r.exit_code, 2);
  // A column the file does not have: the message names it and the file.
  r = run_cli({"fit", "--csv", kChinchilla, "--c-col", "Training FLOP", "--json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.contains("\"N\"")) << r.err.toStdString();
  EXPECT_TRUE(r.err.contains("svg_extracted_data.csv"));
  EXPECT_EQ(r.out, QString());
  r = run_cli({"fit", "--csv", "/nonexistent/ladder.csv", "--json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.contains("ladder.csv"));
}

TEST(CliIsoflops, DefaultLadder) {
  const CliResult r = run_cli({"isoflops", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  const QJsonArray budgets = r.json["budgets"].toArray();
  ASSERT_EQ(budgets.size(), 5);
  const double expected_c[] = {1e18, 1e19, 1e20, 1e21, 1e22};
  for (int i = 0; i < 5; ++i) {
    const QJsonObject b = budgets[i].toObject();
    EXPECT_DOUBLE_EQ(b["flops"].toDouble(), expected_c[i]);
    EXPECT_NEAR(6 * b["n_opt"].toDouble() * b["d_opt"].toDouble() / expected_c[i], 1.0, 1e-12);
    EXPECT_GT(b["loss"].toDouble(), 1.69);
  }
  EXPECT_NEAR(r.json["a"].toDouble() + r.json["b"].toDouble(), 1.0, 1e-12);
  EXPECT_NEAR(r.json["a"].toDouble(), 0.45, 0.05);
}

TEST(CliIsoflops, NoiseFreeMatchesTheLaw) {
  const CliResult r = run_cli({"isoflops", "--noise", "0", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  EXPECT_NEAR(r.json["a"].toDouble(), 0.4516, 5e-4);  // β/(α+β) for Chinchilla
  EXPECT_NEAR(r.json["b"].toDouble(), 0.5484, 5e-4);
}

TEST(CliIsoflops, BiasTiltsAndBudgetsAndDeterminism) {
  const CliResult clean = run_cli({"isoflops", "--seed", "3", "--json"});
  const CliResult biased =
      run_cli({"isoflops", "--seed", "3", "--bias", "0.05", "--bias-mode", "per_budget", "--json"});
  ASSERT_EQ(biased.exit_code, 0) << biased.err.toStdString();
  EXPECT_LT(biased.json["a"].toDouble(), clean.json["a"].toDouble() - 0.02);
  EXPECT_EQ(run_cli({"isoflops", "--seed", "3", "--json"}).out, clean.out);
  const CliResult three =
      run_cli({"isoflops", "--budgets", "1e19,1e20,1e21", "--noise", "0.001", "--json"});
  ASSERT_EQ(three.exit_code, 0) << three.err.toStdString();
  EXPECT_EQ(three.json["budgets"].toArray().size(), 3);
  EXPECT_DOUBLE_EQ(three.json["budgets"].toArray()[2].toObject()["flops"].toDouble(), 1e21);
  const CliResult text = run_cli({"isoflops"});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_TRUE(text.out.contains("a + b"));
}

TEST(CliIsoflops, UsageErrors) {
  EXPECT_EQ(run_cli({"isoflops", "--bias-mode", "kaplan"}).exit_code, 2);
  EXPECT_EQ(run_cli({"isoflops", "--noise", "-0.1"}).exit_code, 2);
  EXPECT_EQ(run_cli({"isoflops", "--budgets", "1e19"}).exit_code, 2);
  EXPECT_EQ(run_cli({"isoflops", "--budgets", "1e19,abc"}).exit_code, 2);
  EXPECT_EQ(run_cli({"isoflops", "--sizes", "4"}).exit_code, 2);
}

// Strict by default; --skip-bad-rows fits the readable rows and lists the rest.
TEST(CliFit, SkipBadRowsListsEachWithItsLineAndReason) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString csv = dir.filePath(QStringLiteral("runs.csv"));
  {
    QFile in(kChinchilla);
    ASSERT_TRUE(in.open(QIODevice::ReadOnly));
    QByteArray text = in.readAll();
    text.replace("5.005581996196243", "n/a");    // line 2: not a number
    text.append("1,2,#fff,-5,1e20,#fff,2.5\n");  // line 247: a negative size
    text.append("1,2,#fff\n");                   // line 248: ragged
    QFile out(csv);
    ASSERT_TRUE(out.open(QIODevice::WriteOnly));
    out.write(text);
  }
  const QStringList args = {"fit",     "--csv",         csv,          "--n-col", "Model Size",
                            "--c-col", "Training FLOP", "--max-loss", "3.4469",  "--json"};
  CliResult r = run_cli(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.contains("line 2")) << r.err.toStdString();
  r = run_cli(args + QStringList{"--skip-bad-rows"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  EXPECT_EQ(r.json["n_points"].toInt(), 240);  // the row that went was over the cut anyway
  EXPECT_EQ(r.json["rows_skipped"].toInt(), 3);
  const QJsonArray skipped = r.json["skipped"].toArray();
  ASSERT_EQ(skipped.size(), 3);
  EXPECT_EQ(skipped[0].toObject()["line"].toInt(), 2);
  EXPECT_EQ(skipped[0].toObject()["reason"].toString(), QStringLiteral("non-numeric"));
  EXPECT_EQ(skipped[1].toObject()["line"].toInt(), 247);
  EXPECT_EQ(skipped[1].toObject()["reason"].toString(), QStringLiteral("non-positive"));
  EXPECT_EQ(skipped[2].toObject()["reason"].toString(), QStringLiteral("ragged row"));
  r = run_cli({"fit", "--csv", csv, "--n-col", "Model Size", "--c-col", "Training FLOP",
               "--skip-bad-rows"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  EXPECT_TRUE(r.out.contains("line 247, non-positive")) << r.out.toStdString();
}

TEST(CliIsoflops, TargetComputeGivesThePanelsRecommendation) {
  // The IsoFLOPs panel's default ladder and C* = 1e24: the same view, so the
  // same N_opt and D_opt (golden values of the model's isoflops_view test).
  const CliResult r = run_cli({"isoflops", "--target-flops", "1e24", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  EXPECT_NEAR(r.json["n_opt"].toDouble(), 36111018968.262733, 36111018968.262733 * 1e-12);
  EXPECT_NEAR(r.json["d_opt"].toDouble(), 4615396392252.0654, 4615396392252.0654 * 1e-12);
  EXPECT_NEAR(r.json["extrapolation_decades"].toDouble(), 2.0, 1e-12);
  EXPECT_EQ(r.json["skipped"].toArray().size(), 0);
  const CliResult text = run_cli({"isoflops", "--target-flops", "1e24"});
  EXPECT_TRUE(text.out.contains("N_opt = k·C^a")) << text.out.toStdString();
  EXPECT_EQ(run_cli({"isoflops", "--target-flops", "-1"}).exit_code, 2);
}

// fit -o writes the law and its draws; budget --law forecasts with it, names
// it, and its interval flows into the loss and the ranges.
TEST(CliFit, FittedLawDrivesTheBudget) {
  QTemporaryDir dir;
  const QString law = dir.filePath("law.json");
  const CliResult f = run_cli(chinchilla_fit({"--bootstrap", "60", "--seed", "1", "-o", law}));
  ASSERT_EQ(f.exit_code, 0) << f.err.toStdString();
  ASSERT_TRUE(QFile::exists(law));
  const CliResult base = run_cli({"budget", "--json"});
  const CliResult fit = run_cli({"budget", "--json", "--law", law});
  ASSERT_EQ(fit.exit_code, 0) << fit.err.toStdString();
  const QJsonObject l = fit.json["law"].toObject();
  EXPECT_EQ(l["choice"].toString(), "fitted");
  EXPECT_EQ(l["name"].toString(), "the law fitted to svg_extracted_data.csv");
  EXPECT_EQ(l["draws"].toInt(), 60);
  EXPECT_NEAR(l["E"].toDouble(), f.json["E"].toDouble(), 1e-12);
  EXPECT_EQ(base.json["law"].toObject()["choice"].toString(), "replication");
  const double loss = fit.json["recommended"].toObject()["loss"].toDouble();
  EXPECT_NE(loss, base.json["recommended"].toObject()["loss"].toDouble());
  EXPECT_LT(l["loss_low"].toDouble(), loss);
  EXPECT_GT(l["loss_high"].toDouble(), loss);
  EXPECT_TRUE(fit.json["recommendation"].toString().contains(
      "nats under the law fitted to svg_extracted_data.csv (95 % interval"));
  // The draws make the Monte Carlo's loss a range even with every input a point.
  const QJsonObject r = fit.json["ranges"].toObject()["loss"].toObject();
  EXPECT_LT(r["p10"].toDouble(), r["p90"].toDouble());
  // The built-in alternatives by name.
  const CliResult paper = run_cli({"budget", "--json", "--law", "chinchilla_paper"});
  EXPECT_EQ(paper.json["law"].toObject()["choice"].toString(), "chinchilla_paper");
}

TEST(CliFit, ABadLawFileIsOneMessageNamingTheKey) {
  QTemporaryDir dir;
  const QString path = dir.filePath("bad.json");
  QFile file(path);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.write(R"({"format": "napkin-law", "version": 1, "E": 1.8, "A": 480, "alpha": 0.35,
                "B": 2000, "ladder_max_flops": 1e21})");
  file.close();
  const CliResult r = run_cli({"budget", "--law", path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.contains("beta: missing")) << r.err.toStdString();
  EXPECT_EQ(r.err.count('\n'), 1);
}

// The seed's teacher-logit arithmetic: 10T tokens × 256k × 2 bytes = 5.12 EB.
TEST(CliDistill, TeacherLogitStorage) {
  const CliResult r =
      run_cli({"distill", "--tokens", "10e12", "--vocab", "256000", "--top-k", "64", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  EXPECT_DOUBLE_EQ(r.json["logit_storage_bytes"].toDouble(), 5.12e18);
  EXPECT_DOUBLE_EQ(r.json["top_k_storage_bytes"].toDouble(), 10e12 * (64 * 6 + 2));
  const CliResult bad =
      run_cli({"distill", "--tokens", "1e12", "--vocab", "100", "--top-k", "100"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(bad.err.contains("--top-k")) << bad.err.toStdString();
}

// Busbridge et al. 2025's split: with the paper's Table 6 constants and its
// supervised law by default, the best split is searched and the answer named;
// --distill-law and --law replace them, and the note says so.
TEST(CliDistill, TeacherStudentSplit) {
  const CliResult r =
      run_cli({"distill", "--student-params", "1e9", "--teacher-params", "7e9", "--compute", "1e23",
               "--vocab", "256000", "--top-k", "64", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  EXPECT_TRUE(r.json["searched"].toBool());
  EXPECT_FALSE(r.json["best_split"].isNull());
  // Table 6's supervised law: E = 1.220, and the student alone on 1e23 FLOPs.
  EXPECT_GT(r.json["teacher_loss"].toDouble(), 1.22);
  EXPECT_NEAR(
      r.json["student_alone_loss"].toDouble(),
      1.22 + std::pow(3355 * std::pow(1e9, -0.408) + 18186 * std::pow(1e23 / 6e9, -0.431), 0.452),
      1e-9);
  EXPECT_GT(r.json["student_loss"].toDouble(), r.json["teacher_loss"].toDouble());
  EXPECT_DOUBLE_EQ(r.json["logit_storage_bytes"].toDouble(),
                   r.json["tokens"].toDouble() * 256000 * 2);
  EXPECT_TRUE(r.json["note"].toString().contains("Table 6"));
  EXPECT_EQ(r.json["distill_law"].toObject()["c1"].toDouble(), 522.6);
  EXPECT_FALSE(r.json["train"].toString().isEmpty());
  const QJsonObject split = r.json["split"].toObject();
  EXPECT_NEAR(split["teacher_train_fraction"].toDouble() +
                  split["teacher_inference_fraction"].toDouble() +
                  split["student_fraction"].toDouble(),
              1.0, 1e-12);

  const CliResult law =
      run_cli({"distill", "--student-params", "1e9", "--teacher-params", "7e9", "--compute", "1e23",
               "--distill-law", "0.5,1,1,1,100,1000,0.5,0.5,1", "--json"});
  ASSERT_EQ(law.exit_code, 0) << law.err.toStdString();
  EXPECT_TRUE(law.json["searched"].toBool());
  EXPECT_FALSE(law.json["best_split"].isNull());
  EXPECT_GT(law.json["student_loss"].toDouble(), law.json["teacher_loss"].toDouble());
  EXPECT_TRUE(law.json["logit_storage_bytes"].isNull());  // no vocabulary given
  EXPECT_FALSE(law.json["train"].toString().isEmpty());
  EXPECT_TRUE(law.json["note"].toString().contains("constants given"));
  // The plan's law for L_T and the student's own: named in the note.
  const CliResult plan =
      run_cli({"distill", "--student-params", "1e9", "--teacher-params", "7e9", "--compute", "1e23",
               "--law", "replication", "--tokens", "2e10", "--json"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err.toStdString();
  EXPECT_FALSE(plan.json["searched"].toBool());
  EXPECT_DOUBLE_EQ(plan.json["tokens"].toDouble(), 2e10);
  EXPECT_GT(plan.json["teacher_loss"].toDouble(), 1.69);
  EXPECT_TRUE(plan.json["note"].toString().contains("not the supervised law"));

  const CliResult both = run_cli({"distill", "--student-params", "1e9", "--teacher-params", "7e9",
                                  "--teacher-config", "x.json", "--compute", "1e23"});
  EXPECT_EQ(both.exit_code, 2);
  const CliResult spent = run_cli({"distill", "--student-params", "1e9", "--teacher-params", "7e9",
                                   "--compute", "1e23", "--tokens", "1e13"});
  EXPECT_EQ(spent.exit_code, 2);
  EXPECT_TRUE(spent.err.contains("--tokens")) << spent.err.toStdString();
  const CliResult short_law = run_cli({"distill", "--student-params", "1e9", "--teacher-params",
                                       "7e9", "--compute", "1e23", "--distill-law", "1,2"});
  EXPECT_EQ(short_law.exit_code, 2);
  EXPECT_TRUE(short_law.err.contains("--distill-law")) << short_law.err.toStdString();
}

// isoflops --scenario: a saved scenario's IsoFLOPs panel. Its loaded ladder
// is fitted as fit --csv fits the same file with the same options, at the C*
// the Budget planner's plan gives (budget --scenario), with the panel's
// bootstrap; the synthetic flags do not combine with it.
TEST(CliIsoflops, AScenarioRunsItsIsoflopsPanel) {
  const QString scenario =
      QStringLiteral(NAPKIN_TEST_DATA) + QStringLiteral("/scenarios/chinchilla-ladder.napkin.json");
  const CliResult r = run_cli({"isoflops", "--scenario", scenario, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  ASSERT_TRUE(r.json_ok) << r.out.toStdString();
  const CliResult plan = run_cli({"budget", "--scenario", scenario, "--json"});
  ASSERT_TRUE(plan.json_ok) << plan.err.toStdString();
  const double c = plan.json["scenario"].toObject()["plan"].toObject()["compute_flops"].toDouble();
  EXPECT_DOUBLE_EQ(r.json["target_flops"].toDouble(), c);
  EXPECT_TRUE(r.json["target_follows_budget"].toBool());

  const CliResult fit = run_cli(chinchilla_fit({"--target-flops", QString::number(c, 'g', 17)}));
  ASSERT_TRUE(fit.json_ok) << fit.err.toStdString();
  const QJsonObject law = r.json["fit"].toObject();
  for (const char* k : {"E", "A", "alpha", "B", "beta"})
    EXPECT_NEAR(law[k].toDouble(), fit.json[k].toDouble(), 1e-9 * fit.json[k].toDouble()) << k;
  EXPECT_NEAR(r.json["n_opt_law"].toDouble(), fit.json["n_opt"].toDouble(),
              1e-9 * fit.json["n_opt"].toDouble());
  // Besiroglu et al. 2024's replication: E 1.82, α 0.348, β 0.366.
  EXPECT_NEAR(law["E"].toDouble(), 1.82, 0.01);
  EXPECT_NEAR(law["alpha"].toDouble(), 0.348, 0.005);
  EXPECT_NEAR(law["beta"].toDouble(), 0.366, 0.005);
  const QJsonObject boot = r.json["bootstrap"].toObject();
  EXPECT_EQ(boot["refitted"].toInt() + boot["skipped"].toInt(), boot["resamples"].toInt());
  EXPECT_GT(boot["refitted"].toInt(), 0);
  const QJsonObject iv = r.json["loss_interval"].toObject();
  EXPECT_LT(iv["low"].toDouble(), r.json["loss"].toDouble());
  EXPECT_GT(iv["high"].toDouble(), r.json["loss"].toDouble());
  EXPECT_TRUE(r.json["optimum_from_law"].toBool());  // the CSV has no budget labels

  const CliResult text = run_cli({"isoflops", "--scenario", scenario});
  EXPECT_EQ(text.exit_code, 0) << text.err.toStdString();
  EXPECT_TRUE(text.out.contains("240 runs loaded from")) << text.out.toStdString();
  EXPECT_TRUE(text.out.contains("loss (fitted law)")) << text.out.toStdString();
  const CliResult both = run_cli({"isoflops", "--scenario", scenario, "--seed", "3"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_TRUE(both.err.contains("--seed cannot be combined with --scenario"))
      << both.err.toStdString();
}
