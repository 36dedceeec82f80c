#!/usr/bin/env bash
# ftree.sh [NETFILE...]: fabricd's fat-tree routing vs `opensm -R ftree`,
# each on a fresh ibsim of the same fabric: time to SUBNET UP, SMPs sent,
# time to compute the routing, and link load under traffic, judged on the
# tables both SMs left in the switches.
#
# Up: the SM's first log line to its "SUBNET UP" line (log timestamps).
# SMPs: PortXmitPkts of the SM's own port as ibsim counts it (perfquery),
# the same judge for both.
# Route: fabricd's "lids" + "route" phases (route includes its deadlock
# proof); OpenSM's "Entering MASTER state" to "ftree tables configured on
# all switches" (LID assignment and routing). Load: dump_fts reads every
# switch's LFT, ibnetdiscover the topology, and `fabricctl quality` replays
# every shift permutation and 50 seeded random ones: the busiest link's
# flow count, worst and mean over permutations. Unbalanced: the switches
# infiniband-diags' check_lft_balance -e flags (ports more than one CA LID
# apart), of all switches.
#
# fabricd programs SL-to-VL maps and VL arbitration on every port; OpenSM
# does that only with QoS on, so it runs twice: as installed ("opensm")
# and with -Q ("opensm-Q"), the like-for-like comparison. OpenSM runs with
# -d 2 (flush its log after each line), or the script would not see its
# "SUBNET UP" in time. dump_fts skips a switch's last LFT block when
# LinearFDBTop is a multiple of 64: flows to such a LID show as broken
# (on whichever SM gave that LID to a host). A benchmark, not a test.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
bench_setup
if (($# == 0)); then
	"$BUILD/topology/fabric-gen" --levels 2 --radix 36 -o "$out/ft2-r36.net"
	"$BUILD/topology/fabric-gen" --levels 3 --radix 16 -o "$out/ft3-r16.net"
	"$BUILD/topology/fabric-gen" --levels 3 --radix 16 --remove-links 24 --remove-switches 4 --seed 7 \
		-o "$out/ft3-r16-degraded.net"
	set -- "$top/tests/fabrics/fattree-2l-r8.net" "$out/ft2-r36.net" "$out/ft3-r16.net" "$out/ft3-r16-degraded.net"
fi

# one_run SM NETFILE (SM: fabricd, opensm, opensm-Q): prints
# "UP_MS SMPS ROUTE_MS UNBALANCED/SWITCHES SHIFT_MAX SHIFT_MEAN RANDOM_MAX
# RANDOM_MEAN BROKEN".
one_run() {
	TOP=$top unshare -n bash -s "$1" "$2" "$BUILD" "$(mktemp -d "$out/run.XXXXXX")" <<'RUN'
set -euo pipefail
sm=$1 net=$2 BUILD=$3 WORK=$4
export SIM_HOST=H0_0 SIM_NO_CONSOLE=1
. "$TOP/tests/integration/lib.sh"
. "$TOP/bench/lib.sh"
sim_start "$net"
log=$WORK/sm.log
sm_start "$sm" "$log"
done_re="SUBNET UP"
[[ $sm == fabricd ]] || done_re="tables configured on all switches"
deadline=$(( $(date +%s) + 30 ))
until grep -q "$done_re" "$log" 2>/dev/null; do
	kill -0 "$FD_PID" 2>/dev/null || { echo "exited - - - - - - - -"; exit 0; }
	(( $(date +%s) < deadline )) || { echo "stuck - - - - - - - -"; exit 0; }
	sleep 0.2
done
# OpenSM: give it 10 s more to finish (LFT blocks, port states)
for _ in $(seq 50); do grep -q "SUBNET UP" "$log" && break; sleep 0.2; done
t0=$(head -1 "$log" | ms_of)
up=stuck
grep -q "SUBNET UP" "$log" && up=$(awk -v a="$t0" -v b="$(grep -m1 "SUBNET UP" "$log" | ms_of)" 'BEGIN {printf "%.0f", b - a}')
if [[ $sm == fabricd ]]; then
	route=$(awk '/sweep: (lids|route) / {for (i = 1; i < NF; i++) if ($(i + 1) == "ms") s += $i} END {print s}' "$log")
else
	a=$(grep -m1 "Entering MASTER state" "$log" | ms_of)
	b=$(grep -m1 "tables configured on all switches" "$log" | ms_of)
	route=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.0f", b - a}')
fi
smps=$(sm_smps)
diag dump_fts >"$WORK/lfts" || true
diag ibnetdiscover >"$WORK/topo" || true
q=$("$FABRICCTL" --json quality --lfts "$WORK/lfts" --topology "$WORK/topo" --random 50 || true)
diag ibnetdiscover --cache "$WORK/ibnd.cache" >/dev/null || true
unbalanced=$(diag check_lft_balance -e -l "$WORK/lfts" -i "$WORK/ibnd.cache" | grep -c Unbalanced || true)
echo "$up $smps $route $unbalanced/$(grep -c '^Switch' "$WORK/topo") $(sed 's/.*"shift": {[^}]*"broken": \([0-9]*\), "max_load": \([0-9]*\), "mean_max_load": \([0-9.]*\).*"random": {[^}]*"broken": \([0-9]*\), "max_load": \([0-9]*\), "mean_max_load": \([0-9.]*\).*/\2 \3 \5 \6 \1+\4/' <<<"$q")"
RUN
}

fmt='%-18s %-8s %8s %8s %10s %10s %9s %10s %10s %11s %7s\n'
printf "$fmt" fabric SM "up (ms)" SMPs "route (ms)" unbalanced "shift max" "shift mean" "random max" "random mean" broken
for net in "$@"; do
	net=$(realpath "$net")	# a run works in its own directory
	name=$(basename "$net" .net)
	for sm in fabricd opensm opensm-Q; do
		read -r up smps route unbalanced smax smean rmax rmean broken < <(one_run "$sm" "$net")
		printf "$fmt" "$name" "$sm" "$up" "$smps" "$route" "$unbalanced" "$smax" "$smean" "$rmax" "$rmean" "$broken"
	done
done
echo
echo "route computation alone, no simulator (route-bench): radix 48, 3 levels"
"$BUILD/bench/route-bench" --levels 3 --radix 48 --shifts 16
rm -rf "$out"
