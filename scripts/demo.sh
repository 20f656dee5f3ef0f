#!/usr/bin/env bash
# The project's demo command (`npm run demo`): installs what it needs, starts the local control plane
# and keeps it up until Ctrl-C. Flags are passed on (--check: start, report, stop).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
source scripts/node-env.sh
appset_npm_deps
APPSET_CONTROL_PLANE_BIN=$(bash test/cluster/build.sh)
export APPSET_CONTROL_PLANE_BIN
exec npx tsx test/cluster/cli.ts "$@"
