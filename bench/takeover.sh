#!/usr/bin/env bash
# takeover.sh [NETFILE...]: the master SM dies; how long until the standby
# has the subnet up again, how many SMPs does it send, and does every LID
# stay? The master is fabricd (priority 5, at H0_0); the standby (priority
# 3, at H1_0) is fabricd, then OpenSM, each on a fresh ibsim of the same
# fabric, both polling the master every 500 ms and giving up after 2
# unanswered polls (OpenSM: sminfo_polling_timeout 500,
# polling_retry_number 2).
#
# Time: kill -9 of the master to the standby's "SUBNET UP" log line.
# SMPs: PortXmitPkts of the standby's port (perfquery) across it. LIDs:
# ibnetdiscover's LIDs before and after. A benchmark, not a test.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
bench_setup
trap 'rm -rf "$out"' EXIT
(($# == 0)) && set -- $(bench_default_nets)

# one_run STANDBY NETFILE: prints "TAKEOVER_MS SMPS LIDS_KEPT".
one_run() {
	TOP=$top unshare -n bash -s "$@" "$BUILD" "$(mktemp -d "$out/run.XXXXXX")" <<'RUN'
set -euo pipefail
standby=$1 net=$2 BUILD=$3 WORK=$4
. "$TOP/tests/integration/lib.sh"
. "$TOP/bench/lib.sh"
trap '[[ -n ${M:-} ]] && stop "$M"; [[ -n ${S:-} ]] && stop "$S"; stop "$SIM_PID"' EXIT
sim_start "$net"
printf 'sm_priority: 5\nsm_key: 1\n' >"$WORK/m.yaml"
SIM_HOST=H0_0 LD_PRELOAD=$UMAD2SIM "$FABRICD" -f -c "$WORK/m.yaml" -d "$WORK/m.db" -S "$WORK/m.sock" \
	--log-file "$WORK/m.log" </dev/null 2>/dev/null &
M=$!
for _ in $(seq 300); do grep -q 'SUBNET UP' "$WORK/m.log" 2>/dev/null && break; sleep 0.1; done
log=$WORK/s.log
if [[ $standby == fabricd ]]; then
	printf 'sm_priority: 3\nsm_key: 1\nsm_poll_interval_ms: 500\nsm_poll_retries: 2\n' >"$WORK/s.yaml"
	SIM_HOST=H1_0 LD_PRELOAD=$UMAD2SIM "$FABRICD" -f -c "$WORK/s.yaml" -d "$WORK/s.db" -S "$WORK/s.sock" \
		--log-file "$log" </dev/null 2>/dev/null &
else
	SIM_HOST=H1_0 LD_PRELOAD=$UMAD2SIM opensm -c "$WORK/osm.conf" >/dev/null 2>&1 || true
	sed -i 's/^sminfo_polling_timeout .*/sminfo_polling_timeout 500/; s/^polling_retry_number .*/polling_retry_number 2/' \
		"$WORK/osm.conf"
	export OSM_CACHE_DIR=$WORK
	SIM_HOST=H1_0 LD_PRELOAD=$UMAD2SIM opensm -F "$WORK/osm.conf" -d 2 -p 3 -R ftree -f "$log" </dev/null \
		>/dev/null 2>&1 &
fi
S=$!
lid=$(SIM_HOST=H5_0 diag ibnetdiscover | grep '"H1_0"' | grep -o 'lid [0-9]*' | head -1 | cut -d' ' -f2)
for _ in $(seq 100); do
	SIM_HOST=H5_0 diag sminfo "$lid" | grep -q SMINFO_STANDBY && break
	sleep 0.1
done
sleep 1
SIM_HOST=H5_0 diag ibnetdiscover | grep -o 'lid [0-9]*' | sort >"$WORK/lids.before"
before=$(SIM_HOST=H5_0 diag perfquery "$lid" 1 | awk -F. '/^PortXmitPkts:/ {print $NF}')
t0=$(date +%H:%M:%S.%N | awk '{split($1, t, ":"); printf "%.0f\n", ((t[1] * 60 + t[2]) * 60 + t[3]) * 1000}')
kill -9 "$M"
wait "$M" 2>/dev/null || true
M=
for _ in $(seq 600); do grep -q 'SUBNET UP' "$log" 2>/dev/null && break; sleep 0.1; done
grep -q 'SUBNET UP' "$log" || { echo "stuck - -"; exit 0; }
t1=$(grep 'SUBNET UP' "$log" | tail -1 | ms_of)
sleep 0.5
after=$(SIM_HOST=H5_0 diag perfquery "$lid" 1 | awk -F. '/^PortXmitPkts:/ {print $NF}')
SIM_HOST=H5_0 diag ibnetdiscover | grep -o 'lid [0-9]*' | sort >"$WORK/lids.after"
kept=no
cmp -s "$WORK/lids.before" "$WORK/lids.after" && kept=yes
echo "$((t1 - t0)) $((after - before)) $kept"
RUN
}

fmt='%-16s %-8s %14s %10s %10s\n'
printf "$fmt" fabric standby "takeover (ms)" SMPs "LIDs kept"
for net in "$@"; do
	net=$(realpath "$net")	# a run works in its own directory
	for standby in fabricd opensm; do
		read -r ms smps kept < <(one_run "$standby" "$net")
		printf "$fmt" "$(basename "$net" .net)" "$standby" "$ms" "$smps" "$kept"
	done
done
