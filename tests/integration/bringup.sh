#!/usr/bin/env bash
# bringup.sh BUILD NETFILE [TRACE_SAMPLES] [SIM_HOST]
#
# Brings the fabric in NETFILE up with fabricd under ibsim and proves it
# with infiniband-diags: sminfo sees fabricd MASTER, every link is Active,
# every port has a unique LID, every switch routes every LID, sampled CA
# pairs trace end to end, fabricctl's stored view matches the net file.
# With SHIFT_LOAD set, the dumped tables must load the busiest link with
# exactly that many flows under every shift permutation; with
# STRICT_BALANCE=1, check_lft_balance must find every switch balanced.
# Then a second fabricd run must keep every LID. Run it under unshare -n.
set -euo pipefail
BUILD=$1 NET=$2 SAMPLES=${3:-200}
[[ -n ${4:-} ]] && export SIM_HOST=$4
WORK=$(mktemp -d /tmp/fabricd-it.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/checks.sh"

sim_start "$NET"
fd_start
fd_wait_up 120
links=$("$FABRICCTL" -d "$DB" -S "$SOCK" --json status | grep -o '"links": [0-9]*' | cut -d' ' -f2)
nodes=$("$FABRICCTL" -d "$DB" -S "$SOCK" --json status | grep -o '"nodes": [0-9]*' | cut -d' ' -f2)
"$FABRICCTL" -d "$DB" -S "$SOCK" status
"$FABRICCTL" -d "$DB" diff "$NET" || fail "the stored fabric differs from $NET"
diag ibnetdiscover >"$WORK/ibnetdiscover.out" || fail "ibnetdiscover failed"
"$FABRICCTL" -d "$DB" diff "$WORK/ibnetdiscover.out" >/dev/null ||
	fail "the stored fabric differs from what ibnetdiscover sees: $("$FABRICCTL" -d "$DB" diff "$WORK/ibnetdiscover.out" | head -3)"
"$FABRICCTL" -d "$DB" sweeps | grep -Eq "^ +1 +heavy .* $nodes +$links +ok$" ||
	fail "fabricctl sweeps does not list the sweep: $("$FABRICCTL" -d "$DB" sweeps)"
"$FABRICCTL" -d "$DB" events | grep -q "heavy sweep: ok, $nodes nodes, $links links" ||
	fail "fabricctl events does not show the sweep"

check=$("$FABRICCTL" -d "$DB" --json check || true)
[[ $check == *'"unreachable": 0,'* ]] || fail "fabricctl check finds unreachable routes: $check"
[[ $check == *'"credit_loop": null'* ]] || fail "fabricctl check finds a credit loop: $check"
note "fabricctl check: every CA port reaches every LID, no credit loop ($check)"
credits=$("$FABRICCTL" -d "$DB" --json credits)
(( $(grep -o '"credits_per_vl"' <<<"$credits" | wc -l) == links )) || fail "fabricctl credits does not list the $links links"
[[ -z $(grep -o '"rate": "4xSDR", "gbps": 8.00, "credits_per_vl": [0-9]*' <<<"$credits" | grep -v ' 70$') ]] ||
	fail "a 4xSDR link on 5 m needs 70 credits per VL: $credits"
note "fabricctl credits: $links links, 4xSDR on 5 m: 70 credits per VL"
check_master
check_links_active "$links"
check_vls 8
check_hoq
check_master_smsl
check_lids
nlids=$(diag ibnetdiscover -p | awk '$1 == "CA" {print $4} $1 == "SW" {print $4}' | sort -u | wc -l)
assigned=$(grep -m1 'sweep: lids' "$WORK/fabricd.log" | grep -o '[0-9]* kept, [0-9]* taken over from the ports, [0-9]* new' |
	awk '{print $1 + $3 + $9}')
(( nlids == assigned )) || fail "ibnetdiscover sees $nlids addressable ports, fabricd gave $assigned LIDs"
maxlid=$(diag ibnetdiscover -p | awk '$1 == "CA" || $1 == "SW" {print $2}' | sort -n | tail -1)
check_full_lfts "$nlids" "$maxlid"
check_quality "${SHIFT_LOAD:-}"
check_balance "${STRICT_BALANCE:-0}"
check_traces "$SAMPLES"
lid_snapshot "$WORK/lids.before"
fd_stop

note "second run on the configured fabric"
fd_once || fail "second fabricd --once run failed: $(tail -3 "$WORK/fabricd.log")"
lid_snapshot "$WORK/lids.after"
diff -u "$WORK/lids.before" "$WORK/lids.after" || fail "LIDs changed on the second run"
grep -q "lids .*$nlids kept, 0 taken over from the ports, 0 new" "$WORK/fabricd.log" ||
	fail "second run did not keep all $nlids stored LIDs"
note "second run kept all $nlids LIDs ($nodes nodes, $links links)"
rm -rf "$WORK"
echo "PASS"
