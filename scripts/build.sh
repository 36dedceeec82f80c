#!/usr/bin/env bash
# Installs what is missing, then configures and builds fabricd in build/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bash "$top/scripts/deps.sh"
cmake -S "$top" -B "$top/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
if ! cmake --build "$top/build" -j"$(nproc)" >"$top/build/build.log" 2>&1; then
  tail -30 "$top/build/build.log" >&2
  echo "build.sh: build failed (full log: build/build.log)" >&2
  exit 1
fi
grep -i "warning" "$top/build/build.log" >&2 || true
echo "build.sh: built fabricd, fabricctl and fabric-gen in $top/build"
