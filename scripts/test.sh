#!/usr/bin/env bash
# Builds everything and runs every test (unit and ibsim integration) with
# ctest, then the whole suite again built with AddressSanitizer and
# UndefinedBehaviorSanitizer (any finding fails the test), then each
# libFuzzer target for 20 s from its corpus (tests/fuzz).
#   scripts/test.sh [--no-sanitize] [ctest arguments]
# --no-sanitize runs the plain suite only.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
sanitize=1
if [[ ${1:-} == --no-sanitize ]]; then
  sanitize=0
  shift
fi
bash "$top/scripts/build.sh"
(cd "$top/build" && ctest --output-on-failure -j"$(nproc)" "$@")
if ((sanitize)); then
  bash "$top/scripts/build.sh" --sanitize
  # the twin proves FRR's FIBs; its fabricctl code runs sanitized in it_roce_plan_and_check and unit_roce
  (cd "$top/build-sanitize" && ctest --output-on-failure -j"$(nproc)" -LE twin "$@")
  bash "$top/scripts/build.sh" --fuzz
  (cd "$top/build-fuzz" && ctest --output-on-failure -j"$(nproc)" -L fuzz)
fi
