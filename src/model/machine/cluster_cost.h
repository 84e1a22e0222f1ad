// What a cluster delivers and costs: chips × days → FLOPs at an MFU, and the
// rental and energy bill (seed Phase 00 ch. 10–11). Shared by the budget
// ("1,000 H100 for 30 days") and the training plan ("train this model").
#pragma once

#include <cstdint>
#include <string>

#include "hardware.h"

namespace napkin {

// C = chips × peak FLOP/s × MFU × days × 86,400 s (seed Phase 00 ch. 10).
double budget_to_flops(const Chip& chip, std::int64_t n_chips, double days, double mfu = 0.4);
// Days to spend `flops` on `n_chips` at `mfu`.
double flops_to_days(double flops, const Chip& chip, std::int64_t n_chips, double mfu = 0.4);

struct CostInputs {
  double price_per_chip_hour_dollars = 2.5;
  double kwh_price_dollars = 0.12;
  double pue = 1.2;  // facility power ÷ IT power
};

struct CostReport {
  double hours = 0;
  double rental_dollars = 0;
  double chip_energy_kwh = 0;  // at the chips (TDP × time)
  double energy_kwh = 0;       // at the wall: chip energy × PUE
  double energy_dollars = 0;
  double facility_watts = 0;  // chips × TDP × PUE
  double flops = 0;           // at the given MFU
  double dollars_per_1e21_flops = 0;
};
// Seed Phase 00 ch. 11.
CostReport cost_report(const Chip& chip, std::int64_t n_chips, double days, double mfu,
                       const CostInputs& cost);

// One line of a memo's sanity checks.
struct Check {
  std::string name;
  bool ok = false;
  std::string detail;
};

}  // namespace napkin
