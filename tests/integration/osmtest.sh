#!/usr/bin/env bash
# osmtest.sh BUILD NETFILE (the bundled 2-level r8 tree)
#
# OpenSM's own SA test suite, osmtest, run from host H5_0 against
# fabricd and then against OpenSM on the same simulated fabric, each SM
# and osmtest behind what a host kernel gives SA clients (RMPP both ways,
# send timeouts, the MAD tail umad2sim loses: tests/tools/rmpp_shim.c and
# rmpp_send.c, umad2sim_tail.c). Flows c (create the inventory), v (validate it:
# NodeRecords, PortInfoRecords, every PathRecord by LID and GUID pair,
# MultiPathRecords, GUIDInfo, P_KeyTable with and without the SM_Key,
# SwitchInfo, LFT, MFT, SMInfo and InformInfo records), s (services), m
# (multicast: the MCMemberRecord rules of IBA o15-0.1.x), e (event
# forwarding) and q (SLtoVLMappingTable and VLArbitrationTable records of
# every port) must pass against fabricd; each flow's verdict and time are
# printed for both SMs side by side. FLOWS overrides the list: the long
# flows a (all validations, with a wrong SM_Key that must go unanswered:
# 20 s of send timeouts) and f (100,000 SA queries) run by hand, e.g.
#   FLOWS="c a f" OSM_FLOW_TIMEOUT=120 unshare -n bash osmtest.sh BUILD NETFILE
# (figures in docs/design.md). OpenSM gets OSM_FLOW_TIMEOUT (15 s) a
# flow. Both SMs run with SM_Key 1 (OpenSM's default, which osmtest
# uses). Run it under unshare -n.
set -euo pipefail
BUILD=$1 NET=$2
WORK=$(mktemp -d /tmp/fabricd-osmtest.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

FLOWS=${FLOWS:-c v s m e q}
export SIM_HOST=H0_0	# the SM's port; osmtest asks from H5_0
# run_flows SM: each flow's "SM FLOW pass|FAIL SECONDS" into $WORK/verdicts
run_flows() {
	local flow rc start
	for flow in $FLOWS; do
		start=$(date +%s%N)
		rc=0
		(cd "$WORK" && SIM_HOST=H5_0 LD_PRELOAD="$SA_PRELOAD" \
			timeout "${FLOW_TIMEOUT:-120}" osmtest -f "$flow" -t 5000 -i "$WORK/inventory.$1" >"$WORK/osmtest-$1-$flow.log" 2>&1) || rc=$?
		echo "$1 $flow $( ((rc == 0)) && echo pass || echo "FAIL($rc)") $(awk -v a="$start" -v b="$(date +%s%N)" \
			'BEGIN { printf "%.1f", (b - a) / 1e9 }')" >>"$WORK/verdicts"
	done
}

sim_start "$NET"
# osmtest's SM_Key is OpenSM's default; its multicast flow creates groups up to the MFT cap from one port
printf 'sm_key: 1\nsa: { groups_per_port: 64 }\n' >"$WORK/fabricd.yaml"
FD_PRELOAD=$SA_PRELOAD fd_start -c "$WORK/fabricd.yaml"
fd_wait_up 30
run_flows fabricd
fd_stop

osm_start "$SA_PRELOAD"
FLOW_TIMEOUT=${OSM_FLOW_TIMEOUT:-15} run_flows opensm
stop "$FD_PID"
FD_PID=

for flow in $FLOWS; do
	read -r _ _ fd fd_s < <(grep "^fabricd $flow " "$WORK/verdicts")
	read -r _ _ osm osm_s < <(grep "^opensm $flow " "$WORK/verdicts")
	why=""
	[[ $osm == pass ]] || why=" [$(grep -m1 -o 'ERR [0-9A-F]*:.*' "$WORK/osmtest-opensm-$flow.log" || echo 'no answer, timed out')]"
	note "osmtest -f $flow: fabricd $fd (${fd_s} s), OpenSM $osm (${osm_s} s)$why"
	[[ $fd == pass ]] || fail "osmtest -f $flow against fabricd: $(grep -m3 'ERR' "$WORK/osmtest-fabricd-$flow.log")"
done
