#!/usr/bin/env bash
# repair.sh [NETFILE LEAF PORT]...: a link goes down; how long until the
# switches hold repaired tables, and how many SMPs did the repair cost?
# fabricd vs `opensm -R ftree`, each on a fresh ibsim of the same fabric,
# against the cost of their first full sweep (bring-up).
#
# Down: ibsim's Unlink of LEAF[PORT] (a leaf's first up-link by default).
# Repair time: the wall clock at the Unlink to the SM's next "SUBNET UP"
# log line; SMPs: PortXmitPkts of the SM's port (perfquery) across it.
# Both SMs learn of it from Trap 128 (fabricd waits its trap_holddown_ms,
# 50 ms by default, to merge the traps of one event). The repaired tables are then
# read back with dump_fts and every shift permutation replayed: "broken"
# counts flows that no longer arrive. OpenSM runs with -d 2 (log flushed
# per line). A benchmark, not a test: it prints figures.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
bench_setup
if (($# == 0)); then
	"$BUILD/topology/fabric-gen" --levels 2 --radix 36 -o "$out/ft2-r36.net"
	"$BUILD/topology/fabric-gen" --levels 3 --radix 16 -o "$out/ft3-r16.net"
	set -- "$top/tests/fabrics/fattree-2l-r8.net" L1 5 "$out/ft2-r36.net" L1 19 "$out/ft3-r16.net" L1 9
fi

# one_run SM NETFILE LEAF PORT: prints "FULL_MS FULL_SMPS REPAIR_MS REPAIR_SMPS BROKEN".
one_run() {
	TOP=$top unshare -n bash -s "$@" "$BUILD" "$(mktemp -d "$out/run.XXXXXX")" <<'RUN'
set -euo pipefail
sm=$1 net=$2 leaf=$3 port=$4 BUILD=$5 WORK=$6
. "$TOP/tests/integration/lib.sh"
. "$TOP/bench/lib.sh"
sm_run "$sm" "$net"
wait_ups() { sm_wait_ups "$1" || { echo "stuck - - - -"; exit 0; }; }
wait_ups 1
full_ms=$(( $(grep -m1 "SUBNET UP" "$log" | ms_of) - $(head -1 "$log" | ms_of) ))
sleep 1	# let the first sweep's stragglers settle
before=$(sm_smps)
n=$(sm_ups)
t0=$(date +%H:%M:%S.%N | awk '{split($1, t, ":"); printf "%.0f\n", ((t[1] * 60 + t[2]) * 60 + t[3]) * 1000}')
sim_cmd "Unlink \"$leaf\"[$port]"
wait_ups $((n + 1))
t1=$(grep "SUBNET UP" "$log" | tail -1 | ms_of)
after=$(sm_smps)
diag dump_fts >"$WORK/lfts" || true
diag ibnetdiscover >"$WORK/topo" || true
q=$("$FABRICCTL" --json quality --lfts "$WORK/lfts" --topology "$WORK/topo" --random 0 || true)
broken=$(sed -n 's/.*"shift": {[^}]*"broken": \([0-9]*\),.*/\1/p' <<<"$q")
echo "$full_ms $before $((t1 - t0)) $((after - before)) ${broken:--}"
RUN
}

fmt='%-16s %-8s %13s %11s %15s %13s %10s\n'
printf "$fmt" fabric SM "full up (ms)" "full SMPs" "repair (ms)" "repair SMPs" broken
while (($# >= 3)); do
	net=$1 leaf=$2 port=$3
	shift 3
	for sm in fabricd opensm; do
		read -r fms fsmps rms rsmps broken < <(one_run "$sm" "$net" "$leaf" "$port")
		printf "$fmt" "$(basename "$net" .net)" "$sm" "$fms" "$fsmps" "$rms" "$rsmps" "$broken"
	done
done
rm -rf "$out"
