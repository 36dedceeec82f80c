#!/usr/bin/env bash
# roce.sh BUILD FABRICS_DIR
#
# The RoCE planning mode end to end, judged from its files: generated
# 3-tier (full) and 2-tier (links removed) Clos fabrics are planned safe
# after every single link failure and "plan check" proves the written
# tables again; a spine ring's shortest-path cycle is named; plans edited
# into a loop or short of PFC headroom are refused; bad input gets
# file:line errors. No simulator is needed.
set -euo pipefail
BUILD=$1
FABRICS=$2
WORK=$(mktemp -d /tmp/fabricd-roce.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
here=$(dirname "$0")
. "$here/lib.sh"
GEN="$BUILD/topology/fabric-gen"

# plan NAME ARGS...: plans $WORK/NAME.yaml into $WORK/NAME, expecting a SAFE verdict.
plan() {
	local name=$1
	shift
	"$FABRICCTL" plan roce "$WORK/$name.yaml" --out "$WORK/$name" "$@" >"$WORK/$name.out" ||
		fail "plan roce $name exited $?: $(tail -3 "$WORK/$name.out")"
	grep -q '^verdict: SAFE$' "$WORK/$name.out" || fail "$name: no SAFE verdict"
	note "$name: $(grep '^failures:' "$WORK/$name.out")"
}

# expect CODE PATTERN CMD...: CMD exits with CODE and its stderr or stdout matches PATTERN.
expect() {
	local code=$1 pattern=$2 rc=0
	shift 2
	"$@" >"$WORK/out" 2>&1 || rc=$?
	(( rc == code )) || fail "'$*' exited $rc, expected $code: $(tail -2 "$WORK/out")"
	grep -Eq -e "$pattern" "$WORK/out" || fail "'$*' said '$(tail -2 "$WORK/out")', expected /$pattern/"
	note "$(grep -E -m1 -e "$pattern" "$WORK/out" | cut -c1-160)"
}

"$GEN" --levels 3 --radix 8 --format roce -o "$WORK/ft3.yaml"
plan ft3
ls "$WORK"/ft3/*.json | wc -l | grep -qx 80 || fail "ft3: expected 80 switch files"
[[ -s "$WORK/ft3/L0.yaml" && -s "$WORK/ft3/L0.frr.conf" && -s "$WORK/ft3/summary.txt" ]] || fail "ft3: files missing"
grep -q '^failures: 256 safe, 0 unsafe, 0 cut a switch off' "$WORK/ft3.out" || fail "ft3: not every failure safe"
# a leaf reaches another pod's prefix over all 4 of its aggregation switches
[[ $(grep -c '^ip route 10.0.31.0/24 swp' "$WORK/ft3/L0.frr.conf") == 4 ]] || fail "ft3: L0 lacks 4-way ECMP to L31"
expect 0 'ft3: 80 switches, 256 links, 32 prefixes: loop-free.*SAFE' "$FABRICCTL" plan check "$WORK/ft3"

"$GEN" --levels 2 --radix 16 --remove-links 10 --seed 3 --format roce -o "$WORK/ft2d.yaml"
plan ft2d
grep -q '^failures: 118 safe, 0 unsafe' "$WORK/ft2d.out" || fail "ft2d: not every failure safe"
expect 0 'ft2d: 24 switches, 118 links.*SAFE' "$FABRICCTL" plan check "$WORK/ft2d"

# the spine ring: shortest paths close a cycle, the plan (up/down) does not
cp "$FABRICS/roce-spine-ring.yaml" "$WORK/ring.yaml"
plan ring
grep -q 'shortest-path ECMP.*UNSAFE: cyclic buffer dependency spine0:swp2 -> spine1:swp2 -> spine2:swp2 -> spine3:swp2 -> spine4:swp2 -> spine0:swp2' \
	"$WORK/ring.out" || fail "ring: the shortest-path cycle is not named"
expect 0 'ring: .*no CBD.*SAFE' "$FABRICCTL" plan check "$WORK/ring"

# edit the plan: S0 sends L0's prefix to L1, which sends it back up to S0
group=$(sed -n 's/.*"prefix": "10.0.1.0\/24", "class": "hosts", "group": \([0-9]*\)}.*/\1/p' "$WORK/ft2d/S0.json")
[[ -n "$group" ]] || fail "no S0 route to 10.0.1.0/24"
sed -i "s/\"prefix\": \"10.0.0.0\/24\", \"class\": \"hosts\", \"group\": [0-9]*}/\"prefix\": \"10.0.0.0\/24\", \"class\": \"hosts\", \"group\": $group}/" \
	"$WORK/ft2d/S0.json"
expect 1 'UNSAFE: forwarding loop towards 10.0.0.0/24: (L1 -> S0|S0 -> L1)' "$FABRICCTL" plan check "$WORK/ft2d"
sed -i '0,/"headroom_bytes": [0-9]*/s//"headroom_bytes": 1/' "$WORK/ft3/L5.json"
expect 1 'L5.json: port swp1 has 1 bytes of PFC headroom, [0-9]+ needed' "$FABRICCTL" plan check "$WORK/ft3"
sed -i 's/"headroom_bytes": 1}/"headroom_bytes": 999999}/' "$WORK/ft3/L5.json"
rm "$WORK/ft3/A0.json"
expect 1 'C0.json: port swp1 says its peer is A0:swp5, which does not say so back' "$FABRICCTL" plan check "$WORK/ft3"

# bad input
printf 'switches:\n  - { name: leaf0, tier: 0, prefixes: [10.0.0.1/24] }\n' >"$WORK/bad.yaml"
expect 2 "bad.yaml:2: '10.0.0.1/24' has host bits set beyond /24" "$FABRICCTL" plan roce "$WORK/bad.yaml" --out "$WORK/bad"
expect 2 "needs FILE.yaml and --out DIR" "$FABRICCTL" plan roce "$WORK/ft3.yaml"
expect 2 "--failures must be a count" "$FABRICCTL" plan roce "$WORK/ft3.yaml" --out "$WORK/x" --failures -1
expect 1 "cannot open the plan directory" "$FABRICCTL" plan check "$WORK/nowhere"
echo "PASS: roce planning"
