#!/usr/bin/env bash
# roce.sh BUILD FABRICS_DIR
#
# The RoCE planning mode end to end, judged from its files: generated
# 3-tier (full) and 2-tier (links removed) Clos fabrics are planned safe
# after every single link failure and "plan check" proves the written
# tables again; a spine ring's shortest-path cycle is named; plans edited
# into a loop or short of PFC headroom are refused; bad input gets
# file:line errors. What eBGP converges to (simulated) is the planned
# tables as designed and safe after every failure. The eBGP configurations carry RFC 7938 AS numbers
# (fabric-gen gives none; the planner assigns them) and FRR's own parser
# (vtysh --dryrun) accepts every one; AS numbers that allow a valley (one
# per spine) are refused, named; --routing static writes static routes.
# No simulator is needed.
set -euo pipefail
BUILD=$1
FABRICS=$2
WORK=$(mktemp -d /tmp/fabricd-roce.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
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
ls "$WORK"/ft3/*.frr.conf "$WORK"/ft3/*.sonic.json | wc -l | grep -qx 160 || fail "ft3: expected 80 switch file sets"
[[ -s "$WORK/ft3/L0.yaml" && -s "$WORK/ft3/L0.frr.conf" && -s "$WORK/ft3/summary.txt" ]] || fail "ft3: files missing"
grep -q '^failures: 256 safe, 0 unsafe, 0 cut a switch off' "$WORK/ft3.out" || fail "ft3: not every failure safe"
grep -q '^BGP: AS numbers assigned per RFC 7938' "$WORK/ft3.out" || fail "ft3: no ASN plan: $(grep BGP "$WORK/ft3.out")"
# what BGP converges to, simulated, is the planned tables as designed and safe after every failure
grep -q '^  eBGP as it converges with these ASNs: loop-free, no CBD.*(the planned tables exactly)$' "$WORK/ft3.out" ||
	fail "ft3: $(grep 'eBGP as it' "$WORK/ft3.out")"
grep -q '^eBGP after failures: 256 safe, 0 unsafe' "$WORK/ft3.out" || fail "ft3: $(grep '^eBGP after' "$WORK/ft3.out")"
grep -q '^switch failures: 80 safe, 0 unsafe, 32 cut a switch off' "$WORK/ft3.out" || fail "ft3: a switch failure is unsafe"
grep -q '^eBGP after switch failures: 80 safe, 0 unsafe' "$WORK/ft3.out" ||
	fail "ft3: $(grep '^eBGP after switch' "$WORK/ft3.out")"
note "ft3: $(grep '^eBGP after' "$WORK/ft3.out" | tr '\n' ' ')"
for conf in "$WORK"/ft3/*.frr.conf; do
	vtysh --dryrun -f "$conf" >"$WORK/vtysh.out" 2>&1 || fail "vtysh --dryrun rejects $conf: $(cat "$WORK/vtysh.out")"
done
note "vtysh --dryrun (FRR $(dpkg-query -W -f='${Version}' frr)) accepts all $(ls "$WORK"/ft3/*.frr.conf | wc -l) eBGP configurations"
# SONiC config_db fragments: valid JSON, tables, keys and leaves of SONiC's YANG models (sonic_schema.jq)
for frag in "$WORK"/ft3/*.sonic.json; do
	ports=$(jq -c '[.ports[].name]' "${frag%.sonic.json}.json")
	errors=$(jq -r --argjson ports "$ports" -f "$here/sonic_schema.jq" "$frag") || fail "$frag: not JSON"
	[[ -z $errors ]] || fail "$frag: $(head -3 <<<"$errors")"
done
jq -e '.BUFFER_PG["swp1|3"].profile == "pg_lossless_100000_2m_profile" and .PORT_QOS_MAP.swp5.pfc_enable == "3"
	and .QUEUE["swp5|6"].scheduler == "FABRICD_STRICT" and .QUEUE["swp5|3"].wred_profile == "FABRICD_ECN_400G"
	and (.BUFFER_PROFILE.pg_lossless_400000_10m_profile.xoff | tonumber) > 0' "$WORK/ft3/L0.sonic.json" >/dev/null ||
	fail "ft3: L0's SONiC fragment lacks its lossless settings"
[[ $(jq -r '.ports[] | select(.name == "swp5") | .pfc.headroom_bytes' "$WORK/ft3/L0.json") == \
   $(jq -r '.BUFFER_PROFILE.pg_lossless_400000_10m_profile.xoff' "$WORK/ft3/L0.sonic.json") ]] ||
	fail "ft3: the SONiC xoff is not the planned headroom"
# the checker is no rubber stamp: a PG beyond 7, a scheduler nobody defines, a table SONiC lacks
jq '.BUFFER_PG["swp1|9"] = {"profile": "x"} | .QUEUE["swp1|3"].scheduler = "nope" | .FOO = {}' \
	"$WORK/ft3/L0.sonic.json" >"$WORK/broken.json"
[[ $(jq -r --argjson ports "$(jq -c '[.ports[].name]' "$WORK/ft3/L0.json")" -f "$here/sonic_schema.jq" \
	"$WORK/broken.json" | wc -l) == 4 ]] || fail "sonic_schema.jq misses errors"
note "SONiC fragments: $(ls "$WORK"/ft3/*.sonic.json | wc -l) follow the config_db schema"
sh -n "$WORK/ft3/hosts-nic.sh" || fail "hosts-nic.sh is not a shell script"
grep -q '^dcb pfc set dev "$IF" prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off$' "$WORK/ft3/hosts-nic.sh" ||
	fail "hosts-nic.sh: PFC is not on priority 3 alone"
grep -q '^dcb app replace dev "$IF" dscp-prio 26:3 48:6$' "$WORK/ft3/hosts-nic.sh" || fail "hosts-nic.sh: DSCP map"
# leaves their own ASN, each pod's aggregation switches one, the cores one
[[ $(grep -h '^router bgp' "$WORK"/ft3/L*.frr.conf | sort -u | wc -l) == 32 ]] || fail "ft3: leaves share ASNs"
[[ $(grep -h '^router bgp' "$WORK"/ft3/A*.frr.conf | sort -u | wc -l) == 8 ]] || fail "ft3: not one ASN per pod"
[[ $(grep -h '^router bgp' "$WORK"/ft3/C*.frr.conf | sort -u | wc -l) == 1 ]] || fail "ft3: the cores differ"
grep -q '^ neighbor swp5 interface peer-group fabric$' "$WORK/ft3/L0.frr.conf" || fail "ft3: L0 has no unnumbered session on swp5"
grep -q '^  network 10.0.0.0/24$' "$WORK/ft3/L0.frr.conf" || fail "ft3: L0 does not announce its prefix"
grep -q '^ ip address 10.0.0.1/24$' "$WORK/ft3/L0.frr.conf" || fail "ft3: L0 has no gateway address"
# static routes, on request: a leaf reaches another pod's prefix over all 4 of its aggregation switches
plan ft3 --routing static
[[ $(grep -c '^ip route 10.0.31.0/24 swp' "$WORK/ft3/L0.frr.conf") == 4 ]] || fail "ft3: L0 lacks 4-way ECMP to L31"
# one ASN per spine lets routes go down to a leaf and up again: refused
awk '/^  - name: /{print; n++; printf "    asn: %d\n", 65000 + n; next} {print}' "$WORK/ft3.yaml" >"$WORK/unique.yaml"
expect 1 'unsafe AS numbers: valley: A0 \(AS [0-9]+\) and A1 \(AS [0-9]+\) are both above L0' \
	"$FABRICCTL" plan roce "$WORK/unique.yaml" --out "$WORK/unique"
ls "$WORK"/unique/*.frr.conf >/dev/null 2>&1 && fail "switch files written for an unsafe ASN plan"
expect 0 'ft3: 80 switches, 256 links, 32 prefixes: loop-free.*SAFE' "$FABRICCTL" plan check "$WORK/ft3"

"$GEN" --levels 2 --radix 16 --remove-links 10 --seed 3 --format roce -o "$WORK/ft2d.yaml"
plan ft2d
grep -q '^failures: 118 safe, 0 unsafe' "$WORK/ft2d.out" || fail "ft2d: not every failure safe"
expect 0 'ft2d: 24 switches, 118 links.*SAFE' "$FABRICCTL" plan check "$WORK/ft2d"

# the spine ring: shortest paths close a cycle, the plan (up/down) does not
cp "$FABRICS/roce-spine-ring.yaml" "$WORK/ring.yaml"
# with eBGP the spines share an ASN and reject each other's routes over the ring
expect 1 "what eBGP converges to is unsafe \(leaf1 cannot reach leaf0: its paths dead-end\)" \
	"$FABRICCTL" plan roce "$WORK/ring.yaml" --out "$WORK/ring-bgp"
plan ring --routing static
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
expect 2 "--routing is bgp or static, not 'ospf'" "$FABRICCTL" plan roce "$WORK/ft3.yaml" --out "$WORK/x" --routing ospf
expect 1 "cannot open the plan directory" "$FABRICCTL" plan check "$WORK/nowhere"
echo "PASS: roce planning"
