// The planner's inputs: the job, the layout (text form and validity), and the
// model FLOPs a step counts for MFU.
#include "parallel.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <stdexcept>
#include <string>
#include <utility>

#include "format.h"
#include "validate.h"

namespace napkin {

void TrainingJob::validate() const {
  shape.validate();
  (void)chip_by_name(chip);
  require_count(n_chips, "chips", "chips", 1, 100'000'000);
  require_count(seq_len, "seq", "tokens", 1, 100'000'000);
  require_count(global_batch, "global_batch", "sequences", 1, 1'000'000'000);
  // Up to the largest run a plan can ask for (Scenario::validate checks the
  // plan's tokens against the same constant).
  require_real(train_tokens, "tokens", "tokens", 1.0, kMaxTrainTokens);
  require_real(software.fp8_gemm_speedup, "fp8_gemm_speedup", "× CUTLASS", 0.25, 4.0);
  require_real(software.moe_load_imbalance, "moe_load_imbalance", "busiest ÷ mean tokens", 1.0,
               64.0);
  if (measured_non_tensor_bytes)
    require_count(*measured_non_tensor_bytes, "measured_non_tensor_bytes", "bytes", 0,
                  1'000'000'000'000);
  require_count(software.fp8_bf16_edge_layers, "fp8_bf16_edge_layers", "layers at each end", 0,
                shape.n_layers / 2);
  require_real(software.extra_update_bytes_per_param, "extra_update_bytes_per_param",
               "bytes per parameter", 0, 1'000);
  require_real(software.accumulation_copy_bytes, "accumulation_copy_bytes", "bytes per parameter",
               0, 1'000);
  require_count(software.ep_nodes_per_token, "ep_nodes_per_token", "nodes", 0, 100'000);
  require_count(software.zero3_prefetch_layers, "zero3_prefetch_layers", "layers", 0, 1'000);
  if (software.fp8_matmuls && !software.fp8_training)
    throw std::invalid_argument("training precision fp8: " + fp8_refusal(software) +
                                "; train in bf16 or choose newer software");
  if (network) {
    require_count(network->chips_per_node, "gpus_per_node", "GPUs", 1, 100'000);
    require_positive(network->intra_node_bytes_per_s, "scale_up_bandwidth", "bytes/s");
    require_positive(network->inter_node_bytes_per_s, "scale_out_bandwidth", "bytes/s");
  }
  if (calibrated) {
    require_real(calibrated->matmul_efficiency, "matmul_efficiency", "fraction of peak", 0.01, 1.0);
    require_real(calibrated->hbm_efficiency, "hbm_efficiency", "fraction of HBM bandwidth", 0.01,
                 1.0);
    require_real(calibrated->scale_up_efficiency, "scale_up_efficiency",
                 "fraction of scale-up bandwidth", 0.01, 1.0);
    require_real(calibrated->scale_out_efficiency, "scale_out_efficiency",
                 "fraction of scale-out bandwidth", 0.01, 1.0);
    require_real(calibrated->host_dispatch_seconds, "host_dispatch_seconds", "s", 0.0, 0.1);
  }
  if (software.fp8_matmuls && chip_by_name(chip).fp8_peak_flops_per_s <= 0)
    throw std::invalid_argument("fp8 matmuls need a chip with an FP8 peak; " + chip + " has none");
  (void)checked_mul(global_batch, seq_len, "tokens per step");
}

const Network& TrainingJob::cluster() const {
  return network ? *network : chip_by_name(chip).network;
}

CalibratedConstants TrainingJob::constants() const {
  if (calibrated) return *calibrated;
  const Efficiency& e = chip_by_name(chip).efficiency;
  return {e.matmul, e.hbm, e.link, e.link, software.host_dispatch_seconds, 0, {}, {}};
}

std::int64_t Layout::chips() const { return checked_mul({dp, tp, pp, cp}, "dp × tp × pp × cp"); }

std::int64_t Layout::expert_dp() const {
  return std::max<std::int64_t>(
      1, checked_mul({tp, dp, cp}, "tp × dp × cp") / std::max<std::int64_t>(1, expert_tp() * ep));
}

namespace {

constexpr std::array<std::pair<RecomputeModule, std::string_view>, 7> kRecomputeModules{{
    {kRecomputeCoreAttn, "core_attn"},
    {kRecomputeLayernorm, "layernorm"},
    {kRecomputeMlaUpProj, "mla_up_proj"},
    {kRecomputeMoeAct, "moe_act"},
    {kRecomputeMlp, "mlp"},
    {kRecomputeSharedExperts, "shared_experts"},
    {kRecomputeOp, "op"},
}};

}  // namespace

std::string recompute_modules_text(std::uint32_t modules) {
  std::string s;
  for (const auto& [bit, name] : kRecomputeModules)
    if (modules & bit) {
      if (!s.empty()) s += '+';
      s += name;
    }
  return s;
}

std::uint32_t parse_recompute_modules(std::string_view text) {
  std::uint32_t out = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find_first_of("+ ", start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view name = text.substr(start, end - start);
    start = end + 1;
    if (name.empty()) continue;
    bool known = false;
    for (const auto& [bit, n] : kRecomputeModules)
      if (n == name) out |= bit, known = true;
    if (!known) {
      std::string names;
      for (const auto& [bit, n] : kRecomputeModules)
        names += (names.empty() ? "" : ", ") + std::string(n);
      throw std::invalid_argument("recompute module must be one of " + names + "; got \"" +
                                  std::string(name) + "\"");
    }
  }
  return out;
}

std::string layout_axes_text(const Layout& l) {
  auto axis = [](std::string& s, std::string_view name, std::int64_t n) {
    s += name;
    s += std::to_string(n);
  };
  std::string s;
  axis(s, "TP ", l.tp);
  axis(s, " · PP ", l.pp);
  if (l.vpp > 1) axis(s, "×", l.vpp);
  axis(s, " · DP ", l.dp);
  if (l.cp > 1) axis(s, " · CP ", l.cp);
  if (l.ep > 1) axis(s, " · EP ", l.ep);
  if (l.etp > 0 && l.etp != l.tp) axis(s, " · ETP ", l.etp);
  return s;
}

std::string to_string(const Layout& l) {
  std::string s = "tp=" + std::to_string(l.tp) + ",pp=" + std::to_string(l.pp) +
                  ",vpp=" + std::to_string(l.vpp) + ",dp=" + std::to_string(l.dp) +
                  ",cp=" + std::to_string(l.cp) + ",ep=" + std::to_string(l.ep) +
                  (l.etp > 0 && l.etp != l.tp ? ",etp=" + std::to_string(l.etp) : "") +
                  ",zero=" + std::to_string(l.zero) + ",mb=" + std::to_string(l.micro_batch) +
                  ",sp=" + (l.sequence_parallel ? "on" : "off") + ",recompute=";
  return s + recompute_text(l);
}

std::string recompute_text(const Layout& l) {
  if (l.recompute == Checkpointing::full && l.recompute_group > 1)
    return "uniform:" + std::to_string(l.recompute_group);
  std::string s(to_string(l.recompute));
  if (l.recompute == Checkpointing::full && l.recompute_layers > 0)
    s += ":" + std::to_string(l.recompute_layers);
  if (l.recompute == Checkpointing::selective && l.recompute_modules != 0)
    s += ":" + recompute_modules_text(l.recompute_modules);
  return s;
}

void parse_recompute_text(std::string_view value, Layout& l) {
  l.recompute_layers = 0;
  l.recompute_group = 1;
  l.recompute_modules = 0;
  const std::string got = "; got \"" + std::string(value) + "\"";
  if (value == "none") {
    l.recompute = Checkpointing::none;
  } else if (value == "selective") {
    l.recompute = Checkpointing::selective;
  } else if (value == "full") {
    l.recompute = Checkpointing::full;
  } else if (value.starts_with("selective:")) {
    l.recompute = Checkpointing::selective;
    std::uint32_t m = 0;
    try {
      m = parse_recompute_modules(value.substr(10));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("recompute=selective:M1+M2: ") + e.what());
    }
    if (m == 0) throw std::invalid_argument("recompute=selective:M1+M2 names no module" + got);
    l.recompute_modules = canonical_recompute_modules(m);
  } else if (value.starts_with("full:")) {
    const std::string_view n = value.substr(5);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
    if (ec != std::errc() || end != n.data() + n.size() || v < 1 ||
        v > kLayoutLimits.recompute_layers)
      throw std::invalid_argument("recompute=full:N needs N in 1 – " +
                                  format_grouped(kLayoutLimits.recompute_layers) +
                                  " (layers of each chunk)" + got);
    l.recompute = Checkpointing::full;
    l.recompute_layers = v;
  } else if (value.starts_with("uniform:")) {
    const std::string_view n = value.substr(8);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
    if (ec != std::errc() || end != n.data() + n.size() || v < 1 ||
        v > kLayoutLimits.recompute_layers)
      throw std::invalid_argument("recompute=uniform:N needs N in 1 – " +
                                  format_grouped(kLayoutLimits.recompute_layers) +
                                  " (layers to a checkpoint)" + got);
    l.recompute = Checkpointing::full;
    l.recompute_group = v;
  } else {
    throw std::invalid_argument(
        "recompute must be none, selective, selective:M1+M2, full, full:N or uniform:N" + got);
  }
}

namespace {

std::int64_t parse_int(std::string_view key, std::string_view value) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size() || v < 0)
    throw std::invalid_argument("--layout " + std::string(key) +
                                " must be a whole number >= 0; got \"" + std::string(value) + "\"");
  return v;
}

}  // namespace

Layout parse_layout(std::string_view text, std::int64_t n_chips, const Layout& base) {
  require_count(n_chips, "chips", "chips", 1, 100'000'000);
  Layout l = base;
  bool dp_given = false, etp_given = false;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(start, end - start);
    start = end + 1;
    if (item.empty()) {
      if (end == text.size()) break;
      continue;
    }
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      throw std::invalid_argument(
          "--layout entries are key=value (tp, pp, vpp, dp, cp, ep, etp, zero, "
          "mb, sp, recompute); got \"" +
          std::string(item) + "\"");
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "tp")
      l.tp = parse_int(key, value);
    else if (key == "pp")
      l.pp = parse_int(key, value);
    else if (key == "vpp")
      l.vpp = parse_int(key, value);
    else if (key == "cp")
      l.cp = parse_int(key, value);
    else if (key == "ep")
      l.ep = parse_int(key, value);
    else if (key == "etp")
      l.etp = parse_int(key, value), etp_given = true;
    else if (key == "dp")
      l.dp = parse_int(key, value), dp_given = true;
    else if (key == "mb" || key == "micro_batch")
      l.micro_batch = parse_int(key, value);
    else if (key == "zero") {
      const std::int64_t z = parse_int(key, value);
      if (z > 3)
        throw std::invalid_argument("--layout zero must be 0, 1, 2 or 3; got " +
                                    std::string(value));
      l.zero = static_cast<int>(z);
    } else if (key == "sp") {
      if (value == "on" || value == "1" || value == "true")
        l.sequence_parallel = true;
      else if (value == "off" || value == "0" || value == "false")
        l.sequence_parallel = false;
      else
        throw std::invalid_argument("--layout sp must be on or off; got \"" + std::string(value) +
                                    "\"");
    } else if (key == "recompute") {
      try {
        parse_recompute_text(value, l);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("--layout ") + e.what());
      }
    } else {
      throw std::invalid_argument(
          "--layout key must be one of tp, pp, vpp, dp, cp, ep, etp, zero, mb, "
          "sp, recompute; got \"" +
          std::string(key) + "\"");
    }
  }
  const LayoutLimits& most = kLayoutLimits;
  auto check = [](const char* name, std::int64_t v, std::int64_t hi) {
    if (v < 1 || v > hi)
      throw std::invalid_argument(std::string("--layout ") + name + " must be in 1 – " +
                                  format_grouped(hi) + "; got " + std::to_string(v));
  };
  check("tp", l.tp, most.tp);
  check("pp", l.pp, most.pp);
  check("vpp", l.vpp, most.vpp);
  check("cp", l.cp, most.cp);
  check("ep", l.ep, most.ep);
  check("mb", l.micro_batch, most.micro_batch);
  if (etp_given) check("etp", l.etp, most.tp);
  if (dp_given) check("dp", l.dp, most.dp);
  if (l.etp == l.tp) l.etp = 0;  // the default spelling
  const std::int64_t model = checked_mul({l.tp, l.pp, l.cp}, "tp × pp × cp");
  if (dp_given) {
    if (checked_mul(l.dp, model, "dp × tp × pp × cp") != n_chips)
      throw std::invalid_argument("--layout dp × tp × pp × cp = " + std::to_string(l.dp * model) +
                                  " must equal --chips " + std::to_string(n_chips));
  } else {
    if (n_chips % model != 0)
      throw std::invalid_argument("--layout tp × pp × cp = " + std::to_string(model) +
                                  " must divide --chips " + std::to_string(n_chips) +
                                  " (dp = chips ÷ (tp × pp × cp))");
    l.dp = n_chips / model;
  }
  return l;
}

namespace {

using Problem = std::optional<std::string>;

// Each axis at least 1, the ZeRO stage, and the ranks adding up to the chips.
Problem axes_problem(const TrainingJob& job, const Layout& l) {
  auto at_least_one = [](std::int64_t v, const char* name) -> std::optional<std::string> {
    if (v >= 1) return std::nullopt;
    return std::string(name) + " must be >= 1; got " + format_grouped(v);
  };
  for (auto [v, name] : {std::pair{l.tp, "tp (tensor-parallel ranks)"},
                         {l.pp, "pp (pipeline stages)"},
                         {l.vpp, "vpp (model chunks per stage)"},
                         {l.dp, "dp (data-parallel replicas)"},
                         {l.cp, "cp (context-parallel ranks)"},
                         {l.ep, "ep (expert-parallel ranks)"},
                         {l.micro_batch, "mb (micro-batch, sequences)"}})
    if (auto p = at_least_one(v, name)) return p;
  if (l.zero < 0 || l.zero > 3)
    return "zero (ZeRO stage) must be 0, 1, 2 or 3; got " +
           format_grouped(static_cast<std::int64_t>(l.zero));
  std::int64_t product = 0;
  if (__builtin_mul_overflow(l.dp, l.tp, &product) ||
      __builtin_mul_overflow(product, l.pp, &product) ||
      __builtin_mul_overflow(product, l.cp, &product) || product != job.n_chips)
    return "dp × tp × pp × cp = " +
           (product > 0 ? format_grouped(product) : std::string("overflow")) +
           " must equal chips = " + format_grouped(job.n_chips);
  return std::nullopt;
}

// What the framework runs at all (TrainingSoftware::zero_stages and after).
Problem software_problem(const TrainingJob& job, const Layout& l) {
  const TrainingSoftware& sw = job.software;
  if (l.dp * l.cp > 1 && !offers_zero(sw, l.zero, l.pp > 1)) {
    const bool differs = sw.zero_stages != sw.zero_stages_with_pp;
    return "zero (ZeRO stage) " + format_grouped(static_cast<std::int64_t>(l.zero)) + ": " +
           std::string(sw.framework) + " runs ZeRO " + offered_zero_stages(sw, l.pp > 1) +
           (differs ? (l.pp > 1 ? " with pipeline parallelism" : " without pipeline parallelism")
                    : "") +
           " only";
  }
  if (l.vpp > 1 && !sw.interleaved_pipeline)
    return "vpp (model chunks per stage) must be 1: " + std::string(sw.framework) +
           " has no interleaved pipeline schedule; got " + format_grouped(l.vpp);
  if (l.cp > 1 && !sw.context_parallel)
    return "cp (context-parallel ranks) must be 1: " + std::string(sw.framework) +
           " has no context parallelism; got " + format_grouped(l.cp);
  if (l.sequence_parallel && l.tp > 1 && !sw.sequence_parallel)
    return "sp (sequence parallelism) must be off: " + std::string(sw.framework) +
           " has no sequence parallelism";
  if (l.recompute == Checkpointing::selective && !sw.selective_recompute)
    return "recompute=selective: " + std::string(sw.framework) +
           " recomputes whole layers only (recompute=full or none)";
  // Op-level checkpointing is torchtitan's policy and Megatron's modules are
  // Megatron's: neither framework runs the other's (torchtitan's selective is
  // by op or by layer, Megatron's by module).
  const bool op = (l.recompute_modules & kRecomputeOp) != 0;
  if (l.recompute == Checkpointing::selective && op && !sw.op_level_selective)
    return "recompute=selective:op is torchtitan's op-level policy, which " +
           std::string(sw.framework) + " does not have (recompute=selective, " +
           "selective:M1+M2, full, full:N or none)";
  if (l.recompute == Checkpointing::selective && !op && sw.op_level_selective)
    return "recompute=" + recompute_text(l) + ": " + std::string(sw.framework) +
           " checkpoints by op or by layer, not by module (recompute=selective:op, full, "
           "full:N or none)";
  if (l.ep > 1 && !sw.expert_parallel)
    return "ep (expert-parallel ranks) must be 1: " + std::string(sw.framework) +
           " has no expert parallelism; got " + format_grouped(l.ep);
  return std::nullopt;
}

// The model's shape against the tensor- and pipeline-parallel split.
Problem shape_problem(const TrainingJob& job, const Layout& l) {
  const ModelShape& s = job.shape;
  if (l.tp > s.n_heads)
    return "tp (tensor-parallel ranks) must be at most heads = " + format_grouped(s.n_heads) +
           "; got " + format_grouped(l.tp);
  if (s.n_heads % l.tp != 0)
    return "tp (tensor-parallel ranks) must divide heads = " + format_grouped(s.n_heads) +
           "; got " + format_grouped(l.tp);
  if (s.n_kv_heads % l.tp != 0 && l.tp % s.n_kv_heads != 0)
    return "tp (tensor-parallel ranks) must divide kv_heads = " + format_grouped(s.n_kv_heads) +
           " or be a multiple of it; got " + format_grouped(l.tp);
  const bool has_dense_mlp = !s.is_moe() || s.n_dense_layers > 0;
  if (has_dense_mlp && s.d_ff % l.tp != 0)
    return "tp (tensor-parallel ranks) must divide d_ff = " + format_grouped(s.d_ff) + "; got " +
           format_grouped(l.tp);
  if (l.etp < 0)
    return "etp (expert tensor-parallel ranks) must be >= 1; got " + format_grouped(l.etp);
  const std::int64_t etp = l.expert_tp();
  if (!s.is_moe() && etp != l.tp)
    return "etp (expert tensor-parallel ranks) must equal tp for a dense model; got " +
           format_grouped(etp);
  if (s.is_moe() && l.tp % etp != 0)
    return "etp (expert tensor-parallel ranks) must divide tp = " + format_grouped(l.tp) +
           " (Napkin splits the experts within the TP group); got " + format_grouped(etp);
  if (s.is_moe() && etp < l.tp && !l.sequence_parallel)
    return "etp (expert tensor-parallel ranks) below tp needs sequence parallelism (sp=on): "
           "Megatron Core runs MoE with TP only with it";
  if (s.is_moe() && s.effective_expert_d_ff() % etp != 0)
    return std::string(etp == l.tp ? "tp (tensor-parallel ranks)"
                                   : "etp (expert tensor-parallel ranks)") +
           " must divide expert_d_ff = " + format_grouped(s.effective_expert_d_ff()) + "; got " +
           format_grouped(etp);
  if (l.pp > s.n_layers)
    return "pp (pipeline stages) must be at most layers = " + format_grouped(s.n_layers) +
           "; got " + format_grouped(l.pp);
  return std::nullopt;
}

// Recomputation: its layers, groups and modules.
Problem recompute_problem(const TrainingJob& job, const Layout& l) {
  const ModelShape& s = job.shape;
  if (l.recompute_layers < 0)
    return "recompute=full:N needs N >= 1; got " + format_grouped(l.recompute_layers);
  if (l.recompute_group < 1)
    return "recompute=uniform:N needs N >= 1; got " + format_grouped(l.recompute_group);
  if (l.recompute_group > 1 && (l.recompute != Checkpointing::full || l.recompute_layers > 0))
    return "recompute=uniform:" + format_grouped(l.recompute_group) +
           " groups full recomputation of every layer; it excludes recompute=full:N and "
           "selective";
  if (l.recompute_modules != 0) {
    if (l.recompute != Checkpointing::selective)
      return "recompute modules (" + recompute_modules_text(l.recompute_modules) +
             ") apply to selective recomputation only (recompute=selective:M1+M2)";
    const std::uint32_t m = l.recompute_modules;
    const bool dense_mlp = !s.is_moe() || s.n_dense_layers > 0;
    if ((m & kRecomputeMlaUpProj) && !s.is_mla())
      return "recompute module mla_up_proj needs multi-head latent attention (MLA)";
    if ((m & kRecomputeMoeAct) && !s.is_moe())
      return "recompute module moe_act needs a mixture-of-experts model";
    if ((m & kRecomputeSharedExperts) && s.shared_experts == 0)
      return "recompute module shared_experts needs shared experts";
    if ((m & kRecomputeMlp) && !dense_mlp)
      return "recompute module mlp needs a dense MLP layer (every layer here is MoE)";
    if (m & kRecomputeOp) {
      if (m != kRecomputeOp)
        return "recompute=selective:op (torchtitan's op-level policy) stands alone";
      if (s.is_moe() || s.is_mla())
        return "recompute=selective:op (torchtitan's op-level policy) is priced for dense blocks "
               "with separate Q, K and V projections; not for MoE or MLA";
    }
  }
  if (l.recompute_layers > 0) {
    if (l.recompute != Checkpointing::full)
      return "recompute layers (" + format_grouped(l.recompute_layers) +
             ") apply to full recomputation only (recompute=full:N)";
    // Every layer of the longest chunk: that is full recomputation.
    const std::int64_t chunks = checked_mul(l.pp, l.vpp, "pp × vpp");
    const std::int64_t longest = (s.n_layers + chunks - 1) / chunks;
    if (l.recompute_layers >= longest)
      return "recompute=full:" + format_grouped(l.recompute_layers) + " covers every layer of a " +
             format_grouped(longest) + "-layer chunk: write recompute=full";
  }
  return std::nullopt;
}

// The batch, the pipeline schedule and context parallelism.
Problem schedule_problem(const TrainingJob& job, const Layout& l) {
  const ModelShape& s = job.shape;
  const std::int64_t replicas = l.dp * l.micro_batch;
  if (job.global_batch % replicas != 0)
    return "global_batch (" + format_grouped(job.global_batch) +
           " sequences) must be a multiple of dp × mb = " + format_grouped(replicas);
  const std::int64_t micro_batches = micro_batches_per_step(job, l);
  if (l.vpp > 1) {
    if (l.pp == 1)
      return "vpp (model chunks per stage) needs pp > 1; got vpp = " + format_grouped(l.vpp);
    // When the embedding and the loss count as layers of the split, the first
    // and the last chunk may hold nothing else (Llama 3 405B: 126 layers in
    // 16 × 8 chunks, the first holding only the embedding).
    const bool edges = job.software.pipeline_split_counts_edges;
    const std::int64_t slots = s.n_layers + (edges ? 2 : 0);
    if (l.pp * l.vpp > slots)
      return "pp × vpp = " + format_grouped(l.pp * l.vpp) + " model chunks must be at most " +
             (edges ? "layers + 2 (the embedding and the loss count as layers) = " : "layers = ") +
             format_grouped(slots) + " for the interleaved schedule";
    if (micro_batches % l.pp != 0)
      return "micro-batches per step (" + format_grouped(micro_batches) +
             ") must be a multiple of pp = " + format_grouped(l.pp) +
             " for the interleaved schedule";
  }
  if (job.software.pipe_schedule == PipeSchedule::dualpipe && l.pp > 1) {
    // DualPipe holds two chunks per rank of its own (DeepSeek-V3 §3.2.1): it
    // needs even stage and micro-batch counts and no further interleaving.
    if (l.vpp > 1)
      return "the dualpipe schedule keeps its own two chunks per rank: vpp must be 1; got " +
             format_grouped(l.vpp);
    if (l.pp % 2 != 0 || micro_batches % 2 != 0)
      return "the dualpipe schedule needs an even pp and an even number of micro-batches; got "
             "pp = " +
             format_grouped(l.pp) + ", " + format_grouped(micro_batches) + " micro-batches";
  }
  if (l.cp > 1) {
    if (job.seq_len % (2 * l.cp) != 0)
      return "cp (context-parallel ranks) must divide seq / 2 = " +
             format_grouped(job.seq_len / 2) + " (two balanced chunks per rank); got " +
             format_grouped(l.cp);
    if (!job.software.flash_attention)
      return "cp (context-parallel ranks) > 1 needs fused (flash) attention";
  }
  return std::nullopt;
}

// Expert parallelism and its grid.
Problem experts_problem(const TrainingJob& job, const Layout& l) {
  const ModelShape& s = job.shape;
  const std::int64_t etp = l.expert_tp();
  if (!s.is_moe()) {
    if (l.ep != 1)
      return "ep (expert-parallel ranks) must be 1 for a dense model; got " + format_grouped(l.ep);
  } else {
    if (s.n_experts % l.ep != 0)
      return "ep (expert-parallel ranks) must divide experts = " + format_grouped(s.n_experts) +
             "; got " + format_grouped(l.ep);
    // The expert grid etp × ep × expert-DP re-carves tp × dp × cp (Megatron
    // Core's expert rank generator, parallel_state.py).
    if (etp == l.tp && (l.dp * l.cp) % l.ep != 0)
      return "ep (expert-parallel ranks) must divide dp × cp = " + format_grouped(l.dp * l.cp) +
             "; got " + format_grouped(l.ep) +
             (l.tp > 1 && (l.tp * l.dp * l.cp) % l.ep == 0
                  ? " (or fold EP over TP with etp=1, Megatron Core's "
                    "--expert-tensor-parallel-size 1)"
                  : "");
    if ((l.tp * l.dp * l.cp) % (etp * l.ep) != 0)
      return "etp × ep = " + format_grouped(etp * l.ep) +
             " must divide tp × dp × cp = " + format_grouped(l.tp * l.dp * l.cp) +
             " (the expert grid re-carves the same ranks)";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> layout_problem(const TrainingJob& job, const Layout& l) {
  if (auto p = axes_problem(job, l)) return p;
  if (auto p = software_problem(job, l)) return p;
  if (auto p = shape_problem(job, l)) return p;
  if (auto p = recompute_problem(job, l)) return p;
  if (auto p = schedule_problem(job, l)) return p;
  return experts_problem(job, l);
}

double step_model_flops(const TrainingJob& job) {
  job.validate();
  const ModelShape& s = job.shape;
  const ParamCount p = count_params(s);
  const double tokens = static_cast<double>(job.global_batch) * static_cast<double>(job.seq_len);
  const double attention = (job.attention_flops == CausalMask::causal_half ? 6.0 : 12.0) *
                           static_cast<double>(s.n_layers) * static_cast<double>(job.seq_len) *
                           static_cast<double>(s.n_heads) * s.attention_head_dim();
  const double per_token = 6.0 * static_cast<double>(p.non_embedding_active) +
                           6.0 * static_cast<double>(s.vocab) * static_cast<double>(s.d_model) +
                           attention;
  return tokens * per_token;
}

double StepTime::exposed_comm_seconds() const {
  return tp_comm_seconds + pp_comm_seconds + dp_comm_seconds + ep_comm_seconds + cp_comm_seconds;
}

double StepTime::total_seconds() const {
  return compute_seconds + recompute_seconds + pp_bubble_seconds + exposed_comm_seconds() +
         optimizer_seconds;
}

double StepTime::bubble_share() const {
  const double t = total_seconds();
  return t > 0 ? pp_bubble_seconds / t : 0;
}

double StepTime::exposed_comm_share() const {
  const double t = total_seconds();
  return t > 0 ? exposed_comm_seconds() / t : 0;
}

}  // namespace napkin
