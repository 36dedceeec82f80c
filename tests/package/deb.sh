#!/usr/bin/env bash
# deb.sh SOURCE_DIR: the Debian package, judged by Debian's own tools.
#
# Builds the .deb from a clean tree (git archive of HEAD) with
# dpkg-buildpackage -us -uc -b, lists what it installs, runs lintian (no
# error may remain), has systemd-analyze verify both units (their
# ExecStart pointed at the packaged binary, which is not installed here),
# and groff -man -ww -z read every man page without a word.
set -euo pipefail
SRC=$1
WORK=$(mktemp -d /tmp/fabricd-deb.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "-- $*"; }

git -C "$SRC" archive --format=tar --prefix=fabricd/ HEAD | tar -x -C "$WORK"
(cd "$WORK/fabricd" && DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b >"$WORK/build.log" 2>&1) ||
	fail "dpkg-buildpackage: $(tail -15 "$WORK/build.log")"
deb=$(ls "$WORK"/fabricd_*_*.deb)
dpkg-deb -c "$deb" | awk '{print $6}' >"$WORK/contents"
for f in ./usr/sbin/fabricd ./usr/bin/fabricctl ./etc/fabricd/fabricd.yaml ./etc/logrotate.d/fabricd \
	./lib/systemd/system/fabricd.service ./lib/systemd/system/fabricd@.service \
	./usr/share/man/man8/fabricd.8.gz ./usr/share/man/man8/fabricctl.8.gz ./usr/share/man/man5/fabricd.yaml.5.gz \
	./usr/share/bash-completion/completions/fabricctl; do
	grep -qx -- "$f" "$WORK/contents" || fail "the package lacks $f: $(cat "$WORK/contents")"
done
dpkg-deb -f "$deb" Conffiles 2>/dev/null | grep -q /etc/fabricd/fabricd.yaml ||
	dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles | grep -qx /etc/fabricd/fabricd.yaml ||
	fail "/etc/fabricd/fabricd.yaml is not a conffile"
note "$(basename "$deb"): $(grep -c '[^/]$' "$WORK/contents") files, /etc/fabricd/fabricd.yaml a conffile"

lintian --tag-display-limit 0 "$WORK"/fabricd_*.changes >"$WORK/lintian.txt" 2>&1 || true
grep -q '^E: ' "$WORK/lintian.txt" && fail "lintian errors: $(grep '^E: ' "$WORK/lintian.txt")"
note "lintian: $(grep -c '^[EW]: ' "$WORK/lintian.txt" || true) errors or warnings"

dpkg-deb -x "$deb" "$WORK/root"
for unit in fabricd.service fabricd@.service; do
	name=${unit/@/@0x0002c90300000001}
	sed "s|/usr/sbin/fabricd|$WORK/root/usr/sbin/fabricd|" "$WORK/root/lib/systemd/system/$unit" >"$WORK/$name"
	out=$(systemd-analyze verify --man=no "$WORK/$name" 2>&1) || fail "systemd-analyze verify $unit: $out"
	[[ -z $out ]] || fail "systemd-analyze verify $unit says: $out"
done
note "systemd-analyze verify: both units accepted"

for page in "$WORK"/root/usr/share/man/man*/*.gz; do
	out=$(gunzip -c "$page" | groff -man -ww -z 2>&1) || fail "groff on $(basename "$page"): $out"
	[[ -z $out ]] || fail "groff -man -ww -z on $(basename "$page"): $out"
done
note "groff -man -ww -z: $(ls "$WORK"/root/usr/share/man/man*/*.gz | wc -l) man pages without a warning"
