// distill: the teacher-logit storage (seed Claim 17) and, with a student and
// a compute budget, Busbridge et al. 2025's distillation split against
// training the student alone (distill_law.h).
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>

#include "cli_common.h"
#include "config_import.h"
#include "distill.h"
#include "distill_law.h"
#include "format.h"
#include "law_json.h"
#include "plan_law.h"

namespace napkin::cli {

namespace {

// The range Busbridge et al. 2025 fitted on: students of 143M–12.6B
// parameters distilled on up to 512B tokens (the paper's abstract and §4).
constexpr double kDistillMinStudentParams = 143e6;
constexpr double kDistillMaxStudentParams = 12.6e9;
constexpr double kDistillMaxTokens = 512e9;

struct Storage {
  std::int64_t vocab = 0;  // 0: unknown (no --vocab and no teacher config)
  double bytes = 2;
  std::int64_t top_k = 0;
  double index_bytes = 4;
};

Storage parse_storage(Args& a, std::int64_t config_vocab) {
  Storage s;
  if (config_vocab > 0) {
    if (a.value("--vocab")) throw UsageError("give --vocab or the teacher's config, not both");
    s.vocab = config_vocab;
  } else if (a.given("--vocab")) {
    s.vocab = a.required_integer("--vocab", 2, 100'000'000, "tokens");
  }
  s.bytes = a.real("--bytes-per-logit", 2, 0.125, 16, "bytes");
  s.top_k =
      a.integer("--top-k", 0, 0, s.vocab > 0 ? s.vocab - 1 : 100'000'000, "logits kept per token");
  s.index_bytes = a.real("--index-bytes", 4, 0.125, 16, "bytes");
  if (s.top_k > 0 && s.vocab == 0)
    throw UsageError("--top-k needs the teacher's vocabulary: give --vocab or --teacher-config");
  return s;
}

void add_storage_json(QJsonObject& o, const Storage& st, const LogitStorage& s) {
  o["vocab"] = json_int(st.vocab);
  o["bytes_per_logit"] = st.bytes;
  o["logit_storage_bytes"] = s.full_bytes;
  if (st.top_k > 0) {
    o["top_k"] = json_int(st.top_k);
    o["index_bytes"] = st.index_bytes;
    o["top_k_storage_bytes"] = s.top_k_bytes;
    o["reduction"] = s.reduction;
  }
}

void print_storage(double tokens, const Storage& st, const LogitStorage& s) {
  std::printf("Teacher logits for %s tokens, vocabulary %s\n", format_count(tokens, 2).c_str(),
              format_grouped(st.vocab).c_str());
  row("full logits", format_bytes(s.full_bytes, 2) + " (tokens x vocabulary x " +
                         format_grouped(st.bytes, 2) + " bytes)");
  if (st.top_k > 0)
    row("top-k store", format_bytes(s.top_k_bytes, 2) + " (top-" + std::to_string(st.top_k) +
                           " values and ids + the tail mass; " + format_grouped(s.reduction, 0) +
                           "x smaller)");
}

// Teacher-logit storage for distillation (seed Claim 17): full and top-k.
int run_storage(Args& a, bool json) {
  const double tokens = a.required_real("--tokens", 1, 1e18, "distillation tokens");
  const auto config = a.value("--config");
  std::int64_t config_vocab = 0;
  if (config) config_vocab = import_hf_config_file(*config).shape.vocab;
  if (!config && !a.given("--vocab")) (void)a.required_integer("--vocab", 2, 100'000'000, "tokens");
  const Storage st = parse_storage(a, config_vocab);
  a.finish();
  const LogitStorage s = logit_storage(tokens, st.vocab, st.bytes, st.top_k, st.index_bytes);
  if (json) {
    QJsonObject o{{"tokens", tokens}};
    add_storage_json(o, st, s);
    print_json(o);
    return 0;
  }
  print_storage(tokens, st, s);
  return 0;
}

PlanLaw supervised_law(Args& a) {
  const std::string law = a.text("--law", "replication");
  if (law == "replication" || law == "chinchilla_paper")
    return builtin_plan_law(parse_law_choice(law));
  try {
    return load_plan_law_file(law);
  } catch (const std::runtime_error& e) {
    throw UsageError("--law " + std::string(e.what()) +
                     " (give replication, chinchilla_paper or a file written by fit -o)");
  }
}

QJsonObject split_json(const DistillSplit& s, double compute) {
  const DistillCompute& c = s.compute;
  return QJsonObject{{"distill_tokens", s.distill_tokens},
                     {"teacher_tokens", s.teacher_tokens},
                     {"teacher_train_flops", c.teacher_train_flops},
                     {"teacher_inference_flops", c.teacher_inference_flops},
                     {"student_flops", c.student_flops},
                     {"teacher_train_fraction", c.teacher_train_flops / compute},
                     {"teacher_inference_fraction", c.teacher_inference_flops / compute},
                     {"student_fraction", c.student_flops / compute}};
}

// The range the law was fitted on: "" inside it, else what lies outside.
std::string extrapolation(double student_params, double tokens) {
  std::string out;
  if (student_params < kDistillMinStudentParams || student_params > kDistillMaxStudentParams)
    out = "the student's " + format_count(student_params) +
          " parameters lie outside the 143M-12.6B students the law was fitted on";
  if (tokens > kDistillMaxTokens)
    out += std::string(out.empty() ? "" : "; ") + "its " + format_count(tokens, 2) +
           " distillation tokens exceed the 512B the law was fitted on";
  return out;
}

// Busbridge et al. 2025: the student's loss distilled from a teacher trained
// on what the compute leaves, against the student trained alone.
// What `distill --student-params` was asked, and the plan it computed.
struct LawAnswer {
  double student_params = 0, teacher_params = 0, compute_flops = 0;
  std::string law_name;  // the supervised law of L_T and the student's losses
  bool constants_given = false;
  std::optional<DistillLaw> law;
  Storage storage_flags;
  DistillPlan plan;
  std::optional<LogitStorage> storage;
  std::string outside;  // where the split leaves the fitted range; empty inside it
  std::string note;
};

LawAnswer plan_from_flags(Args& a) {
  LawAnswer r;
  r.student_params = a.required_real("--student-params", 1e3, 1e15, "parameters");
  const auto teacher_config = a.value("--teacher-config");
  if (teacher_config && a.given("--teacher-params"))
    throw UsageError("give --teacher-params or --teacher-config, not both");
  std::int64_t config_vocab = 0;
  if (teacher_config) {
    const ImportedConfig cfg = import_hf_config_file(*teacher_config);
    r.teacher_params = static_cast<double>(count_params(cfg.shape).total);
    config_vocab = cfg.shape.vocab;
  } else {
    r.teacher_params = a.required_real("--teacher-params", 1e3, 1e15, "parameters");
  }
  r.compute_flops = a.required_real("--compute", 1e6, 1e32, "FLOPs");
  const std::optional<double> tokens = a.optional_real("--tokens", 1, 1e18, "distillation tokens");
  const double tokens_per_param = a.input("budget.tokens_per_param");
  // The supervised law of L_T, L̃_S and the student alone: the one the
  // distillation constants were fitted with (Busbridge et al.'s Table 6)
  // unless --law names another.
  const bool plan_law = a.given("--law");
  const PlanLaw law = supervised_law(a);
  r.law_name = plan_law ? law.name : "Busbridge et al. 2025's supervised law (Table 6, C4)";
  const SupervisedLoss sup =
      plan_law ? supervised_loss(law.law) : supervised_loss(busbridge2025_supervised_law());
  r.law = busbridge2025_distill_law();
  r.constants_given = a.given("--distill-law");
  if (const auto text = a.value("--distill-law")) {
    try {
      r.law = parse_distill_law(*text, "--distill-law");
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  r.storage_flags = parse_storage(a, config_vocab);
  a.finish();
  try {
    r.plan = plan_distillation(sup, r.law, r.compute_flops, r.teacher_params, r.student_params,
                               tokens, tokens_per_param);
  } catch (const std::invalid_argument& e) {
    if (!tokens)  // the split's tokens were the default: the compute is what is short
      throw UsageError("--compute " + format_sci(r.compute_flops) +
                       " FLOPs is too little: giving the student " +
                       format_grouped(tokens_per_param, 0) +
                       " tokens per parameter leaves the teacher nothing (" + e.what() + ")");
    throw UsageError("--" + std::string(e.what()));
  }
  const DistillSplit& s = r.plan.split;
  const Storage& st = r.storage_flags;
  if (st.vocab > 0)
    r.storage = logit_storage(s.distill_tokens, st.vocab, st.bytes, st.top_k, st.index_bytes);
  r.outside = extrapolation(r.student_params, s.distill_tokens);
  r.note = r.constants_given
               ? std::string("Eq. 8 with the constants given.")
               : std::string(
                     "Eq. 8 with Busbridge et al. 2025's constants (Appendix F.3, Table 6), "
                     "fitted on C4 with students of 143M-12.6B parameters.");
  if (plan_law)
    r.note += " L_T and the student's supervised loss come from " + law.name +
              ", not the supervised law the constants were fitted with.";
  if (!r.outside.empty()) r.note += " Extrapolated: " + r.outside + ".";
  return r;
}

QJsonObject law_json(const LawAnswer& r) {
  const DistillPlan& p = r.plan;
  const DistillSplit& s = p.split;
  QJsonObject o{{"student_params", r.student_params},
                {"teacher_params", r.teacher_params},
                {"compute_flops", r.compute_flops},
                {"law", QString::fromStdString(r.law_name)},
                {"tokens", s.distill_tokens},
                {"teacher_tokens", s.teacher_tokens},
                {"teacher_loss", s.teacher_loss},
                {"student_supervised_loss", s.student_supervised_loss},
                {"student_alone_tokens", p.student_alone_tokens},
                {"student_alone_loss", p.student_alone_loss},
                {"split", split_json(s, r.compute_flops)},
                {"searched", p.searched},
                {"extrapolated", !r.outside.empty()},
                {"note", QString::fromStdString(r.note)}};
  o["student_loss"] = s.student_loss ? QJsonValue(*s.student_loss) : QJsonValue();
  o["gain_nats"] = p.gain_nats ? QJsonValue(*p.gain_nats) : QJsonValue();
  o["best_split"] = p.searched ? QJsonValue(split_json(s, r.compute_flops)) : QJsonValue();
  if (p.gain_nats) o["train"] = *p.gain_nats > 0 ? "distill" : "student_alone";
  if (const auto& d = r.law)
    o["distill_law"] =
        QJsonObject{{"source", r.constants_given ? "Busbridge et al. 2025 (arXiv 2502.08606) Eq. "
                                                   "8, constants given"
                                                 : "Busbridge et al. 2025 (arXiv 2502.08606) Eq. "
                                                   "8, Appendix F.3 Table 6"},
                    {"c0", d->c0},
                    {"c1", d->c1},
                    {"d1", d->d1},
                    {"f1", d->f1},
                    {"A", d->a},
                    {"B", d->b},
                    {"alpha", d->alpha},
                    {"beta", d->beta},
                    {"gamma", d->gamma}};
  if (r.storage)
    add_storage_json(o, r.storage_flags, *r.storage);
  else
    o["logit_storage_bytes"] = QJsonValue();
  return o;
}

void print_law(const LawAnswer& r) {
  const DistillPlan& p = r.plan;
  const DistillSplit& s = p.split;
  const DistillCompute& c = s.compute;
  std::printf("Distil a %s-parameter student from a %s-parameter teacher with %s FLOPs\n",
              format_count(r.student_params).c_str(), format_count(r.teacher_params).c_str(),
              format_sci(r.compute_flops).c_str());
  row("supervised law", r.law_name);
  row(p.searched ? "best split" : "split",
      format_sci(c.teacher_train_flops) + " teacher training (" +
          format_count(s.teacher_tokens, 2) + " tokens) + " +
          format_sci(c.teacher_inference_flops) + " teacher logits + " +
          format_sci(c.student_flops) + " student (" + format_count(s.distill_tokens, 2) +
          " tokens)");
  row("teacher loss", format_grouped(s.teacher_loss, 4) + " nats/token");
  row("student loss", s.student_loss ? format_grouped(*s.student_loss, 4) + " nats/token"
                                     : std::string("not priced"));
  row("student alone", format_grouped(p.student_alone_loss, 4) + " nats/token on " +
                           format_count(p.student_alone_tokens, 2) + " tokens");
  if (p.gain_nats)
    row("what I would do",
        *p.gain_nats > 0
            ? "distil: " + format_grouped(*p.gain_nats, 4) + " nats better"
            : "train the student alone: " + format_grouped(-*p.gain_nats, 4) + " nats better");
  if (r.storage) {
    std::printf("\n");
    print_storage(s.distill_tokens, r.storage_flags, *r.storage);
  }
  if (!r.note.empty()) {
    std::printf("\n");
    paragraph(r.note);
  }
}

int run_law(Args& a, bool json) {
  const LawAnswer r = plan_from_flags(a);
  if (json)
    print_json(law_json(r));
  else
    print_law(r);
  return 0;
}

int run_distill(Args& a) {
  const bool json = a.flag("--json");
  if (a.given("--student-params")) return run_law(a, json);
  return run_storage(a, json);
}

}  // namespace

std::vector<Command> distill_commands() {
  return {
      {"distill",
       "distill --tokens D (--vocab V | --config teacher.json) [--bytes-per-logit 2] [--top-k K] "
       "[--index-bytes 4]: the teacher-logit storage; or distill --student-params N "
       "(--teacher-params M | --teacher-config F) --compute C [--tokens D] [--top-k K] [--vocab V] "
       "[--law replication|chinchilla_paper|LAW.json (default: Busbridge et al.'s own)] "
       "[--tokens-per-param 20] "
       "[--distill-law c0,c1,d1,f1,A,B,alpha,beta,gamma (default: Busbridge et al. 2025, "
       "Table 6)]: "
       "the teacher/student compute split against the student alone",
       run_distill},
  };
}

}  // namespace napkin::cli
