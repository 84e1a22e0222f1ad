// `napkin-cli serve --mode static|offline|server`: a benchmark's set-up
// (serving_modes.h), its throughput and latency percentiles.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "cli_common.h"
#include "framework_config.h"
#include "serving_modes.h"
#include "serving_speculative.h"

namespace napkin::cli {

// serve --emit with a mode: the engine's name and its launch flags for the
// number of requests in flight the run used.
struct ModeEmit {
  std::string framework;
  std::function<EmittedFlags(std::int64_t concurrency)> flags;
};

// Prints (or, with json, emits) the mode's result; with `frontier` the
// latency–throughput frontier too, with `ttft_p99_seconds` the highest
// request rate that keeps P99 TTFT within it, with `launch` the launch flags
// (JSON "emit"); `extra` members are added to the JSON object. Returns the
// exit status.
int print_serve_mode(const ServingModel& model, const ModeInputs& in, bool json,
                     const std::string& model_name, bool frontier = false,
                     std::optional<double> ttft_p99_seconds = std::nullopt,
                     const ModeEmit* launch = nullptr, const QJsonObject& extra = {});

// --draft-params N | --draft-config FILE [--draft-k 4] [--acceptance 0.7]:
// the draft model for speculative decoding (none without a draft flag).
struct SpeculativeFlags {
  std::optional<ServingModel> draft;
  std::int64_t draft_tokens = 4;
  double acceptance = 0.7;
};
SpeculativeFlags speculative_flags(Args& a);
// The result at `in`'s layout and batch, for the JSON and the text report.
QJsonObject speculative_json(const SpeculativeResult& r, const SpeculativeFlags& f);
void print_speculative(const SpeculativeResult& r, const SpeculativeFlags& f);

// What `serve --help` adds to the usage line: every engine preset and what
// it sets, and the modes.
std::string serve_help_text();

}  // namespace napkin::cli
