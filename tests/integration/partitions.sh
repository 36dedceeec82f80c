#!/usr/bin/env bash
# partitions.sh BUILD NETFILE (the bundled 2-level r8 tree)
#
# Partitions and M_Keys on a simulated fabric: two partitions are
# programmed exactly as configured (smpquery pkeys on host ports and on
# the switch ports facing them), fabricctl partitions lists them, a
# partition removed from the configuration is removed from the ports;
# random M_Keys are drawn once, stored, and reused after a restart, with
# the fabric still managed; bad partition configuration and a non-root
# fabricctl get one-line errors; OpenSM's partitions.conf for the same
# partitions programs the same tables. ibsim does not enforce M_Keys (it ignores
# the key in SMPs): enforcement is covered by the unit tests of the keys
# and the MADs that carry them. Run it under unshare -n.
set -euo pipefail
BUILD=$1 NET=$2
WORK=$(mktemp -d /tmp/fabricd-part.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

cat >"$WORK/fabricd.yaml" <<'YAML'
m_key: { random: true, protect: 1, lease_s: 60 }
sm_key: 0x1122334455667788
partitions:
  - { name: tenant-a, pkey: 0x0a01, full: ["H0_*", "H1_*"], limited: [H7_0] }
  - { name: tenant-b, pkey: 0x0b01, full: ["H2_*"] }
YAML
sim_start "$NET"
fd_once -c "$WORK/fabricd.yaml" || fail "first sweep failed: $(tail -3 "$WORK/fabricd.log")"
grep -q 'M_Keys    random keys, protect 1, lease 60 s; 44 drawn and stored' "$WORK/fabricd.log" ||
	fail "no M_Keys drawn for the 44 nodes: $(grep M_Keys "$WORK/fabricd.log")"

# lid_of NODE: a node's LID as the database has it
lid_of() { "$FABRICCTL" -d "$DB" --json node "$1" | grep -o '"lid": [0-9]*' | head -1 | cut -d' ' -f2; }
# pkeys LID [PORT]: the first P_Key table entries of a port, space-separated
pkeys() { diag smpquery pkeys "$@" | head -1 | sed 's/^ *0: //; s/ 0x0000//g'; }
expect_pkeys() {
	local want=$1 got
	shift
	got=$(pkeys "$@") || fail "smpquery pkeys $*: $(cat "$WORK/diag.err")"
	[[ $got == "$want" ]] || fail "pkeys $*: '$got', expected '$want'"
}
# expect_tenant_tables: the tables of the two tenants, on hosts and on the switch ports facing them
expect_tenant_tables() {
	expect_pkeys "0x8a01 0xffff" "$(lid_of H0_0)"
	expect_pkeys "0x8a01 0xffff" "$(lid_of H1_3)"
	expect_pkeys "0x0a01 0xffff" "$(lid_of H7_0)"
	expect_pkeys "0x8b01 0xffff" "$(lid_of H2_1)"
	expect_pkeys "0xffff" "$(lid_of H5_0)"
	# the switch port facing a host holds the host's table (L0 port 1 faces H0_0, L2 port 2 faces H2_1)
	expect_pkeys "0x8a01 0xffff" "$(lid_of L0)" 1
	expect_pkeys "0x8b01 0xffff" "$(lid_of L2)" 2
}
expect_tenant_tables
note "P_Key tables: H0_0/H1_3 full in tenant-a, H7_0 limited, H2_1 full in tenant-b, H5_0 default only; switch ports match"


"$FABRICCTL" -d "$DB" partitions >"$WORK/parts.txt"
grep -Eq '^0x0a01 +tenant-a +8 +1$' "$WORK/parts.txt" || fail "tenant-a: $(cat "$WORK/parts.txt")"
grep -Eq '^0x0b01 +tenant-b +4 +0$' "$WORK/parts.txt" || fail "tenant-b: $(cat "$WORK/parts.txt")"
grep -Eq '^0x7fff +default +32 +0$' "$WORK/parts.txt" || fail "default: $(cat "$WORK/parts.txt")"
"$FABRICCTL" -d "$DB" partitions tenant-a | grep -Eq '^H7_0 +0x[0-9a-f]+ +1 +limited$' || fail "H7_0 not limited"
note "fabricctl partitions: tenant-a 8 full + 1 limited, tenant-b 4, default 32"

# restart with the stored keys, and tenant-b gone from the configuration
sed -i '/tenant-b/d' "$WORK/fabricd.yaml"
fd_once -c "$WORK/fabricd.yaml" || fail "restart sweep failed: $(tail -3 "$WORK/fabricd.log")"
grep -q '0 drawn and stored' "$WORK/fabricd.log" || fail "the restart drew new M_Keys instead of the stored ones"
(( $(grep -c 'SUBNET UP' "$WORK/fabricd.log") == 2 )) || fail "no SUBNET UP after the restart"
expect_pkeys "0xffff" "$(lid_of H2_1)"
diag ibtracert "$(lid_of H0_0)" "$(lid_of H7_0)" >/dev/null || fail "ibtracert after the restart"
note "restart: the stored M_Keys reused, tenant-b removed from H2_1, routes intact"

# the SA gives no PathRecord between ports that share no partition
cat >"$WORK/isolated.yaml" <<'YAML'
partitions:
  - { name: default, pkey: 0x7fff, limited: [all] }
  - { name: tenant-a, pkey: 0x0a01, full: ["H0_*"] }
  - { name: tenant-b, pkey: 0x0b01, full: ["H2_*"] }
YAML
fd_start -c "$WORK/isolated.yaml"
fd_wait_up 30
# path SRC DST: the DLID and P_Key of the PathRecord the SA gives (DLID 0: none), asked from H5_0
path() {
	SIM_HOST=H5_0 diag saquery -p --slid "$(lid_of "$1")" --dlid "$(lid_of "$2")" |
		awk -F. '$1 ~ /^[ \t]*dlid$/ {d = $NF} $1 ~ /^[ \t]*pkey$/ {print d, $NF; exit}'
}
[[ $(path H0_0 H0_3) == "$(lid_of H0_3) 0x8A01" ]] || fail "tenant-a PathRecord H0_0 -> H0_3: '$(path H0_0 H0_3)'"
[[ $(path H2_0 H2_1) == "$(lid_of H2_1) 0x8B01" ]] || fail "tenant-b PathRecord H2_0 -> H2_1: '$(path H2_0 H2_1)'"
[[ $(path H0_0 H2_1) == "0 0x0" ]] || fail "H0_0 and H2_1 share no partition but got '$(path H0_0 H2_1)'"
[[ $(path H5_0 H6_1) == "0 0x0" ]] || fail "two limited members of the default got '$(path H5_0 H6_1)'"
note "SA: PathRecords within tenant-a (0x8A01) and tenant-b (0x8B01); none across, none between limited members"
fd_stop

printf 'partitions:\n  - { name: a, pkey: 0x0a01, full: [all] }\n  - { name: b, pkey: 0x0a01, full: [all] }\n' \
	>"$WORK/dup.yaml"
rc=0
"$FABRICD" --once -c "$WORK/dup.yaml" -d "$WORK/x.db" 2>"$WORK/err" || rc=$?
(( rc == 2 )) && grep -q 'dup.yaml:3: duplicate P_Key 0x0a01 (partition a, line 2)' "$WORK/err" ||
	fail "duplicate P_Key: rc $rc, '$(cat "$WORK/err")'"
note "$(cat "$WORK/err")"

[[ $(stat -c %a "$DB") == 600 ]] || fail "the database is not root-only: $(stat -c %a "$DB")"
rc=0
setpriv --reuid=65534 --regid=65534 --clear-groups "$FABRICCTL" -d "$DB" status 2>"$WORK/err" || rc=$?
(( rc == 3 )) && grep -q "permission denied (the database is root's: run as root)" "$WORK/err" ||
	fail "non-root fabricctl: rc $rc, '$(cat "$WORK/err")'"
note "database mode 600; as nobody: $(cat "$WORK/err")"
# the same partitions in OpenSM's partitions.conf syntax (by port GUID,
# which OpenSM knows ports by): the same P_Key tables
port_guid() { printf '0x%016x' $(( $("$FABRICCTL" -d "$DB" --json node "$1" | grep -o '"guid": "0x[0-9a-f]*"' | cut -d'"' -f4) + 1 )); }
{
	echo "# tenants, as an OpenSM site has them"
	printf 'tenant-a=0x8a01, ipoib, defmember=full :\n'
	for h in H0_0 H0_1 H0_2 H0_3 H1_0 H1_1 H1_2 H1_3; do printf '    %s,\n' "$(port_guid $h)"; done
	printf '    %s=limited ;\n' "$(port_guid H7_0)"
	printf 'tenant-b=0x0b01 : %s=full, %s=full, %s=full, %s=full, SELF=full ;\n' \
		"$(port_guid H2_0)" "$(port_guid H2_1)" "$(port_guid H2_2)" "$(port_guid H2_3)"
} >"$WORK/partitions.conf"
printf 'm_key: { random: true, protect: 1, lease_s: 60 }\nsm_key: 0x1122334455667788\npartitions_file: %s\n' \
	"$WORK/partitions.conf" >"$WORK/opensm-style.yaml"
fd_once -c "$WORK/opensm-style.yaml" || fail "the partitions.conf sweep failed: $(tail -3 "$WORK/fabricd.log")"
expect_tenant_tables
note "OpenSM's partitions.conf ($(grep -c . "$WORK/partitions.conf") lines): the same P_Key tables as the YAML"
printf 'tenant-a=0x8a01 : 0x1234=fullest ;\n' >"$WORK/bad.conf"
printf 'partitions_file: %s\n' "$WORK/bad.conf" >"$WORK/bad-conf.yaml"
rc=0; out=$(fd_once -c "$WORK/bad-conf.yaml" 2>&1) || rc=$?
((rc == 2)) && [[ $out == *"bad.conf:1: member 0x1234: membership must be full, limited or both"* ]] ||
	fail "a bad partitions.conf: rc $rc, '$out'"
note "a bad partitions.conf line: $(grep -o 'bad.conf:1: .*' <<<"$out")"
echo "PASS: partitions and M_Keys"
