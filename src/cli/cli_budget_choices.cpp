#include "cli_budget_choices.h"

#include <string>

#include "format.h"
#include "hardware.h"

namespace napkin::cli {

Precision parse_train_precision(Args& a, const std::string& chip) {
  const Precision p = parse_precision(a.choice_input("training.precision"));
  if (p != Precision::mixed_fp8) return p;
  if (!(chip_by_name(chip).fp8_peak_flops_per_s > 0))
    throw UsageError("--train-precision fp8 needs a chip with an FP8 peak; " + chip +
                     " has none (train it in bf16)");
  return p;
}

void parse_budget_choices(Args& a, BudgetInputs& in, Scenario& sc) {
  in.objective = parse_objective(a.choice_input("plan.objective"));
  const std::string chip = a.text("--serving-chip", in.chip);
  try {
    in.serving_chip = std::string(chip_by_name(chip).name);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--serving-chip: " + std::string(e.what()));
  }
  in.serving_price_per_chip_hour_dollars = a.input("serving.price_per_chip_hour_dollars");
  in.serving_weights = sc.serving.weight_dtype;
  in.serving_kv = sc.serving.kv_dtype;
  in.precision = parse_train_precision(a, in.chip);
  sc.training.precision = in.precision;
  if (const auto text = a.value("--ptq-law")) {
    try {
      in.ptq_law = parse_ptq_law(*text, "--ptq-law");
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  sc.serving.chip = in.serving_chip;
  sc.serving.engine = a.choice_input("serving.engine");
  in.serving_engine = sc.serving.engine;  // lifetime dollars' serving bill
  sc.serving.price_per_chip_hour_dollars = in.serving_price_per_chip_hour_dollars;
}

namespace {

QJsonObject bill_json(const LifetimeBill& b) {
  QJsonObject o{{"params", b.params},
                {"train_tokens", b.train_tokens},
                {"train_dollars", b.train_dollars},
                {"serve_dollars", b.serve_dollars},
                {"total_dollars", b.total_dollars},
                {"serving_fits", b.serving.fits}};
  if (b.serving.fits) {
    o["serving_layout"] = QString::fromStdString(b.serving.layout);
    o["serving_chips"] = json_int(b.serving.chips);
    o["serving_tokens_per_second_per_chip"] = b.serving.tokens_per_second_per_chip;
    o["serving_dollars_per_million_tokens"] = b.serving.dollars_per_token * 1e6;
    o["serving_joules_per_token"] = b.serving.joules_per_token;
  }
  return o;
}

QJsonObject candidate_json(const ArchitectureCandidate& c) {
  return QJsonObject{{"total_params", c.total_params},
                     {"active_params", c.active_params},
                     {"tokens", c.tokens},
                     {"loss", c.loss},
                     {"repetition_penalty_nats", c.repetition_penalty_nats},
                     {"serving_binds", c.serving_binds},
                     {"data_fits", c.data_fits}};
}

}  // namespace

void add_budget_choices_json(QJsonObject& o, const BudgetReport& r) {
  const BudgetInputs& in = r.inputs;
  const DollarPlan& p = r.dollars;
  o["objective"] = QString::fromUtf8(to_string(in.objective).data());
  QJsonObject d{{"serving_chip", QString::fromStdString(in.serving_chip_name())},
                {"serving_price_per_chip_hour_dollars", in.serving_price_per_chip_hour_dollars},
                {"served_tokens", p.served_tokens},
                {"loss", p.loss},
                {"reference", bill_json(p.reference)},
                {"same_loss", bill_json(p.same_loss)},
                {"recommend_smaller", p.recommend_smaller}};
  d["crossover_served_tokens"] =
      p.crossover_served_tokens ? QJsonValue(*p.crossover_served_tokens) : QJsonValue();
  o["lifetime_dollars"] = d;
  o["train_precision"] = QString::fromUtf8(to_string(in.precision).data());
  o["train_gemm_peak_flops_per_s"] = r.train_gemm_peak_flops_per_s;
  o["train_precision_note"] = QString::fromStdString(
      r.train_precision_text.empty() ? std::string() : r.train_precision_text.substr(1));
  o["serving_weight_precision"] = QString::fromUtf8(to_string(in.serving_weights).data());
  o["quality_penalty_nats"] =
      r.quality_penalty_nats ? QJsonValue(*r.quality_penalty_nats) : QJsonValue();
  if (const auto& t = r.serving_precision_trade)
    o["serving_precision_trade"] =
        QJsonObject{{"bf16_limit_params", t->bf16_limit_params},
                    {"limit_params", t->limit_params},
                    {"advantage_without_penalty_nats", t->advantage_without_penalty_nats},
                    {"advantage_nats", t->advantage_nats}};
  o["quality_penalty_compute_factor"] = r.quality_penalty_compute_factor
                                            ? QJsonValue(*r.quality_penalty_compute_factor)
                                            : QJsonValue();
  o["train_precision_penalty_nats"] =
      r.train_precision_penalty_nats ? QJsonValue(*r.train_precision_penalty_nats) : QJsonValue();
  const PtqLaw ptq = in.ptq_law ? *in.ptq_law : kumar2024_ptq_law();
  o["ptq_law"] = QJsonObject{
      {"source", in.ptq_law ? "Kumar et al. 2024 (arXiv 2411.04330), constants given"
                            : "Kumar et al. 2024 (arXiv 2411.04330), Appendix K Table 2; fitted "
                              "on 30M-220M parameters, 1.5B-26B Dolma tokens"},
      {"C_T", ptq.c_t},
      {"gamma_D", ptq.gamma_d},
      {"gamma_N", ptq.gamma_n},
      {"gamma_post", ptq.gamma_post},
      {"b", ptq.bias}};
  if (const auto& m = r.moe)
    o["moe"] = QJsonObject{{"experts", json_int(m->shape.experts)},
                           {"top_k", json_int(m->shape.top_k)},
                           {"granularity", json_int(m->shape.granularity)},
                           {"shared_experts", json_int(m->shape.shared_experts)},
                           {"expansion", m->expansion},
                           {"dense", candidate_json(m->dense)},
                           {"moe", candidate_json(m->moe)},
                           {"compute_multiplier", m->compute_multiplier},
                           {"joint_loss_dense", m->joint_loss_dense},
                           {"joint_loss_moe", m->joint_loss_moe},
                           {"loss_gain_nats", m->loss_gain_nats},
                           {"train", m->moe_wins ? "moe" : "dense"},
                           {"summary", QString::fromStdString(m->summary)}};
}

void print_budget_choices_text(const BudgetReport& r) {
  const DollarPlan& p = r.dollars;
  std::printf("\nLifetime dollars (objective: %s)\n",
              std::string(to_string(r.inputs.objective)).c_str());
  auto bill = [](const LifetimeBill& b) {
    if (!b.serving.fits) return format_count(b.params) + " params: fits no serving slice";
    return format_count(b.params) + " params on " + format_count(b.train_tokens, 2) +
           " tokens: " + format_dollars(b.total_dollars) + " = " + format_dollars(b.train_dollars) +
           " training + " + format_dollars(b.serve_dollars) + " serving (" +
           format_grouped(b.serving.tokens_per_second_per_chip, 0) + " tokens/s per chip on " +
           b.serving.layout + ", $" + format_grouped(b.serving.dollars_per_token * 1e6, 3) +
           " per M tokens)";
  };
  row("serving", r.inputs.serving_chip_name() + " at " +
                     format_dollars(r.inputs.serving_price_per_chip_hour_dollars, 2) +
                     "/chip-hour, " + format_count(p.served_tokens, 1) + " served tokens");
  row("reference", bill(p.reference));
  row("cheapest at its loss", bill(p.same_loss));
  row("crossover", p.crossover_served_tokens
                       ? format_count(*p.crossover_served_tokens, 1) + " served tokens"
                       : std::string("none (one model is cheaper at every count)"));
  if (!r.train_precision_text.empty()) {
    std::printf("\nTraining precision\n");
    paragraph(r.train_precision_text.substr(1));
  }
  if (!r.quality_penalty_text.empty()) {
    std::printf("\nServing precision\n");
    paragraph(r.quality_penalty_text.substr(1));
  }
}

}  // namespace napkin::cli
