#!/usr/bin/env bash
# The app-includes check fails on a panel that calls the model directly: a
# copy of the app with one bad include (a Budget file including scaling.h)
# must fail, naming the folder and the header; so must a stale exception.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$root/src/app" "$tmp/app"
printf '#include "scaling.h"\n' >"$tmp/app/budget/BadInclude.cpp"
if out=$(APP_ROOT="$tmp/app" MODEL_ROOT="$root/src/model" "$root/scripts/app-model-includes.sh" --check 2>&1); then
  echo "the check passed an app whose Budget folder includes scaling.h" >&2
  exit 1
fi
grep -q "app/budget includes scaling/scaling.h" <<<"$out" || { echo "unexpected: $out" >&2; exit 1; }
# A stale exception fails too.
cp "$root/scripts/app-model-includes.allow" "$tmp/allow"
echo "app/kit scaling/scaling.h no longer included" >>"$tmp/allow"
if ALLOW_FILE="$tmp/allow" "$root/scripts/app-model-includes.sh" --check >/dev/null 2>&1; then
  echo "the check passed an exception that is no longer needed" >&2
  exit 1
fi
