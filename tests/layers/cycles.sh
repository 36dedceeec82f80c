#!/usr/bin/env bash
# cycles.sh BUILD: fails if, within sm/ (the library and fabricd's main
# file) or within db/, a source file calls a function of another file that
# calls back into it, directly or around a longer circle. Read from the
# symbol tables (nm) of the libraries as built (not of every object file
# lying in the build tree: a moved source leaves its old one behind): a
# file depends on the file that defines a symbol it leaves undefined.
# Prints each circle's files.
set -euo pipefail
BUILD=$1

# deps ARCHIVE_OR_OBJECT...: "user definer" lines, one per dependency between files
deps() {
	nm -A "$@" 2>/dev/null | awk 'NF >= 2 {
		file = $1; sub(/:[0-9a-f]*$/, "", file); sub(/.*[:\/]/, "", file); sub(/\.c\.o$/, "", file)
		if ($(NF - 1) ~ /^[TDBR]$/) print "D", file, $NF
		else if ($(NF - 1) == "U") print "U", file, $NF
	}' | awk '$1 == "D" { def[$3] = $2 } $1 == "U" { use[$2, $3] = 1; users[$2] } END {
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
		echo "-- $name: $(deps "$@" | wc -l) dependencies between its files, no circle"
	fi
}
sm=("$BUILD/sm/libfabricd_sm.a" "$BUILD/sm/CMakeFiles/fabricd.dir/fabricd.c.o")
db=("$BUILD/db/libfabricd_db.a")
for f in "${sm[@]}" "${db[@]}"; do
	[[ -f $f ]] || { echo "FAIL: $f is missing (built?)" >&2; exit 1; }
done
check sm/ "${sm[@]}"
check db/ "${db[@]}"
exit "$status"
