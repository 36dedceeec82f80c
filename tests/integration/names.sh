#!/usr/bin/env bash
# names.sh BUILD
#
# A host names itself with a terminal escape sequence (ESC [2J clears the
# screen, ESC ]0; sets the window title), a byte that is not UTF-8 and a
# C1 control; another with honest UTF-8. fabricd brings the fabric up;
# its log, fabricctl topology and fabricctl events hold no control
# character, --json topology is valid UTF-8 with the honest name intact.
# Run it under unshare -n.
set -euo pipefail
BUILD=$1
WORK=$(mktemp -d /tmp/fabricd-names.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

evil=$'H\e[2J\e]0;pwned\a\xff\xc2\x9b'
honest=$'n\xc5\x93ud-\xe6\x97\xa5\xe6\x9c\xac'
{
	printf 'Switch 4 "S0"\n[1] "%s"[1]\n[2] "%s"[1]\n\n' "$evil" "$honest"
	printf 'Hca 1 "%s"\n[1] "S0"[1]\n\n' "$evil"
	printf 'Hca 1 "%s"\n[1] "S0"[2]\n' "$honest"
} >"$WORK/names.net"
sim_start "$WORK/names.net"
fd_start
fd_wait_up 30
"$FABRICCTL" -d "$DB" topology >"$WORK/topology.txt" || fail "fabricctl topology"
"$FABRICCTL" -d "$DB" --json topology >"$WORK/topology.json" || fail "fabricctl --json topology"
"$FABRICCTL" -d "$DB" events >"$WORK/events.txt" || fail "fabricctl events"
for f in topology.txt events.txt fabricd.log topology.json; do
	LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$WORK/$f" && fail "$f holds a control character: $(LC_ALL=C grep -n $'[\x01-\x08\x0b-\x1f\x7f]' "$WORK/$f" | head -2 | cat -v)"
	iconv -f UTF-8 -t UTF-8 "$WORK/$f" >/dev/null 2>&1 || fail "$f is not valid UTF-8"
done
grep -q "$honest" "$WORK/topology.txt" || fail "the UTF-8 name is not in fabricctl topology: $(cat "$WORK/topology.txt")"
grep -q "\"$honest\"" "$WORK/topology.json" || fail "the UTF-8 name is not in --json topology"
grep -q 'H?\[2J?\]0;pwned???' "$WORK/topology.txt" || fail "the hostile name is not shown cleaned: $(cat -v "$WORK/topology.txt")"
note "a NodeDescription with ESC [2J, ESC ]0;, BEL, 0xff and C1 CSI is shown as 'H?[2J?]0;pwned???'; '$honest' kept; log, topology, events and JSON clean"
echo "PASS: names from the network are printed cleaned"
