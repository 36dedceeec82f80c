#!/usr/bin/env bash
# health.sh BUILD NETFILE
#
# Link quality and unhealthy ports on ibsim, judged by infiniband-diags:
# - fabricctl links --degraded names the same ports, with the same "Could
#   be", as iblinkinfo;
# - symbol errors over the threshold on a leaf's up-link (health.action
#   isolate): after the next sweep no LFT entry of either end points into
#   the link (ibroute), fabricctl check proves the tables, ibtracert goes
#   around it; once clean it carries traffic again;
# - the same errors on a host's only link: reported, kept in service;
# - LinkDowned over its threshold is flapping; fabricctl health clear
#   declares the port healthy;
# - health.action disable (set by a SIGHUP reload): smpquery portinfo shows
#   the port Disabled, then, after a fabricd restart, Polling once it is clean.
# Run it under unshare -n.
set -euo pipefail
BUILD=$1 NET=$2
WORK=$(mktemp -d /tmp/fabricd-health.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

config() {
	printf 'perf: { interval: 1 }\nsweep_interval: 0\nmetrics_listen: "127.0.0.1:19684"\nhealth: { action: %s, symbol_errors: 50, ber: 0, link_downed: 3, window_s: 4, clean_s: %s }\n' \
		"$1" "$2" >"$WORK/fabricd.yaml"
}
ctl() { "$FABRICCTL" -d "$DB" -S "$SOCK" "$@"; }
lid_of() { ctl --json node "$1" | grep -o '"lid": [0-9]*' | cut -d' ' -f2; }
# wait_event TEXT: waits (15 s at most) for an event holding TEXT.
wait_event() {
	for _ in $(seq 150); do
		ctl events | grep -qF -- "$1" && return 0
		sleep 0.1
	done
	fail "no event '$1': $(ctl events | tail -3)"
}
# routes_into LID PORT: how many LFT entries of the switch at LID point at PORT (ibroute, the judge).
routes_into() {
	diag ibroute "$1" >"$WORK/route.txt" || fail "ibroute $1: $(cat "$WORK/diag.err")"
	awk -v p="$2" '$1 ~ /^0x/ && $2 + 0 == p { n++ } END { print n + 0 }' "$WORK/route.txt"
}

# wait_perf: until two more counter sweeps have finished (the first reading of a port is its baseline)
wait_perf() {
	local want=$(( $(grep -c "perf: counters of" "$WORK/fabricd.log" || true) + 2 ))
	for _ in $(seq 100); do
		(( $(grep -c "perf: counters of" "$WORK/fabricd.log" || true) >= want )) && return 0
		sleep 0.1
	done
	fail "no counter sweep: $(tail -2 "$WORK/fabricd.log")"
}

config isolate 6
sim_start "$NET"
fd_start -c "$WORK/fabricd.yaml"
fd_wait_up 60
wait_perf

# degraded links: the same ports and words as iblinkinfo
diag iblinkinfo >"$WORK/iblinkinfo.txt" || fail "iblinkinfo: $(cat "$WORK/diag.err")"
awk '/^(CA|Switch):/ { sub(/:$/, "", $NF); node = $NF; next }
     /Could be/ { line = $0; sub(/==\(.*/, "", line); sub(/\[[^[]*$/, "", line); n = split(line, f, " "); port = f[n]
                  c = $0; sub(/.*\(/, "", c); sub(/\)$/, "", c); print node, port, c }' \
	"$WORK/iblinkinfo.txt" | sort >"$WORK/want.txt"
ctl links --degraded | awk 'NR > 1 { print $1, $2, substr($0, index($0, "Could be")) }' | sort >"$WORK/got.txt"
[[ -s $WORK/want.txt ]] || fail "iblinkinfo names no degraded port (the check would prove nothing)"
diff "$WORK/want.txt" "$WORK/got.txt" >"$WORK/degraded.diff" || fail "degraded ports differ from iblinkinfo: $(head -5 "$WORK/degraded.diff")"
note "links --degraded agrees with iblinkinfo on $(wc -l <"$WORK/want.txt") ports ($(head -1 "$WORK/want.txt"))"

# isolation of a leaf's up-link, and a host's only link kept
peer=$(ctl --json links | grep -o '"from": "L0", "from_guid": "[^"]*", "from_port": 5, "to": "[^"]*", "to_guid": "[^"]*", "to_port": [0-9]*')
spine=$(sed 's/.*"to": "\([^"]*\)".*/\1/' <<<"$peer")
spine_port=$(sed 's/.*"to_port": //' <<<"$peer")
L0=$(lid_of L0) SPINE=$(lid_of "$spine")
(( $(routes_into "$L0" 5) > 0 )) || fail "L0[5] carries no route before the test"
sim_cmd 'PerformanceSet "L0"[5] PortCounters.SymbolErrorCounter=200'
sim_cmd 'PerformanceSet "H0_1"[1] PortCounters.SymbolErrorCounter=200'
wait_event "L0[5] (to $spine[$spine_port]) isolated"
wait_event "H0_1[1] (to L0[2]) stays in the routing: it is H0_1's only link"
fd_wait_ups 2
sleep 1
(( $(routes_into "$L0" 5) == 0 )) || fail "L0 still routes into port 5: $(awk '$2 + 0 == 5' "$WORK/route.txt" | head -2)"
(( $(routes_into "$SPINE" "$spine_port") == 0 )) || fail "$spine still routes into L0 over port $spine_port"
ctl check >"$WORK/check.txt" || fail "check with L0[5] isolated: $(cat "$WORK/check.txt")"
diag ibtracert "$(lid_of H0_0)" "$(lid_of H7_0)" >"$WORK/trace.txt" || fail "ibtracert: $(cat "$WORK/diag.err")"
grep -q "\[5\].*\"$spine\"" "$WORK/trace.txt" && fail "ibtracert still crosses L0[5]: $(cat "$WORK/trace.txt")"
ctl health | grep -q "^L0 .* 5 .*isolated .*symbol_errors 200" || fail "health: $(ctl health | head -4)"
ctl health | grep -q "^H0_1 .* 1 .*kept .*only link" || fail "health: $(ctl health | head -4)"
curl -sf http://127.0.0.1:19684/metrics >"$WORK/metrics.txt" || fail "no /metrics"
promtool check metrics <"$WORK/metrics.txt" || fail "promtool rejects /metrics"
grep -q '^fabricd_port_unhealthy{node="L0",.*,port="5",.*state="isolated"} 1$' "$WORK/metrics.txt" ||
	fail "metrics: $(grep unhealthy "$WORK/metrics.txt" | tail -3)"
note "isolated L0[5]: no LFT entry of L0 or $spine points into it, check proves the tables, ibtracert goes around"
wait_event "L0[5] (to $spine[$spine_port]) healthy again: clean for 6 s"
fd_wait_ups 3
sleep 1
(( $(routes_into "$L0" 5) > 0 )) || fail "L0[5] carries no route after it is healthy again"
note "clean for 6 s: L0[5] carries $(routes_into "$L0" 5) LIDs again"

# flapping, then cleared by hand
sim_cmd 'PerformanceSet "L1"[6] PortCounters.LinkDownedCounter=3'
wait_event "L1[6]"
ctl events | grep -q "L1\[6\] .*unhealthy: flapping: link_downed 3 in the last 4 s" || fail "no flapping: $(ctl events | tail -2)"
ctl health clear 'L1[6]' | grep -q "ok: 1 port declared healthy" || fail "health clear"
wait_event "healthy again: cleared by fabricctl health clear"	# not "L1[6] (to": the flapping event has it too
ctl events | grep -q "L1\[6\] .*healthy again: cleared by fabricctl health clear" || fail "no clear event"
ctl health clear 'L1[99]' >/dev/null 2>&1 && fail "health clear of a bad port succeeded"
note "LinkDowned 3: flapping, isolated; fabricctl health clear ends it"

# disable, by a reloaded configuration
config disable 4
kill -HUP "$FD_PID"
sleep 1
sim_cmd 'PerformanceSet "L2"[6] PortCounters.SymbolErrorCounter=100'
wait_event "L2[6]"
ctl events | grep -q "L2\[6\] .*unhealthy: symbol_errors 100.*; disabled" || fail "not disabled: $(ctl events | tail -2)"
diag smpquery portinfo "$(lid_of L2)" 6 >"$WORK/pi.txt" || fail "smpquery: $(cat "$WORK/diag.err")"
grep -q "PhysLinkState:\.*Disabled" "$WORK/pi.txt" || fail "smpquery: $(grep PhysLinkState "$WORK/pi.txt")"
note "action disable: smpquery portinfo shows $(grep -o 'PhysLinkState:.*' "$WORK/pi.txt" | tr -s .)"
# a restart does not forget the disabled port: it is enabled once clean
fd_stop
fd_start -c "$WORK/fabricd.yaml"
fd_wait_up 60
grep -q "health: 1 port still judged unhealthy by the last run" "$WORK/fabricd.log" || fail "the verdict was forgotten"
for _ in $(seq 100); do
	ctl events | grep -q "L2\[6\] .*healthy again" && break
	sleep 0.1
done
diag smpquery portinfo "$(lid_of L2)" 6 >"$WORK/pi.txt" || fail "smpquery: $(cat "$WORK/diag.err")"
grep -q "PhysLinkState:\.*Polling" "$WORK/pi.txt" || fail "not enabled again: $(grep PhysLinkState "$WORK/pi.txt")"
note "clean again: $(grep -o 'PhysLinkState:.*' "$WORK/pi.txt" | tr -s .)"
fd_stop
