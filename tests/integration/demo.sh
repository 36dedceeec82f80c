#!/usr/bin/env bash
# demo.sh BUILD NETFILE WORK: the README's main job, inside unshare -n.
# ibsim simulates NETFILE, fabricd brings it to SUBNET UP, infiniband-diags
# confirm it, fabricctl shows it; then everything is stopped.
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
diag ibtracert "${cas[0]}" "${cas[-1]}"
"$FABRICCTL" -d "$DB" -S "$SOCK" route "${cas[0]}" "${cas[-1]}"
fd_stop
echo "== done: database kept in $DB"
