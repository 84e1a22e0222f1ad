// import-run: a training framework's config (Megatron-LM arguments, torchtitan
// TOML, NeMo YAML, DeepSpeed JSON) → the model, layout, batch, sequence length
// and precision it states, what it does not state, and optionally a scenario
// document written through the atomic writer.
#include <QJsonArray>
#include <QJsonObject>
#include <cstdio>
#include <string>

#include "cli_common.h"
#include "format.h"
#include "framework_config.h"
#include "scenario_json.h"

namespace napkin::cli {

namespace {

constexpr int kWidth = 26;

std::optional<TrainingFramework> framework_flag(Args& a) {
  const std::string f =
      a.choice("--framework", "auto", {"auto", "megatron", "torchtitan", "nemo", "deepspeed"});
  if (f == "megatron") return TrainingFramework::megatron;
  if (f == "torchtitan") return TrainingFramework::torchtitan;
  if (f == "nemo") return TrainingFramework::nemo;
  if (f == "deepspeed") return TrainingFramework::deepspeed;
  return std::nullopt;
}

QJsonArray strings(const std::vector<std::string>& v) {
  QJsonArray a;
  for (const std::string& s : v) a.append(QString::fromStdString(s));
  return a;
}

QJsonObject config_json(const TrainingConfig& c) {
  QJsonObject o;
  o["framework"] = QString::fromUtf8(to_string(c.framework).data());
  o["source"] = QString::fromStdString(c.source);
  if (c.shape_known) {
    const ModelShape& s = c.shape;
    o["model"] = QJsonObject{{"layers", json_int(s.n_layers)},
                             {"d_model", json_int(s.d_model)},
                             {"d_ff", json_int(s.d_ff)},
                             {"heads", json_int(s.n_heads)},
                             {"kv_heads", json_int(s.n_kv_heads)},
                             {"head_dim", json_int(s.d_head)},
                             {"vocab", json_int(s.vocab)},
                             {"gated", s.gated},
                             {"tied_embeddings", s.tied_embeddings},
                             {"experts", json_int(s.n_experts)},
                             {"top_k", json_int(s.top_k)}};
  } else {
    o["model"] = QJsonValue();
  }
  const Layout& l = c.layout;
  o["layout"] = layout_json(l);
  o["layout_text"] = QString::fromStdString(to_string(l));
  o["chips"] = c.n_chips ? json_int(*c.n_chips) : QJsonValue();
  o["seq_len"] = c.seq_len ? json_int(*c.seq_len) : QJsonValue();
  o["global_batch"] = c.global_batch ? json_int(*c.global_batch) : QJsonValue();
  o["precision"] = c.precision.empty() ? QJsonValue() : QString::fromStdString(c.precision);
  o["software"] = c.software.empty() ? QJsonValue() : QString::fromStdString(c.software);
  o["missing"] = strings(c.missing);
  o["notes"] = strings(c.notes);
  return o;
}

std::string or_missing(const std::optional<std::int64_t>& v) {
  return v ? format_grouped(static_cast<double>(*v)) : std::string("(not in the file)");
}

int run_import_run(Args& a) {
  const auto file = a.positional();
  if (!file) throw UsageError("import-run needs a FILE (a launch script, .toml, .yaml or .json)");
  const bool json = a.flag("--json");
  const auto framework = framework_flag(a);
  const auto out = a.value("-o");
  a.finish();
  const TrainingConfig c = import_training_config_file(*file, framework);
  if (out) {
    const Scenario s = apply_to_scenario(c, Scenario{});
    save_scenario_file(s, *out);
  }
  if (json) {
    QJsonObject o = config_json(c);
    if (out) o["written"] = QString::fromStdString(*out);
    print_json(o);
    return 0;
  }
  std::printf("Imported %s (%s)\n", c.source.c_str(), to_string(c.framework).data());
  if (c.shape_known) {
    const ModelShape& s = c.shape;
    row("model",
        std::to_string(s.n_layers) + " layers, d_model " + std::to_string(s.d_model) + ", d_ff " +
            std::to_string(s.d_ff) + ", " + std::to_string(s.n_heads) + " heads (" +
            std::to_string(s.n_kv_heads) + " KV), vocab " + std::to_string(s.vocab) +
            (s.gated ? ", gated MLP" : "") +
            (s.is_moe()
                 ? ", " + std::to_string(s.n_experts) + " experts (top " + std::to_string(s.top_k) +
                       ", " + std::to_string(s.effective_expert_d_ff()) + " wide)"
                 : std::string()),
        kWidth);
  } else {
    row("model", "(incomplete: see missing)", kWidth);
  }
  row("layout", to_string(c.layout), kWidth);
  row("GPUs", or_missing(c.n_chips), kWidth);
  row("sequence length", or_missing(c.seq_len), kWidth);
  row("global batch (sequences)", or_missing(c.global_batch), kWidth);
  row("precision", c.precision.empty() ? "(not in the file)" : c.precision, kWidth);
  if (!c.software.empty()) row("software", c.software, kWidth);
  if (!c.missing.empty()) {
    std::printf("Missing (not guessed):\n");
    for (const std::string& m : c.missing) std::printf("  - %s\n", m.c_str());
  }
  if (!c.notes.empty()) {
    std::printf("Framework defaults and properties used:\n");
    for (const std::string& n : c.notes) std::printf("  - %s\n", n.c_str());
  }
  if (out) std::printf("Scenario written to %s\n", out->c_str());
  return 0;
}

}  // namespace

std::vector<Command> import_commands() {
  return {
      {"import-run",
       "import-run FILE [--framework auto|megatron|torchtitan|nemo|deepspeed] [-o SCENARIO.json] "
       "[--json]",
       run_import_run},
  };
}

}  // namespace napkin::cli
