// Scenario documents, version 2: the panels' settings and an embedded CSV
// ladder survive a save and reopen exactly, from the file alone; version-1
// documents still open.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <set>

#include "choices.h"
#include "csv_ladder.h"
#include "io_test_util.h"
#include "scenario_fields.h"
#include "scenario_json.h"
#include "switches.h"

using namespace io_test;

using namespace napkin;

namespace {

const std::string kData = NAPKIN_TEST_DATA;

std::string error_of(const std::string& json) {
  try {
    scenario_from_json(json, "s.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

// Every panel setting away from its default, and the Chinchilla ladder loaded.
Scenario worked_scenario(const std::string& csv_path) {
  Scenario s;
  s.chip = "TPU v5p";
  s.days = 45;
  LadderColumns c;
  c.n_params = "Model Size";
  c.tokens = "Training FLOP";
  c.tokens_kind = TokensKind::flops;
  c.loss = "loss";
  const CsvImport imp = import_csv_ladder(read_csv_file(csv_path), csv_path, c);
  s.isoflops.loaded = imp.ladder;
  s.isoflops.loss_cut = {true, 3.4469};
  s.isoflops.fit = {Estimator::ls_log, 2e-3, 200};
  s.isoflops.seed = 42;
  s.isoflops.target_follows_budget = false;
  s.isoflops.manual_target_flops = 3.5e24;
  s.isoflops.candidate = {CandidatePreset::besiroglu2024, 0.8, 1.1, -0.03, 0.04};
  SyntheticLadderSettings& y = s.isoflops.synthetic;
  y.law_preset = LawPreset::custom;
  y.law = LossLaw{1.8, 500, 0.33, 1500, 0.31};
  y.n_budgets = 7;
  y.budget_min_flops = 3e17;
  y.budget_max_flops = 2e21;
  y.sizes_per_budget = 9;
  y.size_span_decades = 2.1;
  y.noise = 0.012;
  y.outlier = true;
  y.bias_on = true;
  y.bias_nats = 0.15;
  y.bias_mode = BiasMode::per_budget;
  y.offset_on = true;
  y.offset_nats = 0.07;
  MoeSettings& m = s.moe;
  m.n_experts = 16;
  m.top_k = 4;
  m.tokens_per_batch = 512;
  m.seed = 3;
  m.aux_on = true;
  m.aux_weight = 0.02;
  m.z_on = false;
  m.z_weight = 0.004;
  m.capacity_factor = 1.5;
  m.learning_rate = 12.5;
  m.shared_expert = true;
  m.renormalize = false;
  m.steps = 450;
  m.shown_step = 120;
  m.prefill_tokens = 16384;
  m.link_gbps = 400;
  m.latency_us = 2.5;
  m.pipeline_chunks = 12;
  m.pipeline_stages = 6;
  m.compute_ms = 35;
  m.transfer_ms = 8;
  RooflineSettings& r = s.roofline;
  r.overlays = {"H100", "TPU v5e"};
  r.matmul_dim = 4096;
  r.mfu = MfuBudgetInputs{90, 40, 50, 30, 20};
  r.recompute = 1.0;
  r.prefill_mfu = 0.55;
  r.bandwidth_efficiency = 0.8;
  r.step_floor_seconds = 0.0015;
  r.max_chips = 4096;
  r.tile = 256;
  r.per_layer_serial_seconds = 12e-6;
  r.serving_layout.tp = 4;
  r.serving_layout.max_tokens_per_step = 16384;
  r.serving_layout.chunked_prefill = true;
  r.serving_layout.engine_memory_fraction = 0.83;
  r.serving_layout.run_mode = BatchingMode::server;
  r.serving_layout.run_concurrency = 64;
  r.serving_layout.run_request_rate_per_second = 2.5;
  r.serving_layout.run_requests = 3000;
  r.serving_layout.run_prompt_spread_tokens = 256;
  r.serving_layout.run_output_spread_tokens = 32;
  ParallelSettings& p = s.parallel;
  p.mfu_source = MfuSource::predicted;
  p.global_batch_tokens = 8'388'608;
  p.software = "megatron-2022";
  p.pipe_schedule = PipeSchedule::zb_h1;
  p.ep_dispatch = EpDispatch::deduplicated;
  p.cluster = "custom";
  p.gpus_per_node = 4;
  p.scale_up_gb_per_s = 100.5;
  p.scale_out_gb_per_s = 12.5;
  p.even_stages = false;
  p.tp_within_node = false;
  p.tp = 8;
  p.pp = 4;
  p.micro_batch = 2;
  p.etp = 1;
  p.zero = 0;                  // zero is a value, not "auto"
  p.shard = 0;                 // all DP × CP, a value too
  p.lock_recompute("full:2");  // the first 2 layers of each chunk
  Layout chosen;
  chosen.tp = 4;
  chosen.pp = 8;
  chosen.vpp = 2;
  chosen.dp = 8;
  chosen.cp = 2;
  chosen.etp = 2;  // the experts split over 2 of TP's 4 ranks
  chosen.zero = 3;
  chosen.shard = 4;  // hybrid sharding: groups of 4 of the 16 DP × CP ranks
  chosen.micro_batch = 2;
  chosen.sequence_parallel = false;
  chosen.recompute = Checkpointing::full;
  chosen.recompute_layers = 3;  // the first 3 layers of each chunk
  p.chosen = chosen;
  return s;
}

// The document's leaf paths ("budget.days"); arrays are leaves.
void leaf_paths(const QJsonObject& o, const std::string& prefix, std::set<std::string>& out) {
  for (auto it = o.begin(); it != o.end(); ++it) {
    const std::string path = prefix + it.key().toStdString();
    if (it.value().isObject())
      leaf_paths(it.value().toObject(), path + ".", out);
    else
      out.insert(path);
  }
}

}  // namespace

// Every field the document writes is an input the comparison of two plans
// lists (and every listed input is in the document): a field added to the
// scenario and its document without a line in scenario_fields() fails here.
TEST(ScenarioSettingsJson, ScenarioFieldsCoverTheWholeDocument) {
  const std::string text = scenario_to_json(worked_scenario(kChinchilla));
  std::set<std::string> paths;
  leaf_paths(QJsonDocument::fromJson(QByteArray::fromStdString(text)).object(), "", paths);
  paths.erase("format");
  paths.erase("version");
  auto covered = [](const std::string& path, const std::string& key) {
    return path == key || path.rfind(key + ".", 0) == 0;
  };
  for (const std::string& p : paths) {
    bool found = false;
    for (const ScenarioField& f : scenario_fields()) found = found || covered(p, f.key);
    EXPECT_TRUE(found) << "the document's \"" << p << "\" is not in scenario_fields()";
  }
  for (const ScenarioField& f : scenario_fields()) {
    bool found = false;
    for (const std::string& p : paths) found = found || covered(p, f.key);
    EXPECT_TRUE(found) << "scenario_fields()' \"" << f.key << "\" is not in the document";
  }
}

TEST(ScenarioSettingsJson, EverySettingRoundTripsExactly) {
  const Scenario s = worked_scenario(kChinchilla);
  ASSERT_NO_THROW(s.validate());
  const std::string text = scenario_to_json(s);
  const Scenario back = scenario_from_json(text);
  EXPECT_EQ(back.isoflops, s.isoflops);
  EXPECT_EQ(back.moe, s.moe);
  EXPECT_EQ(back.roofline, s.roofline);
  EXPECT_EQ(back.parallel, s.parallel);
  EXPECT_EQ(back, s);
  EXPECT_EQ(scenario_to_json(back), text);  // stable bytes
  // Every ladder point, bit for bit (shortest round-trip decimal in the file).
  ASSERT_EQ(back.isoflops.loaded->points.size(), 245u);
  for (std::size_t i = 0; i < 245; ++i) {
    const LadderPoint &a = s.isoflops.loaded->points[i], &b = back.isoflops.loaded->points[i];
    EXPECT_EQ(std::memcmp(&a.n_tokens, &b.n_tokens, sizeof(double)), 0) << i;
    EXPECT_EQ(std::memcmp(&a.loss, &b.loss, sizeof(double)), 0) << i;
  }
  EXPECT_NE(text.find("\"file_name\": \"svg_extracted_data.csv\""), std::string::npos);
  EXPECT_EQ(text.find(kData), std::string::npos);  // the file's name, not the path
}

TEST(ScenarioSettingsJson, SavedLadderAndSettingsReopenFromTheFileAlone) {
  const auto dir = std::filesystem::temp_directory_path() / "napkin_settings_json_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto csv = dir / "chinchilla.csv";
  std::filesystem::copy_file(kChinchilla, csv);
  const Scenario s = worked_scenario(csv.string());
  const std::string path = (dir / "plan.napkin.json").string();
  save_scenario_file(s, path);
  std::filesystem::remove(csv);  // "another machine": the CSV is gone

  const Scenario back = load_scenario_file(path);
  EXPECT_EQ(back, s);
  ASSERT_TRUE(back.isoflops.loaded.has_value());
  EXPECT_EQ(back.isoflops.loaded->file_name, "chinchilla.csv");
  EXPECT_EQ(back.isoflops.loaded->data_rows, 245);
  EXPECT_EQ(back.isoflops.loaded->columns.n_params, "Model Size");
  // The loss cut applies on use: the paper's 240 runs, and the replication's fit.
  const std::vector<LadderPoint> pts = ladder_points(back.isoflops);
  ASSERT_EQ(pts.size(), 240u);
  const FitResult f = fit_parametric(pts);
  EXPECT_NEAR(f.law.E, 1.8172, 5e-4);  // SOURCE.md's Huber-sum grid fit
  EXPECT_NEAR(f.law.alpha, 0.34731, 2e-4);
  EXPECT_NEAR(f.law.beta, 0.36718, 2e-4);
  std::filesystem::remove_all(dir);
}

TEST(ScenarioSettingsJson, VersionOneDocumentsOpenWithTheDefaults) {
  const Scenario v1 = load_scenario_file(kData + "/scenarios/mixtral-tpu-v5p.napkin.json");
  EXPECT_EQ(v1.chip, "TPU v5p");
  EXPECT_EQ(v1.isoflops, IsoflopsSettings{});
  EXPECT_EQ(v1.moe, MoeSettings{});
  EXPECT_EQ(v1.roofline, RooflineSettings{});
  EXPECT_EQ(v1.parallel, ParallelSettings{});
  // Re-saved, it is a version-2 document carrying the defaults.
  const std::string text = scenario_to_json(v1);
  EXPECT_NE(text.find("\"version\": 2"), std::string::npos);
  EXPECT_NE(text.find("\"isoflops\""), std::string::npos);
  EXPECT_EQ(scenario_from_json(text), v1);
  // A version-3 document is from a newer Napkin.
  EXPECT_NE(error_of(R"({"format":"napkin-scenario","version":3})").find("newer Napkin"),
            std::string::npos);
}

TEST(ScenarioSettingsJson, PartialSectionsKeepDefaultsAndPresetsFillTheLaw) {
  const Scenario s = scenario_from_json(
      doc(R"("isoflops":{"fit":{"huber_delta":0.01},"ladder":{"synthetic":{"law_preset":)"
          R"("besiroglu2024"}}},"moe":{"experts":64,"top_k":8},"roofline":{"overlays":["H200"]})"));
  EXPECT_DOUBLE_EQ(s.isoflops.fit.huber_delta, 0.01);
  EXPECT_EQ(s.isoflops.fit.resamples, 500);
  EXPECT_EQ(s.isoflops.synthetic.law, besiroglu2024_law());
  EXPECT_EQ(s.moe.n_experts, 64);
  EXPECT_EQ(s.moe.top_k, 8);
  EXPECT_EQ(s.moe.steps, 300);
  EXPECT_EQ(s.moe.shown_step, 0);  // a file from before the field: live at the last step
  ASSERT_EQ(s.roofline.overlays.size(), 1u);
  EXPECT_EQ(s.roofline.overlays[0], "H200");
}

TEST(ScenarioSettingsJson, ErrorsNameTheFieldAndValue) {
  EXPECT_EQ(error_of(doc(R"("isoflops":{"fit":{"huber_delta":0}})")),
            "s.json: field \"isoflops.fit.huber_delta\": expected a number in 1.00e-09 – 1 "
            "log-loss units, found 0");
  EXPECT_EQ(error_of(doc(R"("moe":{"pipeline":{"stages":0}})")),
            "s.json: field \"moe.pipeline.stages\": expected a whole number in 1 – 100,000 "
            "pipeline stages, found 0");
  EXPECT_NE(error_of(doc(R"("roofline":{"overlays":["H100","Z9000"]})"))
                .find("\"roofline.overlays[1]\": expected one of"),
            std::string::npos);
  EXPECT_NE(
      error_of(doc(R"("isoflops":{"fit":{"estimator":"adam"}})")).find("isoflops.fit.estimator"),
      std::string::npos);
  const std::string pts = R"("columns":{"n_params":"N","tokens":"D","loss":"loss"},)";
  EXPECT_NE(error_of(doc(R"("isoflops":{"ladder":{"loaded":{)" + pts +
                         R"("points":[[1e8,2e9,3,0],[1e8,-2e9,3,0]]}}})"))
                .find("\"isoflops.ladder.loaded.points[1]\""),
            std::string::npos);
  EXPECT_NE(error_of(doc(R"("isoflops":{"ladder":{"loaded":{)" + pts + R"("points":[[1,2,3]]}}})"))
                .find("points[0]"),
            std::string::npos);
  EXPECT_NE(error_of(doc(R"("isoflops":{"ladder":{"loaded":{"file_name":"a.csv"}}})"))
                .find("isoflops.ladder.loaded.points"),
            std::string::npos);
  // Five runs, all over the loss cut: the document is refused, naming the cut.
  std::string five;
  for (int i = 1; i <= 5; ++i)
    five += std::string(i > 1 ? "," : "") + "[" + std::to_string(i) + "e8,2e9,4.0,0]";
  EXPECT_NE(
      error_of(doc(R"("isoflops":{"ladder":{"loaded":{)" + pts + R"("points":[)" + five + "]}}}"))
          .find("IsoFLOPs settings: max_loss"),
      std::string::npos);
  // A published preset with edited constants.
  EXPECT_NE(error_of(doc(R"("isoflops":{"ladder":{"synthetic":{"law_preset":"besiroglu2024",)"
                         R"("law":{"E":1.5}}}})"))
                .find("custom"),
            std::string::npos);
  EXPECT_NE(error_of(doc(R"("moe":{"experts":4,"top_k":6})")).find("top_k"), std::string::npos);
}

TEST(ScenarioSettingsJson, DocumentsWithoutTheParallelSectionKeepItsDefaults) {
  // A version-2 document written before the Parallelism panel existed.
  const Scenario s = scenario_from_json(doc(R"("roofline":{"tile":256})"));
  EXPECT_EQ(s.parallel, ParallelSettings{});
  EXPECT_EQ(s.roofline.tile, 256);
  // A partial section: the rest keeps its defaults; null locks mean "auto".
  const Scenario p = scenario_from_json(
      doc(R"("parallel":{"mfu_source":"predicted","locks":{"tp":8,"pp":null,"recompute":"full"},)"
          R"("chosen":{"tp":8,"pp":4,"dp":31}})"));
  EXPECT_EQ(p.parallel.mfu_source, MfuSource::predicted);
  EXPECT_EQ(p.parallel.tp, 8);
  EXPECT_FALSE(p.parallel.pp);
  EXPECT_EQ(p.parallel.recompute, Checkpointing::full);
  EXPECT_EQ(p.parallel.global_batch_tokens, ParallelSettings{}.global_batch_tokens);
  ASSERT_TRUE(p.parallel.chosen);
  EXPECT_EQ(p.parallel.chosen->pp, 4);
  EXPECT_EQ(p.parallel.chosen->dp, 31);
  EXPECT_EQ(p.parallel.chosen->vpp, 1);
  // Written back, the unset locks and the chosen layout survive.
  EXPECT_EQ(scenario_from_json(scenario_to_json(p)), p);
  Scenario cleared = p;
  cleared.parallel.chosen.reset();
  cleared.parallel.tp.reset();
  EXPECT_EQ(scenario_from_json(scenario_to_json(cleared)), cleared);
}

TEST(ScenarioSettingsJson, RecomputeModulesRoundTrip) {
  Scenario s;
  Layout l = parse_layout("tp=8,pp=1,recompute=selective:layernorm+mlp", s.n_chips);
  s.parallel.chosen = l;
  const Scenario back = scenario_from_json(scenario_to_json(s));
  ASSERT_TRUE(back.parallel.chosen);
  EXPECT_EQ(*back.parallel.chosen, l);
  EXPECT_NE(error_of(doc(R"("parallel":{"chosen":{"recompute_modules":"moe"}})"))
                .find("parallel.chosen.recompute_modules"),
            std::string::npos);
}

// The recompute lock is written as --layout's recompute value; the plain
// names earlier files hold read as before.
TEST(ScenarioSettingsJson, TheRecomputeLockRoundTripsAsTheLayoutValue) {
  for (const char* text : {"full:4", "uniform:2", "selective:op", "selective:layernorm+mlp"}) {
    Scenario s;
    s.parallel.lock_recompute(text);
    const std::string json = scenario_to_json(s);
    const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
    EXPECT_EQ(o["parallel"].toObject()["locks"].toObject()["recompute"].toString().toStdString(),
              text);
    EXPECT_EQ(scenario_from_json(json).parallel, s.parallel) << text;
  }
  const Scenario old = scenario_from_json(doc(R"("parallel":{"locks":{"recompute":"selective"}})"));
  EXPECT_EQ(old.parallel.recompute_lock_text(), "selective");
  const std::string bad = error_of(doc(R"("parallel":{"locks":{"recompute":"full:0"}})"));
  EXPECT_NE(bad.find("parallel.locks.recompute"), std::string::npos) << bad;
  EXPECT_NE(bad.find("full:N"), std::string::npos) << bad;
}

TEST(ScenarioSettingsJson, ParallelErrorsNameTheField) {
  EXPECT_EQ(error_of(doc(R"("parallel":{"locks":{"tp":0}})")),
            "s.json: field \"parallel.locks.tp\": expected an integer in [1, 65,536], found 0");
  EXPECT_NE(error_of(doc(R"("parallel":{"mfu_source":"guessed"})")).find("parallel.mfu_source"),
            std::string::npos);
  EXPECT_NE(error_of(doc(R"("parallel":{"software":"megatron-1999"})")).find("parallel.software"),
            std::string::npos);
  const std::string schedule = error_of(doc(R"("parallel":{"pipe_schedule":"gpipe"})"));
  EXPECT_NE(schedule.find("parallel.pipe_schedule"), std::string::npos) << schedule;
  EXPECT_NE(schedule.find("zb-h1"), std::string::npos) << schedule;  // the accepted names
  const std::string dispatch = error_of(doc(R"("parallel":{"ep_dispatch":"deepep"})"));
  EXPECT_NE(dispatch.find("parallel.ep_dispatch"), std::string::npos) << dispatch;
  EXPECT_NE(dispatch.find("alltoall, flex"), std::string::npos) << dispatch;
  EXPECT_NE(error_of(doc(R"("parallel":{"chosen":{"zero":5}})")).find("parallel.chosen.zero"),
            std::string::npos);
  EXPECT_NE(error_of(doc(R"("parallel":{"chosen":7})")).find("parallel.chosen"), std::string::npos);
  EXPECT_NE(error_of(doc(R"("parallel":{"locks":{"shard":-2}})")).find("parallel.locks.shard"),
            std::string::npos);
  EXPECT_NE(error_of(doc(R"("parallel":{"cluster":"dgx-z"})")).find("parallel.cluster"),
            std::string::npos);
  EXPECT_NE(error_of(doc(R"("parallel":{"cluster_profile":"no/such/profile.json"})"))
                .find("parallel.cluster_profile"),
            std::string::npos);
  EXPECT_NE(error_of(doc(R"("parallel":{"gpus_per_node":0})")).find("parallel.gpus_per_node"),
            std::string::npos);
  EXPECT_NE(
      error_of(doc(R"("parallel":{"scale_out_gb_per_s":-1})")).find("parallel.scale_out_gb_per_s"),
      std::string::npos);
}

// Issue 28: a run of record inside the format's ranges but far over the one
// work budget is refused when the file is read, naming the steps and the budget.
TEST(ScenarioSettingsJson, AHeavyMoeRunOfRecordIsRefusedByTheReader) {
  for (const char* moe : {R"("moe":{"experts":1024,"top_k":1024,"tokens_per_batch":65536,)"
                          R"("steps":5000})",
                          R"("moe":{"experts":256,"top_k":8,"tokens_per_batch":4096,)"
                          R"("steps":5000})"}) {
    const std::string e = error_of(doc(moe));
    EXPECT_NE(e.find("steps"), std::string::npos) << e;
    EXPECT_NE(e.find("5e8"), std::string::npos) << e;
    EXPECT_NE(e.find("found 5000"), std::string::npos) << e;
  }
  // The sliders' corners at the default 300 steps stay inside the budget.
  EXPECT_EQ(error_of(doc(R"("moe":{"experts":256,"top_k":8,"tokens_per_batch":4096})")), "");
}

// Issue 27, item 2: the MoE scrub position is kept, and a step past the run of
// record is refused naming the field, the value and the range.
TEST(ScenarioSettingsJson, TheMoeShownStepRoundTripsAndStaysInItsRun) {
  Scenario s;
  s.moe.steps = 1284;
  s.moe.shown_step = 500;
  const std::string text = scenario_to_json(s);
  EXPECT_NE(text.find("\"shown_step\": 500"), std::string::npos);
  EXPECT_EQ(scenario_from_json(text).moe.shown_step, 500);
  EXPECT_EQ(error_of(doc(R"("moe":{"steps":400,"shown_step":401})")),
            "s.json: field \"moe.shown_step\": expected an integer in [0, 400] (a step of the run "
            "of record's steps; 0 shows its last), found 401");
  EXPECT_NE(error_of(doc(R"("moe":{"shown_step":-1})")).find("\"moe.shown_step\""),
            std::string::npos);
  EXPECT_NE(error_of(doc(R"("moe":{"shown_step":2.5})")).find("found 2.5"), std::string::npos);
  EXPECT_EQ(error_of(doc(R"("moe":{"steps":400,"shown_step":400})")), "");
}

// A choice the document may leave unset (the pipeline schedule, the expert
// dispatch: "the software's") is written as null and read back unset; a name
// sets it, and null over a set value clears it.
TEST(ScenarioSettingsJson, AnUnsetChoiceIsNullAndReadsBackUnset) {
  const QJsonObject fresh =
      QJsonDocument::fromJson(QByteArray::fromStdString(scenario_to_json(Scenario{})))
          .object()[QStringLiteral("parallel")]
          .toObject();
  EXPECT_TRUE(fresh[QStringLiteral("pipe_schedule")].isNull());
  EXPECT_TRUE(fresh[QStringLiteral("ep_dispatch")].isNull());
  Scenario s = scenario_from_json(doc(R"("parallel":{"pipe_schedule":"dualpipe"})"));
  ASSERT_TRUE(s.parallel.pipe_schedule);
  EXPECT_EQ(*s.parallel.pipe_schedule, PipeSchedule::dualpipe);
  EXPECT_FALSE(s.parallel.ep_dispatch);
  s = scenario_from_json(scenario_to_json(s));
  ASSERT_TRUE(s.parallel.pipe_schedule);
  EXPECT_EQ(*s.parallel.pipe_schedule, PipeSchedule::dualpipe);
  s = scenario_from_json(doc(R"("parallel":{"pipe_schedule":null,"ep_dispatch":"flex"})"));
  EXPECT_FALSE(s.parallel.pipe_schedule);
  ASSERT_TRUE(s.parallel.ep_dispatch);
  EXPECT_EQ(*s.parallel.ep_dispatch, EpDispatch::deduplicated);
}

// Every registered choice's every option (and "unset", where it may be) is
// written at the choice's place in the document and read back as itself.
TEST(ScenarioSettingsJson, EveryRegisteredChoiceRoundTripsThroughTheFile) {
  for (const ScenarioChoice& c : scenario_choices()) {
    std::vector<std::string> names;
    if (!c.unset_label.empty()) names.emplace_back();
    for (const ChoiceOption& o : c.options()) names.push_back(o.name);
    for (const std::string& name : names) {
      SCOPED_TRACE(std::string(c.key) + " = \"" + name + "\"");
      Scenario s;
      set_choice(c, s, name);
      const std::string text = scenario_to_json(s);
      QJsonValue v = QJsonDocument::fromJson(QByteArray::fromStdString(text)).object();
      for (const QString& part : QString::fromUtf8(c.key.data(), c.key.size()).split('.'))
        v = v.toObject()[part];
      if (name.empty())
        EXPECT_TRUE(v.isNull());
      else
        EXPECT_EQ(v.toString().toStdString(), name);
      EXPECT_EQ(c.get(scenario_from_json(text)), name);
    }
  }
}

// Every registered switch, on and off, is written at its place in the
// document as a JSON boolean (or its word: "asynchronous") and read back as
// itself.
TEST(ScenarioSettingsJson, EveryRegisteredSwitchRoundTripsThroughTheFile) {
  for (const ScenarioSwitch& w : scenario_switches())
    for (bool on : {false, true}) {
      SCOPED_TRACE(std::string(w.key) + (on ? " on" : " off"));
      Scenario s;
      w.set(s, on);
      const std::string text = scenario_to_json(s);
      QJsonValue v = QJsonDocument::fromJson(QByteArray::fromStdString(text)).object();
      for (const QString& part : QString::fromUtf8(w.key.data(), w.key.size()).split('.'))
        v = v.toObject()[part];
      if (w.json_on.empty()) {
        ASSERT_TRUE(v.isBool());
        EXPECT_EQ(v.toBool(), on);
      } else {
        EXPECT_EQ(v.toString().toStdString(), on ? w.json_on : w.json_off);
      }
      EXPECT_EQ(w.get(scenario_from_json(text)), on);
    }
}
