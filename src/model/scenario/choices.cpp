#include "choices.h"

#include <array>
#include <cstdio>
#include <stdexcept>

#include "quantize.h"
#include "serving_engine.h"
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

const std::array kChoices{
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
};

}  // namespace

std::span<const ScenarioChoice> scenario_choices() { return kChoices; }

const ScenarioChoice& scenario_choice(std::string_view key) {
  for (const ScenarioChoice& c : kChoices)
    if (c.key == key) return c;
  throw_unknown_name("choice", key, kChoices, [](const ScenarioChoice& c) { return c.key; });
}

std::string choice_names(const ScenarioChoice& c) {
  std::string out;
  for (const ChoiceOption& o : c.options()) out += (out.empty() ? "" : ", ") + o.name;
  return out;
}

ChoiceOption choice_option(const ScenarioChoice& c, std::string_view text, std::string_view what) {
  const std::vector<ChoiceOption> options = c.options();
  for (const ChoiceOption& o : options)
    if (o.name == text) return o;
  throw_unknown_name(what.empty() ? c.label : what, text, options,
                     [](const ChoiceOption& o) { return std::string_view(o.name); });
}

void set_choice(const ScenarioChoice& c, Scenario& s, std::string_view text,
                std::string_view what) {
  c.set(s, choice_option(c, text, what).name);
}

}  // namespace napkin
