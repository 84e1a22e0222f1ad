// napkin-cli params (issue 17): real configs, model folders, the flags that
// count modern shapes by hand, and the active-parameter conventions.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include "cli_test_util.h"

namespace {

QString config(const char* name) {
  return QStringLiteral(NAPKIN_TEST_DATA "/configs/") + QString::fromUtf8(name);
}

qint64 field(const CliResult& r, const char* key) {
  return r.json[QString::fromUtf8(key)].toInteger();
}

}  // namespace

TEST(CliParams, DeepSeekV3FromItsConfig) {
  const CliResult r = run_cli({QStringLiteral("params"), QStringLiteral("--config"),
                               config("deepseek-v3.json"), QStringLiteral("--json")});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  EXPECT_EQ(field(r, "total"), 671'026'419'200);
  EXPECT_EQ(field(r, "active"), 37'552'297'472);
  // DeepSeek's "36.6B activated (including 0.9B for the output head)".
  EXPECT_EQ(field(r, "active_non_embedding"), 36'625'618'432);
  EXPECT_EQ(field(r, "mtp"), 11'610'068'224);
  EXPECT_EQ(field(r, "total_with_mtp"), 671'026'419'200 + 11'610'068'224);
  EXPECT_EQ(field(r, "moe_layers"), 58);
  EXPECT_EQ(field(r, "kv_cache_bytes_per_token_bf16"), 576 * 61 * 2);
  EXPECT_EQ(r.json[QStringLiteral("family")].toString(), QStringLiteral("deepseek_v3"));
  EXPECT_EQ(r.json[QStringLiteral("dense_layer")].toObject()[QStringLiteral("total")].toInteger(),
            583'483'392);
}

TEST(CliParams, TheSameShapesByHand) {
  struct Case {
    const char* args;
    qint64 total;
  };
  const Case cases[] = {
      // deepseek-ai/DeepSeek-V3
      {"params --layers 61 --d-model 7168 --d-ff 18432 --heads 128 --vocab 129280 "
       "--mla 1536,512,128,64,128 --experts 256 --top-k 8 --shared-experts 1 --expert-d-ff 2048 "
       "--dense-layers 3 --router-bias --mtp 1 --json",
       671'026'419'200},
      // deepseek-ai/DeepSeek-V2-Lite: no query compression
      {"params --layers 27 --d-model 2048 --d-ff 10944 --heads 16 --vocab 102400 "
       "--mla 0,512,128,64,128 --experts 64 --top-k 6 --shared-experts 2 --expert-d-ff 1408 "
       "--dense-layers 1 --json",
       15'706'484'224},
      // Qwen/Qwen1.5-MoE-A2.7B: a shared expert of its own width behind a gate
      {"params --layers 24 --d-model 2048 --d-ff 5632 --heads 16 --vocab 151936 --bias qkv "
       "--experts 60 --top-k 4 --expert-d-ff 1408 --shared-experts 1 --shared-expert-d-ff 5632 "
       "--shared-expert-gate --json",
       14'315'784'192},
      // Qwen/Qwen3-30B-A3B
      {"params --layers 48 --d-model 2048 --d-ff 6144 --heads 32 --kv-heads 4 --head-dim 128 "
       "--vocab 151936 --qk-norm per-head --experts 128 --top-k 8 --expert-d-ff 768 --json",
       30'532'122'624},
      // google/gemma-2-9b
      {"params --layers 42 --d-model 3584 --d-ff 14336 --heads 16 --kv-heads 8 --head-dim 256 "
       "--vocab 256000 --tied --norms 4 --json",
       9'241'705'984},
      // allenai/OLMo-2-1124-7B
      {"params --layers 32 --d-model 4096 --d-ff 11008 --heads 32 --vocab 100352 "
       "--qk-norm full-width --json",
       7'298'617'344},
      // tiiuae/falcon-7b: MQA, one shared LayerNorm per parallel block, GELU MLP
      {"params --layers 32 --d-model 4544 --d-ff 18176 --heads 71 --kv-heads 1 --vocab 65024 "
       "--tied --no-gated --bias norm --norms 1 --parallel --json",
       6'921'720'704},
  };
  for (const Case& c : cases) {
    const CliResult r = run_cli(words(c.args));
    ASSERT_EQ(r.exit_code, 0) << c.args << "\n" << r.err.toStdString();
    EXPECT_EQ(field(r, "total"), c.total) << c.args;
  }
}

TEST(CliParams, ActiveConventionsForADenseAndATiedModel) {
  CliResult r = run_cli({QStringLiteral("params"), QStringLiteral("--config"),
                         config("llama-3-8b.json"), QStringLiteral("--json")});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(field(r, "active"), field(r, "total"));
  EXPECT_EQ(field(r, "active") - field(r, "active_non_embedding"), 128'256 * 4096);
  EXPECT_EQ(field(r, "non_embedding_active"), field(r, "active") - 2 * 128'256 * 4096);
  r = run_cli({QStringLiteral("params"), QStringLiteral("--config"), config("gemma-3-1b-pt.json"),
               QStringLiteral("--json")});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(field(r, "active_non_embedding"), field(r, "active"));  // the table is the head
}

TEST(CliParams, ReadableReportShowsMtpKvAndNotes) {
  const CliResult r =
      run_cli({QStringLiteral("params"), QStringLiteral("--config"), config("deepseek-v3.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  for (const char* s :
       {"671,026,419,200", "active w/o input embedding", "36,625,618,432", "MTP modules (apart)",
        "11,610,068,224", "70,272 B", "MLA: 576 values", "58 routed MoE, 3 dense"})
    EXPECT_TRUE(r.out.contains(QString::fromUtf8(s))) << s << "\n" << r.out.toStdString();
  const CliResult f =
      run_cli({QStringLiteral("params"), QStringLiteral("--config"), config("falcon-7b.json")});
  EXPECT_TRUE(f.out.contains(QStringLiteral("Notes"))) << f.out.toStdString();
  EXPECT_TRUE(f.out.contains(QStringLiteral("tie_word_embeddings omitted")));
}

TEST(CliParams, ModelFolderComparesTheIndex) {
  QTemporaryDir dir;
  ASSERT_TRUE(QFile::copy(config("llama-2-7b.json"), dir.filePath(QStringLiteral("config.json"))));
  QFile idx(dir.filePath(QStringLiteral("model.safetensors.index.json")));
  ASSERT_TRUE(idx.open(QIODevice::WriteOnly));
  QByteArray map = "{";
  for (int i = 0; i < 32; ++i)
    map += (i ? "," : "") + QByteArray("\"model.layers.") + QByteArray::number(i) +
           ".self_attn.rotary_emb.inv_freq\":\"a\"";
  map += "}";
  idx.write("{\"metadata\":{\"total_size\":13476839424},\"weight_map\":" + map + "}");
  idx.close();
  CliResult r = run_cli({QStringLiteral("params"), QStringLiteral("--model-dir"), dir.path(),
                         QStringLiteral("--json")});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  const QJsonObject ck = r.json[QStringLiteral("checkpoint")].toObject();
  EXPECT_EQ(ck[QStringLiteral("stored_params")].toInteger(), 6'738'419'712);
  EXPECT_EQ(ck[QStringLiteral("difference")].toInteger(), 4096);
  EXPECT_EQ(ck[QStringLiteral("explained")].toInteger(), 4096);
  r = run_cli({QStringLiteral("params"), QStringLiteral("--model-dir"), dir.path()});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.out.contains(QStringLiteral("difference"))) << r.out.toStdString();
  EXPECT_TRUE(r.out.contains(QStringLiteral("+4,096")));
  EXPECT_TRUE(r.out.contains(QStringLiteral("inv_freq")));
}

TEST(CliParams, HelpListsEveryShapeFlag) {
  const CliResult r = run_cli(words("params --help"));
  ASSERT_EQ(r.exit_code, 0);
  for (const char* f : {"--config", "--model-dir", "--mla", "--dense-layers", "--expert-d-ff",
                        "--shared-expert-d-ff", "--shared-expert-gate", "--router-bias",
                        "--qk-norm", "--bias qkv,out,mlp,norm", "--norms", "--parallel", "--mtp",
                        "active_non_embedding", "deepseek_v3", "falcon"})
    EXPECT_TRUE(r.out.contains(QString::fromUtf8(f))) << f;
  EXPECT_TRUE(run_cli(words("help")).out.contains(QStringLiteral("--mla")));
}

TEST(CliParams, ErrorsExitTwoWithOneLine) {
  QTemporaryDir dir;
  QFile f(dir.filePath(QStringLiteral("gpt2.json")));
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(R"({"model_type":"gpt2","n_embd":768,"n_layer":12,"n_head":12,"vocab_size":50257})");
  f.close();
  struct Case {
    QStringList args;
    const char* needle;
  };
  const Case cases[] = {
      {{QStringLiteral("params"), QStringLiteral("--config"), f.fileName()},
       "this architecture is not supported yet"},
      {{QStringLiteral("params"), QStringLiteral("--model-dir"), dir.path()},
       "no config.json in this folder"},
      {words("params --config a.json --model-dir b"), "alternatives"},
      {words("params --layers 2 --d-model 64 --d-ff 256 --heads 4 --vocab 10 --mla 1,2,3"),
       "--mla must be 5 comma-separated whole numbers"},
      {words("params --layers 2 --d-model 64 --d-ff 256 --heads 4 --vocab 10 --mla 0,0,8,8,8"),
       "--mla needs kv_lora"},
      {words("params --layers 2 --d-model 64 --d-ff 256 --heads 4 --vocab 10 --mla 0,8,8,8,8 "
             "--head-dim 16"),
       "do not apply with --mla"},
      {words("params --layers 2 --d-model 64 --d-ff 256 --heads 4 --vocab 10 --dense-layers 1"),
       "--dense-layers needs --experts"},
      {words("params --layers 2 --d-model 64 --d-ff 256 --heads 4 --vocab 10 --bias qkv,lm"),
       "--bias must be a comma-separated list of qkv, out, mlp, norm"},
      {words("params --layers 2 --d-model 64 --d-ff 256 --heads 4 --vocab 10 --qk-norm some"),
       "--qk-norm must be one of"},
      {words("params --layers 2 --d-model 64 --d-ff 256 --heads 4 --vocab 10 --norms 9"),
       "--norms"},
      {words("params --layers 2 --d-model 64 --d-ff 256 --heads 4 --vocab 10 --experts 4 "
             "--top-k 2 --dense-layers 3"),
       "--dense-layers"},
  };
  for (const Case& c : cases) {
    const CliResult r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args.join(QLatin1Char(' ')).toStdString();
    EXPECT_TRUE(r.err.contains(QString::fromUtf8(c.needle)))
        << c.args.join(QLatin1Char(' ')).toStdString() << " → " << r.err.toStdString();
    EXPECT_EQ(r.err.count(QLatin1Char('\n')), 1) << r.err.toStdString();
  }
}

TEST(CliKv, MlaCacheFromAConfig) {
  CliResult r =
      run_cli({QStringLiteral("kv"), QStringLiteral("--config"), config("deepseek-v3.json"),
               QStringLiteral("--seq"), QStringLiteral("1000"), QStringLiteral("--batch"),
               QStringLiteral("2"), QStringLiteral("--json")});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  EXPECT_EQ(field(r, "bytes_per_token"), 70'272);
  EXPECT_EQ(field(r, "bytes"), 70'272LL * 1000 * 2);
  // Concurrency defaults to the model's own count: 8 × 141 GB of H200 hold
  // 1.342 TB of bf16 weights and leave room for the latent cache.
  r = run_cli({QStringLiteral("kv"), QStringLiteral("--config"), config("deepseek-v3.json"),
               QStringLiteral("--seq"), QStringLiteral("32768"), QStringLiteral("--batch"),
               QStringLiteral("1"), QStringLiteral("--hbm-gb"), QStringLiteral("1600"),
               QStringLiteral("--json")});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  const double free_bytes = 1600e9 - 2.0 * 671'026'419'200 - 10e9;
  EXPECT_EQ(field(r, "max_concurrent"), static_cast<qint64>(free_bytes / (70'272.0 * 32768)));
  // The old flags still work.
  r = run_cli(words("kv --layers 80 --kv-heads 8 --head-dim 128 --seq 8192 --batch 1 --json"));
  EXPECT_EQ(field(r, "bytes"), 2'684'354'560);
}
