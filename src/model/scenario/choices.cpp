#include "choices.h"

#include <array>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <utility>

#include "algebra.h"
#include "hardware.h"
#include "isoflops_settings.h"
#include "lifetime_dollars.h"
#include "parallel_settings.h"
#include "parallel_software.h"
#include "plan_inputs.h"
#include "plan_law.h"
#include "quantize.h"
#include "scaling.h"
#include "serving_engine.h"
#include "serving_modes.h"
#include "uncertainty.h"
#include "validate.h"

namespace napkin {

namespace {

using S = Scenario;

// Every storage format of quantize.h, listed with its width: "int8 (8.125
// bits)" (the group's scale counted).
std::vector<ChoiceOption> precision_options() {
  std::vector<ChoiceOption> out;
  for (const DtypeStorage& d : dtype_table()) {
    char bits[32];
    std::snprintf(bits, sizeof bits, "%.4g", bits_per_element(d.dtype));
    out.push_back({std::string(d.name), std::string(d.name) + " (" + bits + " bits)"});
  }
  return out;
}

std::vector<ChoiceOption> engine_options() {
  std::vector<ChoiceOption> out;
  for (const ServingEngine& e : serving_engines())
    out.push_back({std::string(e.name), std::string(e.name)});
  return out;
}

// An enum's values, each under the name its to_string gives and a label.
template <typename Enum>
std::vector<ChoiceOption> named(std::initializer_list<std::pair<Enum, const char*>> values) {
  std::vector<ChoiceOption> out;
  for (const auto& [value, label] : values) out.push_back({std::string(to_string(value)), label});
  return out;
}

std::vector<ChoiceOption> optimizer_options() {
  return named<Optimizer>({{Optimizer::adam, "Adam"},
                           {Optimizer::sgd_momentum, "SGD + momentum"},
                           {Optimizer::adafactor, "Adafactor"}});
}

std::vector<ChoiceOption> checkpointing_options() {
  return named<Checkpointing>({{Checkpointing::none, "None"},
                               {Checkpointing::selective, "Selective"},
                               {Checkpointing::full, "Full"}});
}

// Files written before 2026-12 spell bf16 and fp8 training "mixed_bf16" and
// "mixed_fp8".
std::vector<ChoiceOption> train_precision_options() {
  return {{"bf16", "bf16", "mixed_bf16"}, {"fp8", "FP8 GEMMs", "mixed_fp8"}, {"fp32", "fp32", ""}};
}

std::vector<ChoiceOption> estimator_options() {
  return named<Estimator>({{Estimator::huber_log, "huber-log — Huber on log L"},
                           {Estimator::ls_log, "ls-log — least squares on log L"},
                           {Estimator::ls_linear, "ls-linear — least squares on L"},
                           {Estimator::seed_cd, "seed-cd — the seed's toy"}});
}

std::vector<ChoiceOption> law_preset_options() {
  return named<LawPreset>({{LawPreset::chinchilla_approach3, "Chinchilla Approach 3"},
                           {LawPreset::besiroglu2024, "Besiroglu et al. 2024 replication"},
                           {LawPreset::custom, "Custom"}});
}

std::vector<ChoiceOption> candidate_options() {
  return named<CandidatePreset>(
      {{CandidatePreset::fitted_law, "The fitted law, perturbed"},
       {CandidatePreset::seed_candidate, "Trade-off candidate (\u03b1 .38, \u03b2 .26)"},
       {CandidatePreset::chinchilla_approach3, "Chinchilla Approach 3"},
       {CandidatePreset::besiroglu2024, "Besiroglu et al. 2024"}});
}

std::vector<ChoiceOption> bias_mode_options() {
  return named<BiasMode>(
      {{BiasMode::fixed_schedule, "fixed_schedule"}, {BiasMode::per_budget, "per_budget"}});
}

std::vector<ChoiceOption> software_options() {
  std::vector<ChoiceOption> out;
  for (const SoftwarePreset& p : software_presets())
    out.push_back({std::string(p.name), std::string(p.name)});
  return out;
}

std::vector<ChoiceOption> pipe_schedule_options() {
  return named<PipeSchedule>({{PipeSchedule::one_f_one_b, "1F1B"},
                              {PipeSchedule::zb_h1, "zb-h1"},
                              {PipeSchedule::dualpipe, "DualPipe"}});
}

std::vector<ChoiceOption> ep_dispatch_options() {
  return named<EpDispatch>({{EpDispatch::all_to_all, "all-to-all"},
                            {EpDispatch::deduplicated, "flex (DeepEP, HybridEP)"}});
}

// An optional enum's name, "" when unset.
template <typename Enum>
std::string optional_name(const std::optional<Enum>& v) {
  return v ? std::string(to_string(*v)) : std::string();
}

std::vector<ChoiceOption> objective_options() {
  return named<Objective>(
      {{Objective::flops, "Lifetime FLOPs"}, {Objective::dollars, "Lifetime dollars"}});
}

// The named systems, then "custom" (the numbers typed beside it).
std::vector<ChoiceOption> cluster_options() {
  std::vector<ChoiceOption> out;
  for (const ClusterPreset* p : cluster_list())
    out.push_back({std::string(p->name), std::string(p->name)});
  out.push_back({"custom", "custom"});
  return out;
}

std::vector<ChoiceOption> mfu_source_options() {
  return named<MfuSource>({{MfuSource::assumed, "assumed (slider)"},
                           {MfuSource::predicted, "predicted (this layout)"}});
}

std::vector<ChoiceOption> plan_mode_options() {
  return named<PlanMode>(
      {{PlanMode::budget, "Budget \u2192 model"}, {PlanMode::train_model, "Train this model"}});
}

std::vector<ChoiceOption> law_options() {
  return named<LawChoice>({{LawChoice::replication, "Replication (Besiroglu 2024)"},
                           {LawChoice::chinchilla_paper, "Chinchilla paper (Hoffmann 2022)"},
                           {LawChoice::fitted, "Fitted to the IsoFLOPs ladder"}});
}

std::vector<ChoiceOption> run_mode_options() {
  return named<BatchingMode>({{BatchingMode::static_batch, "static"},
                              {BatchingMode::offline, "offline"},
                              {BatchingMode::server, "server"}});
}

std::vector<ChoiceOption> range_shape_options() {
  return named<RangeShape>(
      {{RangeShape::triangular, "Triangular"}, {RangeShape::lognormal, "Log-normal"}});
}

// Built on first use: some descriptions are the planner's (plan_inputs.h).
const auto& choice_table() {
  static const InputInfo& shape = plan_input_info("range_shape");
  static const std::string plan_mode_tooltip =
      std::string(plan_input_info("plan_mode").description) +
      " In train mode the model is the scenario's shape (Model group below).";
  static const std::array kChoices{
      ScenarioChoice{
          .key = "training.optimizer",
          .section = "training",
          .json_key = "optimizer",
          .flag = "--optimizer",
          .label = "Optimizer",
          .compare_name = "Optimizer",
          .tooltip = "Optimizer state per parameter in mixed precision: Adam 12 B (fp32 master + m "
                     "+ v), SGD-momentum 8 B, Adafactor 4 B; plus 2 B weights and 2 B grads.",
          .default_name = "adam",
          .options = optimizer_options,
          .get = [](const S& s) { return std::string(to_string(s.training.optimizer)); },
          .set = [](S& s, std::string_view name) { s.training.optimizer = parse_optimizer(name); }},
      ScenarioChoice{
          .key = "training.precision",
          .section = "training",
          .json_key = "precision",
          .flag = "--train-precision",
          .label = "Training precision",
          .compare_name = "Precision",
          .tooltip =
              "bf16: mixed precision (bf16 weights and gradients, fp32 master and moments). "
              "FP8: the same states with the GEMMs at the chip's FP8 peak and their saved "
              "inputs in FP8 (Transformer Engine); the Parallelism model times it, and a "
              "predicted MFU carries its speed-up into the budget. Its loss cost is Kumar "
              "et al. 2024's effective parameter count at 8 bits (their Table 2 constants, "
              "fitted on 30M-220M-parameter models). fp32: weights, gradients and moments in fp32, "
              "no master copy (the Parallelism model times its GEMMs as bf16's).",
          .default_name = "bf16",
          .options = train_precision_options,
          .get = [](const S& s) { return std::string(to_string(s.training.precision)); },
          .set = [](S& s, std::string_view name) { s.training.precision = parse_precision(name); }},
      ScenarioChoice{
          .key = "serving.weight_precision",
          .section = "serving",
          .json_key = "weight_precision",
          .flag = "--weight-precision",
          .label = "Weights",
          .compare_name = "Serving weight precision",
          .tooltip = "Weight precision when serving (group-wise scales counted): weights = N × "
                     "bits ÷ 8; decode reads them every step.",
          .default_name = "bf16",
          .options = precision_options,
          .get = [](const S& s) { return std::string(to_string(s.serving.weight_dtype)); },
          .set = [](S& s, std::string_view name) { s.serving.weight_dtype = parse_dtype(name); }},
      ScenarioChoice{
          .key = "serving.kv_precision",
          .section = "serving",
          .json_key = "kv_precision",
          .flag = "--kv-precision",
          .label = "KV cache",
          .compare_name = "Serving KV-cache precision",
          .tooltip = "KV-cache precision when serving: every request's cache is read each decode "
                     "step at this width.",
          .default_name = "bf16",
          .options = precision_options,
          .get = [](const S& s) { return std::string(to_string(s.serving.kv_dtype)); },
          .set = [](S& s, std::string_view name) { s.serving.kv_dtype = parse_dtype(name); }},
      ScenarioChoice{
          .key = "serving.engine",
          .section = "serving",
          .json_key = "engine",
          .flag = "--engine",
          .label = "Engine",
          .compare_name = "Serving engine",
          .tooltip = "The inference engine: ideal is the roofline bound (one max(FLOPs, bytes) per "
                     "step); the others time GEMMs, attention and element-wise kernels apart and "
                     "add them, with the engine's launch gaps, KV-read pattern, KV blocks and "
                     "reserved memory (napkin-cli serve --help lists each preset).",
          .default_name = "ideal",
          .options = engine_options,
          .get = [](const S& s) { return s.serving.engine; },
          .set =
              [](S& s, std::string_view name) {
                s.serving.engine = std::string(engine_by_name(name).name);
              }},
      ScenarioChoice{
          .key = "training.checkpointing",
          .section = "training",
          .json_key = "checkpointing",
          .flag = "--checkpointing",
          .label = "Checkpointing",
          .compare_name = "Activation checkpointing",
          .tooltip = "Activation memory: none keeps B·T·d·L·16·2 bytes; selective 30 % "
                     "of that; full only the layer boundaries B·T·d·L·2 (and 8N "
                     "instead of 6N FLOPs).",
          .default_name = "selective",
          .options = checkpointing_options,
          .get = [](const S& s) { return std::string(to_string(s.training.checkpointing)); },
          .set =
              [](S& s, std::string_view name) {
                s.training.checkpointing = parse_checkpointing(name);
              }},
      ScenarioChoice{
          .key = "isoflops.ladder.synthetic.law_preset",
          .section = "isoflops.ladder.synthetic",
          .json_key = "law_preset",
          .flag = "",
          .label = "Law",
          .compare_name = "IsoFLOPs: ground-truth law",
          .tooltip = "The law the synthetic ladder is drawn from: L = E + A/N^\u03b1 + B/D^\u03b2 "
                     "(nats/token). Chinchilla Approach 3 (Hoffmann et al. 2022) or the "
                     "Besiroglu et al. 2024 replication; editing a constant makes it custom.",
          .default_name = "chinchilla-approach3",
          .options = law_preset_options,
          .get = [](const S& s) { return std::string(to_string(s.isoflops.synthetic.law_preset)); },
          // A named law brings its constants; custom keeps the ones in place.
          .set =
              [](S& s, std::string_view name) {
                SyntheticLadderSettings& l = s.isoflops.synthetic;
                l.law_preset = parse_law_preset(name);
                if (l.law_preset != LawPreset::custom) l.law = law_of(l.law_preset);
              }},
      ScenarioChoice{
          .key = "isoflops.ladder.synthetic.bias_mode",
          .section = "isoflops.ladder.synthetic",
          .json_key = "bias_mode",
          .flag = "--bias-mode",
          .label = "Design",
          .compare_name = "IsoFLOPs: bias design",
          .tooltip = "fixed_schedule: one schedule for the whole ladder, planned for "
                     "its longest run (Kaplan's design). per_budget: each budget's "
                     "runs share a schedule planned for that budget's longest run.",
          .default_name = "fixed_schedule",
          .options = bias_mode_options,
          .get = [](const S& s) { return std::string(to_string(s.isoflops.synthetic.bias_mode)); },
          .set =
              [](S& s, std::string_view name) {
                s.isoflops.synthetic.bias_mode = parse_bias_mode(name);
              }},
      ScenarioChoice{
          .key = "isoflops.fit.estimator",
          .section = "isoflops.fit",
          .json_key = "estimator",
          .flag = "--estimator",
          .label = "Estimator",
          .compare_name = "IsoFLOPs: estimator",
          .tooltip = "How L = E + A/N^α + B/D^β is fitted: Huber on log residuals "
                     "(Hoffmann et al., Besiroglu et al.; L-BFGS from a 4,500-point "
                     "grid), least squares on log L or on L, or the seed's toy "
                     "coordinate descent (kept for comparison: it barely moves α and "
                     "β).",
          .default_name = "huber-log",
          .options = estimator_options,
          .get = [](const S& s) { return std::string(to_string(s.isoflops.fit.estimator)); },
          .set = [](S& s,
                    std::string_view name) { s.isoflops.fit.estimator = parse_estimator(name); }},
      ScenarioChoice{
          .key = "isoflops.candidate.preset",
          .section = "isoflops.candidate",
          .json_key = "preset",
          .flag = "",
          .label = "Candidate",
          .compare_name = "IsoFLOPs: candidate recipe",
          .tooltip = "The recipe compared with the fitted law (the baseline) at C*: the baseline "
                     "itself, a candidate better per parameter and worse per token (E 1.69, A "
                     "500, \u03b1 0.38, B 380, \u03b2 0.26) or a published law, then perturbed by "
                     "the four controls below.",
          .default_name = "fitted-law",
          .options = candidate_options,
          .get = [](const S& s) { return std::string(to_string(s.isoflops.candidate.preset)); },
          .set =
              [](S& s, std::string_view name) {
                s.isoflops.candidate.preset = parse_candidate_preset(name);
              }},
      ScenarioChoice{.key = "parallel.software",
                     .section = "parallel",
                     .json_key = "software",
                     .flag = "--software",
                     .label = "Software",
                     .compare_name = "Parallelism: software",
                     .tooltip = "The training software's generation: FlashAttention, dropout, "
                                "which collectives overlap with compute, gradient precision.",
                     .default_name = "modern",
                     .options = software_options,
                     .get = [](const S& s) { return s.parallel.software; },
                     .set =
                         [](S& s, std::string_view name) {
                           (void)software_by_name(name);  // one of the presets
                           s.parallel.software = std::string(name);
                         }},
      ScenarioChoice{
          .key = "parallel.mfu_source",
          .section = "parallel",
          .json_key = "mfu_source",
          .flag = "",  // budget predicts with --config and a cluster profile
          .label = "Budget MFU",
          .compare_name = "Budget MFU source",
          .tooltip = "Which MFU the Budget planner computes with: the MFU slider (an assumption) "
                     "or the predicted MFU of this panel's layout.",
          .default_name = "assumed",
          .options = mfu_source_options,
          .get = [](const S& s) { return std::string(to_string(s.parallel.mfu_source)); },
          .set = [](S& s,
                    std::string_view name) { s.parallel.mfu_source = parse_mfu_source(name); }},
      ScenarioChoice{
          .key = "parallel.cluster",
          .section = "parallel",
          .json_key = "cluster",
          .flag = "",  // parallel --cluster also takes a cluster file
          .label = "Cluster",
          .compare_name = "Parallelism: cluster",
          .tooltip = "GPUs per node and the scale-up (NVLink / ICI) and scale-out (InfiniBand / "
                     "DCN) bandwidth per GPU: the chip's usual node, a named system, or custom "
                     "numbers below.",
          .default_name = "",
          .unset_label = "the chip's node",
          .options = cluster_options,
          .get = [](const S& s) { return s.parallel.cluster; },
          // Custom starts from the node in use (a file's own numbers are read after).
          .set =
              [](S& s, std::string_view name) {
                if (!name.empty() && name != "custom") (void)cluster_by_name(name);
                s.parallel.choose_cluster(std::string(name), chip_by_name(s.chip));
              }},
      ScenarioChoice{
          .key = "parallel.pipe_schedule",
          .section = "parallel",
          .json_key = "pipe_schedule",
          .flag = "--pipeline-schedule",
          .label = "Schedule",
          .compare_name = "Parallelism: pipeline schedule",
          .tooltip = "The pipeline schedule. 1F1B (interleaved when VPP > 1) waits (p − 1) stage "
                     "times to fill and drain; zb-h1 (Qi et al. 2024) splits the backward and "
                     "fills the drain with weight gradients at 1F1B's memory; DualPipe "
                     "(DeepSeek-V3) runs micro-batches from both ends, with two copies of the "
                     "parameters. \"The software's\" follows the preset.",
          .default_name = "",
          .unset_label = "the software's",
          .options = pipe_schedule_options,
          .get = [](const S& s) { return optional_name(s.parallel.pipe_schedule); },
          .set =
              [](S& s, std::string_view name) {
                s.parallel.pipe_schedule =
                    name.empty() ? std::nullopt : std::optional(pipe_schedule_by_name(name));
              }},
      ScenarioChoice{
          .key = "parallel.ep_dispatch",
          .section = "parallel",
          .json_key = "ep_dispatch",
          .flag = "--ep-dispatch",
          .label = "Expert dispatch",
          .compare_name = "Parallelism: expert dispatch",
          .tooltip = "How routed tokens reach their experts (MoE with EP > 1). All-to-all sends "
                     "every token once per chosen expert (Megatron Core's alltoall dispatcher); "
                     "flex (DeepEP, HybridEP) sends it once per rank that holds its experts and "
                     "once per node across the network, forwarded over NVLink inside. \"The "
                     "software's\" follows the preset.",
          .default_name = "",
          .unset_label = "the software's",
          .options = ep_dispatch_options,
          .get = [](const S& s) { return optional_name(s.parallel.ep_dispatch); },
          .set =
              [](S& s, std::string_view name) {
                s.parallel.ep_dispatch =
                    name.empty() ? std::nullopt : std::optional(ep_dispatch_by_name(name));
              }},
      ScenarioChoice{
          .key = "ranges.shape",
          .section = "ranges",
          .json_key = "shape",
          .flag = shape.flag,
          .label = "Shape",
          .compare_name = "Range distribution",
          .tooltip = shape.description,
          .default_name = "triangular",
          .options = range_shape_options,
          .get = [](const S& s) { return std::string(to_string(s.ranges.shape)); },
          .set = [](S& s, std::string_view name) { s.ranges.shape = parse_range_shape(name); }},
      ScenarioChoice{
          .key = "roofline.serving_layout.run_mode",
          .section = "roofline.serving_layout",
          .json_key = "run_mode",
          .flag = "--mode",
          .label = "Mode",
          .compare_name = "Roofline: benchmark mode",
          .tooltip = "How the benchmark runs the chosen layout with the serving turn's lengths "
                     "(napkin-cli serve --mode): static, one batch prefilled and decoded together "
                     "(TensorRT-LLM's static tables); offline, every request queued at once "
                     "(MLPerf Offline, throughput benchmarks); server, Poisson arrivals at the "
                     "request rate (MLPerf Server, the engines' serving benchmarks).",
          .default_name = "offline",
          .options = run_mode_options,
          .get =
              [](const S& s) { return std::string(to_string(s.roofline.serving_layout.run_mode)); },
          .set =
              [](S& s, std::string_view name) {
                s.roofline.serving_layout.run_mode = parse_batching_mode(name, "run_mode");
              }},
      ScenarioChoice{
          .key = "plan.mode",
          .section = "plan",
          .json_key = "mode",
          .flag = "",  // budget reads its question from its flags (--days or --params)
          .label = "Mode",
          .compare_name = "Plan mode",
          .tooltip = plan_mode_tooltip,
          .default_name = "budget",
          .options = plan_mode_options,
          .get = [](const S& s) { return std::string(to_string(s.plan.mode)); },
          .set = [](S& s, std::string_view name) { s.plan.mode = parse_plan_mode(name); }},
      ScenarioChoice{
          .key = "plan.law",
          .section = "plan",
          .json_key = "law",
          .flag = "",  // budget --law also takes a law file
          .label = "Loss law",
          .compare_name = "Loss law",
          .tooltip = "The law every forecast uses: the replication of Chinchilla (Besiroglu et "
                     "al. 2024) or the Chinchilla paper's Approach 3 (Hoffmann et al. 2022); a "
                     "law fitted to the IsoFLOPs panel's ladder (its parametric fit, named in "
                     "every read-out; the memo cautions when the budget lies far beyond the "
                     "ladder); with its bootstrap draws: napkin-cli budget --law LAW.json.",
          .default_name = "replication",
          .options = law_options,
          .get = [](const S& s) { return std::string(to_string(s.plan.law)); },
          .set = [](S& s, std::string_view name) { s.plan.law = parse_law_choice(name); }},
      ScenarioChoice{
          .key = "plan.objective",
          .section = "plan",
          .json_key = "objective",
          .flag = "--objective",
          .label = "Objective",
          .compare_name = "Lifetime objective",
          .tooltip = "What What I would train minimises at equal loss over the model's life: FLOPs "
                     "(6N·D + 2N·served tokens, every FLOP alike) or dollars (training chip-hours "
                     "at the training price + serving chip-hours from the serving layout's "
                     "throughput at the serving price, energy on both).",
          .default_name = "flops",
          .options = objective_options,
          .get = [](const S& s) { return std::string(to_string(s.plan.objective)); },
          .set = [](S& s, std::string_view name) { s.plan.objective = parse_objective(name); }},
  };
  return kChoices;
}

}  // namespace

std::span<const ScenarioChoice> scenario_choices() { return choice_table(); }

const ScenarioChoice& scenario_choice(std::string_view key) {
  return entry_with_key(choice_table(), "choice", key);
}

std::vector<std::string_view> scenario_command_choices(std::string_view command) {
  if (command == "parallel")
    return {"training.optimizer", "parallel.software", "parallel.pipe_schedule",
            "parallel.ep_dispatch"};
  // The bias design only draws the synthetic ladder; the estimator fits either.
  if (command == "isoflops") return {"isoflops.fit.estimator"};
  if (command == "serve")
    return {"serving.weight_precision", "serving.kv_precision", "serving.engine",
            "roofline.serving_layout.run_mode"};
  if (command == "budget" || command == "report")
    return {"training.optimizer",     "training.precision",
            "training.checkpointing", "serving.weight_precision",
            "serving.kv_precision",   "serving.engine",
            "ranges.shape",           "plan.objective"};
  return {};
}

std::string choice_names(const ScenarioChoice& c, std::string_view separator) {
  std::string out;
  for (const ChoiceOption& o : c.options()) {
    if (!out.empty()) out += separator;
    out += o.name;
  }
  return out;
}

std::string choice_shown(const ScenarioChoice& c, const Scenario& s) {
  std::string name = c.get(s);
  return name.empty() && !c.unset_label.empty() ? std::string(c.unset_label) : name;
}

ChoiceOption choice_option(const ScenarioChoice& c, std::string_view text, std::string_view what) {
  if (text.empty() && !c.unset_label.empty()) return {"", std::string(c.unset_label)};
  const std::vector<ChoiceOption> options = c.options();
  for (const ChoiceOption& o : options)
    if (o.name == text || (!o.legacy.empty() && o.legacy == text)) return o;
  throw_unknown_name(what.empty() ? c.label : what, text, options,
                     [](const ChoiceOption& o) { return std::string_view(o.name); });
}

void set_choice(const ScenarioChoice& c, Scenario& s, std::string_view text,
                std::string_view what) {
  c.set(s, choice_option(c, text, what).name);
}

}  // namespace napkin
