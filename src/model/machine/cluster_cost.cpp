#include "cluster_cost.h"

#include "validate.h"

namespace napkin {

namespace {
constexpr double kSecondsPerDay = 86400.0;
constexpr double kMaxChips = 10'000'000;
}  // namespace

double budget_to_flops(const Chip& chip, std::int64_t n_chips, double days, double mfu) {
  require_count(n_chips, "chips", "chips", 1, static_cast<std::int64_t>(kMaxChips));
  require_real(days, "days", "days", 0.0, 36500.0, true);
  require_real(mfu, "mfu", "fraction of peak", 0.0, 1.0, true);
  return static_cast<double>(n_chips) * chip.peak_flops_per_s * mfu * days * kSecondsPerDay;
}

double flops_to_days(double flops, const Chip& chip, std::int64_t n_chips, double mfu) {
  require_positive(flops, "flops", "FLOPs");
  require_count(n_chips, "chips", "chips", 1, static_cast<std::int64_t>(kMaxChips));
  require_real(mfu, "mfu", "fraction of peak", 0.0, 1.0, true);
  return flops / (static_cast<double>(n_chips) * chip.peak_flops_per_s * mfu * kSecondsPerDay);
}

CostReport cost_report(const Chip& chip, std::int64_t n_chips, double days, double mfu,
                       const CostInputs& cost) {
  require_real(cost.price_per_chip_hour_dollars, "price", "$ per chip-hour", 0.0, 1e4);
  require_real(cost.kwh_price_dollars, "kwh_price", "$ per kWh", 0.0, 100.0);
  require_real(cost.pue, "pue", "facility W per IT W", 1.0, 5.0);
  CostReport r;
  r.flops = budget_to_flops(chip, n_chips, days, mfu);
  const double chips = static_cast<double>(n_chips);
  r.hours = days * 24.0;
  r.rental_dollars = chips * r.hours * cost.price_per_chip_hour_dollars;
  r.chip_energy_kwh = chips * chip.watts * r.hours / 1000.0;
  r.energy_kwh = r.chip_energy_kwh * cost.pue;
  r.energy_dollars = r.energy_kwh * cost.kwh_price_dollars;
  r.facility_watts = chips * chip.watts * cost.pue;
  r.dollars_per_1e21_flops = r.rental_dollars / r.flops * 1e21;
  return r;
}

}  // namespace napkin
