#!/usr/bin/env bash
# perf.sh BUILD NETFILE
#
# Counter sweeps, judged by perfquery and promtool: errors injected into
# ibsim's counters (PerformanceSet) show up in fabricctl errors and in
# /metrics; fabricd clears the error counters it read (perfquery reads 0
# after), so a second injection adds to the total instead of hiding in a
# saturated counter; totals survive a fabricd restart and a counter that
# goes down (a switch reboot); XmitWait shows in fabricctl congestion.
# Run it under unshare -n.
set -euo pipefail
BUILD=$1 NET=$2
WORK=$(mktemp -d /tmp/fabricd-perf.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

PORT=19683
printf 'perf: { interval: 1 }\nsweep_interval: 0\nmetrics_listen: "127.0.0.1:%s"\n' "$PORT" >"$WORK/fabricd.yaml"
ctl() { "$FABRICCTL" -d "$DB" -S "$SOCK" "$@"; }
perf_sweeps() { grep -c "perf: counters of" "$WORK/fabricd.log" || true; }
# wait_perf N: waits until N more counter sweeps have finished.
wait_perf() {
	local want=$(( $(perf_sweeps) + $1 ))
	for _ in $(seq 100); do
		(( $(perf_sweeps) >= want )) && return 0
		sleep 0.1
	done
	fail "no counter sweep: $(tail -2 "$WORK/fabricd.log")"
}
# total NODE PORT COUNTER: the stored total.
total() {
	local out
	out=$(ctl --json counters "$1[$2]")
	grep -o "\"total\": {[^}]*}" <<<"$out" | grep -o "\"$3\": [0-9]*" | cut -d' ' -f2
}
scrape() { curl -sf "http://127.0.0.1:$PORT/metrics" >"$WORK/metrics.txt" || fail "no /metrics answer"; }

sim_start "$NET"
fd_start -c "$WORK/fabricd.yaml"
fd_wait_up 60
wait_perf 2
lid_of() { ctl --json node "$1" | grep -o '"lid": [0-9]*' | cut -d' ' -f2; }
L0_LID=$(lid_of L0)
nports=$(grep -o "counters of [0-9]* ports" "$WORK/fabricd.log" | tail -1 | grep -o "[0-9]*")
nlinks=$(ctl --json status | grep -o '"links": [0-9]*' | cut -d' ' -f2)
(( nports == 2 * nlinks )) || fail "read $nports ports, the fabric has $nlinks links ($((2 * nlinks)) ports)"
note "every active port read: $nports ports of $nlinks links"

sim_cmd 'PerformanceSet "L0"[1] PortCounters.SymbolErrorCounter=100'
sim_cmd 'PerformanceSet "L0"[1] PortCounters.LinkDownedCounter=2'
sim_cmd 'PerformanceSet "L0"[2] PortCounters.PortRcvErrors=7'
wait_perf 2
[[ $(total L0 2 rcv_errors) == 7 ]] || fail "L0[2] rcv_errors: $(total L0 2 rcv_errors)"
[[ $(total L0 1 symbol_errors) == 100 && $(total L0 1 link_downed) == 2 ]] ||
	fail "L0[1] totals: $(ctl counters 'L0[1]' | head -5)"
diag perfquery "$L0_LID" 1 >"$WORK/pq.txt" || fail "perfquery: $(cat "$WORK/diag.err")"
grep -q "SymbolErrorCounter:\.*0$" "$WORK/pq.txt" || fail "fabricd did not clear the counter: $(grep Symbol "$WORK/pq.txt")"
ctl errors --top 1 | grep -q "^L0 .* 1 .*102 .*symbol_errors 100, link_downed 2" || fail "errors: $(ctl errors)"
note "injected errors counted, then cleared on the switch (perfquery: $(grep -o 'SymbolErrorCounter:.*' "$WORK/pq.txt"))"

sim_cmd 'PerformanceSet "L0"[1] PortCounters.SymbolErrorCounter=65535'
wait_perf 2
[[ $(total L0 1 symbol_errors) == 65635 ]] || fail "after a saturated counter: $(total L0 1 symbol_errors)"
grep -q "perf: LID $L0_LID port 1: symbol_errors read at its maximum (65535)" "$WORK/fabricd.log" ||
	fail "the saturated counter was not reported"
note "a saturated counter adds its 65535 to the 100 before: 65635, and is logged"

scrape
promtool check metrics <"$WORK/metrics.txt" || fail "promtool rejects /metrics"
grep -q '^fabricd_port_symbol_errors_total{node="L0",node_guid="0x[0-9a-f]*",port="1",peer="H0_0",peer_port="1"} 65635$' "$WORK/metrics.txt" ||
	fail "metrics: $(grep 'symbol_errors_total{node="L0"' "$WORK/metrics.txt" | head -2)"
grep -q '^fabricd_sm_state 3$' "$WORK/metrics.txt" || fail "metrics: not master"
grep -q '^fabricd_routing_info{engine="ftree"} 1$' "$WORK/metrics.txt" || fail "metrics: no routing engine"
(( $(grep -c '^fabricd_port_rate_gbps{.*link="4xSDR"} 8$' "$WORK/metrics.txt") == nports )) || fail "metrics: port rates"
(( $(grep -c '^fabricd_port_symbol_errors_total' "$WORK/metrics.txt") == 1 )) ||
	fail "metrics: error series for ports that never erred"
[[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/other") == 404 ]] || fail "unknown path answered"
[[ $(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$PORT/metrics") == 405 ]] || fail "POST answered"
note "promtool check metrics: ok; $(grep -c '^fabricd_' "$WORK/metrics.txt") series"

sim_cmd 'PerformanceSet "H0_0"[1] PortCounters.PortXmitWait=500000'
wait_perf 2
ctl congestion --top 1 | grep -q "^H0_0 .* 1 " || fail "congestion: $(ctl congestion)"
note "XmitWait ranks H0_0 first: $(ctl congestion --top 1 | tail -1)"

# a switch that reboots: its 64-bit data counter starts again below the last reading
before=$(total L1 1 xmit_data)
sim_cmd 'PerformanceSet "L1"[1] PortCountersExtended.PortXmitData=7'
wait_perf 2
after=$(total L1 1 xmit_data)
(( after >= before + 7 && after < before + 100000 )) || fail "xmit_data went from $before to $after after a counter reset"
note "a counter that went down: total $before -> $after"

fd_stop
# perfquery agrees with what fabricd stored: an idle host port sent only
# the answers to fabricd's last queries since its last reading (one, or a
# few more when a query was retried or the stop came mid-sweep)
H7=$(lid_of H7_0)
diag perfquery -x "$H7" 1 >"$WORK/pq.txt" || fail "perfquery: $(cat "$WORK/diag.err")"
pq=$(awk -F. '/^PortXmitPkts:/ {print $NF}' "$WORK/pq.txt")
stored=$(total H7_0 1 xmit_pkts)
(( pq - stored >= 1 && pq - stored <= 6 )) || fail "perfquery PortXmitPkts $pq, fabricd's total $stored"
note "perfquery agrees: H7_0[1] PortXmitPkts $pq, fabricd's total $stored plus its last answers"
kept=$(total L0 1 symbol_errors)
fd_start -c "$WORK/fabricd.yaml"
fd_wait_up 60
sim_cmd 'PerformanceSet "L0"[1] PortCounters.SymbolErrorCounter=5'
wait_perf 3
[[ $(total L0 1 symbol_errors) == $((kept + 5)) ]] || fail "after a restart: $(total L0 1 symbol_errors), want $((kept + 5))"
(( $(sqlite3 "$DB" 'SELECT count(*) FROM perf_samples') > 0 )) || fail "no samples stored"
note "totals survive a restart: $kept + 5"
fd_stop
