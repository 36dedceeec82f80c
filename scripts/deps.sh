#!/usr/bin/env bash
# Installs the Debian packages fabricd builds, runs and tests with, if missing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config clang libclang-rt-dev
  libibumad-dev libibmad-dev libopensm-dev
  libevent-dev libsqlite3-dev libyaml-dev libcmocka-dev
  ibsim-utils libumad2sim0 infiniband-diags opensm ibutils
  scdoc groff-base systemd lintian debhelper devscripts fakeroot
  sqlite3 iproute2 util-linux prometheus frr iputils-ping jq
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "deps.sh: missing packages (${missing[*]}); run as root to install them" >&2
    exit 1
  fi
  echo "deps.sh: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
