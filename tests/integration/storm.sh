#!/usr/bin/env bash
# storm.sh BUILD NETFILE   (STORM_SEED: the storm drawn, 7 unless set)
#
# A storm of link and switch failures: 40 ibsim commands (a link down, one
# back, a whole switch down, drawn from a fixed seed) 0-390 ms apart, with
# ibsim dropping 3% of the SMPs at fabricd's leaf switch and fabricd
# trying each SMP twice, so that some sweeps lose Sets: they publish
# degraded ("SUBNET UP but degraded"), or, when a stage of their
# transition lost LFT Sets, stop there unpublished and have a full sweep
# follow. Then every link back and no loss:
# once the sweeps settle, a full sweep (fabricctl resweep) changes no
# forwarding table and writes no VL or P_Key table, fabricctl check finds
# the tables connected, loop-free and deadlock-free, a rotation of the
# table audit finds the switches holding them, and
# every sweep that followed a degraded one read back only some switches
# and planned its transition from what they hold. Run it under unshare -n.
set -euo pipefail
BUILD=$1 NET=$2
WORK=$(mktemp -d /tmp/fabricd-storm.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
export SIM_HOST=H0_0
ctl() { "$FABRICCTL" -d "$DB" -S "$SOCK" "$@"; }

printf 'sweep_interval: 1\nfull_sweep_interval: 0\nlft_audit_blocks: 4096\nmad: { retries: 1, timeout_ms: 50 }\n' \
	>"$WORK/fabricd.yaml"
sim_start "$NET"
fd_start -c "$WORK/fabricd.yaml"
fd_wait_up 60

# "SWITCH PORT" of every switch-to-switch link end, and the switches above the leaves
mapfile -t links < <(awk '/^Switch/ {sw = $NF; gsub(/"/, "", sw); next} /^$/ {sw = ""}
	sw != "" && $2 ~ /^"[LAC][0-9]+"/ {p = $1; gsub(/[][]/, "", p); print sw, p}' "$NET")
mapfile -t upper < <(awk '/^Switch/ {sw = $NF; gsub(/"/, "", sw); if (sw ~ /^[AC]/) print sw}' "$NET")
((${#links[@]} > 0 && ${#upper[@]} > 0)) || fail "no switch links in $NET"
RANDOM=${STORM_SEED:-7}	# another seed, another storm
down=()
echo 'Error "L0" 3' >&7
for _ in $(seq 40); do
	r=$((RANDOM % 10))
	if ((r < 5)); then
		read -r sw port <<<"${links[$((RANDOM % ${#links[@]}))]}"
		echo "Unlink \"$sw\"[$port]" >&7
		down+=("$sw $port")
	elif ((r < 8 && ${#down[@]} > 0)); then
		read -r sw port <<<"${down[$((RANDOM % ${#down[@]}))]}"
		echo "ReLink \"$sw\"[$port]" >&7
	else
		echo "Unlink \"${upper[$((RANDOM % ${#upper[@]}))]}\"" >&7
	fi
	sleep "0.$((RANDOM % 4))$((RANDOM % 10))"
done
for l in "${links[@]}"; do
	read -r sw port <<<"$l"
	echo "ReLink \"$sw\"[$port]" >&7
done
echo 'Error "L0" 0' >&7
# settled: no sweep for 3 s (a degraded one is followed by a full sweep at the next tick)
n=-1
while ((n != $(ups))); do
	n=$(ups)
	sleep 3
done
kill -0 "$FD_PID" 2>/dev/null || fail "fabricd died in the storm: $(tail -3 "$WORK/fabricd.log")"
repairs=$(grep -c "sweep: repair of" "$WORK/fabricd.log" || true)
degraded=$(grep -c "SUBNET UP but degraded" "$WORK/fabricd.log" || true)
(($(ups) >= 10)) || fail "only $(ups) sweeps in the storm ($repairs repairs, $degraded degraded)"

n=$(ups)
ctl resweep >/dev/null || fail "resweep refused"
fd_wait_ups $((n + 1))
program=$(grep "sweep: program" "$WORK/fabricd.log" | tail -1)
vls=$(grep "sweep: vls" "$WORK/fabricd.log" | tail -1)
pkeys=$(grep "sweep: pkeys" "$WORK/fabricd.log" | tail -1)
[[ $program == *" 0 LFT blocks sent"* ]] || fail "the full sweep after the storm changed tables: $program"
[[ $vls == *" 0 SL2VL/VLArb Sets"* ]] || fail "the full sweep after the storm wrote VL tables: $vls"
[[ $pkeys == *" 0 PKeyTable/enforcement Sets"* ]] || fail "the full sweep after the storm wrote P_Keys: $pkeys"
ctl check >"$WORK/check.out" || fail "fabricctl check after the storm: $(grep -v ': *ok' "$WORK/check.out" | head -3)"

# and the switches hold those tables: the table audit (every block, each
# light sweep) goes round them whole after that sweep and finds none unlike
audit() { ctl status | awk '/^LFT audit:/ {print $3, $7, $(NF - 2)}'; }	# read, unlike, rotations
read -r _ unlike0 rotations0 < <(audit)
for _ in $(seq 50); do
	read -r read unlike rotations < <(audit)
	((rotations < rotations0 + 2)) || break
	sleep 0.2
done
((rotations >= rotations0 + 2)) || fail "the table audit did not go round the switches: $(ctl status | grep 'LFT audit')"
((unlike == unlike0)) || fail "after the storm switches hold tables other than the published: $(grep 'holds LFT block' "$WORK/fabricd.log" | tail -2)"
(($(ups) == n + 1)) || fail "a sweep followed the audit"

# after each degraded sweep: a partial read back, a plan from what the switches hold
read_all=$(grep -c "sweep: readback" "$WORK/fabricd.log" || true)
planned=$(grep -c "(from the tables read back from the switches)" "$WORK/fabricd.log" || true)
if ((degraded > 0)); then
	((planned > 0)) || fail "$degraded degraded sweeps, but no transition planned from what the switches hold"
fi
stopped=$(grep -c " transition: .* the transition stops there" "$WORK/fabricd.log" || true)	# not the sweep's end, which says it again
note "$repairs repairs, $degraded degraded sweeps, $stopped transitions stopped at a stage that lost LFT Sets," \
	"$read_all read backs, $planned transitions planned from what the switches hold;" \
	"$(grep -c 'SUBNET UP' "$WORK/fabricd.log") sweeps published in all"
note "then a full sweep: ${program##*MADs  }; ${vls##*MADs  }; the table audit read $read LFT blocks, $unlike0 unlike" \
	"the published tables during the storm, none after it"
