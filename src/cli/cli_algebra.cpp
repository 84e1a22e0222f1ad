// Phase 00 commands: budget, params, flops, memory, kv.
#include <cstdio>
#include <string>

#include "algebra.h"
#include "budget.h"
#include "cli_common.h"
#include "cli_params.h"
#include "cli_plan.h"
#include "config_import.h"
#include "format.h"
#include "hardware.h"
#include "inputs.h"

namespace napkin::cli {

namespace {

// The budget's flags, the MoE candidate checked against the joint law's range.
BudgetInputs read_budget_flags(Args& a, PlanFlags& flags) {
  BudgetInputs in;
  in.chip = a.text("--chip", "H100");
  (void)chip_by_name(in.chip);
  in.n_chips = a.count_input("hardware.chips");
  in.days = a.input("budget.days");
  if (a.given("--cluster-profile"))
    throw UsageError(
        "--cluster-profile predicts the MFU of a model's layouts: give the model with --config "
        "FILE (train this model); a --days budget takes --mfu");
  flags = parse_plan_flags(a, in);  // mfu, price, data, goodput, serving, ranges
  in.tokens_per_param = a.input("budget.tokens_per_param");
  in.served_tokens = a.input("serving.served_tokens");
  in.site_power_mw = a.real("--site-power-mw", 100, 0.001, 1e6, "MW");
  in.optimizer = parse_optimizer(a.choice_input("training.optimizer"));
  in.moe.experts = a.count_input("plan.moe_experts");
  in.moe.top_k = a.count_input("plan.moe_top_k");
  in.moe.granularity = a.count_input("plan.moe_granularity");
  in.moe.shared_experts = a.count_input("plan.moe_shared_experts");
  a.finish();
  try {
    in.moe.validate();
  } catch (const std::invalid_argument& e) {
    throw UsageError("--" + std::string(e.what()));
  }
  if (in.moe.dense() &&
      (in.moe.top_k != 1 || in.moe.shared_experts != 0 || in.moe.granularity != 1))
    throw UsageError(
        "--top-k, --shared-experts and --granularity describe an MoE: give --experts "
        "(more than 1) too");
  if (in.moe.expansion() > kJointMoeMaxExpansion)
    throw UsageError("--experts: " + std::to_string(in.moe.experts) + " experts with top-k " +
                     std::to_string(in.moe.top_k) + " store " +
                     format_grouped(in.moe.expansion(), 1) +
                     "x the expert parameters they use, beyond the 32x the joint MoE law was "
                     "fitted on (Ludziejewski et al. 2025); use fewer experts or a larger top-k");
  return in;
}

}  // namespace

// The budget as one JSON object.
QJsonObject budget_json(const BudgetInputs& in, const BudgetReport& r, const PlanFlags& flags) {
  QJsonObject o;
  o["chip"] = QString::fromStdString(in.chip);
  o["chips"] = json_int(in.n_chips);
  o["mfu"] = in.mfu;
  o["flops"] = r.flops;
  o["params"] = r.split.params;
  o["tokens"] = r.split.tokens;
  o["days"] = r.days;
  o["train_memory_bytes"] = json_int(r.train_memory.total);
  o["cluster_hbm_bytes"] = json_int(r.cluster_hbm_bytes);
  o["chips_to_hold_weights"] = json_int(r.chips_to_hold_weights);
  o["rental_dollars"] = r.cost.rental_dollars;
  o["chip_energy_kwh"] = r.cost.chip_energy_kwh;
  o["energy_kwh"] = r.cost.energy_kwh;
  o["energy_dollars"] = r.cost.energy_dollars;
  o["dollars_per_1e21_flops"] = r.cost.dollars_per_1e21_flops;
  o["checks"] = checks_json(r.checks);
  const InferenceAwarePlan& p = r.plan;
  QJsonObject plan{{"served_tokens", p.served_tokens},
                   {"chinchilla_loss", p.chinchilla_loss},
                   {"small_params", p.same_loss.params},
                   {"small_tokens", p.same_loss.train_tokens},
                   {"small_train_flops", p.same_loss_train_flops},
                   {"small_days", p.same_loss_days},
                   {"same_budget_loss", p.same_budget_loss},
                   {"lifetime_flops_chinchilla", p.lifetime_flops_chinchilla},
                   {"lifetime_flops_small", p.lifetime_flops_small},
                   {"recommend_smaller", p.recommend_smaller}};
  plan["crossover_served_tokens"] =
      p.crossover_served_tokens ? QJsonValue(*p.crossover_served_tokens) : QJsonValue();
  o["inference_aware"] = plan;
  o["recommendation"] = QString::fromStdString(r.recommendation);
  add_plan_json(o, r, flags);
  return o;
}

// The budget as text: C, the Chinchilla split, the checks, the cost, the plan
// and what I would train.
void print_budget(const BudgetInputs& in, const BudgetReport& r, const PlanFlags& flags) {
  std::printf(
      "Budget: %s %s x %s days @ %s MFU\n", format_grouped(static_cast<double>(in.n_chips)).c_str(),
      in.chip.c_str(),
      format_grouped(in.days, in.days == static_cast<std::int64_t>(in.days) ? 0 : 2).c_str(),
      format_percent(in.mfu, 0).c_str());
  row("C", format_sci(r.flops) + " FLOPs");
  row("Chinchilla-optimal N", format_count(r.split.params) + " params (" +
                                  format_grouped(in.tokens_per_param, 0) + " tokens/param)");
  row("Chinchilla-optimal D", format_count(r.split.tokens, 2) + " tokens");
  row("check: 6ND", format_sci(6.0 * r.split.params * r.split.tokens) + " FLOPs");
  row("days at this MFU", format_grouped(r.days, 1));
  row("training memory (states)", format_bytes(static_cast<double>(r.train_memory.total), 1) +
                                      " unsharded (" + std::string(to_string(in.optimizer)) +
                                      ", mixed bf16)");
  print_checks(r.checks);
  std::printf("\nCost\n");
  row("rental $", format_grouped(r.cost.rental_dollars, 2));
  row("energy kWh (at the wall)", format_grouped(r.cost.energy_kwh, 2));
  row("energy $", format_grouped(r.cost.energy_dollars, 2));
  row("FLOPs @ MFU", format_sci(r.cost.flops));
  row("$ per 1e21 FLOPs", format_grouped(r.cost.dollars_per_1e21_flops, 2));
  print_plan_text(r, flags);
  std::printf("\nWhat I would train\n");
  paragraph(r.recommendation);
}

namespace {

int run_budget(Args& a) {
  if (const auto path = a.value("--scenario")) return run_budget_scenario(a, *path);
  const bool json = a.flag("--json");
  if (const auto status = run_train_model_if_asked(a, json)) return *status;  // train this model
  PlanFlags flags;
  const BudgetInputs in = read_budget_flags(a, flags);
  const BudgetReport r = budget_report(in);
  require_within_range(in.law, r.flops);  // a fitted law too far beyond its ladder
  if (json)
    print_json(budget_json(in, r, flags));
  else
    print_budget(in, r, flags);
  return 0;
}

int run_flops(Args& a) {
  const bool json = a.flag("--json");
  StepShape s;
  s.batch = a.required_integer("--batch", 1, 1'000'000'000, "sequences");
  s.seq = a.required_count_input("training.seq_len");
  s.d_model = a.required_count_input("model.d_model");
  s.d_ff = a.required_count_input("model.d_ff");
  s.n_heads = a.required_count_input("model.heads");
  s.d_head = a.required_count_input("model.head_dim");
  s.n_layers = a.required_count_input("model.layers");
  s.n_kv_heads = read_kv_heads(a, s.n_heads);
  s.gated = a.switch_input("model.gated");
  s.mask = a.choice("--mask", "full", {"full", "causal-half"}) == "full" ? CausalMask::full_matrix
                                                                         : CausalMask::causal_half;
  a.finish();
  const StepFlops f = training_flops_exact(s);
  if (json) {
    print_json(QJsonObject{{"mlp", json_int(f.mlp)},
                           {"attn_proj", json_int(f.attn_proj)},
                           {"attn_seq", json_int(f.attn_seq)},
                           {"total", json_int(f.total)}});
    return 0;
  }
  std::printf("Training FLOPs per optimizer step (%s mask convention)\n",
              s.mask == CausalMask::full_matrix ? "full-matrix" : "causal-half");
  const double t = static_cast<double>(f.total);
  auto line = [&](const char* name, std::int64_t v) {
    std::printf("  %-10s %26s  (%5.1f %%)\n", name, format_grouped(v).c_str(),
                100.0 * static_cast<double>(v) / t);
  };
  line("mlp", f.mlp);
  line("attn_proj", f.attn_proj);
  line("attn_seq", f.attn_seq);
  line("total", f.total);
  return 0;
}

int run_memory(Args& a) {
  const bool json = a.flag("--json");
  const std::int64_t n = a.required_integer("--params", 1, 1'000'000'000'000'000, "parameters");
  const Optimizer opt = parse_optimizer(a.choice_input("training.optimizer"));
  const Precision prec = parse_precision(a.choice_input("training.precision", {}, "--precision"));
  const int zero = static_cast<int>(a.integer("--zero", 0, 0, 3, "ZeRO stage"));
  const std::int64_t dp = a.integer("--dp", 1, 1, 10'000'000, "data-parallel replicas");
  std::int64_t act = 0;
  Checkpointing ck = Checkpointing::none;
  if (auto b = a.optional_integer("--batch", 1, 1'000'000'000, "sequences per device")) {
    ActivationShape s;
    s.batch = *b;
    s.seq = a.required_count_input("training.seq_len");
    s.d_model = a.required_integer("--d-model", 1, 1'000'000, "elements");
    s.n_layers = a.required_integer("--layers", 1, 100'000, "blocks");
    ck = parse_checkpointing(a.choice_input("training.checkpointing", "none"));
    act = activation_bytes(s, ck);
  }
  a.finish();
  const TrainingMemory m = training_memory(n, act, opt, prec, zero, dp);
  if (json) {
    print_json(QJsonObject{{"weights", json_int(m.weights)},
                           {"grads", json_int(m.grads)},
                           {"optimizer", json_int(m.optimizer)},
                           {"activations", json_int(m.activations)},
                           {"total", json_int(m.total)}});
    return 0;
  }
  std::printf("Training memory per device (%s, %s, ZeRO-%d, dp=%lld)\n",
              std::string(to_string(opt)).c_str(), std::string(to_string(prec)).c_str(), zero,
              static_cast<long long>(dp));
  auto line = [](const char* name, std::int64_t v) {
    std::printf("  %-12s %24s B  %12s\n", name, format_grouped(v).c_str(),
                format_bytes(static_cast<double>(v)).c_str());
  };
  line("weights", m.weights);
  line("grads", m.grads);
  line("optimizer", m.optimizer);
  line("activations", m.activations);
  line("total", m.total);
  return 0;
}

int run_kv(Args& a) {
  const bool json = a.flag("--json");
  // A checkpoint (--config / --model-dir) gives the cache per token, MLA's
  // latent included, and the parameters for concurrency; else the heads.
  const std::optional<ShapeInput> model = checkpoint_shape_from_flags(a);
  std::int64_t layers = 0, kv = 0, hd = 0;
  if (!model) {
    layers = a.required_integer("--layers", 1, 100'000, "blocks");
    kv = a.required_integer("--kv-heads", 1, 100'000, "KV heads");
    hd = a.required_integer("--head-dim", 1, 100'000, "elements");
  }
  const std::int64_t seq = a.required_count_input("training.seq_len");
  const std::int64_t batch = a.required_integer("--batch", 1, 1'000'000'000, "requests");
  const std::int64_t bpe = a.integer("--bytes-per-elem", 2, 1, 8, "bytes");
  const auto hbm_gb = a.optional_real("--hbm-gb", 1e-3, 1e9, "GB");
  std::optional<double> params;
  double workspace_gb = 10;
  if (hbm_gb) {
    if (model)
      params = a.real("--params", static_cast<double>(count_params(model->shape).total), 1, 1e15,
                      "parameters");
    else
      params = a.required_real("--params", 1, 1e15, "parameters");
    workspace_gb = a.real("--workspace-gb", 10, 0, 1e9, "GB");
  }
  a.finish();
  auto cache = [&](std::int64_t requests) {
    return model ? kv_cache_bytes(model->shape, seq, requests, bpe)
                 : kv_cache_bytes(layers, kv, hd, seq, requests, bpe);
  };
  const std::int64_t bytes = cache(batch);
  std::optional<std::int64_t> conc;
  if (hbm_gb) {
    const std::int64_t per_request = cache(1);
    conc = max_concurrent_requests(static_cast<std::int64_t>(*hbm_gb * 1e9), *params, per_request,
                                   2.0, static_cast<std::int64_t>(workspace_gb * 1e9));
  }
  if (json) {
    QJsonObject o{{"bytes", json_int(bytes)}};
    if (model) o["bytes_per_token"] = json_int(kv_cache_bytes_per_token(model->shape, bpe));
    if (conc) o["max_concurrent"] = json_int(*conc);
    print_json(o);
    return 0;
  }
  if (model)
    row("KV cache per token", format_grouped(kv_cache_bytes_per_token(model->shape, bpe)) + " B" +
                                  (model->shape.is_mla() ? " (MLA latent + RoPE key)" : ""));
  row("KV cache", format_grouped(bytes) + " B (" + format_bytes(static_cast<double>(bytes)) + ")");
  if (conc) row("max concurrent requests", std::to_string(*conc));
  return 0;
}

}  // namespace

std::vector<Command> algebra_commands() {
  return {
      {"budget",
       usage_with_choices(
           "budget (--chip H100 --chips 1000 (--days 30 | --params N [--tokens D] | --config FILE "
           "[--cluster-profile FILE]) [--mfu 0.4 or 0.3:0.4:0.45] [--price 2.5] [--kwh-price 0.12] "
           "[--pue 1.2] "
           "[--tokens-per-param 20] [--tokens-available 15e12] [--served-tokens 1e14] "
           "[--site-power-mw 100] [--optimizer adam] [--train-precision {training.precision}] "
           "[--interruptions-per-1000-chip-days 0.474] "
           "[--restart-min 10] [--checkpoint-min 15] [--checkpoint-write-min M] "
           "[--checkpoint-async] [--storage-gb-per-s-per-chip 0.122] [--serving-chips 8] "
           "[--latency-budget-s 1] [--overhead-s 0.25] [--prompt-tokens 8192] [--decode-tokens "
           "128] "
           "[--weight-precision {serving.weight_precision}] [--kv-precision bf16] "
           "[--no-serving-limit] "
           "[--range-shape {ranges.shape}] [--seed 1] [--draws 10000] "
           "[--law replication|chinchilla_paper|LAW.json (from fit -o)] "
           "[--experts E --top-k K [--granularity G] [--shared-experts S]] "
           "[--objective {plan.objective}] [--serving-chip C] [--serving-price 2.5] "
           "[--engine {serving.engine}] "
           "[--ptq-law C_T,gamma_D,gamma_N,gamma_post[,b] (default: Kumar et al. 2024, Table 2)] "
           "| --scenario FILE [the flag of any scenario input or choice (--chips, --days, --mfu, "
           "--price, --seq, --gpus-per-node, --optimizer, --train-precision, --engine, ...) or "
           "--chip, replacing the file's value] [--save FILE (the "
           "scenario so changed)] (a saved scenario's Budget planner, its resolved plan and "
           "ranges)); "
           "--mfu, --price, --tokens-available, --interruptions-per-1000-chip-days and "
           "--restart-min take low:likely:high"),
       run_budget},
      {"params", kParamsUsage, run_params},
      {"flops",
       "flops --batch B --seq T --d-model D --d-ff F --heads H --head-dim HD --layers L "
       "[--kv-heads K] [--no-gated] [--mask full|causal-half]",
       run_flops},
      {"memory",
       usage_with_choices("memory --params N [--optimizer {training.optimizer}] "
                          "[--precision {training.precision}] "
                          "[--zero 0..3] [--dp DEGREE] [--batch B --seq T --d-model D "
                          "--layers L --checkpointing {training.checkpointing}]"),
       run_memory},
      {"kv",
       "kv (--config FILE | --model-dir DIR | --layers L --kv-heads K --head-dim HD) --seq T "
       "--batch B [--bytes-per-elem 2] [--hbm-gb G --params N [--workspace-gb 10]]",
       run_kv},
  };
}

}  // namespace napkin::cli
