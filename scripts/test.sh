#!/usr/bin/env bash
# The project's test command (`npm test`): installs what it needs (Node 24 if the machine's Node is
# older, the npm packages, the Go-built control plane, cached outside the repository), then runs
# lint, typecheck, the unit tests and the e2e tests on a real local control plane.
#   npm test                 lint + typecheck + unit + e2e
#   npm run test:heavy       the long suites (random template cases, ...)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
source scripts/node-env.sh
appset_npm_deps

report=$(mktemp -t appset-vitest-XXXXXX.json)
trap 'rm -f "$report"' EXIT

summary() {
  node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const skipped = r.numPendingTests + r.numTodoTests;
    console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""));
  ' "$report"
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

echo "== tests"
status=0
npx vitest run "${projects[@]}" --reporter=default --reporter=json --outputFile.json="$report" || status=$?
[ -s "$report" ] && summary
exit "$status"
