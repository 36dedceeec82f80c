#!/usr/bin/env bash
# ring.sh BUILD RINGFILE
#
# A fabric that is not a fat tree, with a credit loop for min-hop: five
# switches in a ring. min-hop with one VL is refused (the sweep fails,
# naming the loop, and nothing is stored); min-hop with 8 VLs comes up on
# two VL layers that the checker proves acyclic; ftree falls back to
# up/down on one VL. Run it under unshare -n.
set -euo pipefail
BUILD=$1 NET=$2
WORK=$(mktemp -d /tmp/fabricd-ring.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/checks.sh"

sim_start "$NET"

printf 'routing_engine: minhop\nmax_op_vls: 1\n' >"$WORK/minhop1.yaml"
rc=0; fd_once -c "$WORK/minhop1.yaml" || rc=$?
(( rc == 1 )) || fail "min-hop on one VL: fabricd exited $rc, expected 1"
grep -q "routing refused: credit loop on VL 0 even with 1 VLs: R" "$WORK/fabricd.log" ||
	fail "the refusal does not name the loop: $(grep -i refused "$WORK/fabricd.log")"
"$FABRICCTL" -d "$DB" sweeps | grep -q heavy && fail "a refused sweep was stored"
note "min-hop, 1 VL: $(grep -o 'routing refused.*' "$WORK/fabricd.log")"

printf 'routing_engine: minhop\n' >"$WORK/minhop8.yaml"
fd_once -c "$WORK/minhop8.yaml" || fail "min-hop on 8 VLs did not come up: $(tail -2 "$WORK/fabricd.log")"
check=$("$FABRICCTL" -d "$DB" --json check) || fail "fabricctl check: $check"
[[ $check == *'"unreachable": 0,'*'"vls": 2,'*'"credit_loop": null'* ]] || fail "min-hop, 8 VLs: $check"
grep -q "engine minhop (0 levels), max LID [0-9]*, 2 of 8 VLs" "$WORK/fabricd.log" || fail "route line: $(grep 'sweep: route' "$WORK/fabricd.log")"
note "min-hop, 8 VLs: two layers, acyclic ($check)"
# a destination on layer 1 travels on SL 1, VL 1 at every hop
layer1=""
for src in H0 H1 H2 H3 H4; do for dst in H0 H1 H2 H3 H4; do
	[[ $src == "$dst" ]] && continue
	out=$("$FABRICCTL" -d "$DB" --json route "$src" "$dst")
	[[ $out == *'"sl": 1,'* ]] || continue
	[[ -z $(grep -o '"vl": [0-9]*' <<<"$out" | grep -v '"vl": 1$') ]] || fail "SL 1 route off VL 1: $out"
	layer1="$src->$dst"
done; done
[[ -n $layer1 ]] || fail "no route travels on SL 1"
note "fabricctl route: layer-1 destinations go SL 1 / VL 1 on every hop (e.g. $layer1)"
check_traces 20

# the SA's PathRecords carry the SL of the routing's layer, for every pair (saquery asks from H1)
fd_start -c "$WORK/minhop8.yaml"
fd_wait_up 30
lid_of() { "$FABRICCTL" -d "$DB" --json node "$1" | grep -o '"lid": [0-9]*' | head -1 | cut -d' ' -f2; }
on_sl1=0
for src in H0 H1 H2 H3 H4; do for dst in H0 H1 H2 H3 H4; do
	[[ $src == "$dst" ]] && continue
	want=$("$FABRICCTL" -d "$DB" --json route "$src" "$dst" | grep -o '"sl": [0-9]*' | head -1 | cut -d' ' -f2)
	SIM_HOST=H1 diag saquery -p --slid "$(lid_of "$src")" --dlid "$(lid_of "$dst")" >"$WORK/pr" ||
		fail "saquery -p $src $dst: $(cat "$WORK/diag.err")"
	got=$(awk -F. '$1 ~ /^[ \t]*sl$/ {print $NF; exit}' "$WORK/pr")
	[[ -n $got ]] && (( got == want )) || fail "PathRecord $src -> $dst: SL '$got', the routing's layer is $want"
	(( want == 1 )) && on_sl1=$((on_sl1 + 1))
done; done
(( on_sl1 > 0 )) || fail "no PathRecord on SL 1"
note "saquery PathRecords: SL = the routing's VL layer for all 20 pairs ($on_sl1 on SL 1)"
fd_stop

printf 'routing_engine: ftree\n' >"$WORK/ftree.yaml"
fd_once -c "$WORK/ftree.yaml" || fail "ftree did not come up: $(tail -2 "$WORK/fabricd.log")"
grep -q "route: not a fat tree: link R" "$WORK/fabricd.log" || fail "no fallback warning in the log"
check=$("$FABRICCTL" -d "$DB" --json check) || fail "fabricctl check: $check"
[[ $check == *'"vls": 1,'*'"credit_loop": null'* ]] || fail "ftree on a ring: $check"
out=$("$FABRICCTL" -d "$DB" status) || true	# exits 4: no fabricd runs after --once
grep -q '^routing: *updown (3 levels) on 1 VL; not a fat tree: link R' <<<"$out" ||
	fail "fabricctl status does not tell the fallback: $(grep routing <<<"$out")"
note "ftree on a ring: $(grep -o 'route: not a fat tree.*' "$WORK/fabricd.log" | tail -1)"
check_traces 20
echo PASS
