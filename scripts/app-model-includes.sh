#!/usr/bin/env bash
# Lists, for each folder of the desktop application, the model headers it
# includes, by model layer: what a panel reads from the model besides its view.
# A panel should reach the model through views/ (its make_*_view), scenario/
# (the document, the input registry, the resolved plan) and present/
# (formatting); the other layers it names are listed so they can be seen.
set -euo pipefail
cd "$(dirname "$0")/.."
for dir in src/app src/app/*/; do
  dir="${dir%/}"
  files=$(find "$dir" -maxdepth 1 -name '*.cpp' -o -maxdepth 1 -name '*.h')
  [ -d "$dir/plots" ] && files="$files $(find "$dir/plots" -name '*.cpp' -o -name '*.h')"
  headers=$(grep -ho '#include "[a-z_]*\.h"' $files 2>/dev/null | sed 's/#include "//; s/"//' | sort -u)
  line=""
  for h in $headers; do
    found=$(cd src/model && ls -d */"$h" 2>/dev/null || true)
    [ -n "$found" ] && line="$line $found"
  done
  printf '%-20s%s\n' "$dir" "$line"
done
