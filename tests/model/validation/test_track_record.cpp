// The scoreboard's training sets read back as a prediction's error band.
#include "track_record.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "expect_throw.h"
#include "hardware.h"
#include "parallel_software.h"
#include "validation.h"

using namespace napkin;

namespace {

bool in(std::span<const std::string_view> keys, std::string_view key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

std::vector<std::string_view> record_keys() {
  std::vector<std::string_view> out;
  for (const TrackRecordSet& s : track_record_sets()) out.push_back(s.key);
  return out;
}

TEST(TrackRecord, EverySetOfTheScoreboardIsReadOrSetAsideByName) {
  // A set added to the scoreboard must be placed: a training-speed set with
  // its family and generation, or one that says nothing about speed.
  const std::vector<std::string_view> read = record_keys();
  const std::vector<std::string_view> serving = serving_track_record_keys();
  const std::vector<std::string_view> first_token = first_token_track_record_keys();
  for (std::string_view key : public_validation_keys()) {
    SCOPED_TRACE(std::string(key));
    EXPECT_EQ(int{in(read, key)} + int{in(serving, key)} + int{in(first_token, key)} +
                  int{in(track_record_excluded_sets(), key)},
              1);
  }
  for (const auto* keys : {&read, &serving, &first_token})
    for (std::string_view key : *keys) EXPECT_TRUE(in(public_validation_keys(), key)) << key;
}

TEST(TrackRecord, EveryPresetHasAFamilyAndEveryChipAGeneration) {
  for (const SoftwarePreset& p : software_presets()) (void)framework_family(p.name);
  EXPECT_EQ(framework_family("megatron-deepspeed-bf16"), FrameworkFamily::deepspeed);
  EXPECT_EQ(framework_family("fsdp-compile"), FrameworkFamily::fsdp);
  EXPECT_EQ(framework_family("megatron-core-fp8"), FrameworkFamily::megatron);
  EXPECT_EQ(framework_family("llama3"), FrameworkFamily::megatron);
  EXPECT_THROW_NAMING(framework_family("jax"), "fsdp-compile");
  EXPECT_EQ(chip_generation(chip_by_name("A100-40")), ChipGeneration::ampere);
  EXPECT_EQ(chip_generation(chip_by_name("H100-HBM2e")), ChipGeneration::hopper);
  EXPECT_EQ(chip_generation(chip_by_name("H800")), ChipGeneration::hopper);
  EXPECT_EQ(chip_generation(chip_by_name("GB300")), ChipGeneration::blackwell);
  EXPECT_EQ(chip_generation(chip_by_name("MI300X")), ChipGeneration::other);
  EXPECT_EQ(framework_family("maxtext"), FrameworkFamily::xla);
  EXPECT_EQ(chip_generation(chip_by_name("TPU v5p")), ChipGeneration::tpu);
  EXPECT_EQ(chip_generation(chip_by_name("TPU v6e")), ChipGeneration::tpu);
  Chip mine = chip_by_name("MI300X");
  mine.name = "my-h100";
  mine.device_memory_as = "H100";
  EXPECT_EQ(chip_generation(mine), ChipGeneration::hopper);
}

TEST(TrackRecord, TpuPlansReadMaxTextsTablesAndGpuPlansNever) {
  // MaxText on a TPU reads its two tables (40 runs); a PyTorch framework on a
  // TPU has no runs of its own there and widens to its GPU runs, saying so;
  // no GPU scope reads a TPU table.
  const TrackRecord r = training_track_record("maxtext", chip_by_name("TPU v5e"));
  EXPECT_EQ(r.scope, "JAX/XLA frameworks on TPUs");
  EXPECT_EQ(r.sets, (std::vector<std::string>{"maxtext-tpu-v5e", "maxtext-tpu-v5p"}));
  EXPECT_EQ(r.rows, 40u);
  EXPECT_TRUE(r.fallback.empty());
  const TrackRecord f = training_track_record("fsdp", chip_by_name("TPU v5p"));
  EXPECT_EQ(f.scope, "PyTorch FSDP frameworks on every GPU");
  EXPECT_NE(f.fallback.find("on TPUs"), std::string::npos) << f.fallback;
  for (const SoftwarePreset& p : software_presets())
    for (const char* chip : {"H100", "A100-80", "B200", "MI300X"})
      for (const std::string& set : training_track_record(p.name, chip_by_name(chip)).sets)
        EXPECT_FALSE(set.starts_with("maxtext")) << p.name << " on " << chip;
  // The serving side has no TPU runs: a TPU plan says so, as before.
  const TrackRecord s = serving_track_record("jetstream", false, chip_by_name("TPU v5e"));
  EXPECT_NE(s.fallback.find("TPU v5e's kind of chip"), std::string::npos) << s.fallback;
}

TEST(TrackRecord, MegatronOnHopperWeighsEveryTableOnce) {
  const TrackRecord r = training_track_record("modern", chip_by_name("H100"));
  EXPECT_EQ(r.scope, "Megatron-family frameworks on Hopper GPUs");
  EXPECT_TRUE(r.fallback.empty());
  const std::vector<std::string> hopper = {"megatron-core-0.8-h100",   "megatron-bridge-h100",
                                           "megatron-bridge-moe-h100", "dgxc-h100",
                                           "dgxc-h100-25.04",          "nemo-24.07-h100"};
  EXPECT_EQ(r.sets, hopper);
  // Each table weighs one: the mean signed error is the mean of the tables'
  // own (in MFU terms: a step time's ratio inverted).
  std::size_t rows = 0;
  double signed_sum = 0, abs_sum = 0;
  for (const std::string& key : hopper) {
    const ValidationSet set = public_validation_sets(key).front();
    double s = 0, a = 0;
    for (const ValidationRow& row : set.rows) {
      const double e = set.lower_is_optimistic ? row.measured / row.predicted - 1
                                               : row.predicted / row.measured - 1;
      s += e;
      a += std::abs(e);
    }
    rows += set.rows.size();
    signed_sum += s / static_cast<double>(set.rows.size());
    abs_sum += a / static_cast<double>(set.rows.size());
  }
  EXPECT_EQ(r.rows, rows);
  EXPECT_NEAR(r.mean_signed_error, signed_sum / 6, 1e-12);
  EXPECT_NEAR(r.mean_abs_error, abs_sum / 6, 1e-12);
  // A band around the prediction: optimistic runs below it, pessimistic above.
  EXPECT_LT(r.p10_error, 0.0);
  EXPECT_GT(r.p90_error, 0.0);
  EXPECT_LT(r.p10_error, r.mean_signed_error);
  EXPECT_GT(r.p90_error, r.mean_signed_error);
  EXPECT_LT(r.measured_low(0.40), 0.40);
  EXPECT_GT(r.measured_high(0.40), 0.40);
  EXPECT_NEAR(r.measured_low(0.40), 0.40 / (1 + r.p90_error), 1e-15);
  const std::string text = r.text(0.40);
  EXPECT_NE(text.find("Megatron-family frameworks on Hopper GPUs"), std::string::npos) << text;
  EXPECT_NE(text.find(" runs in 6 tables"), std::string::npos) << text;
  EXPECT_NE(text.find("where Napkin predicts 40.0 %"), std::string::npos) << text;
  EXPECT_EQ(text.find("nan"), std::string::npos);
}

TEST(TrackRecord, ScopesWidenWhenNoPublishedRunMatches) {
  // No FSDP run on Blackwell in the scoreboard: FSDP on every GPU.
  const TrackRecord fsdp = training_track_record("fsdp", chip_by_name("B200"));
  EXPECT_EQ(fsdp.scope, "PyTorch FSDP frameworks on every GPU");
  EXPECT_NE(fsdp.fallback.find("fewer than 8 published runs of PyTorch FSDP frameworks on "
                               "Blackwell GPUs"),
            std::string::npos)
      << fsdp.fallback;
  EXPECT_EQ(fsdp.sets.size(), 6u);
  // No chip of its kind: the family on every GPU, and it says why.
  const TrackRecord mi = training_track_record("modern", chip_by_name("MI300X"));
  EXPECT_EQ(mi.scope, "Megatron-family frameworks on every GPU");
  EXPECT_EQ(mi.fallback, "no published run on MI300X's kind of chip");
  EXPECT_EQ(mi.sets.size(), 12u);
  // DeepSpeed on Ampere: vTrain's two sets, 1,492 runs, each set weighing one.
  const TrackRecord ds = training_track_record("megatron-deepspeed", chip_by_name("A100-80"));
  EXPECT_EQ(ds.scope, "Megatron-DeepSpeed on Ampere GPUs");
  EXPECT_EQ(ds.rows, 1492u);
  // Every scope has runs, and its band is ordered.
  for (const SoftwarePreset& p : software_presets())
    for (const Chip& c : hardware_table()) {
      const TrackRecord r = training_track_record(p.name, c);
      EXPECT_GE(r.rows, kTrackRecordMinRows) << p.name << " " << c.name;
      EXPECT_LE(r.p10_error, r.p90_error);
      EXPECT_TRUE(std::isfinite(r.measured_low(0.5)) && std::isfinite(r.measured_high(0.5)));
    }
}

TEST(TrackRecord, ServingRunsByModelKindAndChipGeneration) {
  // Every serving row names its chip, so a set mixing chips splits by them.
  for (std::string_view key : serving_track_record_keys()) {
    const std::vector<ValidationSet> sets = public_validation_sets(key);
    ASSERT_FALSE(sets.empty()) << key;
    for (const ValidationRow& row : sets.front().rows)
      EXPECT_NO_THROW((void)chip_by_name(row.chip)) << key << ": " << row.label;
  }
  const TrackRecord dense = serving_track_record("tensorrt-llm", false, chip_by_name("H100"));
  EXPECT_EQ(dense.scope, "TensorRT-LLM serving dense models on Hopper GPUs");
  EXPECT_TRUE(dense.fallback.empty());
  EXPECT_GE(dense.rows, kTrackRecordMinRows);
  EXPECT_EQ(dense.sets.size(), 4u);  // v0.6.1 and v0.5 static, v1.0 and v0.17 offline
  EXPECT_LT(dense.measured_low(1000), 1000);
  EXPECT_GT(dense.measured_high(1000), 1000);
  // The MoE rows stand apart, optimism included.
  const TrackRecord moe = serving_track_record("tensorrt-llm", true, chip_by_name("H200"));
  EXPECT_EQ(moe.sets, std::vector<std::string>{"serving-trtllm-offline-v0.17-moe"});
  EXPECT_GT(moe.mean_signed_error, 0.05);
  EXPECT_GT(moe.p90_error, dense.p90_error);
  EXPECT_TRUE(moe.fallback.empty());
  // Those runs split the experts TP ways; a plan with expert parallelism
  // reads them and is told so.
  const TrackRecord ep = serving_track_record("tensorrt-llm", true, chip_by_name("H200"), 8);
  EXPECT_EQ(ep.rows, moe.rows);
  EXPECT_EQ(ep.fallback,
            "every published MoE run split its experts by tensor parallelism; none "
            "ran expert parallelism with attention data parallelism, as this plan");
  EXPECT_TRUE(
      serving_track_record("tensorrt-llm", false, chip_by_name("H200"), 8).fallback.empty());
  // Another engine reads TensorRT-LLM's runs and says so; the ideal bound none.
  const TrackRecord vllm = serving_track_record("vllm", false, chip_by_name("H100"));
  EXPECT_EQ(vllm.rows, dense.rows);
  EXPECT_EQ(vllm.fallback.rfind("no published run of vllm in the scoreboard", 0), 0u)
      << vllm.fallback;
  EXPECT_TRUE(serving_track_record("ideal", false, chip_by_name("H100")).empty());
  // Blackwell's dense runs (TensorRT-LLM v1.0, NVFP4 on B200 and GB200) have
  // their own record, every run above the measurement: the band lies below
  // the prediction.
  const TrackRecord b200 = serving_track_record("tensorrt-llm", false, chip_by_name("B200"));
  EXPECT_EQ(b200.scope, "TensorRT-LLM serving dense models on Blackwell GPUs");
  EXPECT_TRUE(b200.fallback.empty());
  EXPECT_EQ(b200.sets, std::vector<std::string>{"serving-trtllm-offline-v1.0-fp4"});
  EXPECT_EQ(b200.rows, 40u);
  EXPECT_GT(b200.p10_error, 0.0);
  EXPECT_LT(b200.measured_high(1000), 1000);
  // No Blackwell MoE run: the kind on every GPU; no TPU run either.
  const TrackRecord b200_moe = serving_track_record("tensorrt-llm", true, chip_by_name("B200"));
  EXPECT_EQ(b200_moe.scope, "TensorRT-LLM serving MoE models on every GPU");
  EXPECT_EQ(b200_moe.fallback.rfind("fewer than 8 published runs of TensorRT-LLM serving MoE "
                                    "models on Blackwell GPUs",
                                    0),
            0u)
      << b200_moe.fallback;
  const TrackRecord tpu = serving_track_record("jetstream", false, chip_by_name("TPU v5e"));
  EXPECT_NE(tpu.fallback.find("no published serving run on TPU v5e's kind of chip"),
            std::string::npos)
      << tpu.fallback;
  // Dense on Ampere, Hopper, Blackwell and every GPU; MoE on Ampere, Hopper
  // and every GPU.
  EXPECT_EQ(stored_serving_track_record_scopes().size(), 7u);
}

TEST(TrackRecord, TheStoredServingScopesAreTheScoreboardsToday) {
  // serving_track_record reads them stored (the offline sets take a second to
  // simulate); a change of the serving model that moves them fails here.
  const std::vector<TrackRecord> live = serving_track_record_scopes();
  const std::vector<TrackRecord> stored = stored_serving_track_record_scopes();
  ASSERT_EQ(live.size(), stored.size());
  for (std::size_t i = 0; i < live.size(); ++i) {
    SCOPED_TRACE(live[i].scope);
    const std::string stale =
        "kServingScopes in track_record.cpp is stale: paste the serving_track_record of "
        "napkin-cli validate --track-record --json";
    EXPECT_EQ(stored[i].scope, live[i].scope) << stale;
    EXPECT_EQ(stored[i].sets, live[i].sets) << stale;
    EXPECT_EQ(stored[i].rows, live[i].rows) << stale;
    EXPECT_NEAR(stored[i].mean_abs_error, live[i].mean_abs_error, 1e-9) << stale;
    EXPECT_NEAR(stored[i].mean_signed_error, live[i].mean_signed_error, 1e-9) << stale;
    EXPECT_NEAR(stored[i].p10_error, live[i].p10_error, 1e-9) << stale;
    EXPECT_NEAR(stored[i].p90_error, live[i].p90_error, 1e-9) << stale;
  }
}

TEST(TrackRecord, AFirstTokenTimeBesideThePublishedFirstTokens) {
  // The nine H100 rows (TensorRT-LLM v0.5, FP8, batch 1 and 64): Napkin's
  // time is below most measurements, so the band lies above the prediction.
  const TrackRecord h100 =
      first_token_track_record("tensorrt-llm-0.6", false, chip_by_name("H100"));
  EXPECT_EQ(h100.scope, "TensorRT-LLM first token, dense models on Hopper GPUs");
  EXPECT_TRUE(h100.fallback.empty()) << h100.fallback;
  EXPECT_EQ(h100.rows, 9u);
  EXPECT_EQ(h100.sets, std::vector<std::string>{"serving-trtllm-first-token"});
  EXPECT_GT(h100.mean_signed_error, 0.10);  // a latency's ratio inverted: > 0 is optimistic
  EXPECT_GT(h100.measured_time_high(0.100), 0.125);
  EXPECT_LT(h100.measured_time_low(0.100), h100.measured_time_high(0.100));
  // The user's own overhead stays outside the band.
  EXPECT_NEAR(h100.measured_time_low(1.1, 1.0), 1.0 + 0.1 * (1 + h100.p10_error), 1e-12);
  EXPECT_NEAR(h100.measured_time_high(1.1, 1.0), 1.0 + 0.1 * (1 + h100.p90_error), 1e-12);
  // By hand: the H100 rows' latency ratios inverted, each weighing one.
  double signed_sum = 0;
  std::size_t rows = 0;
  for (const ValidationSet& set : public_validation_sets("serving-trtllm-first-token"))
    for (const ValidationRow& row : set.rows)
      if (row.chip == "H100") {
        signed_sum += row.measured / row.predicted - 1;
        ++rows;
      }
  ASSERT_EQ(rows, 9u);
  EXPECT_NEAR(h100.mean_signed_error, signed_sum / 9, 1e-12);
  const TrackRecord a100 = first_token_track_record("tensorrt-llm", false, chip_by_name("A100-80"));
  EXPECT_EQ(a100.scope, "TensorRT-LLM first token, dense models on Ampere GPUs");
  EXPECT_EQ(a100.rows, 9u);
  // An MoE plan, another engine, another generation: the runs there are, and why.
  const TrackRecord moe = first_token_track_record("vllm", true, chip_by_name("B200"));
  EXPECT_EQ(moe.scope, "TensorRT-LLM first token, dense models on every GPU");
  EXPECT_EQ(moe.rows, 18u);
  EXPECT_EQ(moe.fallback,
            "no published run of vllm in the scoreboard: TensorRT-LLM's, timed by the same "
            "per-kernel model; no published first-token run of an MoE model: the dense "
            "models'; fewer than 8 published first-token runs on Blackwell GPUs");
  const TrackRecord tpu = first_token_track_record("tensorrt-llm", false, chip_by_name("TPU v5e"));
  EXPECT_EQ(tpu.fallback, "no published first-token run on TPU v5e's kind of chip");
  EXPECT_TRUE(first_token_track_record("ideal", false, chip_by_name("H100")).empty());
  // Ampere, Hopper, every GPU.
  const std::vector<TrackRecord> scopes = first_token_track_record_scopes();
  ASSERT_EQ(scopes.size(), 3u);
  EXPECT_EQ(scopes.back().rows, 18u);
}

}  // namespace
