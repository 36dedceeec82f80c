#!/usr/bin/env bash
# Installs what is missing, then configures and builds fabricd in build/.
#   scripts/build.sh --sanitize   the same with ASan+UBSan, in build-sanitize/
#   scripts/build.sh --fuzz       the libFuzzer targets (clang), in build-fuzz/
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/build opts=()
case ${1:-} in
  --sanitize) dir=$top/build-sanitize opts=(-DFABRICD_SANITIZE=ON) ;;
  --fuzz) dir=$top/build-fuzz opts=(-DFABRICD_FUZZ=ON -DCMAKE_C_COMPILER=clang) ;;
esac
bash "$top/scripts/deps.sh"
cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${opts[@]}" >/dev/null
if ! cmake --build "$dir" -j"$(nproc)" >"$dir/build.log" 2>&1; then
  tail -30 "$dir/build.log" >&2
  echo "build.sh: build failed (full log: $dir/build.log)" >&2
  exit 1
fi
grep -i "warning" "$dir/build.log" >&2 || true
echo "build.sh: built fabricd, fabricctl and fabric-gen in $dir"
