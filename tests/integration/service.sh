#!/usr/bin/env bash
# service.sh BUILD
#
# fabricd as systemd runs it: with $NOTIFY_SOCKET pointed at a socket this
# test reads (tests/tools/notify_listen) and a watchdog period, it says
# READY=1 once it serves its control socket, STATUS= with the subnet after
# each sweep, WATCHDOG=1 again and again, and STOPPING=1 on SIGTERM. With
# stderr as the journal ($JOURNAL_STREAM) its lines carry "<N>" syslog
# priorities. Its log file, moved away as logrotate does, is reopened on
# SIGUSR1: new lines go to the new file. Run it under unshare -n.
set -euo pipefail
BUILD=$1
WORK=$(mktemp -d /tmp/fabricd-service.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

LISTEN_PID=
listen_stop() { [[ -z $LISTEN_PID ]] || kill "$LISTEN_PID" 2>/dev/null || true; LISTEN_PID=; }
trap 'rc=$?; listen_stop; cleanup "$rc"' EXIT

sim_start "$here/../fabrics/fattree-2l-r8.net"
"$BUILD/tests/notify_listen" "$WORK/notify.sock" >"$WORK/notify.txt" &
LISTEN_PID=$!
for _ in $(seq 50); do [[ -S $WORK/notify.sock ]] && break; sleep 0.1; done

# wait_for PATTERN FILE: up to 10 s for a line matching PATTERN
wait_for() {
	for _ in $(seq 100); do
		grep -Eq -e "$1" "$2" && return 0
		sleep 0.1
	done
	fail "no /$1/ in $2: $(tail -5 "$2")"
}

printf 'sweep_interval: 0\n' >"$WORK/fabricd.yaml"
NOTIFY_SOCKET=$WORK/notify.sock WATCHDOG_USEC=400000 fd_start -c "$WORK/fabricd.yaml"
wait_for '^READY=1 STATUS=' "$WORK/notify.txt"
[[ -S $SOCK ]] || fail "READY=1 came before the control socket"
wait_for '^STATUS=MASTER, subnet up: 44 nodes, max LID [0-9]+; sweep 1 clean$' "$WORK/notify.txt"
sleep 1
dogs=$(grep -c '^WATCHDOG=1$' "$WORK/notify.txt" || true)
((dogs >= 3)) || fail "$dogs WATCHDOG=1 in 1 s with a 400 ms watchdog: $(cat "$WORK/notify.txt")"
note "systemd hears: $(grep -m1 '^READY' "$WORK/notify.txt"); $(grep -m1 '^STATUS=MASTER' "$WORK/notify.txt"); $dogs watchdog pings in 1 s"

# logrotate: move the file, signal, and the next lines go to a new file by the same name
mv "$WORK/fabricd.log" "$WORK/fabricd.log.1"
kill -USR1 "$FD_PID"
wait_for 'SIGUSR1: log file reopened' "$WORK/fabricd.log"
"$FABRICCTL" -d "$DB" -S "$SOCK" resweep >/dev/null
wait_for 'SUBNET UP' "$WORK/fabricd.log"
grep -q 'SIGUSR1' "$WORK/fabricd.log.1" && fail "the moved file got the line after the signal"
note "after mv and SIGUSR1: $(grep -c . "$WORK/fabricd.log") new lines in the new fabricd.log"

kill -TERM "$FD_PID"
wait "$FD_PID" || fail "fabricd exited with $? on SIGTERM"
FD_PID=
wait_for '^STOPPING=1$' "$WORK/notify.txt"
note "SIGTERM: STOPPING=1"

# the journal: stderr is the stream $JOURNAL_STREAM names; lines get priorities, no stamps
: >"$WORK/journal.txt"
JOURNAL_STREAM=$(stat -c %d:%i "$WORK/journal.txt") LD_PRELOAD=$UMAD2SIM "$FABRICD" -f -d "$DB" -S "$SOCK" \
	-c "$WORK/fabricd.yaml" 2>>"$WORK/journal.txt" &
FD_PID=$!
wait_for '^<6>SUBNET UP' "$WORK/journal.txt"
grep -Eq '^[0-9]{4}-' "$WORK/journal.txt" && fail "journal lines carry their own time stamps: $(head -2 "$WORK/journal.txt")"
note "to the journal: $(grep -m1 '^<6>SUBNET UP' "$WORK/journal.txt" | cut -c1-60)..."
fd_stop
