#!/usr/bin/env bash
# Builds with AddressSanitizer + UndefinedBehaviorSanitizer (clang, with
# float-cast-overflow; -O1 and line tables only, which compile fast and still
# give file:line stacks) and runs the whole test suite; any sanitizer report
# fails the run (no recovery), and a canary test proves that it does.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# ccache (when installed) is keyed on paths relative to the checkout, so runs
# from other folders on the same machine share it.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
cmake --preset sanitize >/dev/null
cmake --build --preset sanitize -j"$(nproc)"
# Leak checking stays off: Qt's and fontconfig's process-lifetime caches are
# reported as leaks at exit. Every other ASan and UBSan finding aborts the test.
NAPKIN_TORTURE_CHANGES="${NAPKIN_TORTURE_CHANGES:-1000}" ctest --preset sanitize -j"$(nproc)"
