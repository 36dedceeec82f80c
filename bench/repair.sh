#!/usr/bin/env bash
# repair.sh [NETFILE LEAF PORT]...: how long until the switches hold
# repaired tables, and how many SMPs did the repair cost? fabricd vs
# `opensm -R ftree`, each on a fresh ibsim of the same fabric, against the
# cost of their first full sweep (bring-up). Three events in a row:
#
#   link down    ibsim's Unlink of LEAF[PORT] (a leaf's first up-link by default)
#   relink       ReLink of the same port
#   switch down  Unlink of the switch at the far end of that link (every cable)
#
# Time: the wall clock at the ibsim command to the SM's last "SUBNET UP"
# log line the event caused (the SM is left 1.5 s without a new one);
# SMPs: PortXmitPkts of the SM's port (perfquery) across it. Both SMs
# learn of each event from Trap 128 (fabricd waits its trap_holddown_ms,
# 50 ms by default, to merge the traps of one event). After the link and
# the switch went down, the tables are read back with dump_fts and every
# shift permutation replayed: "broken" counts flows that no longer arrive
# (after the link / after the switch). OpenSM runs with -d 2 (log flushed
# per line). "in place" is fabricd's own figure for each event, from its
# log: the trap's arrival to the last LFT Set answered (sm/reaction.c;
# OpenSM says nothing like it). A benchmark, not a test: it prints figures.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
bench_setup
if (($# == 0)); then
	"$BUILD/topology/fabric-gen" --levels 2 --radix 36 -o "$out/ft2-r36.net"
	"$BUILD/topology/fabric-gen" --levels 3 --radix 16 -o "$out/ft3-r16.net"
	set -- "$top/tests/fabrics/fattree-2l-r8.net" L1 5 "$out/ft2-r36.net" L1 19 "$out/ft3-r16.net" L1 9
fi

# one_run SM NETFILE LEAF PORT: prints "FULL_MS FULL_SMPS DOWN_MS DOWN_SMPS UP_MS UP_SMPS SW_MS SW_SMPS BROKEN IN_PLACE".
one_run() {
	TOP=$top unshare -n bash -s "$@" "$BUILD" "$(mktemp -d "$out/run.XXXXXX")" <<'RUN'
set -euo pipefail
sm=$1 net=$2 leaf=$3 port=$4 BUILD=$5 WORK=$6
. "$TOP/tests/integration/lib.sh"
. "$TOP/bench/lib.sh"
far=$(awk -v sw="\"$leaf\"" -v p="[$port]" '$1 == "Switch" {on = $3 == sw} on && $1 == p {sub(/\[.*/, "", $2); gsub(/"/, "", $2); print $2}' "$net")
sm_run "$sm" "$net"
sm_wait_ups 1 600 || { echo "stuck - - - - - - - - -"; exit 0; }
full_ms=$(( $(grep -m1 "SUBNET UP" "$log" | ms_of) - $(head -1 "$log" | ms_of) ))
full_smps=$(sm_smps)
sleep 1	# let the first sweep's stragglers settle
# event CMD: "MS SMPS" from CMD to the last SUBNET UP it caused.
event() {
	local before n t0 seen
	before=$(sm_smps)
	n=$(sm_ups)
	t0=$(date +%H:%M:%S.%N | awk '{split($1, t, ":"); printf "%.0f\n", ((t[1] * 60 + t[2]) * 60 + t[3]) * 1000}')
	sim_cmd "$1"
	sm_wait_ups $((n + 1)) || { echo "- -"; return; }
	seen=0
	while ((seen != $(sm_ups))); do seen=$(sm_ups); sleep 1.5; done
	echo "$(( $(grep "SUBNET UP" "$log" | tail -1 | ms_of) - t0 )) $(( $(sm_smps) - before ))"
}
# in_place: fabricd's last "the switches hold the new tables N ms after" figure, or -.
in_place() {
	local ms
	ms=$(grep -o 'the switches hold the new tables [0-9]* ms after' "$log" | tail -1 | grep -o '[0-9]*' || true)
	echo "${ms:--}"
}
broken() {
	diag dump_fts >"$WORK/lfts" || true
	diag ibnetdiscover >"$WORK/topo" || true
	local q
	q=$("$FABRICCTL" --json quality --lfts "$WORK/lfts" --topology "$WORK/topo" --random 0 || true)
	sed -n 's/.*"shift": {[^}]*"broken": \([0-9]*\),.*/\1/p' <<<"$q"
}
down=$(event "Unlink \"$leaf\"[$port]")
p1=$(in_place)
b1=$(broken)
up=$(event "ReLink \"$leaf\"[$port]")
p2=$(in_place)
sw=$(event "Unlink \"$far\"")
p3=$(in_place)
b2=$(broken)
echo "$full_ms $full_smps $down $up $sw ${b1:--}/${b2:--} $p1/$p2/$p3"
RUN
}

fmt='%-14s %-8s %9s %9s | %9s %8s | %9s %8s | %9s %8s | %7s | %12s\n'
printf "$fmt" "" "" "bring-up" "" "link down" "" "relink" "" "switch down" "" "" "in place"
printf "$fmt" fabric SM ms SMPs ms SMPs ms SMPs ms SMPs broken "ms d/r/s"
while (($# >= 3)); do
	net=$(realpath "$1") leaf=$2 port=$3	# a run works in its own directory
	shift 3
	for sm in fabricd opensm; do
		read -r fms fsmps dms dsmps ums usmps sms ssmps broken placed < <(one_run "$sm" "$net" "$leaf" "$port")
		printf "$fmt" "$(basename "$net" .net)" "$sm" "$fms" "$fsmps" "$dms" "$dsmps" "$ums" "$usmps" "$sms" "$ssmps" \
			"$broken" "$placed"
	done
done
rm -rf "$out"
