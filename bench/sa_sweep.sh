#!/usr/bin/env bash
# sa_sweep.sh [BUILD...]: how long fabricd's SA keeps a host waiting while
# fabricd sweeps. On a fresh ibsim of the degraded 3-level radix-24 tree
# (fabric-gen --remove-links 50 --remove-switches 3: its routing and proof
# take a few hundred ms), fabricd at H0_0; sa-bench at H5_0 asks for
# PathRecords between 32 hosts, one query at a time, first with nothing
# else going on, then across a switch's loss (ibsim unlinks every cable of
# the switch behind L1's first up-link; fabricd repairs: the mend of the
# broken routes with its proof, then the transition's plan). Prints each
# run's median, 99th percentile and longest wait, and the repair's route
# and program phases from fabricd's log. Given builds (one
# per argument, default build/), each on a fresh simulator in turn: to
# compare fabricd with the routing on the loop's thread and off it. A
# benchmark, not a test.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
bench_setup
trap 'rm -rf "$out"' EXIT
"$BUILD/topology/fabric-gen" --levels 3 --radix 24 --remove-links 50 --remove-switches 3 -o "$out/r24d.net"
(($# > 0)) || set -- "$BUILD"

# one_run BUILD: "IDLE_LINE | SWEEP_LINE | ROUTE_MS PROGRAM_MS" (fabricd of BUILD, this tree's sa-bench).
one_run() {
	TOP=$top CLIENT=$BUILD/bench/sa-bench unshare -n bash -s "$out/r24d.net" "$1" "$(mktemp -d "$out/run.XXXXXX")" <<'RUN'
set -euo pipefail
net=$1 BUILD=$2 WORK=$3
trap 'echo "sa_sweep: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
. "$TOP/tests/integration/lib.sh"
. "$TOP/bench/lib.sh"
trap '[[ -n ${FD_PID:-} ]] && stop "$FD_PID"; stop "$SIM_PID"' EXIT
sim_start "$net"
export SIM_HOST=H0_0
sm_start fabricd "$WORK/sm.log"
for _ in $(seq 600); do grep -q 'SUBNET UP' "$WORK/sm.log" 2>/dev/null && break; sleep 0.1; done
sleep 1
export SIM_HOST=H5_0
lids=$(diag ibnetdiscover -p | awk '$1 == "CA" {print $2}' | sort -n | head -32)
took() { sed -n 's/.*answered in \(.*\)$/\1/p'; }
idle=$(LD_PRELOAD=$UMAD2SIM "$CLIENT" --queries 2000 --window 1 $lids | took) || idle=" - (the client failed)"
LD_PRELOAD=$UMAD2SIM "$CLIENT" --queries 30000 --window 1 $lids >"$WORK/sweep.txt" &
bench=$!
sleep 0.5
far=$(awk '$1 == "Switch" {on = $3 == "\"L1\""} on && /^\[/ && /"A|"C/ {sub(/\[.*/, "", $2); gsub(/"/, "", $2); print $2; exit}' "$net")
sim_cmd "Unlink \"$far\""
for _ in $(seq 600); do (( $(grep -c 'SUBNET UP' "$WORK/sm.log") >= 2 )) && break; sleep 0.1; done
wait "$bench" || true
phase() { grep "sweep: $1 " "$WORK/sm.log" | tail -1 | awk '{print $5}'; }
echo "$idle | $(took <"$WORK/sweep.txt" || echo "- (the client failed)") | $(phase route) $(phase program)"
RUN
}

for b in "$@"; do
	IFS='|' read -r idle sweep phases < <(one_run "$b")
	echo "$b"
	echo "  idle:          answered in$idle"
	echo "  across a sweep: answered in$sweep (route, program ms:$phases)"
done
