// Training-framework configs in (Megatron-LM, torchtitan, NeMo, DeepSpeed),
// launch flags out, and the round trip between them.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "framework_config.h"
#include "framework_text.h"
#include "io_test_util.h"

using namespace io_test;

using namespace napkin;

namespace {

std::string error_of(const std::string& text, const char* source, TrainingFramework f) {
  try {
    import_training_config(text, source, f);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(FrameworkImport, MegatronLaunchScriptWithArraysAndVariables) {
  const TrainingConfig c = import_training_config_file(framework_data("megatron-gpt-launch.sh"));
  EXPECT_EQ(c.framework, TrainingFramework::megatron);
  EXPECT_EQ(c.shape.n_layers, 40);
  EXPECT_EQ(c.shape.d_model, 6144);
  EXPECT_EQ(c.shape.n_heads, 48);
  EXPECT_EQ(c.shape.d_ff, 4 * 6144);  // Megatron's default 4h without --swiglu
  EXPECT_FALSE(c.shape.gated);
  EXPECT_EQ(c.layout.tp, 4);
  EXPECT_EQ(c.layout.pp, 4);
  EXPECT_EQ(c.layout.vpp, 2);  // 40 layers / (4 stages × 5 layers per virtual stage)
  EXPECT_EQ(c.layout.dp, 8);   // 16 nodes × 8 GPUs / (4 × 4)
  EXPECT_EQ(c.n_chips, 128);
  EXPECT_EQ(c.layout.micro_batch, 2);
  EXPECT_EQ(c.global_batch, 1024);
  EXPECT_EQ(c.seq_len, 2048);
  EXPECT_TRUE(c.layout.sequence_parallel);
  EXPECT_EQ(c.layout.recompute, Checkpointing::selective);
  EXPECT_EQ(c.layout.zero, 1);
  EXPECT_EQ(c.precision, "bf16");
  // The vocabulary comes from the tokenizer's files: named, not guessed.
  EXPECT_TRUE(c.is_missing("vocab"));
  EXPECT_FALSE(c.shape_known);
  EXPECT_EQ(c.missing.size(), 1u);
}

TEST(FrameworkImport, MegatronOneLineArrays) {
  // ARGS=(--a 1 --b) on one line: the first and the last flag are read, a
  // command substitution keeps its parenthesis.
  const TrainingConfig c = import_training_config(
      "NODES=$(cat hosts | wc -l)\n"
      "TRAIN=(--micro-batch-size 2 --global-batch-size 64 --seq-length 4096 --bf16)\n"
      "PAR=(--tensor-model-parallel-size 2)\n"
      "torchrun --nproc-per-node 8 pretrain_gpt.py ${TRAIN[@]} ${PAR[@]}\n",
      "one.sh", TrainingFramework::megatron);
  EXPECT_EQ(c.layout.micro_batch, 2);
  EXPECT_FALSE(c.is_missing("micro_batch_size"));
  EXPECT_EQ(c.global_batch, 64);
  EXPECT_EQ(c.seq_len, 4096);
  EXPECT_EQ(c.precision, "bf16");
  EXPECT_EQ(c.layout.tp, 2);
}

TEST(FrameworkImport, MegatronPrintedArgumentsBlock) {
  const TrainingConfig c = import_training_config_file(framework_data("megatron-arguments.log"));
  EXPECT_TRUE(c.complete()) << (c.missing.empty() ? "" : c.missing.front());
  EXPECT_TRUE(c.shape_known);
  EXPECT_EQ(c.shape, (ModelShape{32, 4096, 14336, 32, 8, 128, 128256}));
  EXPECT_EQ(c.layout.tp, 2);
  EXPECT_EQ(c.layout.pp, 2);
  EXPECT_EQ(c.layout.vpp, 1);
  EXPECT_EQ(c.layout.dp, 16);
  EXPECT_EQ(c.n_chips, 64);
  EXPECT_EQ(c.global_batch, 512);
  EXPECT_EQ(c.seq_len, 8192);
  EXPECT_EQ(c.layout.zero, 1);
  EXPECT_EQ(c.layout.recompute, Checkpointing::selective);
}

TEST(FrameworkImport, MegatronDeepSpeedScriptRunsUnderDeepSpeed) {
  // --deepspeed: Megatron-DeepSpeed. In bf16 with ZeRO stage 0 its
  // BF16_Optimizer is the ZeRO-1 (BLOOM's tr11 scripts); a ZeRO-2 beside a
  // pipeline is what DeepSpeed's pipeline engine refuses, and the import says so.
  auto run = [](const char* extra) {
    return import_training_config(
        std::string("deepspeed pretrain_gpt.py --tensor-model-parallel-size 4 "
                    "--pipeline-model-parallel-size 4 --micro-batch-size 1 "
                    "--global-batch-size 512 --seq-length 2048 --deepspeed ") +
            extra + "\n",
        "mds.sh", TrainingFramework::megatron);
  };
  const TrainingConfig bloom = run("--bf16 --zero-stage 0");
  EXPECT_EQ(bloom.software, "megatron-deepspeed-bf16");
  EXPECT_EQ(bloom.layout.zero, 1);
  const TrainingConfig fp16 = run("--fp16 --zero-stage 1");
  EXPECT_EQ(fp16.software, "megatron-deepspeed");
  EXPECT_EQ(fp16.layout.zero, 1);
  const TrainingConfig z2 = run("--fp16 --zero-stage 2");
  EXPECT_EQ(z2.layout.zero, 2);
  bool said = false;
  for (const std::string& n : z2.notes)
    said = said || n.find("runs ZeRO 0 and 1 with pipeline parallelism only") != std::string::npos;
  EXPECT_TRUE(said);
  // Plain Megatron-LM keeps the scenario's software.
  EXPECT_EQ(import_training_config("torchrun pretrain_gpt.py --micro-batch-size 1\n", "m.sh",
                                   TrainingFramework::megatron)
                .software,
            "");
}

TEST(FrameworkImport, MegatronUnsetVariableIsNamedNotGuessed) {
  const TrainingConfig c = import_training_config(
      "torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 2 --hidden-size 64 "
      "--num-attention-heads 4 --vocab-size 1000 --seq-length 128 --micro-batch-size 1 "
      "--tensor-model-parallel-size $TP\n",
      "run.sh", TrainingFramework::megatron);
  ASSERT_TRUE(c.is_missing("tp"));
  EXPECT_NE(c.missing.front().find("$TP"), std::string::npos) << c.missing.front();
}

TEST(FrameworkImport, TorchtitanToml) {
  const TrainingConfig c =
      import_training_config_file(framework_data("torchtitan-llama3-70b.toml"));
  EXPECT_EQ(c.framework, TrainingFramework::torchtitan);
  EXPECT_TRUE(c.complete()) << (c.missing.empty() ? "" : c.missing.front());
  EXPECT_EQ(c.shape.n_layers, 80);
  EXPECT_EQ(c.shape.d_ff, 28672);
  EXPECT_EQ(c.layout.tp, 8);
  EXPECT_EQ(c.layout.pp, 4);
  EXPECT_EQ(c.layout.vpp, 2);  // 80 layers / (4 stages × 10 per stage)
  EXPECT_EQ(c.layout.dp, 8);
  EXPECT_EQ(c.layout.zero, 3);
  EXPECT_EQ(c.layout.micro_batch, 2);
  EXPECT_EQ(c.layout.recompute, Checkpointing::full);
  EXPECT_EQ(c.n_chips, 256);
  EXPECT_EQ(c.global_batch, 256);
  EXPECT_EQ(c.seq_len, 8192);
  EXPECT_EQ(c.software, "fsdp");  // [compile] enable = false: eager
}

TEST(FrameworkImport, TorchtitanCompileChoosesTheFusedPreset) {
  const std::string base =
      "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\nlocal_batch_size = 2\n"
      "seq_len = 8192\n[parallelism]\ndata_parallel_shard_degree = 8\n";
  auto software = [](const std::string& text) {
    return import_training_config(text, "t.toml", TrainingFramework::torchtitan).software;
  };
  EXPECT_EQ(software(base + "[compile]\nenable = true\n"), "fsdp-compile");
  EXPECT_EQ(software(base), "fsdp");
  EXPECT_EQ(software(base + "[compile]\nenable = false\n"), "fsdp");
  const Scenario s =
      apply_to_scenario(import_training_config(base + "[compile]\nenable = true\n", "t.toml",
                                               TrainingFramework::torchtitan),
                        Scenario{});
  EXPECT_EQ(s.parallel.software, "fsdp-compile");
  // A configuration from before 2025 compiled the blocks and left the loss
  // eager: the preset compiles it, and the import says so.
  const std::string before_2025 =
      "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\nlocal_batch_size = 2\n"
      "seq_len = 8192\ncompile = true\n[parallelism]\ndata_parallel_shard_degree = 8\n";
  const TrainingConfig old =
      import_training_config(before_2025, "t.toml", TrainingFramework::torchtitan);
  EXPECT_EQ(old.software, "fsdp-compile");
  bool said = false;
  for (const std::string& n : old.notes) said = said || n.find("left the loss eager") != n.npos;
  EXPECT_TRUE(said);
}

TEST(FrameworkImport, TorchtitanExpertParallelismBorrowsTpRanks) {
  // torchtitan's EP borrows ranks from FSDP and TP (efsdp = dp_shard · cp ·
  // tp / ep): each expert whole on its rank, Napkin's etp = 1.
  const std::string base =
      "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\nlocal_batch_size = 2\n"
      "seq_len = 8192\n[parallelism]\ndata_parallel_shard_degree = 8\n"
      "tensor_parallel_degree = 2\n";
  const TrainingConfig ep = import_training_config(base + "expert_parallel_degree = 16\n", "t.toml",
                                                   TrainingFramework::torchtitan);
  EXPECT_EQ(ep.layout.ep, 16);
  EXPECT_EQ(ep.layout.etp, 1);
  const TrainingConfig none = import_training_config(base, "t.toml", TrainingFramework::torchtitan);
  EXPECT_EQ(none.layout.etp, 0);
}

TEST(FrameworkImport, TorchtitanShardMinusOneNeedsTheGpuCount) {
  const TrainingConfig c = import_training_config(
      "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\nlocal_batch_size = 2\n"
      "seq_len = 8192\n[parallelism]\ndata_parallel_shard_degree = -1\n",
      "t.toml", TrainingFramework::torchtitan);
  EXPECT_TRUE(c.is_missing("dp"));
  EXPECT_FALSE(c.n_chips.has_value());
}

TEST(FrameworkImport, NemoYamlWithInterpolation) {
  const TrainingConfig c = import_training_config_file(framework_data("nemo-megatron-gpt.yaml"));
  EXPECT_EQ(c.framework, TrainingFramework::nemo);
  EXPECT_EQ(c.shape.n_layers, 32);
  EXPECT_EQ(c.shape.d_ff, 11008);
  EXPECT_TRUE(c.shape.gated);
  EXPECT_FALSE(c.shape.tied_embeddings);
  EXPECT_EQ(c.shape.n_kv_heads, 32);
  EXPECT_EQ(c.layout.tp, 4);
  EXPECT_EQ(c.layout.pp, 2);
  EXPECT_EQ(c.layout.dp, 4);  // 8 devices × 4 nodes / (4 × 2)
  EXPECT_EQ(c.layout.zero, 1);
  // optim.name distributed_fused_adam: Apex's distributed Adam, NeMo 1.0's.
  EXPECT_EQ(c.software, "nemo-1.0");
  EXPECT_TRUE(std::any_of(c.notes.begin(), c.notes.end(), [](const std::string& n) {
    return n.find("software = nemo-1.0") != std::string::npos;
  }));
  EXPECT_EQ(c.layout.recompute, Checkpointing::selective);
  EXPECT_TRUE(c.layout.sequence_parallel);
  EXPECT_EQ(c.seq_len, 4096);
  EXPECT_EQ(c.global_batch, 256);
  EXPECT_EQ(c.precision, "bf16");
  EXPECT_TRUE(c.is_missing("vocab"));  // the tokenizer's, not the file's
}

TEST(FrameworkImport, DeepSpeedJsonNamesWhatItDoesNotHold) {
  const TrainingConfig c = import_training_config_file(framework_data("deepspeed-zero1.json"));
  EXPECT_EQ(c.framework, TrainingFramework::deepspeed);
  EXPECT_EQ(c.layout.dp, 16);  // 512 / (4 × 8)
  EXPECT_EQ(c.layout.zero, 1);
  EXPECT_EQ(c.layout.micro_batch, 4);
  EXPECT_EQ(c.global_batch, 512);
  EXPECT_EQ(c.precision, "bf16");
  EXPECT_TRUE(c.is_missing("model shape"));
  EXPECT_TRUE(c.is_missing("tp"));
  EXPECT_TRUE(c.is_missing("pp"));
  EXPECT_TRUE(c.is_missing("seq_len"));
}

TEST(FrameworkImport, BadFilesNameTheLineAndKey) {
  EXPECT_EQ(
      error_of("--num-layers abc --micro-batch-size 1\n", "run.sh", TrainingFramework::megatron),
      "run.sh: line 1: key \"num_layers\": expected an integer in [1, 100,000], found "
      "\"abc\"");
  EXPECT_EQ(error_of("[training]\nseq_len 8192\n", "t.toml", TrainingFramework::torchtitan),
            "t.toml: line 2: expected `key = value` or `[section]`; found \"seq_len 8192\"");
  EXPECT_EQ(error_of("model:\n  num_layers: -3\n", "n.yaml", TrainingFramework::nemo),
            "n.yaml: line 2: key \"num_layers\": expected an integer in [1, 100,000], found "
            "\"-3\"");
  EXPECT_EQ(error_of("model:\n\tnum_layers: 3\n", "n.yaml", TrainingFramework::nemo),
            "n.yaml: line 2: a tab indents this line; YAML indents with spaces");
  EXPECT_EQ(error_of("{\n \"zero_optimization\": {\"stage\": 5}\n}", "ds.json",
                     TrainingFramework::deepspeed),
            "ds.json: line 2: key \"zero_optimization.stage\": expected an integer in [0, 3], "
            "found \"5\"");
  EXPECT_EQ(error_of("{\n \"train_batch_size\": 8,\n", "ds.json", TrainingFramework::deepspeed),
            "ds.json: line 3: expected a string; found the end of the file");
  EXPECT_NE(error_of("just words\n", "x.sh", TrainingFramework::megatron).find("no --flag"),
            std::string::npos);
}

TEST(FrameworkImport, DetectsTheFrameworkFromNameAndContent) {
  EXPECT_EQ(detect_framework("a.toml", ""), TrainingFramework::torchtitan);
  EXPECT_EQ(detect_framework("a.yml", ""), TrainingFramework::nemo);
  EXPECT_EQ(detect_framework("a.json", ""), TrainingFramework::deepspeed);
  EXPECT_EQ(detect_framework("-", "  {\"x\": 1}"), TrainingFramework::deepspeed);
  EXPECT_EQ(detect_framework("run.sh", "--x 1"), TrainingFramework::megatron);
}

TEST(FrameworkImport, ScenarioTakesWhatTheConfigKnows) {
  const TrainingConfig c = import_training_config_file(framework_data("megatron-arguments.log"));
  const Scenario s = apply_to_scenario(c, Scenario{});
  EXPECT_EQ(s.shape, c.shape);
  EXPECT_EQ(s.n_chips, 64);
  EXPECT_EQ(s.training.seq_len, 8192);
  EXPECT_EQ(s.parallel.global_batch_tokens, 512 * 8192);
  ASSERT_TRUE(s.parallel.chosen.has_value());
  EXPECT_EQ(*s.parallel.chosen, c.layout);
}

// ------------------------------------------------------------ round trips

namespace {

TrainingJob llama_job(std::int64_t chips) {
  TrainingJob job;
  job.shape = ModelShape{80, 8192, 28672, 64, 8, 128, 128256};
  job.chip = "H100";
  job.n_chips = chips;
  job.seq_len = 8192;
  job.global_batch = 512;
  return job;
}

}  // namespace

TEST(FrameworkEmit, MegatronRoundTrip) {
  const TrainingJob job = llama_job(1024);
  for (const char* text : {"tp=8,pp=4,vpp=5,cp=2,zero=1,mb=1,sp=on,recompute=selective",
                           "tp=4,pp=8,vpp=1,cp=1,zero=0,mb=2,sp=on,recompute=full",
                           "tp=2,pp=1,vpp=1,cp=1,zero=3,mb=1,sp=off,recompute=none",
                           "tp=8,pp=2,vpp=2,cp=1,zero=1,mb=4,sp=off,recompute=none",
                           "tp=4,pp=8,vpp=2,cp=1,zero=1,mb=1,sp=on,recompute=full:3",
                           "tp=4,pp=8,vpp=1,cp=1,zero=1,mb=1,sp=on,recompute=uniform:2",
                           "tp=8,pp=1,vpp=1,cp=1,zero=1,mb=1,sp=on,"
                           "recompute=selective:layernorm+mlp",
                           // --num-distributed-optimizer-instances 8
                           "tp=8,pp=2,vpp=1,cp=2,zero=1,shard=16,mb=1,sp=on,recompute=none"}) {
    const Layout l = parse_layout(text, job.n_chips);
    const EmittedFlags f = emit_megatron(job, l);
    const TrainingConfig back =
        import_training_config(f.text, "emitted", TrainingFramework::megatron);
    EXPECT_TRUE(back.complete()) << text << "\n" << f.text;
    EXPECT_EQ(back.layout, l) << text << "\n" << f.text << to_string(back.layout);
    EXPECT_EQ(back.shape, job.shape) << text;
    EXPECT_EQ(back.global_batch, job.global_batch);
    EXPECT_EQ(back.seq_len, job.seq_len);
    EXPECT_EQ(back.n_chips, job.n_chips);
  }
}

TEST(FrameworkEmit, MegatronDeepSpeedRoundTrip) {
  // Planned under a DeepSpeed preset, the flags say --deepspeed and its stage,
  // and read back as the same preset and layout.
  for (const char* software : {"megatron-deepspeed", "megatron-deepspeed-bf16"}) {
    TrainingJob job = llama_job(1024);
    job.software = software_by_name(software);
    const Layout l =
        parse_layout("tp=8,pp=4,vpp=1,cp=1,zero=1,mb=1,sp=off,recompute=full", job.n_chips);
    const EmittedFlags f = emit_megatron(job, l);
    EXPECT_NE(f.text.find("--deepspeed --zero-stage"), std::string::npos) << f.text;
    const TrainingConfig back =
        import_training_config(f.text, "emitted", TrainingFramework::megatron);
    EXPECT_EQ(back.software, software) << f.text;
    EXPECT_EQ(back.layout, l) << f.text << to_string(back.layout);
  }
}

TEST(FrameworkEmit, MegatronRoundTripFoldsEpOverTp) {
  // Megatron Bridge's Qwen3 MoE recipes: expert tensor parallelism 1 with TP
  // 2 and EP 32 > DP; --expert-tensor-parallel-size goes out and comes back.
  TrainingJob job = llama_job(256);
  job.shape.d_model = 4096, job.shape.n_heads = 64, job.shape.n_kv_heads = 4;
  job.shape.n_experts = 128, job.shape.top_k = 8, job.shape.expert_d_ff = 1536;
  job.seq_len = 4096;
  job.global_batch = 2048;
  const Layout l = parse_layout(
      "tp=2,pp=8,vpp=1,cp=1,ep=32,etp=1,zero=1,mb=1,sp=on,"
      "recompute=none",
      job.n_chips);
  ASSERT_EQ(l.etp, 1);
  const EmittedFlags f = emit_megatron(job, l);
  EXPECT_NE(f.text.find("--expert-tensor-parallel-size 1"), std::string::npos) << f.text;
  const TrainingConfig back =
      import_training_config(f.text, "emitted", TrainingFramework::megatron);
  EXPECT_EQ(back.layout, l) << f.text << to_string(back.layout);
  // Unset or equal to TP: the default spelling, nothing emitted.
  const Layout split = parse_layout("tp=2,pp=8,ep=16,zero=1,mb=1,sp=on,recompute=none", 256);
  EXPECT_EQ(emit_megatron(job, split).text.find("expert-tensor"), std::string::npos);
  const TrainingConfig same =
      import_training_config("--tensor-model-parallel-size 2 --expert-tensor-parallel-size 2",
                             "x.sh", TrainingFramework::megatron);
  EXPECT_EQ(same.layout.etp, 0);
}

TEST(FrameworkEmit, MegatronExpertDispatcherInAndOut) {
  // Megatron Bridge's Qwen3-30B-A3B H100 recipe: the flex dispatcher with
  // HybridEP. Flex comes in as the deduplicated dispatch, goes out as flex and
  // comes back; alltoall and allgather are priced alike; a misspelling is
  // refused naming the key.
  const char* flex =
      "--num-layers 48 --hidden-size 2048 --num-attention-heads 32 --ffn-hidden-size 6144 "
      "--num-experts 128 --moe-router-topk 8 --expert-model-parallel-size 16 "
      "--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend hybridep";
  const TrainingConfig c = import_training_config(flex, "q.sh", TrainingFramework::megatron);
  ASSERT_TRUE(c.ep_dispatch);
  EXPECT_EQ(*c.ep_dispatch, EpDispatch::deduplicated);
  bool noted = false;
  for (const std::string& n : c.notes) noted = noted || n.find("hybridep") != std::string::npos;
  EXPECT_TRUE(noted);
  const TrainingConfig deepep = import_training_config(
      "--moe-enable-deepep --expert-model-parallel-size 8", "d.sh", TrainingFramework::megatron);
  EXPECT_EQ(deepep.ep_dispatch, EpDispatch::deduplicated);
  EXPECT_EQ(import_training_config("--moe-token-dispatcher-type allgather", "a.sh",
                                   TrainingFramework::megatron)
                .ep_dispatch,
            EpDispatch::all_to_all);
  EXPECT_FALSE(
      import_training_config("--tensor-model-parallel-size 2", "n.sh", TrainingFramework::megatron)
          .ep_dispatch);
  try {
    (void)import_training_config("--moe-token-dispatcher-type deepep", "b.sh",
                                 TrainingFramework::megatron);
    FAIL() << "accepted deepep as a dispatcher type";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("moe_token_dispatcher_type"), std::string::npos)
        << e.what();
  }
  // Out and back.
  TrainingJob job = llama_job(16);
  job.shape.n_experts = 128, job.shape.top_k = 8, job.shape.expert_d_ff = 768;
  job.software.ep_dispatch = EpDispatch::deduplicated;
  const Layout l = parse_layout("tp=1,pp=1,cp=1,ep=16,zero=1,mb=1,recompute=none", 16);
  const EmittedFlags f = emit_megatron(job, l);
  EXPECT_NE(f.text.find("--moe-token-dispatcher-type flex"), std::string::npos) << f.text;
  EXPECT_EQ(import_training_config(f.text, "emitted", TrainingFramework::megatron).ep_dispatch,
            EpDispatch::deduplicated);
  job.software.ep_dispatch = EpDispatch::all_to_all;
  EXPECT_EQ(emit_megatron(job, l).text.find("dispatcher"), std::string::npos);
  // Into the scenario.
  Scenario s;
  TrainingConfig q = c;
  q.shape_known = false;
  EXPECT_EQ(apply_to_scenario(q, s).parallel.ep_dispatch, EpDispatch::deduplicated);
}

TrainingConfig megatron_selective(const std::string& extra) {
  return import_training_config(
      "--num-layers 80 --hidden-size 8192 --num-attention-heads 64 --ffn-hidden-size 28672 "
      "--vocab-size 128256 --recompute-granularity selective " +
          extra,
      "s.sh", TrainingFramework::megatron);
}

TEST(FrameworkImport, PartialRecomputation) {
  // Megatron's block method: the first N layers of each chunk; uniform with N
  // layers to a checkpoint recomputes every layer; N covering a chunk is full.
  auto megatron = [](const std::string& extra) {
    return import_training_config(
        "--num-layers 80 --hidden-size 8192 --num-attention-heads 64 --ffn-hidden-size 28672 "
        "--vocab-size 128256 --pipeline-model-parallel-size 8 --recompute-granularity full " +
            extra,
        "r.sh", TrainingFramework::megatron);
  };
  const TrainingConfig block = megatron("--recompute-method block --recompute-num-layers 4");
  EXPECT_EQ(block.layout.recompute, Checkpointing::full);
  EXPECT_EQ(block.layout.recompute_layers, 4);
  bool noted = false;
  for (const std::string& n : block.notes) noted = noted || n.find("full:4") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_EQ(megatron("--recompute-method block --recompute-num-layers 10").layout.recompute_layers,
            0);  // ten layers a stage: all of them
  const TrainingConfig uniform = megatron("--recompute-method uniform --recompute-num-layers 2");
  EXPECT_EQ(uniform.layout.recompute_layers, 0);
  EXPECT_EQ(uniform.layout.recompute_group, 2);  // every layer, two to a checkpoint
  EXPECT_EQ(recompute_text(uniform.layout), "uniform:2");
  EXPECT_EQ(megatron("--recompute-method uniform --recompute-num-layers 1").layout.recompute_group,
            1);
  EXPECT_TRUE(megatron("--recompute-method block").is_missing("recompute_num_layers"));
  EXPECT_THROW(megatron("--recompute-method blocky --recompute-num-layers 2"),
               std::invalid_argument);
  // NeMo's spelling.
  const TrainingConfig nemo = import_training_config(
      "num_layers: 32\nhidden_size: 4096\nnum_attention_heads: 32\nffn_hidden_size: 11008\n"
      "pipeline_model_parallel_size: 2\nactivations_checkpoint_granularity: full\n"
      "activations_checkpoint_method: block\nactivations_checkpoint_num_layers: 6\n",
      "n.yaml", TrainingFramework::nemo);
  EXPECT_EQ(nemo.layout.recompute, Checkpointing::full);
  EXPECT_EQ(nemo.layout.recompute_layers, 6);
  // torchtitan's layer checkpointing: one block in every 4 of 10 per chunk.
  const TrainingConfig titan = import_training_config(
      "[model]\nname = \"llama3\"\nflavor = \"70B\"\n[parallelism]\n"
      "pipeline_parallel_degree = 8\n[activation_checkpoint]\nmode = \"selective\"\n"
      "selective_ac_option = \"4\"\n",
      "t.toml", TrainingFramework::torchtitan);
  EXPECT_EQ(titan.layout.recompute, Checkpointing::full);
  EXPECT_EQ(titan.layout.recompute_layers, 2);
  // Megatron's recompute modules: a list after one flag; what Napkin does not
  // price is named.
  const TrainingConfig mods = megatron_selective("--recompute-modules mla_up_proj mlp moe");
  EXPECT_EQ(mods.layout.recompute, Checkpointing::selective);
  EXPECT_EQ(mods.layout.recompute_modules, kRecomputeMlaUpProj | kRecomputeMlp);
  bool named = false;
  for (const std::string& n : mods.notes)
    named = named || n.find("modules moe:") != std::string::npos;
  EXPECT_TRUE(named);
  EXPECT_EQ(megatron_selective("--recompute-modules core_attn").layout.recompute_modules, 0u);
  // The printed arguments' Python list.
  EXPECT_EQ(
      megatron_selective("--recompute-modules ['layernorm', 'moe_act']").layout.recompute_modules,
      kRecomputeLayernorm | kRecomputeMoeAct);
  // "op": torchtitan's op-level policy.
  const TrainingConfig op = import_training_config(
      "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[activation_checkpoint]\n"
      "mode = \"selective\"\nselective_ac_option = \"op\"\n",
      "o.toml", TrainingFramework::torchtitan);
  EXPECT_EQ(op.layout.recompute, Checkpointing::selective);
  EXPECT_EQ(op.layout.recompute_modules, kRecomputeOp);
  EXPECT_EQ(recompute_text(op.layout), "selective:op");
  // No option: torchtitan's default "2", every second block (16 of 32).
  const TrainingConfig two = import_training_config(
      "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[activation_checkpoint]\n"
      "mode = \"selective\"\n",
      "2.toml", TrainingFramework::torchtitan);
  EXPECT_EQ(two.layout.recompute, Checkpointing::full);
  EXPECT_EQ(two.layout.recompute_layers, 16);
  EXPECT_TRUE(std::any_of(two.notes.begin(), two.notes.end(), [](const std::string& n) {
    return n.find("torchtitan's default") != std::string::npos;
  }));
}

TEST(FrameworkEmit, TorchtitanRoundTrip) {
  const TrainingJob job = llama_job(512);
  // Its op-level checkpointing is torchtitan's own: planned under its preset.
  TrainingJob titan = job;
  titan.software = software_by_name("fsdp-compile");
  for (const char* text : {"tp=8,pp=4,vpp=2,cp=1,zero=3,mb=2,sp=on,recompute=full",
                           "tp=8,pp=4,vpp=2,cp=1,zero=3,mb=2,sp=on,recompute=full:5",
                           "tp=8,pp=1,vpp=1,cp=2,zero=3,mb=1,sp=on,recompute=selective:op",
                           "tp=8,pp=1,vpp=1,cp=1,zero=2,mb=1,sp=on,recompute=selective:op",
                           "tp=4,pp=2,vpp=1,cp=1,zero=0,mb=1,sp=on,recompute=none",
                           // HSDP: FSDP over 4 × CP 2, replicated 8 ways
                           "tp=8,pp=1,vpp=1,cp=2,zero=3,shard=8,mb=1,sp=on,recompute=full"}) {
    const Layout l = parse_layout(text, job.n_chips);
    const EmittedFlags f = emit_torchtitan(titan, l);
    EXPECT_TRUE(f.caveats.empty()) << f.caveats.front();
    const TrainingConfig back =
        import_training_config(f.text, "emitted.toml", TrainingFramework::torchtitan);
    EXPECT_TRUE(back.complete()) << text << "\n" << f.text;
    EXPECT_EQ(back.layout, l) << text << "\n" << f.text << to_string(back.layout);
    EXPECT_EQ(back.shape, job.shape);
    EXPECT_EQ(back.global_batch, job.global_batch);
    EXPECT_EQ(back.n_chips, job.n_chips);
    // The fused element-wise work of the plan's software takes torch.compile.
    EXPECT_EQ(back.software, "fsdp-compile") << f.text;
  }
  TrainingJob eager = job;
  eager.software = software_by_name("fsdp");
  const EmittedFlags fe =
      emit_torchtitan(eager, parse_layout("tp=8,zero=3,recompute=full", job.n_chips));
  EXPECT_EQ(import_training_config(fe.text, "e.toml", TrainingFramework::torchtitan).software,
            "fsdp");
  // Megatron's selective (the attention core) is no checkpointing under
  // FlashAttention: emitted as none, and said.
  const EmittedFlags sel =
      emit_torchtitan(job, parse_layout("tp=8,zero=3,recompute=selective", job.n_chips));
  ASSERT_EQ(sel.caveats.size(), 1u);
  EXPECT_NE(sel.caveats.front().find("emitted as none"), std::string::npos);
  EXPECT_EQ(
      import_training_config(sel.text, "s.toml", TrainingFramework::torchtitan).layout.recompute,
      Checkpointing::none);
  // What torchtitan cannot express is said.
  const EmittedFlags z1 = emit_torchtitan(job, parse_layout("tp=8,zero=1", job.n_chips));
  ASSERT_FALSE(z1.caveats.empty());
  EXPECT_NE(z1.caveats.front().find("no ZeRO-1"), std::string::npos);
}

TEST(FrameworkEmit, RefusesALayoutThatDoesNotDivide) {
  const TrainingJob job = llama_job(1024);
  Layout l;
  l.tp = 3;
  l.dp = 1024 / 3;
  EXPECT_THROW(emit_megatron(job, l), std::invalid_argument);
}
