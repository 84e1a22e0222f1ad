// Budget, roofline and latency over fuzzed scenarios: the first byte picks a
// scenario document (parsed from the rest, as a file would be) or one built
// field by field from the bytes; the engines the panels and the report use
// then run on it. Each either gives finite numbers or throws
// std::invalid_argument.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "budget.h"
#include "budget_view.h"
#include "hardware.h"
#include "roofline.h"
#include "roofline_view.h"
#include "scenario.h"
#include "scenario_json.h"

namespace {

void require_finite(double v) {
  if (!std::isfinite(v)) std::abort();
}

std::string pick_chip(FuzzedDataProvider& in) {
  const auto table = napkin::hardware_table();
  const auto i = in.ConsumeIntegralInRange<std::size_t>(0, table.size());
  if (i == table.size()) return in.ConsumeRandomLengthString(16);  // usually unknown
  return std::string(table[i].name);
}

void run_scenario(const napkin::Scenario& s) {
  const napkin::BudgetView v = napkin::make_budget_view(s);
  require_finite(v.report.flops);
  require_finite(v.report.cost.rental_dollars);
  require_finite(v.hbm_left_bytes);
  for (const auto* c :
       {&v.kv_mha, &v.attention_fraction, &v.lifetime_chinchilla, &v.frontier_params})
    for (double y : c->y) require_finite(y);
  napkin::RooflineScenario r = napkin::roofline_scenario(s);
  r.max_chips_plotted = 64;
  r.max_batch = 64;
  const napkin::RooflinePanelData d = napkin::roofline_panel(r);
  require_finite(d.ridge_flops_per_byte);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  try {
    if (data[0] & 1) {
      const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
      napkin::Scenario s;
      try {
        s = napkin::scenario_from_json(text, "fuzz");
      } catch (const std::invalid_argument&) {
        return 0;
      }
      run_scenario(s);
      return 0;
    }
    FuzzedDataProvider in(data + 1, size - 1);
    switch (in.ConsumeIntegralInRange<int>(0, 2)) {
      case 0: {
        napkin::BudgetInputs b;
        b.chip = pick_chip(in);
        b.n_chips = in.ConsumeIntegral<std::int64_t>();
        b.days = in.ConsumeFloatingPoint<double>();
        b.mfu = in.ConsumeFloatingPoint<double>();
        b.cost.price_per_chip_hour_dollars = in.ConsumeFloatingPoint<double>();
        b.cost.kwh_price_dollars = in.ConsumeFloatingPoint<double>();
        b.cost.pue = in.ConsumeFloatingPoint<double>();
        b.tokens_per_param = in.ConsumeFloatingPoint<double>();
        b.tokens_available = in.ConsumeFloatingPoint<double>();
        b.served_tokens = in.ConsumeFloatingPoint<double>();
        b.site_power_mw = in.ConsumeFloatingPoint<double>();
        const napkin::BudgetReport r = napkin::budget_report(b);
        require_finite(r.flops);
        require_finite(r.days);
        require_finite(r.cost.energy_dollars);
        break;
      }
      case 1: {
        napkin::TurnInputs t;
        t.chip = pick_chip(in);
        t.n_chips = in.ConsumeIntegral<std::int64_t>();
        t.n_params = in.ConsumeFloatingPoint<double>();
        t.prefill_tokens = in.ConsumeIntegral<std::int64_t>();
        t.decode_tokens = in.ConsumeIntegral<std::int64_t>();
        t.batch = in.ConsumeIntegral<std::int64_t>();
        t.bytes_per_param = in.ConsumeFloatingPoint<double>();
        t.overhead_seconds = in.ConsumeFloatingPoint<double>();
        t.budget_seconds = in.ConsumeFloatingPoint<double>();
        t.per_step_floor_seconds = in.ConsumeFloatingPoint<double>();
        t.max_chips = in.ConsumeIntegralInRange<std::int64_t>(-1, 1 << 20);
        const napkin::TurnLatency l = napkin::interactive_latency(t);
        require_finite(l.total_seconds);
        (void)napkin::chips_for_latency_budget(t);
        (void)napkin::chips_to_hold_weights(t);
        for (const auto& p : napkin::latency_vs_chips(t, 64)) require_finite(p.total_seconds);
        break;
      }
      default: {
        const napkin::Chip& chip = napkin::chip_by_name(pick_chip(in));
        const double flops = in.ConsumeFloatingPoint<double>();
        const double bytes = in.ConsumeFloatingPoint<double>();
        const napkin::RooflinePoint p = napkin::roofline_point(chip, flops, bytes);
        require_finite(p.seconds);
        require_finite(p.fraction_of_peak);
      }
    }
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
