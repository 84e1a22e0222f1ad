#!/usr/bin/env bash
# Lists, for each folder of the desktop application, the model headers it
# includes, by model layer: what a panel reads from the model besides its view.
# A panel reaches the model through views/ (its make_*_view), scenario/ (the
# document, the input registry, the resolved plan) and present/ (formatting).
#
#   scripts/app-model-includes.sh            the list
#   scripts/app-model-includes.sh --check    fails (exit 1) when a folder
#       includes a header of another layer that scripts/app-model-includes.allow
#       does not list for it, or when a listed one is no longer included
#
# APP_ROOT and MODEL_ROOT (default src/app and src/model) and ALLOW_FILE let
# the check's own test run it on a folder with a bad include.
set -euo pipefail
cd "$(dirname "$0")/.."
app_root="${APP_ROOT:-src/app}"
model_root="${MODEL_ROOT:-src/model}"
allow_file="${ALLOW_FILE:-scripts/app-model-includes.allow}"
check=0
[ "${1:-}" = "--check" ] && check=1

# The model headers (layer/header.h) a folder includes; plots/ belongs to its panel.
folder_headers() {
  local dir="$1" files headers h found
  files=$(find "$dir" -maxdepth 1 \( -name '*.cpp' -o -name '*.h' \))
  [ -d "$dir/plots" ] && files="$files $(find "$dir/plots" \( -name '*.cpp' -o -name '*.h' \))"
  # shellcheck disable=SC2086
  headers=$(grep -ho '#include "[a-z_]*\.h"' $files 2>/dev/null | sed 's/#include "//; s/"//' | sort -u)
  for h in $headers; do
    found=$(cd "$model_root" && ls -d -- */"$h" 2>/dev/null || true)
    [ -n "$found" ] && echo "$found"
  done
  return 0
}

allowed=$(grep -v '^\s*#' "$allow_file" 2>/dev/null | awk 'NF >= 2 {print $1 " " $2}' | sort -u || true)
failures=0
seen=""
for dir in "$app_root" "$app_root"/*/; do
  dir="${dir%/}"
  [ "$(basename "$dir")" = "plots" ] && continue
  name="app${dir#"$app_root"}"  # app, app/budget, …
  headers=$(folder_headers "$dir")
  if [ "$check" -eq 0 ]; then
    printf '%-14s%s\n' "$name" "$(echo $headers)"
    continue
  fi
  for h in $headers; do
    case "$h" in views/* | scenario/* | present/*) continue ;; esac
    seen="$seen$name $h"$'\n'
    if ! grep -qxF "$name $h" <<<"$allowed"; then
      echo "$name includes $h: an app folder reaches the model through views/, scenario/ and present/;" \
        "list it in $allow_file with the reason, or move what it needs into the panel's view" >&2
      failures=$((failures + 1))
    fi
  done
done
if [ "$check" -eq 1 ]; then
  while read -r entry; do
    [ -z "$entry" ] && continue
    if ! grep -qxF "$entry" <<<"$seen"; then
      echo "$allow_file lists \"$entry\", which is no longer included: remove the line" >&2
      failures=$((failures + 1))
    fi
  done <<<"$allowed"
  [ "$failures" -eq 0 ] && echo "every app folder reaches the model through its view, the registry and the plan, or a listed exception"
  [ "$failures" -eq 0 ]
fi
