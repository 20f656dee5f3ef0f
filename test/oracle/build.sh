#!/usr/bin/env bash
# Builds the template oracle (Go text/template + Sprig v3.3.0 with Argo CD's function map) into a
# cache outside the repository keyed by its sources, and prints the binary's path. A second run with
# the same sources builds nothing.
#
#   bash test/oracle/build.sh            # build if needed, print the binary path
#   APPSET_CACHE_DIR=/some/dir bash ...   # choose the cache root (default: $XDG_CACHE_HOME or ~/.cache)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache_root=${APPSET_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/appset}
sum=$(cat "$here/go.mod" "$here/go.sum" "$here/main.go" "$here/build.sh" | sha256sum | cut -c1-12)
out="$cache_root/template-oracle/$(go env GOVERSION)_$sum"

if [ -x "$out/oracle" ]; then
  echo "$out/oracle"
  exit 0
fi
mkdir -p "$out"
(cd "$here" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -o "$out/oracle.tmp" .)
mv "$out/oracle.tmp" "$out/oracle"
echo "$out/oracle"
