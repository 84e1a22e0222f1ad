#include "panel_settings.h"

#include "plan.h"
#include "scenario.h"

namespace napkin {

double isoflops_target_flops(const Scenario& s) {
  if (!s.isoflops.target_follows_budget) return s.isoflops.manual_target_flops;
  return resolve_plan(s).compute_flops;  // the plan's C, at the MFU it runs with
}

}  // namespace napkin
