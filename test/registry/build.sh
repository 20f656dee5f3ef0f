#!/usr/bin/env bash
# Builds the OCI registry the tests run (CNCF Distribution's `registry`) and the `oras` program that
# pushes artifacts to it, from the modules pinned in go.mod, into a cache outside the repository
# keyed by the pinned versions, and prints the binaries' directory. A second run builds nothing.
#
#   bash test/registry/build.sh            # build if needed, print the bin dir
#   APPSET_CACHE_DIR=/some/dir bash ...     # choose the cache root (default: $XDG_CACHE_HOME or ~/.cache)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../cluster/cache.sh"

distribution_version=$(required github.com/distribution/distribution/v3 "$here/go.mod")
oras_version=$(required oras.land/oras "$here/go.mod")
# Bump when the way the binaries are built changes, so caches are rebuilt.
build_rev=1
go_version=$(go env GOVERSION)
sum=$(cat "$here/go.mod" "$here/go.sum" "$here/tools.go" | sha256sum | cut -c1-12)
key="distribution-${distribution_version}_oras-${oras_version}_${go_version}_${sum}_r${build_rev}"
out="$cache_root/registry/$key"

cache_enter "$out"
log() { printf '[registry build] %s\n' "$*" >&2; }
start=$(date +%s)
export CGO_ENABLED=0
export GOFLAGS=-mod=mod

log "building registry $distribution_version and oras $oras_version"
(cd "$here" && go build -trimpath -ldflags "-s -w" -o "$out/bin/registry" github.com/distribution/distribution/v3/cmd/registry)
(cd "$here" && go build -trimpath -ldflags "-s -w -X oras.land/oras/internal/version.Version=${oras_version#v} -X oras.land/oras/internal/version.BuildMetadata=" -o "$out/bin/oras" oras.land/oras/cmd/oras)

log "done in $(($(date +%s) - start)) s: $out/bin"
cache_done "$out"
