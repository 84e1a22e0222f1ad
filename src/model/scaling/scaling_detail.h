// What the scaling folder's files share and nobody else needs.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace napkin::detail {

// Distinct values of `v` (a fit needs at least three distinct N or D).
int count_distinct(std::vector<double> v);

// "a,b,c" as numbers: exactly `count` of them, or std::invalid_argument
// "<what>; got \"<text>\"" (a part that is not a number) or "<what>; got <n>"
// (another count). `what` names the flag and the form it expects.
std::vector<double> parse_number_list(const std::string& text, std::size_t count,
                                      const std::string& what);

}  // namespace napkin::detail
