#!/usr/bin/env bash
# light.sh BUILD NETFILE
#
# Light sweeps find what no trap reports: with traps ignored
# (react_to_traps: 0) and a light sweep every second, an unchanged fabric
# costs one SwitchInfo Get per switch and no heavy sweep; ibsim's Unlink
# sets PortStateChange on the switches at both ends, the next light sweep
# sees it and a heavy sweep reroutes and logs link_down; ReLink likewise.
# Run it under unshare -n.
set -euo pipefail
BUILD=$1 NET=$2
WORK=$(mktemp -d /tmp/fabricd-light.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

printf 'sweep_interval: 1\nreact_to_traps: 0\nlog_level: debug\n' >"$WORK/fabricd.yaml"
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
fd_stop
echo PASS
