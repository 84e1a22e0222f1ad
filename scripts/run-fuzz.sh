#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan with float-cast-overflow,
# no recovery: undefined behaviour aborts) and runs each from its committed seed
# corpus for a bounded time (default 60 s each, FUZZ_JOBS at once, default the
# number of cores). A run fails on ANY finding: libFuzzer's exit status, a
# reproducer file (crash-, leak-, timeout-, oom-) and the log (any "runtime
# error:", AddressSanitizer, LeakSanitizer or libFuzzer error, "deadly signal")
# are each checked. First a canary target is run on undefined behaviour to
# prove that this script does fail on it.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
jobs="${FUZZ_JOBS:-$(nproc)}"
scripts/install-deps.sh
# ccache (when installed) is keyed on paths relative to the checkout, so runs
# from other folders on the same machine share it.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j"$(nproc)"
targets=(scenario_json config_import csv_ladder cli_args fit moe engines loaders)
logs=build-fuzz/logs
rm -rf "$logs" build-fuzz/artifacts
mkdir -p "$logs"

# failed LOG STATUS ARTIFACT_DIR: true when the run found anything.
failed() {
  local log="$1" status="$2" artifacts="$3"
  [ "$status" -ne 0 ] && return 0
  grep -qE "runtime error:|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|SUMMARY: (UndefinedBehavior|Address|Leak)Sanitizer|deadly signal" "$log" && return 0
  compgen -G "$artifacts/*" >/dev/null && return 0
  return 1
}

# The canary: undefined behaviour must fail the run.
canary_dir=build-fuzz/artifacts/ub_canary
mkdir -p "$canary_dir"
printf 'UB' >"$canary_dir/../ub_input"
set +e
./build-fuzz/tests/fuzz/fuzz_ub_canary -artifact_prefix="$canary_dir/" "$canary_dir/../ub_input" \
  >"$logs/ub_canary.log" 2>&1
status=$?
set -e
if ! failed "$logs/ub_canary.log" "$status" "$canary_dir"; then
  echo "fuzzing: the canary's undefined behaviour was NOT reported; the fuzz build recovers from"
  echo "UBSan findings or this script does not see them. Log: $logs/ub_canary.log"
  exit 1
fi
echo "fuzz_ub_canary: undefined behaviour is caught ($(grep -m1 -o 'runtime error: .*' "$logs/ub_canary.log" | cut -c1-80))"

run_one() {
  local target="$1"
  local work="build-fuzz/corpus-$target" artifacts="build-fuzz/artifacts/$target"
  mkdir -p "$work" "$artifacts"
  local extra=""
  [ "$target" = cli_args ] && extra="-close_fd_mask=3"
  set +e
  ./build-fuzz/tests/fuzz/fuzz_"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$artifacts/" $extra \
    "$work" "tests/fuzz/corpus/$target" >"$logs/$target.log" 2>&1
  echo $? >"$logs/$target.status"
  set -e
}

running=0
for target in "${targets[@]}"; do
  echo "fuzz_$target: ${seconds} s"
  run_one "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait

bad=0
for target in "${targets[@]}"; do
  status=$(cat "$logs/$target.status")
  execs=$(grep -m1 -oE "stat::number_of_executed_units: *[0-9]+" "$logs/$target.log" | grep -oE "[0-9]+$" || echo "?")
  if failed "$logs/$target.log" "$status" "build-fuzz/artifacts/$target"; then
    echo "fuzz_$target: FAILED (exit $status, $execs runs); log $logs/$target.log"
    grep -E "runtime error:|ERROR:|SUMMARY:|deadly signal|Test unit written" "$logs/$target.log" | head -5
    ls build-fuzz/artifacts/"$target"/ 2>/dev/null | head -3
    bad=1
  else
    echo "fuzz_$target: ok ($execs runs)"
  fi
done
[ "$bad" -eq 0 ] || exit 1
echo "fuzzing: no crash, leak, hang, uncaught exception or sanitizer report"
