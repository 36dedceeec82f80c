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
# whole tables go out by RMPP and match the fabric: every NodeRecord
# (ibnetdiscover), LinkRecord (ibnetdiscover), LFTRecord (dump_fts) and
# PortInfoRecord, saquery -m names the members, and with 10 % of packets
# to the client lost the tables still arrive whole (fabricd
# sends windows again); a MultiPathRecord (GetMulti) gives the PathRecord
# of every source and destination pair, as PathRecord queries do; an
# unsupported or malformed query gets its status, never a crash.
# A request with a wrong SM_Key goes unanswered (saquery times out).
# PathRecords are checked in ring.sh (SL) and partitions.sh (isolation).
# saquery runs with the RMPP receiver a host's kernel would be
# ($SA_PRELOAD, tests/tools/rmpp_shim.c). Run it under unshare -n.
set -euo pipefail
BUILD=$1 NET=$2
WORK=$(mktemp -d /tmp/fabricd-sa.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

export SIM_HOST=H0_0	# fabricd's port; saquery asks from H5_0
sim_start "$NET"
printf 'sm_key: 1\n' >"$WORK/fabricd.yaml"	# OpenSM's default: osmtest and saquery --smkey 1 are trusted
FD_PRELOAD=$SA_PRELOAD fd_start -l debug -c "$WORK/fabricd.yaml"
fd_wait_up 30
lid_of() { "$FABRICCTL" -d "$DB" --json node "$1" | grep -o '"lid": [0-9]*' | head -1 | cut -d' ' -f2; }
sa() { SIM_HOST=H5_0 DIAG_PRELOAD=$SA_PRELOAD diag saquery "$@" || fail "saquery $*: $(cat "$WORK/diag.err")"; }
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
rc=0; SIM_HOST=H5_0 refused "$CLIENT" get 0x1000 || rc=$?
out=$(grep -v '^ibwarn' "$WORK/out" || true)
[[ $rc == 1 && $out == "status 0x0300" ]] || fail "a deleted ServiceRecord still answers: rc $rc, '$out'"
note "ServiceRecord: set from H5_0, listed by saquery -S, found by ID, deleted (then NO_RECORDS)"

# H5_0 subscribes to trap 128; a link goes down; the SA reports the switch's trap to it
SIM_HOST=H5_0 LD_PRELOAD=$UMAD2SIM "$CLIENT" subscribe 128 10 >"$WORK/report" 2>&1 &
sub=$!
for _ in $(seq 50); do grep -q '^status 0x0000' "$WORK/report" && break; sleep 0.1; done
grep -q '^status 0x0000' "$WORK/report" || fail "InformInfo: $(cat "$WORK/report")"
# the subscription is listed: InformInfoRecord of H5_0's port GID, trap 128
g=$(( $(SIM_HOST=H5_0 diag smpquery nodeinfo "$(lid_of H5_0)" | sed -n 's/^PortGuid[:.]*//p') ))
h5gid=fe80::$(printf '%x:%x' $(( (g >> 16) & 0xffff )) $(( g & 0xffff )))	# ibsim's GUIDs fit in 32 bits
out=$(sa IIR)
[[ $(grep -c 'InformInfoRecord dump' <<<"$out") == 1 && $(field trap_num <<<"$out") == 128 &&
	$(field SubscriberGID <<<"$out") == "$h5gid" ]] || fail "InformInfoRecords (H5_0 is $h5gid): $out"
sim_cmd 'Unlink "L3"[6]'
wait "$sub" || fail "no Report of trap 128: $(cat "$WORK/report")"
grep -q '^report trap 128$' "$WORK/report" || fail "Report: $(cat "$WORK/report")"
note "InformInfo: H5_0 subscribed to trap 128 (listed as its InformInfoRecord); Unlink L3[6]: the SA reported the trap to it"

# multicast: H5_0 and H6_1 join the IPoIB broadcast group; the members show, and the MFTs carry
# the tree (their leaves and the root spine); H5_0 leaves, and H6_1 alone needs no tree
# mft_switches: the switches whose MFT has MLID 0xc000, as dump_mfts reads them
mft_switches() {
	SIM_HOST=H2_0 diag dump_mfts | awk '/^Multicast mlids/ { sw = $NF } /^0xc000/ { print sw }' | tr -d '():' | sort | tr '\n' ' '
}
for h in H5_0 H6_1; do
	[[ $(SIM_HOST=$h diag "$CLIENT" join) == "status 0x0000 mlid 0xc000" ]] || fail "$h join: $(cat "$WORK/diag.err")"
done
members=$(sa --smkey 1 MCMR | awk -F. '$1 ~ /PortGid$/ && $NF != "::" { print $NF }' | sort | tr '\n' ' ')
[[ $members == "fe80::10:29 fe80::10:33 " ]] || fail "MCMemberRecords: '$members'"
tree=$(mft_switches)
[[ $tree == "L5 L6 S0 " ]] || fail "MFTs of 0xc000 on '$tree', expected the two leaves and the root spine"
grep -q 'mcast: the trees of [0-9]* groups\? and the routes on VL 0 acyclic' "$WORK/fabricd.log" || fail "no deadlock proof of the trees"
# MulticastForwardingTableRecords name the same switches, with a port of MLID 0xc000 set
out=$(sa MFTR)
mftr=$(awk '/LID\.+/ { sub(/.*\./, ""); lid = $0 } $1 == "0xc000" && $2 !~ /^0x0*$/ { print lid }' <<<"$out" | sort -n | uniq | tr '\n' ' ')
want_lids=$(for s in L5 L6 S0; do lid_of "$s"; done | sort -n | tr '\n' ' ')
[[ $mftr == "$want_lids" ]] || fail "MFTRecords set MLID 0xc000 on LIDs '$mftr', dump_mfts on $tree ($want_lids): $(head -20 <<<"$out")"
[[ $(SIM_HOST=H5_0 diag "$CLIENT" leave) == "status 0x0000 mlid 0xc000" ]] || fail "H5_0 leave"
tree=$(mft_switches)
[[ -z $tree ]] || fail "after H5_0 left, H6_1 alone: MFTs of 0xc000 still on '$tree'"
note "multicast: joins of H5_0, H6_1 listed (MCMR); MFTs on L5 L6 S0 (dump_mfts and MFTRecords), proven with the unicast routes; after a leave, one member alone: none"

[[ $(sa --smkey 1 -m | awk -F. '$1 ~ /NodeDescription$/ { print $NF }' | sort | tr '\n' ' ') == "H6_1 " ]] ||
	fail "saquery --smkey 1 -m does not name the member H6_1: $(sa --smkey 1 -m)"
out=$(sa -m)
[[ $(grep -c '^MCMemberRecord' <<<"$out") == 1 && $(field PortGid <<<"$out") == "::" ]] ||
	fail "saquery -m without the SM_Key lists members, not the one group: $out"
note "saquery -m: with the SM_Key every member is named (its NodeRecord looked up by saquery); without it, one record per group, as OpenSM answers"

# a fresh simulator: ibsim has ten client slots and keeps the one of every
# sa-client run so far (it must leave without umad2sim's exit handler);
# a ServiceRecord registered before fabricd restarts is answered after it
SIM_HOST=H5_0 diag "$CLIENT" set 0x1001 kept-service 60 >/dev/null || fail "ServiceRecord set: $(cat "$WORK/diag.err")"
fd_stop
sim_stop
sim_start "$NET"
FD_PRELOAD=$SA_PRELOAD fd_start -l debug -c "$WORK/fabricd.yaml"
fd_wait_up 30
sa -S | grep -q 'ServiceName.*kept-service' || fail "a ServiceRecord did not outlive the restart: $(sa -S)"
grep -q "sa: 1 ServiceRecords registered before the restart" "$WORK/fabricd.log" || fail "no ServiceRecord read back"
note "a ServiceRecord registered before a restart is answered after it"

# whole tables, by RMPP, against what the fabric's own tools see
diag ibnetdiscover -p >"$WORK/ibnd" || fail "ibnetdiscover failed"
# dump FIELD...: one line per record of a saquery dump, the FIELDs' values (the last one ends a record)
dump() {
	awk -F. -v want="$*" 'BEGIN { n = split(want, f, " ") }
		{ sub(/^[ \t]+/, "", $1) } { for (i = 1; i <= n; i++) if ($1 == f[i]) v[i] = $NF }
		$1 == f[n] { line = v[1]; for (i = 2; i <= n; i++) line = line " " v[i]; print line }' | sort
}
sa NR | dump lid port_guid >"$WORK/nr"
awk '$1 == "CA" || $1 == "SW" { print $2, $4 }' "$WORK/ibnd" | sort -u >"$WORK/nr.want"
diff "$WORK/nr.want" "$WORK/nr" >/dev/null || fail "NodeRecords (LID, port GUID) differ from ibnetdiscover: $(diff "$WORK/nr.want" "$WORK/nr" | head -4)"
sa LR | dump FromLID FromPort ToPort ToLID | awk '{ print $1, $2, $4, $3 }' | sort >"$WORK/lr"
awk '$7 == "-" { print $2, $3, $9, $10; print $9, $10, $2, $3 }' "$WORK/ibnd" | sort -u >"$WORK/lr.want"
diff "$WORK/lr.want" "$WORK/lr" >/dev/null || fail "LinkRecords differ from ibnetdiscover: $(diff "$WORK/lr.want" "$WORK/lr" | head -4)"
sa PIR | dump EndPortLid PortNum LinkState: | awk '$3 == "Active" { print $1, $2 }' >"$WORK/pir"
cut -d' ' -f1,2 "$WORK/lr" | sort -u | comm -23 - "$WORK/pir" | grep -q . && fail "PortInfoRecords: linked ports not Active"
nrec=$(sa PIR | grep -c '^PortInfoRecord dump')
nsw=$(awk '$1 == "SW" { print $2 }' "$WORK/ibnd" | sort -u | wc -l)
(( nrec == nsw * 9 + $(grep -c '^CA' "$WORK/ibnd") )) ||
	fail "$nrec PortInfoRecords: expected one per port of every switch (0-8, the fabric's are 8-port) and CA"
SIM_HOST=H5_0 diag dump_fts >"$WORK/fts" || fail "dump_fts failed"
sa LFTR | awk '/^[ \t]+LID\./ { n = split($1, f, "."); sw = f[n] }
	/^[ \t]+[0-9]+[ \t]+[0-9]+$/ && $2 != 255 { printf "%s 0x%04x %03d\n", sw, $1, $2 }' | sort >"$WORK/lftr"
awk 'NR == FNR { if ($1 == "SW") lid[$4] = $2; next }
	/^Unicast lids/ { for (i = 1; i < NF; i++) if ($i == "guid") sw = lid[$(i + 1)] }
	/^0x/ { print sw, $1, $2 }' "$WORK/ibnd" "$WORK/fts" | sort >"$WORK/lftr.want"
diff "$WORK/lftr.want" "$WORK/lftr" >/dev/null || fail "LFTRecords differ from dump_fts: $(diff "$WORK/lftr.want" "$WORK/lftr" | head -4)"
note "whole tables by RMPP: $(wc -l <"$WORK/nr") NodeRecords, $(wc -l <"$WORK/lr") LinkRecords (ibnetdiscover), $nrec PortInfoRecords, $(wc -l <"$WORK/lftr") LFT entries (dump_fts)"

# lossy: 10 % of the packets into H5_0's port are dropped; the answers still arrive whole
sa NR >"$WORK/nr.lossless"
sim_cmd 'Error "H5_0"[1] 10'
for try in 1 2 3; do
	# umad2sim's exit handler can hang when a MAD arrives as the tool exits
	# (a window sent again after the answer was whole): the tool is ended,
	# and asked again
	for _ in 1 2 3; do
		SIM_HOST=H5_0 DIAG_PRELOAD=$SA_PRELOAD diag timeout 20 saquery NR >"$WORK/nr.lossy" && break
	done
	cmp -s "$WORK/nr.lossless" "$WORK/nr.lossy" || fail "NodeRecords with 10 % loss differ (try $try)"
done
sim_cmd 'Error "H5_0"[1] 0'
again=$(grep -c 'RMPP answer to LID .* again' "$WORK/fabricd.log" || true)
(( again > 0 )) || fail "no RMPP window was sent again under 10 % loss"
note "10 % loss into H5_0: three NodeRecord tables arrive whole; fabricd sent $again windows again"

# MultiPathRecord: sources H1_0, H1_1, destinations H2_0, H2_1, H2_2, by port GUID
ca() { awk -v n="'$1'" '$1 == "CA" && $13 == n { print $2, $4 }' "$WORK/ibnd"; }
mp_client() { SIM_HOST=H5_0 DIAG_PRELOAD=$SA_PRELOAD diag "$CLIENT" multipath "$@"; }
read -r s0 g0 < <(ca H1_0); read -r s1 g1 < <(ca H1_1)
want="status 0x0000 paths 6"
for s in $s0 $s1; do
	for h in H2_0 H2_1 H2_2; do
		read -r d _ < <(ca "$h")
		want+=$'\n'"$s $d $(( $(sa -p --slid "$s" --dlid "$d" | field sl) ))"
	done
done
got=$(mp_client "$g0,$g1" "$(ca H2_0 | cut -d' ' -f2),$(ca H2_1 | cut -d' ' -f2),$(ca H2_2 | cut -d' ' -f2)") ||
	fail "MultiPathRecord: $got $(cat "$WORK/diag.err")"
[[ $got == "$want" ]] || fail "MultiPathRecord answered '$got', PathRecords say '$want'"
got=$(mp_client "$g0,$g1" "$(ca H2_0 | cut -d' ' -f2),$(ca H2_1 | cut -d' ' -f2)" 3) || fail "MultiPathRecord: $got"
[[ $(head -1 <<<"$got") == "status 0x0000 paths 3" ]] || fail "MultiPathRecord NumbPath 3 did not stop at 3 paths: $got"
rc=0; out=$(mp_client "$g0" 0x999) || rc=$?
[[ $rc == 1 && $out == "status 0x0500 paths 0" ]] || fail "MultiPathRecord to an unknown GUID: rc $rc, '$out' $(cat "$WORK/diag.err")"
# 8 x 8 GIDs do not fit one MAD: the request goes in two RMPP segments, each acknowledged
guids() { for h in "$@"; do ca "$h" | cut -d' ' -f2; done | paste -sd,; }
src=$(guids H1_0 H1_1 H1_2 H1_3 H3_0 H3_1 H3_2 H3_3) dst=$(guids H2_0 H2_1 H2_2 H2_3 H4_0 H4_1 H4_2 H4_3)
got=$(mp_client "$src" "$dst") || fail "MultiPathRecord of 16 GIDs: $got $(cat "$WORK/diag.err")"
[[ $(head -1 <<<"$got") == "status 0x0000 paths 64" && $(tail -n +2 <<<"$got" | cut -d' ' -f1,2 | sort -u | wc -l) == 64 ]] ||
	fail "MultiPathRecord of 16 GIDs (two segments): $(head -3 <<<"$got")"
note "MultiPathRecord (GetMulti): 2 x 3 GIDs give the 6 PathRecords (SLs as PathRecord queries), NumbPath 3 stops at 3, unknown GID: invalid GID; 8 x 8 GIDs, a request of two RMPP segments: 64 PathRecords"
# PathRecord selectors, which saquery cannot send: bounds fit or rule out the path
pc() { SIM_HOST=H5_0 DIAG_PRELOAD=$SA_PRELOAD diag "$CLIENT" path "$@"; }
read -r d _ < <(ca H2_0)
base=$(pc "$s0" "$d") || fail "PathRecord by sa-client: $base $(cat "$WORK/diag.err")"
read -r _ _ _ mtu _ rate _ life _ sl _ <<<"$base"
[[ $mtu == $(( $(sa -p --slid "$s0" --dlid "$d" | field mtu) & 0x3f )) ]] || fail "sa-client's PathRecord '$base' is not saquery's"
got=$(pc "$s0" "$d" "mtu=1:$mtu" tclass=40) || fail "MTU less than $mtu: $got"
[[ $got == "status 0x0000 mtu $((mtu - 1)) rate $rate life $life sl $sl tclass 40" ]] || fail "MTU less than $mtu: $got"
rc=0; got=$(pc "$s0" "$d" "mtu=0:$mtu") || rc=$?
[[ $rc == 1 && $got == "status 0x0300" ]] || fail "MTU greater than the path's $mtu: rc $rc, $got"
got=$(pc "$s0" "$d" rate=2:2 "life=1:$life") || fail "rate exactly 2.5 Gb/s: $got"
[[ $got == "status 0x0000 mtu $mtu rate 2 life $((life - 1)) sl $sl tclass 0" ]] || fail "rate exactly 2.5 Gb/s, life below $life: $got"
rc=0; got=$(pc "$s0" "$d" "sl=$(( (sl + 1) % 16 ))") || rc=$?
[[ $rc == 1 && $got == "status 0x0300" ]] || fail "another SL than the routing's $sl: rc $rc, $got"
note "PathRecord selectors: $base; MTU < $mtu gives $((mtu - 1)), > $mtu no record, rate = 2.5 Gb/s and life < $life fit, SL $(( (sl + 1) % 16 )) no record"
# a PathRecord to the IPoIB broadcast group (what IPoIB asks before it sends to it): its MLID
out=$(sa -p --slid "$s0" --dgid ff12:401b:ffff::ffff:ffff)
[[ $(( $(field dlid <<<"$out") )) == $((0xc000)) && $(( $(field slid <<<"$out") )) == $((s0)) ]] ||
	fail "PathRecord from LID $s0 to the broadcast group: $(head -12 <<<"$out")"
note "PathRecord from LID $s0 to ff12:401b:ffff::ffff:ffff: DLID the group's MLID 0xc000, MTU $(field mtu <<<"$out")"
rc=0; SIM_HOST=H5_0 refused saquery -p --slid "$H" --dlid 999 || rc=$?
grep -q 'SA_ERR_REQ_INVALID' "$WORK/out" || fail "PathRecord to LID 999: $(head -2 "$WORK/out")"
kill -0 "$FD_PID" || fail "fabricd died"
note "unknown LID: request invalid; fabricd alive"

# GUIDInfoRecords: every block of each end port's GUIDCap, its GUID first; P_KeyTableRecords: what smpquery pkeys reads
ends=$(diag ibnetdiscover -p | awk '$1 == "CA" || ($1 == "SW" && $2 != prev) {prev = $2; print $2}' | sort -un | wc -l)
gir=$(sa GIR | grep -c '^[[:space:]]*Block\.*0$' || true)
((gir == ends)) || fail "saquery GIR: $gir block-0 records for $ends end ports"
cap=$(diag smpquery portinfo "$H" 1 | awk -F. '/^GuidCap/ {print $NF}')
blocks=$(sa GIR "$H" | grep -c '^[[:space:]]*Block' || true)
((cap > 0 && blocks == (cap + 7) / 8)) || fail "saquery GIR $H: $blocks blocks for GUIDCap $cap"
sa GIR "$H" | awk -F. '/GUID 0/ {print $NF}' | grep -qx "$(ca H1_0 | cut -d' ' -f2)" ||
	fail "GUIDInfoRecord of LID $H: $(sa GIR "$H" | head -5)"
want=$(diag smpquery pkeys "$H" | head -1 | sed 's/^ *0: //')
rc=0; SIM_HOST=H5_0 refused saquery PKTR "$H" || rc=$?	# without the SM_Key
grep -q 'SA_ERR_REQ_INVALID' "$WORK/out" || fail "P_KeyTableRecord without the SM_Key: $(head -2 "$WORK/out")"
got=$(sa --smkey 1 PKTR "$H" | awk '/PKey Table:/ {getline; print; exit}' | sed 's/^[[:space:]]*//')
[[ -n $got && $got == "$want" ]] || fail "P_KeyTableRecord of LID $H: '$got', smpquery pkeys: '$want'"
# C15-0.1.5: a wrong SM_Key gets no answer at all; the kernel's send timeout (the shim's) ends the query
start=$(date +%s%N)
rc=0; SIM_HOST=H5_0 LD_PRELOAD=$SA_PRELOAD saquery --smkey 2 -t 300 PKTR "$H" >"$WORK/out" 2>&1 || rc=$?
((rc != 0)) && grep -q 'timed out' "$WORK/out" || fail "P_KeyTableRecord with a wrong SM_Key was answered: $(head -2 "$WORK/out")"
grep -q 'wrong SM_Key: dropped' "$WORK/fabricd.log" || fail "the request with a wrong SM_Key is not in the log"
note "a wrong SM_Key is dropped unanswered: saquery timed out after $(( ($(date +%s%N) - start) / 1000000 )) ms"
# the switch port facing H1_0 holds the same table (partition enforcement)
read -r swlid swport < <(awk '$1 == "CA" && $13 == "'"'H1_0'"'" { print $9, $10 }' "$WORK/ibnd")
want=$(diag smpquery pkeys "$swlid" "$swport" | head -1 | sed 's/^ *0: //')
got=$(sa --smkey 1 PKTR "$swlid/$swport" | awk '/PKey Table:/ {getline; print; exit}' | sed 's/^[[:space:]]*//')
[[ -n $got && $got == "$want" ]] || fail "P_KeyTableRecord of switch LID $swlid port $swport: '$got', smpquery pkeys: '$want'"
note "GUIDInfoRecords for all $gir end ports; P_KeyTableRecords only with the SM_Key (refused without), of LID $H and of its switch's port (LID $swlid port $swport) as smpquery pkeys reads them ($(cut -d' ' -f1-2 <<<"$got"))"
# SLtoVLMappingTableRecord and VLArbitrationTableRecord: what smpquery reads from the ports
out=$(diag smpquery sl2vl "$L0" 5)
want=$(awk -F: '/in  1, out  5/ {print $NF}' <<<"$out" | tr -d ' |')
out=$(sa SL2VL "$L0")	# whole first: awk leaves early, and saquery must not meet a closed pipe
# the VL row of the record (in, out): saquery prints LID, InPort, OutPort, then the SL and VL rows
slvl_row() { awk -v in_port="$1" -v out_port="$2" '/InPort\./ {i = $0; sub(/.*\./, "", i)} /OutPort\./ {o = $0; sub(/.*\./, "", o)}
	/VL:/ && i == in_port && o == out_port {sub(/.*VL:/, ""); gsub(/[ |]/, ""); print; exit}' <<<"$3"; }
got=$(slvl_row 1 5 "$out")
[[ -n $want && $got == "$want" ]] || fail "SL2VL record of L0 in 1 out 5: '$got', smpquery sl2vl: '$want'"
# from port 0 (the switch's own answers) every SL leaves on VL 0, in the switch and in the record
own=$(diag smpquery sl2vl "$L0" 5 | awk -F: '/in  0, out  5/ {print $NF}' | tr -d ' |')
got0=$(slvl_row 0 5 "$out")
[[ $own == 0000000000000000 && $got0 == "$own" ]] || fail "SL2VL of L0 in 0 out 5: record '$got0', smpquery '$own'"
out=$(sa VLAR "$H")
vlarb=$(awk '/Block\.+1$/ {b = 1} b && /VL +:/ {gsub(/[^0-9]+/, " "); print; exit}' <<<"$out")
[[ -n $vlarb ]] || fail "no VLArbitrationTableRecord for LID $H: $(head -4 <<<"$out")"
note "SL2VL record of L0 (in 1, out 5) as smpquery sl2vl reads it ($got); VLArbitrationTableRecord of LID $H block 1: VLs$vlarb"

# PathRecord GetTables naming one end (osmtest's half world) or none (what
# saquery -p sends): every path from the port (to itself too: loopback), and every pair, by RMPP
out=$(sa -p --slid "$H")
from=$(grep -c '^PathRecord dump' <<<"$out" || true)
((from == ends)) || fail "saquery -p --slid $H: $from paths, expected $ends"
all=$(sa -p | grep -c '^PathRecord dump' || true)
((all == ends * ends)) || fail "saquery -p: $all paths, expected $((ends * ends))"
[[ $(awk -F. '$1 ~ /^[ \t]*slid$/ {print $NF}' <<<"$out" | sort -u) == "$H" ]] || fail "the half-world paths do not all start at $H"
note "PathRecord GetTables: from LID $H to every port ($from paths), and every pair ($all), by RMPP"
fd_stop
echo "PASS: SA records"
