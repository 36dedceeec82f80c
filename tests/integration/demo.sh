#!/usr/bin/env bash
# demo.sh BUILD NETFILE WORK: the README's main job, inside unshare -n.
# ibsim simulates NETFILE, fabricd brings it to SUBNET UP, infiniband-diags
# confirm it, fabricctl shows it; then everything is stopped.
set -euo pipefail
BUILD=$1 NET=$2 WORK=$3
export SIM_HOST=${SIM_HOST:-H0_0}
here=$(dirname "$0")
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
echo "== fabricctl node L0"
"$FABRICCTL" -d "$DB" -S "$SOCK" node L0
echo "== fabricctl diff $NET"
"$FABRICCTL" -d "$DB" -S "$SOCK" diff "$NET"
echo "== ibtracert H0_0 -> last host (infiniband-diags)"
last=$(diag ibnetdiscover -p | awk '$1 == "CA" {print $2}' | sort -n | tail -1)
diag ibtracert "$("$FABRICCTL" -d "$DB" -S "$SOCK" --json node H0_0 | grep -o '"lid": [0-9]*' | cut -d' ' -f2)" "$last"
fd_stop
echo "== done: database kept in $DB"
