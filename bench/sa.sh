#!/usr/bin/env bash
# sa.sh [NETFILE...]: PathRecord queries per second answered by fabricd's
# SA vs OpenSM's, each on a fresh ibsim of the same fabric, the SM at H0_0
# and the same client (build/bench/sa-bench) at H5_0 asking for paths
# between 32 hosts, with 1 and with 16 queries in flight. The simulator
# carries every MAD, so it bounds both. A benchmark, not a test.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
bench_setup
trap 'rm -rf "$out"' EXIT
(($# == 0)) && set -- $(bench_default_nets)

# one_run SM NETFILE: prints the answers per second with windows 1 and 16.
one_run() {
	TOP=$top unshare -n bash -s "$@" "$BUILD" "$(mktemp -d "$out/run.XXXXXX")" <<'RUN'
set -euo pipefail
sm=$1 net=$2 BUILD=$3 WORK=$4
. "$TOP/tests/integration/lib.sh"
. "$TOP/bench/lib.sh"
trap '[[ -n ${FD_PID:-} ]] && stop "$FD_PID"; stop "$SIM_PID"' EXIT
sim_start "$net"
export SIM_HOST=H0_0
sm_start "$sm" "$WORK/sm.log"
for _ in $(seq 300); do grep -q 'SUBNET UP' "$WORK/sm.log" 2>/dev/null && break; sleep 0.1; done
sleep 1
export SIM_HOST=H5_0
lids=$(diag ibnetdiscover -p | awk '$1 == "CA" {print $2}' | sort -n | head -32)
rates=""
for w in 1 16; do
	r=$(LD_PRELOAD=$UMAD2SIM "$BUILD/bench/sa-bench" --queries 20000 --window "$w" $lids | sed -n 's/.* \([0-9]*\) answers\/s.*/\1/p') || r=-
	rates="$rates $r"
done
echo "$rates"
RUN
}

fmt='%-16s %-8s %16s %17s\n'
printf "$fmt" fabric SA "answers/s (w=1)" "answers/s (w=16)"
for net in "$@"; do
	net=$(realpath "$net")	# a run works in its own directory
	for sm in fabricd opensm; do
		read -r w1 w16 < <(one_run "$sm" "$net")
		printf "$fmt" "$(basename "$net" .net)" "$sm" "$w1" "$w16"
	done
done
