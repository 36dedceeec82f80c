#!/usr/bin/env bash
# sa.sh BUILD NETFILE (the bundled 2-level r8 tree)
#
# The SA on fabricd's port, asked by saquery from another host: NodeRecord,
# PortInfoRecord, LinkRecord, LFTRecord, SwitchInfoRecord, SMInfoRecord
# and ClassPortInfo match the fabric (ibnetdiscover, ibroute, sminfo); a
# ServiceRecord a host sets (tests/tools/sa_client.c) is listed, found and
# deleted; a host subscribed to trap 128 gets a Report when a link goes
# down; hosts join the IPoIB broadcast group, show in MCMemberRecords
# and in the switches' MFTs (dump_mfts), and a leave takes them out;
# a table longer than one MAD is refused with "no resources" (RMPP is not
# written yet) and an unsupported or malformed query gets its status,
# never a crash. PathRecords are checked in ring.sh (SL) and
# partitions.sh (isolation). Run it under unshare -n.
set -euo pipefail
BUILD=$1 NET=$2
WORK=$(mktemp -d /tmp/fabricd-sa.XXXXXX)
here=$(dirname "$0")
. "$here/lib.sh"

export SIM_HOST=H0_0	# fabricd's port; saquery asks from H5_0
sim_start "$NET"
fd_start -l debug
fd_wait_up 30
lid_of() { "$FABRICCTL" -d "$DB" --json node "$1" | grep -o '"lid": [0-9]*' | head -1 | cut -d' ' -f2; }
sa() { SIM_HOST=H5_0 diag saquery "$@" || fail "saquery $*: $(cat "$WORK/diag.err")"; }
field() { awk -F. -v k="$1" '{ sub(/^[ \t]+/, "", $1) } $1 == k { print $NF; exit }'; }
L0=$(lid_of L0) S0=$(lid_of S0) H=$(lid_of H1_0)

out=$(sa NR "$H")
[[ $(field NodeDescription <<<"$out") == H1_0 && $(field node_guid <<<"$out") == 0x0000000000100008 ]] ||
	fail "NodeRecord of H1_0: $out"
out=$(sa PIR "$L0/5")
[[ $(field LinkState: <<<"$out") == Active ]] || fail "PortInfoRecord L0/5: $out"
out=$(sa LR "$L0/5")
[[ $(field ToLID <<<"$out") == "$S0" && $(field ToPort <<<"$out") == 1 ]] || fail "LinkRecord L0/5: $out"
want=$(SIM_HOST=H5_0 diag ibroute "$L0" | awk -v l="$(printf '0x%04x' "$H")" '$1 == l { print $2 + 0 }')
got=$(sa LFTR "$L0/0" | awk -v l="$H" '$1 == l { print $2 + 0; exit }')
[[ -n $want && $got == "$want" ]] || fail "LFTRecord L0 block 0, LID $H: port '$got', ibroute says '$want'"
out=$(sa SWIR "$L0")
[[ $(( $(field LinearFDBTop <<<"$out") )) == $(lid_of S3) ]] || fail "SwitchInfoRecord L0: $out"
out=$(sa SMIR)
[[ $(field GUID <<<"$out") == 0x0000000000100001 ]] || fail "SMInfoRecord: $out"
out=$(sa -c)
[[ $(field "Class version" <<<"$out") == 2 ]] || fail "ClassPortInfo: $out"
note "NodeRecord, PortInfoRecord, LinkRecord, LFTRecord (as ibroute), SwitchInfoRecord, SMInfoRecord, ClassPortInfo match"

# a ServiceRecord registered by H5_0, found by saquery and by ServiceID, then withdrawn
CLIENT="$BUILD/tests/sa-client"
SIM_HOST=H5_0 diag "$CLIENT" set 0x1000 fabricd-test 60 >/dev/null || fail "ServiceRecord set: $(cat "$WORK/diag.err")"
[[ $(sa -S | field ServiceName) == fabricd-test ]] || fail "saquery -S: $(sa -S)"
[[ $(SIM_HOST=H5_0 diag "$CLIENT" get 0x1000) == "status 0x0000 name fabricd-test" ]] || fail "ServiceRecord get"
SIM_HOST=H5_0 diag "$CLIENT" delete 0x1000 fabricd-test >/dev/null || fail "ServiceRecord delete"
rc=0; out=$(SIM_HOST=H5_0 LD_PRELOAD=$UMAD2SIM "$CLIENT" get 0x1000 2>/dev/null) || rc=$?
[[ $rc == 1 && $out == "status 0x0300" ]] || fail "a deleted ServiceRecord still answers: rc $rc, '$out'"
note "ServiceRecord: set from H5_0, listed by saquery -S, found by ID, deleted (then NO_RECORDS)"

# H5_0 subscribes to trap 128; a link goes down; the SA reports the switch's trap to it
SIM_HOST=H5_0 LD_PRELOAD=$UMAD2SIM "$CLIENT" subscribe 128 10 >"$WORK/report" 2>&1 &
sub=$!
for _ in $(seq 50); do grep -q '^status 0x0000' "$WORK/report" && break; sleep 0.1; done
grep -q '^status 0x0000' "$WORK/report" || fail "InformInfo: $(cat "$WORK/report")"
sim_cmd 'Unlink "L3"[6]'
wait "$sub" || fail "no Report of trap 128: $(cat "$WORK/report")"
grep -q '^report trap 128$' "$WORK/report" || fail "Report: $(cat "$WORK/report")"
note "InformInfo: H5_0 subscribed to trap 128; Unlink L3[6]: the SA reported the trap to it"

# multicast: H5_0 and H6_1 join the IPoIB broadcast group; the members show, and the MFTs carry
# the tree (their leaves and the root spine); H5_0 leaves and its leaf drops out
# mft_switches: the switches whose MFT has MLID 0xc000, as dump_mfts reads them
mft_switches() {
	SIM_HOST=H2_0 diag dump_mfts | awk '/^Multicast mlids/ { sw = $NF } /^0xc000/ { print sw }' | tr -d '():' | sort | tr '\n' ' '
}
for h in H5_0 H6_1; do
	[[ $(SIM_HOST=$h diag "$CLIENT" join) == "status 0x0000 mlid 0xc000" ]] || fail "$h join: $(cat "$WORK/diag.err")"
done
members=$(sa MCMR | awk -F. '$1 ~ /PortGid$/ && $NF != "::" { print $NF }' | sort | tr '\n' ' ')
[[ $members == "fe80::10:29 fe80::10:33 " ]] || fail "MCMemberRecords: '$members'"
tree=$(mft_switches)
[[ $tree == "L5 L6 S0 " ]] || fail "MFTs of 0xc000 on '$tree', expected the two leaves and the root spine"
grep -q 'mcast: trees and routes acyclic on VL 0' "$WORK/fabricd.log" || fail "no deadlock proof of the trees"
[[ $(SIM_HOST=H5_0 diag "$CLIENT" leave) == "status 0x0000 mlid 0xc000" ]] || fail "H5_0 leave"
tree=$(mft_switches)
[[ $tree == "L6 S0 " ]] || fail "after H5_0 left, MFTs of 0xc000 on '$tree'"
note "multicast: joins of H5_0, H6_1 listed (MCMR); MFTs on L5 L6 S0, proven with the unicast routes; after a leave L6 S0"

rc=0; SIM_HOST=H5_0 LD_PRELOAD=$UMAD2SIM saquery NR >"$WORK/out" 2>&1 || rc=$?
grep -q 'SA_ERR_NO_RESOURCES' "$WORK/out" || fail "a 44-record table: $(head -2 "$WORK/out")"
rc=0; SIM_HOST=H5_0 LD_PRELOAD=$UMAD2SIM saquery GIR >"$WORK/out" 2>&1 || rc=$?
grep -q "0x000c" "$WORK/out" || fail "GUIDInfoRecord: $(head -2 "$WORK/out")"
rc=0; SIM_HOST=H5_0 LD_PRELOAD=$UMAD2SIM saquery -p --slid "$H" --dlid 999 >"$WORK/out" 2>&1 || rc=$?
grep -q 'SA_ERR_REQ_INVALID' "$WORK/out" || fail "PathRecord to LID 999: $(head -2 "$WORK/out")"
kill -0 "$FD_PID" || fail "fabricd died"
note "whole table: no resources (no RMPP yet); GUIDInfoRecord: unsupported; unknown LID: request invalid; fabricd alive"
fd_stop
echo "PASS: SA records"
