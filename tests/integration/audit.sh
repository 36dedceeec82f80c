#!/usr/bin/env bash
# audit.sh BUILD NETFILE
#
# Deadlock freedom at every instant, judged from outside: on a degraded
# 3-level tree (where switches once looped some host LIDs between them),
# dump_lfts and ibnetdiscover give `fabricctl check --lfts` the tables
# the switches really hold: connected, no looping entry, acyclic; a
# LID-routed SMP from a host reaches every switch and is answered; then
# L2's first up-link goes and comes back, and for each change the event
# log names the transition's proof (or the step it could not prove), and
# `fabricctl check --before --after` on the dumps taken around it agrees.
# Run it under unshare -n.
set -euo pipefail
BUILD=$1 NET=$2
WORK=$(mktemp -d /tmp/fabricd-audit.XXXXXX)
here=$(dirname "$0")
. "$here/lib.sh"

printf 'sweep_interval: 0\ntrap_holddown_ms: 300\n' >"$WORK/fabricd.yaml"
sim_start "$NET"
fd_start -c "$WORK/fabricd.yaml"
fd_wait_up 60

# dump: ibnetdiscover and dump_lfts into $WORK/NAME.topo and NAME.lfts
dump() {
	diag ibnetdiscover >"$WORK/$1.topo" || fail "ibnetdiscover failed"
	diag dump_lfts >"$WORK/$1.lfts" || fail "dump_lfts failed"
}

dump up
out=$("$FABRICCTL" check --lfts "$WORK/up.lfts" --topology "$WORK/up.topo") ||
	fail "fabricctl check --lfts on the switches' own tables: $out"
grep -q '^loops: *ok' <<<"$out" || fail "no loop verdict: $out"
"$FABRICCTL" -d "$DB" check | grep -q '^loops: *ok' || fail "fabricctl check on the stored tables finds loops"
note "dump_lfts of the degraded tree: $(grep -c . <<<"$out") verdicts, all ok"
printf '# LID SL\n5\n' >"$WORK/bad.sl"
out=$("$FABRICCTL" check --lfts "$WORK/up.lfts" --topology "$WORK/up.topo" --sl "$WORK/bad.sl" 2>&1) &&
	fail "an SL file line without its SL was accepted: $out"
[[ $out == *"bad.sl:2: expected 'LID SL'"* ]] || fail "an SL file line without its SL: $out"


# change BEFORE AFTER CMD UPS: a link change; the transition's event, and
# the dumps taken around it judged by fabricctl check --before/--after.
# They must agree: a change whose plain old/new mixture is acyclic is
# proven in one stage; one whose mixture is cyclic is staged or flagged.
change() {
	local before=$1 after=$2 seen event out
	seen=$("$FABRICCTL" -d "$DB" events | grep -c 'transition.*switches change' || true)
	sim_cmd "$3"
	fd_wait_ups "$4"
	dump "$after"
	(( $("$FABRICCTL" -d "$DB" events | grep -c 'transition.*switches change' || true) > seen )) ||
		fail "$3: no transition event"
	event=$("$FABRICCTL" -d "$DB" events | grep 'transition.*switches change' | tail -1 | sed 's/.*transition *//')
	if out=$("$FABRICCTL" check --before "$WORK/$before.lfts" --after "$WORK/$after.lfts" --topology "$WORK/$after.topo"); then
		[[ $event == *"proven deadlock-free in 1 stage" ]] || fail "$3: the dumps' mixture is acyclic, fabricd said: $event"
	else
		[[ $out == *"CYCLE on VL"* ]] || fail "$3: fabricctl check --before/--after failed: $out"
		[[ $event == *" stages"* ]] || fail "$3: the dumps' mixture is cyclic, fabricd did not stage: $event"
	fi
	note "$3: fabricd: $event"
	note "$3: dumps: $out"
}
change up down 'Unlink "L2"[5]' 2
change down relinked 'ReLink "L2"[5]' 3

n=0
for lid in $(diag ibnetdiscover -p | awk '$1 == "SW" {print $2}' | sort -un); do
	diag smpquery nodeinfo "$lid" >/dev/null || fail "no answer to a LID-routed SMP for switch LID $lid"
	n=$((n + 1))
done
note "LID-routed NodeInfo answered by all $n switches"

