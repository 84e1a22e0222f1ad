#include "panel_settings.h"
#include "roofline_view.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "budget.h"
#include "hardware.h"
#include "scenario.h"
#include "validate.h"

namespace napkin {

namespace {

// Seeds and counts stored as JSON numbers stay exact up to 2^53 − 1.
constexpr std::int64_t kMaxExactInteger = (std::int64_t{1} << 53) - 1;
constexpr std::int64_t kMaxLadderPoints = 100'000;
constexpr double kMinScale = 1e-15;
constexpr double kMaxScale = 1e21;  // up to PF-days (8.64e19 FLOPs)

void require_name(const std::string& name, std::string_view what) {
  if (name.empty())
    throw std::invalid_argument(std::string(what) + " (column name) must not be empty");
  if (name.size() > 200)
    throw std::invalid_argument(std::string(what) +
                                " (column name) must be at most 200 bytes; got " +
                                std::to_string(name.size()));
}

}  // namespace

// ------------------------------------------------------------------ IsoFLOPs

std::string_view to_string(LawPreset p) {
  switch (p) {
    case LawPreset::chinchilla_approach3: return "chinchilla-approach3";
    case LawPreset::besiroglu2024: return "besiroglu2024";
    case LawPreset::custom: return "custom";
  }
  return "custom";
}

LawPreset parse_law_preset(std::string_view text) {
  for (LawPreset p : {LawPreset::chinchilla_approach3, LawPreset::besiroglu2024, LawPreset::custom})
    if (text == to_string(p)) return p;
  throw_out_of_range("law_preset", "name", "chinchilla-approach3, besiroglu2024 or custom", text);
}

LossLaw law_of(LawPreset p) {
  switch (p) {
    case LawPreset::chinchilla_approach3: return chinchilla_approach3_law();
    case LawPreset::besiroglu2024: return besiroglu2024_law();
    case LawPreset::custom: break;
  }
  throw std::invalid_argument("law_preset (name): custom has no published constants");
}

void SyntheticLadderSettings::validate() const {
  law.validate();
  require_real(law.E, "E", "nats/token", 1e-9, 10.0);
  require_real(law.A, "A", "nats/token × parameters^α", 1e-9, 1e7);
  require_real(law.alpha, "alpha", "capacity exponent", 1e-9, 3.0);
  require_real(law.B, "B", "nats/token × tokens^β", 1e-9, 1e7);
  require_real(law.beta, "beta", "data exponent", 1e-9, 3.0);
  if (law_preset != LawPreset::custom && !(law == law_of(law_preset)))
    throw std::invalid_argument(
        "law_preset (name) is " + std::string(to_string(law_preset)) +
        " but the law's constants differ from it; the preset of edited constants is custom");
  require_count(n_budgets, "budgets", "IsoFLOPs budgets", 2, 20);
  require_real(budget_min_flops, "budget_min_flops", "FLOPs", 1e12, 1e26);
  require_real(budget_max_flops, "budget_max_flops", "FLOPs", 1e13, 1e27);
  if (!(budget_max_flops > budget_min_flops))
    throw std::invalid_argument("budget_max_flops (FLOPs) must be larger than budget_min_flops (" +
                                format_value(budget_min_flops) + "); got " +
                                format_value(budget_max_flops));
  require_count(sizes_per_budget, "sizes_per_budget", "runs per budget", 3, 50);
  require_real(size_span_decades, "size_span_decades", "decades of N", 0.1, 5.0);
  require_real(noise, "noise", "σ of log loss", 0.0, 0.5);
  require_real(bias_nats, "bias_nats", "nats/token", 0.0, 1.0);
  require_real(offset_nats, "offset_nats", "nats/token", 0.0, 1.0);
}

std::string_view to_string(TokensKind k) { return k == TokensKind::tokens ? "tokens" : "flops"; }
std::string_view to_string(LossUnit u) { return u == LossUnit::nats ? "nats" : "bits"; }

TokensKind parse_tokens_kind(std::string_view text) {
  if (text == "tokens") return TokensKind::tokens;
  if (text == "flops") return TokensKind::flops;
  throw_out_of_range("tokens_kind", "what the tokens column holds", "tokens or flops", text);
}

LossUnit parse_loss_unit(std::string_view text) {
  if (text == "nats") return LossUnit::nats;
  if (text == "bits") return LossUnit::bits;
  throw_out_of_range("loss_unit", "unit of the loss column", "nats or bits", text);
}

void LadderColumns::validate() const {
  require_name(n_params, "parameters column");
  require_name(tokens,
               tokens_kind == TokensKind::tokens ? "tokens column" : "training FLOPs column");
  require_name(loss, "loss column");
  if (budget.size() > 200) require_name(budget, "budget column");
  require_real(n_params_scale, "n_params_scale", "parameters per unit of the column", kMinScale,
               kMaxScale);
  require_real(tokens_scale, "tokens_scale", "tokens or FLOPs per unit of the column", kMinScale,
               kMaxScale);
  require_real(budget_scale, "budget_scale", "FLOPs per unit of the column", kMinScale, kMaxScale);
  const std::string* roles[] = {&n_params, &tokens, &loss, &budget};
  const char* names[] = {"parameters", "tokens", "loss", "budget label"};
  for (int i = 0; i < 4; ++i)
    for (int j = i + 1; j < 4; ++j)
      if (!roles[i]->empty() && *roles[i] == *roles[j])
        throw std::invalid_argument("column \"" + *roles[i] + "\" is mapped to both " + names[i] +
                                    " and " + names[j] + "; each role needs its own column");
}

void LoadedLadder::validate() const {
  if (file_name.size() > 1000)
    throw std::invalid_argument("file_name (text) must be at most 1,000 bytes");
  columns.validate();
  require_count(static_cast<std::int64_t>(points.size()), "points", "ladder runs", 1,
                kMaxLadderPoints);
  require_count(data_rows, "data_rows", "rows in the file",
                static_cast<std::int64_t>(points.size()), kMaxExactInteger);
  validate_points(points, "points");
}

void FitSettings::validate() const {
  require_real(huber_delta, "huber_delta", "log-loss units", 1e-9, 1.0);
  require_count(resamples, "resamples", "bootstrap resamples", 10, 100'000);
}

FitOptions FitSettings::fit_options() const {
  FitOptions o;
  o.estimator = estimator;
  o.huber_delta = huber_delta;
  return o;
}

std::string_view to_string(CandidatePreset p) {
  switch (p) {
    case CandidatePreset::fitted_law: return "fitted-law";
    case CandidatePreset::seed_candidate: return "seed-candidate";
    case CandidatePreset::chinchilla_approach3: return "chinchilla-approach3";
    case CandidatePreset::besiroglu2024: return "besiroglu2024";
  }
  return "fitted-law";
}

CandidatePreset parse_candidate_preset(std::string_view text) {
  for (CandidatePreset p : {CandidatePreset::fitted_law, CandidatePreset::seed_candidate,
                            CandidatePreset::chinchilla_approach3, CandidatePreset::besiroglu2024})
    if (text == to_string(p)) return p;
  throw_out_of_range("candidate", "recipe",
                     "fitted-law, seed-candidate, chinchilla-approach3 or besiroglu2024", text);
}

void CandidateRecipe::validate() const {
  require_real(a_multiplier, "a_multiplier", "× A", 0.01, 100.0);
  require_real(b_multiplier, "b_multiplier", "× B", 0.01, 100.0);
  require_real(alpha_delta, "alpha_delta", "added to α", -0.5, 0.5);
  require_real(beta_delta, "beta_delta", "added to β", -0.5, 0.5);
}

void IsoflopsSettings::validate() const {
  synthetic.validate();
  require_real(loss_cut.max_loss, "max_loss", "nats/token", 1e-9, 100.0);
  fit.validate();
  require_count(static_cast<std::int64_t>(seed), "seed", "seed", 0, kMaxExactInteger);
  require_real(manual_target_flops, "manual_target_flops", "FLOPs", 1e12, 1e32);
  candidate.validate();
  if (loaded) {
    loaded->validate();
    (void)ladder_points(*this);  // the loss cut must leave a fittable ladder
  }
}

std::vector<double> geometric_budgets(double lo_flops, double hi_flops, int n) {
  require_positive(lo_flops, "budget_min_flops", "FLOPs");
  require_real(hi_flops, "budget_max_flops", "FLOPs", lo_flops);
  require_count(n, "budgets", "IsoFLOPs budgets", 2, 1000);
  std::vector<double> out;
  const double a = std::log10(lo_flops), b = std::log10(hi_flops);
  for (int i = 0; i < n; ++i) out.push_back(std::pow(10.0, a + (b - a) * i / (n - 1)));
  return out;
}

SyntheticLadderSpec synthetic_ladder_spec(const IsoflopsSettings& s, bool bias, bool offset) {
  const SyntheticLadderSettings& p = s.synthetic;
  SyntheticLadderSpec spec;
  spec.law = p.law;
  spec.budgets_flops = geometric_budgets(p.budget_min_flops, p.budget_max_flops, p.n_budgets);
  spec.sizes_per_budget = p.sizes_per_budget;
  spec.size_span_decades = p.size_span_decades;
  spec.noise = p.noise;
  spec.seed = s.seed;
  spec.lr_decay_bias_nats = bias ? p.bias_nats : 0.0;
  spec.bias_mode = p.bias_mode;
  spec.uniform_offset_nats = offset ? p.offset_nats : 0.0;
  spec.outliers = p.outlier ? 1 : 0;
  return spec;
}

SyntheticLadderSpec synthetic_ladder_spec(const IsoflopsSettings& s) {
  return synthetic_ladder_spec(s, s.synthetic.bias_on, s.synthetic.offset_on);
}

std::vector<LadderPoint> ladder_points(const IsoflopsSettings& s) {
  if (!s.loaded) return synthetic_ladder(synthetic_ladder_spec(s));
  std::vector<LadderPoint> out;
  for (const LadderPoint& p : s.loaded->points)
    if (!s.loss_cut.enabled || p.loss < s.loss_cut.max_loss) out.push_back(p);
  if (out.size() >= 5) return out;
  const std::string runs = std::to_string(s.loaded->points.size());
  if (!s.loss_cut.enabled)
    throw std::invalid_argument("points (ladder runs): the loaded ladder has " + runs +
                                " runs; a fit needs at least 5");
  throw std::invalid_argument("max_loss (nats/token): the loss cut below " +
                              format_value(s.loss_cut.max_loss) + " keeps " +
                              std::to_string(out.size()) + " of the " + runs +
                              " runs of the loaded ladder; a fit needs at least 5. Raise the "
                              "cut or switch it off");
}

// ------------------------------------------------------------------------ MoE

void MoeSettings::validate() const {
  // Bounds a replay of the run of record to what the panel records (5,000
  // steps) at the sizes its sliders reach, with room for the CLI's larger ones.
  require_count(n_experts, "experts", "routed experts", 1, 1024);
  require_count(top_k, "top_k", "experts per token", 1, n_experts);
  require_count(tokens_per_batch, "tokens_per_batch", "tokens per step", 1, 65'536);
  require_count(static_cast<std::int64_t>(seed), "seed", "seed", 0, kMaxExactInteger);
  require_real(aux_weight, "aux_weight", "× L_balance", 0.0, 100.0);
  require_real(z_weight, "z_weight", "× L_z", 0.0, 100.0);
  require_real(capacity_factor, "capacity_factor", "× the balanced load", 1.0, 1000.0);
  require_real(learning_rate, "learning_rate", "router step size", 1e-12, 1e4);
  require_count(steps, "steps", "router steps", 1, 5000);
  collapse_params().validate();
  // One work budget for the run of record, whoever replays it (moe.h).
  require_count(steps, "steps",
                "router steps at these experts and tokens_per_batch (steps × experts × "
                "(tokens_per_batch + 1,024) is at most 5e8)",
                1, max_recorded_collapse_steps(collapse_params()));
  require_count(prefill_tokens, "prefill_tokens", "tokens", 1, 1'000'000'000);
  require_real(link_gbps, "link_gbps", "Gbit/s", 1e-12, 1e9);
  require_real(latency_us, "latency_us", "µs per collective", 0.0, 1e9);
  require_real(compute_ms, "compute_ms", "ms per chunk per stage", 1e-12, 1e12);
  pipeline_inputs().validate();
}

CollapseParams MoeSettings::collapse_params() const {
  CollapseParams p;
  p.n_experts = n_experts;
  p.top_k = top_k;
  p.tokens_per_batch = tokens_per_batch;
  p.seed = seed;
  p.aux_weight = aux_on ? aux_weight : 0.0;
  p.z_weight = z_on ? z_weight : 0.0;
  p.capacity_factor = capacity_factor;
  p.learning_rate = learning_rate;
  p.shared_expert = shared_expert;
  p.renormalize = renormalize;
  return p;
}

PipelineInputs MoeSettings::pipeline_inputs() const {
  PipelineInputs p;
  p.chunks = pipeline_chunks;
  p.stages = pipeline_stages;
  p.compute_ms = compute_ms;
  p.transfer_ms = transfer_ms;
  return p;
}

// ------------------------------------------------------------------ Roofline

void RooflineSettings::validate() const {
  require_count(static_cast<std::int64_t>(overlays.size()), "overlays", "chips", 0,
                static_cast<std::int64_t>(hardware_table().size()));
  for (std::size_t i = 0; i < overlays.size(); ++i) {
    (void)chip_by_name(overlays[i]);
    for (std::size_t j = 0; j < i; ++j)
      if (overlays[j] == overlays[i])
        throw std::invalid_argument("overlays (chips): \"" + overlays[i] + "\" is listed twice");
  }
  require_count(matmul_dim, "matmul_dim", "elements", 1, 1'000'000);
  mfu.validate();
  for (double v : {mfu.matmul_seconds, mfu.vector_seconds, mfu.memory_seconds, mfu.comms_seconds,
                   mfu.optimizer_seconds})
    require_real(v, "mfu step seconds", "s", 0.0, 1e9);
  require_real(recompute, "recompute", "hardware FLOPs per model FLOP", 1.0, 10.0);
  require_real(prefill_mfu, "prefill_mfu", "fraction of peak", 1e-12, 1.0);
  require_real(bandwidth_efficiency, "bandwidth_efficiency", "fraction of HBM bandwidth", 1e-12,
               1.0);
  require_real(step_floor_seconds, "step_floor_seconds", "s per decode step", 0.0, 1e3);
  require_count(max_chips, "max_chips", "chips", 1, std::int64_t{1} << 40);
  require_count(tile, "tile", "elements", 1, 65'536);
  require_real(per_layer_serial_seconds, "per_layer_serial_seconds", "s per layer per step", 0.0,
               1.0);
  require_count(serving_tp, "serving_tp", "tensor-parallel ranks (0: fastest split)", 0, 1 << 20);
  require_count(serving_pp, "serving_pp", "pipeline stages (0: fastest split)", 0, 1 << 20);
  require_count(serving_ep, "serving_ep", "expert-parallel ranks (0: fastest split)", 0, 1 << 20);
  require_real(ttft_budget_seconds, "ttft_budget_seconds", "s (0: not bounded)", 0.0, 1e6);
  require_real(tpot_budget_seconds, "tpot_budget_seconds", "s (0: not bounded)", 0.0, 1e6);
  require_count(search_max_chips, "search_max_chips", "chips", 1, std::int64_t{1} << 20);
  require_real(generated_tokens_per_day, "generated_tokens_per_day", "tokens per day", 1.0, 1e18);
}

// --------------------------------------------------------------- Parallelism

std::string_view to_string(MfuSource s) {
  return s == MfuSource::predicted ? "predicted" : "assumed";
}

MfuSource parse_mfu_source(std::string_view text) {
  for (MfuSource m : {MfuSource::assumed, MfuSource::predicted})
    if (text == to_string(m)) return m;
  throw_out_of_range("mfu_source", "name", "assumed or predicted", text);
}

namespace {

// The ranges of a layout's axes, shared by the locks and the chosen layout.
constexpr std::int64_t kMaxTp = 65'536;
constexpr std::int64_t kMaxPp = 100'000;
constexpr std::int64_t kMaxVpp = 1'024;
constexpr std::int64_t kMaxCp = 65'536;
constexpr std::int64_t kMaxEp = 65'536;
constexpr std::int64_t kMaxMicroBatch = 1'000'000;

void require_lock(const std::optional<std::int64_t>& v, std::string_view name,
                  std::string_view unit, std::int64_t hi) {
  if (v) require_count(*v, name, unit, 1, hi);
}

}  // namespace

void ParallelSettings::validate() const {
  require_count(global_batch_tokens, "global_batch_tokens", "tokens per step", 1, 1'000'000'000);
  (void)software_by_name(software);
  require_lock(tp, "tp", "tensor-parallel ranks", kMaxTp);
  require_lock(pp, "pp", "pipeline stages", kMaxPp);
  require_lock(vpp, "vpp", "model chunks per pipeline rank", kMaxVpp);
  require_lock(cp, "cp", "context-parallel ranks", kMaxCp);
  require_lock(ep, "ep", "expert-parallel ranks", kMaxEp);
  require_lock(micro_batch, "micro_batch", "sequences per micro-batch", kMaxMicroBatch);
  if (zero) require_count(*zero, "zero", "ZeRO stage", 0, 3);
  if (chosen) {
    const Layout& l = *chosen;
    require_count(l.tp, "chosen.tp", "tensor-parallel ranks", 1, kMaxTp);
    require_count(l.pp, "chosen.pp", "pipeline stages", 1, kMaxPp);
    require_count(l.vpp, "chosen.vpp", "model chunks per pipeline rank", 1, kMaxVpp);
    require_count(l.dp, "chosen.dp", "data-parallel replicas", 1, 100'000'000);
    require_count(l.cp, "chosen.cp", "context-parallel ranks", 1, kMaxCp);
    require_count(l.ep, "chosen.ep", "expert-parallel ranks", 1, kMaxEp);
    require_count(l.zero, "chosen.zero", "ZeRO stage", 0, 3);
    require_count(l.micro_batch, "chosen.micro_batch", "sequences per micro-batch", 1,
                  kMaxMicroBatch);
    (void)l.chips();  // throws on overflow
  }
}

SearchOptions ParallelSettings::search_options() const {
  SearchOptions o;
  o.tp = tp;
  o.pp = pp;
  o.vpp = vpp;
  o.cp = cp;
  o.ep = ep;
  o.micro_batch = micro_batch;
  o.zero = zero;
  o.recompute = recompute;
  o.even_stages = even_stages;
  o.tp_within_node = tp_within_node;
  return o;
}

// ------------------------------------------------------- from the scenario

double isoflops_target_flops(const Scenario& s) {
  if (!s.isoflops.target_follows_budget) return s.isoflops.manual_target_flops;
  return budget_to_flops(chip_by_name(s.chip), s.n_chips, s.days, s.mfu);
}

RooflineScenario roofline_scenario(const Scenario& s) {
  const RooflineSettings& r = s.roofline;
  RooflineScenario sc;
  sc.chip = s.chip;
  for (const std::string& o : r.overlays)
    if (o != s.chip) sc.overlay_chips.push_back(o);
  sc.shape = s.shape;
  sc.operations.matmul_dim = r.matmul_dim;
  sc.operations.prompt_tokens = s.serving.prompt_tokens;
  sc.operations.decode_batch = s.serving.batch;
  sc.operations.context_tokens = s.serving.context_len;
  sc.operations.bytes_per_param = s.serving.bytes_per_param();
  sc.operations.bytes_per_elem = s.serving.kv_bytes_per_element();
  sc.mfu = r.mfu;
  sc.recompute = r.recompute;
  sc.turn.n_chips = s.n_chips;
  sc.turn.decode_tokens = s.serving.decode_tokens;
  sc.turn.overhead_seconds = s.serving.overhead_seconds;
  sc.turn.budget_seconds = s.serving.latency_budget_seconds;
  sc.turn.prefill_mfu = r.prefill_mfu;
  sc.turn.decode_bandwidth_efficiency = r.bandwidth_efficiency;
  sc.turn.per_step_floor_seconds = r.step_floor_seconds;
  sc.turn.max_chips = r.max_chips;
  sc.max_chips_plotted = 1024;
  sc.max_batch = 1024;
  sc.tile = r.tile;
  sc.tile_dim_lo = 64;
  sc.tile_dim_hi = 1024;
  sc.kv.chip = s.chip;
  sc.kv.n_chips = 8;  // one serving node, like the Budget panel's KV read-out
  sc.depth_width.per_layer_serial_seconds = r.per_layer_serial_seconds;
  return sc;
}

}  // namespace napkin
