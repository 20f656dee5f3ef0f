#!/usr/bin/env bash
# The project's demo command (`npm run demo`): installs what it needs (Node.js 24, the npm packages,
# the control plane binaries), then runs the demo: a local control plane, the controller with
# progressive syncs and the sync engine, a RollingSync rollout and its Reverse deletion, shown live.
#   npm run demo [-- --keep-cluster] [-- --print-kubeconfig]
# `--check` only starts the local control plane, reports and stops it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
source scripts/node-env.sh
appset_npm_deps
APPSET_CONTROL_PLANE_BIN=$(bash test/cluster/build.sh)
export APPSET_CONTROL_PLANE_BIN
if [[ "${1:-}" == "--check" ]]; then
  exec npx tsx test/cluster/cli.ts "$@"
fi
# One Node process (no npx or tsx wrapper in between), so that Ctrl-C reaches only the demo.
exec node --import tsx test/demo/main.ts "$@"
