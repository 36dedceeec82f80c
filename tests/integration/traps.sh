#!/usr/bin/env bash
# traps.sh BUILD NETFILE
#
# fabricd with no periodic sweep (sweep_interval: 0) must still notice a
# link going down and coming back: ibsim's Unlink and ReLink make the
# switches send Trap 128, fabricd represses it, records it, sweeps once
# the traps are quiet (not the whole hold-down), and reroutes. After Unlink no traced path uses the dead
# link; after ReLink shift permutations load every link with one flow
# again. Then a whole spine goes, and comes back. Run it under unshare -n.
set -euo pipefail
BUILD=$1 NET=$2
WORK=$(mktemp -d /tmp/fabricd-traps.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/checks.sh"

printf 'sweep_interval: 0\ntrap_holddown_ms: 300\n' >"$WORK/fabricd.yaml"
sim_start "$NET"
fd_start -c "$WORK/fabricd.yaml"
fd_wait_up 60

sim_cmd 'Unlink "L1"[5]'
fd_wait_ups 2
grep -q 'trap: trap 128 (link state change) from LID' "$WORK/fabricd.log" || fail "no Trap 128 in the log"
"$FABRICCTL" -d "$DB" events | grep -q 'trap 128 (link state change)' || fail "fabricctl events shows no trap"
"$FABRICCTL" -d "$DB" events | grep -q 'link_down.*L1\[5\]' || fail "fabricctl events shows no link_down at L1[5]"
note "Unlink L1[5]: $(grep -m1 -o 'trap: trap 128.*' "$WORK/fabricd.log"), swept and rerouted"
# both ends' traps came at once: the repair started once they were quiet (1 ms), not after the 300 ms hold-down
after=$(grep -m1 -o 'after a trap ([0-9]* ms after the first' "$WORK/fabricd.log" | grep -o '[0-9]*' | head -1)
[[ -n $after ]] && ((after < 300)) || fail "the repair waited the whole hold-down: $(grep -m1 'after a trap' "$WORK/fabricd.log")"
note "the repair began $after ms after the first trap (quiet window 1 ms, hold-down 300 ms)"
"$FABRICCTL" -d "$DB" events | grep -q 'transition.*switches change; every mixture of old and new tables.*proven deadlock-free in [0-9]* stage' ||
	fail "fabricctl events names no proven transition after Unlink"
note "transition: $(grep 'transition: .*switches change' "$WORK/fabricd.log" | tail -1 | sed 's/.*transition: //')"
"$FABRICCTL" -d "$DB" --json check | grep -q '"unreachable": 0,.*"credit_loop": null' || fail "check after Unlink"
for dst in $(diag ibnetdiscover -p | awk '$1 == "CA" {print $2}' | head -32); do
	out=$(diag ibtracert 5 "$dst" 2>/dev/null || true)
	[[ $dst == 5 ]] && continue
	[[ $(tail -1 <<<"$out") == "To ca "* ]] || fail "ibtracert 5 $dst after Unlink: $out"
	awk 'prev ~ /"L1"/ && /^\[5\] ->/ {bad = 1} {prev = $0} END {exit !bad}' <<<"$out" &&
		fail "a path still leaves L1 by the dead port 5: $out"
done
note "after Unlink: LID 5 (on L1) reaches every host, none through L1[5]"

sim_cmd 'ReLink "L1"[5]'
fd_wait_ups 3
"$FABRICCTL" -d "$DB" events | grep -q 'link_up.*L1\[5\]' || fail "fabricctl events shows no link_up at L1[5]"
q=$("$FABRICCTL" -d "$DB" --json quality --random 0) || fail "quality after ReLink: $q"
[[ $q == *'"shift": {'*'"broken": 0, "max_load": 1,'* ]] || fail "after ReLink shift load is not 1: $q"
note "ReLink L1[5]: link_up recorded, shift permutations back to one flow per link"

# a host cable on the switch fabricd runs on (L0, port 0): only L0 itself
# sends a trap (a CA sends none), and it is news all the same
n=$(grep -c "SUBNET UP" "$WORK/fabricd.log")
sim_cmd 'Unlink "L0"[1]'
fd_wait_ups $((n + 1))
for _ in $(seq 50); do
	"$FABRICCTL" -d "$DB" events | grep -q 'link_down.*L0\[1\]' && break
	sleep 0.1
done
"$FABRICCTL" -d "$DB" events | grep -q 'link_down.*L0\[1\]' || fail "L0's own trap about its port 1 started no sweep"
n=$(grep -c "SUBNET UP" "$WORK/fabricd.log")
sim_cmd 'ReLink "L0"[1]'
fd_wait_ups $((n + 1))
note "a host unlinked from fabricd's own switch: its trap 128 was swept on"

# a whole spine lost: every host still reaches every host, none through S1
n=$(grep -c "SUBNET UP" "$WORK/fabricd.log")
sim_cmd 'Unlink "S1"'
fd_wait_ups $((n + 1))
sleep 0.5	# traps of the other ends may add one more sweep
q=$("$FABRICCTL" -d "$DB" --json quality --random 0) || fail "quality without S1: $q"
[[ $q == *'"broken": 0,'* ]] || fail "flows broken without S1: $q"
"$FABRICCTL" -d "$DB" links | grep -q ' S1 ' && fail "S1's links are still listed"
for dst in $(diag ibnetdiscover -p | awk '$1 == "CA" {print $2}'); do
	[[ $dst == 5 ]] && continue
	out=$(diag ibtracert 5 "$dst") || fail "ibtracert 5 $dst without S1: $out"
	grep -q '"S1"' <<<"$out" && fail "a path still crosses S1: $out"
done
note "spine S1 unlinked: every flow arrives ($(grep -o '"max_load": [0-9]*' <<<"$q" | head -1)), no path crosses S1"
n=$(grep -c "SUBNET UP" "$WORK/fabricd.log")
for l in 0 1 2 3 4 5 6 7; do sim_cmd "Link \"S1\"[$((l + 1))] \"L$l\"[6]"; done
fd_wait_ups $((n + 1))
for _ in $(seq 50); do
	q=$("$FABRICCTL" -d "$DB" --json quality --random 0)
	[[ $q == *'"shift": {'*'"broken": 0, "max_load": 1,'* ]] && break
	sleep 0.2
done
[[ $q == *'"shift": {'*'"broken": 0, "max_load": 1,'* ]] || fail "S1 back: shift load is not 1: $q"
note "spine S1 linked again: shift permutations back to one flow per link"

# SIGHUP rereads the configuration: a broken file changes nothing, a good one applies
n=$(grep -c "SUBNET UP" "$WORK/fabricd.log")
printf 'routing_engine: [\n' >"$WORK/fabricd.yaml"
kill -HUP "$FD_PID"
fd_wait_ups $((n + 1))
grep -q "SIGHUP: configuration not reloaded: $WORK/fabricd.yaml:" "$WORK/fabricd.log" || fail "a bad file was not refused"
grep "sweep: route" "$WORK/fabricd.log" | tail -1 | grep -q "engine ftree" || fail "the bad file changed the engine"
printf 'sweep_interval: 0\ntrap_holddown_ms: 300\nrouting_engine: updown\n' >"$WORK/fabricd.yaml"
kill -HUP "$FD_PID"
fd_wait_ups $((n + 2))
grep -q "SIGHUP: configuration reloaded from .* (routing engine updown)" "$WORK/fabricd.log" || fail "no reload logged"
grep "sweep: route" "$WORK/fabricd.log" | tail -1 | grep -q "engine updown" || fail "the new engine was not used"
note "SIGHUP: a broken file is refused and the old settings stay; a good one takes effect (engine updown)"
fd_stop
echo PASS
