#!/usr/bin/env bash
# Installs dependencies, builds Napkin in Release and launches the app with the
# default scenario (1,000 H100 for 30 days). Extra arguments go to the app.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target napkin napkin-cli -j"$(nproc)"
exec build/src/app/napkin "$@"
