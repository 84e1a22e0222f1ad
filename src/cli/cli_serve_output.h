// `napkin-cli serve` apart from its modes: what it was asked (from its
// flags), what it computed, and the two ways it reports them (one JSON object,
// or a readable report).
#pragma once

#include <optional>
#include <string>

#include "cli_common.h"
#include "cli_serve_modes.h"
#include "framework_config.h"
#include "serving_search.h"

namespace napkin::cli {

// Everything `serve` was asked, from its flags, the combinations checked.
struct ServeRequest {
  bool json = false;
  bool search = false;
  std::string model_name;
  ServingModel model;
  ServingInputs in;
  std::optional<std::int64_t> chips, tp, pp, ep;
  SpeculativeFlags spec;
  std::optional<ModeInputs> mode;
  bool frontier = false;
  std::optional<double> ttft_p99_seconds;
  LatencyBudget budget;
  bool has_budget = false;
  std::int64_t max_chips = 0;
  std::int64_t max_batch = 0;
  double tokens_per_day = 0;
  std::string emit_to;
  std::string served_model;
};

// What `serve` computed: the given layout's result, or the search's answer
// (and the disaggregation verdict with a TTFT and a TPOT budget), and the
// launch flags of the layout shown.
struct ServeAnswer {
  std::optional<ServingResult> chosen;
  std::optional<SpeculativeResult> speculative;
  std::optional<SearchAnswer> search;
  std::optional<Disaggregation> disagg;
  std::optional<EmittedFlags> flags;
  // The given layout's result, else the search's smallest slice.
  const ServingResult* shown() const {
    if (chosen) return &*chosen;
    return search && search->best ? &search->best->result : nullptr;
  }
};

// The keys of `serve --json`: the shown layout's result, the model, the
// engine, the precisions and assumptions, the budget, the search's layouts
// and the disaggregation verdict, and the emitted flags.
QJsonObject serve_json(const ServeRequest& r, const ServeAnswer& ans);
// The readable report of the same.
void print_serve(const ServeRequest& r, const ServeAnswer& ans);

}  // namespace napkin::cli
