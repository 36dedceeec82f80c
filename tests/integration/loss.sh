#!/usr/bin/env bash
# loss.sh BUILD NETFILE
#
# With ibsim dropping 5% of the SMPs at every switch port, fabricd still
# brings the fabric up, from scratch, with the same LIDs and the same
# forwarding tables as without loss (judged by ibnetdiscover and dump_fts),
# resending what was lost, and without false "duplicate GUID" warnings
# (both ends of a link probed at once, one answer late). Run it under
# unshare -n.
set -euo pipefail
BUILD=$1 NET=$2
WORK=$(mktemp -d /tmp/fabricd-loss.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/checks.sh"
export SIM_HOST=H0_0

# snapshot DIR: LIDs and forwarding tables as the diags see them.
snapshot() {
	lid_snapshot "$1.lids"
	diag dump_fts >"$1.fts" || fail "dump_fts failed"
}

sim_start "$NET"
fd_once -d "$WORK/clean.db" || fail "the lossless run failed"
snapshot "$WORK/clean"
sim_stop

sim_start "$NET"
for sw in $(awk '$1 == "Switch" {gsub(/"/, "", $3); print $3}' "$NET"); do
	sim_cmd "Error \"$sw\" 5"
done
printf 'mad: { retries: 8, timeout_ms: 50 }\n' >"$WORK/patient.yaml"
fd_once -c "$WORK/patient.yaml" -d "$WORK/lossy.db" || fail "the run with 5% loss failed: $(tail -3 "$WORK/fabricd.log")"
retried=$(grep "SUBNET UP" "$WORK/fabricd.log" | tail -1 | grep -o '([0-9]* retried)' | tr -dc 0-9)
(( retried > 0 )) || fail "no SMP was retried: the loss did not happen"
dups=$(grep -c 'duplicate GUID 0x' "$WORK/fabricd.log" || true)
((dups == 0)) || fail "$dups false duplicate-GUID warnings under loss: $(grep -m1 'duplicate GUID 0x' "$WORK/fabricd.log")"
for sw in $(awk '$1 == "Switch" {gsub(/"/, "", $3); print $3}' "$NET"); do
	sim_cmd "Error \"$sw\" 0"
done
snapshot "$WORK/lossy"
diff -u "$WORK/clean.lids" "$WORK/lossy.lids" || fail "LIDs differ with loss"
diff -u "$WORK/clean.fts" "$WORK/lossy.fts" >/dev/null || fail "forwarding tables differ with loss"
note "5% SMP loss: up after $retried resends, same $(wc -l <"$WORK/clean.lids") LIDs, same tables"
rm -rf "$WORK"
echo PASS
