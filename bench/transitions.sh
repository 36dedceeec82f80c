#!/usr/bin/env bash
# transitions.sh [SEEDS]: deadlock freedom through failures, fabricd vs
# `opensm -R ftree`, judged from outside by `fabricctl check` on what the
# switches really hold (ibnetdiscover + dump_lfts, and each LID's SL from
# the SA's PathRecords).
#
# For seeds 1..SEEDS (default 5) of the degraded radix-8 3-level tree
# (fabric-gen --remove-links 6 --remove-switches 1) and for each SM on a
# fresh ibsim: bring-up, then a leaf's first up-link goes down (Unlink),
# then a whole aggregation switch (every link of it unlinked). After each
# sweep the dumps are judged in steady state (routes that do not arrive,
# switch entries that loop, a credit loop with CA routes), and each change
# as a transition: is the plain mixture of the tables before and after
# (both SLs) acyclic? fabricd programs a cyclic change in stages and says
# whether each step was proven (its "transition" log line); OpenSM writes
# the new tables as they come. A benchmark, not a test: it prints figures.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
bench_setup
seeds=${1:-5}

# one_run SM NETFILE: one line per state: "STATE BROKEN LOOPS CYCLE MIXTURE STAGED".
one_run() {
	TOP=$top unshare -n bash -s "$@" "$BUILD" "$(mktemp -d "$out/run.XXXXXX")" <<'RUN'
set -euo pipefail
sm=$1 net=$2 BUILD=$3 WORK=$4
. "$TOP/tests/integration/lib.sh"
. "$TOP/bench/lib.sh"
sm_run "$sm" "$net"
wait_ups() { sm_wait_ups "$1" 600; }
# dump NAME: the switches' tables, the topology and every LID's SL as the SA gives it from H0_0
dump() {
	sleep 2	# let a sweep a second trap asked for finish
	diag ibnetdiscover >"$WORK/$1.topo"
	diag dump_lfts >"$WORK/$1.lfts"
	local me lid sl
	me=$(diag smpquery portinfo -D 0 1 | awk -F. '/^Lid:/ {print $NF}')
	: >"$WORK/$1.sl"
	for lid in $(awk '/^(Switch|Ca)/ {l = 1} l && /lid [0-9]+/ {for (i = 1; i <= NF; i++) if ($i == "lid") print $(i + 1)}' "$WORK/$1.topo" | sort -un); do
		sl=$(diag saquery -p --slid "$me" --dlid "$lid" 2>/dev/null | awk -F. '/^[[:space:]]*sl\.\./ {print $NF; exit}') || true
		[[ -n $sl ]] && echo "$lid $sl" >>"$WORK/$1.sl"
	done
}
# judge NAME [BEFORE]: "BROKEN LOOPS CYCLE MIXTURE"
judge() {
	local j broken loops cycle mix=-
	j=$("$FABRICCTL" --json check --lfts "$WORK/$1.lfts" --topology "$WORK/$1.topo" --sl "$WORK/$1.sl" || true)
	broken=$(sed -n 's/.*"unreachable": \([0-9]*\).*/\1/p' <<<"$j")
	loops=$(sed -n 's/.*"looping_entries": \([0-9]*\).*/\1/p' <<<"$j")
	cycle=yes; [[ $j == *'"credit_loop": null'* ]] && cycle=no
	if [[ -n ${2:-} ]]; then
		j=$("$FABRICCTL" --json check --before "$WORK/$2.lfts" --after "$WORK/$1.lfts" --topology "$WORK/$1.topo" --sl "$WORK/$1.sl" --before-sl "$WORK/$2.sl" || true)
		mix=cyclic; [[ $j == *'"credit_loop": null'* ]] && mix=acyclic
	fi
	echo "${broken:--} ${loops:--} $cycle $mix"
}
# staged: fabricd's verdict on its last transition
staged() {
	[[ $sm == fabricd ]] || { echo -; return; }
	local t
	t=$(grep "transition:" "$log" | tail -1)
	if [[ $t == *"NOT proven"* ]]; then echo "unproven"
	elif [[ $t =~ in\ ([0-9]+)\ stage ]]; then echo "proven/${BASH_REMATCH[1]}"
	else echo "-"; fi
}
wait_ups 1 || { echo "up stuck"; exit 0; }
dump up
echo "up $(judge up) -"
n=$(sm_ups)
sim_cmd 'Unlink "L0"[5]'
wait_ups $((n + 1)) || { echo "link stuck"; exit 0; }
dump link
echo "link $(judge link up) $(staged)"
n=$(sm_ups)
# a whole aggregation switch: A1's every link
for p in 1 2 3 4 5 6 7 8; do echo "Unlink \"A1\"[$p]" >&7; done
sleep 0.5
wait_ups $((n + 1)) || { echo "switch stuck"; exit 0; }
dump switch
echo "switch $(judge switch link) $(staged)"
RUN
}

fmt='%-5s %-8s %-7s %7s %7s %6s %8s %9s\n'
printf "$fmt" seed SM state broken looping cycle mixture fabricd
for seed in $(seq "$seeds"); do
	net=$out/ft3-r8-s$seed.net
	"$BUILD/topology/fabric-gen" --levels 3 --radix 8 --remove-links 6 --remove-switches 1 --seed "$seed" -o "$net"
	for sm in fabricd opensm; do
		while read -r state broken loops cycle mix staged; do
			printf "$fmt" "$seed" "$sm" "$state" "$broken" "$loops" "$cycle" "$mix" "$staged"
		done < <(one_run "$sm" "$net")
	done
done
rm -rf "$out"
