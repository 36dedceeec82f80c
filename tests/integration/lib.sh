# Shared helpers for the integration tests and the demo. Source it inside a
# fresh network namespace (unshare -n): ibsim's sockets are abstract, so
# each namespace holds exactly one simulated fabric.
#
# Needs: BUILD (the build directory) and WORK (a scratch directory).

UMAD2SIM=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
# An SA client on umad2sim needs what a host's kernel does and umad2sim
# does not: RMPP reassembly in front of it, and the last 32 bytes of each
# MAD, which it loses, kept behind it (tests/tools/rmpp_shim.c).
SA_PRELOAD="$BUILD/tests/librmpp-shim.so $UMAD2SIM $BUILD/tests/libumad2sim-tail.so"
FABRICD="$BUILD/sm/fabricd"
FABRICCTL="$BUILD/cli/fabricctl"
DB="$WORK/fabricd.db"
SOCK="$WORK/control.sock"
SIM_PID=
FD_PID=

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "-- $*"; }

# stop PID: SIGTERM, then SIGKILL if it has not gone within 2 s.
stop() {
	kill "$1" 2>/dev/null || return 0
	for _ in $(seq 20); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

# cleanup [STATUS]: ends what the test started; exits with the test's own
# status (STATUS, from a trap of the test's own that ran first: a trap
# that fails a command under set -e ends right there). WORK goes once the
# test passed (unless KEEP_WORK is set: the demo keeps its database, a
# benchmark removes its runs itself); a failed test's stays, named on
# stderr, to be looked into.
cleanup() {
	local rc=${1:-$?}
	[[ -n $FD_PID ]] && stop "$FD_PID"
	[[ -n $SIM_PID ]] && stop "$SIM_PID"
	if [[ -n ${WORK:-} && -d $WORK && -z ${KEEP_WORK:-} ]]; then
		if ((rc == 0)); then
			rm -rf "$WORK"
		else
			echo "the test's files are kept in $WORK" >&2
		fi
	fi
	exit "$rc"
}
trap cleanup EXIT
# umad2sim gives each client a fake sysfs, sys-PID/, in its working
# directory, and leaves it there when the client is killed: the clients
# run in WORK (so paths given to a test must be absolute).
cd "$WORK"

# diag CMD...: runs a libibumad program against the simulator (preloading
# $DIAG_PRELOAD if set, else umad2sim), again when the simulator had no
# client slot free: ibsim has ten, and frees a slot only once it notices
# the client is gone, so hundreds of short-lived tools in a row sometimes
# find none. Any other failure is returned at once; stderr is in
# $WORK/diag.err.
# attach_failed FILE: the output in FILE says a tool could not attach to
# ibsim (umad2sim, not the SM): no free client slot, or one a client that
# just left still holds.
ATTACH_FAILED_RE="can't open UMAD port|sim_init: connect failed|on port \(null\)|cannot open a port"
attach_failed() {
	grep -qE "$ATTACH_FAILED_RE" "$1"
}

# refused CMD...: runs CMD (a request the SM is meant to refuse) with its
# output in $WORK/out, again while it could not even attach; its exit code.
refused() {
	local rc
	for _ in 1 2 3 4 5; do
		rc=0
		LD_PRELOAD=$UMAD2SIM "$@" >"$WORK/out" 2>&1 || rc=$?
		attach_failed "$WORK/out" || return "$rc"
		sleep 0.5
	done
	return "$rc"
}

diag() {
	local try
	for try in 1 2 3 4 5; do
		LD_PRELOAD=${DIAG_PRELOAD:-$UMAD2SIM} "$@" 2>"$WORK/diag.err" && return 0
		attach_failed "$WORK/diag.err" || return 1
		sleep 0.5
	done
	return 1
}

# lid_of NAME: the LID of the node NAME as ibnetdiscover, run from H5_0 (a
# host of the bundled 2-level r8 tree), finds it.
lid_of() { SIM_HOST=H5_0 diag ibnetdiscover | grep "\"$1\"" | grep -o 'lid [0-9]*' | head -1 | cut -d' ' -f2; }

# lft_port SWITCH_LID LID: the port the switch's LFT entry for LID names, as ibroute reads it.
lft_port() { diag ibroute "$1" | awk -v l="$(printf '0x%04x' "$2")" '$1 == l {print $2 + 0}'; }

# sim_start NETFILE: starts ibsim with its console on a fifo (fd 7), or
# with no console (-n) when SIM_NO_CONSOLE is set. SIM_LIMITS: ibsim's
# node, switch and port limits (larger for the 27,648-host tree);
# SIM_WAIT_TENTHS: how long it may take to load the net (10 s).
sim_start() {
	ip link set lo up
	# ibsim and its clients talk over unix datagram sockets, whose queue is
	# 10 datagrams by default: under a flood both ends block sending to each
	# other (OpenSM's PerfMgr keeps 500 queries in flight). The setting is
	# this network namespace's own.
	sysctl -qw net.unix.max_dgram_qlen=4096 2>/dev/null || true
	if [[ -n ${SIM_NO_CONSOLE:-} ]]; then
		ibsim ${SIM_LIMITS:--N 16384 -S 2048 -P 65536} -n -s "$1" </dev/null >"$WORK/ibsim.log" 2>&1 &
		SIM_PID=$!
	else
		rm -f "$WORK/console"
		mkfifo "$WORK/console"
		ibsim ${SIM_LIMITS:--N 16384 -S 2048 -P 65536} -s "$1" <"$WORK/console" >"$WORK/ibsim.log" 2>&1 &
		SIM_PID=$!
		exec 7>"$WORK/console"	# keeps ibsim's stdin open (a closed one makes it spin)
	fi
	# wait for ibsim's own word rather than probing it with a client: the
	# first client attached gets ID 0, and OpenSM only copes with being 0
	for _ in $(seq "${SIM_WAIT_TENTHS:-100}"); do
		grep -q "Network simulator ready" "$WORK/ibsim.log" && return 0
		kill -0 "$SIM_PID" 2>/dev/null || fail "ibsim exited: $(tail -3 "$WORK/ibsim.log")"
		sleep 0.1
	done
	fail "ibsim did not come up"
}

# sim_stop: ends the simulated fabric (a later sim_start begins afresh).
sim_stop() {
	exec 7>&-
	stop "$SIM_PID"
	SIM_PID=
}

# sim_cmd TEXT: one ibsim console command, e.g. 'Unlink "L0"[5]'.
sim_cmd() { echo "$1" >&7; sleep 0.2; }

# ups: how many SUBNET UP lines fabricd's log holds (0 before it exists).
ups() { cat "$WORK/fabricd.log" 2>/dev/null | grep -c "SUBNET UP" || true; }

# osm_start PRELOAD [ARGS]: OpenSM in the background behind PRELOAD (log
# $WORK/opensm.log, cache in $WORK), as FD_PID so stop and cleanup end it;
# waits up to 30 s for SUBNET UP.
osm_start() {
	local preload=$1
	shift
	OSM_CACHE_DIR=$WORK LD_PRELOAD=$preload opensm -d 2 "$@" -f "$WORK/opensm.log" </dev/null >/dev/null 2>&1 &
	FD_PID=$!
	for _ in $(seq 300); do
		grep -q "SUBNET UP" "$WORK/opensm.log" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "opensm did not bring the subnet up: $(tail -3 "$WORK/opensm.log")"
}

# fd_start [ARGS]: starts fabricd in the foreground, in the background;
# again, as fd_once does, while it could not open its port (umad2sim
# found no ibsim client slot: once in a full suite on a loaded machine).
fd_start() {
	UP_SEEN=$(ups)
	for _ in 1 2 3 4 5; do
		LD_PRELOAD=${FD_PRELOAD:-$UMAD2SIM} "$FABRICD" -f -d "$DB" -S "$SOCK" --log-file "$WORK/fabricd.log" "$@" &
		FD_PID=$!
		sleep 0.2
		kill -0 "$FD_PID" 2>/dev/null ||
			! tail -1 "$WORK/fabricd.log" 2>/dev/null | grep -q "cannot open ibsim0 port 0: No such file" && return 0
		sleep 0.5
	done
}

# fd_wait_ups N: waits (10 s at most) until the log holds N SUBNET UP lines.
fd_wait_ups() {
	for _ in $(seq 100); do
		(( $(grep -c "SUBNET UP" "$WORK/fabricd.log") >= $1 )) && return 0
		sleep 0.1
	done
	fail "no sweep $1 in the log: $(grep -E 'trap|light sweep' "$WORK/fabricd.log" | tail -2)"
}

# fd_wait_up [SECONDS]: waits for this fabricd's first SUBNET UP.
fd_wait_up() {
	local limit=$(( ${1:-60} * 10 ))
	for _ in $(seq "$limit"); do
		(( $(ups) > ${UP_SEEN:-0} )) && return 0
		kill -0 "$FD_PID" 2>/dev/null || fail "fabricd exited: $(tail -3 "$WORK/fabricd.log")"
		sleep 0.1
	done
	fail "no SUBNET UP within ${1:-60} s: $(tail -3 "$WORK/fabricd.log")"
}

fd_stop() {
	kill -TERM "$FD_PID"
	wait "$FD_PID" || fail "fabricd exited with $? on SIGTERM"
	FD_PID=
}

# fd_once [ARGS]: one sweep with --once; returns fabricd's exit code. Run
# again, like diag, while fabricd could not even open its port because
# ibsim had no client slot free (umad2sim then reports the port missing).
fd_once() {
	local rc
	for _ in 1 2 3 4 5; do
		rc=0
		LD_PRELOAD=$UMAD2SIM "$FABRICD" --once -d "$DB" --log-file "$WORK/fabricd.log" "$@" \
			2>"$WORK/fd_once.err" || rc=$?
		cat "$WORK/fd_once.err" >&2
		[ "$rc" -ne 0 ] && grep -q "^fabricd: cannot open ibsim0 port 0: No such file" "$WORK/fd_once.err" ||
			return "$rc"
		sleep 0.5
	done
	return "$rc"
}
