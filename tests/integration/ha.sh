#!/usr/bin/env bash
# ha.sh BUILD NETFILE (the bundled 2-level r8 tree)
#
# Several SMs on one simulated fabric:
# - fabricd A (priority 5, at H0_0) and B (priority 3, at H3_1): A is
#   MASTER, B STANDBY (sminfo on each, and saquery -s lists both SM
#   ports); A is killed: B takes over within
#   its poll budget, every LID stays, no LFT block is rewritten, routes
#   still work; A comes back: it stands by, B hands the subnet over to it
#   (the better SM) and stands by itself;
# - with OpenSM: fabricd (priority 5) stays STANDBY under OpenSM
#   (priority 10) and takes over when OpenSM exits; fabricd (priority 12)
#   started under OpenSM (priority 2) gets the subnet through HANDOVER;
#   with sm_peers naming another port, OpenSM (priority 15) joining a
#   fabricd master (5) is left out: fabricd stays MASTER, hands nothing
#   over, and every LID stays.
# Run it under unshare -n.
set -euo pipefail
BUILD=$1 NET=$2
WORK=$(mktemp -d /tmp/fabricd-ha.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
PIDS=()
trap 'rc=$?; for p in "${PIDS[@]}"; do stop "$p"; done; cleanup "$rc"' EXIT

# sm_run NAME HOST PRIORITY [YAML]: fabricd NAME attached at HOST, polling its master every 300 ms
sm_run() {
	printf 'sm_priority: %s\nsm_poll_interval_ms: 300\nsm_poll_retries: 2\nsweep_interval: 1\nsm_key: 1\n%s\n' "$3" \
		"${4:-}" >"$WORK/$1.yaml"
	# again while it could not open its port: an SM just killed holds its
	# ibsim client slot until ibsim notices (as fd_once, lib.sh)
	local pid
	for _ in 1 2 3 4 5; do
		SIM_HOST=$2 LD_PRELOAD=$UMAD2SIM "$FABRICD" -f -c "$WORK/$1.yaml" -d "$WORK/$1.db" -S "$WORK/$1.sock" \
			--log-file "$WORK/$1.log" 2>"$WORK/$1.err" &
		pid=$!
		sleep 0.3
		kill -0 "$pid" 2>/dev/null || ! grep -q "cannot open ibsim0 port 0: No such file" "$WORK/$1.err" && break
		sleep 0.5
	done
	eval "PID_$1=$pid"
	PIDS+=("$pid")
}
# fresh_fabric: every SM stopped, and a new simulator of the same fabric
fresh_fabric() {
	for p in "${PIDS[@]}"; do stop "$p"; done
	PIDS=()
	sim_stop
	sim_start "$NET"
}
# osm_run PRIORITY LOG: OpenSM at H0_0, waited for until its SUBNET UP
osm_run() {
	SIM_HOST=H0_0 LD_PRELOAD=$UMAD2SIM opensm -d 2 -p "$1" -f "$2" >/dev/null 2>&1 &
	OSM=$!
	PIDS+=("$OSM")
	for _ in $(seq 100); do grep -q 'SUBNET UP' "$2" 2>/dev/null && break; sleep 0.1; done
}
# state_of LID: the SM state sminfo reads from the SM at LID
state_of() { SIM_HOST=H5_0 diag sminfo "$1" | grep -o 'SMINFO_[A-Z]*'; }
# wait_state LID STATE SECONDS
wait_state() {
	for _ in $(seq $(( $3 * 10 ))); do
		[[ $(state_of "$1" 2>/dev/null) == "$2" ]] && return 0
		sleep 0.1
	done
	fail "the SM at LID $1 is $(state_of "$1" 2>/dev/null || echo silent), not $2 after $3 s"
}
lids() { SIM_HOST=H5_0 diag ibnetdiscover | grep -o '"[^"]*".*lid [0-9]*' | sed 's/".*# *//' | sort; }

sim_start "$NET"
sm_run a H0_0 5
sleep 1
sm_run b H3_1 3
for _ in $(seq 50); do grep -q 'standing by' "$WORK/b.log" 2>/dev/null && break; sleep 0.1; done
A=$(lid_of H0_0) B=$(lid_of H3_1)
wait_state "$A" SMINFO_MASTER 5
wait_state "$B" SMINFO_STANDBY 5
note "A (priority 5) MASTER at LID $A, B (priority 3) STANDBY at LID $B"
# the SA (A's) lists both SM ports: the PortInfoRecords with IsSM
sms=$(SIM_HOST=H5_0 diag saquery -s | sed '/IsSMdisabled/,$d' | awk -F. '$1 ~ /EndPortLid$/ {print $NF}' | sort -n | tr '\n' ' ')
[[ $sms == "$A $B " ]] || fail "saquery -s: SM ports at LIDs '$sms', expected '$A $B '"
note "saquery -s: the IsSM ports are LIDs $sms"
lids >"$WORK/lids.before"

kill -9 "$PID_a"
t0=$(date +%s%N)
wait "$PID_a" 2>/dev/null || true
wait_state "$B" SMINFO_MASTER 5
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
for _ in $(seq 50); do grep -q 'SUBNET UP' "$WORK/b.log" && break; sleep 0.1; done
lids >"$WORK/lids.after"
diff -q "$WORK/lids.before" "$WORK/lids.after" >/dev/null || fail "LIDs changed: $(diff "$WORK/lids.before" "$WORK/lids.after" | head -3)"
grep -q 'readback .* [1-9][0-9]* LFT blocks read' "$WORK/b.log" || fail "B did not read the tables back"
grep -q 'program .* 0 LFT blocks sent' "$WORK/b.log" || fail "B rewrote LFT blocks: $(grep 'program ' "$WORK/b.log")"
for pair in "H0_1 H7_3" "H2_0 H5_2" "H6_1 H1_3"; do
	set -- $pair
	SIM_HOST=H5_0 diag ibtracert "$(lid_of "$1")" "$(lid_of "$2")" >/dev/null || fail "ibtracert $1 -> $2 after takeover"
done
for ev in sm_standby sm_master_lost sm_takeover; do
	"$FABRICCTL" -d "$WORK/b.db" events | grep -q "$ev" || fail "no $ev event in B's log"
done
note "A killed: B MASTER in $ms ms (budget 300 ms x 3 polls + sweep), same LIDs, 0 LFT blocks rewritten, ibtracert ok"
note "$(grep -o 'took over.*' "$WORK/b.log")"

sm_run a H0_0 5
wait_state "$A" SMINFO_MASTER 10
wait_state "$B" SMINFO_STANDBY 5
grep -q 'HANDOVER to SM' "$WORK/b.log" || fail "B did not hand over"
note "A back (priority 5 > 3): $(grep -o 'HANDOVER to SM.*' "$WORK/b.log" | head -1); B STANDBY"
SIM_HOST=H3_1 LD_PRELOAD=$UMAD2SIM "$FABRICCTL" -d "$WORK/b.db" -S "$WORK/b.sock" status >"$WORK/status" || true
grep -q 'STANDBY (priority 3)' "$WORK/status" && grep -q 'other SMs:.*priority 5 MASTER' "$WORK/status" ||
	fail "fabricctl status of B: $(cat "$WORK/status")"
rc=0; "$FABRICCTL" -d "$WORK/b.db" -S "$WORK/b.sock" status >/dev/null 2>&1 || rc=$?
((rc == 5)) || fail "fabricctl status of the standby B exits $rc, not 5"
note "fabricctl status (B): $(grep -E 'daemon|other SMs' "$WORK/status" | tr '\n' ' ')"
[[ $(stat -c %a "$WORK/b.sock") == 600 ]] || fail "the control socket is not root-only: $(stat -c %a "$WORK/b.sock")"
rc=0
setpriv --reuid=65534 --regid=65534 --clear-groups "$FABRICCTL" -S "$WORK/b.sock" resweep 2>"$WORK/err" || rc=$?
(( rc == 4 )) && grep -q "permission denied (the control socket is root's: run as root)" "$WORK/err" ||
	fail "non-root resweep: rc $rc, '$(cat "$WORK/err")'"
note "control socket mode 600; as nobody: $(cat "$WORK/err")"
fresh_fabric

# OpenSM as master, fabricd as its standby
osm_run 10 "$WORK/osm.log"
sm_run c H3_1 5
O=$(lid_of H0_0) C=$(lid_of H3_1)
wait_state "$C" SMINFO_STANDBY 5
wait_state "$O" SMINFO_MASTER 1
kill "$OSM"
wait_state "$C" SMINFO_MASTER 10
note "under OpenSM (priority 10) fabricd (5) stood by, and took over when OpenSM exited"
fresh_fabric

# OpenSM (priority 2) master; fabricd (12) joins and gets HANDOVER
osm_run 2 "$WORK/osm2.log"
sm_run d H3_1 12
O=$(lid_of H0_0) D=$(lid_of H3_1)
wait_state "$D" SMINFO_MASTER 15
wait_state "$O" SMINFO_STANDBY 5
grep -q 'handed over by the master' "$WORK/d.log" || fail "fabricd did not get the subnet through HANDOVER"
note "fabricd (12) joined OpenSM (2): HANDOVER, fabricd MASTER, OpenSM STANDBY"
fresh_fabric

# sm_peers names another SM's port (and the ports hold M_Keys, what keeps
# a rogue SM's Sets out on hardware): OpenSM (priority 15) at H0_0, outside
# sm_peers, claims the subnet as a rogue host's SM would (it ignores
# fabricd's SMInfo, whose SM_Key a Get does not get, and goes MASTER);
# fabricd (5) leaves it out of its elections, stays MASTER, hands nothing
# over, and every LID stays
sm_run e H3_1 5 $'sm_peers: [0x0002c90300000b01]\nm_key: { secret: "the peers test secret, long enough", protect: 1 }'
E=$(lid_of H3_1)
wait_state "$E" SMINFO_MASTER 10
for _ in $(seq 50); do grep -q 'SUBNET UP' "$WORK/e.log" && break; sleep 0.1; done
lids >"$WORK/lids.e"
osm_run 15 "$WORK/osm3.log"
for _ in $(seq 50); do grep -q 'is not in sm_peers' "$WORK/e.log" && break; sleep 0.1; done
grep -q 'is not in sm_peers: left out of the election' "$WORK/e.log" || fail "OpenSM's port was not left out: $(tail -3 "$WORK/e.log")"
sleep 2	# more sweeps (sweep_interval 1): still master, nothing handed over
wait_state "$E" SMINFO_MASTER 1
! grep -q 'HANDOVER to SM\|STANDBY: SM' "$WORK/e.log" || fail "fabricd yielded to an SM outside sm_peers: $(grep -m1 'HANDOVER to SM\|STANDBY: SM' "$WORK/e.log")"
lids >"$WORK/lids.e2"
diff -q "$WORK/lids.e" "$WORK/lids.e2" >/dev/null || fail "LIDs changed under the rogue SM: $(diff "$WORK/lids.e" "$WORK/lids.e2" | head -3)"
"$FABRICCTL" -d "$WORK/e.db" events | grep -q sm_left_out || fail "no sm_left_out event"
SIM_HOST=H3_1 LD_PRELOAD=$UMAD2SIM "$FABRICCTL" -d "$WORK/e.db" -S "$WORK/e.sock" status >"$WORK/status.e" || true
grep -q 'other SMs:.*0x0*100001 left out (not in sm_peers)' "$WORK/status.e" ||
	fail "fabricctl status does not show the SM left out: $(grep 'other SMs' "$WORK/status.e")"
note "sm_peers without H0_0's port: OpenSM (15) there says $(state_of "$(lid_of H0_0)" 2>/dev/null || echo nothing), fabricd (5) MASTER, every LID kept; $(grep -o 'SM 0x[0-9a-f]* (at [^)]*) is not in sm_peers' "$WORK/e.log" | head -1)"
echo "PASS: SM election, takeover and handover"
