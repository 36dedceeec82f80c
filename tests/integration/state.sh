#!/usr/bin/env bash
# state.sh BUILD NETFILE (the bundled 2-level r8 tree)
#
# fabricd's local state going wrong gets a clear line and a safe outcome:
# - a database on a read-only filesystem is called read-only (not
#   "corrupt", which could make an operator delete a good file), and left
#   as it was;
# - a database whose tables vanish while fabricd runs (here: DROP TABLE
#   lids) does not stop it rerouting: the sweep after a link failure
#   keeps the ports' LIDs, programs the switches and is published, its
#   store failure logged;
# - a database file replaced while fabricd runs is not written (the old
#   inode is gone), said so, and routing goes on;
# - the history is pruned to its retention (history: sweeps, events) and
#   the database size is reported;
# - fabricctl node 0 names no node (LID 0 is nobody's).
# Run it under unshare -n.
set -euo pipefail
BUILD=$1 NET=$2
WORK=$(mktemp -d /tmp/fabricd-state.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

sim_start "$NET"

# read-only filesystem: a good database on it, and none yet
fd_once || fail "first sweep: $(tail -2 "$WORK/fabricd.log")"
cp "$DB" "$WORK/good.db"
sum=$(md5sum <"$WORK/good.db")
out=$(unshare -m bash -c "
	mkdir -p '$WORK/ro' && mount -t tmpfs tmpfs '$WORK/ro' && cp '$WORK/good.db' '$WORK/ro/' &&
	mount -o remount,ro '$WORK/ro' &&
	{ LD_PRELOAD=$UMAD2SIM '$FABRICD' --once -d '$WORK/ro/good.db' --log-file /dev/null; echo \"rc \$?\";
	  LD_PRELOAD=$UMAD2SIM '$FABRICD' --once -d '$WORK/ro/new.db' --log-file /dev/null; echo \"rc \$?\";
	  md5sum <'$WORK/ro/good.db'; }" 2>&1) || fail "read-only filesystem set-up: $out"
[[ $out == *"good.db: the filesystem is read-only"*"rc 1"*"new.db: the filesystem is read-only"*"rc 1"*"$sum"* ]] ||
	fail "a database on a read-only filesystem: $out"
grep -q corrupt <<<"$out" && fail "a read-only database called corrupt: $out"
note "read-only filesystem: '$(grep -m1 -o 'good.db: the filesystem is read-only[^(]*' <<<"$out")', file untouched"

# tables gone while running: link failures are still routed around
printf 'sweep_interval: 0\ntrap_holddown_ms: 100\nhistory: { sweeps: 3, events: 8 }\n' >"$WORK/fabricd.yaml"
fd_start -c "$WORK/fabricd.yaml"
fd_wait_up 30
sqlite3 "$DB" "DROP TABLE lids" || fail "cannot drop the lids table"
n=$(ups)
sim_cmd 'Unlink "L2"[5]'
fd_wait_ups $((n + 1))
grep -q 'cannot read the stored LIDs (.*no such table: lids.*): the ports keep the LIDs they hold' "$WORK/fabricd.log" ||
	fail "no line about the unreadable LIDs: $(grep -m2 'LIDs' "$WORK/fabricd.log")"
grep -q 'SUBNET UP but cannot store the sweep' "$WORK/fabricd.log" || fail "the failed store is not named"
src=$(SIM_HOST=H5_0 diag ibnetdiscover | grep '"H2_0"' | grep -o 'lid [0-9]*' | head -1 | cut -d' ' -f2)
route=$(SIM_HOST=H2_0 diag ibtracert "$src" 1) ||
	fail "ibtracert after the unlink: $(cat "$WORK/diag.err")"
awk 'prev ~ /"L2"/ && /^\[5\] ->/ {bad = 1} {prev = $0} END {exit !bad}' <<<"$route" &&
	fail "a path still leaves L2 by the dead port 5: $route"
note "lids table dropped while running: Unlink L2[5] swept, programmed and published; $(grep -m1 -o 'SUBNET UP but cannot store the sweep: [^(]*' "$WORK/fabricd.log")"
fd_stop

# replaced while running: not written, said so, routing goes on
rm -f "$DB" "$DB-wal" "$DB-shm"
fd_start -c "$WORK/fabricd.yaml"
fd_wait_up 30
cp "$DB" "$WORK/copy.db"
mv "$WORK/copy.db" "$DB"
before=$("$FABRICCTL" -d "$DB" sweeps | tail -1)
n=$(ups)
sim_cmd 'ReLink "L2"[5]'
fd_wait_ups $((n + 1))
grep -q "fabricd.db was replaced since it was opened: not written (restart fabricd" "$WORK/fabricd.log" ||
	fail "the replaced file is not named: $(grep -m1 'cannot store' "$WORK/fabricd.log")"
[[ $("$FABRICCTL" -d "$DB" sweeps | tail -1) == "$before" ]] || fail "the new file was written to"
note "database replaced while running: $(grep -m1 -o 'fabricd.db was replaced[^(]*' "$WORK/fabricd.log")"
fd_stop

# the history stays within its retention; the size is reported
rm -f "$DB" "$DB-wal" "$DB-shm"
fd_start -c "$WORK/fabricd.yaml"
fd_wait_up 30
for i in 1 2 3 4 5; do
	n=$(ups)
	"$FABRICCTL" -S "$SOCK" resweep >/dev/null
	fd_wait_ups $((n + 1))
done
sweeps=$("$FABRICCTL" -d "$DB" --json sweeps --last 100 | grep -c '"sweep":')
events=$("$FABRICCTL" -d "$DB" --json events | grep -c '"id":')
((sweeps == 3 && events <= 8)) || fail "history kept $sweeps sweeps and $events events, retention 3 and 8"
status=$("$FABRICCTL" -d "$DB" -S "$SOCK" status) || fail "fabricctl status: $status"
grep -Eq '^database: .*fabricd.db, [0-9.]+ [KM]iB, 3 sweeps and [0-9]+ events kept \(retention 3, 8, 90 days\)' <<<"$status" ||
	fail "status does not report the database: $status"
note "6 sweeps with history {sweeps: 3, events: 8}: $sweeps sweeps and $events events kept; $(grep '^database:' <<<"$status")"

rc=0; "$FABRICCTL" -d "$DB" node 0 >/dev/null 2>"$WORK/err" || rc=$?
((rc == 1)) && grep -q "no node '0'" "$WORK/err" || fail "fabricctl node 0: rc $rc, $(cat "$WORK/err")"
note "fabricctl node 0: $(cat "$WORK/err")"
echo "PASS: read-only, vanished and replaced databases; bounded history"
