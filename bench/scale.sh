#!/usr/bin/env bash
# scale.sh [SM...]: each SM (fabricd, opensm, opensm-Q; default all three)
# end to end on the 3-level radix-48 fat tree (2,880 switches, 27,648
# hosts) in ibsim (-N 32768 -S 4096 -P 200000, about 360 MB), one SM at a
# time on a fresh simulator: time from the SM's first log line to SUBNET
# UP, SMPs (PortXmitPkts of its port), its peak RSS (VmHWM) at that point,
# then a leaf up-link unlinked (L1[25]) and the time and SMPs to the
# SUBNET UP that repair caused. An SM not up within SCALE_LIMIT_S (1200 s)
# is reported as such. A benchmark, not a test: it prints figures.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
bench_setup
limit=${SCALE_LIMIT_S:-1200}
"$BUILD/topology/fabric-gen" --levels 3 --radix 48 -o "$out/ft3-r48.net"
(($# > 0)) || set -- fabricd opensm opensm-Q

# one_run SM: "UP_MS SMPS RSS_MB REPAIR_MS REPAIR_SMPS", "-" for what could not be had.
one_run() {
	TOP=$top SIM_LIMITS="-N 32768 -S 4096 -P 200000" SIM_WAIT_TENTHS=3000 unshare -n bash -s "$1" "$out/ft3-r48.net" "$BUILD" \
		"$(mktemp -d "$out/run.XXXXXX")" "$limit" <<'RUN'
set -euo pipefail
sm=$1 net=$2 BUILD=$3 WORK=$4 limit=$5
. "$TOP/tests/integration/lib.sh"
. "$TOP/bench/lib.sh"
sm_run "$sm" "$net"
if ! sm_wait_ups 1 $((limit * 10)); then
	echo "not-up-in-${limit}s - $(awk '/VmHWM/ {printf "%d", $2 / 1024}' /proc/$FD_PID/status) - -"
	exit 0
fi
rss=$(awk '/VmHWM/ {printf "%d", $2 / 1024}' /proc/$FD_PID/status)
up_ms=$(( $(grep -m1 "SUBNET UP" "$log" | ms_of) - $(head -1 "$log" | ms_of) ))
smps=$(sm_smps)
sleep 2
before=$(sm_smps)
t0=$(date +%H:%M:%S.%N | awk '{split($1, t, ":"); printf "%.0f\n", ((t[1] * 60 + t[2]) * 60 + t[3]) * 1000}')
sim_cmd 'Unlink "L1"[25]'
if sm_wait_ups 2 6000; then
	sleep 3	# a second sweep the event caused
	echo "$up_ms $smps $rss $(( $(grep "SUBNET UP" "$log" | tail -1 | ms_of) - t0 )) $(( $(sm_smps) - before ))"
else
	echo "$up_ms $smps $rss - -"
fi
RUN
}

printf '%-10s %12s %12s %10s | %12s %12s\n' SM "SUBNET UP ms" SMPs "peak MB" "repair ms" "repair SMPs"
for sm in "$@"; do
	read -r up smps rss rep_ms rep_smps < <(one_run "$sm")
	printf '%-10s %12s %12s %10s | %12s %12s\n' "$sm" "$up" "$smps" "$rss" "$rep_ms" "$rep_smps"
done
