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

// --train-precision bf16|fp8|fp32 (fp8: FP8 GEMMs, Precision::mixed_fp8); throws
// UsageError for fp8 on a chip without an FP8 peak.
Precision parse_train_precision(Args& a, const std::string& chip);

// Reads --objective flops|dollars, --serving-chip C, --serving-price P,
// --train-precision bf16|fp8 and --ptq-law C_T,gamma_D,gamma_N,gamma_post[,b]
// into `in` (and `sc`, the scenario the serving limit is searched in), and
// the serving precisions already in `sc` into `in`.
void parse_budget_choices(Args& a, BudgetInputs& in, Scenario& sc);

// "objective", "lifetime_dollars" and, for an MoE candidate, "moe".
void add_budget_choices_json(QJsonObject& o, const BudgetReport& r);

// The lifetime-dollars rows.
void print_budget_choices_text(const BudgetReport& r);

}  // namespace napkin::cli
