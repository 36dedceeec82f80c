#!/usr/bin/env bash
# light.sh BUILD NETFILE
#
# Light sweeps find what no trap reports: with traps ignored
# (react_to_traps: 0) and a light sweep every second, an unchanged fabric
# costs one SwitchInfo Get per switch and no heavy sweep; ibsim's Unlink
# sets PortStateChange on the switches at both ends, the next light sweep
# sees it and a heavy sweep reroutes and logs link_down; ReLink likewise.
# Then the table audit finds an LFT entry changed behind fabricd's back,
# and a light sweep a switch's LinearFDBTop changed. Each change found is
# timed until the switches hold its tables (/metrics, fabricctl status).
# Run it under unshare -n.
set -euo pipefail
BUILD=$1 NET=$2
WORK=$(mktemp -d /tmp/fabricd-light.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

printf 'sweep_interval: 1\nreact_to_traps: 0\nlog_level: debug\nmetrics_listen: "127.0.0.1:19683"\n' >"$WORK/fabricd.yaml"
sim_start "$NET"
fd_start -c "$WORK/fabricd.yaml"
fd_wait_up 60
nsw=$("$FABRICCTL" -d "$DB" -S "$SOCK" --json status | grep -o '"switches": [0-9]*' | cut -d' ' -f2)
sleep 2.5
grep -q "light sweep: no change on $nsw switches ([0-9]* ms, $nsw SMPs)" "$WORK/fabricd.log" ||
	fail "no quiet light sweep of $nsw SMPs: $(grep 'light sweep' "$WORK/fabricd.log" | tail -2)"
(( $(grep -c "SUBNET UP" "$WORK/fabricd.log") == 1 )) || fail "an unchanged fabric got a heavy sweep"
note "unchanged fabric: $(grep -m1 -o 'light sweep: no change.*' "$WORK/fabricd.log"), no heavy sweep"

sim_cmd 'Unlink "L1"[5]'
fd_wait_ups 2
grep -q "light sweep: [1-9][0-9]* of $nsw switches report port changes" "$WORK/fabricd.log" ||
	fail "the heavy sweep did not come from a light sweep"
"$FABRICCTL" -d "$DB" events | grep -q 'link_down.*L1\[5\]' || fail "no link_down at L1[5]"
"$FABRICCTL" -d "$DB" events | grep -q 'trap 128' || fail "the ignored trap was not recorded"
"$FABRICCTL" -d "$DB" --json check | grep -q '"unreachable": 0,.*"credit_loop": null' || fail "check after Unlink"
note "Unlink: $(grep -m1 -o 'light sweep: [1-9].*' "$WORK/fabricd.log")"

sim_cmd 'ReLink "L1"[5]'
fd_wait_ups 3
"$FABRICCTL" -d "$DB" events | grep -q 'link_up.*L1\[5\]' || fail "no link_up at L1[5]"
note "ReLink: found by a light sweep, link_up recorded"

# The table audit: an LFT entry of L0 changed behind fabricd's back (as a
# Set that landed late, or another SM, would leave it), by an SMP from a
# host (tests/tools/hostile.c, no M_Key set here). The audit after the
# next quiet light sweep reads L0's block back, names the entry (so the
# Set landed: fabricd may put it back before any tool here could look),
# and a full sweep reads L0 back and writes that block again: ibroute,
# the judge, shows the entry as it was.
sw=$(lid_of L0) dst=$(lid_of H7_0)
was=$(lft_port "$sw" "$dst")
[[ $was =~ ^[5-8]$ ]] || fail "L0 routes H7_0 (LID $dst) by port '$was', not an up-link"
other=$(( was == 5 ? 6 : 5 ))
SIM_HOST=H3_1 diag "$BUILD/tests/hostile" lft-set "$sw" $((dst / 64)) $((dst % 64)) "$other" >"$WORK/lft-set.out" ||
	fail "hostile lft-set: $(cat "$WORK/lft-set.out" "$WORK/diag.err")"
fd_wait_ups 4
grep -q "table audit: L0 (0x[0-9a-f]*) holds LFT block $((dst / 64)) unlike the published tables: 1 of its [0-9]* entries differ (LID $dst: port $other, published $was)" \
	"$WORK/fabricd.log" || fail "the audit did not name L0's entry: $(grep 'table audit' "$WORK/fabricd.log" | head -3)"
[[ $(lft_port "$sw" "$dst") == "$was" ]] || fail "after the audit's sweep L0 routes LID $dst by port $(lft_port "$sw" "$dst"), not $was"
grep -q "sweep: readback .* 1 LFT blocks read, 0 unreadable" "$WORK/fabricd.log" ||
	fail "the sweep after the audit did not read L0 back alone: $(grep 'readback' "$WORK/fabricd.log" | tail -1)"
grep -q "sweep: program .* 1 LFT blocks sent, 11 unchanged and skipped" "$WORK/fabricd.log" ||
	fail "the sweep after the audit wrote more than L0's block: $(grep 'sweep: program' "$WORK/fabricd.log" | tail -1)"
"$FABRICCTL" -d "$DB" events | grep -q 'audit.*L0.*LFT block' || fail "no audit event"
"$FABRICCTL" -d "$DB" -S "$SOCK" status | grep -q 'LFT audit: .* 1 unlike the published tables' ||
	fail "fabricctl status: $("$FABRICCTL" -d "$DB" -S "$SOCK" status | grep 'LFT audit')"
curl -sf http://127.0.0.1:19683/metrics >"$WORK/metrics.txt" || fail "no /metrics answer"
promtool check metrics <"$WORK/metrics.txt" || fail "promtool rejects /metrics"
grep -q '^fabricd_lft_audit_blocks_total{held="other"} 1$' "$WORK/metrics.txt" ||
	fail "metrics: $(grep lft_audit "$WORK/metrics.txt")"
# three reported changes answered (Unlink, ReLink, the audit's finding), each timed until its tables were in place
grep -q '^fabricd_change_to_tables_seconds_count 3$' "$WORK/metrics.txt" &&
	grep -q '^fabricd_change_to_tables_seconds_bucket{le="+Inf"} 3$' "$WORK/metrics.txt" ||
	fail "metrics: $(grep change_to_tables "$WORK/metrics.txt")"
"$FABRICCTL" -d "$DB" -S "$SOCK" status | grep -q '^reactions:  3 reported changes answered; the switches held the new tables [0-9]* ms after' ||
	fail "fabricctl status: $("$FABRICCTL" -d "$DB" -S "$SOCK" status | grep 'reactions')"
sleep 2.5	# the audits after the next light sweeps find the tables as published: no heavy sweep
(( $(ups) == 4 )) || fail "the audits went on finding tables unlike the published ones: $(ups) sweeps"
note "LFT entry changed on L0 (LID $dst: port $was -> $other): $(grep -m1 -o 'table audit: [0-9]* of.*' "$WORK/fabricd.log")"
note "$("$FABRICCTL" -d "$DB" -S "$SOCK" status | grep 'reactions')"

# L2's LinearFDBTop lowered behind fabricd's back (the LIDs past it drop):
# the next light sweep sees it in the SwitchInfo it reads anyway, and a
# full sweep reads L2 back and sets its top again (smpquery, the judge).
sw=$(lid_of L2)
top() { diag smpquery switchinfo "$sw" | awk -F. '/^LinearFdbTop:/ {print $NF}'; }
max=$(top)
SIM_HOST=H3_1 diag "$BUILD/tests/hostile" lft-top "$sw" $((max - 8)) >"$WORK/lft-top.out" ||
	fail "hostile lft-top: $(cat "$WORK/lft-top.out" "$WORK/diag.err")"
fd_wait_ups 5
grep -q "light sweep: 1 switch holds a table top other than the published max LID $max, e.g. L2 (LinearFDBTop $((max - 8)))" \
	"$WORK/fabricd.log" || fail "the light sweep did not see L2's top: $(grep 'light sweep' "$WORK/fabricd.log" | tail -2)"
[[ $(top) == "$max" ]] || fail "after the sweep L2's LinearFDBTop is $(top), not $max"
grep "sweep: readback" "$WORK/fabricd.log" | tail -1 | grep -q " 1 LFT blocks read, 0 unreadable" ||
	fail "the sweep did not read L2 back alone: $(grep 'sweep: readback' "$WORK/fabricd.log" | tail -1)"
note "L2's LinearFDBTop lowered to $((max - 8)): $(grep -m1 -o 'light sweep: 1 switch holds.*' "$WORK/fabricd.log")"
fd_stop
echo PASS
