// napkin-cli's scaling commands (fit, isoflops) and what they share with
// isoflops --scenario (cli_isoflops_scenario.cpp).
#pragma once

#include <QJsonObject>
#include <string>

#include "cli_common.h"
#include "isoflops_view.h"

namespace napkin::cli {

// The per-budget optima of the IsoFLOPs method, the exponents a and b (or why
// there are none) and the budgets skipped: as JSON ("budgets", "a", "b",
// "a_plus_b", "sums_to_one", "skipped") and as a text table.
QJsonObject isoflops_optima_json(const IsoflopsView& view);
void print_isoflops_optima(const IsoflopsView& view);

// isoflops --scenario FILE [--max-seconds S] [--json]: a saved scenario's
// IsoFLOPs panel.
int run_isoflops_scenario(Args& a, const std::string& path);

}  // namespace napkin::cli
