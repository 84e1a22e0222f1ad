#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonValue>
#include <QTemporaryDir>

#include "cli_test_util.h"
#include "roofline_view.h"

namespace {

double num(const QJsonObject& o, const char* key) {
  EXPECT_TRUE(o.contains(key)) << key;
  return o.value(key).toDouble();
}

// The search finds the slice itself: no --chips.
QStringList serve_search(double params) {
  return {"serve", "--params", QString::number(params, 'g', 17), "--chip", "TPU v5e", "--search"};
}

QStringList serve(double params, int chips) {
  return {"serve",
          "--params",
          QString::number(params, 'g', 17),
          "--chip",
          "TPU v5e",
          "--chips",
          QString::number(chips)};
}

const QString kLlama70 = QStringLiteral(NAPKIN_TEST_DATA "/configs/llama-3-70b.json");

}  // namespace

// ------------------------------------------------------------------ quantize

TEST(CliQuantize, TheSeedsExample) {
  // Seed Claim 5: codes [8, 3, 15, 7, 12, 0, 9, 7], max error 0.05.
  const CliResult r = json_ok(
      {"quantize", "--values", "0.12,-0.45,0.88,-0.03,0.51,-0.77,0.20,0.05", "--bits", "4"});
  QJsonArray codes = r.json.value("codes").toArray();
  const int expect[] = {8, 3, 15, 7, 12, 0, 9, 7};
  ASSERT_EQ(codes.size(), 8);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(codes[i].toInteger(), expect[i]) << i;
  EXPECT_NEAR(num(r.json, "scale"), 0.11, 1e-12);
  EXPECT_NEAR(num(r.json, "zero"), -0.77, 1e-12);
  EXPECT_NEAR(num(r.json, "max_error"), 0.05, 1e-12);
  EXPECT_LE(num(r.json, "max_error"), num(r.json, "scale") / 2);
  const CliResult text = run_cli({"quantize", "--values", "0.12,-0.45,0.88", "--bits", "2"});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_TRUE(text.out.contains("<= scale / 2")) << text.out.toStdString();
}

TEST(CliQuantize, TheSeedsEnergyTable) {
  const CliResult r = json_ok({"quantize", "--energy"});
  const QJsonArray rows = r.json.value("rows").toArray();
  ASSERT_EQ(rows.size(), 4);
  const double mj[] = {44800, 22400, 11200, 5600};
  const double dollars[] = {1493, 747, 373, 187};
  for (int i = 0; i < 4; ++i) {
    const QJsonObject row = rows[i].toObject();
    EXPECT_NEAR(num(row, "joules_per_token") * 1000, mj[i], 1e-6);
    EXPECT_NEAR(num(row, "dollars_per_day"), dollars[i], 0.5);
  }
  const CliResult batched = json_ok({"quantize", "--energy", "--batch", "32"});
  const QJsonObject bf16 = batched.json.value("rows").toArray()[1].toObject();
  EXPECT_NEAR(num(bf16, "batched_joules_per_token"), 22.4 / 32, 1e-12);
}

TEST(CliQuantize, BadInput) {
  expect_usage_error({"quantize"}, "--values");
  expect_usage_error({"quantize", "--values", "0.1,0.2", "--bits", "0"}, "--bits");
  expect_usage_error({"quantize", "--values", "0.1,abc"}, "--values");
  expect_usage_error({"quantize", "--values", "0.1", "--nope"}, "--nope");
}

// --------------------------------------------------------------------- serve

TEST(CliServe, IdealReproducesTheSeedsNapkin) {
  // Phase 03 ch. 6 / Claim 14 with the napkin's assumptions.
  struct Row {
    int chips;
    double prefill, decode, total;
  };
  for (const Row row : {Row{1, 5.822, 21.880, 27.952}, Row{4, 1.455, 5.470, 7.176},
                        Row{16, 0.364, 1.368, 1.981}, Row{64, 0.091, 0.342, 0.683}}) {
    const CliResult r = json_ok(serve(70e9, row.chips) + QStringList{"--ideal"});
    EXPECT_NEAR(num(r.json, "prefill_seconds"), row.prefill, 0.0006) << row.chips;
    EXPECT_NEAR(num(r.json, "decode_seconds"), row.decode, 0.0006) << row.chips;
    EXPECT_NEAR(num(r.json, "turn_seconds"), row.total, 0.0011) << row.chips;
    EXPECT_EQ(num(r.json, "comm_seconds_per_step"), 0);
    EXPECT_EQ(r.json.value("layout").toObject().value("tp").toInteger(), row.chips);
  }
}

TEST(CliServe, SearchFindsTheSeedsChipCounts) {
  const std::pair<double, int> rows[] = {{70e9, 64}, {35e9, 32}, {17e9, 16}, {8e9, 8}};
  for (const auto& [n, chips] : rows) {
    const CliResult r = json_ok({"serve", "--params", QString::number(n, 'g', 17), "--chip",
                                 "TPU v5e", "--search", "--budget-s", "1", "--ideal"});
    const QJsonObject best = r.json.value("best").toObject();
    EXPECT_EQ(best.value("layout").toObject().value("chips").toInteger(), chips) << n;
    EXPECT_LE(num(best, "turn_seconds"), 1.0);
    EXPECT_GE(best.value("max_batch").toInteger(), 1);
    EXPECT_GT(r.json.value("layouts").toArray().size(), 10);
  }
}

TEST(CliServe, JsonHasTheIssuesKeys) {
  // A layout, then the search (which picks its own layout: the two do not combine).
  const CliResult r = json_ok({"serve", "--config", kLlama70, "--chip", "H100", "--chips", "8",
                               "--batch", "8", "--ttft-s", "1", "--tpot-s", "0.05"});
  const CliResult searched = json_ok({"serve", "--config", kLlama70, "--chip", "H100", "--batch",
                                      "8", "--search", "--ttft-s", "1", "--tpot-s", "0.05"});
  for (const char* key :
       {"fits", "memory", "prefill_seconds", "decode_step_seconds", "decode_seconds",
        "turn_seconds", "ttft_seconds", "tpot_seconds", "comm_seconds_per_step",
        "tokens_per_second_per_chip", "dollars_per_million_tokens", "joules_per_token",
        "weight_precision", "kv_precision"}) {
    EXPECT_TRUE(r.json.contains(key)) << key;
    EXPECT_TRUE(searched.json.contains(key)) << key;
  }
  for (const char* key : {"best", "layouts", "disaggregation"})
    EXPECT_TRUE(searched.json.contains(key)) << key;
  const QJsonObject mem = r.json.value("memory").toObject();
  for (const char* key : {"weights", "kv", "total"}) EXPECT_TRUE(mem.contains(key)) << key;
  // Llama-3-70B at bf16 on 8 H100: TP 8, 1/8 of 141 GB per chip.
  EXPECT_EQ(r.json.value("layout").toObject().value("tp").toInteger(), 8);
  EXPECT_NEAR(num(mem, "weights"), 70'553'706'496.0 * 2 / 8, 1);
  EXPECT_NEAR(num(mem, "total"), num(mem, "weights") + num(mem, "kv"), 1);
  EXPECT_TRUE(r.json.value("fits").toBool());
  const QJsonObject d = searched.json.value("disaggregation").toObject();
  EXPECT_TRUE(d.contains("winner"));
  EXPECT_GT(d.value("disaggregated_chips").toInteger(), 0);
}

TEST(CliServe, CommunicationMovesTheRightWay) {
  const CliResult on = json_ok(serve(70e9, 16) + QStringList{"--tp", "16"});
  const CliResult off = json_ok(serve(70e9, 16) + QStringList{"--tp", "16", "--no-comm"});
  EXPECT_GT(num(on.json, "decode_step_seconds"), num(off.json, "decode_step_seconds"));
  EXPECT_GT(num(on.json, "prefill_seconds"), num(off.json, "prefill_seconds"));
  EXPECT_GT(num(on.json, "comm_seconds_per_step"), 0);
  EXPECT_EQ(num(off.json, "comm_seconds_per_step"), 0);
}

TEST(CliServe, PrecisionsChangeMemoryAndCost) {
  const QStringList base = {"serve", "--config", kLlama70, "--chip", "H100", "--chips", "8"};
  const CliResult bf16 = json_ok(base);
  const CliResult int4 = json_ok(base + QStringList{"--weight-precision", "int4"});
  const CliResult fp8kv = json_ok(base + QStringList{"--kv-precision", "fp8"});
  const double w16 = num(bf16.json.value("memory").toObject(), "weights");
  EXPECT_NEAR(num(int4.json.value("memory").toObject(), "weights"), w16 * 4.125 / 16, 1);
  EXPECT_LT(num(fp8kv.json.value("memory").toObject(), "kv"),
            0.51 * num(bf16.json.value("memory").toObject(), "kv"));
  EXPECT_LT(num(int4.json, "dollars_per_million_tokens"),
            num(bf16.json, "dollars_per_million_tokens"));
  EXPECT_EQ(int4.json.value("weight_precision").toString(), "int4");
  EXPECT_DOUBLE_EQ(num(int4.json, "bits_per_weight"), 4.125);
}

TEST(CliServe, NoSliceSaysWhy) {
  const CliResult r = json_ok(
      {"serve", "--config", kLlama70, "--chip", "TPU v5e", "--search", "--budget-s", "0.5"});
  EXPECT_TRUE(r.json.value("best").isNull());
  EXPECT_TRUE(r.json.value("reason").toString().contains("no slice of up to 4,096 chips"));
  const CliResult text = run_cli(
      {"serve", "--config", kLlama70, "--chip", "TPU v5e", "--search", "--budget-s", "0.5"});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_TRUE(text.out.contains("smaller model")) << text.out.toStdString();
}

TEST(CliServe, TextReport) {
  // A layout's report, and the search's (the two do not combine).
  const CliResult r = run_cli(serve(70e9, 16) + QStringList{"--budget-s", "2"});
  EXPECT_EQ(r.exit_code, 0) << r.err.toStdString();
  for (const char* s : {"memory per chip", "decode step", "TPOT", "per million tokens"})
    EXPECT_TRUE(r.out.contains(s)) << s << "\n" << r.out.toStdString();
  const CliResult searched = run_cli(serve_search(70e9) + QStringList{"--budget-s", "2"});
  EXPECT_EQ(searched.exit_code, 0) << searched.err.toStdString();
  for (const char* s : {"Search:", "smallest slice", "TPOT", "Energy is", "per million tokens"})
    EXPECT_TRUE(searched.out.contains(s)) << s << "\n" << searched.out.toStdString();
}

TEST(CliServe, BadInputNamesTheFlag) {
  // TP must divide the 64 heads.
  expect_usage_error(serve(70e9, 48) + QStringList{"--tp", "48"}, "--tp");
  expect_usage_error({"serve", "--config", kLlama70, "--chip", "H100", "--chips", "8", "--tp", "3"},
                     "--tp");
  // Unknown precisions.
  expect_usage_error(serve(70e9, 16) + QStringList{"--weight-precision", "fp6"},
                     "--weight-precision");
  expect_usage_error(serve(70e9, 16) + QStringList{"--kv-precision", "int2"}, "--kv-precision");
  // A budget at or below the overhead.
  expect_usage_error(serve_search(70e9) + QStringList{"--budget-s", "0.25"}, "--budget-s");
  expect_usage_error(serve(70e9, 16) + QStringList{"--budget-s", "0.1", "--overhead-s", "0.2"},
                     "--budget-s");
  expect_usage_error(serve_search(70e9) + QStringList{"--ttft-s", "0.2", "--tpot-s", "0.05"},
                     "--ttft-s");
  // Inconsistent or missing layout flags.
  expect_usage_error(serve(70e9, 16) + QStringList{"--tp", "4", "--pp", "2"}, "--chips");
  expect_usage_error(serve(70e9, 16) + QStringList{"--pp", "100"}, "--pp");
  expect_usage_error(serve(70e9, 16) + QStringList{"--ep", "2"}, "--ep");
  // Issue 28, item 13: a layout next to --search is a contradiction, not ignored.
  expect_usage_error(serve(70e9, 8) + QStringList{"--search", "--budget-s", "2"}, "--chips 8");
  expect_usage_error(serve_search(70e9) + QStringList{"--budget-s", "2", "--tp", "4"}, "--tp");
  expect_usage_error({"serve", "--params", "70e9", "--chip", "TPU v5e"}, "--chips");
  expect_usage_error(serve_search(70e9), "--budget-s");
  expect_usage_error({"serve", "--chip", "H100", "--chips", "8"}, "--params");
  expect_usage_error(
      {"serve", "--params", "70e9", "--config", kLlama70, "--chip", "H100", "--chips", "8"},
      "--config");
  expect_usage_error({"serve", "--params", "70e9", "--chip", "Z80", "--chips", "8"}, "chip");
  expect_usage_error(serve(70e9, 16) + QStringList{"--batch", "0"}, "--batch");
  expect_usage_error(serve(70e9, 16) + QStringList{"--pool", "both"}, "--pool");
  expect_usage_error(serve_search(70e9) + QStringList{"--budget-s", "2", "--max-chips", "3000"},
                     "--max-chips");
}

TEST(CliServe, Deterministic) {
  const QStringList args = serve_search(70e9) + QStringList{"--budget-s", "2", "--json"};
  EXPECT_EQ(run_cli(args).out, run_cli(args).out);
}

TEST(CliServe, StatesTheHbmBandwidthAssumed) {
  const QStringList base = {"serve", "--config", kLlama70, "--chip", "H100", "--chips", "8"};
  // Default: the chip's streaming-read fraction (H100: ~3.0 of 3.35 TB/s).
  const CliResult def = json_ok(base);
  const QJsonObject a = def.json.value("assumptions").toObject();
  EXPECT_DOUBLE_EQ(num(a, "hbm_efficiency"), 0.90);
  EXPECT_FALSE(a.value("kv_reads_per_query_head").toBool());
  const CliResult ideal = json_ok(base + QStringList{"--ideal"});
  EXPECT_DOUBLE_EQ(num(ideal.json.value("assumptions").toObject(), "hbm_efficiency"), 1.0);
  const CliResult given = json_ok(base + QStringList{"--hbm-efficiency", "0.5"});
  EXPECT_DOUBLE_EQ(num(given.json.value("assumptions").toObject(), "hbm_efficiency"), 0.5);
  EXPECT_GT(num(given.json, "decode_step_seconds"), num(def.json, "decode_step_seconds"));
  const CliResult pre = json_ok(base + QStringList{"--batch", "32", "--kv-reads-per-query-head"});
  const CliResult min = json_ok(base + QStringList{"--batch", "32"});
  EXPECT_GT(num(pre.json, "decode_step_seconds"), num(min.json, "decode_step_seconds"));
  const CliResult text = run_cli(base);
  EXPECT_EQ(text.exit_code, 0) << text.err.toStdString();
  EXPECT_TRUE(text.out.contains("HBM bandwidth")) << text.out.toStdString();
  EXPECT_TRUE(text.out.contains("3.02 TB/s per chip = 90 % of 3.35 TB/s"))
      << text.out.toStdString();
  EXPECT_TRUE(run_cli(base + QStringList{"--ideal"}).out.contains("the datasheet figure"));
}

// Engines: the preset is named in the JSON, a per-kernel engine is slower
// than the roofline bound on the same layout (each engine's search may pick
// another), a wrong name is a usage error listing the presets.
TEST(CliServe, EnginePresets) {
  const QStringList base = {"serve", "--config", kLlama70, "--chip",  "H100", "--chips",
                            "8",     "--tp",     "8",      "--batch", "32"};
  const CliResult ideal = json_ok(base);
  EXPECT_EQ(ideal.json.value("engine").toString(), "ideal");
  const CliResult trt = json_ok(base + QStringList{"--engine", "tensorrt-llm"});
  EXPECT_EQ(trt.json.value("engine").toString(), "tensorrt-llm");
  EXPECT_GT(num(trt.json, "decode_step_seconds"), num(ideal.json, "decode_step_seconds"));
  expect_usage_error(base + QStringList{"--engine", "tgi"}, "--engine");
  const CliResult help = run_cli({"serve", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* e : {"tensorrt-llm-0.6", "vllm", "sglang", "jetstream", "KV block"})
    EXPECT_TRUE(help.out.contains(e)) << e;
}

// Modes: the JSON keys the issue lists, for static, offline and server.
TEST(CliServe, Modes) {
  const QStringList base = {"serve",        "--config",        kLlama70, "--chip",
                            "H100",         "--chips",         "4",      "--weight-precision",
                            "fp8",          "--kv-precision",  "fp8",    "--engine",
                            "tensorrt-llm", "--prompt-tokens", "1024",   "--decode-tokens",
                            "128",          "--overhead-s",    "0"};
  for (const QStringList& mode :
       {QStringList{"--mode", "static", "--batch", "64"}, QStringList{"--mode", "offline"},
        QStringList{"--mode", "server", "--request-rate", "2", "--requests", "200"}}) {
    const CliResult r = json_ok(base + mode);
    for (const char* key : {"output_tokens_per_second", "output_tokens_per_second_per_chip",
                            "decode_step_seconds", "max_concurrency"})
      EXPECT_GT(num(r.json, key), 0) << key;
    for (const char* key : {"ttft_seconds", "tpot_seconds"}) {
      const QJsonObject o = r.json.value(key).toObject();
      for (const char* q : {"mean", "p50", "p90", "p99"}) EXPECT_GT(num(o, q), 0) << key << q;
    }
    EXPECT_NEAR(num(r.json, "output_tokens_per_second"),
                4 * num(r.json, "output_tokens_per_second_per_chip"), 1e-6);
  }
  expect_usage_error(base + QStringList{"--mode", "online"}, "--mode");
  // The iteration's token budget: a 2,048-token budget under 1,024-token
  // prompts admits fewer prompts an iteration than the preset's 8,192 (the
  // running requests' decode tokens spend it first), and without chunking a
  // prompt larger than what they leave waits.
  const QStringList offline = base + QStringList{"--mode", "offline", "--requests", "400"};
  const double preset = num(json_ok(offline).json, "output_tokens_per_second");
  const double small = num(json_ok(offline + QStringList{"--max-num-tokens", "2048"}).json,
                           "output_tokens_per_second");
  const double serial = num(
      json_ok(offline + QStringList{"--max-num-tokens", "1024", "--chunked-prefill", "off"}).json,
      "output_tokens_per_second");
  EXPECT_LT(small, preset);
  EXPECT_LT(serial, 0.2 * small);
  expect_usage_error(offline + QStringList{"--chunked-prefill", "maybe"}, "--chunked-prefill");
  expect_usage_error(offline + QStringList{"--max-num-tokens", "0"}, "--max-num-tokens");
  expect_usage_error(base + QStringList{"--max-num-tokens", "2048"}, "--max-num-tokens");
  // --emit with a mode: the flags for the requests in flight the run used and
  // its token budget (it was read and silently dropped before).
  const CliResult emitted =
      json_ok(offline +
              QStringList{"--max-num-tokens", "2048", "--chunked-prefill", "on", "--emit", "vllm"});
  const QJsonObject e = emitted.json.value("emit").toObject();
  EXPECT_EQ(e.value("framework").toString(), "vllm");
  const QString text = e.value("text").toString();
  EXPECT_TRUE(text.contains("--max-num-batched-tokens 2048")) << text.toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral("--max-num-seqs %1")
                                .arg(static_cast<qint64>(num(emitted.json, "concurrency")))))
      << text.toStdString();
  const CliResult plain = run_cli(offline + QStringList{"--emit", "tensorrt-llm"});
  EXPECT_EQ(plain.exit_code, 0);
  EXPECT_TRUE(plain.out.contains("Launch flags (tensorrt-llm)")) << plain.out.toStdString();
}

// --memory-fraction: the run's memory setting as its engine reads it. Half
// TensorRT-LLM's free memory holds about half the requests; the vLLM flags
// carry it, TensorRT-LLM's name it as the run-time setting it is.
TEST(CliServe, ARunsMemoryFraction) {
  const QStringList base = {
      "serve",   "--config",           kLlama70, "--chip",         "H100", "--chips",
      "4",       "--weight-precision", "fp8",    "--kv-precision", "fp8",  "--prompt-tokens",
      "2048",    "--decode-tokens",    "2048",   "--overhead-s",   "0",    "--mode",
      "offline", "--requests",         "100"};
  const QStringList trt = base + QStringList{"--engine", "tensorrt-llm"};
  const double preset = num(json_ok(trt).json, "max_concurrency");
  const double half =
      num(json_ok(trt + QStringList{"--memory-fraction", "0.45"}).json, "max_concurrency");
  EXPECT_NEAR(half / preset, 0.5, 0.02);
  for (const char* bad : {"0", "1.5", "-1", "nan", "half"})
    expect_usage_error(trt + QStringList{"--memory-fraction", bad}, "--memory-fraction");
  const QJsonObject vllm =
      json_ok(base + QStringList{"--engine", "vllm", "--memory-fraction", "0.95", "--emit", "vllm"})
          .json.value("emit")
          .toObject();
  EXPECT_TRUE(vllm.value("text").toString().contains("--gpu-memory-utilization 0.95"));
  const CliResult named =
      json_ok(trt + QStringList{"--memory-fraction", "0.95", "--emit", "tensorrt-llm"});
  const QJsonObject e = named.json.value("emit").toObject();
  EXPECT_FALSE(e.value("text").toString().contains("0.95"));
  EXPECT_TRUE(QJsonDocument(e.value("caveats").toArray())
                  .toJson()
                  .contains("kv_cache_free_gpu_memory_fraction 0.95"))
      << QJsonDocument(e).toJson().toStdString();
  const CliResult help = run_cli({"serve", "--help"});
  EXPECT_TRUE(help.out.contains("--memory-fraction")) << help.out.toStdString();
  // The text says whose setting sized the memory; the JSON carries it.
  const QStringList one = {"serve", "--params",          "8e9", "--chip",
                           "H100",  "--chips",           "1",   "--engine",
                           "vllm",  "--memory-fraction", "0.95"};
  const CliResult text = run_cli(one);
  EXPECT_TRUE(text.out.contains("(memory fraction 0.95, the run's)")) << text.out.toStdString();
  EXPECT_DOUBLE_EQ(
      json_ok(one).json.value("assumptions").toObject().value("engine_memory_fraction").toDouble(),
      0.95);
}

// Speculative decoding: a 7B draft for a 70B target wins at batch 1.
TEST(CliServe, SpeculativeDecoding) {
  const QStringList base = {"serve",
                            "--config",
                            kLlama70,
                            "--chip",
                            "H100",
                            "--chips",
                            "8",
                            "--engine",
                            "tensorrt-llm",
                            "--draft-config",
                            QStringLiteral(NAPKIN_TEST_DATA "/configs/llama-2-7b.json"),
                            "--draft-k",
                            "4",
                            "--acceptance",
                            "0.8"};
  const CliResult r = json_ok(base + QStringList{"--tp", "8"});
  const QJsonObject s = r.json.value("speculative").toObject();
  EXPECT_NEAR(num(s, "expected_tokens_per_step"), 3.3616, 1e-9);
  EXPECT_GT(num(s, "speedup"), 1.0);
  EXPECT_LT(num(s, "tpot_seconds"), num(s, "target_step_seconds"));
  expect_usage_error(base + QStringList{"--tp", "8", "--acceptance", "2"}, "--acceptance");
}

// serve --scenario: the benchmark run of a saved scenario's Serving layout
// tab, with the numbers the app shows (the model's view of that scenario);
// serve's other flags do not combine with it.
TEST(CliServe, AScenarioRunsItsServingTabsBenchmark) {
  using namespace napkin;
  QTemporaryDir dir;
  const QString path = write_test_file(dir, "s.napkin.json", R"({"format": "napkin-scenario",
    "version": 2, "serving": {"engine": "vllm", "prompt_tokens": 1024, "context_len": 1024},
    "roofline": {"serving_layout": {"run_mode": "server", "run_request_rate_per_second": 2,
      "run_requests": 300, "run_prompt_spread_tokens": 256}}})");
  Scenario s;
  s.serving.engine = "vllm";
  s.serving.prompt_tokens = 1024;
  s.serving.context_len = 1024;
  ServingLayoutSettings& l = s.roofline.serving_layout;
  l.run_mode = BatchingMode::server;
  l.run_request_rate_per_second = 2;
  l.run_requests = 300;
  l.run_prompt_spread_tokens = 256;
  const ServingPanelView app = make_serving_panel_view(s);
  ASSERT_TRUE(app.run.valid()) << app.run.error;
  const CliResult r = json_ok({QStringLiteral("serve"), QStringLiteral("--scenario"), path});
  EXPECT_EQ(r.json[QStringLiteral("mode")].toString(), QStringLiteral("server"));
  EXPECT_DOUBLE_EQ(r.json[QStringLiteral("output_tokens_per_second_per_chip")].toDouble(),
                   app.run.result.output_tokens_per_second_per_chip);
  EXPECT_DOUBLE_EQ(
      r.json[QStringLiteral("ttft_seconds")].toObject()[QStringLiteral("p99")].toDouble(),
      app.run.result.ttft_seconds.p99);
  expect_usage_error({QStringLiteral("serve"), QStringLiteral("--scenario"), path,
                      QStringLiteral("--chips"), QStringLiteral("4")},
                     QStringLiteral("--chips cannot be combined with --scenario"));
  const CliResult missing =
      run_cli({QStringLiteral("serve"), QStringLiteral("--scenario"), dir.filePath("none.json")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(missing.err.contains(QStringLiteral("none.json"))) << missing.err.toStdString();
}
