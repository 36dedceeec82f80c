#!/usr/bin/env bash
# daemon.sh BUILD NETFILE
#
# The running daemon: fabricctl reaches it over the control socket
# (status, resweep, audit: a changed LFT entry found and rewritten),
# SIGHUP re-sweeps, a pulled cable shows in the event
# log, SIGTERM exits 0 and removes the socket, and SIGKILL in the middle of
# a sweep leaves a database that opens and holds the previous sweep
# complete. Run it under unshare -n.
set -euo pipefail
BUILD=$1 NET=$2
WORK=$(mktemp -d /tmp/fabricd-daemon.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/checks.sh"
ctl() { "$FABRICCTL" -d "$DB" -S "$SOCK" "$@"; }
# sweeps_logged N: waits until the log holds N SUBNET UP lines.
sweeps_logged() {
	for _ in $(seq 600); do
		(( $(grep -c "SUBNET UP" "$WORK/fabricd.log") >= $1 )) && return 0
		sleep 0.1
	done
	fail "no sweep $1 in the log"
}

# wait_event PATTERN: waits (10 s at most) for an event log line matching PATTERN;
# sweeps come from requests and from traps, so counting them would race.
wait_event() {
	for _ in $(seq 100); do
		ctl events | grep -Eq "$1" && return 0
		sleep 0.1
	done
	fail "no event /$1/: $(ctl events | tail -3)"
}

sim_start "$NET"
printf 'sweep_interval: 0\n' >"$WORK/quiet.yaml"	# only the sweeps this test asks for
fd_start -c "$WORK/quiet.yaml"
fd_wait_up 120
ctl status | grep -q "daemon:     running, pid $FD_PID, MASTER" || fail "status does not see the daemon: $(ctl status)"
version=$("$FABRICD" --version | awk 'NR == 1 {print $2}')
ctl status | grep -q "^daemon: .*, fabricd $version\$" || fail "status does not name the daemon's version $version: $(ctl status)"
[[ $(stat -c %a "$SOCK") == 600 ]] || fail "control socket is not root-only: $(stat -c %a "$SOCK")"
[[ $(stat -c %a "$DB") == 600 ]] || fail "database is not root-only: $(stat -c %a "$DB")"
note "fabricctl status reaches the daemon; socket and database are mode 600"

ctl resweep | grep -q "ok: sweep requested" || fail "resweep was not accepted"
sweeps_logged 2
# nothing changed: the second sweep finds every LFT block already in place
grep "sweep: program" "$WORK/fabricd.log" | tail -1 | grep -q " 0 LFT blocks sent, [1-9][0-9]* unchanged" ||
	fail "an unchanged fabric was reprogrammed: $(grep 'sweep: program' "$WORK/fabricd.log" | tail -1)"
ctl sweeps | grep -Eq "^ +2 +heavy .* ok$" || fail "the requested sweep is not recorded"
kill -HUP "$FD_PID"
sweeps_logged 3
note "fabricctl resweep and SIGHUP each ran a recorded sweep"

# fabricctl audit: every switch's LFT and every node's port tables read
# back, all as published (exit 0); an entry changed from a host (an SMP
# routed by LID, no M_Key here) is found (exit 1), the full sweep that
# follows writes it back (ibroute), and the next audit finds none; the
# same for a switch's SL-to-VL map (smpquery sl2vl) and a key written into
# another host's P_Key table (smpquery pkeys)
ctl audit >"$WORK/audit.out" || fail "fabricctl audit of untouched tables: $(cat "$WORK/audit.out")"
blocks=$(awk 'NR == 1 {print $1}' "$WORK/audit.out")
tables=$(awk 'NR == 2 {print $1}' "$WORK/audit.out")
grep -q "^$blocks LFT blocks read back: $blocks as published, 0 other, 0 unanswered$" "$WORK/audit.out" &&
	grep -q "^$tables port tables read back: $tables as published, 0 other, 0 unanswered$" "$WORK/audit.out" ||
	fail "fabricctl audit: $(cat "$WORK/audit.out")"
((tables > 320 * 16 + 1024)) || fail "fabricctl audit read $tables port tables: fewer than the switches' maps and the CAs' P_Keys"
(( blocks == 320 * ($(grep -o 'max LID [0-9]*' "$WORK/fabricd.log" | tail -1 | cut -d' ' -f3) / 64 + 1) )) ||
	fail "fabricctl audit read $blocks blocks, not every block of the 320 switches"
sw=$(lid_of A3) dst=$(lid_of H9_2)
was=$(lft_port "$sw" "$dst")
SIM_HOST=H3_1 diag "$BUILD/tests/hostile" lft-set "$sw" $((dst / 64)) $((dst % 64)) $((was % 16 + 1)) >/dev/null ||
	fail "hostile lft-set: $(cat "$WORK/diag.err")"
ups=$(ups)
rc=0
ctl audit >"$WORK/audit.out" || rc=$?
((rc == 1)) && grep -q "^$blocks LFT blocks read back: $((blocks - 1)) as published, 1 other" "$WORK/audit.out" ||
	fail "fabricctl audit after a change (exit $rc): $(cat "$WORK/audit.out")"
sweeps_logged $((ups + 1))
[[ $(lft_port "$sw" "$dst") == "$was" ]] ||
	fail "A3's entry for H9_2 was not written back"
ctl --json audit >"$WORK/audit.out" || fail "fabricctl audit after the sweep: $(cat "$WORK/audit.out")"
grep -q "^{\"blocks\": $blocks, \"published\": $blocks, \"other\": 0, \"unanswered\": 0, \"port_tables\": $tables, \"port_published\": $tables, \"port_other\": 0, \"port_unanswered\": 0}$" "$WORK/audit.out" ||
	fail "fabricctl --json audit: $(cat "$WORK/audit.out")"
# port_table_found WHAT READ EVENT HOSTILE...: a port table changed from H3_1 (HOSTILE's
# arguments) as READ (a command) shows, found by fabricctl audit (one table other, exit 1,
# an audit event matching EVENT) and written back by the full sweep after it
port_table_found() {
	local what=$1 read=$2 event=$3 was rc=0
	shift 3
	was=$($read) || fail "$read: $(cat "$WORK/diag.err")"
	SIM_HOST=H3_1 diag "$BUILD/tests/hostile" "$@" >/dev/null || fail "hostile $1: $(cat "$WORK/diag.err")"
	[[ $($read) != "$was" ]] || fail "$what did not change: $was"
	ups=$(ups)
	ctl audit >"$WORK/audit.out" || rc=$?
	((rc == 1)) && grep -q "^$tables port tables read back: $((tables - 1)) as published, 1 other" "$WORK/audit.out" ||
		fail "fabricctl audit after a change of $what (exit $rc): $(cat "$WORK/audit.out")"
	sweeps_logged $((ups + 1))
	[[ $($read) == "$was" ]] || fail "$what was not written back: $($read), published $was"
	ctl events | grep -q "audit .*$event" || fail "no audit event names $what: $(ctl events | grep audit)"
}
map() { diag smpquery sl2vl "$sw" 2 | grep '^ports: in *1, out *2:'; }
keys() { diag smpquery pkeys "$dst" 1; }
port_table_found "A3's SL-to-VL map (1, 2)" map \
	"A3 .*holds a port table unlike the published sweep's: SL-to-VL map of ports (1, 2): SL 15 on VL 14" \
	sl2vl-set "$sw" 1 2 15 14
port_table_found "H9_2's P_Key table" keys \
	"H9_2 .*holds a port table unlike the published sweep's: P_Key table of port 1: entry 5 0x8123, published 0x0000" \
	pkey-set "$dst" 0 5 0x8123
ctl audit >"$WORK/audit.out" || fail "fabricctl audit after the port tables' sweeps: $(cat "$WORK/audit.out")"
note "fabricctl audit: $blocks LFT blocks and $tables port tables as published; an LFT entry and an SL-to-VL map changed on A3 and a P_Key written into H9_2 each found, rewritten, then none"

# a cable pulled and plugged back: the event log tells both, with the reroute
sim_cmd 'Unlink "L0"[9]'
ctl resweep >/dev/null
wait_event 'link_down +L0\[9\] <-> A0\[1\]'
sweeps_logged 4
ctl events | grep -Eq 'routing +forwarding tables changed on [0-9]+ switches' || fail "no routing event"
ctl links | grep -Eq '^L0 +9 ' && fail "the pulled link is still listed"
# the sweeps after the first three (the reroute, maybe one more from the trap)
grep "sweep: program" "$WORK/fabricd.log" | tail -n +4 | grep -q " [1-9][0-9]* LFT blocks sent" ||
	fail "the reroute sent no LFT block"
check_traces 60	# the switches hold exactly the stored, partly rewritten tables
sim_cmd 'ReLink "L0"[9]'
ctl resweep >/dev/null
wait_event 'link_up +L0\[9\] <-> A0\[1\]'
note "Unlink/ReLink of L0[9]: link_down, link_up and routing events are logged"

# let a sweep a trap asked for finish
for _ in $(seq 100); do
	grep -q "sweeping now" <<<"$(ctl status)" || break
	sleep 0.1
done
before=$(ctl --json topology | md5sum)
ups=$(grep -c "SUBNET UP" "$WORK/fabricd.log")
last=$(ctl sweeps | tail -1 | awk '{print $1}')
# SIGKILL while the next sweep is discovering: nothing of it may reach the
# database. The simulator is frozen (SIGSTOP) first, so the sweep cannot
# finish before the kill however fast this machine is.
started=$(grep -c "sweep: heavy sweep" "$WORK/fabricd.log")
kill -STOP "$SIM_PID"
ctl resweep >/dev/null
for _ in $(seq 100); do
	(( $(grep -c "sweep: heavy sweep" "$WORK/fabricd.log") > started )) && break
	sleep 0.05
done
(( $(grep -c "sweep: heavy sweep" "$WORK/fabricd.log") > started )) || fail "the asked-for sweep did not start"
kill -KILL "$FD_PID"
wait "$FD_PID" 2>/dev/null || true
FD_PID=
kill -CONT "$SIM_PID"
(( $(grep -c "SUBNET UP" "$WORK/fabricd.log") == ups )) || fail "the sweep finished before the kill: the test proves nothing"
rc=0; ctl status >/dev/null || rc=$?
((rc == 4)) || fail "after SIGKILL fabricctl status exits $rc, not 4 (fabricd not running): $(ctl status 2>&1)"
ctl sweeps | tail -1 | grep -Eq "^ +$last +heavy .* ok$" || fail "after SIGKILL the last stored sweep is not #$last"
[[ $(ctl --json topology | md5sum) == "$before" ]] || fail "after SIGKILL the stored fabric changed"
out=$(ctl status) || true
grep -q "fabricd is not running" <<<"$out" || fail "status does not notice the daemon is gone: $out"
grep -q "^subnet: .*nothing watches it now" <<<"$out" || fail "status still says the subnet is simply up: $out"
note "SIGKILL mid-sweep: database opens, sweep #$last intact and last, fabric unchanged"

expect_rc() { local want=$1 rc=0; shift; "$@" >/dev/null 2>&1 || rc=$?; (( rc == want )) || fail "'$*' exited $rc, not $want"; }
expect_rc 4 ctl resweep
fd_start -c "$WORK/quiet.yaml"
fd_wait_up 120
fd_stop
[[ ! -e $SOCK ]] || fail "SIGTERM left the control socket behind"
note "a new daemon starts over the stale socket; SIGTERM exits 0 and removes it"
rm -rf "$WORK"
echo PASS
