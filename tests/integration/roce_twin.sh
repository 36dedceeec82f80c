#!/usr/bin/env bash
# roce_twin.sh BUILD FABRICS_DIR
#
# The RoCE digital twin (scripts/roce-twin.sh): plans brought up on real FRR
# (zebra, staticd, bgpd) in network namespaces, their kernel FIBs proven by
# `fabricctl plan fib` and compared with the planner's eBGP simulation.
# - A generated 2-tier Clos (8 leaves, 4 spines, RFC 7938 ASNs): the FIBs
#   are the planned tables, every host pings every other, and after a leaf
#   uplink fails, after a whole spine fails (and after each returns) the
#   FIBs are safe and exactly what the simulation predicted.
# - A 3-tier Clos with one ASN per switch (tests/fabrics/roce-bad-asn.yaml):
#   safe as designed, but once L0-A0 and L1-A1 fail the FIBs real BGP
#   installs go down into pod 1 and up again, and the proof names the
#   cyclic buffer dependency; the simulation predicted exactly those FIBs.
#   The same fabric and failures with RFC 7938 ASNs: no CBD; BGP rejects
#   the valleys and L0 and L1 lose each other instead (named).
set -euo pipefail
BUILD=$1
FABRICS=$2
WORK=$(mktemp -d /tmp/fabricd-twintest.XXXXXX)
chmod 755 "$WORK"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
GEN="$BUILD/topology/fabric-gen"
TWIN=$here/../../scripts/roce-twin.sh

# twin NAME EXPECTED_RC ARGS...: runs the twin on plan $WORK/NAME, output in $WORK/NAME.twin.
twin() {
	local name=$1 want=$2 rc=0
	shift 2
	bash "$TWIN" "$WORK/$name" --fabricctl "$FABRICCTL" --work "$WORK/$name.run" "$@" >"$WORK/$name.twin" 2>&1 || rc=$?
	sed 's/^/   /' "$WORK/$name.twin"
	((rc == want)) || fail "twin $name exited $rc, expected $want"
}

# step NAME STEP: the proof's lines for one state of the twin.
step() { awk -v s="/fib-$2:" 'index($0, s) { on = 1; print; next } on && /^  / { print; next } { on = 0 }' "$WORK/$1.twin"; }

"$GEN" --levels 2 --radix 8 --format roce -o "$WORK/clos2.yaml"
"$FABRICCTL" plan roce "$WORK/clos2.yaml" --out "$WORK/clos2" >/dev/null || fail "clos2 is not planned safe"
# a leaf uplink, then a whole spine (all 8 of its links at once)
twin clos2 0 --fail L0:swp5 --fail "$(echo S2:swp{1..8} | tr ' ' ,)"
grep -q '^twin: 12 switches, 32 links, 8 host namespaces' "$WORK/clos2.twin" || fail "clos2: not the whole fabric"
for s in design fail1 restore1 fail2 restore2; do
	step clos2 $s | grep -q ': SAFE$' || fail "clos2 $s: $(step clos2 $s | head -1)"
	step clos2 $s | grep -q '^  eBGP simulation: identical on all 12 switches$' || fail "clos2 $s: $(step clos2 $s | tail -1)"
done
step clos2 design | grep -q '^  the planned tables: identical on 12 of 12 switches$' || fail "clos2: the FIBs are not the plan"
step clos2 fail1 | grep -q ', 1 links down: ' || fail "clos2: the failure was not taken into the proof"
step clos2 fail2 | grep -q ', 8 links down: ' || fail "clos2: the spine's failure was not taken into the proof"
[[ $(grep -c '^ping: 56 of 56 host pairs answer$' "$WORK/clos2.twin") == 3 ]] || fail "clos2: hosts cannot reach each other"
note "clos2: design, L0:swp5 down, S2 down, each restored: SAFE, the simulation's FIBs; 56 of 56 pings in each failure"

cp "$FABRICS/roce-bad-asn.yaml" "$WORK/bad.yaml"
"$FABRICCTL" plan roce "$WORK/bad.yaml" --out "$WORK/bad" --allow-unsafe >"$WORK/bad.plan" 2>&1 &&
	fail "a plan with one ASN per switch is called safe"
grep -q 'unsafe AS numbers: valley' "$WORK/bad.plan" || fail "bad: the ASN plan is not named unsafe"
twin bad 1 --fail L0:swp3,L1:swp4 --no-ping
step bad design | grep -q ': SAFE$' || fail "bad: unsafe as designed already"
step bad fail1 | grep -Eq 'UNSAFE: cyclic buffer dependency (A[23]:swp[12] -> L[23]:swp[34] -> ){2}A[23]:swp[12]$' ||
	fail "bad: no cyclic buffer dependency named after the failures: $(step bad fail1 | head -1)"
step bad fail1 | grep -q '^  eBGP simulation: identical on all 20 switches$' || fail "bad: the simulation missed it"
note "bad ASNs, L0-A0 and L1-A1 down: $(step bad fail1 | head -1 | sed 's/.*links down: //')"

# the same fabric and failures with the ASNs RFC 7938 gives (the planner's): BGP rejects the valleys, so
# L0 and L1 lose each other (a blackhole, not a deadlock): no cyclic buffer dependency
sed '/^    asn: /d' "$FABRICS/roce-bad-asn.yaml" >"$WORK/rfc.yaml"
"$FABRICCTL" plan roce "$WORK/rfc.yaml" --out "$WORK/rfc" >/dev/null || fail "rfc: not planned safe"
twin rfc 1 --fail L0:swp3,L1:swp4 --no-ping
step rfc design | grep -q ': SAFE$' || fail "rfc: $(step rfc design | head -1)"
step rfc fail1 | grep -Eq 'UNSAFE: L[01] cannot reach 10\.0\.[01]\.0/24: its paths dead-end$' ||
	fail "rfc: $(step rfc fail1 | head -1)"
step rfc fail1 | grep -q '^  no cyclic buffer dependency' || fail "rfc: a CBD with RFC 7938 ASNs"
step rfc fail1 | grep -q '^  eBGP simulation: identical on all 20 switches$' || fail "rfc: the simulation differs"
note "RFC 7938 ASNs, same failures: $(step rfc fail1 | head -2 | sed 's/.*links down: //; s/^ *//' | tr '\n' ' ')"
ip netns list | grep -q '^fdtw' && fail "the twin left network namespaces behind"
echo "PASS: roce twin"
