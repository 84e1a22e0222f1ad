#include "scenario_fields.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "choices.h"
#include "format.h"
#include "goodput.h"
#include "inputs.h"
#include "scenario.h"
#include "switches.h"
#include "validate.h"

namespace napkin {

namespace {

std::string str(std::string_view s) { return std::string(s); }

// FNV-1a over the points' bytes: two ladders with the same file name and
// row count but different numbers get different fingerprints.
std::string fingerprint(const std::vector<LadderPoint>& points) {
  std::uint64_t h = 14695981039346656037ull;
  for (const LadderPoint& p : points)
    for (double v : {p.n_params, p.n_tokens, p.loss, p.budget_flops}) {
      unsigned char bytes[sizeof(double)];
      std::memcpy(bytes, &v, sizeof v);
      for (unsigned char b : bytes) {
        h ^= b;
        h *= 1099511628211ull;
      }
    }
  char buf[20];
  std::snprintf(buf, sizeof buf, "%08llx", static_cast<unsigned long long>(h >> 32));
  return buf;
}

std::string scaled(const std::string& column, double scale) {
  if (scale == 1) return "\"" + column + "\"";
  char buf[40];
  std::snprintf(buf, sizeof buf, " × %g", scale);
  return "\"" + column + "\"" + buf;
}

std::string ladder_summary(const std::optional<LoadedLadder>& l) {
  if (!l) return "none (the synthetic ladder)";
  const LadderColumns& c = l->columns;
  std::string s = l->file_name + ": " +
                  format_grouped(static_cast<std::int64_t>(l->points.size())) + " runs of " +
                  format_grouped(l->data_rows) + " rows; N ← " +
                  scaled(c.n_params, c.n_params_scale) + ", " +
                  (c.tokens_kind == TokensKind::flops ? "D = C/6N, C ← " : "D ← ") +
                  scaled(c.tokens, c.tokens_scale) + ", loss ← \"" + c.loss + "\" (" +
                  str(to_string(c.loss_unit)) + ")";
  if (!c.budget.empty()) s += ", budget ← " + scaled(c.budget, c.budget_scale);
  return s + "; fingerprint " + fingerprint(l->points);
}

std::string overlay_list(const std::vector<std::string>& overlays) {
  std::string s;
  for (const auto& o : overlays) s += (s.empty() ? "" : ", ") + o;
  return s.empty() ? "none" : s;
}

// A read-only scenario, as every field's getter takes it.
using SV = const Scenario&;

// The table, a section at a time (in the order diffs and reports list them).
class FieldTable {
 public:
  template <class Get>
  void add(std::string key, std::string name, std::string unit, Get get) {
    fields.push_back(ScenarioField{std::move(key), std::move(name), std::move(unit),
                                   [get](SV s) { return FieldValue(get(s)); }});
  }
  // A registered input (inputs.h): its compare name and shown unit, its value
  // as a count or a real in that unit (0.122 GB/s for 1.22e8 bytes/s; a
  // fraction stays a fraction, which display_field_value shows as "%").
  void input(std::string_view key) {
    const ScenarioInput& in = scenario_input(key);
    const std::string unit(input_shown_unit(in));
    const double factor = unit == "%" ? 1.0 : in.display_factor;
    fields.push_back(ScenarioField{
        std::string(key), std::string(input_compare_name(in)), unit, [&in, factor](SV s) {
          if (!input_is_set(in, s)) return FieldValue(std::string(in.unset_text));
          const double v = in.get(s);
          // "estimated", "tokens per parameter × N": what the lowest value means.
          if (v == in.lo && !in.special_text.empty())
            return FieldValue(std::string(in.special_text));
          return in.type == InputType::count ? FieldValue(static_cast<std::int64_t>(v))
                                             : FieldValue(v * factor);
        }});
  }
  // A registered choice (choices.h): its compare name and its option's name
  // (or what unset means).
  void choice(std::string_view key) {
    const ScenarioChoice& c = scenario_choice(key);
    fields.push_back(ScenarioField{std::string(key), std::string(c.compare_name), "",
                                   [&c](SV s) { return FieldValue(choice_shown(c, s)); }});
  }
  // A registered switch (switches.h): its compare name and its state.
  void toggle(std::string_view key) {
    const ScenarioSwitch& w = scenario_switch(key);
    fields.push_back(ScenarioField{std::string(key), std::string(w.compare_name), "", [&w](SV s) {
                                     // A switch the file spells as a word reads as that word.
                                     if (w.json_on.empty()) return FieldValue(w.get(s));
                                     return FieldValue(
                                         std::string(w.get(s) ? w.json_on : w.json_off));
                                   }});
  }
  std::vector<ScenarioField> fields;
};

using I = std::int64_t;

void add_budget_and_model(FieldTable& f) {
  // Hardware and budget.
  f.add("hardware.chip", "Chip", "", [](SV s) { return s.chip; });
  f.input("hardware.chips");
  f.input("budget.days");
  f.input("budget.mfu");
  f.input("budget.price_per_chip_hour_dollars");
  f.input("budget.kwh_price_dollars");
  f.input("budget.pue");
  f.input("budget.tokens_per_param");
  f.input("budget.tokens_available");
  // The model.
  f.add("model.name", "Model", "", [](SV s) { return s.model_name; });
  f.input("model.layers");
  f.input("model.d_model");
  f.input("model.d_ff");
  f.input("model.heads");
  f.input("model.kv_heads");
  f.input("model.head_dim");
  f.input("model.vocab");
  f.toggle("model.gated");
  f.toggle("model.tied_embeddings");
  f.add("model.qkv_bias", "QKV bias", "", [](SV s) { return s.shape.qkv_bias; });
  f.add("model.o_bias", "Output-projection bias", "", [](SV s) { return s.shape.o_bias; });
  f.add("model.mlp_bias", "MLP bias", "", [](SV s) { return s.shape.mlp_bias; });
  f.input("model.experts");
  f.input("model.top_k");
  f.input("model.shared_experts");
  f.input("model.expert_d_ff");
  f.input("model.dense_layers");
  f.add("model.q_lora_rank", "MLA query rank", "", [](SV s) { return s.shape.q_lora_rank; });
  f.add("model.kv_lora_rank", "MLA KV rank", "", [](SV s) { return s.shape.kv_lora_rank; });
  f.add("model.qk_nope_head_dim", "MLA no-RoPE head dim", "",
        [](SV s) { return s.shape.qk_nope_head_dim; });
  f.add("model.qk_rope_head_dim", "MLA RoPE head dim", "",
        [](SV s) { return s.shape.qk_rope_head_dim; });
  f.add("model.v_head_dim", "MLA value head dim", "", [](SV s) { return s.shape.v_head_dim; });
  f.add("model.shared_expert_d_ff", "Shared-expert d_ff", "",
        [](SV s) { return s.shape.shared_expert_d_ff; });
  f.add("model.shared_expert_gate", "Shared-expert gate", "",
        [](SV s) { return s.shape.shared_expert_gate; });
  f.add("model.router_bias", "Router bias", "", [](SV s) { return s.shape.router_bias; });
  f.add("model.qk_norm", "QK-norm", "", [](SV s) { return str(to_string(s.shape.qk_norm)); });
  f.add("model.norms_per_layer", "Norms per layer", "",
        [](SV s) { return s.shape.norms_per_layer; });
  f.add("model.norm_bias", "Norm bias", "", [](SV s) { return s.shape.norm_bias; });
  f.add("model.parallel_blocks", "Parallel attention/MLP", "",
        [](SV s) { return s.shape.parallel_blocks; });
  f.add("model.mtp_modules", "MTP modules", "", [](SV s) { return s.shape.mtp_modules; });
}

void add_training_serving_goodput(FieldTable& f) {
  // Training.
  f.choice("training.optimizer");
  f.choice("training.precision");
  f.add("training.zero_stage", "ZeRO stage", "", [](SV s) { return I{s.training.zero_stage}; });
  f.input("training.dp_degree");
  f.choice("training.checkpointing");
  f.input("training.micro_batch");
  f.input("training.seq_len");
  // Serving.
  f.input("serving.chips");
  f.input("serving.price_per_chip_hour_dollars");
  f.add("serving.limit_model", "Serving latency limits the model", "",
        [](SV s) { return s.serving.limit_model; });
  // Goodput: crashes, restarts and checkpoints.
  f.input("goodput.interruptions_per_1000_chip_days");
  f.input("goodput.restart_minutes");
  f.input("goodput.checkpoint_interval_minutes");
  f.input("goodput.checkpoint_write_minutes");
  f.input("goodput.storage_bytes_per_s_per_chip");
  f.toggle("goodput.checkpoint_mode");
}

void add_ranges_and_plan(FieldTable& f) {
  // Ranges (low – high around the scenario's own value).
  auto spread = [](const std::optional<Spread>& r) {
    if (!r) return std::string("none");
    return format_value(r->low) + " – " + format_value(r->high);
  };
  f.add("ranges.mfu", "MFU range", "", [spread](SV s) { return spread(s.ranges.mfu); });
  f.add("ranges.interruptions_per_1000_chip_days", "Interruption-rate range", "",
        [spread](SV s) { return spread(s.ranges.interruptions_per_1000_chip_days); });
  f.add("ranges.restart_minutes", "Restart-time range", "min",
        [spread](SV s) { return spread(s.ranges.restart_minutes); });
  f.add("ranges.price_per_chip_hour_dollars", "Price range", "$",
        [spread](SV s) { return spread(s.ranges.price_per_chip_hour_dollars); });
  f.add("ranges.tokens_available", "Unique-tokens range", "tokens",
        [spread](SV s) { return spread(s.ranges.tokens_available); });
  f.choice("ranges.shape");
  f.add("ranges.seed", "Range seed", "", [](SV s) { return static_cast<I>(s.ranges.seed); });
  // The plan's direction.
  f.choice("plan.mode");
  f.input("plan.train_tokens");
  f.choice("plan.law");
  f.choice("plan.objective");
  f.add("serving.chip", "Serving chip", "", [](SV s) {
    return str(s.serving.chip.empty() ? std::string("same as training") : s.serving.chip);
  });
  f.input("plan.moe_experts");
  f.input("plan.moe_top_k");
  f.input("plan.moe_granularity");
  f.input("plan.moe_shared_experts");
  f.input("serving.context_len");
  f.input("serving.served_tokens");
  f.input("serving.batch");
  f.input("serving.prompt_tokens");
  f.input("serving.decode_tokens");
  f.input("serving.latency_budget_seconds");
  f.input("serving.overhead_seconds");
  f.choice("serving.weight_precision");
  f.choice("serving.kv_precision");
  f.choice("serving.engine");
}

void add_isoflops(FieldTable& f) {
  // IsoFLOPs.
  const std::string syn = "isoflops.ladder.synthetic.";
  f.choice("isoflops.ladder.synthetic.law_preset");
  f.input(syn + "law.E");
  f.input(syn + "law.A");
  f.input(syn + "law.alpha");
  f.input(syn + "law.B");
  f.input(syn + "law.beta");
  f.input(syn + "budgets");
  f.input(syn + "budget_min_flops");
  f.input(syn + "budget_max_flops");
  f.input(syn + "sizes_per_budget");
  f.input(syn + "size_span_decades");
  f.input(syn + "noise");
  f.toggle("isoflops.ladder.synthetic.outlier");
  f.toggle("isoflops.ladder.synthetic.bias_on");
  f.input(syn + "bias_nats");
  f.choice(syn + "bias_mode");
  f.toggle("isoflops.ladder.synthetic.offset_on");
  f.input(syn + "offset_nats");
  f.add("isoflops.ladder.loaded", "IsoFLOPs: loaded CSV ladder", "",
        [](SV s) { return ladder_summary(s.isoflops.loaded); });
  f.toggle("isoflops.ladder.loss_cut.enabled");
  f.input("isoflops.ladder.loss_cut.max_loss");
  f.choice("isoflops.fit.estimator");
  f.input("isoflops.fit.huber_delta");
  f.input("isoflops.fit.resamples");
  f.input("isoflops.seed");
  f.toggle("isoflops.target.follows_budget");
  f.input("isoflops.target.manual_target_flops");
  f.choice("isoflops.candidate.preset");
  f.input("isoflops.candidate.a_multiplier");
  f.input("isoflops.candidate.b_multiplier");
  f.input("isoflops.candidate.alpha_delta");
  f.input("isoflops.candidate.beta_delta");
}

void add_moe(FieldTable& f) {
  // MoE.
  f.input("moe.experts");
  f.input("moe.top_k");
  f.input("moe.tokens_per_batch");
  f.input("moe.seed");
  f.toggle("moe.aux_on");
  f.input("moe.aux_weight");
  f.toggle("moe.z_on");
  f.input("moe.z_weight");
  f.input("moe.capacity_factor");
  f.input("moe.learning_rate");
  f.toggle("moe.shared_expert");
  f.toggle("moe.renormalize");
  f.add("moe.steps", "MoE: steps", "steps", [](SV s) { return s.moe.steps; });
  f.add("moe.shown_step", "MoE: step shown", "", [](SV s) { return s.moe.shown_step; });
  f.input("moe.comm.prefill_tokens");
  f.input("moe.comm.link_gbps");
  f.input("moe.comm.latency_us");
  f.input("moe.pipeline.chunks");
  f.input("moe.pipeline.stages");
  f.input("moe.pipeline.compute_ms");
  f.input("moe.pipeline.transfer_ms");
}

void add_roofline(FieldTable& f) {
  // Roofline.
  f.add("roofline.overlays", "Roofline: overlays", "",
        [](SV s) { return overlay_list(s.roofline.overlays); });
  f.input("roofline.matmul_dim");
  f.input("roofline.mfu_budget.matmul_seconds");
  f.input("roofline.mfu_budget.vector_seconds");
  f.input("roofline.mfu_budget.memory_seconds");
  f.input("roofline.mfu_budget.comms_seconds");
  f.input("roofline.mfu_budget.optimizer_seconds");
  f.input("roofline.recompute");
  f.input("roofline.prefill_mfu");
  f.input("roofline.bandwidth_efficiency");
  f.input("roofline.step_floor_seconds");
  f.input("roofline.max_chips");
  f.input("roofline.tile");
  f.input("roofline.per_layer_serial_seconds");
}

void add_parallel(FieldTable& f) {
  // Parallelism (locks read "auto" when the axis is searched).
  auto lock = [](const auto& v) { return v ? std::to_string(*v) : std::string("auto"); };
  f.choice("parallel.mfu_source");
  f.input("parallel.global_batch_tokens");
  f.choice("parallel.software");
  f.choice("parallel.pipe_schedule");
  f.choice("parallel.ep_dispatch");
  f.choice("parallel.cluster");
  f.add("parallel.cluster_profile", "Parallelism: cluster profile", "", [](SV s) {
    if (!s.parallel.calibrated) return std::string("none (published constants)");
    const CalibratedConstants& k = *s.parallel.calibrated;
    std::string t = s.parallel.cluster_profile + " (calibrated on " + std::to_string(k.runs) +
                    " runs" + (k.framework.empty() ? "" : " under " + k.framework) + ")";
    if (const std::string w = s.parallel.calibration_warning(); !w.empty()) t += "; " + w;
    return t;
  });
  f.input("parallel.gpus_per_node");
  f.input("parallel.scale_up_gb_per_s");
  f.input("parallel.scale_out_gb_per_s");
  f.input("parallel.non_tensor_gb");
  f.toggle("parallel.even_stages");
  f.toggle("parallel.tp_within_node");
  f.add("parallel.locks.tp", "Parallelism: TP lock", "",
        [lock](SV s) { return lock(s.parallel.tp); });
  f.add("parallel.locks.pp", "Parallelism: PP lock", "",
        [lock](SV s) { return lock(s.parallel.pp); });
  f.add("parallel.locks.vpp", "Parallelism: virtual stages lock", "",
        [lock](SV s) { return lock(s.parallel.vpp); });
  f.add("parallel.locks.cp", "Parallelism: CP lock", "",
        [lock](SV s) { return lock(s.parallel.cp); });
  f.add("parallel.locks.ep", "Parallelism: EP lock", "",
        [lock](SV s) { return lock(s.parallel.ep); });
  f.add("parallel.locks.etp", "Parallelism: expert TP lock", "",
        [lock](SV s) { return lock(s.parallel.etp); });
  f.add("parallel.locks.micro_batch", "Parallelism: micro-batch lock", "",
        [lock](SV s) { return lock(s.parallel.micro_batch); });
  f.add("parallel.locks.zero", "Parallelism: ZeRO lock", "",
        [lock](SV s) { return lock(s.parallel.zero); });
  f.add("parallel.locks.shard", "Parallelism: ZeRO shard lock", "", [](SV s) {
    if (!s.parallel.shard) return std::string("auto");
    return *s.parallel.shard == 0 ? std::string("all DP × CP") : std::to_string(*s.parallel.shard);
  });
  f.add("parallel.locks.recompute", "Parallelism: recompute lock", "", [](SV s) {
    return s.parallel.recompute ? s.parallel.recompute_lock_text() : std::string("auto");
  });
  f.add("parallel.chosen", "Parallelism: chosen layout", "", [](SV s) {
    return s.parallel.chosen ? to_string(*s.parallel.chosen) : std::string("the fastest that fits");
  });
}

void add_serving_layout(FieldTable& f) {
  f.add("roofline.serving_layout.tp", "Roofline: serving TP (0 = fastest)", "",
        [](SV s) { return s.roofline.serving_layout.tp; });
  f.add("roofline.serving_layout.pp", "Roofline: serving PP (0 = fastest)", "",
        [](SV s) { return s.roofline.serving_layout.pp; });
  f.add("roofline.serving_layout.ep", "Roofline: serving EP (0 = fastest)", "",
        [](SV s) { return s.roofline.serving_layout.ep; });
  f.toggle("roofline.serving_layout.communication");
  f.input("roofline.serving_layout.ttft_budget_seconds");
  f.input("roofline.serving_layout.tpot_budget_seconds");
  f.input("roofline.serving_layout.search_max_chips");
  f.input("roofline.serving_layout.generated_tokens_per_day");
  f.add("roofline.serving_layout.max_tokens_per_step", "Roofline: tokens per iteration", "tokens",
        [](SV s) {
          return s.roofline.serving_layout.max_tokens_per_step > 0
                     ? format_grouped(
                           static_cast<double>(s.roofline.serving_layout.max_tokens_per_step))
                     : std::string("the engine's");
        });
  f.add("roofline.serving_layout.engine_memory_fraction", "Roofline: engine memory fraction", "",
        [](SV s) {
          return s.roofline.serving_layout.engine_memory_fraction > 0
                     ? format_grouped(s.roofline.serving_layout.engine_memory_fraction, 2)
                     : std::string("the engine's");
        });
  f.add("roofline.serving_layout.chunked_prefill", "Roofline: chunked prefill", "", [](SV s) {
    return s.roofline.serving_layout.chunked_prefill
               ? std::string(*s.roofline.serving_layout.chunked_prefill ? "on" : "off")
               : std::string("the engine's");
  });
  f.choice("roofline.serving_layout.run_mode");
  f.add(
      "roofline.serving_layout.run_concurrency", "Roofline: benchmark concurrency", "requests",
      [](SV s) {
        return s.roofline.serving_layout.run_concurrency > 0
                   ? format_grouped(static_cast<double>(s.roofline.serving_layout.run_concurrency))
                   : std::string("what memory and the engine allow");
      });
  f.input("roofline.serving_layout.run_request_rate_per_second");
  f.input("roofline.serving_layout.run_requests");
  f.input("roofline.serving_layout.run_prompt_spread_tokens");
  f.input("roofline.serving_layout.run_output_spread_tokens");
}

std::vector<ScenarioField> make_fields() {
  FieldTable f;
  add_budget_and_model(f);
  add_training_serving_goodput(f);
  add_ranges_and_plan(f);
  add_isoflops(f);
  add_moe(f);
  add_roofline(f);
  add_parallel(f);
  add_serving_layout(f);
  return std::move(f.fields);
}

}  // namespace

std::span<const ScenarioField> scenario_fields() {
  static const std::vector<ScenarioField> fields = make_fields();
  return fields;
}

const ScenarioField* find_scenario_field(std::string_view key) {
  for (const ScenarioField& f : scenario_fields())
    if (f.key == key) return &f;
  return nullptr;
}

std::string display_field_value(const FieldValue& v, const std::string& unit, int digits) {
  std::string text;
  if (const auto* i = std::get_if<std::int64_t>(&v)) {
    text = format_grouped(*i);
  } else if (const auto* d = std::get_if<double>(&v)) {
    const double x = unit == "%" ? *d * 100.0 : *d;
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.*g", digits, x);
    text = std::isfinite(x) ? buf : "—";
    if (unit == "%") return text + " %";
  } else if (const auto* b = std::get_if<bool>(&v)) {
    return *b ? "on" : "off";
  } else {
    const std::string& s = std::get<std::string>(v);
    return s.empty() ? "(none)" : s;
  }
  if (unit == "$") return "$" + text;
  if (unit.starts_with("$/")) return "$" + text + unit.substr(1);  // "$2.5/chip-h"
  return unit.empty() ? text : text + " " + unit;
}

}  // namespace napkin
