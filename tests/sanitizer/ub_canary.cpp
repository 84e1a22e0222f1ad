// Not a test of Napkin: the integer-flag conversion napkin-cli used before
// issue 18 (strtod, a range check against (double)INT64_MAX, which rounds up to
// 2^63, then static_cast<int64_t>). With "9223372036854775808" the check passes
// and the conversion is undefined behaviour. The sanitized build must report
// it and stop; expect_ub_report.cmake fails the test if it does not.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const double d = std::strtod(argv[1], nullptr);
  if (d > static_cast<double>(std::numeric_limits<std::int64_t>::max())) return 3;
  const auto v = static_cast<std::int64_t>(d);
  std::printf("%lld\n", static_cast<long long>(v));
  return 0;
}
