#!/usr/bin/env bash
# The project's test command (`npm test`): installs what it needs (Node 24 if the machine's Node is
# older, the npm packages, the Go-built control plane, Argo CD v3.6 and the OCI registry with oras,
# all cached outside the repository, Debian's redis-server), then runs lint, typecheck, the unit tests (pure), the integration
# tests (real git, ssh, HTTP servers, the Go oracle, CLI runs), the e2e tests on a real local control
# plane, and the beside-Argo-CD suite (Argo CD's CRDs, application controller and repo-server beside
# our controller). APPSET_TEST_SEED=<integer> reruns the random and property tests on another seed.
#   npm test                 lint + typecheck + unit + integration + e2e + argocd (with the differential subset)
#   npm run test:differential  the whole differential corpus against Argo CD's ApplicationSet controller
#   npm run test:heavy       the long suites (random template cases, ...)
#   npm run test:chaos       the chaos suite (kill -9, connection cuts, apiserver restarts, outages, malformed input)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
source scripts/node-env.sh
appset_npm_deps

report=$(mktemp -t appset-vitest-XXXXXX.json)
report2=$(mktemp -t appset-vitest-argocd-XXXXXX.json)
cases=$(mktemp -t appset-differential-XXXXXX.jsonl)
trap 'rm -f "$report" "$report2" "$cases"' EXIT

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

# The differential line: cases identical, cases that differ only where deviations.yaml says, the rest.
differential_summary() {
  node -e '
    const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    const n = (k) => lines.filter((l) => l.verdict === k).length;
    const secs = lines.reduce((s, l) => s + l.seconds, 0);
    const other = lines.length - n("identical") - n("deviation");
    console.log(`differential: ${n("identical")}/${lines.length} identical, ${n("deviation")} documented deviations` + (other ? `, ${other} different` : "") + ` (${Math.round(secs)} s of cases)`);
  ' "$1"
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
elif [ "${1:-}" = "--chaos" ]; then
  projects=(--project chaos)
elif [ "${1:-}" = "--differential" ]; then
  projects=()
else
  echo "== lint"
  npx eslint .
  npx prettier --check .
  echo "== typecheck"
  npx tsc -p tsconfig.json --noEmit
  projects=(--project unit --project integration --project e2e)
fi

echo "== control plane"
start=$(date +%s)
bin=$(bash test/cluster/build.sh)
echo "control plane binaries ready in $(($(date +%s) - start)) s"
export APPSET_CONTROL_PLANE_BIN="$bin"

if [ "${1:-}" != "--heavy" ] && [ "${1:-}" != "--chaos" ]; then
  echo "== Argo CD"
  start=$(date +%s)
  argocd_bin=$(bash test/argocd/build.sh)
  export APPSET_ARGOCD_HOME="${argocd_bin%/bin}"
  ensure_redis
  echo "Argo CD binary ready in $(($(date +%s) - start)) s"
fi

echo "== OCI registry"
start=$(date +%s)
APPSET_REGISTRY_BIN=$(bash test/registry/build.sh)
export APPSET_REGISTRY_BIN
echo "OCI registry and oras ready in $(($(date +%s) - start)) s"

status=0
export APPSET_DIFFERENTIAL_REPORT="$cases"
if [ "${1:-}" = "--differential" ]; then
  echo "== differential (whole corpus)"
  start=$(date +%s)
  APPSET_DIFFERENTIAL=all npx vitest run --project argocd test/differential test/differential-sync --reporter=default --reporter=json --outputFile.json="$report2" || status=$?
  echo "differential run took $(($(date +%s) - start)) s"
  differential_summary "$cases"
  summary "$report2"
  exit "$status"
fi
echo "== tests"
npx vitest run "${projects[@]}" --reporter=default --reporter=json --outputFile.json="$report" || status=$?
if [ "${1:-}" != "--heavy" ] && [ "${1:-}" != "--chaos" ]; then
  echo "== beside Argo CD (and the differential subset)"
  npx vitest run --project argocd --reporter=default --reporter=json --outputFile.json="$report2" || status=$?
  differential_summary "$cases"
fi
summary "$report" "$report2"
exit "$status"
