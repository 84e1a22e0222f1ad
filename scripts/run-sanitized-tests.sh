#!/usr/bin/env bash
# Builds with AddressSanitizer + UndefinedBehaviorSanitizer and runs the whole
# test suite; any sanitizer report fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset sanitize >/dev/null
cmake --build --preset sanitize -j"$(nproc)"
# Leak checking stays off: Qt's and fontconfig's process-lifetime caches are
# reported as leaks at exit. Every other ASan and UBSan finding aborts the test.
NAPKIN_TORTURE_CHANGES="${NAPKIN_TORTURE_CHANGES:-1000}" ctest --preset sanitize -j"$(nproc)"
