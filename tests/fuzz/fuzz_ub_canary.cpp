// Not a test of Napkin: proves that the fuzz build and scripts/run-fuzz.sh
// fail on undefined behaviour. An input starting with "UB" converts an
// out-of-range double to an integer (the float-cast-overflow that once let
// --seed 9223372036854775808 through); scripts/run-fuzz.sh runs this target
// on that input and requires the run to be reported as failed.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size >= 2 && data[0] == 'U' && data[1] == 'B') {
    volatile double d = 9223372036854775808.0;  // 2^63: one past INT64_MAX
    volatile std::int64_t i = static_cast<std::int64_t>(d);
    (void)i;
  }
  return 0;
}
