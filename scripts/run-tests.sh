#!/usr/bin/env bash
# Installs dependencies, builds everything in Release and runs the whole test
# suite through CTest (widget tests run offscreen).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# ccache (when installed) is keyed on paths relative to the checkout, so runs
# from other folders on the same machine share it.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
export QT_QPA_PLATFORM=offscreen
ctest --test-dir build --output-on-failure -j"$(nproc)"
