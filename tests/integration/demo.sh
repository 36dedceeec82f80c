#!/usr/bin/env bash
# demo.sh BUILD NETFILE WORK: the README's main job, inside unshare -n.
# ibsim simulates NETFILE, fabricd brings it to SUBNET UP, infiniband-diags
# confirm it, fabricctl shows it; a link of a host-to-host route fails and
# comes back, and fabricd repairs both; fabricctl audit reads every table
# back; then everything is stopped.
set -euo pipefail
BUILD=$1 NET=$2 WORK=$3
KEEP_WORK=1	# its database is the demo's to look at afterwards
# attach fabricd at host H0_0 when the fabric has one (generated fat trees),
# else where ibsim puts it: the first node of the file
if [[ -z ${SIM_HOST:-} ]] && grep -q '"H0_0"' "$NET"; then export SIM_HOST=H0_0; fi
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

sim_start "$NET"
fd_start
fd_wait_up 120
echo "== fabricd log"
cat "$WORK/fabricd.log"
echo "== sminfo (infiniband-diags)"
diag sminfo
echo "== fabricctl status"
"$FABRICCTL" -d "$DB" -S "$SOCK" status
echo "== fabricctl topology"
"$FABRICCTL" -d "$DB" -S "$SOCK" topology
first=$("$FABRICCTL" -d "$DB" -S "$SOCK" topology | awk 'NR == 4 {print $NF}')
echo "== fabricctl node $first"
"$FABRICCTL" -d "$DB" -S "$SOCK" node "$first"
echo "== fabricctl diff $NET"
"$FABRICCTL" -d "$DB" -S "$SOCK" diff "$NET"
echo "== fabricctl check"
"$FABRICCTL" -d "$DB" -S "$SOCK" check
echo "== fabricctl quality (link load under shift and random permutations)"
"$FABRICCTL" -d "$DB" quality --random 20
echo "== ibtracert first host -> last host (infiniband-diags), and fabricctl route"
mapfile -t cas < <(diag ibnetdiscover -p | awk '$1 == "CA" {print $2}' | sort -n)
trace=$(diag ibtracert "${cas[0]}" "${cas[-1]}")
echo "$trace"
"$FABRICCTL" -d "$DB" -S "$SOCK" route "${cas[0]}" "${cas[-1]}"

# A link fails: the first link up that route takes, out of the first
# host's switch. Both ends trap; fabricd repairs (reads those switches,
# mends the broken routes, proves the transition, writes what changed)
# and says how long after the trap the switches held the new tables.
leaf=$(awk 'NR == 2 {match($0, /"[^"]*"$/); print substr($0, RSTART + 1, RLENGTH - 2)}' <<<"$trace")
port=$(awk 'NR == 3 && /^\[[0-9]+\] -> switch/ {print substr($1, 2, length($1) - 2)}' <<<"$trace")
if [[ -n $leaf && -n $port ]]; then
	for cmd in "Unlink \"$leaf\"[$port]" "ReLink \"$leaf\"[$port]"; do
		echo "== ibsim: $cmd"
		seen=$(wc -l <"$WORK/fabricd.log")
		n=$(ups)
		sim_cmd "$cmd"
		fd_wait_ups $((n + 1))
		sleep 0.5	# a repair that follows (a late trap) logs meanwhile
		tail -n +$((seen + 1)) "$WORK/fabricd.log" |
			grep -E 'trap: trap 128|repair of|sweep: (discover|route|program) |transition:|change: link|hold the new tables|SUBNET UP'
		"$FABRICCTL" -d "$DB" -S "$SOCK" route "${cas[0]}" "${cas[-1]}"
	done
	echo "== fabricctl status (reactions: trap to tables in place), fabricctl events"
	"$FABRICCTL" -d "$DB" -S "$SOCK" status | grep -E '^(subnet|reactions|last sweep):'
	"$FABRICCTL" -d "$DB" -S "$SOCK" events | tail -8
fi
echo "== fabricctl audit (every LFT block and every P_Key, SL-to-VL and VL arbitration table read back)"
"$FABRICCTL" -d "$DB" -S "$SOCK" audit || echo "(fabricctl audit exit $?)"
fd_stop
echo "== done: database kept in $DB"
