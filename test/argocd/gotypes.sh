#!/usr/bin/env bash
# Regenerates src/api/go-types.ts from Argo CD's Go types (see gotypes/main.go), at the Argo CD
# version pinned in this folder's go.mod. The argocd test suite checks that the committed file is
# what this prints.
#   bash test/argocd/gotypes.sh            # rewrite src/api/go-types.ts
#   bash test/argocd/gotypes.sh --stdout   # print it instead
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export GOTOOLCHAIN=go1.27.3 GOFLAGS=-mod=mod CGO_ENABLED=0
version=$(awk '$1 == "github.com/argoproj/argo-cd/v3" {print $2; exit}' "$here/go.mod")
# -trimpath as build.sh builds, so the compiled Argo CD packages of its cache are reused.
out=$(cd "$here" && go run -trimpath ./gotypes "$version")
if [ "${1:-}" = "--stdout" ]; then
  printf '%s\n' "$out"
else
  printf '%s\n' "$out" >"$here/../../src/api/go-types.ts"
fi
