#!/usr/bin/env bash
# audit.sh BUILD NETFILE
#
# Deadlock freedom at every instant, judged from outside: on a degraded
# 3-level tree (where switches once looped some host LIDs between them),
# dump_lfts and ibnetdiscover give `fabricctl check --lfts` the tables
# the switches really hold: connected, no looping entry, acyclic; a
# LID-routed SMP from a host reaches every switch and is answered; what
# perfquery on SL 0 to the switches on other SLs adds closes a cycle,
# which check prints and does not count.
# ibdmchk (ibutils' credit-loop checker, written by others) judges
# fabricd's stored tables from `fabricctl export`, and OpenSM's, when it
# takes the fabric over, from dump_lfts; fabricctl check --ca-to-ca
# (ibdmchk's scope) gives the same verdict on the dump_lfts of each.
# Then, fabricd master again, every host joins the IPoIB broadcast group
# (its tree held by the switches: the plans count it, the SA proves its
# rewrite after each change; dump_mfts shows it there before and after),
# L2's first up-link goes and comes back, and for each change the event
# log names the transition's proof (or the step it could not prove), and
# `fabricctl check --before --after` on the dumps taken around it agrees;
# then an aggregation switch goes (A16: the mended tables move some LIDs
# to other SLs, which the plan puts on VLs of their own, as the event
# says), then a core switch (every link of each), judged the same way.
# Run it under unshare -n.
set -euo pipefail
BUILD=$1 NET=$2
WORK=$(mktemp -d /tmp/fabricd-audit.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

printf 'sweep_interval: 0\ntrap_holddown_ms: 300\n' >"$WORK/fabricd.yaml"
sim_start "$NET"

# dump: ibnetdiscover and dump_lfts into $WORK/NAME.topo and NAME.lfts
dump() {
	diag ibnetdiscover >"$WORK/$1.topo" || fail "ibnetdiscover failed"
	diag dump_lfts >"$WORK/$1.lfts" || fail "dump_lfts failed"
}

# ibdmchk_verdict DIR SUBNET FDBS [SL]: "ok" or "loop", from ibdmchk's own
# words (ibutils 1.5.7's ibdmchk crashes on exit after its verdict, on
# OpenSM's files too, so its exit status says nothing).
ibdmchk_verdict() {
	local dir=$1 out
	: >"$dir/mcfdbs"
	out=$(cd "$dir" && ibdmchk -s "$2" -f "$3" -m mcfdbs ${4:+-c "$4"} 2>&1 || true)
	grep -q "^-I- Scanned:[0-9]* CA to CA paths" <<<"$out" || fail "ibdmchk did not read the files: $(tail -3 <<<"$out")"
	if grep -q "^-I- no credit loops found" <<<"$out"; then echo ok
	elif grep -q "^-E- credit loops in routing" <<<"$out"; then echo loop
	else fail "ibdmchk gave no verdict: $(tail -3 <<<"$out")"; fi
}
# ca_verdict ARGS...: "ok" or "loop" from fabricctl check --ca-to-ca's deadlock line
ca_verdict() {
	local out
	out=$("$FABRICCTL" "$@" --ca-to-ca || true)
	grep -q "^deadlock: *ok" <<<"$out" && echo ok || echo loop
}
fd_start -c "$WORK/fabricd.yaml"
fd_wait_up 60

dump up
"$FABRICCTL" -d "$DB" export sl >"$WORK/up.sl" || fail "fabricctl export sl failed"
out=$("$FABRICCTL" check --lfts "$WORK/up.lfts" --topology "$WORK/up.topo" --sl "$WORK/up.sl") ||
	fail "fabricctl check --lfts on the switches' own tables: $out"
grep -q '^loops: *ok' <<<"$out" || fail "no loop verdict: $out"
# the switches' answers to hosts, on their LIDs' SLs, close no cycle either
grep -q '^answers: *ok' <<<"$out" || fail "no answers verdict: $out"
grep -q "acyclic with the switches' answers" "$WORK/fabricd.log" || fail "the sweep did not prove the answers"
# hosts that talk to switches on SL 0 whatever the SA says (perfquery) go
# outside the proof: on this tree their escape turns close a cycle on VL 0
# (printed, not in the exit status; docs/routing.md, "Switches' own traffic")
grep -q '^SL 0 tools: *CREDIT LOOP once hosts talk to the [0-9]* switch LIDs on other SLs' <<<"$out" ||
	fail "no SL 0 verdict, or not the loop of this tree: $out"
note "$(grep -A1 '^SL 0 tools' <<<"$out" | tr -s ' \n' ' ')"
"$FABRICCTL" -d "$DB" check | grep -q '^loops: *ok' || fail "fabricctl check on the stored tables finds loops"
"$FABRICCTL" -d "$DB" check | grep -q '^answers: *ok' || fail "fabricctl check on the stored tables: answers not ok"
note "dump_lfts of the degraded tree: $(grep -c '^[a-z]*: *ok' <<<"$out") verdicts ok (connectivity, loops, deadlock, answers)"

# The VLs as the switches hold them: smpquery sl2vl of every switch port,
# and the proof over (channel, VL) pairs agrees. Then the same dump with
# every port-0 row keeping the SL's VL (what an SM without fabricd's
# port-0 rule programs): the switches' answers close a credit loop.
diag ibswitches | sed -n 's/.* ports \([0-9]*\) .* lid \([0-9]*\) lmc.*/\2 \1/p' >"$WORK/switches"
[[ -s $WORK/switches ]] || fail "ibswitches listed no switch"
while read -r lid ports; do
	for p in $(seq 1 "$ports"); do diag smpquery sl2vl "$lid" "$p" || fail "smpquery sl2vl $lid $p failed"; done
done <"$WORK/switches" >"$WORK/up.sl2vl"
out=$("$FABRICCTL" check --lfts "$WORK/up.lfts" --topology "$WORK/up.topo" --sl "$WORK/up.sl" --sl2vl "$WORK/up.sl2vl") ||
	fail "fabricctl check --sl2vl on the switches' own SL-to-VL tables: $out"
grep -q '^deadlock: *ok, no cycle over (channel, VL) pairs' <<<"$out" || fail "no per-VL deadlock verdict: $out"
grep -q '^answers: *ok.*VLs as the switches map them' <<<"$out" || fail "no per-VL answers verdict: $out"
grep -q '^SL 0 tools: *CREDIT LOOP.*(VLs as the switches map them' <<<"$out" || fail "no per-VL SL 0 verdict: $out"
awk '/^ports: in  0,/ {printf "ports: in  0, out %2d: ", $5 + 0; for (s = 0; s < 16; s++) printf "|%2d", s % 8; print "|"; next} {print}' \
	"$WORK/up.sl2vl" >"$WORK/keep.sl2vl"
grep -q '^ports: in  0, out  1: | 0| 1| 2' "$WORK/keep.sl2vl" || fail "the port-0 rows were not rewritten"
if keep=$("$FABRICCTL" check --lfts "$WORK/up.lfts" --topology "$WORK/up.topo" --sl "$WORK/up.sl" --sl2vl "$WORK/keep.sl2vl"); then
	fail "port 0 keeping the SL's VL: no credit loop found: $keep"
fi
grep -q '^answers: *CREDIT LOOP' <<<"$keep" || fail "port 0 keeping the SL's VL: $keep"
grep -q '^deadlock: *ok' <<<"$keep" || fail "port 0 keeping the SL's VL changed the hosts' verdict: $keep"
sed '/^ports: in  1, out  2:/d' "$WORK/up.sl2vl" >"$WORK/short.sl2vl"	# host to host on a leaf
out=$("$FABRICCTL" check --lfts "$WORK/up.lfts" --topology "$WORK/up.topo" --sl "$WORK/up.sl" --sl2vl "$WORK/short.sl2vl" 2>&1) &&
	fail "a dump missing tables was accepted: $out"
grep -q "has no SL-to-VL table for .* in 1 out 2, which routes cross" <<<"$out" || fail "missing tables: $out"
# a row whose ':' after the ports is gone (fuzz_dumps once crashed the reader on it): one line, exit 2
sed '0,/^ports: in  1, out  2:/s//ports: in  1, out  2/' "$WORK/up.sl2vl" >"$WORK/colon.sl2vl"
rc=0
out=$("$FABRICCTL" check --lfts "$WORK/up.lfts" --topology "$WORK/up.topo" --sl2vl "$WORK/colon.sl2vl" 2>&1) || rc=$?
[[ $rc == 2 && $out == *"colon.sl2vl:"*": expected 'ports: in N, out M: '"* && $(wc -l <<<"$out") == 1 ]] ||
	fail "a row without its ':' gave exit $rc: $out"
note "smpquery sl2vl of $(wc -l <"$WORK/switches") switches: acyclic over (channel, VL), answers too; port 0 on the SL's VL: $(grep -A1 '^answers' <<<"$keep" | tail -1)"

for f in opensm-subnet opensm-fdbs ibdmchk-sl; do
	"$FABRICCTL" -d "$DB" export "$f" >"$WORK/fd-$f" || fail "fabricctl export $f failed"
done
grep -q "^0x0001 : " "$WORK/fd-opensm-fdbs" || fail "export opensm-fdbs has no LID rows: $(head -3 "$WORK/fd-opensm-fdbs")"
v=$(ibdmchk_verdict "$WORK" fd-opensm-subnet fd-opensm-fdbs fd-ibdmchk-sl)
[[ $v == ok ]] || fail "ibdmchk finds credit loops in fabricd's stored tables"
[[ $(ca_verdict check --lfts "$WORK/up.lfts" --topology "$WORK/up.topo") == ok ]] ||
	fail "fabricctl check --ca-to-ca disagrees with ibdmchk on fabricd's tables"
note "ibdmchk on fabricctl export (2 SLs): no credit loops; fabricctl check agrees"

# OpenSM takes the fabric over; ibdmchk judges the tables its switches
# hold (dump_lfts, in OpenSM's file formats from fabricctl export), and
# fabricctl check --ca-to-ca the dump itself. (OpenSM's own -D 0x41 dumps
# are not used: on ibsim its sweep stalls after writing them.) Then
# fabricd takes the fabric back.
fd_stop
osm_start "$UMAD2SIM" -R ftree
sleep 1
dump osm
for f in opensm-subnet opensm-fdbs; do
	"$FABRICCTL" export "$f" --lfts "$WORK/osm.lfts" --topology "$WORK/osm.topo" >"$WORK/osm-$f" 2>"$WORK/err" ||
		fail "fabricctl export $f of OpenSM's dump failed: $(cat "$WORK/err")"
done
v=$(ibdmchk_verdict "$WORK" osm-opensm-subnet osm-opensm-fdbs)
mine=$(ca_verdict check --lfts "$WORK/osm.lfts" --topology "$WORK/osm.topo")
[[ $v == "$mine" ]] || fail "on OpenSM's tables ibdmchk says '$v', fabricctl check --ca-to-ca '$mine'"
full=$("$FABRICCTL" check --lfts "$WORK/osm.lfts" --topology "$WORK/osm.topo" | grep '^deadlock' || true)
note "OpenSM's tables: ibdmchk '$v', fabricctl check --ca-to-ca '$mine'; CA to every LID: $(sed "s/^deadlock: *//" <<<"$full")"
stop "$FD_PID"
FD_PID=
fd_start -c "$WORK/fabricd.yaml"
fd_wait_up 60
printf '# LID SL\n5\n' >"$WORK/bad.sl"
out=$("$FABRICCTL" check --lfts "$WORK/up.lfts" --topology "$WORK/up.topo" --sl "$WORK/bad.sl" 2>&1) &&
	fail "an SL file line without its SL was accepted: $out"
[[ $out == *"bad.sl:2: expected 'LID SL'"* ]] || fail "an SL file line without its SL: $out"

# last_transition: the newest transition event's text
last_transition() {
	"$FABRICCTL" -d "$DB" events | grep 'transition.*switches change' | tail -1 | sed 's/.*transition *//'
}

# change BEFORE AFTER CMD UPS [sl2vl]: a link change; the transition's event, and
# the dumps taken around it judged by fabricctl check --before/--after (and
# with sl2vl over the switches' SL-to-VL tables too, with the same verdict).
# They must agree: a change whose plain old/new mixture is acyclic is
# proven in one stage; one whose mixture is cyclic is staged or flagged.
change() {
	local before=$1 after=$2 seen event out verdict=ok vl_out vl_verdict=ok
	seen=$("$FABRICCTL" -d "$DB" events | grep -c 'transition.*switches change' || true)
	sim_cmd "$3"
	fd_wait_ups "$4"
	dump "$after"
	(( $("$FABRICCTL" -d "$DB" events | grep -c 'transition.*switches change' || true) > seen )) ||
		fail "$3: no transition event"
	event=$(last_transition)
	if out=$("$FABRICCTL" check --before "$WORK/$before.lfts" --after "$WORK/$after.lfts" --topology "$WORK/$after.topo"); then
		[[ $event == *"proven deadlock-free in 1 stage" ]] || fail "$3: the dumps' mixture is acyclic, fabricd said: $event"
	else
		[[ $out == *"CYCLE on VL"* ]] || fail "$3: fabricctl check --before/--after failed: $out"
		[[ $event == *" stages"* ]] || fail "$3: the dumps' mixture is cyclic, fabricd did not stage: $event"
		verdict=cycle
	fi
	note "$3: fabricd: $event"
	note "$3: dumps: $out"
	[[ ${5:-} == sl2vl ]] || return 0
	if ! vl_out=$("$FABRICCTL" check --before "$WORK/$before.lfts" --after "$WORK/$after.lfts" \
		--topology "$WORK/$after.topo" --sl2vl "$WORK/up.sl2vl"); then
		[[ $vl_out == *"CYCLE over the VLs the switches map"* ]] || fail "$3: check --sl2vl --before/--after failed: $vl_out"
		vl_verdict=cycle
	fi
	[[ $vl_verdict == "$verdict" ]] || fail "$3: over the switches' SL-to-VL tables the mixture is $vl_verdict: $vl_out"
	note "$3: over the switches' SL-to-VL tables: ${vl_out:0:120}"
}
# every host joins the IPoIB broadcast group (sa-client, through the SA):
# the switches hold its tree through the changes below, whose plans prove
# their stages with it, and its MFTs are proven and rewritten after each
CLIENT="$BUILD/tests/sa-client"
joined=0
for h in $(awk '$1 == "Hca" { gsub(/"/, "", $3); print $3 }' "$NET"); do
	[[ $(SIM_HOST=$h diag "$CLIENT" join) == "status 0x0000 mlid 0xc000" ]] || fail "$h join: $(cat "$WORK/diag.err")"
	joined=$((joined + 1))
done
# tree_switches: how many switches' MFTs (dump_mfts) give MLID 0xc000 a port
tree_switches() {
	SIM_HOST=H0_0 diag dump_mfts | awk '/^Multicast mlids/ { sw = $NF } /^0xc000/ { n[sw] = 1 } END { print length(n) }'
}
for try in $(seq 20); do
	(( $(tree_switches) > 0 )) && break
	sleep 0.2
done
trees=$(tree_switches)
(( trees > 0 )) || fail "after $joined joins no switch's MFT carries the broadcast group"
note "multicast: $joined hosts joined the broadcast group; its tree on $trees switches (dump_mfts)"
dump up
change up down 'Unlink "L2"[5]' 3 sl2vl
change down relinked 'ReLink "L2"[5]' 4 sl2vl
change relinked aggless 'Unlink "A16"' 5
[[ $(last_transition) == *"the changed SLs on VLs of their own"* ]] ||
	fail "A16 lost: the plan did not put the changed SLs apart: $(last_transition)"
# the switches' tables on the SLs the SA now publishes: acyclic, answers too
"$FABRICCTL" -d "$DB" export sl >"$WORK/aggless.sl" || fail "fabricctl export sl failed"
out=$("$FABRICCTL" check --lfts "$WORK/aggless.lfts" --topology "$WORK/aggless.topo" --sl "$WORK/aggless.sl") ||
	fail "A16 lost: fabricctl check --lfts on the switches' tables: $out"
grep -q '^answers: *ok' <<<"$out" || fail "A16 lost: no answers verdict: $out"
note "A16 lost: SLs published $(awk '!/^#/ {print $2}' "$WORK/aggless.sl" | sort -un | tr '\n' ' ')"
change aggless coreless 'Unlink "C0"' 6
for try in $(seq 20); do	# the trees are programmed once each repair is published
	grep -q 'mcast: .* MFT Sets failed' "$WORK/fabricd.log" && fail "MFT Sets failed: $(grep 'MFT Sets failed' "$WORK/fabricd.log")"
	(( $(tree_switches) > 0 )) && break
	sleep 0.2
done
trees=$(tree_switches)
(( trees > 0 )) || fail "after the changes no switch's MFT carries the broadcast group"
cleared=$(grep -c 'held on VL [0-9]* and their new ones close a cycle' "$WORK/fabricd.log" || true)
before=$("$FABRICCTL" -d "$DB" events | grep -c 'transition.*multicast trees the switches hold cleared first' || true)
note "multicast after the changes: the tree on $trees switches; MFT rewrites in two phases: $cleared; repairs that cleared the trees before their stages: $before"
status=$("$FABRICCTL" -d "$DB" -S "$SOCK" status | grep '^multicast:' || true)
[[ $status == "multicast:  1 group on 1 MLID, $joined memberships; 0 groups left out of the MFTs"* ]] ||
	fail "fabricctl status: '$status'"
note "fabricctl status: $status"

n=0
for lid in $(diag ibnetdiscover -p | awk '$1 == "SW" {print $2}' | sort -un); do
	diag smpquery nodeinfo "$lid" >/dev/null || fail "no answer to a LID-routed SMP for switch LID $lid"
	n=$((n + 1))
done
note "LID-routed NodeInfo answered by all $n switches"
