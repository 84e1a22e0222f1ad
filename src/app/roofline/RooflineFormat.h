// How the Roofline panel writes its numbers (formatting only).
#pragma once

#include <QString>
#include <cstdint>

#include "roofline_view.h"  // Bound, Dtype: the types the view shows

namespace napkin {

// "241 FLOP/B", "8.5 FLOP/B".
QString intensityText(double flops_per_byte);
// "1 chip", "1,024 chips".
QString chipsText(std::int64_t n);
// "memory-bound".
QString boundText(Bound b);
// Seconds as format_seconds writes them.
QString secondsText(double s);
// Seconds in at most six characters, for labels above narrow bars.
QString secondsShort(double s);
// A number with three significant digits ("—" never: non-finite is "0").
QString numberText(double v);
// "matmul 8192³", "decode B=8", "attention @8K".
QString operationTitle(const PlacedOperation& op, const OperationSetting& s, const ModelShape& m);
// "bf16", "int4".
QString dtypeText(Dtype d);

}  // namespace napkin
