// Display formatting shared by the CLI, the panels and the report: numbers
// with SI prefixes and units. Never prints nan or inf: non-finite values
// format as "—" so a bug shows as a dash a test can catch, not as "nan".
#pragma once

#include <cstdint>
#include <string>

namespace napkin {

// 1234567.891, 2 → "1,234,567.89"
std::string format_grouped(double value, int decimals = 0);
// Integer with thousands separators: 34832528367943680 → "34,832,528,367,943,680".
std::string format_grouped(std::int64_t value);
// A change, signed with "+" or the minus sign U+2212: 0.0072, 4 → "+0.0072",
// −0.0616, 4 → "−0.0616"; 0 (or what rounds to it) → "0.0000".
std::string format_signed(double value, int decimals);
// Scientific: 1.0264e24, 3 → "1.026e+24".
std::string format_sci(double value, int decimals = 3);
// Counts with K/M/B/T: 92.5e9 → "92.5B", 1.85e12, 2 → "1.85T"; from 1e15 on,
// scientific: 3e15 → "3.00e+15".
std::string format_count(double value, int decimals = 1);
// Decimal bytes (1 GB = 1e9 B): 185e9 → "185.0 GB".
std::string format_bytes(double bytes, int decimals = 1);
// Dollars: 1.8e6 → "$1,800,000"; decimals for small amounts.
std::string format_dollars(double dollars, int decimals = 0);
// Seconds with a fitting unit: 0.0123 → "12.3 ms", 5.822 → "5.82 s".
std::string format_seconds(double seconds);
// A fraction as a percentage: 0.3567, 1 → "35.7 %".
std::string format_percent(double fraction, int decimals = 1);

}  // namespace napkin
