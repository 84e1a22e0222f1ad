// The Budget planner's memo in words (budget_memo.cpp), apart from the
// arithmetic in budget.cpp.
#pragma once

#include <string>

#include "budget.h"

namespace napkin {

// "0 % of the unique tokens" below one epoch, else "1.25 epochs".
std::string epochs_text(double epochs);
// The recommendation: the Chinchilla answer, goodput, the data limit, the
// inference-aware trade (and its dollars), serving, what I would train, and
// every failed check.
std::string make_recommendation(const BudgetReport& r);

}  // namespace napkin
