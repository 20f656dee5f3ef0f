#!/usr/bin/env bash
# Builds the local control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok)
# from the Go modules pinned in this folder, into a cache outside the repository keyed by the pinned
# versions, and prints the cache's bin directory. A second run with the same pins builds nothing.
#
#   bash test/cluster/build.sh            # build if needed, print the bin dir
#   APPSET_CACHE_DIR=/some/dir bash ...    # choose the cache root (default: $XDG_CACHE_HOME or ~/.cache)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/cache.sh"

k8s_version=$(required k8s.io/kubernetes "$here/go.mod")
kwok_version=$(required sigs.k8s.io/kwok "$here/go.mod")
etcd_version=$(required go.etcd.io/etcd/server/v3 "$here/etcd/go.mod")
go_version=$(go env GOVERSION)
# Bump when the way the binaries are built changes (flags, stages), so caches are rebuilt.
build_rev=1
sum=$(cat "$here/go.mod" "$here/go.sum" "$here/etcd/go.mod" "$here/etcd/go.sum" | sha256sum | cut -c1-12)
key="k8s-${k8s_version}_etcd-${etcd_version}_kwok-${kwok_version}_${go_version}_${sum}_r${build_rev}"
out="$cache_root/control-plane/$key"
bin="$out/bin"

# One build at a time per key: a second caller waits, then finds the result.
cache_enter "$out"
log() { printf '[control-plane build] %s\n' "$*" >&2; }
start=$(date +%s)
export CGO_ENABLED=0
export GOFLAGS=-mod=mod

minor=$(echo "$k8s_version" | cut -d. -f2)
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$k8s_version \
-X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor \
-X k8s.io/component-base/version.gitTreeState=clean"

log "building kube-apiserver, kube-controller-manager, kube-scheduler $k8s_version (cold builds take a while)"
(cd "$here" && go build -trimpath -ldflags "$ldflags" -o "$bin/" \
  k8s.io/kubernetes/cmd/kube-apiserver \
  k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler)

log "building kwok $kwok_version"
(cd "$here" && go build -trimpath -ldflags "-s -w" -o "$bin/kwok" sigs.k8s.io/kwok/cmd/kwok)

log "building etcd $etcd_version"
(cd "$here/etcd" && go build -trimpath -ldflags "-s -w" -o "$bin/etcd" go.etcd.io/etcd/server/v3)

# kwok v0.8.0 ships no default stages: assemble the fast node and pod stages from the module itself.
kwok_dir=$(cd "$here" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
{
  for f in kustomize/stage/node/fast/node-initialize.yaml \
    kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
    kustomize/stage/pod/fast/pod-ready.yaml \
    kustomize/stage/pod/fast/pod-complete.yaml \
    kustomize/stage/pod/fast/pod-delete.yaml; do
    echo "---"
    cat "$kwok_dir/$f"
  done
} >"$out/kwok-stages.yaml"

log "done in $(($(date +%s) - start)) s: $bin"
cache_done "$out"
