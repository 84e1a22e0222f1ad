// The panels' settings in a scenario document (version 2): IsoFLOPs, MoE,
// Roofline, Parallelism; kept apart from the Budget-level fields
// (scenario_json.cpp) so either can change alone.
#include <QJsonArray>
#include <QJsonObject>
#include <cmath>
#include <stdexcept>

#include "calibration.h"
#include "scenario_json.h"
#include "scenario_json_detail.h"
#include "validate.h"

namespace napkin::json_detail {

namespace {

// ===================================================================
// The panels' settings (document version 2): IsoFLOPs, MoE, Roofline.
// Kept apart from the Budget-level fields above so either can change alone.
// ===================================================================

// Seeds and counts are JSON numbers: exact up to 2^53 − 1.
constexpr std::int64_t kMaxJsonInteger = (std::int64_t{1} << 53) - 1;

// The panels' numbers, choices and switches are registered (inputs.h,
// choices.h, switches.h), and the document writer puts them in place
// (inputs_to_json); their locks, columns and a loaded ladder are written here.
QJsonObject columns_to_json(const LadderColumns& c) {
  return QJsonObject{{QStringLiteral("n_params"), q(c.n_params)},
                     {QStringLiteral("n_params_scale"), c.n_params_scale},
                     {QStringLiteral("tokens"), q(c.tokens)},
                     {QStringLiteral("tokens_kind"), q(to_string(c.tokens_kind))},
                     {QStringLiteral("tokens_scale"), c.tokens_scale},
                     {QStringLiteral("loss"), q(c.loss)},
                     {QStringLiteral("loss_unit"), q(to_string(c.loss_unit))},
                     {QStringLiteral("budget"), q(c.budget)},
                     {QStringLiteral("budget_scale"), c.budget_scale}};
}

// The points as [n_params, n_tokens, loss, budget_flops] rows (budget 0 = no
// label): numbers in the model's units, written shortest-round-trip, so the
// document reproduces the ladder bit for bit.
QJsonObject loaded_to_json(const LoadedLadder& l) {
  QJsonArray points;
  for (const LadderPoint& p : l.points)
    points.append(QJsonArray{p.n_params, p.n_tokens, p.loss, p.budget_flops});
  return QJsonObject{{QStringLiteral("file_name"), q(l.file_name)},
                     {QStringLiteral("columns"), columns_to_json(l.columns)},
                     {QStringLiteral("data_rows"), static_cast<qint64>(l.data_rows)},
                     {QStringLiteral("points"), points}};
}

QJsonObject isoflops_to_json(const IsoflopsSettings& s) {
  QJsonObject ladder;
  if (s.loaded) ladder[QStringLiteral("loaded")] = loaded_to_json(*s.loaded);
  return QJsonObject{{QStringLiteral("ladder"), ladder}};
}

QJsonObject moe_to_json(const MoeSettings& m) {
  return QJsonObject{{QStringLiteral("steps"), static_cast<qint64>(m.steps)},
                     {QStringLiteral("shown_step"), static_cast<qint64>(m.shown_step)}};
}

QJsonObject roofline_to_json(const RooflineSettings& r) {
  QJsonArray overlays;
  for (const std::string& o : r.overlays) overlays.append(q(o));
  return QJsonObject{
      {QStringLiteral("overlays"), overlays},
      {QStringLiteral("serving_layout"),
       QJsonObject{
           {QStringLiteral("tp"), static_cast<qint64>(r.serving_layout.tp)},
           {QStringLiteral("pp"), static_cast<qint64>(r.serving_layout.pp)},
           {QStringLiteral("ep"), static_cast<qint64>(r.serving_layout.ep)},
           {QStringLiteral("max_tokens_per_step"),
            static_cast<qint64>(r.serving_layout.max_tokens_per_step)},
           {QStringLiteral("chunked_prefill"), r.serving_layout.chunked_prefill
                                                   ? QJsonValue(*r.serving_layout.chunked_prefill)
                                                   : QJsonValue()},
           {QStringLiteral("engine_memory_fraction"), r.serving_layout.engine_memory_fraction},
           {QStringLiteral("run_concurrency"),
            static_cast<qint64>(r.serving_layout.run_concurrency)}}}};
}

QJsonValue lock_to_json(const std::optional<std::int64_t>& v) {
  return v ? QJsonValue(static_cast<qint64>(*v)) : QJsonValue();
}

// Locks are numbers (or the recompute value --layout takes); null means the
// axis is searched.
QJsonObject parallel_to_json(const ParallelSettings& p) {
  QJsonObject locks{{QStringLiteral("tp"), lock_to_json(p.tp)},
                    {QStringLiteral("pp"), lock_to_json(p.pp)},
                    {QStringLiteral("vpp"), lock_to_json(p.vpp)},
                    {QStringLiteral("cp"), lock_to_json(p.cp)},
                    {QStringLiteral("ep"), lock_to_json(p.ep)},
                    {QStringLiteral("etp"), lock_to_json(p.etp)},
                    {QStringLiteral("micro_batch"), lock_to_json(p.micro_batch)},
                    {QStringLiteral("zero"), p.zero ? QJsonValue(*p.zero) : QJsonValue()},
                    {QStringLiteral("shard"), lock_to_json(p.shard)},
                    {QStringLiteral("recompute"),
                     p.recompute ? QJsonValue(q(p.recompute_lock_text())) : QJsonValue()}};
  return QJsonObject{
      {QStringLiteral("cluster_profile"), q(p.cluster_profile)},
      {QStringLiteral("locks"), locks},
      {QStringLiteral("chosen"), p.chosen ? QJsonValue(layout_json(*p.chosen)) : QJsonValue()}};
}

}  // namespace

void settings_to_json(const Scenario& s, QJsonObject& doc) {
  doc[QStringLiteral("isoflops")] = isoflops_to_json(s.isoflops);
  doc[QStringLiteral("moe")] = moe_to_json(s.moe);
  doc[QStringLiteral("roofline")] = roofline_to_json(s.roofline);
  doc[QStringLiteral("parallel")] = parallel_to_json(s.parallel);
}

namespace {

// The law preset and the bias design are registered choices, read first: a
// preset named without constants means the preset's; the law's constants,
// the design's numbers and its switches are registered too.
void synthetic_from_json(const Reader& r, Scenario& s) {
  r.choices(s);
  Reader(r.object("law"), r.prefix() + "law.", r.source()).inputs(s);
  r.inputs(s);
  r.switches(s);
}

void columns_from_json(const Reader& r, LadderColumns& c) {
  r.text("n_params", c.n_params);
  r.real("n_params_scale", c.n_params_scale, 1e-15, 1e21);
  r.text("tokens", c.tokens);
  r.choice<TokensKind>("tokens_kind", c.tokens_kind, parse_tokens_kind);
  r.real("tokens_scale", c.tokens_scale, 1e-15, 1e21);
  r.text("loss", c.loss);
  r.choice<LossUnit>("loss_unit", c.loss_unit, parse_loss_unit);
  r.text("budget", c.budget);
  r.real("budget_scale", c.budget_scale, 1e-15, 1e21);
}

LoadedLadder loaded_from_json(const Reader& r) {
  LoadedLadder l;
  r.text("file_name", l.file_name, 1000);
  columns_from_json(Reader(r.object("columns"), r.prefix() + "columns.", r.source()), l.columns);
  if (!r.has("points")) r.fail("points", "nothing", "the ladder's runs as [N, D, loss, budget]");
  const QJsonArray rows = r.array("points");
  if (rows.size() > 100'000)
    r.fail("points", std::to_string(rows.size()) + " runs", "at most 100,000 runs");
  l.points.reserve(static_cast<std::size_t>(rows.size()));
  for (qsizetype i = 0; i < rows.size(); ++i) {
    const std::string key = "points[" + std::to_string(i) + "]";
    const char* expected =
        "[n_params, n_tokens, loss, budget_flops]: finite numbers, "
        "the first three > 0, budget_flops >= 0 (0 = no label)";
    const QJsonValue row = rows.at(i);
    if (!row.isArray() || row.toArray().size() != 4)
      r.fail(key.c_str(), Reader::describe(row), expected);
    const QJsonArray a = row.toArray();
    double v[4];
    for (int k = 0; k < 4; ++k) {
      if (!a.at(k).isDouble()) r.fail(key.c_str(), Reader::describe(a.at(k)), expected);
      v[k] = a.at(k).toDouble();
      const bool ok = std::isfinite(v[k]) && (k == 3 ? v[k] >= 0 : v[k] > 0);
      if (!ok) r.fail(key.c_str(), format_value(v[k]), expected);
    }
    l.points.push_back(LadderPoint{v[0], v[1], v[2], v[3], false});
  }
  l.data_rows = static_cast<std::int64_t>(l.points.size());
  r.integer("data_rows", l.data_rows, static_cast<std::int64_t>(l.points.size()), kMaxJsonInteger);
  return l;
}

// The panel's numbers are registered inputs (inputs.h); its choices, switches
// and a loaded ladder are read here.
void isoflops_from_json(const Reader& r, Scenario& sc) {
  IsoflopsSettings& s = sc.isoflops;
  const std::string& p = r.prefix();
  const std::string_view src = r.source();
  const Reader ladder(r.object("ladder"), p + "ladder.", src);
  synthetic_from_json(Reader(ladder.object("synthetic"), p + "ladder.synthetic.", src), sc);
  if (ladder.has("loaded"))
    s.loaded = loaded_from_json(Reader(ladder.object("loaded"), p + "ladder.loaded.", src));
  const Reader cut(ladder.object("loss_cut"), p + "ladder.loss_cut.", src);
  cut.switches(sc);
  cut.inputs(sc);
  const Reader fit(r.object("fit"), p + "fit.", src);
  fit.choices(sc);
  fit.inputs(sc);
  r.inputs(sc);
  const Reader target(r.object("target"), p + "target.", src);
  target.switches(sc);
  target.inputs(sc);
  const Reader c(r.object("candidate"), p + "candidate.", src);
  c.choices(sc);
  c.inputs(sc);
}

// The router's and the link's and pipeline's numbers and the router's
// switches are registered; the run of record's steps are read here.
void moe_from_json(const Reader& r, Scenario& s) {
  MoeSettings& m = s.moe;
  r.inputs(s);
  r.switches(s);
  r.integer("steps", m.steps, 1, 5000);
  // The one work budget of a recorded run (moe.h), said in the file's words.
  const std::int64_t most_steps = max_recorded_collapse_steps(m.collapse_params());
  if (m.steps > most_steps)
    r.fail("steps", std::to_string(m.steps),
           "an integer in [1, " + format_grouped(most_steps) +
               "] at these experts and tokens_per_batch (the run of record's work budget: steps "
               "× experts × (tokens_per_batch + 1,024) ≤ 5e8)");
  // The scrub position lies in the run it is a step of.
  r.integer("shown_step", m.shown_step, 0, 5000);
  if (m.shown_step > m.steps)
    r.fail("shown_step", std::to_string(m.shown_step),
           "an integer in [0, " + format_grouped(m.steps) +
               "] (a step of the run of record's steps; 0 shows its last)");
  Reader(r.object("comm"), r.prefix() + "comm.", r.source()).inputs(s);
  Reader(r.object("pipeline"), r.prefix() + "pipeline.", r.source()).inputs(s);
}

void roofline_from_json(const Reader& r, Scenario& scenario) {
  RooflineSettings& s = scenario.roofline;
  if (r.has("overlays")) {
    s.overlays.clear();
    const QJsonArray a = r.array("overlays");
    for (qsizetype i = 0; i < a.size(); ++i) {
      const std::string key = "overlays[" + std::to_string(i) + "]";
      const std::string name = a.at(i).toString().toStdString();
      if (!a.at(i).isString()) r.fail(key.c_str(), Reader::describe(a.at(i)), "a chip name");
      try {
        (void)chip_by_name(name);
      } catch (const std::invalid_argument&) {
        r.fail(key.c_str(), "\"" + name.substr(0, 40) + "\"", "one of " + chip_names());
      }
      s.overlays.push_back(name);
    }
  }
  const Reader sl(r.object("serving_layout"), r.prefix() + "serving_layout.", r.source());
  sl.integer("tp", s.serving_layout.tp, 0, 1 << 20);
  sl.integer("pp", s.serving_layout.pp, 0, 1 << 20);
  sl.integer("ep", s.serving_layout.ep, 0, 1 << 20);
  sl.switches(scenario);
  sl.integer("max_tokens_per_step", s.serving_layout.max_tokens_per_step, 0, 1 << 20);
  // true or false; null: the engine's default (absent keeps the value).
  if (sl.has("chunked_prefill")) {
    if (sl.is_null("chunked_prefill")) {
      s.serving_layout.chunked_prefill.reset();
    } else {
      bool on = false;
      sl.boolean("chunked_prefill", on);
      s.serving_layout.chunked_prefill = on;
    }
  }
  // 0: the engine's own memory setting.
  sl.real("engine_memory_fraction", s.serving_layout.engine_memory_fraction, 0.0, 1.0);
  sl.choices(scenario);  // the run's mode
  sl.integer("run_concurrency", s.serving_layout.run_concurrency, 0, 1'000'000);
  // The benchmark run's numbers are registered inputs (settings_from_json).
}

// An integer or null (null clears the lock; absent keeps it).
template <typename T>
void lock_from_json(const Reader& r, const char* key, std::optional<T>& out, std::int64_t lo,
                    std::int64_t hi) {
  if (!r.has(key)) return;
  if (r.is_null(key)) {
    out.reset();
    return;
  }
  std::int64_t v = lo;
  r.integer(key, v, lo, hi);
  out = static_cast<T>(v);
}

void layout_from_json(const Reader& r, Layout& l) {
  const LayoutLimits& most = kLayoutLimits;
  r.integer("tp", l.tp, 1, most.tp);
  r.integer("pp", l.pp, 1, most.pp);
  r.integer("vpp", l.vpp, 1, most.vpp);
  r.integer("dp", l.dp, 1, most.dp);
  r.integer("cp", l.cp, 1, most.cp);
  r.integer("ep", l.ep, 1, most.ep);
  r.integer("etp", l.etp, 1, most.tp);  // absent: tp
  if (l.etp == l.tp) l.etp = 0;         // the default spelling
  r.integer("zero", l.zero, 0, 3);
  // ZeRO's group; absent: all DP × CP ranks (kept 0 when it is them).
  r.integer("shard", l.shard, 1, most.dp);
  if (l.shard == l.dp * l.cp) l.shard = 0;
  r.integer("micro_batch", l.micro_batch, 1, most.micro_batch);
  r.boolean("sequence_parallel", l.sequence_parallel);
  r.choice<Checkpointing>("recompute", l.recompute, parse_checkpointing);
  // Full recomputation of the first N layers of each chunk; absent or 0: all.
  r.integer("recompute_layers", l.recompute_layers, 0, most.recompute_layers);
  // Full recomputation of every layer, this many to a checkpoint; absent: 1.
  r.integer("recompute_group", l.recompute_group, 1, most.recompute_layers);
  // Selective recomputation's modules, Megatron's names joined by '+'; "": the
  // attention core alone.
  r.choice<std::uint32_t>("recompute_modules", l.recompute_modules, [](std::string_view t) {
    return canonical_recompute_modules(parse_recompute_modules(t));
  });
}

void parallel_from_json(const Reader& r, Scenario& s) {
  ParallelSettings& p = s.parallel;
  // global_batch_tokens: a registered input, read with the scenario's
  // inputs; the MFU source, the cluster (null: the chip's node; custom's
  // numbers are inputs, read after), the software, the pipeline schedule
  // and the expert dispatch: registered choices (null: the software
  // preset's).
  r.choices(s);
  // The profile's path; its constants read from the file (at most 16 MiB).
  r.text("cluster_profile", p.cluster_profile, 4096);
  p.calibrated.reset();
  p.calibrated_interval.reset();
  if (!p.cluster_profile.empty()) {
    try {
      const ClusterProfile profile = load_profile_file(p.cluster_profile);
      p.calibrated = profile.calibrated();
      p.calibrated_interval = profile.interval();
    } catch (const std::invalid_argument& e) {
      r.fail("cluster_profile", "\"" + p.cluster_profile + "\"",
             std::string("a readable cluster profile (") + e.what() + ")");
    }
  }
  // gpus_per_node and the bandwidths: registered inputs, read with the scenario's.
  r.switches(s);
  const Reader locks(r.object("locks"), r.prefix() + "locks.", r.source());
  const LayoutLimits& most = kLayoutLimits;
  lock_from_json(locks, "tp", p.tp, 1, most.tp);
  lock_from_json(locks, "pp", p.pp, 1, most.pp);
  lock_from_json(locks, "vpp", p.vpp, 1, most.vpp);
  lock_from_json(locks, "cp", p.cp, 1, most.cp);
  lock_from_json(locks, "ep", p.ep, 1, most.ep);
  lock_from_json(locks, "etp", p.etp, 1, most.tp);
  lock_from_json(locks, "micro_batch", p.micro_batch, 1, most.micro_batch);
  lock_from_json(locks, "zero", p.zero, 0, 3);
  lock_from_json(locks, "shard", p.shard, 0, most.dp);
  // The recompute lock as --layout's recompute value ("full", "full:4",
  // "selective:op"); null unlocks.
  if (locks.has("recompute")) {
    if (locks.is_null("recompute")) {
      p.lock_recompute("");
    } else {
      ParallelSettings read = p;
      locks.choice<ParallelSettings>("recompute", read, [&read](std::string_view t) {
        ParallelSettings next = read;
        next.lock_recompute(t);
        return next;
      });
      p = read;
    }
  }
  if (r.has("chosen")) {
    if (r.is_null("chosen")) {
      p.chosen.reset();
    } else {
      Layout l;
      layout_from_json(Reader(r.object("chosen"), r.prefix() + "chosen.", r.source()), l);
      p.chosen = l;
    }
  }
}

// Version 1 documents have none of these sections: the panels keep their defaults.
}  // namespace

void settings_from_json(const Reader& top, Scenario& s) {
  const std::string_view src = top.source();
  isoflops_from_json(Reader(top.object("isoflops"), "isoflops.", src), s);
  moe_from_json(Reader(top.object("moe"), "moe.", src), s);
  const Reader roofline(top.object("roofline"), "roofline.", src);
  // The panel's numbers and its layout tab's are registered inputs (inputs.h);
  // its overlays and choices are read here.
  roofline_from_json(roofline, s);
  roofline.inputs(s);
  Reader(roofline.object("mfu_budget"), "roofline.mfu_budget.", src).inputs(s);
  Reader(roofline.object("serving_layout"), "roofline.serving_layout.", src).inputs(s);
  const Reader parallel(top.object("parallel"), "parallel.", src);
  parallel_from_json(parallel, s);
  parallel.inputs(s);
}

}  // namespace napkin::json_detail

namespace napkin {

QJsonObject layout_json(const Layout& l) {
  return QJsonObject{
      {QStringLiteral("tp"), static_cast<qint64>(l.tp)},
      {QStringLiteral("pp"), static_cast<qint64>(l.pp)},
      {QStringLiteral("vpp"), static_cast<qint64>(l.vpp)},
      {QStringLiteral("dp"), static_cast<qint64>(l.dp)},
      {QStringLiteral("cp"), static_cast<qint64>(l.cp)},
      {QStringLiteral("ep"), static_cast<qint64>(l.ep)},
      {QStringLiteral("etp"), static_cast<qint64>(l.expert_tp())},
      {QStringLiteral("zero"), l.zero},
      {QStringLiteral("shard"), static_cast<qint64>(l.zero_shard())},
      {QStringLiteral("micro_batch"), static_cast<qint64>(l.micro_batch)},
      {QStringLiteral("sequence_parallel"), l.sequence_parallel},
      {QStringLiteral("recompute"), QString::fromUtf8(to_string(l.recompute).data())},
      {QStringLiteral("recompute_layers"), static_cast<qint64>(l.recompute_layers)},
      {QStringLiteral("recompute_group"), static_cast<qint64>(l.recompute_group)},
      {QStringLiteral("recompute_modules"),
       QString::fromStdString(recompute_modules_text(l.recompute_modules))}};
}

}  // namespace napkin
