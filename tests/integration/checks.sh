# Checks of a configured simulated fabric, each by an independent tool of
# infiniband-diags. Source after lib.sh.

# check_master: sminfo sees fabricd's port as the MASTER SM.
check_master() {
	local out guid
	out=$(diag sminfo) || fail "sminfo failed"
	guid=$(grep -o 'GUID 0x[0-9a-f]*' "$WORK/fabricd.log" | head -1 | cut -d' ' -f2)
	[[ $out == *SMINFO_MASTER* ]] || fail "sminfo does not report a master: $out"
	[[ $out == *"sm guid $(printf '0x%x' "$guid")"* ]] || fail "master is not fabricd ($guid): $out"
	note "sminfo: $out"
}

# check_links_active EXPECTED_LINKS: every cabled port is Active/LinkUp.
check_links_active() {
	local out active
	out=$(diag iblinkinfo) || fail "iblinkinfo failed"
	if grep -Eq 'Init/|Armed/|Down/ +LinkUp' <<<"$out"; then
		fail "links not active: $(grep -E 'Init/|Armed/|Down/ +LinkUp' <<<"$out" | head -3)"
	fi
	active=$(grep -c 'Active/  LinkUp' <<<"$out")
	# iblinkinfo prints a switch-switch link from both ends, a CA link from both ends
	(( active == 2 * $1 )) || fail "iblinkinfo shows $active active port lines, expected $((2 * $1))"
	note "iblinkinfo: all $1 links Active/LinkUp"
}

# check_lids: ibnetdiscover finds every port with a LID, all distinct.
check_lids() {
	local ports dups
	ports=$(diag ibnetdiscover -p) || fail "ibnetdiscover failed"
	# CA lines carry the CA's LID; switch lines carry the switch LID
	if awk '$2 == 0' <<<"$ports" | grep -q .; then
		fail "ports without a LID: $(awk '$2 == 0' <<<"$ports" | head -3)"
	fi
	dups=$(awk '$1 == "CA" {print $2} $1 == "SW" && !seen[$4]++ {print $2}' <<<"$ports" | sort | uniq -d)
	[[ -z $dups ]] || fail "LIDs used twice: $dups"
	note "ibnetdiscover: every port has a unique LID"
}

# lid_snapshot FILE: GUID -> LID of every port, as ibnetdiscover sees them.
lid_snapshot() {
	diag ibnetdiscover -p | awk '$1 == "CA" {print $4, $2} $1 == "SW" {print $4, $2}' | sort -u >"$1"
	[[ -s $1 ]] || fail "ibnetdiscover found no ports"
}

# check_full_lfts NLIDS MAXLID: dump_fts shows every LID routed on every switch.
check_full_lfts() {
	local out bad nsw want=$1
	# dump_fts (ibroute) skips the last LFT block when LinearFDBTop is a
	# multiple of 64 (ALIGN(top, 64) / 64 blocks), so that LID is not listed
	(( $2 % 64 == 0 )) && want=$(($1 - 1))
	out=$(diag dump_fts) || fail "dump_fts failed"
	printf '%s\n' "$out" >"$WORK/dump_fts.out"
	nsw=$(grep -c 'valid lids dumped' <<<"$out")
	bad=$(grep 'valid lids dumped' <<<"$out" | awk -v n="$want" '$1 != n' | head -3)
	[[ -z $bad ]] || fail "switch tables not full ($want LIDs expected): $bad"
	note "dump_fts: $nsw switches, each routes all $1 LIDs"
}

# check_quality [SHIFT_LOAD]: fabricctl quality on the tables dump_fts read
# from the switches (with ibnetdiscover's topology) gives the same figures
# as on the stored tables; with SHIFT_LOAD, the worst shift permutation
# puts exactly that many flows on the busiest link. Needs check_full_lfts
# and $WORK/ibnetdiscover.out first.
check_quality() {
	local live stored
	live=$("$FABRICCTL" --json quality --lfts "$WORK/dump_fts.out" --topology "$WORK/ibnetdiscover.out" --random 20) ||
		fail "fabricctl quality on the dumped tables failed: $live"
	stored=$("$FABRICCTL" -d "$DB" --json quality --random 20) || fail "fabricctl quality failed: $stored"
	[[ ${live%%\"hot*} == "${stored%%\"hot*}" ]] ||
		fail "quality of the live tables differs from the stored ones: $live / $stored"
	if [[ -n ${1:-} ]]; then
		[[ $live == *"\"shift\": {"*"\"broken\": 0, \"max_load\": $1,"* ]] ||
			fail "shift permutations: max link load is not $1: $live"
	fi
	note "fabricctl quality: live tables as stored: ${live%%, \"mean_load*}"
}

# check_balance STRICT: check_lft_balance -e (infiniband-diags) on the tables
# dump_fts read and an ibnetdiscover cache: every switch's non-host ports
# carry host LIDs within one of each other (-e: on a switch with more than
# 12 ports, half its ports balanced, as for a lineboard's up-ports, will do).
# With STRICT=1 an unbalanced switch fails the test; otherwise (radix-8
# trees, too small for that heuristic) the result is reported.
#
# check_lft_balance runs iblinkinfo --load-cache once per switch, and that
# too attaches to ibsim: with no client slot free it prints nothing, and
# the switch's up-ports look down (a radix-8 tree once failed so). A
# wrapper first in its PATH retries it as diag does.
check_balance() {
	local out bin="$WORK/judge-bin"
	rm -f "$WORK/ibnd.cache"
	diag ibnetdiscover --cache "$WORK/ibnd.cache" >/dev/null || fail "ibnetdiscover --cache failed"
	mkdir -p "$bin"
	cat >"$bin/iblinkinfo" <<-EOF
	#!/usr/bin/env bash
	for try in 1 2 3 4 5; do
		$(command -v iblinkinfo) "\$@" 2>"$WORK/iblinkinfo.err" && exit 0
		grep -qE "$ATTACH_FAILED_RE" "$WORK/iblinkinfo.err" || break
		sleep 0.5
	done
	cat "$WORK/iblinkinfo.err" >>"$WORK/iblinkinfo.failed"
	exit 1
	EOF
	chmod +x "$bin/iblinkinfo"
	rm -f "$WORK/iblinkinfo.failed"
	out=$(PATH=$bin:$PATH diag check_lft_balance -e -l "$WORK/dump_fts.out" -i "$WORK/ibnd.cache") ||
		fail "check_lft_balance failed: $out"
	[[ ! -e $WORK/iblinkinfo.failed ]] ||
		fail "check_lft_balance's iblinkinfo failed: $(head -1 "$WORK/iblinkinfo.failed")"
	if grep -q Unbalanced <<<"$out"; then
		[[ $1 == 1 ]] && fail "check_lft_balance: $(head -6 <<<"$out" | tr '\n' ' ')"
		note "check_lft_balance: $(grep -c Unbalanced <<<"$out") switches outside +-1: $(head -6 <<<"$out" | tr '\n' ' ')"
	else
		note "check_lft_balance: every switch balanced"
	fi
}

# check_traces SAMPLES: ibtracert between sampled CA pairs (all pairs if fewer).
check_traces() {
	local lids n pairs=0 src dst
	mapfile -t lids < <(diag ibnetdiscover -p | awk '$1 == "CA" {print $2}' | sort -n)
	n=${#lids[@]}
	(( n >= 2 )) || fail "fewer than two CAs"
	RANDOM=42	# seeded: the same pairs every run
	if (( n * (n - 1) <= $1 )); then
		for src in "${lids[@]}"; do for dst in "${lids[@]}"; do
			[[ $src == "$dst" ]] && continue
			trace_one "$src" "$dst"; pairs=$((pairs + 1))
		done; done
	else
		for _ in $(seq "$1"); do
			src=${lids[RANDOM % n]}; dst=${lids[RANDOM % n]}
			[[ $src == "$dst" ]] && continue
			trace_one "$src" "$dst"; pairs=$((pairs + 1))
		done
	fi
	note "ibtracert: $pairs CA pairs reach each other, hop for hop as fabricctl route says"
}

# trace_one SLID DLID: ibtracert reaches DLID, through the same nodes that
# fabricctl route reads from the stored tables.
trace_one() {
	local out live stored
	out=$(diag ibtracert "$1" "$2") ||
		fail "ibtracert $1 $2 failed: $(grep -v sim_connect "$WORK/diag.err" | tail -2)"
	[[ $(tail -1 <<<"$out") == "To ca "*"lid $2-$2 "* ]] || fail "ibtracert $1 $2 ended elsewhere: $out"
	live=$(sed -n 's/.*"\(.*\)"$/\1/p' <<<"$out" | uniq | tr '\n' ' ')
	stored=$("$FABRICCTL" -d "$DB" route "$1" "$2" | awk 'NR > 2 {print $2}' | tr '\n' ' ') ||
		fail "fabricctl route $1 $2 failed"
	[[ $live == "$stored" ]] || fail "ibtracert $1 $2 goes $live, fabricctl route says $stored"
	check_up_down "$live" || fail "ibtracert $1 $2 goes $live: not an up/down path"
}

# check_up_down "H0_0 L0 A1 C3 ...": on generated fat trees (leaves L, spines S,
# aggregation A, cores C) the switch levels along a path rise, then only fall.
check_up_down() {
	local name level prev=-1 falling=0
	for name in $1; do
		case $name in
		L*) level=0 ;; S*|A*) level=1 ;; C*) level=2 ;; H*) continue ;; *) return 0 ;;
		esac
		if (( prev >= 0 && level < prev )); then falling=1
		elif (( prev >= 0 && level > prev && falling )); then return 1
		fi
		prev=$level
	done
}

# check_vls VLS: the SL-to-VL map of the first CA's switch from each of its
# linked ports to the CA's port, the CA's own map, and both ports' low VL
# arbitration tables are what fabricd programs: SL s on VL s % VLS, every
# data VL at weight 64; from port 0 (the switch's own packets) every SL on
# VL 0.
check_vls() {
	local want="" own="" sl swlid swport calid out ports line in
	for sl in $(seq 0 15); do want+=$(printf '|%2d' $((sl % $1))); own+=$(printf '|%2d' 0); done
	want+="|"
	own+="|"
	read -r calid swlid swport < <(diag ibnetdiscover -p | awk '$1 == "CA" && $8 == "SW" {print $2, $9, $10; exit}')
	ports=" 0 $(diag ibnetdiscover -p | awk -v l="$swlid" '$1 == "SW" && $2 == l && $7 == "-" {print $3}' | tr '\n' ' ')"
	out=$(diag smpquery sl2vl "$swlid" "$swport" | grep '^ports:') || fail "smpquery sl2vl $swlid $swport failed"
	while read -r line; do
		in=$(sed 's/ports: in *\([0-9]*\),.*/\1/' <<<"$line")
		[[ $in == "$swport" || $ports != *" $in "* ]] && continue
		if [[ $in == 0 ]]; then
			[[ $line == *"$own" ]] || fail "switch LID $swlid SL2VL in 0 out $swport is not $own: $line"
		else
			[[ $line == *"$want" ]] || fail "switch LID $swlid SL2VL in $in out $swport is not $want: $line"
		fi
	done <<<"$out"
	out=$(diag smpquery sl2vl "$calid" 1 | grep '^ports:') || fail "smpquery sl2vl $calid failed"
	[[ $out == *"$want"* ]] || fail "CA LID $calid SL2VL is not $want: $out"
	for lid in "$swlid $swport" "$calid 1"; do
		out=$(diag smpquery vlarb $lid | sed -n '/Low priority/,/High priority/p' | grep WEIGHT) ||
			fail "smpquery vlarb $lid failed"
		[[ $out =~ ^WEIGHT:\ (\|0x40\ ?)+\|$ ]] || fail "LID $lid low VL arbitration is not all 0x40: $out"
	done
	note "smpquery: SL2VL (SL s -> VL s % $1, from port 0 VL 0) and VL arbitration programmed on switch LID $swlid port $swport and CA LID $calid"
}

# check_hoq: a switch port facing a CA holds HOQLife 16 and VLStallCount 7,
# one facing a switch HOQLife 18 and VLStallCount 7 (OpenSM's defaults,
# fabricd's too), as smpquery portinfo reads them; a switch's LifeTimeValue
# is 18 (packet_life_time) as smpquery switchinfo reads it.
# check_master_smsl: every CA port's MasterSMSL is the SL fabricd published for the SM's LID.
check_master_smsl() {
	local sm_lid sl lid port out n=0 first
	first=$(diag ibnetdiscover -p | awk '$1 == "CA" && !n++ {print $2, $3}')
	sm_lid=$(diag smpquery portinfo $first | awk -F. '/^SMLid:/ {print $NF}')
	sl=$("$FABRICCTL" -d "$DB" export sl | awk -v l="$sm_lid" '$1 == l {print $2}')
	[[ -n $sl ]] || fail "fabricctl export sl has no SL for the SM's LID $sm_lid (CA LID and port $first)"
	while read -r lid port; do
		out=$(diag smpquery portinfo "$lid" "$port") || fail "smpquery portinfo $lid $port failed"
		grep -q "^SMSL:\.*$sl\$" <<<"$out" || fail "CA LID $lid: MasterSMSL is not $sl: $(grep SMSL <<<"$out")"
		n=$((n + 1))
	done < <(diag ibnetdiscover -p | awk '$1 == "CA" && n++ < 8 {print $2, $3}')
	note "smpquery portinfo: MasterSMSL $sl (the SL of the SM's LID $sm_lid) on $n CA ports"
}

check_hoq() {
	local lid port want kind out
	while read -r kind lid port; do
		[[ -n $lid ]] || continue
		want=$([[ $kind == CA ]] && echo 16 || echo 18)
		out=$(diag smpquery portinfo "$lid" "$port") || fail "smpquery portinfo $lid $port failed"
		grep -q "^HoqLife:\.*$want\$" <<<"$out" || fail "switch LID $lid port $port HoqLife is not $want: $(grep HoqLife <<<"$out")"
		grep -q '^VLStallCount:\.*7$' <<<"$out" || fail "switch LID $lid port $port VLStallCount is not 7"
	done < <(diag ibnetdiscover -p | awk '$1 == "SW" && $8 == "CA" && !ca {print "CA", $2, $3; ca = 1}
		$1 == "SW" && $8 == "SW" && !sw {print "SW", $2, $3; sw = 1}')
	lid=$(diag ibnetdiscover -p | awk '$1 == "SW" && !n++ {print $2}')
	out=$(diag smpquery switchinfo "$lid") || fail "smpquery switchinfo $lid failed"
	grep -q '^LifeTime:\.*18$' <<<"$out" || fail "switch LID $lid LifeTimeValue is not 18: $(grep LifeTime <<<"$out")"
	note "smpquery portinfo: HOQLife 16 towards CAs, 18 between switches, VLStallCount 7; switchinfo: LifeTime 18"
}
