#!/usr/bin/env bash
# sa_compare.sh BUILD NETFILE (the bundled 2-level r8 tree)
#
# saquery, unmodified, asks fabricd and then OpenSM the same questions on
# the same simulated fabric, from host H5_0 behind what a host kernel gives
# SA clients (tests/tools/rmpp_shim.c): every query name saquery knows and
# every option the field uses, after the same ServiceRecord registration,
# multicast joins and trap subscription by sa-client. OpenSM keeps the LIDs fabricd gave, so
# the fabric's state is the same; both SMs run on H0_0 with SM_Key 1.
#
# Each answer is compared field by field as a set of records (the SMs list
# them in different orders). Where the two differ by design, the field is
# set aside, each for the reason given at by_design below; every other
# field of every record must be equal. Run it under unshare -n.
set -euo pipefail
BUILD=$1 NET=$2
WORK=$(mktemp -d /tmp/fabricd-sacompare.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
CLIENT="$BUILD/tests/sa-client"
export SIM_HOST=H0_0

sim_start "$NET"
printf 'sm_key: 1\n' >"$WORK/fabricd.yaml"
FD_PRELOAD=$SA_PRELOAD fd_start -c "$WORK/fabricd.yaml"
fd_wait_up 30

# the names the queries use, read once from fabricd's store
node_json() { "$FABRICCTL" -d "$DB" --json node "$1"; }
lid_of() { node_json "$1" | grep -o '"lid": [0-9]*' | head -1 | cut -d' ' -f2; }
H1=$(lid_of H1_0) H2=$(lid_of H2_1) SW=$(lid_of L0)
port_guid() { SIM_HOST=H5_0 DIAG_PRELOAD=$SA_PRELOAD diag saquery NR "$1" | awk -F. '/port_guid/ {print $NF}'; }
G1=$(port_guid "$H1") G2=$(port_guid "$H2")
[[ -n $H1 && -n $H2 && -n $SW && -n $G1 && -n $G2 ]] || fail "names: H1_0 $H1 $G1, H2_1 $H2 $G2, L0 $SW"
gid() { printf 'fe80::%x:%x:%x:%x' $(($1 >> 48 & 0xffff)) $(($1 >> 32 & 0xffff)) $(($1 >> 16 & 0xffff)) $(($1 & 0xffff)); }
GID1=$(gid "$G1") GID2=$(gid "$G2")

QUERIES=(
	"-c" "CPI" "NR" "NR $H1" "PIR" "PIR $SW/5" "PIR $H1" "SL2VL" "SL2VL $SW" "--smkey 1 PKTR" "VLAR" "VLAR $SW"
	"IIR" "LR" "LR $SW/1" "SR" "PR $H1 $H2" "MCMR" "--smkey 1 MCMR" "LFTR $SW" "MFTR" "GIR" "GIR $H1" "SWIR"
	"SWIR $SW" "SMIR" "-p $H1 $H2" "-p --slid $H1 --dlid $H2" "-p --sgid $GID1 --dgid $GID2" "-p --slid $H1"
	"--src-to-dst H1_0:H2_1" "--sgid-to-dgid $GID1-$GID2" "-N H1_0" "-L H1_0" "-l H1_0" "-G H1_0" "-O $H1"
	"-U $G1" "-s" "-g" "-m" "--smkey 1 -m" "-x" "-S" "-I" "-D"
)

# ask SM: the same registration and join, then every query, into $WORK/SM/N
ask() {
	mkdir -p "$WORK/$1"
	SIM_HOST=H5_0 DIAG_PRELOAD=$SA_PRELOAD diag "$CLIENT" set 0x10000ce100415453 fabricd-compare 600 >/dev/null ||
		fail "$1: ServiceRecord registration: $(cat "$WORK/diag.err")"
	local h
	for h in H5_0 H5_1; do	# one leaf: the tree both SMs build is that leaf alone
		SIM_HOST=$h DIAG_PRELOAD=$SA_PRELOAD diag "$CLIENT" join >/dev/null || fail "$1: $h join: $(cat "$WORK/diag.err")"
	done
	# a subscription to trap 128 (the client stops waiting for a Report at once)
	SIM_HOST=H5_0 DIAG_PRELOAD=$SA_PRELOAD diag "$CLIENT" subscribe 128 0 >/dev/null || true
	sleep 1	# each SM programs the group's MFTs after it answers the join
	local i
	for i in "${!QUERIES[@]}"; do
		# shellcheck disable=SC2086 # a query is words
		SIM_HOST=H5_0 DIAG_PRELOAD=$SA_PRELOAD diag timeout 20 saquery ${QUERIES[$i]} >"$WORK/$1/$i" ||
			fail "$1: saquery ${QUERIES[$i]}: $(cat "$WORK/diag.err")"
	done
}

# normalize FILE: one line per record (a "... dump:" line at the margin
# starts one; its fields follow, trimmed, joined by " | "), sorted; an
# answer that is no dump (saquery -L, -s, -D ...) sorted line by line
normalize() {
	awk 'function flush() { if (rec != "") print rec; rec = "" }
		/^[^ \t].*dump:$/ { flush(); rec = $0; inrec = 1; next }
		/^[ \t]*$/ { next }
		{ l = $0; gsub(/^[ \t]+|[ \t]+$/, "", l); gsub(/[ \t]+/, " ", l)
		  if (inrec) rec = rec " | " l; else print l }
		END { flush() }' "$1" | sort
}

# by_design SM QUERY: stdin's records less what differs by design, for the
# reason given with each case; every other field must be equal
by_design() {
	case $2 in
	-c | CPI)	# each SA claims its own optional features (OpenSM claims MultiPath
		# with no TraceRecord, MulticastFDBTop, alias GUIDs); unit_sa checks fabricd's claims
		grep -v '^Capability mask' ;;
	PIR*)	# a switch port's LocalPortNum is the port the SM's PortInfo Get came
		# in by: each SM reads over its own directed routes
		sed 's/ | LocalPort:\.*[0-9]*//' ;;
	SMIR)	# ActCount counts the SM's own activity
		sed 's/ActCount\.*[0-9]*/ActCount/' ;;
	SWIR*)	# saquery prints MulticastFDBTop only for an SA that claims it
		sed 's/ | MulticastFDBTop\.*0x[0-9A-Fa-f]*//' ;;
	SL2VL*)	# each SM's own VL policy (it_sa_records checks fabricd's tables
		# against smpquery); OpenSM also answers a switch's input ports to its
		# base port 0, which carries no VL traffic and fabricd neither sets nor reads
		grep -v 'InPort\.*[1-9][0-9]* | OutPort\.*0 ' | sed 's/ | SL:.*//' ;;
	VLAR*)	# each SM's own VL arbitration policy
		sed 's/ | VL :.*//' ;;
	*PKTR)	# OpenSM also answers the tables of switch ports 0 and between
		# switches, which fabricd neither sets nor reads (it enforces partitions
		# at the switch ports facing CAs); and OpenSM writes BlockNum in host
		# byte order (saquery prints it as it comes), fabricd in IBA's
		awk -v sm="$1" -v skip="$SWITCH_PORTS" 'BEGIN { n = split(skip, s, " "); for (i = 1; i <= n; i++) drop[s[i]] = 1 }
			{ match($0, /LID\.*[0-9]+/); lid = substr($0, RSTART, RLENGTH); sub(/LID\.*/, "", lid)
			  match($0, /Port\.*[0-9]+/); port = substr($0, RSTART, RLENGTH); sub(/Port\.*/, "", port)
			  if ((lid "/" port) in drop) next
			  if (sm == "fabricd" && match($0, /Block\.*[0-9]+/)) {
				b = substr($0, RSTART, RLENGTH); sub(/Block\.*/, "", b)
				$0 = substr($0, 1, RSTART - 1) "Block......................" (int(b / 256) + (b % 256) * 256) substr($0, RSTART + RLENGTH)
			  }
			  print }' ;;
	*) cat ;;
	esac
}

ask fabricd
# switch ports 0 and between switches, as LID/port (see PKTR above)
SWITCH_PORTS=$(diag ibnetdiscover -p | awk '$1 == "SW" { print $2 "/0" } $1 == "SW" && $8 == "SW" { print $2 "/" $3 }' |
	sort -u | tr '\n' ' ')
fd_stop
osm_start "$SA_PRELOAD"
ask opensm
stop "$FD_PID"
FD_PID=

records=0
for i in "${!QUERIES[@]}"; do
	q=${QUERIES[$i]}
	normalize "$WORK/fabricd/$i" | by_design fabricd "${q#--smkey 1 }" >"$WORK/fabricd/$i.cmp"
	normalize "$WORK/opensm/$i" | by_design opensm "${q#--smkey 1 }" >"$WORK/opensm/$i.cmp"
	if ! cmp -s "$WORK/fabricd/$i.cmp" "$WORK/opensm/$i.cmp"; then
		diff "$WORK/fabricd/$i.cmp" "$WORK/opensm/$i.cmp" | head -4 | cut -c1-400 >&2
		fail "saquery $q: fabricd's answer (<) is not OpenSM's (>)"
	fi
	records=$((records + $(wc -l <"$WORK/fabricd/$i.cmp")))
done
note "saquery: ${#QUERIES[@]} queries, $records records or lines, field by field the same from fabricd and OpenSM (set aside by design: capability claims, ActCount, a switch's LocalPortNum, VL tables, P_Key tables of switch ports fabricd does not manage)"
echo "PASS: saquery answers compared"
