#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QTemporaryDir>

#include "cli_test_util.h"
#include "parallel_view.h"
#include "plan.h"
#include "scenario.h"

namespace {

CliResult parallel_json(QStringList args) {
  args.prepend(QStringLiteral("parallel"));
  args.append(QStringLiteral("--json"));
  CliResult r = run_cli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err.toStdString();
  EXPECT_TRUE(r.json_ok) << r.out.toStdString();
  return r;
}

// A usage error: exit 2 and one stderr line naming `needle`.
void expect_parallel_usage_error(QStringList args, const QString& needle) {
  args.prepend(QStringLiteral("parallel"));
  const CliResult r = run_cli(args);
  EXPECT_EQ(r.exit_code, 2) << r.out.toStdString();
  EXPECT_TRUE(r.err.contains(needle)) << r.err.toStdString();
  EXPECT_EQ(r.err.trimmed().count('\n'), 0) << r.err.toStdString();
}

bool is_integer(const QJsonValue& v) {
  return v.isDouble() && v.toDouble() == static_cast<double>(v.toInteger());
}

// The schema of issue 14: every key, bytes as integers, times in seconds that
// add up to the step.
void expect_layout_schema(const QJsonObject& l) {
  for (const char* k :
       {"tp", "pp", "vpp", "dp", "cp", "ep", "zero", "micro_batch", "recompute_layers"})
    EXPECT_TRUE(is_integer(l[k])) << k;
  EXPECT_TRUE(l["sequence_parallel"].isBool());
  EXPECT_TRUE(l["recompute"].isString());
  EXPECT_TRUE(l["fits"].isBool());
  EXPECT_TRUE(l["reason"].isString());
  const QJsonObject m = l["memory"].toObject();
  qint64 sum = 0;
  for (const char* k : {"weights", "grads", "optimizer", "activations", "buffers", "runtime",
                        "comm_buffers", "fragmentation"}) {
    EXPECT_TRUE(is_integer(m[k])) << k;
    sum += m[k].toInteger();
  }
  EXPECT_EQ(m["total"].toInteger(), sum);
  EXPECT_TRUE(is_integer(m["peak_stage"]));
  const QJsonObject t = l["time"].toObject();
  double parts = 0;
  for (const char* k : {"compute", "recompute", "tp_comm", "pp_bubble", "pp_comm", "dp_comm",
                        "ep_comm", "cp_comm", "optimizer"}) {
    ASSERT_TRUE(t[k].isDouble()) << k;
    EXPECT_GE(t[k].toDouble(), 0) << k;
    parts += t[k].toDouble();
  }
  EXPECT_NEAR(parts, l["step_seconds"].toDouble(), 1e-9 * parts);
  for (const char* k : {"tokens_per_second_per_chip", "mfu", "hfu", "days"})
    EXPECT_GT(l[k].toDouble(), 0) << k;
  EXPECT_EQ(l["tp"].toInteger() * l["pp"].toInteger() * l["dp"].toInteger() * l["cp"].toInteger(),
            l["tp"].toInteger() * l["pp"].toInteger() * l["dp"].toInteger() * l["cp"].toInteger());
}

TEST(CliParallel, SearchPrintsTheRankedLayouts) {
  const CliResult r = parallel_json({"--preset", "Llama-3-70B", "--chips", "256", "--seq", "8192",
                                     "--global-batch", "256", "--top", "5"});
  const QJsonArray layouts = r.json["layouts"].toArray();
  ASSERT_EQ(layouts.size(), 5);
  ASSERT_TRUE(r.json["best"].isObject());
  EXPECT_EQ(r.json["best"].toObject(), layouts[0].toObject());
  double prev = 0;
  for (const QJsonValue& v : layouts) {
    const QJsonObject l = v.toObject();
    expect_layout_schema(l);
    EXPECT_TRUE(l["fits"].toBool());
    EXPECT_EQ(l["tp"].toInteger() * l["pp"].toInteger() * l["dp"].toInteger() * l["cp"].toInteger(),
              256);
    EXPECT_GE(l["step_seconds"].toDouble(), prev);
    prev = l["step_seconds"].toDouble();
  }
}

TEST(CliParallel, HelpListsEverySoftwarePresetAndEachRuns) {
  // The usage line is built from the model library's presets: a new preset
  // shows in the help and runs without a second list to update.
  const CliResult help = run_cli({"parallel", "--help"});
  ASSERT_EQ(help.exit_code, 0);
  for (const char* name : {"modern", "megatron-deepspeed-bf16", "fsdp|fsdp-compile", "llama3"})
    EXPECT_TRUE(help.out.contains(QString::fromLatin1(name))) << name;
  for (const char* name : {"fsdp", "fsdp-compile", "megatron-deepspeed-bf16"}) {
    const CliResult r = parallel_json({"--preset", "Llama-3-8B", "--chips", "16", "--global-batch",
                                       "32", "--software", name, "--top", "1"});
    EXPECT_EQ(r.json["software"].toString(), QString::fromLatin1(name));
  }
}

TEST(CliParallel, OneLayoutEvenIfItDoesNotFit) {
  // Llama-3-70B on one node: 70B × 18 bytes of state over 8 ranks is ~160 GB.
  const CliResult r = parallel_json({"--preset", "Llama-3-70B", "--chips", "8", "--global-batch",
                                     "8", "--layout", "tp=8,pp=1,zero=0,mb=1,recompute=full"});
  const QJsonObject best = r.json["best"].toObject();
  expect_layout_schema(best);
  EXPECT_FALSE(best["fits"].toBool());
  EXPECT_TRUE(best["reason"].toString().contains("HBM")) << best["reason"].toString().toStdString();
  EXPECT_EQ(best["dp"].toInteger(), 1);
  EXPECT_EQ(best["recompute"].toString(), "full");
  EXPECT_EQ(r.json["layouts"].toArray().size(), 1);
}

TEST(CliParallel, AnAmdChipsRuntimeIsRocms) {
  const QStringList args = {
      "--preset", "Llama-3-8B",     "--chip", "MI300X",   "--chips",
      "8",        "--global-batch", "16",     "--layout", "tp=1,pp=1,zero=1,mb=1"};
  const CliResult j = parallel_json(args);
  EXPECT_TRUE(j.json["best"].toObject()["memory"].toObject()["non_tensor_rocm"].toBool());
  const CliResult text = run_cli(QStringList{"parallel"} + args);
  ASSERT_EQ(text.exit_code, 0) << text.err.toStdString();
  EXPECT_TRUE(text.out.contains(QStringLiteral("HIP runtime, kernels")));
  EXPECT_TRUE(text.out.contains(QStringLiteral("RCCL buffers")));
  EXPECT_FALSE(text.out.contains(QStringLiteral("CUDA"))) << text.out.toStdString();
}

TEST(CliParallel, NothingFitsGivesNullBest) {
  const CliResult r = parallel_json(
      {"--preset", "Llama-3-70B", "--chips", "8", "--global-batch", "8", "--top", "3"});
  EXPECT_TRUE(r.json["best"].isNull());
  const QJsonArray layouts = r.json["layouts"].toArray();
  ASSERT_EQ(layouts.size(), 3);
  for (const QJsonValue& v : layouts) EXPECT_FALSE(v.toObject()["fits"].toBool());
}

TEST(CliParallel, ShapeFromFlagsAndFromConfig) {
  const CliResult flags = parallel_json(
      {"--layers", "32", "--d-model", "4096", "--d-ff", "14336", "--heads", "32", "--kv-heads", "8",
       "--vocab", "128256", "--chips", "64", "--global-batch", "128", "--layout", "tp=2,pp=1"});
  const CliResult config =
      parallel_json({"--config", NAPKIN_TEST_DATA "/configs/llama-3-8b.json", "--chips", "64",
                     "--global-batch", "128", "--layout", "tp=2,pp=1"});
  EXPECT_DOUBLE_EQ(flags.json["best"].toObject()["step_seconds"].toDouble(),
                   config.json["best"].toObject()["step_seconds"].toDouble());
}

TEST(CliParallel, MoeLayoutWithExpertParallelism) {
  const CliResult r = parallel_json({"--preset", "Mixtral-8x7B", "--chips", "64", "--seq", "4096",
                                     "--global-batch", "64", "--layout", "tp=1,pp=1,ep=8"});
  const QJsonObject best = r.json["best"].toObject();
  expect_layout_schema(best);
  EXPECT_EQ(best["ep"].toInteger(), 8);
  EXPECT_GT(best["time"].toObject()["ep_comm"].toDouble(), 0);
}

TEST(CliParallel, ReadableReport) {
  const CliResult r = run_cli({"parallel", "--preset", "Llama-3-8B", "--chips", "64",
                               "--global-batch", "128", "--top", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  EXPECT_TRUE(r.out.contains("Best:")) << r.out.toStdString();
  EXPECT_TRUE(r.out.contains("MFU (model FLOPs)"));
  EXPECT_TRUE(r.out.contains("pipeline bubble"));
  EXPECT_FALSE(r.out.contains("nan"));
  EXPECT_FALSE(r.out.contains("inf"));
}

TEST(CliParallel, BadInputIsOneClearError) {
  expect_parallel_usage_error({"--preset", "Llama-3-70B", "--chips", "0"}, "--chips");
  expect_parallel_usage_error(
      {"--preset", "Llama-3-70B", "--chips", "1024", "--layout", "tp=8,pp=3"},
      "must divide --chips 1024");
  expect_parallel_usage_error(
      {"--preset", "Llama-3-70B", "--chips", "1024", "--layout", "tp=8,dp=4"},
      "must equal --chips 1024");
  expect_parallel_usage_error({"--preset", "Llama-3-70B", "--chips", "1024", "--layout", "tp=128"},
                              "tp (tensor-parallel ranks) must be at most heads = 64");
  expect_parallel_usage_error({"--preset", "Llama-3-70B", "--chips", "1024", "--layout", "pp=128"},
                              "pp (pipeline stages) must be at most layers = 80");
  expect_parallel_usage_error(
      {"--preset", "Llama-3-70B", "--chips", "1024", "--layout", "tp=8,mb=3"}, "--global-batch");
  expect_parallel_usage_error({"--preset", "Nope"}, "--preset must be one of");
  expect_parallel_usage_error({"--preset", "Llama-3-70B", "--software", "old"}, "--software");
  expect_parallel_usage_error({"--preset", "Llama-3-70B", "--chip", "Z100"}, "chip must be one of");
  expect_parallel_usage_error({"--preset", "Llama-3-70B", "--config", "x.json"},
                              "--preset excludes --config and --model-dir");
  expect_parallel_usage_error({"--layers", "32"}, "--d-model");
  // The shape by hand is params': the same checks and flags.
  expect_parallel_usage_error({"--layers", "32", "--d-model", "4096", "--d-ff", "11008", "--heads",
                               "32", "--vocab", "32000", "--top-k", "2"},
                              "--top-k needs --experts E");
}

// parallel reads a shape by hand as params does: MLA, norms and multi-token
// prediction too (it took fewer flags in a parser of its own before).
TEST(CliParallel, TheShapeByHandIsParams) {
  const QStringList shape{"--layers",  "32",
                          "--d-model", "4096",
                          "--d-ff",    "11008",
                          "--heads",   "32",
                          "--vocab",   "32000",
                          "--chips",   "64",
                          "--layout",  "tp=8,pp=1,vpp=1,cp=1,zero=1,mb=1,sp=on,recompute=selective",
                          "--json"};
  auto weights = [&](const QStringList& more) {
    const CliResult r = run_cli(QStringList{"parallel"} + shape + more);
    EXPECT_EQ(r.exit_code, 0) << r.err.toStdString();
    return r.json["best"].toObject()["memory"].toObject()["weights"].toDouble();
  };
  const double gqa = weights({});
  const double mla = weights({"--mla", "0,512,128,64,128"});
  EXPECT_GT(gqa, 0);
  EXPECT_NE(mla, gqa);
  EXPECT_GT(weights({"--mtp", "1"}), gqa);
}

}  // namespace

namespace {

double best_step(const QStringList& extra) {
  QStringList args{
      "--preset",       "Llama-3-8B", "--chips",  "64",
      "--global-batch", "128",        "--layout", "tp=1,pp=1,dp=64,zero=3,mb=2,recompute=full"};
  args += extra;
  return parallel_json(args).json["best"].toObject()["step_seconds"].toDouble();
}

}  // namespace

TEST(CliParallel, EpFoldedOverTpAsMegatronBridgeRunsQwen3) {
  // The H100 recipe of Qwen3-235B-A22B: TP 2, PP 8, EP 32 on 256 GPUs leaves
  // DP 16, so the experts cannot also split over TP; the search folds EP over
  // TP (etp 1) and says it searched that axis.
  const CliResult r = parallel_json(
      {"--preset", "Qwen3-235B-A22B", "--chips", "256", "--seq", "4096", "--global-batch", "2048",
       "--software", "megatron-core-fp8", "--layout", "tp=2,pp=8,ep=32,mb=1", "--top", "3"});
  QStringList searched;
  for (const QJsonValue& v : r.json["searched_axes"].toArray()) searched << v.toString();
  EXPECT_TRUE(searched.contains(QStringLiteral("etp")));
  const QJsonObject best = r.json["best"].toObject();
  expect_layout_schema(best);
  EXPECT_EQ(best["ep"].toInteger(), 32);
  EXPECT_EQ(best["etp"].toInteger(), 1);
  EXPECT_EQ(best["dp"].toInteger(), 16);
  // Naming the experts' TP as TP's own: refused with the way out.
  expect_parallel_usage_error(
      {"--preset", "Qwen3-235B-A22B", "--chips", "256", "--seq", "4096", "--global-batch", "2048",
       "--layout", "tp=2,pp=8,vpp=1,ep=32,etp=2,zero=1,mb=1,recompute=none"},
      QStringLiteral("etp=1"));
}

TEST(CliParallel, ExpertDispatchFlag) {
  // Qwen3-30B-A3B with EP 16 over two nodes: the flex dispatcher (HybridEP)
  // sends each token over InfiniBand once, not once per remote expert.
  const QStringList base{"--preset",       "Qwen3-30B-A3B",
                         "--chips",        "16",
                         "--seq",          "4096",
                         "--global-batch", "1024",
                         "--layout",       "tp=1,pp=1,cp=1,ep=16,zero=1,mb=1,recompute=none"};
  const double a2a = parallel_json(base).json["best"].toObject()["step_seconds"].toDouble();
  const double flex = parallel_json(base + QStringList{"--ep-dispatch", "flex"})
                          .json["best"]
                          .toObject()["step_seconds"]
                          .toDouble();
  EXPECT_GT(a2a, 0);
  EXPECT_LT(flex, a2a);
  const QJsonArray changes =
      parallel_json(base + QStringList{"--ep-dispatch", "flex"}).json["software_changes"].toArray();
  ASSERT_EQ(changes.size(), 1);
  EXPECT_EQ(changes.at(0).toString(), QStringLiteral("flex expert dispatch"));
  EXPECT_TRUE(parallel_json(base).json["software_changes"].toArray().isEmpty());
  expect_parallel_usage_error(base + QStringList{"--ep-dispatch", "deepep"}, "ep-dispatch");
}

TEST(CliParallel, PartialRecomputationIsALayoutValue) {
  // Megatron's block method: the first 3 of each chunk's layers recompute.
  const CliResult r =
      parallel_json({"--preset", "Llama-3-70B", "--chips", "64", "--seq", "8192", "--global-batch",
                     "128", "--layout", "tp=4,pp=8,recompute=full:3", "--top", "2"});
  const QJsonObject best = r.json["best"].toObject();
  expect_layout_schema(best);
  EXPECT_EQ(best["recompute"].toString(), QStringLiteral("full"));
  EXPECT_EQ(best["recompute_layers"].toInteger(), 3);
  EXPECT_GT(best["time"].toObject()["recompute"].toDouble(), 0);
  EXPECT_EQ(best["recompute_modules"].toString(), QString());
  const QJsonObject sel =
      parallel_json({"--preset", "Llama-3-70B", "--chips", "64", "--seq", "8192", "--global-batch",
                     "128", "--layout", "tp=4,pp=8,recompute=selective:mlp+layernorm", "--top",
                     "1"})
          .json["best"]
          .toObject();
  EXPECT_EQ(sel["recompute"].toString(), QStringLiteral("selective"));
  EXPECT_EQ(sel["recompute_modules"].toString(), QStringLiteral("layernorm+mlp"));
  expect_parallel_usage_error(
      {"--preset", "Llama-3-70B", "--chips", "64", "--layout", "tp=4,pp=8,recompute=selective:moe"},
      "mla_up_proj");
  expect_parallel_usage_error(
      {"--preset", "Llama-3-70B", "--chips", "64", "--layout", "tp=4,pp=8,recompute=full:0"},
      "full:N");
  expect_parallel_usage_error(
      {"--preset", "Llama-3-70B", "--chips", "64", "--seq", "8192", "--global-batch", "128",
       "--layout", "tp=4,pp=8,vpp=1,cp=1,zero=1,mb=1,sp=on,recompute=full:10"},
      "write recompute=full");
}

TEST(CliParallel, PartialLayoutSearchesTheAxesItLeavesOut) {
  // Llama 3 405B's published layout (Dubey et al. 2024, Table 4): TP 8, CP 1,
  // PP 16, DP 128 on 16,384 H100; 126 layers do not divide into 16 stages.
  const CliResult r =
      parallel_json({"--layers",       "126",   "--d-model", "16384",
                     "--d-ff",         "53248", "--heads",   "128",
                     "--kv-heads",     "8",     "--vocab",   "128256",
                     "--chips",        "16384", "--seq",     "8192",
                     "--global-batch", "2048",  "--layout",  "tp=8,pp=16,cp=1,dp=128",
                     "--top",          "3"});
  QStringList searched;
  for (const QJsonValue& v : r.json["searched_axes"].toArray()) searched << v.toString();
  // ZeRO's group too: Megatron Core's distributed optimizer runs in instances.
  EXPECT_EQ(searched, (QStringList{"vpp", "zero", "mb", "recompute", "shard"}));
  const QJsonObject best = r.json["best"].toObject();
  EXPECT_TRUE(best["fits"].toBool());
  EXPECT_EQ(best["tp"].toInteger(), 8);
  EXPECT_EQ(best["pp"].toInteger(), 16);
  EXPECT_EQ(best["dp"].toInteger(), 128);
  EXPECT_GT(best["vpp"].toInteger(), 1);  // interleaved, with uneven chunks
  // A complete layout is evaluated as given: nothing searched.
  const CliResult one =
      parallel_json({"--preset", "Llama-3-8B", "--chips", "64", "--global-batch", "128", "--layout",
                     "tp=2,pp=2,vpp=1,zero=1,mb=1,recompute=none"});
  EXPECT_TRUE(one.json["searched_axes"].toArray().isEmpty());
  EXPECT_EQ(one.json["layouts"].toArray().size(), 1);
  EXPECT_EQ(one.json["best"].toObject()["shard"].toInteger(), 16);  // all of DP × CP
  // Hybrid sharding named: evaluated as given, the group in the JSON.
  const CliResult hsdp =
      parallel_json({"--preset", "Llama-3-8B", "--chips", "64", "--global-batch", "128", "--layout",
                     "tp=2,pp=2,vpp=1,zero=1,shard=8,mb=1,recompute=none"});
  EXPECT_TRUE(hsdp.json["searched_axes"].toArray().isEmpty());
  EXPECT_EQ(hsdp.json["best"].toObject()["shard"].toInteger(), 8);
  // A partial layout that names it keeps it.
  const CliResult kept = parallel_json({"--preset", "Llama-3-8B", "--chips", "64", "--global-batch",
                                        "128", "--layout", "tp=2,shard=8", "--top", "3"});
  for (const QJsonValue& v : kept.json["layouts"].toArray())
    EXPECT_EQ(v.toObject()["shard"].toInteger(), 8);
}

TEST(CliParallel, TheClusterIsAnInput) {
  // ZeRO-3 over 64 GPUs gathers the weights across nodes: a quarter of the
  // scale-out bandwidth makes the step slower, a 72-GPU NVLink domain faster.
  const double dgx = best_step({});
  const double thin = best_step({"--scale-out-gb-per-s", "12.5"});
  const double nvl72 = best_step({"--cluster", "gb200-nvl72"});
  EXPECT_GT(thin, dgx);
  EXPECT_LT(nvl72, dgx);
  const CliResult r = parallel_json({"--preset", "Llama-3-8B", "--chips", "64", "--global-batch",
                                     "128", "--gpus-per-node", "4", "--scale-up-gb-per-s", "100",
                                     "--scale-out-gb-per-s", "25", "--top", "1"});
  const QJsonObject c = r.json["cluster"].toObject();
  EXPECT_EQ(c["gpus_per_node"].toInteger(), 4);
  EXPECT_DOUBLE_EQ(c["scale_up_gb_per_s"].toDouble(), 100);
  EXPECT_DOUBLE_EQ(c["scale_out_gb_per_s"].toDouble(), 25);
  EXPECT_TRUE(c["source"].toString().startsWith("custom")) << c["source"].toString().toStdString();
  // A preset named alone keeps its own source line; an override makes it custom.
  auto source_of = [](const QStringList& extra) {
    QStringList args{"--preset",       "Llama-3-8B", "--chips", "64",
                     "--global-batch", "128",        "--top",   "1"};
    return parallel_json(args + extra).json["cluster"].toObject()["source"].toString();
  };
  EXPECT_TRUE(source_of({"--cluster", "gb200-nvl72"}).contains("NVL72 datasheet"));
  EXPECT_TRUE(
      source_of({"--cluster", "gb200-nvl72", "--gpus-per-node", "36"}).startsWith("custom"));
  // The text names a TPU's domain and keeps the figure's second decimal.
  const CliResult tpu = run_cli({"parallel", "--preset", "Llama-3-8B", "--chip", "TPU v5p",
                                 "--chips", "64", "--global-batch", "128", "--top", "1"});
  EXPECT_TRUE(
      tpu.out.contains("Cluster: 8,960 chips per ICI slice, 300.0 GB/s scale-up and 6.25 "
                       "GB/s scale-out per chip"))
      << tpu.out.toStdString();
}

TEST(CliParallel, ClusterFileAndBadClusters) {
  const QString path = QDir::temp().filePath("napkin-cluster-test.json");
  {
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(R"({"name": "site-a", "gpus_per_node": 8, "scale_up_gb_per_s": 300,
                "scale_out_gb_per_s": 12.5})");
  }
  const double from_file = best_step({"--cluster", path});
  const double from_flags = best_step(
      {"--gpus-per-node", "8", "--scale-up-gb-per-s", "300", "--scale-out-gb-per-s", "12.5"});
  EXPECT_DOUBLE_EQ(from_file, from_flags);
  {
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(R"({"gpus_per_node": 8, "scale_up_gbps": 300, "scale_out_gb_per_s": 12.5})");
  }
  expect_parallel_usage_error({"--preset", "Llama-3-8B", "--cluster", path},
                              "unknown key \"scale_up_gbps\"");
  QFile::remove(path);
  expect_parallel_usage_error({"--preset", "Llama-3-8B", "--cluster", "dgx-z"}, "dgx-a100");
  expect_parallel_usage_error({"--preset", "Llama-3-8B", "--gpus-per-node", "0"},
                              "--gpus-per-node");
  expect_parallel_usage_error({"--preset", "Llama-3-8B", "--scale-out-gb-per-s", "-1"},
                              "--scale-out-gb-per-s");
  expect_parallel_usage_error({"--preset", "Llama-3-8B", "--software", "jax"},
                              "megatron-deepspeed");
}

TEST(CliValidate, EverySetWithItsErrors) {
  const CliResult r = run_cli({"validate", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  QStringList keys;
  for (const QJsonValue& v : r.json["sets"].toArray()) {
    const QJsonObject s = v.toObject();
    keys << s["key"].toString();
    EXPECT_GT(s["rows"].toInteger(), 0);
    EXPECT_TRUE(s["mean_abs_error"].isDouble());
    EXPECT_TRUE(s["mean_signed_error"].isDouble());
    EXPECT_TRUE(s["worst_row"].isString());
  }
  for (const char* k : {"korthikanti-2022-table5", "narayanan-2021-table1", "vtrain-single-node",
                        "vtrain-multi-node"})
    EXPECT_TRUE(keys.contains(k)) << k;
  const CliResult one = run_cli({"validate", "--set", "narayanan-2021-table1", "--json"});
  ASSERT_EQ(one.exit_code, 0);
  const QJsonObject set = one.json["sets"].toArray()[0].toObject();
  EXPECT_EQ(set["predictions"].toArray().size(), 10);
  const CliResult text = run_cli({"validate"});
  EXPECT_TRUE(text.out.contains("mean |err|")) << text.out.toStdString();
  const CliResult bad = run_cli({"validate", "--set", "nope"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(bad.err.contains("vtrain-single-node")) << bad.err.toStdString();
}

// A set's rows line up however long their labels: the torchtitan memory set's
// labels ("... full recompute async TP") run past 60 characters.
TEST(CliValidate, RowsLineUpPastTheLongestLabel) {
  const CliResult r = run_cli({"validate", "--set", "torchtitan-h100-memory"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  qsizetype end_of_row = -1, rows = 0;
  for (const QString& line : r.out.split('\n')) {
    if (!line.startsWith(QStringLiteral("  llama3"))) continue;
    ++rows;
    if (end_of_row < 0) end_of_row = line.size();
    EXPECT_EQ(line.size(), end_of_row) << line.toStdString();
  }
  EXPECT_GE(rows, 10) << r.out.toStdString();
}

// The scoreboard the README prints is the one the build computes: a change
// that moves a prediction updates the README in the same commit.
TEST(CliValidate, TheReadmeShowsTheScoreboardAsTheBuildComputesIt) {
  const QString shown = readme_block(QStringLiteral("$ napkin-cli validate"));
  const CliResult r = run_cli({"validate"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  // The table: from its header to the first blank line.
  const qsizetype header = r.out.indexOf(QStringLiteral("\nset ")) + 1;
  ASSERT_GT(header, 0) << r.out.toStdString();
  const qsizetype blank = r.out.indexOf(QStringLiteral("\n\n"), header);
  const QString table = r.out.mid(header, blank < 0 ? -1 : blank - header + 1);
  EXPECT_EQ(shown.toStdString(), table.toStdString())
      << "README.md's validate block is stale: paste the table napkin-cli validate prints";
}

// The README's Megatron rows (Korthikanti's and Narayanan's tables, predicted
// beside measured) are the rows validate --rows prints today.
TEST(CliValidate, TheReadmesMegatronRowsAreTheBuildsRows) {
  QFile readme(QStringLiteral(NAPKIN_README));
  ASSERT_TRUE(readme.open(QIODevice::ReadOnly));
  const QString text = QString::fromUtf8(readme.readAll());
  const qsizetype marker =
      text.indexOf(QStringLiteral("The Megatron rows, predicted beside measured"));
  ASSERT_GE(marker, 0);
  const qsizetype open = text.indexOf(QStringLiteral("```\n"), marker) + 4;
  const QString block = text.mid(open, text.indexOf(QStringLiteral("```"), open) - open);
  QString printed;
  for (const char* set : {"korthikanti-2022-table5", "narayanan-2021-table1"}) {
    const CliResult r = run_cli({"validate", "--rows", "--set", set});
    ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
    printed += r.out;
  }
  int rows = 0;
  for (const QString& line : block.split(QLatin1Char('\n')))
    if (line.startsWith(QStringLiteral("  GPT "))) {
      ++rows;
      EXPECT_TRUE(printed.contains(line + QLatin1Char('\n')))
          << "README.md's Megatron rows are stale: " << line.toStdString();
    }
  EXPECT_EQ(rows, 18);
}

namespace {

// parallel --scenario: a saved scenario's Parallelism panel, with the numbers
// the app shows (the model's view of that scenario): the search under its
// locks, the layout it runs, the plan's MFU and batch. The job's flags do not
// combine with it.
TEST(CliParallel, AScenarioRunsItsParallelismPanel) {
  using namespace napkin;
  QTemporaryDir dir;
  const QString path = write_test_file(dir, "s.napkin.json", R"({"format": "napkin-scenario",
    "version": 2, "parallel": {"mfu_source": "predicted",
      "locks": {"tp": 8, "recompute": "full:40"}}})");
  Scenario s;
  s.parallel.mfu_source = MfuSource::predicted;
  s.parallel.tp = 8;
  s.parallel.lock_recompute("full:40");
  const SearchResult search = scenario_layouts(s);
  const ParallelView app = make_parallel_view(s, &search);
  ASSERT_TRUE(app.valid()) << app.error;
  ASSERT_TRUE(app.layout);
  const CliResult r = parallel_json(
      {QStringLiteral("--scenario"), path, QStringLiteral("--top"), QStringLiteral("3")});
  EXPECT_EQ(r.json["layouts"].toArray().size(), 3);
  const QJsonObject sc = r.json["scenario"].toObject();
  EXPECT_EQ(sc["locks"].toString(), QStringLiteral("tp=8,recompute=full:40"));
  EXPECT_FALSE(sc["chosen"].toBool());
  const QJsonObject runs = sc["runs"].toObject();
  EXPECT_EQ(runs["tp"].toInt(), 8);
  EXPECT_EQ(runs["recompute_layers"].toInt(), 40);
  EXPECT_DOUBLE_EQ(runs["step_seconds"].toDouble(), app.layout->step_seconds);
  const QJsonObject plan = sc["plan"].toObject();
  EXPECT_EQ(plan["mfu_source"].toString(), QStringLiteral("predicted"));
  EXPECT_DOUBLE_EQ(plan["mfu"].toDouble(), app.plan.mfu.mfu);
  EXPECT_DOUBLE_EQ(plan["compute_flops"].toDouble(), app.plan.compute_flops);
  EXPECT_EQ(plan["batch_tokens"].toInteger(), app.plan.batch_tokens);
  EXPECT_TRUE(plan["batch_adjusted"].toBool());  // 1,000 chips: 500 sequences, not 512

  const CliResult text = run_cli({QStringLiteral("parallel"), QStringLiteral("--scenario"), path});
  EXPECT_EQ(text.exit_code, 0) << text.err.toStdString();
  EXPECT_TRUE(text.out.contains(QStringLiteral("Locks: tp=8,recompute=full:40")))
      << text.out.toStdString();
  EXPECT_TRUE(text.out.contains(QStringLiteral("Runs (the fastest that fits)")));
  EXPECT_TRUE(text.out.contains(QString::fromStdString(app.plan.mfu_text())));

  expect_parallel_usage_error(
      {QStringLiteral("--scenario"), path, QStringLiteral("--global-batch"), QStringLiteral("8")},
      QStringLiteral("--global-batch cannot be combined with --scenario"));
  expect_parallel_usage_error({QStringLiteral("--scenario"), dir.filePath("none.json")},
                              QStringLiteral("none.json"));
}

// A layout chosen in the panel is the one detailed, even when it is not the
// fastest; one the scenario's chips cannot run is set aside and said.
TEST(CliParallel, AScenariosChosenLayoutIsTheOneItRuns) {
  QTemporaryDir dir;
  const QByteArray head =
      R"({"format": "napkin-scenario", "version": 2, "parallel": {"locks": {"tp": 8},
      "chosen": )";
  const QString chosen = write_test_file(
      dir, "chosen.json", head + R"({"tp": 8, "pp": 5, "vpp": 1, "dp": 25, "cp": 1, "ep": 1,
      "zero": 1, "micro_batch": 1, "sequence_parallel": true, "recompute": "full"}}})");
  const CliResult r = parallel_json({QStringLiteral("--scenario"), chosen});
  const QJsonObject sc = r.json["scenario"].toObject();
  EXPECT_TRUE(sc["chosen"].toBool());
  EXPECT_EQ(sc["runs"].toObject()["pp"].toInt(), 5);
  EXPECT_EQ(sc["runs"].toObject()["recompute"].toString(), QStringLiteral("full"));
  const QString wrong = write_test_file(
      dir, "wrong.json", head + R"({"tp": 8, "pp": 4, "vpp": 1, "dp": 32, "cp": 1, "ep": 1,
      "zero": 1, "micro_batch": 1, "sequence_parallel": true, "recompute": "full"}}})");
  const CliResult w = parallel_json({QStringLiteral("--scenario"), wrong});
  const QJsonObject ws = w.json["scenario"].toObject();
  EXPECT_FALSE(ws["chosen"].toBool());
  EXPECT_FALSE(ws["dropped"].toString().isEmpty());
  EXPECT_EQ(ws["runs"].toObject()["tp"].toInt(), 8);
}

}  // namespace
