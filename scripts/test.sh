#!/usr/bin/env bash
# The project's test command (`npm test`): installs what it needs (Node 24 if the machine's Node is
# older, the npm packages, the Go-built control plane and Argo CD v3.6, both cached outside the
# repository, Debian's redis-server), then runs lint, typecheck, the unit tests, the e2e tests on a
# real local control plane, and the beside-Argo-CD suite (Argo CD's CRDs, application controller and
# repo-server beside our controller).
#   npm test                 lint + typecheck + unit + e2e + argocd
#   npm run test:heavy       the long suites (random template cases, ...)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
source scripts/node-env.sh
appset_npm_deps

report=$(mktemp -t appset-vitest-XXXXXX.json)
report2=$(mktemp -t appset-vitest-argocd-XXXXXX.json)
trap 'rm -f "$report" "$report2"' EXIT

# One closing line over every vitest report given (a missing or empty report counts nothing).
summary() {
  node -e '
    const fs = require("fs");
    let passed = 0, failed = 0, skipped = 0;
    for (const f of process.argv.slice(1)) {
      if (!fs.existsSync(f) || fs.statSync(f).size === 0) continue;
      const r = JSON.parse(fs.readFileSync(f, "utf8"));
      passed += r.numPassedTests; failed += r.numFailedTests; skipped += r.numPendingTests + r.numTodoTests;
    }
    console.log(`tests: ${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ""));
  ' "$@"
}

# Debian's redis-server for Argo CD's repo-server and application controller (installed when absent).
ensure_redis() {
  command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ] && return 0
  echo "[redis] installing Debian's redis-server" >&2
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends redis-server >&2
}

if [ "${1:-}" = "--heavy" ]; then
  projects=(--project heavy)
else
  echo "== lint"
  npx eslint .
  echo "== typecheck"
  npx tsc -p tsconfig.json --noEmit
  projects=(--project unit --project e2e)
fi

echo "== control plane"
start=$(date +%s)
bin=$(bash test/cluster/build.sh)
echo "control plane binaries ready in $(($(date +%s) - start)) s"
export APPSET_CONTROL_PLANE_BIN="$bin"

if [ "${1:-}" != "--heavy" ]; then
  echo "== Argo CD"
  start=$(date +%s)
  argocd_bin=$(bash test/argocd/build.sh)
  export APPSET_ARGOCD_HOME="${argocd_bin%/bin}"
  ensure_redis
  echo "Argo CD binary ready in $(($(date +%s) - start)) s"
fi

echo "== tests"
status=0
npx vitest run "${projects[@]}" --reporter=default --reporter=json --outputFile.json="$report" || status=$?
if [ "${1:-}" != "--heavy" ]; then
  echo "== beside Argo CD"
  npx vitest run --project argocd --reporter=default --reporter=json --outputFile.json="$report2" || status=$?
fi
summary "$report" "$report2"
exit "$status"
