// What the scoreboard's data-set readers share (inside the validation layer).
#pragma once

#include <cstdint>
#include <string>

#include "parallel.h"

namespace napkin::validation_detail {

// "MODEL on CHIPS: tp=… pp=… [vpp=…] [cp=…] dp=… [ep=…] [etp=…] mb=… RECOMPUTE",
// the row label every training set prints.
std::string layout_label(const std::string& model, const Layout& l, std::int64_t chips);

}  // namespace napkin::validation_detail
