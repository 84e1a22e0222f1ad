// The layout's text form: what --layout, the scenario file and the read-outs
// write ("tp=8,pp=4,...,recompute=full:3") and read back, and the
// recomputation modules' names.
#include <array>
#include <charconv>
#include <stdexcept>
#include <string>
#include <utility>

#include "format.h"
#include "parallel.h"
#include "validate.h"

namespace napkin {

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
  if (l.shard > 0 && l.shard != l.dp * l.cp) {
    axis(s, " (ZeRO over ", l.shard);
    s += ")";
  }
  return s;
}

std::string to_string(const Layout& l) {
  std::string s =
      "tp=" + std::to_string(l.tp) + ",pp=" + std::to_string(l.pp) +
      ",vpp=" + std::to_string(l.vpp) + ",dp=" + std::to_string(l.dp) +
      ",cp=" + std::to_string(l.cp) + ",ep=" + std::to_string(l.ep) +
      (l.etp > 0 && l.etp != l.tp ? ",etp=" + std::to_string(l.etp) : "") +
      ",zero=" + std::to_string(l.zero) +
      (l.shard > 0 && l.shard != l.dp * l.cp ? ",shard=" + std::to_string(l.shard) : "") +
      ",mb=" + std::to_string(l.micro_batch) + ",sp=" + (l.sequence_parallel ? "on" : "off") +
      ",recompute=";
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

namespace {

// The N of "full:N" or "uniform:N" (`kind`), in 1 – the layout limit.
std::int64_t layers_count(std::string_view value, std::string_view kind, std::string_view what,
                          const std::string& got) {
  const std::string_view n = value.substr(kind.size() + 1);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
  if (ec != std::errc() || end != n.data() + n.size() || v < 1 ||
      v > kLayoutLimits.recompute_layers)
    throw std::invalid_argument("recompute=" + std::string(kind) + ":N needs N in 1 – " +
                                format_grouped(kLayoutLimits.recompute_layers) + " (" +
                                std::string(what) + ")" + got);
  return v;
}

}  // namespace

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
    l.recompute = Checkpointing::full;
    l.recompute_layers = layers_count(value, "full", "layers of each chunk", got);
  } else if (value.starts_with("uniform:")) {
    l.recompute = Checkpointing::full;
    l.recompute_group = layers_count(value, "uniform", "layers to a checkpoint", got);
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
  bool dp_given = false, etp_given = false, shard_given = false;
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
          "shard, mb, sp, recompute); got \"" +
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
    else if (key == "shard")
      l.shard = parse_int(key, value), shard_given = true;
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
          "--layout key must be one of tp, pp, vpp, dp, cp, ep, etp, zero, shard, mb, "
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
  if (shard_given) {
    const std::int64_t ranks = l.dp * l.cp;
    if (l.shard < 1 || l.shard > ranks || ranks % l.shard != 0)
      throw std::invalid_argument("--layout shard must divide dp × cp = " + format_grouped(ranks) +
                                  "; got " + std::to_string(l.shard));
  }
  if (l.shard == l.dp * l.cp) l.shard = 0;  // the default spelling
  return l;
}

}  // namespace napkin
