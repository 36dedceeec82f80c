#!/usr/bin/env bash
# diff.sh BUILD FABRICS_DIR
#
# fabricctl diff on a fabric whose switches share NodeDescriptions (two
# "leaf", two "spine", as vendors ship them): compared with the very file
# ibsim runs it matches (nodes are told apart by GUID, not by name); with
# a plan whose spines are swapped on one leaf it names exactly those
# cables, with the GUIDs that tell the twins apart; hosts under other GUIDs
# are matched by their unique names. Then a node-name-map names the twins
# in fabricd's database and log and in fabricctl (-M too). Last, OpenSM's
# guid2lid file gives a fresh fabric's ports OpenSM's LIDs.
# Run it under unshare -n.
set -euo pipefail
BUILD=$1 FABRICS=$2
WORK=$(mktemp -d /tmp/fabricd-diff.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

NET=$FABRICS/same-names.net
export SIM_HOST=H0	# the SM on a host: the traps of the switches are not its own
sim_start "$NET"
fd_once || fail "no subnet: $(tail -3 "$WORK/fabricd.log")"
ctl() { "$FABRICCTL" -d "$DB" "$@"; }
out=$(ctl diff "$NET") || fail "the fabric and the file it runs differ: $out"
note "$out"

# the plan swaps L1's spine cables: S1 and S2 are both "spine"
cat >"$WORK/swapped.net" <<'NET'
Switch	4 "L0"	# "leaf"
[1]	"H0"[1]
[3]	"S1"[1]
[4]	"S2"[1]

Switch	4 "L1"	# "leaf"
[1]	"H1"[1]
[3]	"S2"[2]
[4]	"S1"[2]

Switch	4 "S1"	# "spine"
[1]	"L0"[3]
[2]	"L1"[4]

Switch	4 "S2"	# "spine"
[1]	"L0"[4]
[2]	"L1"[3]

Hca	1 "H0"
[1]	"L0"[1]

Hca	1 "H1"
[1]	"L1"[1]
NET
rc=0; out=$(ctl diff "$WORK/swapped.net") || rc=$?
((rc == 1)) || fail "a swapped plan: exit $rc: $out"
n=$(grep -c '^miswired' <<<"$out" || true)
((n == 4)) || fail "a swapped plan: $n miswired lines, expected 4 (L1[3], L1[4], S1[2], S2[2]): $out"
grep -q '^miswired leaf (0x0000000000200001)\[3\]: the plan has spine (0x0000000000200003)\[2\], the fabric has spine (0x0000000000200002)\[2\]$' <<<"$out" ||
	fail "the miswiring does not name the twins by GUID: $out"
note "spines swapped on one leaf: $n miswired ports, e.g. $(head -1 <<<"$out")"

# the hosts' GUIDs in the plan are not the fabric's (another batch of
# HCAs): their unique names match them; the twin switches still match by GUID
ctl export ibnetdiscover | sed 's/caguid=0x1000/caguid=0xaa1000/; s/H-00000000001000/H-00000000aa1000/' >"$WORK/hosts.net"
grep -q 'caguid=0xaa100000' "$WORK/hosts.net" || fail "the plan's host GUIDs were not changed: $(head -12 "$WORK/hosts.net")"
out=$(ctl diff "$WORK/hosts.net") || fail "hosts under other GUIDs, unique names: $out"
note "hosts with other GUIDs, found by their unique names: $out"

# a node-name-map (infiniband-diags' format) names the twins: in fabricd's
# database and log, and in fabricctl's tables and arguments
cat >"$WORK/node-name-map" <<'MAP'
# the switches as the operator knows them
0x0000000000200002 "spine-1"   # S1
0x200003 "spine-2"
MAP
printf 'port: { port: 1 }\nnode_name_map: %s\nsweep_interval: 0\ntrap_holddown_ms: 100\n' "$WORK/node-name-map" >"$WORK/named.yaml"
fd_start -c "$WORK/named.yaml"
fd_wait_up 30
ctl topology | grep -Eq '^Switch +0x0000000000200003 .* spine-2$' || fail "no spine-2 in the table: $(ctl topology)"
ctl node spine-1 | grep -q '0x0000000000200002' || fail "fabricctl node spine-1: $(ctl node spine-1 2>&1)"
sim_cmd 'Unlink "S2"[1]'
for _ in $(seq 100); do
	grep -q 'link_down' "$WORK/fabricd.log" && break
	sleep 0.1
done
grep -q 'link_down .*spine-2\[1\]' "$WORK/fabricd.log" || fail "the log does not use the map's names: $(grep link_down "$WORK/fabricd.log")"
fd_stop
printf '0x200001 "left leaf"\n' >"$WORK/cli-map"
ctl -M "$WORK/cli-map" node "left leaf" | grep -q 0x0000000000200001 || fail "fabricctl -M: $(ctl -M "$WORK/cli-map" node "left leaf" 2>&1)"
printf '0x200001 left leaf\n' >"$WORK/bad-map"
rc=0; out=$(ctl -M "$WORK/bad-map" topology 2>&1) || rc=$?
((rc == 2)) && [[ $out == *"bad-map:1: the name must be in double quotes"* ]] || fail "a bad map: rc $rc, '$out'"
note "node-name-map: $(grep -m1 'link_down .*spine-2' "$WORK/fabricd.log" | sed 's/.*change: //'); fabricctl -M names a leaf"

# moving from OpenSM: its guid2lid file (written by OpenSM here, every LID
# then moved up by 0x20 so that no LID fabricd would pick itself can pass)
# gives a fresh simulator's ports their LIDs while fabricd's database has none
OSM_CACHE_DIR=$WORK/osm LD_PRELOAD=$UMAD2SIM opensm -d 2 -f "$WORK/opensm.log" </dev/null >/dev/null 2>&1 &
FD_PID=$!
mkdir -p "$WORK/osm"
for _ in $(seq 100); do [[ -s $WORK/osm/guid2lid ]] && break; sleep 0.1; done
sleep 0.5
stop "$FD_PID"
FD_PID=
[[ -s $WORK/osm/guid2lid ]] || fail "opensm wrote no guid2lid: $(tail -3 "$WORK/opensm.log")"
while read -r guid lid top; do	# OpenSM leaves a blank line after each entry: kept
	[[ -z $guid ]] && { echo; continue; }
	printf '%s 0x%04x 0x%04x\n' "$guid" $((lid + 32)) $((top + 32))
done <"$WORK/osm/guid2lid" >"$WORK/guid2lid"
sim_stop
sim_start "$NET"
printf 'port: { port: 1 }\nopensm_guid2lid: %s\n' "$WORK/guid2lid" >"$WORK/moved.yaml"
fd_once -c "$WORK/moved.yaml" -d "$WORK/moved.db" || fail "no subnet with OpenSM's LIDs: $(tail -3 "$WORK/fabricd.log")"
while read -r guid lid _; do
	[[ -z $guid ]] && continue
	got=$("$FABRICCTL" -d "$WORK/moved.db" --json topology | grep -o "\"guid\": \"$(printf '0x%016x' "$guid")\"[^}]*\"lid\": [0-9]*" |
		sed 's/.*"lid": //') || true
	[[ -z $got ]] && continue	# a CA port GUID: its node is listed by node GUID
	(( got == lid )) || fail "GUID $guid: LID $got, OpenSM's file says $((lid))"
done <"$WORK/guid2lid"
n=$(grep -c 'take their LID from OpenSM' "$WORK/fabricd.log" || true)
((n == 1)) || fail "the import was not logged once: $(grep 'LID' "$WORK/fabricd.log" | tail -3)"
note "$(grep -m1 'take their LID from OpenSM' "$WORK/fabricd.log" | sed 's/.*LID: //')"
