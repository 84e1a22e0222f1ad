// Phase 04: parallel — the layout planner (memory per rank, step time, MFU),
// for one layout (--layout) or the search over every layout.
#include <QJsonArray>
#include <QJsonObject>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "calibration.h"
#include "cli_cluster.h"
#include "cli_common.h"
#include "cli_parallel.h"
#include "cli_params.h"
#include "cli_track_record.h"
#include "cluster_json.h"
#include "config_import.h"
#include "format.h"
#include "framework_config.h"
#include "hardware.h"
#include "inputs.h"
#include "parallel.h"
#include "parallel_settings.h"
#include "scenario.h"
#include "scenario_json.h"
#include "track_record.h"
#include "validate.h"

namespace napkin::cli {

namespace {

ModelShape preset_shape(const std::string& name) {
  for (const ModelPreset& p : model_presets())
    if (p.name == name) return p.shape;
  throw UsageError(unknown_name_text("--preset", name, model_presets(),
                                     [](const ModelPreset& p) { return p.name; }));
}

// A preset by name, else what params takes: --config, --model-dir or the
// shape flags by hand (cli_params.h).
ModelShape job_shape_from_flags(Args& a) {
  if (const auto preset = a.value("--preset")) {
    if (a.given("--config") || a.given("--model-dir"))
      throw UsageError("--preset excludes --config and --model-dir; give one model");
    return preset_shape(*preset);
  }
  return shape_from_flags(a).shape;
}

}  // namespace

QJsonObject layout_json(const LayoutResult& r) {
  const Layout& l = r.layout;
  QJsonObject o = layout_json(l);
  o["fits"] = r.fits;
  o["reason"] = QString::fromStdString(r.reason);
  const StageMemory& m = r.memory;
  o["memory"] = QJsonObject{{"weights", json_int(m.weights_bytes)},
                            {"grads", json_int(m.grads_bytes)},
                            {"optimizer", json_int(m.optimizer_bytes)},
                            {"activations", json_int(m.activations_bytes)},
                            {"buffers", json_int(m.buffers_bytes)},
                            {"runtime", json_int(m.runtime_bytes)},
                            {"comm_buffers", json_int(m.comm_buffers_bytes)},
                            {"fragmentation", json_int(m.fragmentation_bytes)},
                            {"non_tensor_measured", m.non_tensor_measured},
                            {"non_tensor_xla", m.non_tensor_xla},
                            {"non_tensor_rocm", m.non_tensor_rocm},
                            {"total", json_int(m.total_bytes)},
                            {"peak_stage", json_int(m.stage)}};
  o["step_seconds"] = r.step_seconds;
  const StepTime& t = r.time;
  o["time"] = QJsonObject{{"compute", t.compute_seconds},    {"recompute", t.recompute_seconds},
                          {"tp_comm", t.tp_comm_seconds},    {"pp_bubble", t.pp_bubble_seconds},
                          {"pp_comm", t.pp_comm_seconds},    {"dp_comm", t.dp_comm_seconds},
                          {"ep_comm", t.ep_comm_seconds},    {"cp_comm", t.cp_comm_seconds},
                          {"optimizer", t.optimizer_seconds}};
  o["compute_by_kernel"] = QJsonObject{{"gemm", t.kernels.gemm_seconds},
                                       {"attention", t.kernels.attention_seconds},
                                       {"elementwise", t.kernels.elementwise_seconds},
                                       {"host_wait", t.kernels.host_wait_seconds}};
  o["tokens_per_second_per_chip"] = r.tokens_per_second_per_chip;
  o["mfu"] = r.mfu;
  o["hfu"] = r.hfu;
  o["days"] = r.days;
  return o;
}

static std::string gb(std::int64_t bytes) { return format_bytes(static_cast<double>(bytes), 1); }

void print_layout(const LayoutResult& r) {
  std::printf("%s\n", to_string(r.layout).c_str());
  row("fits", r.fits ? "yes" : "no: " + r.reason, kReportLabelWidth);
  const StageMemory& m = r.memory;
  std::printf("Memory per chip (peak: stage %lld, %lld layers, %lld in flight)\n",
              static_cast<long long>(m.stage), static_cast<long long>(m.layers),
              static_cast<long long>(m.in_flight));
  row("weights", gb(m.weights_bytes), kReportLabelWidth);
  row("gradients", gb(m.grads_bytes), kReportLabelWidth);
  row("optimizer states", gb(m.optimizer_bytes), kReportLabelWidth);
  row("activations", gb(m.activations_bytes), kReportLabelWidth);
  row("buffers", gb(m.buffers_bytes), kReportLabelWidth);
  if (m.non_tensor_measured) {
    row("outside the tensors", gb(m.runtime_bytes) + " (measured)", kReportLabelWidth);
  } else if (m.non_tensor_xla) {
    row("outside the tensors", "none counted (XLA plans every buffer)", kReportLabelWidth);
  } else {
    row(m.non_tensor_rocm ? "HIP runtime, kernels" : "CUDA context, kernels", gb(m.runtime_bytes),
        kReportLabelWidth);
    row(m.non_tensor_rocm ? "RCCL buffers" : "NCCL buffers",
        gb(m.comm_buffers_bytes) + " (" + std::to_string(m.communicators) + " communicators)",
        kReportLabelWidth);
    row("allocator fragmentation", gb(m.fragmentation_bytes), kReportLabelWidth);
  }
  row("total", gb(m.total_bytes) + " of " + gb(r.hbm_bytes) + " device memory", kReportLabelWidth);
  const StepTime& t = r.time;
  std::printf("Step %s (%lld micro-batches)\n", format_seconds(r.step_seconds).c_str(),
              static_cast<long long>(r.micro_batches));
  auto part = [&](const char* name, double s) {
    row(name,
        (s > 0 ? format_seconds(s) : std::string("0 s")) + "  (" +
            format_percent(s / r.step_seconds) + ")",
        kReportLabelWidth);
  };
  part("compute", t.compute_seconds);
  part("recompute", t.recompute_seconds);
  part("TP communication", t.tp_comm_seconds);
  part("pipeline bubble", t.pp_bubble_seconds);
  part("pipeline sends", t.pp_comm_seconds);
  part("DP communication", t.dp_comm_seconds);
  part("EP all-to-all", t.ep_comm_seconds);
  part("CP exchange", t.cp_comm_seconds);
  part("optimizer", t.optimizer_seconds);
  std::printf("Compute and recompute by kernel\n");
  part("GEMMs", t.kernels.gemm_seconds);
  part("attention", t.kernels.attention_seconds);
  part("element-wise and norms", t.kernels.elementwise_seconds);
  part("waiting for the host", t.kernels.host_wait_seconds);
  std::printf("Throughput\n");
  row("tokens/s per chip", format_grouped(r.tokens_per_second_per_chip, 0), kReportLabelWidth);
  row("MFU (model FLOPs)", format_percent(r.mfu), kReportLabelWidth);
  row("HFU (with recompute)", format_percent(r.hfu), kReportLabelWidth);
  row("days for the tokens", format_grouped(r.days, 1), kReportLabelWidth);
}

namespace {

// The keys a --layout text gives, once each ("micro_batch" read as "mb").
std::vector<std::string> layout_keys(const std::string& text) {
  std::vector<std::string> keys;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    std::string key = item.substr(0, item.find('='));
    if (key == "micro_batch") key = "mb";
    keys.push_back(key);
  }
  return keys;
}

bool has(const std::vector<std::string>& keys, std::string_view key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

// A partial --layout fixes the axes it names and searches the others among
// these; context and expert parallelism stay at 1 unless named (the search
// without --layout explores them); the experts' TP is searched between tp and
// 1 (EP folded over TP) unless named.
constexpr std::array<std::string_view, 6> kSearchedAxes{"tp",   "pp", "vpp",
                                                        "zero", "mb", "recompute"};

SearchOptions locks_from(const std::vector<std::string>& keys, const Layout& l) {
  SearchOptions o;
  if (has(keys, "tp")) o.tp = l.tp;
  if (has(keys, "pp")) o.pp = l.pp;
  if (has(keys, "vpp") || (has(keys, "pp") && l.pp == 1)) o.vpp = l.vpp;
  o.cp = l.cp;
  o.ep = l.ep;
  if (has(keys, "etp")) o.etp = l.expert_tp();
  if (has(keys, "zero")) o.zero = l.zero;
  if (has(keys, "shard")) o.shard = l.shard;
  if (has(keys, "mb")) o.micro_batch = l.micro_batch;
  if (has(keys, "recompute")) {
    o.recompute = l.recompute;
    o.recompute_layers = l.recompute_layers;
    o.recompute_group = l.recompute_group;
    o.recompute_modules = l.recompute_modules;
  }
  if (has(keys, "dp")) o.dp = l.dp;
  if (has(keys, "sp")) o.sequence_parallel = l.sequence_parallel;
  return o;
}

// "tp=8,tp=4" (which one?) and an empty --layout are refused, not read as the
// last value or the defaults.
void require_distinct_layout_keys(const std::string& text) {
  const std::vector<std::string> keys = layout_keys(text);
  for (std::size_t k = 0; k < keys.size(); ++k)
    if (std::find(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(k), keys[k]) !=
        keys.begin() + static_cast<std::ptrdiff_t>(k))
      throw UsageError("--layout gives " + keys[k] +
                       " twice; give each of tp, pp, vpp, dp, cp, ep, etp, "
                       "zero, shard, mb, sp, recompute at most once");
  if (keys.empty())
    throw UsageError("--layout needs key=value entries (e.g. tp=8,pp=4); got " + cli::quoted(text));
}

ParallelRequest read_parallel_flags(Args& a) {
  ParallelRequest r;
  r.json = a.flag("--json");
  TrainingJob& job = r.job;
  job.shape = job_shape_from_flags(a);
  job.chip = a.text("--chip", "H100");
  (void)chip_by_name(job.chip);
  job.n_chips = a.count_input("hardware.chips");
  job.seq_len = a.count_input("training.seq_len");
  job.global_batch = a.integer("--global-batch", 512, 1, 1'000'000'000, "sequences");
  job.train_tokens = a.real("--tokens", 15e12, 1, kMaxTrainTokens, "tokens");
  job.optimizer = parse_optimizer(a.choice_input("training.optimizer"));
  r.software = a.choice_input("parallel.software");
  job.software = software_by_name(r.software);
  if (a.flag("--no-flash")) job.software.flash_attention = false;
  if (a.flag("--dropout")) job.software.dropout = true;
  if (a.flag("--fp8")) job.software.fp8_matmuls = true;
  if (const auto schedule = a.optional_choice_input("parallel.pipe_schedule"))
    job.software.pipe_schedule = pipe_schedule_by_name(*schedule);
  if (const auto recipe = a.value("--fp8-recipe")) {
    job.software.fp8_matmuls = true;
    job.software.fp8_recipe = fp8_recipe_by_name(*recipe);
  }
  if (const auto dispatch = a.optional_choice_input("parallel.ep_dispatch"))
    job.software.ep_dispatch = ep_dispatch_by_name(*dispatch);
  if (a.flag("--ep-overlap")) job.software.overlap_ep_comm = true;
  job.software.moe_load_imbalance =
      a.real("--moe-imbalance", 1.0, 1.0, 64.0, "busiest ÷ mean expert tokens");
  job.network = cluster_from_flags(a, job.chip);
  if (const auto gb = a.optional_input("parallel.non_tensor_gb"); gb && *gb > 0)
    job.measured_non_tensor_bytes = std::llround(*gb * 1e9);
  r.profile_path = a.value("--cluster-profile");
  job.attention_flops = a.choice("--mfu-attention", "full", {"full", "causal"}) == "causal"
                            ? CausalMask::causal_half
                            : CausalMask::full_matrix;
  r.layout_text = a.value("--layout");
  r.top = a.integer("--top", 10, 1, 1'000'000, "layouts");
  r.uneven = !a.switch_input("parallel.even_stages");
  r.emit_to = a.choice("--emit", "none", {"none", "megatron", "torchtitan"});
  a.finish();
  if (r.profile_path) {
    const ClusterProfile profile = cluster_profile_flag(*r.profile_path, job.chip);
    job.calibrated = profile.calibrated();
    if (!job.network) job.network = profile.network;  // the cluster the runs ran on
  }
  job.validate();
  return r;
}

ParallelAnswer plan_layouts(const ParallelRequest& r) {
  const TrainingJob& job = r.job;
  ParallelAnswer ans;
  if (r.layout_text) {
    require_distinct_layout_keys(*r.layout_text);
    const std::vector<std::string> keys = layout_keys(*r.layout_text);
    const bool one_stage = has(keys, "pp") && parse_layout(*r.layout_text, job.n_chips).pp == 1;
    for (std::string_view axis : kSearchedAxes)
      if (!has(keys, axis) && !(axis == "vpp" && one_stage)) ans.searched.emplace_back(axis);
    ans.partial = !ans.searched.empty();
    if (ans.partial && job.shape.is_moe() && !has(keys, "etp")) ans.searched.emplace_back("etp");
    if (ans.partial && !has(keys, "shard") && job.software.hybrid_sharding && !job.shape.is_moe())
      ans.searched.emplace_back("shard");
  }
  if (r.layout_text && !ans.partial) {
    const Layout l = parse_layout(*r.layout_text, job.n_chips);
    LayoutResult one = evaluate_layout(job, l);
    if (!one.valid) throw UsageError("--layout: " + one.reason);
    ans.fitting = one.fits ? 1 : 0;
    ans.considered = 1;
    ans.shown.push_back(std::move(one));
  } else {
    SearchOptions options;
    if (ans.partial) {
      const std::vector<std::string> keys = layout_keys(*r.layout_text);
      // Only the product check of parse_layout: the search fills the rest.
      const Layout l = parse_layout(*r.layout_text, job.n_chips);
      options = locks_from(keys, l);
      if (options.tp && *options.tp > job.cluster().chips_per_node) options.tp_within_node = false;
    }
    // A stage count the user fixed is taken as given, even or not.
    options.even_stages = !r.uneven && !options.pp;
    SearchResult s = search_layouts(job, options);
    if (ans.partial && s.layouts.empty())
      throw UsageError("--layout " + *r.layout_text + ": " + s.none_reason);
    ans.considered = static_cast<std::int64_t>(s.layouts.size());
    ans.fitting = s.fitting;
    ans.pareto = static_cast<std::int64_t>(s.pareto.size());
    for (std::size_t i = 0; i < s.layouts.size() && static_cast<std::int64_t>(i) < r.top; ++i)
      ans.shown.push_back(std::move(s.layouts[i]));
    if (ans.shown.empty()) {
      // Say why with the simplest split: data parallel over every chip.
      const LayoutResult plain = evaluate_layout(job, parse_layout("tp=1", job.n_chips));
      throw std::invalid_argument(
          "no valid layout splits " + format_grouped(static_cast<double>(job.n_chips)) +
          " chips for this model and batch (data parallel over all of them: " +
          (plain.valid ? std::string("valid, but the search found nothing") : plain.reason) +
          "); try a chip count with more factors of 2");
    }
  }
  if (r.emit_to != "none") {
    const Layout& l = ans.shown.front().layout;
    ans.flags = r.emit_to == "megatron" ? emit_megatron(job, l) : emit_torchtitan(job, l);
  }
  return ans;
}

}  // namespace

QJsonObject parallel_json(const ParallelRequest& r, const ParallelAnswer& ans) {
  const TrainingJob& job = r.job;
  QJsonObject o;
  o["software"] = QString::fromStdString(r.software);
  QJsonArray changes;
  for (const std::string& c : software_changes(software_by_name(r.software), job.software))
    changes.append(QString::fromStdString(c));
  o["software_changes"] = changes;
  const Network& net = job.cluster();
  o["cluster"] = QJsonObject{
      {"gpus_per_node", json_int(net.chips_per_node)},
      {"scale_up_gb_per_s", net.intra_node_bytes_per_s / 1e9},
      {"scale_out_gb_per_s", net.inter_node_bytes_per_s / 1e9},
      {"source", QString::fromUtf8(net.source.data(), static_cast<qsizetype>(net.source.size()))}};
  o["calibration"] = calibration_json(job, r.profile_path, r.software);
  if (r.layout_text) {
    QJsonArray axes;
    for (const std::string& x : ans.searched) axes.append(QString::fromStdString(x));
    o["searched_axes"] = axes;
  }
  if (ans.flags) o["emit"] = emit_json(r.emit_to, ans.flags->text, ans.flags->caveats);
  if (ans.scenario) add_scenario_json(o, ans);
  o["best"] = !ans.shown.empty() && (r.layout_text || ans.shown.front().fits)
                  ? QJsonValue(layout_json(ans.shown.front()))
                  : QJsonValue();
  // The layout detailed: the scenario's (chosen or fastest that fits), else the best.
  const LayoutResult* detailed = ans.scenario
                                     ? (ans.scenario->layout ? &*ans.scenario->layout : nullptr)
                                 : ans.shown.empty() ? nullptr
                                                     : &ans.shown.front();
  if (!job.calibrated && detailed)
    o["track_record"] = track_record_json(training_track_record(r.software, chip_by_name(job.chip)),
                                          QStringLiteral("mfu"), detailed->mfu);
  QJsonArray arr;
  for (const LayoutResult& l : ans.shown) arr.append(layout_json(l));
  o["layouts"] = arr;
  return o;
}

void print_parallel(const ParallelRequest& r, const ParallelAnswer& ans) {
  const TrainingJob& job = r.job;
  std::printf("Parallelism: %s chips of %s, %lld layers, d_model %lld, %s tokens/step\n",
              format_grouped(static_cast<double>(job.n_chips)).c_str(), job.chip.c_str(),
              static_cast<long long>(job.shape.n_layers), static_cast<long long>(job.shape.d_model),
              format_count(static_cast<double>(job.global_batch * job.seq_len), 2).c_str());
  const Network& net = job.cluster();
  const DomainNames names = domain_names(chip_by_name(job.chip));
  // One decimal, two where the tenths would round a figure (6.25 GB/s).
  auto gb = [](double bytes_per_s) {
    const double g = bytes_per_s / 1e9;
    return format_grouped(g, std::abs(g * 10 - std::round(g * 10)) < 1e-9 ? 1 : 2);
  };
  std::printf("Cluster: %s %s, %s GB/s scale-up and %s GB/s scale-out per %s (%s)\n",
              format_grouped(static_cast<double>(net.chips_per_node)).c_str(),
              std::string(names.per_domain).c_str(), gb(net.intra_node_bytes_per_s).c_str(),
              gb(net.inter_node_bytes_per_s).c_str(), std::string(names.member).c_str(),
              std::string(net.source).c_str());
  for (const SoftwarePreset& p : software_presets())
    if (p.name == r.software) {
      std::printf("Software: %s — %s\n", std::string(p.name).c_str(),
                  std::string(p.description).c_str());
      std::string with;
      for (const std::string& c : software_changes(p.software, job.software))
        with += (with.empty() ? "" : ", ") + c;
      if (!with.empty()) std::printf("  with %s\n", with.c_str());
    }
  std::printf("Constants: %s\n", calibration_text(job, r.profile_path, r.software).c_str());
  if (ans.partial) {
    std::string axes;
    for (const std::string& x : ans.searched) axes += (axes.empty() ? "" : ", ") + x;
    std::printf("--layout fixes what it names; searched: %s\n", axes.c_str());
  }
  if (!r.layout_text || ans.partial) {
    std::printf("%lld valid layouts, %lld fit in HBM, %lld on the memory-time Pareto front\n\n",
                static_cast<long long>(ans.considered), static_cast<long long>(ans.fitting),
                static_cast<long long>(ans.pareto));
    std::printf("  %-4s %-62s %9s %7s %9s\n", "rank", "layout", "step", "MFU", "peak mem");
    for (std::size_t i = 0; i < ans.shown.size(); ++i) {
      const LayoutResult& l = ans.shown[i];
      std::printf("  %-4zu %-62s %9s %7s %9s%s\n", i + 1, to_string(l.layout).c_str(),
                  format_seconds(l.step_seconds).c_str(), format_percent(l.mfu).c_str(),
                  gb(l.memory.total_bytes).c_str(), l.fits ? "" : "  (does not fit)");
    }
    if (ans.scenario) return print_scenario_layout(r, ans);
    if (ans.shown.empty()) return;
    std::printf("\n%s: ", ans.fitting > 0 ? "Best" : "Closest (none fits)");
  }
  print_layout(ans.shown.front());
  if (!job.calibrated)
    print_track_record(training_track_record(r.software, chip_by_name(job.chip)),
                       ans.shown.front().mfu);
  print_emitted(r, ans, ans.shown.front().layout);
}

void print_emitted(const ParallelRequest& r, const ParallelAnswer& ans, const Layout& l) {
  if (ans.flags) {
    std::printf("\nLaunch flags (%s) for %s:\n%s", r.emit_to.c_str(), to_string(l).c_str(),
                ans.flags->text.c_str());
    for (const std::string& c : ans.flags->caveats) std::printf("  note: %s\n", c.c_str());
  }
}

int run_parallel(Args& a) {
  if (const auto path = a.value("--scenario")) return run_parallel_scenario(a, *path);
  const ParallelRequest r = read_parallel_flags(a);
  const ParallelAnswer ans = plan_layouts(r);
  if (r.json)
    print_json(parallel_json(r, ans));
  else
    print_parallel(r, ans);
  return 0;
}

ClusterProfile cluster_profile_flag(const std::string& path, const std::string& chip) {
  ClusterProfile profile;
  try {
    profile = load_profile_file(path);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--cluster-profile: ") + e.what());
  }
  if (profile.chip != chip)
    throw UsageError("--cluster-profile " + path + " was calibrated on " + profile.chip +
                     ", not on " + chip);
  return profile;
}

QJsonObject calibration_json(const TrainingJob& job, const std::optional<std::string>& path,
                             std::string_view software) {
  const CalibratedConstants k = job.constants();
  QJsonObject o{{"calibrated", job.calibrated.has_value()},
                {"runs", json_int(k.runs)},
                {"matmul_efficiency", k.matmul_efficiency},
                {"hbm_efficiency", k.hbm_efficiency},
                {"scale_up_efficiency", k.scale_up_efficiency},
                {"scale_out_efficiency", k.scale_out_efficiency},
                {"host_dispatch_seconds", k.host_dispatch_seconds}};
  if (path) o["profile"] = QString::fromStdString(*path);
  if (job.calibrated) {
    o["framework"] = QString::fromStdString(job.calibrated->framework);
    o["software"] = QString::fromStdString(job.calibrated->software);
    const std::string w = calibration_warning(*job.calibrated, software);
    if (!w.empty()) o["warning"] = QString::fromStdString(w);
  }
  return o;
}

std::string calibration_text(const TrainingJob& job, const std::optional<std::string>& path,
                             std::string_view software) {
  const CalibratedConstants k = job.constants();
  char b[200];
  std::snprintf(b, sizeof b,
                "GEMM %.1f %%, element-wise %.1f %% of HBM, scale-up %.1f %% and scale-out "
                "%.1f %% of the links, %.1f µs of host time per kernel",
                100 * k.matmul_efficiency, 100 * k.hbm_efficiency, 100 * k.scale_up_efficiency,
                100 * k.scale_out_efficiency, 1e6 * k.host_dispatch_seconds);
  if (!job.calibrated) return std::string(b) + " (published constants; no cluster profile)";
  std::string t = std::string(b) + " (calibrated on " + std::to_string(k.runs) + " runs";
  if (!job.calibrated->framework.empty()) t += " under " + job.calibrated->framework;
  t += ": " + path.value_or("profile") + ")";
  if (const std::string w = calibration_warning(*job.calibrated, software); !w.empty())
    t += "\n  warning: the profile was " + w;
  return t;
}

std::optional<Network> cluster_from_flags(Args& a, const std::string& chip) {
  const auto name = a.value("--cluster");
  const auto gpus = a.optional_count_input("parallel.gpus_per_node");
  const auto up = a.optional_input("parallel.scale_up_gb_per_s");
  const auto out = a.optional_input("parallel.scale_out_gb_per_s");
  Network n = chip_by_name(chip).network;
  if (name) {
    bool preset = false;
    for (const ClusterPreset* p : cluster_list()) preset = preset || p->name == *name;
    if (!preset && !std::filesystem::exists(*name)) {
      std::string msg = unknown_name_text(
          "--cluster", *name, cluster_list(), [](const ClusterPreset* p) { return p->name; },
          " or a cluster JSON file");
      msg.insert(std::min(msg.find("; did you mean"), msg.size()), " (no such file)");
      throw UsageError(msg);
    }
    n = preset ? cluster_by_name(*name).network : read_cluster_file(*name).network;
  }
  if (!gpus && !up && !out) {
    if (!name) return std::nullopt;
    return n;  // the preset or the file as it is, with its own source line
  }
  return custom_network(gpus.value_or(n.chips_per_node),
                        up.value_or(n.intra_node_bytes_per_s / 1e9),
                        out.value_or(n.inter_node_bytes_per_s / 1e9), n);
}

namespace {

// The usage line, with the software presets as the choice registry lists them.
const char* parallel_usage() {
  static const std::string usage = [] {
    return "parallel ((--preset NAME | --config FILE | --model-dir DIR | --layers L --d-model D "
           "--d-ff F --heads H --vocab V ... (the shape flags of params: see params --help)) "
           "[--chip H100] [--chips 1024] [--seq 8192] [--global-batch 512] "
           "[--tokens 15e12] [--optimizer " +
           choice_usage("training.optimizer") +
           "] [--layout tp=8,pp=4,vpp=1,cp=1,ep=1,etp=1,zero=1,shard=8,mb=1,sp=on,"
           "recompute=selective (a partial layout searches the axes it leaves out; etp, the "
           "experts' TP, defaults to tp and 1 folds EP over TP; shard, ZeRO's group, defaults "
           "to all DP × CP ranks, fewer make the groups replicas: hybrid sharding)] [--top 10] "
           "[--software " +
           choice_usage("parallel.software") +
           "] [--cluster NAME|FILE] [--gpus-per-node N] [--scale-up-gb-per-s X] "
           "[--non-tensor-gb G] [--scale-out-gb-per-s Y] [--cluster-profile FILE] "
           "[--uneven-stages] [--fp8] [--fp8-recipe delayed|tensorwise|blockwise (implies --fp8)] "
           "[--pipeline-schedule " +
           choice_usage("parallel.pipe_schedule") + "] [--ep-dispatch " +
           choice_usage("parallel.ep_dispatch") +
           "] (flex: DeepEP or HybridEP, one copy per rank and per node) [--ep-overlap (the expert "
           "all-to-alls behind another micro-batch's compute)] [--moe-imbalance 1.0] "
           "[--mfu-attention full|causal] "
           "[--emit megatron|torchtitan] | --scenario FILE [--top 10] [--emit megatron|torchtitan] "
           "[--chip C] [--chips N] [--seq S] [--gpus-per-node G] [--scale-up-gb-per-s X] "
           "[--scale-out-gb-per-s Y] [--non-tensor-gb G] [--layers L] [--d-model D] [--d-ff F] "
           "[--heads H] [--kv-heads K] [--head-dim HD] [--vocab V] [--optimizer O] "
           "[--software S] [--pipeline-schedule S] "
           "[--ep-dispatch D] (each replacing the file's value) "
           "[--save FILE] (a saved scenario's Parallelism panel: its job, its locks' search, the "
           "layout it "
           "runs and the plan's MFU, C and batch))";
  }();
  return usage.c_str();
}

}  // namespace

std::vector<Command> parallel_commands() { return {{"parallel", parallel_usage(), run_parallel}}; }

}  // namespace napkin::cli
