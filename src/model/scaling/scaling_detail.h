// What scaling.cpp and scaling_fit.cpp share and nobody else needs.
#pragma once

#include <vector>

namespace napkin::detail {

// Distinct values of `v` (a fit needs at least three distinct N or D).
int count_distinct(std::vector<double> v);

}  // namespace napkin::detail
