#!/usr/bin/env bash
# errors.sh BUILD
#
# Bad input gets a one-line error naming the problem and a non-zero exit:
# bad configuration files, bad arguments, no InfiniBand port, a neighbour
# that drops every MAD (timeouts), a corrupt database. Run under unshare -n.
set -euo pipefail
BUILD=$1
WORK=$(mktemp -d /tmp/fabricd-err.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

# expect CODE PATTERN CMD...: CMD exits with CODE and its stderr matches PATTERN.
expect() {
	local code=$1 pattern=$2 rc=0
	shift 2
	"$@" >"$WORK/out" 2>"$WORK/err" || rc=$?
	(( rc == code )) || fail "'$*' exited $rc, expected $code: $(cat "$WORK/err")"
	grep -Eq -e "$pattern" "$WORK/err" || fail "'$*' said '$(cat "$WORK/err")', expected /$pattern/"
	note "$(head -1 "$WORK/err")"
}

printf 'mad:\n  window: 0\n' >"$WORK/zero-window.yaml"
expect 2 'zero-window.yaml:2: mad.window must be 1..1024, not 0' "$FABRICD" -c "$WORK/zero-window.yaml" --once
printf 'sweep_interval: 10\nbogus: 1\n' >"$WORK/unknown.yaml"
expect 2 "unknown.yaml:2: unknown key 'bogus'" "$FABRICD" -c "$WORK/unknown.yaml" --once
printf 'log_level: [a, b\n' >"$WORK/syntax.yaml"
expect 2 'syntax.yaml:[0-9]+: ' "$FABRICD" -c "$WORK/syntax.yaml" --once
printf 'max_mtu: 3000\n' >"$WORK/mtu.yaml"
expect 2 'mtu.yaml:1: max_mtu must be 256, 512, 1024, 2048 or 4096' "$FABRICD" -c "$WORK/mtu.yaml" --once
expect 2 "$WORK/missing.yaml: No such file or directory" "$FABRICD" -c "$WORK/missing.yaml" --once
expect 2 "--port needs a number up to 254, not 'x'" "$FABRICD" --port x --once
expect 2 "unknown log level 'loud'" "$FABRICD" -l loud --once
expect 2 "unexpected argument 'extra'" "$FABRICD" --once extra

# no simulator and no hardware: no port to run on
expect 1 'no InfiniBand port' "$FABRICD" --once -d "$WORK/noport.db"

# the SM's only neighbour drops every SMP: discovery times out and says so
printf 'Switch 4 "S"\n[1] "H"[1]\n\nHca 1 "H"\n[1] "S"[1]\n' >"$WORK/two.net"
export SIM_HOST=H
sim_start "$WORK/two.net"
sim_cmd 'Error "S"[1] 100'
printf 'mad: { timeout_ms: 20, retries: 2 }\n' >"$WORK/fast.yaml"
expect 1 'sweep failed: nothing answers behind|behind H port 1' fd_once -c "$WORK/fast.yaml" --log-file /dev/stderr
sim_cmd 'Error "S"[1] 0'
fd_once -c "$WORK/fast.yaml" || fail "fabricd failed once the losses stopped"
note "with the losses gone the same fabricd run brings the subnet up"
expect 1 'no local port has GUID 0x00000000deadbeef' fd_once -G 0xdeadbeef
fd_once -G 0x100001 || fail "fabricd could not open its port by GUID 0x100001"
note "fabricd -G 0x100001 opens H's port by its GUID"

# a database another process holds locked: the sweep cannot be stored, says
# so, exits 1, and the stored state is the previous sweep's
before=$("$FABRICCTL" -d "$DB" sweeps | tail -1)
{ echo "BEGIN IMMEDIATE; INSERT INTO events (time, kind, detail) VALUES (0, 'x', 'x');"; sleep 9; } |
	sqlite3 "$DB" &
locker=$!
sleep 0.5
expect 1 'cannot store the sweep: database is locked' fd_once --log-file /dev/stderr
kill "$locker" 2>/dev/null || true
wait "$locker" 2>/dev/null || true
[[ $("$FABRICCTL" -d "$DB" sweeps | tail -1) == "$before" ]] || fail "the locked-out sweep changed the stored state"
note "a locked database: the sweep is refused and the previous sweep stays"

# a corrupt database is refused and left as it was
cp "$DB" "$WORK/good.db"
printf 'this is not a database at all, but it is long enough to look like one. %.0s' $(seq 60) >"$WORK/bad.db"
sum=$(md5sum <"$WORK/bad.db")
expect 1 'bad.db: database is corrupt or not a database' fd_once -d "$WORK/bad.db"
[[ $(md5sum <"$WORK/bad.db") == "$sum" ]] || fail "fabricd changed the corrupt database"
expect 3 'bad.db: database is corrupt or not a database' "$FABRICCTL" -d "$WORK/bad.db" status
expect 3 'has fabricd run yet' "$FABRICCTL" -d "$WORK/none.db" status
expect 2 "unknown command 'frobnicate'" "$FABRICCTL" -d "$WORK/good.db" frobnicate
expect 1 "no node 'nosuch' in the fabric" "$FABRICCTL" -d "$WORK/good.db" node nosuch
printf 'Switch 4 "S"\n[9] "H"[1]\n' >"$WORK/badport.net"
expect 2 'badport.net:2: port 9 out of range 1..4 for "S"' "$FABRICCTL" -d "$WORK/good.db" diff "$WORK/badport.net"
expect 2 'fabricctl: -d needs a value' "$FABRICCTL" sweeps -d

# global options after the command, --help after any command, versions with build details
"$FABRICCTL" sweeps --json -d "$WORK/good.db" --last 1 | grep -q '^  {"sweep": ' ||
	fail "global options after the command: $("$FABRICCTL" sweeps --json -d "$WORK/good.db" 2>&1 | head -3)"
"$FABRICCTL" plan roce --help | grep -q '^usage: fabricctl plan roce FILE.yaml' || fail "plan roce --help"
"$FABRICD" --version | grep -Eq '^fabricd [0-9]+\.[0-9]+\.[0-9]+ \(.*, (GNU|Clang) ' || fail "fabricd --version: $("$FABRICD" --version)"
"$FABRICD" --version | grep -q '^libevent .*, SQLite .*, libyaml ' || fail "fabricd --version names no libraries"
[[ $("$FABRICCTL" --version | awk '{print $2}') == $("$FABRICD" --version | awk 'NR == 1 {print $2}') ]] ||
	fail "fabricctl and fabricd versions differ"
note "fabricctl takes global options after the command and --help after any; $("$FABRICD" --version | head -1)"
rm -rf "$WORK"
echo PASS
