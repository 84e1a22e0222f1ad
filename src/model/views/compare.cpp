#include "compare.h"
#include "roofline_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <stdexcept>

#include "budget_view.h"
#include "format.h"
#include "hardware.h"
#include "moe.h"
#include "roofline.h"
#include "scaling.h"
#include "scenario_fields.h"
#include "validate.h"

namespace napkin {

namespace {

// A scenario's model results, each chain computed once, on first use.
class Results {
 public:
  Results(const Scenario& s, const FitProgressFn& progress) : s_(s), progress_(progress) {}
  const Scenario& scenario() const { return s_; }

  const BudgetView& budget() {
    if (!budget_) {
      budget_ = make_budget_view(s_);
      if (!budget_->valid()) throw std::invalid_argument(budget_->error);
    }
    return *budget_;
  }

  struct Roofline {
    RooflinePanelData data;
    bool impossible = false;  // the latency budget is at or below the overhead
  };
  // As the Roofline panel computes it: an impossible budget (which the model
  // refuses) is computed with a reachable one and reported as none.
  const Roofline& roofline() {
    if (roofline_) return *roofline_;
    RooflineScenario sc = roofline_scenario(s_);
    Roofline r;
    r.impossible = sc.turn.budget_seconds <= sc.turn.overhead_seconds;
    if (r.impossible) sc.turn.budget_seconds = sc.turn.overhead_seconds + 1.0;
    r.data = roofline_panel(sc);
    if (r.impossible) r.data.chips_for_budget.reset();
    roofline_ = std::move(r);
    return *roofline_;
  }

  // The IsoFLOPs panel's parametric fit on its ladder: the cheap,
  // deterministic path (no bootstrap).
  const FitResult& fit() {
    if (!fit_) {
      FitOptions options = s_.isoflops.fit.fit_options();
      options.progress = progress_;
      fit_ = fit_parametric(ladder(), options);
    }
    return *fit_;
  }
  const std::vector<LadderPoint>& ladder() {
    if (!ladder_) ladder_ = ladder_points(s_.isoflops);
    return *ladder_;
  }

  // The MoE panel's run of record, at its last step.
  const StepStats& moe() {
    if (!moe_) {
      CollapseSimulation sim(s_.moe.collapse_params());
      sim.run(s_.moe.steps);
      moe_ = sim.current();
    }
    return *moe_;
  }

 private:
  const Scenario& s_;
  const FitProgressFn& progress_;
  std::optional<BudgetView> budget_;
  std::optional<Roofline> roofline_;
  std::optional<std::vector<LadderPoint>> ladder_;
  std::optional<FitResult> fit_;
  std::optional<StepStats> moe_;
};

struct Value {
  std::optional<double> value;
  std::string display;
};

Value of(double v, Unit u, const std::string& context = {}) {
  return {v, format_quantity(v, u) + (context.empty() ? "" : " (" + context + ")")};
}

Value none(const std::string& why) { return {std::nullopt, why}; }

std::string grouped(std::int64_t v) { return format_grouped(v); }

std::string forecast_context(Results& r) {
  const Scenario& s = r.scenario();
  const auto n = static_cast<std::int64_t>(r.ladder().size());
  std::string ladder = s.isoflops.loaded ? grouped(n) + " runs from " + s.isoflops.loaded->file_name
                                         : grouped(n) + " synthetic runs";
  return "at the budget's C = " + format_sci(r.budget().report.flops, 3) + "; " +
         std::string(to_string(s.isoflops.fit.estimator)) + " fit of " + ladder;
}

Value chips_for_budget(Results& r) {
  const Scenario& s = r.scenario();
  const Results::Roofline& rf = r.roofline();
  if (rf.impossible)
    return none("none: the " + format_seconds(s.serving.latency_budget_seconds) +
                " budget is at or below the " + format_seconds(s.serving.overhead_seconds) +
                " overhead");
  if (!rf.data.chips_for_budget)
    return none("none: no slice up to " + grouped(s.roofline.max_chips) + " chips meets " +
                format_seconds(s.serving.latency_budget_seconds));
  return of(
      static_cast<double>(*rf.data.chips_for_budget), Unit::chips,
      "smallest power-of-two slice within " + format_seconds(s.serving.latency_budget_seconds));
}

struct HeadlineDef {
  const char* name;
  Unit unit;
  Better better;
  bool missing_is_worst;
  const char* source;
  std::function<Value(Results&)> compute;
};

// The headline outputs, one line each.
const std::vector<HeadlineDef>& headline_defs() {
  using R = Results;
  static const std::vector<HeadlineDef> defs = {
      {"Compute C", Unit::flops, Better::none, false, "budget_report() → budget_to_flops()",
       [](R& r) {
         const Scenario& s = r.scenario();
         return of(r.budget().report.flops, Unit::flops,
                   grouped(s.n_chips) + " × " + s.chip + ", " + format_grouped(s.days, 1) +
                       " days at " + r.budget().plan.mfu_text() + " MFU");
       }},
      {"MFU used", Unit::fraction, Better::higher, false, "resolve_plan(): assumed or predicted",
       [](R& r) {
         const ResolvedPlan& p = r.budget().plan;
         std::string context(p.mfu_source_name());
         if (p.mfu.source == MfuSource::predicted && !p.mfu.layout.empty())
           context += ": " + p.mfu.layout;
         // A predicted MFU's range: runs like it, or a cluster profile's corners.
         if (const std::string band = p.mfu.band_text(); !band.empty())
           context += "; range " + band;
         if (!p.mfu.note.empty()) context += "; " + p.mfu.note;
         return of(p.mfu.mfu, Unit::fraction, context);
       }},
      {"Parameters N", Unit::parameters, Better::none, false,
       "budget_report() → chinchilla_split()",
       [](R& r) {
         return of(r.budget().report.split.params, Unit::parameters,
                   "compute-optimal at " + format_grouped(r.scenario().tokens_per_param, 1) +
                       " tokens per parameter");
       }},
      {"Tokens D", Unit::tokens, Better::none, false, "budget_report() → chinchilla_split()",
       [](R& r) { return of(r.budget().report.split.tokens, Unit::tokens); }},
      {"Days", Unit::days, Better::lower, false, "budget_report() (flops_to_days())",
       [](R& r) { return of(r.budget().report.days, Unit::days); }},
      {"Cost", Unit::dollars, Better::lower, false,
       "cost_report(): rental_dollars + energy_dollars",
       [](R& r) {
         const CostReport& c = r.budget().report.cost;
         return of(c.rental_dollars + c.energy_dollars, Unit::dollars,
                   "rental " + format_dollars(c.rental_dollars) + " + energy " +
                       format_dollars(c.energy_dollars));
       }},
      {"Energy", Unit::kwh, Better::lower, false, "cost_report(): energy_kwh (at the wall, × PUE)",
       [](R& r) {
         return of(r.budget().report.cost.energy_kwh, Unit::kwh,
                   "PUE " + format_grouped(r.scenario().pue, 2));
       }},
      {"Memory per device", Unit::bytes, Better::lower, false,
       "make_budget_view(): the plan's layout's peak stage (memory_by_stage()), else "
       "training_memory() over data parallelism",
       [](R& r) {
         const Scenario& s = r.scenario();
         const BudgetView& v = r.budget();
         // The Budget planner's memory read-out: the layout's where the plan has one.
         const auto& lm = v.layout_memory;
         return of(
             v.memory_per_device_bytes(), Unit::bytes,
             s.model_name +
                 (lm ? ", peak stage of " + lm->layout
                     : ", ZeRO-" + std::to_string(s.training.zero_stage) + " over " +
                           grouped(s.training.dp_degree) + " replicas") +
                 "; " + s.chip + " holds " +
                 format_bytes(static_cast<double>(lm ? lm->hbm_bytes : v.device_memory_bytes), 1));
       }},
      {"KV fit", Unit::requests, Better::higher, false,
       "make_budget_view() → max_concurrent_requests()",
       [](R& r) {
         const Scenario& s = r.scenario();
         const BudgetView& v = r.budget();
         return of(static_cast<double>(v.max_concurrent), Unit::requests,
                   "concurrent at " + grouped(s.serving.context_len) + " tokens of context on " +
                       grouped(v.report.inputs.serving_node_chips) + " × " + s.chip);
       }},
      // The IsoFLOPs fit's L* at C (the IsoFLOPs panel's "Forecast L*"), not the Budget
      // planner's "Forecast loss" of the planned run under the data-constrained law.
      {"IsoFLOPs forecast L*", Unit::nats_per_token, Better::lower, false,
       "ladder_points() → fit_parametric() → optimal_loss() at the budget's C",
       [](R& r) {
         const double c = r.budget().report.flops;
         return of(optimal_loss(r.fit().law, c), Unit::nats_per_token, forecast_context(r));
       }},
      {"Turn latency", Unit::seconds, Better::lower, false,
       "roofline_panel() → interactive_latency()",
       [](R& r) {
         const TurnLatency& t = r.roofline().data.turn;
         return of(t.total_seconds, Unit::seconds,
                   "on " + grouped(t.n_chips) + " chips: prefill " +
                       format_seconds(t.prefill_seconds) + " + decode " +
                       format_seconds(t.decode_seconds) + " + overhead " +
                       format_seconds(t.overhead_seconds));
       }},
      {"Chips for the latency budget", Unit::chips, Better::lower, true,
       "roofline_panel() → chips_for_latency_budget()", chips_for_budget},
      {"Drop rate (MoE router run)", Unit::fraction, Better::lower, false,
       "CollapseSimulation (moe.h): drop_rate at the MoE router panel's run's last step",
       [](R& r) {
         // The MoE router panel's own router run, which need not be the
         // scenario's model: say so, so a dense model's drop rate is not read
         // as the model's.
         const Scenario& s = r.scenario();
         const MoeSettings& m = s.moe;
         const bool model_runs_it =
             s.shape.is_moe() && s.shape.n_experts == m.n_experts && s.shape.top_k == m.top_k;
         const std::string whose = model_runs_it      ? ""
                                   : s.shape.is_moe() ? "; " + s.model_name + " has E " +
                                                            grouped(s.shape.n_experts) + ", k " +
                                                            grouped(s.shape.top_k)
                                                      : "; " + s.model_name + " is dense";
         return of(r.moe().drop_rate, Unit::fraction,
                   "the MoE router panel's run, step " + grouped(m.steps) + ": E " +
                       grouped(m.n_experts) + ", k " + grouped(m.top_k) + ", capacity factor " +
                       format_grouped(m.capacity_factor, 2) +
                       (m.aux_on ? ", α " + format_value(m.aux_weight) : ", no balance loss") +
                       whose);
       }},
  };
  return defs;
}

// Signed as the read-outs are: "+" or the minus sign U+2212, never a hyphen.
std::string signed_text(double delta, const std::string& magnitude) {
  return (delta < 0 ? "\u2212" : "+") + magnitude;
}

bool nearly_equal(double a, double b) {
  return a == b || std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b));
}

}  // namespace

std::string_view to_string(Better b) {
  switch (b) {
    case Better::higher: return "higher";
    case Better::lower: return "lower";
    case Better::none: return "none";
  }
  return "none";
}

std::string_view to_string(Unit u) {
  switch (u) {
    case Unit::flops: return "FLOPs";
    case Unit::parameters: return "parameters";
    case Unit::tokens: return "tokens";
    case Unit::days: return "days";
    case Unit::dollars: return "$";
    case Unit::kwh: return "kWh";
    case Unit::bytes: return "bytes";
    case Unit::requests: return "requests";
    case Unit::nats_per_token: return "nats/token";
    case Unit::seconds: return "s";
    case Unit::chips: return "chips";
    case Unit::fraction: return "fraction";
  }
  return "fraction";
}

std::string format_quantity(double v, Unit u) {
  if (!std::isfinite(v)) return "—";
  switch (u) {
    case Unit::flops: return format_sci(v, 3) + " FLOPs";
    case Unit::parameters: return format_count(v, 2) + " parameters";
    case Unit::tokens: return format_count(v, 2) + " tokens";
    case Unit::days: return format_grouped(v, 1) + " days";
    case Unit::dollars: return format_dollars(v);
    case Unit::kwh: return format_grouped(v, 0) + " kWh";
    case Unit::bytes: return format_bytes(v, 1);
    case Unit::requests: return format_grouped(v, 0) + " requests";
    case Unit::nats_per_token: return format_grouped(v, 4) + " nats/token";
    case Unit::seconds: return format_seconds(v);
    case Unit::chips: return format_grouped(v, 0) + " chips";
    case Unit::fraction: return format_percent(v, 1);
  }
  return "—";
}

std::string format_delta(double d, Unit u) {
  if (!std::isfinite(d)) return "—";
  if (d == 0) return "0";
  const double a = std::fabs(d);
  if (u == Unit::fraction) return signed_text(d, format_grouped(a * 100.0, 1) + " pp");
  return signed_text(d, format_quantity(a, u));
}

std::vector<HeadlineOutput> headline_outputs(const Scenario& s, const FitProgressFn& progress) {
  s.validate();
  Results r(s, progress);
  if (s.plan.law == LawChoice::fitted) {
    // The fitted plan law is memoized: fitting it here, under `progress`,
    // spares the budget's outputs an unreported fit. Its errors are theirs.
    try {
      (void)s.plan_law(progress);
    } catch (const Cancelled&) {
      throw;
    } catch (const std::exception&) {
    }
  }
  std::vector<HeadlineOutput> out;
  for (const HeadlineDef& d : headline_defs()) {
    HeadlineOutput h;
    h.name = d.name;
    h.unit = d.unit;
    h.better = d.better;
    h.missing_is_worst = d.missing_is_worst;
    h.source = d.source;
    try {
      const Value v = d.compute(r);
      h.value = v.value && std::isfinite(*v.value) ? v.value : std::nullopt;
      h.display = v.display;
    } catch (const Cancelled&) {
      throw;
    } catch (const std::exception& e) {
      h.display = std::string("n/a: ") + e.what();
    }
    out.push_back(std::move(h));
  }
  return out;
}

std::vector<InputDifference> differing_inputs(const Scenario& a, const Scenario& b) {
  std::vector<InputDifference> out;
  for (const ScenarioField& f : scenario_fields()) {
    const FieldValue va = f.get(a), vb = f.get(b);
    if (va == vb) continue;
    InputDifference d{f.key, f.name, display_field_value(va, f.unit),
                      display_field_value(vb, f.unit)};
    if (d.a == d.b) {  // two reals equal to 6 digits: show all of them
      d.a = display_field_value(va, f.unit, 17);
      d.b = display_field_value(vb, f.unit, 17);
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::string_view to_string(Winner w) {
  switch (w) {
    case Winner::a: return "a";
    case Winner::b: return "b";
    case Winner::same: return "same";
    case Winner::none: return "none";
  }
  return "none";
}

std::vector<OutputComparison> compare_outputs(const std::vector<HeadlineOutput>& a,
                                              const std::vector<HeadlineOutput>& b) {
  std::vector<OutputComparison> out;
  for (const HeadlineOutput& x : a) {
    const auto it =
        std::find_if(b.begin(), b.end(), [&](const HeadlineOutput& y) { return y.name == x.name; });
    const HeadlineOutput* y = it == b.end() ? nullptr : &*it;
    OutputComparison c;
    c.name = x.name;
    c.unit = x.unit;
    c.a = x.value;
    c.a_display = x.display;
    if (y) {
      c.b = y->value;
      c.b_display = y->display;
    } else {
      c.b_display = "not computed";
    }
    if (c.a && c.b) {
      c.delta = *c.b - *c.a;
      if (*c.a != 0) c.ratio = *c.b / *c.a;
      if (nearly_equal(*c.a, *c.b))
        c.better = Winner::same;
      else if (x.better == Better::higher)
        c.better = *c.b > *c.a ? Winner::b : Winner::a;
      else if (x.better == Better::lower)
        c.better = *c.b < *c.a ? Winner::b : Winner::a;
    } else if (!c.a && !c.b) {
      c.better = y && x.display == y->display ? Winner::same : Winner::none;
    } else if (x.missing_is_worst && y) {
      c.better = c.a ? Winner::a : Winner::b;
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace napkin
