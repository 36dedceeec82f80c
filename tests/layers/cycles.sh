#!/usr/bin/env bash
# cycles.sh BUILD: fails if, within sm/ (the library and fabricd's main
# file) or within db/, a source file calls a function of another file that
# calls back into it, directly or around a longer circle. Read from the
# object files' symbol tables (nm): a file depends on the file that
# defines a symbol it leaves undefined. Prints each circle's files.
set -euo pipefail
BUILD=$1

# deps OBJECT...: "user definer" lines, one per dependency between files
deps() {
	for o in "$@"; do
		local m=${o#*.dir/}
		m=${m%.c.o}
		nm "$o" | awk -v m="$m" '$2 ~ /^[TDBR]$/ { print "D", m, $3 } $1 == "U" { print "U", m, $2 }'
	done | awk '$1 == "D" { def[$3] = $2 } $1 == "U" { use[$2, $3] = 1; users[$2] } END {
		for (k in use) { split(k, p, SUBSEP); if ((p[2] in def) && def[p[2]] != p[1]) print p[1], def[p[2]] } }' | sort -u
}

# circles: from "a b" edges, the groups of files that reach each other (one line each)
circles() {
	awk '{ e[$1, $2] = 1; n[$1]; n[$2] } END {
		for (k in n) for (i in n) if (e[i, k]) for (j in n) if (e[k, j]) e[i, j] = 1
		for (i in n) {
			if (i in done) continue
			line = ""
			for (j in n) if (i == j ? e[i, i] : e[i, j] && e[j, i]) { line = line " " j; done[j] }
			if (line != "") print line
		}
	}'
}

status=0
check() {
	local name=$1 found
	shift
	found=$(deps "$@" | circles)
	if [[ -n $found ]]; then
		echo "FAIL: $name has circles of calls between files:" >&2
		sed 's/^/  /' <<<"$found" >&2
		status=1
	else
		echo "-- $name: $(deps "$@" | wc -l) dependencies between $# files, no circle"
	fi
}
mapfile -t sm < <(find "$BUILD/sm/CMakeFiles/fabricd_sm.dir" "$BUILD/sm/CMakeFiles/fabricd.dir" -name '*.c.o' | sort)
mapfile -t db < <(find "$BUILD/db/CMakeFiles/fabricd_db.dir" -name '*.c.o' | sort)
((${#sm[@]} > 10 && ${#db[@]} > 3)) || { echo "FAIL: no object files under $BUILD (built?)" >&2; exit 1; }
check sm/ "${sm[@]}"
check db/ "${db[@]}"
exit "$status"
