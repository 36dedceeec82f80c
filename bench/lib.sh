# bench/lib.sh: what the benchmark scripts share. Defines functions, and
# KEEP_WORK: a run's WORK lives in the benchmark's $out, removed at its end.
#
# Outside a run: bench_setup (needs $top) sets BUILD (building if needed)
# and out (a scratch directory). Inside a run, after
# tests/integration/lib.sh: sm_start, sm_run, sm_ups, sm_wait_ups, ms_of,
# sm_smps.

KEEP_WORK=1

bench_setup() {
	BUILD=$(realpath "${BUILD:-$top/build}")
	[[ -x $BUILD/sm/fabricd ]] || bash "$top/scripts/build.sh" >/dev/null
	out=$(mktemp -d /tmp/fabricd-bench.XXXXXX)
}

# bench_default_nets: the bundled 2-level r8 tree and a generated 2-level
# r36 one (648 hosts, written into $out), for scripts given no net file.
bench_default_nets() {
	"$BUILD/topology/fabric-gen" --levels 2 --radix 36 -o "$out/ft2-r36.net"
	echo "$top/tests/fabrics/fattree-2l-r8.net" "$out/ft2-r36.net"
}

# sm_start SM LOG: starts fabricd, "opensm" or "opensm-Q" (QoS on) on the
# simulated fabric, logging to LOG; sets FD_PID. OpenSM runs with -d 2,
# which flushes its log after each line (else its SUBNET UP shows late).
sm_start() {
	if [[ $1 == fabricd ]]; then
		LD_PRELOAD=$UMAD2SIM "$FABRICD" -f -d "$WORK/f.db" -S "$WORK/ctl.sock" --log-file "$2" \
			</dev/null 2>/dev/null &
	else
		local qos=
		[[ $1 == opensm-Q ]] && qos=-Q
		export OSM_CACHE_DIR=$WORK
		LD_PRELOAD=$UMAD2SIM opensm -d 2 -R ftree $qos -f "$2" </dev/null >/dev/null 2>&1 &
	fi
	FD_PID=$!
}

# ms_of: the millisecond of the day of a log line on stdin, for fabricd's
# "YYYY-MM-DDTHH:MM:SS.mmm" and OpenSM's "Mon DD HH:MM:SS uuuuuu".
ms_of() {
	awk '{ if ($1 ~ /T/) { split(substr($1, 12), t, "[:.]"); print ((t[1] * 60 + t[2]) * 60 + t[3]) * 1000 + t[4] }
	       else { split($3, t, ":"); printf "%.0f\n", ((t[1] * 60 + t[2]) * 60 + t[3]) * 1000 + $4 / 1000 } }'
}

# sm_smps: PortXmitPkts of the SM's own port, as ibsim counts it.
sm_smps() {
	local lid
	lid=$(diag smpquery portinfo -D 0 1 | awk -F. '/^Lid:/ {print $NF}')
	diag perfquery "$lid" 1 | awk -F. '/^PortXmitPkts:/ {print $NF}'
}

# sm_run SM NETFILE: ibsim on NETFILE and SM (as sm_start) on it at H0_0,
# logging to $WORK/sm.log ($log).
sm_run() {
	export SIM_HOST=H0_0
	sim_start "$2"
	log=$WORK/sm.log
	sm_start "$1" "$log"
}

# sm_ups: the SUBNET UP lines in $log so far.
sm_ups() { local c; c=$(grep -c "SUBNET UP" "$log" 2>/dev/null) || true; echo "${c:-0}"; }

# sm_wait_ups N [TENTHS]: waits (30 s by default) until $log holds N SUBNET UP lines; 1 if it does not.
sm_wait_ups() {
	local _
	for _ in $(seq "${2:-300}"); do (( $(sm_ups) >= $1 )) && return 0; sleep 0.1; done
	return 1
}
