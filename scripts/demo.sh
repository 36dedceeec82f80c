#!/usr/bin/env bash
# The main job: builds fabricd, simulates a fat tree with ibsim, lets fabricd
# bring it to SUBNET UP, checks it with infiniband-diags and shows it with
# fabricctl. Runs in its own network namespace (ibsim's sockets are abstract).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bash "$top/scripts/build.sh"
net=$(realpath "${1:-$top/tests/fabrics/fattree-2l-r8.net}")
work=$(mktemp -d /tmp/fabricd-demo.XXXXXX)
echo "demo: fabric $net, work directory $work"
exec unshare -n bash "$top/tests/integration/demo.sh" "$top/build" "$net" "$work"
