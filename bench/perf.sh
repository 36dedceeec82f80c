#!/usr/bin/env bash
# perf.sh [NETFILE...]: counter sweeps of fabricd and of OpenSM's PerfMgr
# (opensm --perfmgr), each on a fresh ibsim of the same fabric, the SM at
# H0_0 and nothing else running (no light sweeps: fabricd sweep_interval 0,
# opensm -s 0), both with 16 counter queries in flight at most. Both sweep every 8 s; for 30 s the SM port's PortXmitPkts
# is polled every 0.2 s (perfquery from the same node: its own MADs do not
# leave the port). A burst of increments is a sweep: its MADs, and its
# length from the poll before the first increment to the last (an upper
# bound, to about 0.25 s); the complete bursts are averaged. fabricd also
# says how long it took in its log. Then, for fabricd: the time and size of a
# /metrics scrape and its series, and (bench/perf-day) the database after a
# simulated day of samples of as many ports. A benchmark, not a test.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
bench_setup
trap 'rm -rf "$out"' EXIT
if (($# == 0)); then
	"$BUILD/topology/fabric-gen" --levels 2 --radix 36 -o "$out/ft2-r36.net"
	"$BUILD/topology/fabric-gen" --levels 3 --radix 16 -o "$out/ft3-r16.net"
	set -- "$out/ft2-r36.net" "$out/ft3-r16.net"
fi

# one_run SM NETFILE: prints "ports mads seconds logged_seconds scrape_ms scrape_kb series".
one_run() {
	TOP=$top unshare -n bash -s "$@" "$BUILD" "$(mktemp -d "$out/run.XXXXXX")" <<'RUN'
set -euo pipefail
sm=$1 net=$2 BUILD=$3 WORK=$4
. "$TOP/tests/integration/lib.sh"
trap '[[ -n ${FD_PID:-} ]] && stop "$FD_PID"; stop "$SIM_PID"' EXIT
sim_start "$net"
export SIM_HOST=H0_0 OSM_CACHE_DIR=$WORK
if [[ $sm == fabricd ]]; then
	printf 'perf: { interval: 8 }\nsweep_interval: 0\nmetrics_listen: "127.0.0.1:19700"\n' >"$WORK/f.yaml"
	LD_PRELOAD=$UMAD2SIM "$FABRICD" -f -c "$WORK/f.yaml" -d "$WORK/f.db" -S "$WORK/ctl.sock" \
		--log-file "$WORK/sm.log" </dev/null 2>/dev/null &
else
	# OpenSM's PerfMgr keeps 500 queries in flight by default, which ibsim
	# does not survive on the larger fabrics (it spins and answers nobody):
	# it gets fabricd's window, 16
	opensm -c "$WORK/osm.conf" >/dev/null 2>&1
	sed -i 's/^perfmgr_max_outstanding_queries .*/perfmgr_max_outstanding_queries 16/' "$WORK/osm.conf"
	LD_PRELOAD=$UMAD2SIM opensm -F "$WORK/osm.conf" -d 2 -s 0 -R ftree --perfmgr --perfmgr_sweep_time_s 8 \
		-f "$WORK/sm.log" </dev/null >/dev/null 2>&1 &
fi
FD_PID=$!
for _ in $(seq 600); do grep -q 'SUBNET UP' "$WORK/sm.log" 2>/dev/null && break; sleep 0.1; done
lid=$(diag smpquery portinfo -D 0 1 | awk -F. '/^Lid:/ {print $NF}')
sleep 1
# poll: "seconds value" every 0.2 s for 30 s
end=$(( $(date +%s) + 30 ))
while (( $(date +%s) < end )); do
	v=$(diag timeout 5 perfquery -x "$lid" 1 | awk -F. '/^PortXmitPkts:/ {print $NF}') || v=
	[[ -n $v ]] || { echo "perfquery got no answer: the simulator is swamped" >&2; break; }
	echo "$(date +%s.%N) $v"
	sleep 0.2
done >"$WORK/polls.txt"
read -r mads secs < <(awk 'NR == 1 { prev = $2; pt = $1; next }
	{ d = $2 - prev
	  if (d > 0) { if (!on) { on = 1; start = pt; m = 0; partial = NR == 2 } m += d; last = $1 }
	  else if (on) { on = 0; if (!partial) { n++; mads += m; secs += last - start } }
	  prev = $2; pt = $1 }
	END { if (n) printf "%.0f %.2f\n", mads / n, secs / n; else print "- -" }' "$WORK/polls.txt")
ports=- logged=- scrape=- kb=- series=-
if [[ $sm == fabricd ]]; then
	line=$(grep "perf: counters of" "$WORK/sm.log" | tail -1)
	ports=$(grep -o "of [0-9]* ports" <<<"$line" | grep -o "[0-9]*")
	logged=$(grep -o "in [0-9.]* s" <<<"$line" | grep -o "[0-9.]*")
	best=999999
	for _ in 1 2 3; do
		read -r t size < <(curl -s -o "$WORK/m.txt" -w '%{time_total} %{size_download}\n' http://127.0.0.1:19700/metrics)
		ms=$(awk -v t="$t" 'BEGIN { printf "%d", t * 1000 }')
		(( ms < best )) && best=$ms
	done
	scrape=$best kb=$(( size / 1024 )) series=$(grep -vc '^#' "$WORK/m.txt")
else
	ports=$(diag ibnetdiscover -p | awk '$1 == "CA" || $1 == "SW" { n++ } END { print n }')
fi
echo "$ports $mads $secs $logged $scrape $kb $series"
RUN
}

fmt='%-12s %-8s %7s %8s %9s %10s %10s %10s %11s %8s\n'
printf "$fmt" fabric SM ports MADs MADs/port "sweep (s)" "logged (s)" "scrape ms" "scrape KiB" series
for net in "$@"; do
	net=$(realpath "$net")	# a run works in its own directory
	for sm in fabricd opensm; do
		read -r ports mads secs logged scrape kb series < <(one_run "$sm" "$net")
		per=$(awk -v m="$mads" -v p="$ports" 'BEGIN { if (p + 0 && m + 0) printf "%.2f", m / p; else print "-" }')
		printf "$fmt" "$(basename "$net" .net)" "$sm" "$ports" "$mads" "$per" "$secs" "$logged" "$scrape" "$kb" "$series"
		[[ $sm == fabricd ]] && fd_ports=$ports
	done
	rm -f "$out/day.db"*
	"$BUILD/bench/perf-day" "$out/day.db" "$fd_ports" 60 6 1024 | sed "s/^/  a day of samples ($(basename "$net" .net)), as configured by default: /"
done
