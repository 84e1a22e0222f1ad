// Internals of the framework-config readers (not a public API): typed reads
// of a config's flat keys, and the readers of the layout keys that Megatron-
// LM and NeMo share (recomputation, the experts' TP and dispatch).
#pragma once

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>

#include "csv.h"
#include "format.h"
#include "framework_config.h"
#include "framework_text.h"

namespace napkin::framework_detail {

using csv::shown;

// Typed reads of the flat keys; the first name present wins, so a newer key
// and its older spelling can both be given.
class Keys {
 public:
  Keys(const ConfigEntries& e, TrainingConfig& c) : e_(e), c_(c) {}

  const ConfigEntry* find(std::initializer_list<const char*> names) const {
    for (const char* n : names)
      if (const ConfigEntry* x = e_.find(n)) return x;
    return nullptr;
  }
  // Present with a value the file defines.
  const ConfigEntry* value(std::initializer_list<const char*> names) const {
    const ConfigEntry* x = find(names);
    return x && x->known && !x->value.empty() && x->value != "auto" ? x : nullptr;
  }
  [[noreturn]] void fail(const ConfigEntry& x, const std::string& expected) const {
    throw std::invalid_argument(e_.source + ": line " + std::to_string(x.line) + ": key \"" +
                                x.key + "\": expected " + expected + ", found " + shown(x.value));
  }
  std::optional<std::int64_t> integer(std::initializer_list<const char*> names, std::int64_t lo,
                                      std::int64_t hi) const {
    const ConfigEntry* x = value(names);
    if (!x) return std::nullopt;
    std::string v = x->value;
    if (v.size() > 2 && v.compare(v.size() - 2, 2, ".0") == 0) v.resize(v.size() - 2);
    std::int64_t out = 0;
    const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    const std::string expected =
        "an integer in [" + format_grouped(lo) + ", " + format_grouped(hi) + "]";
    if (ec != std::errc() || p != v.data() + v.size() || out < lo || out > hi) fail(*x, expected);
    return out;
  }
  std::optional<bool> boolean(std::initializer_list<const char*> names) const {
    const ConfigEntry* x = value(names);
    if (!x) return std::nullopt;
    std::string v = x->value;
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
    if (v == "true" || v == "1" || v == "yes") return true;
    if (v == "false" || v == "0" || v == "no") return false;
    fail(*x, "true or false");
  }
  std::optional<std::string> text(std::initializer_list<const char*> names) const {
    const ConfigEntry* x = value(names);
    return x ? std::optional<std::string>(x->value) : std::nullopt;
  }
  // Why a setting is not known: absent, or given through something the file
  // does not define.
  std::string why(std::initializer_list<const char*> names, const std::string& absent) const {
    const ConfigEntry* x = find(names);
    if (x && !x->known)
      return "line " + std::to_string(x->line) + " sets " + x->key + " to " + shown(x->value) +
             ", which the file does not define";
    return absent;
  }
  void missing(const std::string& item) const { c_.missing.push_back(item); }
  void note(const std::string& n) const { c_.notes.push_back(n); }

  // An axis with a framework default: the file's value, else the default (noted).
  std::int64_t axis(std::initializer_list<const char*> names, std::int64_t fallback,
                    const char* what) const {
    if (auto v = integer(names, 1, 1'000'000)) return *v;
    if (find(names) && !find(names)->known) {
      missing(std::string(what) + ": " + why(names, ""));
      return fallback;
    }
    static const char* const kNames[] = {"Megatron-LM", "torchtitan", "NeMo", "DeepSpeed"};
    note(std::string(what) + " = " + std::to_string(fallback) + " (" +
         kNames[static_cast<int>(c_.framework)] + "'s default; not in the file)");
    return fallback;
  }

 private:
  const ConfigEntries& e_;
  TrainingConfig& c_;
};

// Megatron's recompute_granularity (NeMo's activations_checkpoint_granularity,
// torchtitan's activation_checkpoint.mode): full, selective or none; absent:
// selective where `selective_flag`, else none.
Checkpointing recompute_of(const Keys& k, std::initializer_list<const char*> names,
                           bool selective_flag);
// N layers of each model chunk recomputed in full (Layout::recompute_layers),
// or every layer when N covers the chunk.
void set_recompute_layers(TrainingConfig& c, std::int64_t n);
// Megatron's --recompute-method / --recompute-num-layers (NeMo's
// activations_checkpoint_method / _num_layers) under full recomputation.
void read_recompute_method(const Keys& k, TrainingConfig& c, const char* method_key,
                           const char* layers_key);
// Megatron's --recompute-modules (NeMo's recompute_modules).
void read_recompute_modules(const Keys& k, TrainingConfig& c);
// Megatron Core's expert_tensor_parallel_size.
void read_expert_tp(const Keys& k, Layout& l);
// Hybrid sharding: ZeRO over dp × cp ÷ `replicas` ranks, the groups replicas
// (Layout::shard), from the file's `key`; said in the notes, or named as
// missing when it does not divide.
void hybrid_shard(const Keys& k, TrainingConfig& c, std::int64_t replicas, const char* key);
// Megatron Core's token dispatcher type.
void read_expert_dispatch(const Keys& k, TrainingConfig& c);
// Notes where a Megatron-LM file runs without Megatron's overlaps, which the
// Megatron Core presets assume.
void megatron_overlap_notes(const Keys& k, TrainingConfig& c);

}  // namespace napkin::framework_detail
