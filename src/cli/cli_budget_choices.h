// The budget command's choices beyond the seed's chain: the lifetime
// objective and the serving side it prices (--objective, --serving-chip,
// --serving-price), with their JSON keys and text rows; the MoE candidate's
// JSON.
#pragma once

#include <QJsonObject>

#include "budget.h"
#include "cli_common.h"
#include "scenario.h"

namespace napkin::cli {

// Reads --objective flops|dollars, --serving-chip C, --serving-price P and
// --ptq-law C_T,gamma_D,gamma_N,gamma_post
// into `in` (and `sc`, the scenario the serving limit is searched in), and
// the serving precisions already in `sc` into `in`.
void parse_budget_choices(Args& a, BudgetInputs& in, Scenario& sc);

// "objective", "lifetime_dollars" and, for an MoE candidate, "moe".
void add_budget_choices_json(QJsonObject& o, const BudgetReport& r);

// The lifetime-dollars rows.
void print_budget_choices_text(const BudgetReport& r);

}  // namespace napkin::cli
