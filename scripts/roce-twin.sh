#!/usr/bin/env bash
# roce-twin.sh - a RoCE plan brought up on real FRR, on this machine.
#
#   scripts/roce-twin.sh PLAN_DIR [--fail SWITCH:PORT[,SWITCH:PORT...]]... [--work DIR]
#                        [--fabricctl PATH] [--no-ping]
#
# Builds the planned fabric from network namespaces (one per switch, its
# fabric ports veth pairs named as in the plan) and starts FRR's zebra,
# staticd and bgpd in each with the plan's DIR/<switch>.frr.conf. Each leaf
# with host prefixes gets the "hosts" bridge its configuration addresses and
# one host namespace per IPv4 prefix (the prefix's second address, the
# leaf's gateway as default route). Once the FIBs stop changing it saves
# every switch's kernel FIB (ip -j route) and proves it with
# `fabricctl plan fib` (loops, reachability, cyclic buffer dependencies, and
# the comparison with the plan's eBGP simulation), and pings every host
# from every other. Each --fail then takes those links down (ip link set
# down, both ends), proves the FIBs BGP converged to, and brings them back.
# Everything lives in namespaces named fdtw<pid>-*, removed on exit.
# Exit 0 when every state was proven safe (and, with ASNs, equal to the
# simulation) and every ping answered; 1 otherwise; 2 on bad usage.
set -euo pipefail
usage() { echo "usage: roce-twin.sh PLAN_DIR [--fail SW:PORT[,SW:PORT...]]... [--work DIR] [--fabricctl PATH] [--no-ping]" >&2; exit 2; }
(($#)) || usage
PLAN=$1
shift
FAILS=() WORK="" FABRICCTL=${FABRICCTL:-fabricctl} PING=1
while (($#)); do
	case $1 in
	--fail) (($# > 1)) || usage; FAILS+=("$2"); shift 2 ;;
	--work) (($# > 1)) || usage; WORK=$2; shift 2 ;;
	--fabricctl) (($# > 1)) || usage; FABRICCTL=$2; shift 2 ;;
	--no-ping) PING=0; shift ;;
	*) usage ;;
	esac
done
[[ -d $PLAN ]] || { echo "roce-twin.sh: $PLAN: not a plan directory" >&2; exit 2; }
((EUID == 0)) || { echo "roce-twin.sh: needs root (network namespaces)" >&2; exit 2; }
for tool in ip jq vtysh /usr/lib/frr/zebra /usr/lib/frr/bgpd /usr/lib/frr/staticd; do
	command -v "$tool" >/dev/null || { echo "roce-twin.sh: $tool is missing (Debian packages iproute2, jq, frr)" >&2; exit 2; }
done
KEEP_WORK=1
if [[ -z $WORK ]]; then
	WORK=$(mktemp -d /tmp/fabricd-twin.XXXXXX)
	KEEP_WORK=0
fi
mkdir -p "$WORK"
chmod 755 "$WORK"	# FRR's daemons run as user frr and keep their sockets below it
TAG=fdtw$$
WIRING=$WORK/wiring
"$FABRICCTL" plan wiring "$PLAN" >"$WIRING" || exit 2
SWITCHES=$(awk '$1 == "link" { print $2; print $4 } $1 == "prefix" { print $2 }' "$WIRING" | sort -u)
ns() { echo "$TAG-$1"; }

teardown() {
	local n pass
	# every process in the twin's namespaces, whatever became of its pid file
	for pass in TERM KILL; do
		for n in $(ip netns list | awk -v tag="$TAG-" 'index($1, tag) == 1 { print $1 }'); do
			ip netns pids "$n" 2>/dev/null | xargs -r kill -s "$pass" 2>/dev/null || true
		done
		[[ $pass == TERM ]] && sleep 0.5
	done
	for n in $(ip netns list | awk -v tag="$TAG-" 'index($1, tag) == 1 { print $1 }'); do
		ip netns delete "$n" 2>/dev/null || true
	done
	((KEEP_WORK)) || rm -rf "$WORK"
}
trap teardown EXIT

# ipv4_plus PREFIX N: the Nth address of an IPv4 prefix ("10.0.3.0/24" 2 -> 10.0.3.2).
ipv4_plus() {
	local a b c d
	IFS=. read -r a b c d <<<"${1%/*}"
	local n=$(((a << 24 | b << 16 | c << 8 | d) + $2))
	echo "$((n >> 24 & 255)).$((n >> 16 & 255)).$((n >> 8 & 255)).$((n & 255))"
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }
# seconds SINCE_MS: the seconds since then, one decimal.
seconds() {
	local ms=$(($(now_ms) - $1))
	printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100))
}

start=$(now_ms)
for sw in $SWITCHES; do
	ip netns add "$(ns "$sw")"
	ip -n "$(ns "$sw")" link set lo up
	ip netns exec "$(ns "$sw")" sysctl -q -w net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
		net.ipv4.fib_multipath_hash_policy=1
done
nlinks=0
while read -r kind a pa b pb; do
	[[ $kind == link ]] || continue
	ip -n "$(ns "$a")" link add "$pa" type veth peer name "$pb" netns "$(ns "$b")"
	ip -n "$(ns "$a")" link set "$pa" up
	ip -n "$(ns "$b")" link set "$pb" up
	nlinks=$((nlinks + 1))
done <"$WIRING"
HOSTS=()	# "namespace address"
while read -r kind sw prefix class; do
	[[ $kind == prefix && $class == hosts ]] || continue
	if ! ip -n "$(ns "$sw")" link show hosts >/dev/null 2>&1; then
		ip -n "$(ns "$sw")" link add hosts type bridge
		# a port with carrier keeps the bridge (and the connected route BGP announces) up without
		# hosts; a veth pair, as kernels without the dummy module have it too
		ip -n "$(ns "$sw")" link add hosts-keep type veth peer name hosts-keep1
		ip -n "$(ns "$sw")" link set hosts-keep1 up
		ip -n "$(ns "$sw")" link set hosts-keep master hosts up
		ip -n "$(ns "$sw")" link set hosts up
	fi
	[[ $prefix == *:* || ${prefix#*/} -ge 31 ]] && continue	# hosts for IPv4 subnets only
	h=$(ns "h${#HOSTS[@]}")
	ip netns add "$h"
	ip -n "$h" link set lo up
	ip -n "$(ns "$sw")" link add "h${#HOSTS[@]}" type veth peer name eth0 netns "$h"
	ip -n "$(ns "$sw")" link set "h${#HOSTS[@]}" master hosts up
	ip -n "$h" addr add "$(ipv4_plus "$prefix" 2)/${prefix#*/}" dev eth0
	ip -n "$h" link set eth0 up
	ip -n "$h" route add default via "$(ipv4_plus "$prefix" 1)"
	HOSTS+=("$h $(ipv4_plus "$prefix" 2) $sw")
done <"$WIRING"

for sw in $SWITCHES; do
	run=$WORK/run/$sw
	mkdir -p "$run"
	chown frr:frr "$run" 2>/dev/null || true
	for daemon in zebra staticd bgpd; do
		ip netns exec "$(ns "$sw")" "/usr/lib/frr/$daemon" -d -F datacenter -f /dev/null -i "$run/$daemon.pid" \
			-z "$run/zserv.api" --vty_socket "$run" --log "file:$run/$daemon.log" 2>>"$run/$daemon.log" ||
			{ echo "roce-twin.sh: $sw: $daemon did not start (see $run/$daemon.log)" >&2; exit 1; }
		# bgpd and staticd need zebra's socket
		[[ $daemon == zebra ]] && for _ in $(seq 50); do [[ -S $run/zserv.api ]] && break; sleep 0.1; done
	done
done
for sw in $SWITCHES; do
	run=$WORK/run/$sw
	for _ in $(seq 50); do [[ -S $run/bgpd.vty && -S $run/staticd.vty ]] && break; sleep 0.1; done
	ip netns exec "$(ns "$sw")" vtysh --vty_socket "$run" -f "$PLAN/$sw.frr.conf" >"$run/vtysh.out" 2>&1 ||
		{ echo "roce-twin.sh: $sw: FRR refused $PLAN/$sw.frr.conf: $(tail -2 "$run/vtysh.out")" >&2; exit 1; }
done
printf 'twin: %s switches, %s links, %s host namespaces, FRR %s; built in %s s\n' "$(wc -w <<<"$SWITCHES")" \
	"$nlinks" "${#HOSTS[@]}" "$(dpkg-query -W -f='${Version}' frr 2>/dev/null || echo '?')" "$(seconds "$start")"

# fib_digest: every switch's FIB, for telling when it stops changing.
fib_digest() {
	local sw
	for sw in $SWITCHES; do
		ip -n "$(ns "$sw")" -j route show
		ip -n "$(ns "$sw")" -j -6 route show
	done | md5sum
}

# sessions_settling: with eBGP, how many fabric links that are up have no established session at one end, or
# one established less than 3 s ago (its first updates may not be in the FIB yet: a restored link's session can
# come up while the FIBs look stable, and a check then sees the routes of before).
sessions_settling() {
	local sw up est settling=0
	grep -q '^router bgp' "$PLAN"/*.frr.conf 2>/dev/null || { echo 0; return; }
	for sw in $SWITCHES; do
		up=$(ip -n "$(ns "$sw")" -o link show up | grep -c -w -f <(awk -v s="$sw" '$1 == "link" && $2 == s { print $3 }
			$1 == "link" && $4 == s { print $5 }' "$WIRING")) || true
		est=$(ip netns exec "$(ns "$sw")" vtysh --vty_socket "$WORK/run/$sw" -c "show bgp neighbors json" 2>/dev/null |
			jq '[.[] | objects | select(.bgpState == "Established" and .bgpTimerUpMsec >= 3000)] | length' \
			2>/dev/null) || est=0
		((est < up)) && settling=$((settling + up - est))
	done
	echo "$settling"
}

# converge: waits until every live link has had its BGP session for 3 s and the FIBs have not changed for 3 s
# (at most 120 s); prints the seconds until the last change.
converge() {
	local t0 last now changed same=0
	t0=$(now_ms)
	changed=$t0
	last=$(fib_digest)
	while ((same < 6)); do
		sleep 0.5
		now=$(fib_digest)
		if [[ $now == "$last" ]]; then
			same=$((same + 1))
			# stable: but a session still coming up may change it yet (asked once, it is slow)
			if ((same == 6)) && [[ $(sessions_settling) != 0 ]]; then same=0; fi
		else
			same=0 last=$now changed=$(now_ms)
		fi
		if (($(now_ms) - t0 > 120000)); then
			echo "roce-twin.sh: the FIBs still change after 120 s" >&2
			FAILED=1
			break
		fi
	done
	seconds $((t0 + $(now_ms) - changed))
}

FAILED=0
# prove STEP [--down SW:PORT...]: saves the FIBs into $WORK/fib-STEP and proves them.
prove() {
	local step=$1 dir=$WORK/fib-$1 sw
	shift
	mkdir -p "$dir"
	for sw in $SWITCHES; do
		ip -n "$(ns "$sw")" -j route show >"$dir/$sw.json"
		ip -n "$(ns "$sw")" -j -6 route show >"$dir/$sw.v6.json"
	done
	"$FABRICCTL" plan fib "$PLAN" "$dir" "$@" || FAILED=1
}

# ping_all: every host pings every other host once.
ping_all() {
	local i j ok=0 total=0 a b
	for ((i = 0; i < ${#HOSTS[@]}; i++)); do
		for ((j = 0; j < ${#HOSTS[@]}; j++)); do
			((i == j)) && continue
			read -r a _ _ <<<"${HOSTS[i]}"
			read -r _ b _ <<<"${HOSTS[j]}"
			total=$((total + 1))
			if ip netns exec "$a" ping -c 1 -W 2 -q "$b" >/dev/null 2>&1; then ok=$((ok + 1)); fi
		done
	done
	echo "ping: $ok of $total host pairs answer"
	((ok == total)) || FAILED=1
}

# links_set STATE SW:PORT,...: both ends of each link up or down.
links_set() {
	local state=$1 end sw port peer
	for end in ${2//,/ }; do
		sw=${end%%:*} port=${end#*:}
		peer=$(awk -v s="$sw" -v p="$port" '$1 == "link" && $2 == s && $3 == p { print $4 " " $5 }
			$1 == "link" && $4 == s && $5 == p { print $2 " " $3 }' "$WIRING")
		[[ -n $peer ]] || { echo "roce-twin.sh: --fail $end: no such link in the plan" >&2; exit 2; }
		ip -n "$(ns "$sw")" link set "$port" "$state"
		ip -n "$(ns "${peer% *}")" link set "${peer#* }" "$state"
	done
}

echo "design: converged in $(converge) s"
prove design
((PING)) && ping_all
n=0
for f in "${FAILS[@]}"; do
	n=$((n + 1))
	links_set down "$f"
	echo "fail $f: converged in $(converge) s"
	downs=()
	for end in ${f//,/ }; do downs+=(--down "$end"); done
	prove "fail$n" "${downs[@]}"
	((PING)) && ping_all
	links_set up "$f"
	echo "restore $f: converged in $(converge) s"
	prove "restore$n"
done
exit "$FAILED"
