#!/usr/bin/env bash
# hostile.sh BUILD NETFILE (the bundled 2-level r8 tree)
#
# A root user on host H3_1 attacks fabricd (tests/tools/hostile.c); after
# each attack fabricd must still be MASTER, sweeping, and hold the whole
# fabric:
# - SMInfo Get does not give the SM_Key away; SMInfo Set DISABLE,
#   HANDOVER, DISCOVER and STANDBY naming fabricd's own GUID, with SM_Key 0
#   and with the right key, change nothing (the host is not an SM port);
# - 36,000 forged GetResps whose TIDs follow fabricd's old counter (PID
#   shifted left 16, plus one per MAD) during heavy sweeps complete
#   nothing: every sweep stores all the nodes the first found and no
#   node_removed event appears;
# - Trap 128s claiming a switch's LID as issuer cause no sweep; a storm of
#   its own causes at most the per-source budget of sweeps;
# - at the SA it acts for itself only, within its quotas: it cannot take
#   H5_0 out of the IPoIB broadcast group nor join absent ports to it, nor
#   register a service in another port's name, nor delete H5_0's service;
#   it holds at most 32 services and 16 subscriptions, however many GIDs
#   it names;
# - 3,000 MADs of random bytes behind valid SA and SMP headers (FUZZ_SEED,
#   default 1): fabricd still answers, stays master, and its SA still
#   lists every node;
# then a real Unlink is still noticed and rerouted.
# Run it under unshare -n.
set -euo pipefail
BUILD=$1 NET=$2
WORK=$(mktemp -d /tmp/fabricd-hostile.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
HOSTILE=$BUILD/tests/hostile

attack() { SIM_HOST=H3_1 diag "$HOSTILE" "$@"; }
still_master() {
	local out
	out=$(SIM_HOST=H5_0 diag sminfo) || fail "sminfo after $1: $(cat "$WORK/diag.err")"
	[[ $out == *SMINFO_MASTER* ]] || fail "after $1 fabricd is not master: $out"
	kill -0 "$FD_PID" || fail "fabricd died after $1"
}

printf 'sweep_interval: 0\ntrap_holddown_ms: 200\nsm_key: 0x5eed\n' >"$WORK/fabricd.yaml"
sim_start "$NET"
fd_start -c "$WORK/fabricd.yaml"
fd_wait_up 60
guid=$(grep -o -m1 'GUID 0x[0-9a-f]*' "$WORK/fabricd.log" | cut -d' ' -f2)
nodes_of_sweeps() { "$FABRICCTL" -d "$DB" --json sweeps --last "$1" | grep -o '"nodes": [0-9]*' | cut -d' ' -f2; }
all=$(nodes_of_sweeps 1)

# forged replies during heavy sweeps, with the TIDs fabricd's old counter
# (PID << 16, plus one per MAD sent) would give the next sweep
pid=$FD_PID
sent=$("$FABRICCTL" -d "$DB" --json sweeps --last 1 | grep -o '"mads": [0-9]*' | cut -d' ' -f2)
first=$(( ((pid << 16) & 0xffffffff) + 1 + sent - 200 ))
before=$(ups)
attack replies "$first" 600 60 >"$WORK/replies.out" &
spray=$!
# one request per sweep: requests made while a sweep runs make one sweep after it
for i in 1 2 3; do
	"$FABRICCTL" -S "$SOCK" resweep >/dev/null || fail "resweep refused"
	fd_wait_ups $((before + i))
done
wait "$spray" || fail "hostile replies: $(cat "$WORK/diag.err")"
still_master "forged replies"
"$FABRICCTL" -d "$DB" events | grep -q node_removed && fail "forged replies removed nodes: $("$FABRICCTL" -d "$DB" events | grep -m3 node_removed)"
for s in $(nodes_of_sweeps 4); do
	((s == all)) || fail "a sweep under forged replies stored $s nodes, not $all"
done
note "36,000 forged GetResps (TIDs around (PID $pid << 16) + $sent) during 3 heavy sweeps: every sweep stored all $all nodes"

# SMInfo: no key to read, no Set obeyed from a host
out=$(attack sminfo-get) || fail "hostile sminfo-get: $(cat "$WORK/diag.err")"
[[ $out == *"state 3 sm_key 0x0000000000000000"* ]] || fail "SMInfo Get from a host: $out"
for mod in 3 1 5 4; do
	for key in 0 0x5eed; do
		attack sminfo-set "$mod" "$guid" "$key" >/dev/null || fail "hostile sminfo-set $mod: $(cat "$WORK/diag.err")"
		still_master "SMInfo Set $mod with SM_Key $key"
	done
done
n=$(grep -c 'SMInfo Set [0-9] naming SM .* ignored' "$WORK/fabricd.log" || true)
((n == 8)) || fail "$n of 8 forged SMInfo Sets logged as ignored"
note "SMInfo Get gave no SM_Key; 8 SMInfo Sets (DISABLE, HANDOVER, DISCOVER, STANDBY) $(grep -m1 -o 'ignored: .*' "$WORK/fabricd.log")"

# traps from a host: a switch's issuer LID is refused; its own storm is budgeted
sw=$(lid_of L2) own=$(lid_of H3_1)
before=$(ups)
attack traps 100 10 "$sw" >/dev/null || fail "hostile traps: $(cat "$WORK/diag.err")"
sleep 0.5
(( $(ups) == before )) || fail "forged traps (issuer LID $sw from LID $own) caused $(( $(ups) - before )) sweeps"
grep -q "trap 128 claiming issuer LID $sw from LID $own ignored" "$WORK/fabricd.log" || fail "forged trap not logged as ignored"
attack traps 200 10 "$own" >/dev/null || fail "hostile traps: $(cat "$WORK/diag.err")"
sleep 0.5
swept=$(( $(ups) - before ))
((swept <= 10)) || fail "a 2 s trap storm from one host caused $swept sweeps"
grep -q "traps from LID $own over its budget" "$WORK/fabricd.log" || fail "no budget line for the trap storm"
still_master "trap storms"
note "100 traps naming switch LID $sw: no sweep; 200 of its own in 2 s: $swept sweeps"

# the SA: each port acts for itself, within its quotas
CLIENT=$BUILD/tests/sa-client
h5=$(SIM_HOST=H5_0 diag smpquery nodeinfo -L "$(lid_of H5_0)" | awk -F. '/^PortGuid/ {print $NF}')
[[ $(SIM_HOST=H5_0 diag "$CLIENT" join) == "status 0x0000 mlid 0xc000" ]] || fail "H5_0 join: $(cat "$WORK/diag.err")"
out=$(attack mcast-leave "$h5") || true
[[ $out == "status 0x0000" ]] && fail "a host took H5_0 out of the broadcast group"
grep -q "MCMemberRecord leave for port $(printf '0x%016x' "$h5") from port .* refused" "$WORK/fabricd.log" ||
	fail "the forged leave is not logged"
joined=0
for i in $(seq 20); do
	[[ $(attack mcast-join $((0x0badbeef00 + i))) == "status 0x0000" ]] && joined=$((joined + 1))
done
((joined == 0)) || fail "$joined joins naming absent ports accepted"
note "multicast: a leave for H5_0 and 20 joins naming absent ports from H3_1 refused"
SIM_HOST=H5_0 diag "$CLIENT" set 0x2000 h5-service 600 >/dev/null || fail "H5_0's ServiceRecord: $(cat "$WORK/diag.err")"
out=$(attack service-delete 0x2000) || true
[[ $out == "status 0x0000" ]] && fail "a host deleted H5_0's ServiceRecord"
[[ $(SIM_HOST=H5_0 diag "$CLIENT" get 0x2000) == "status 0x0000 name h5-service" ]] || fail "H5_0's service is gone"
out=$(attack services 5 "$h5")
[[ $out == "0 of 5 services registered" ]] || fail "services in H5_0's name: $out"
out=$(attack services 40)
[[ $out == "32 of 40 services registered" ]] || fail "services of its own: $out (quota 32)"
out=$(attack subscribe 40)
[[ $out == "16 of 40 subscriptions taken" ]] || fail "subscriptions: $out (quota 16)"
[[ $(SIM_HOST=H5_0 diag "$CLIENT" set 0x2001 h5-second 600) == "status 0x0000"* ]] || fail "H5_0 locked out of the SA"
note "SA: H5_0's service survives a Delete from H3_1; services in H5_0's name refused; 32 of 40 services and 16 of 40 subscriptions (quotas); H5_0 still registers"

# random MADs: fabricd keeps answering and its answers stay right
seed=${FUZZ_SEED:-1}
out=$(attack fuzz 3000 "$seed") || fail "after 3,000 random MADs (seed $seed) fabricd does not answer: $out"
still_master "3,000 random MADs (seed $seed)"
nr=$(SIM_HOST=H5_0 DIAG_PRELOAD=$SA_PRELOAD diag saquery NR | grep -c '^NodeRecord dump' || true)
((nr == all)) || fail "after the random MADs saquery NR lists $nr nodes, not $all"
note "3,000 random MADs (seed $seed): $out, still master, saquery NR lists all $all nodes"

# after it all, a real link failure is still found and routed around
before=$(ups)
sim_cmd 'Unlink "L2"[5]'
fd_wait_ups $((before + 1))
"$FABRICCTL" -d "$DB" events | grep -q 'link_down.*L2\[5\]' || fail "Unlink L2[5] after the attacks not recorded"
"$FABRICCTL" -d "$DB" -S "$SOCK" status >/dev/null || fail "fabricctl status exits $? after the attacks"
note "Unlink L2[5] after the attacks: swept and recorded; fabricctl status exits 0 (MASTER, last sweep ok)"
echo "PASS: a hostile host cannot disable, steer or flood fabricd"
