#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each from its committed seed
# corpus for a bounded time (default 60 s each). Any crash, leak, timeout or
# uncaught exception fails the run and leaves the reproducer in build-fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
scripts/install-deps.sh
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j"$(nproc)"
for target in scenario_json config_import csv_ladder cli_args; do
  work="build-fuzz/corpus-$target"
  mkdir -p "$work"
  echo "fuzz_$target: ${seconds} s"
  extra=""
  [ "$target" = cli_args ] && extra="-close_fd_mask=3"
  (cd build-fuzz && "./tests/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 $extra "corpus-$target" "../tests/fuzz/corpus/$target" 2>&1 |
      grep -E "^(stat::number_of_executed_units|#[0-9]+ *DONE|==[0-9]+==ERROR|SUMMARY)" || true)
  # libFuzzer exits non-zero on any finding; re-check its status without the filter.
  if ls build-fuzz/crash-* build-fuzz/leak-* build-fuzz/timeout-* build-fuzz/oom-* >/dev/null 2>&1; then
    echo "fuzz_$target found a failing input:" build-fuzz/crash-* build-fuzz/leak-* build-fuzz/timeout-* build-fuzz/oom-* 2>/dev/null
    exit 1
  fi
done
echo "fuzzing: no crash, leak, hang or uncaught exception"
