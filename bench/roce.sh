#!/usr/bin/env bash
# roce.sh [--full]: RoCE planning time and peak memory on generated Clos
# fabrics of 64-port switches (fabric-gen --format roce, 100G hosts, 400G
# fabric links): 2 tiers with every single link failure analysed, and 3
# tiers (pods of 32 leaves and 32 aggregation switches under 1,024
# spines) with sampled failures. --full adds the whole 64-pod 3-tier
# fabric (65,536 hosts): about 90 s and 1.2 GB here.
#
# "plan" is the design's tables and proofs plus the failure scenarios
# listed; each scenario is planned again from scratch and proven, and the
# same is done for plain shortest-path ECMP for the report. Files are not
# written (--summary-only): the figures are the planner's. Peak memory is
# the planning process's maximum resident set. A benchmark, not a test.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
bench_setup
trap 'rm -rf "$out"' EXIT
fabrics=("2 64 64 0" "3 64 4 16" "3 64 16 4")
[[ ${1:-} == --full ]] && fabrics+=("3 64 64 1")
printf '%-22s %9s %8s %8s %10s %10s %9s %s\n' FABRIC SWITCHES LINKS HOSTS FAILURES PLAN_S PEAK_MB VERDICT
for f in "${fabrics[@]}"; do
	read -r levels radix pods failures <<<"$f"
	name="clos${levels}-r${radix}-p${pods}"
	"$BUILD/topology/fabric-gen" --levels "$levels" --radix "$radix" --pods "$pods" --format roce -o "$out/$name.yaml"
	"$BUILD/cli/fabricctl" plan roce "$out/$name.yaml" --out "$out/$name" --failures "$failures" --summary-only \
		>"$out/$name.txt" || true
	sw=$(sed -n 's/^  \([0-9]*\) switches.*/\1/p' "$out/$name.txt")
	links=$(sed -n 's/.*), \([0-9]*\) links.*/\1/p' "$out/$name.txt")
	hosts=$(( $(grep -c 'host_ports' "$out/$name.yaml") * radix / 2 ))
	analysed=$(sed -n 's/^single link failures: \(.*\) links analysed/\1/p' "$out/$name.txt")
	secs=$(sed -n 's/^planned in \([0-9.]*\) s.*/\1/p' "$out/$name.txt")
	mb=$(sed -n 's/.*peak memory \([0-9.]*\) MB.*/\1/p' "$out/$name.txt")
	verdict=$(sed -n 's/^verdict: //p' "$out/$name.txt")
	printf '%-22s %9s %8s %8s %10s %10s %9s %s\n' "$name" "$sw" "$links" "$hosts" "${analysed// of /\/}" \
		"$secs" "$mb" "$verdict"
done
