#!/usr/bin/env bash
# Builds the reference Argo CD binary (application controller, repo-server, applicationset controller
# and the Git askpass helper in one program, see main.go) from the Argo CD module pinned in go.mod,
# and the helm and kustomize programs its repo-server runs (tools/go.mod, the versions Argo CD's
# image ships), into a cache outside the repository keyed by the pinned versions, and prints the
# binaries' directory.
# A second run with the same pins builds nothing. Argo CD v3.6 needs Go 1.27: the go command fetches
# that toolchain from the module proxy (GOTOOLCHAIN below).
#
#   bash test/argocd/build.sh             # build if needed, print the bin dir
#   APPSET_CACHE_DIR=/some/dir bash ...    # choose the cache root (default: $XDG_CACHE_HOME or ~/.cache)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../cluster/cache.sh"
export GOTOOLCHAIN=go1.27.3

argocd_version=$(required github.com/argoproj/argo-cd/v3 "$here/go.mod")
# Bump when the way the binary is built changes (flags, programs), so caches are rebuilt.
build_rev=1
helm_version=$(required helm.sh/helm/v4 "$here/tools/go.mod")
kustomize_version=$(required sigs.k8s.io/kustomize/kustomize/v5 "$here/tools/go.mod")
sum=$(cat "$here/go.mod" "$here/go.sum" "$here/main.go" "$here/tools/go.mod" "$here/tools/go.sum" | sha256sum | cut -c1-12)
key="argocd-${argocd_version}_helm-${helm_version}_kustomize-${kustomize_version}_${GOTOOLCHAIN}_${sum}_r${build_rev}"
out="$cache_root/argocd/$key"
bin="$out/bin"

cache_enter "$out"
log() { printf '[argocd build] %s\n' "$*" >&2; }
start=$(date +%s)
export CGO_ENABLED=0
export GOFLAGS=-mod=mod

pkg=github.com/argoproj/argo-cd/v3/common
ldflags="-s -w -X $pkg.version=${argocd_version#v} -X $pkg.gitTag=$argocd_version -X $pkg.gitTreeState=clean"
log "building Argo CD $argocd_version (application controller, repo-server, applicationset controller; cold builds take a while)"
(cd "$here" && go build -trimpath -ldflags "$ldflags" -o "$bin/argocd" .)

log "building helm $helm_version and kustomize $kustomize_version"
(cd "$here/tools" && go build -trimpath -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=$helm_version" -o "$bin/helm" helm.sh/helm/v4/cmd/helm)
(cd "$here/tools" && go build -trimpath -ldflags "-s -w -X sigs.k8s.io/kustomize/api/provenance.version=$kustomize_version" -o "$bin/kustomize" sigs.k8s.io/kustomize/kustomize/v5)

# The release's own helper that its repo-server runs on every Git checkout, as Argo CD's image installs it.
cp "$(cd "$here" && go list -m -f '{{.Dir}}' github.com/argoproj/argo-cd/v3)/hack/git-verify-wrapper.sh" "$bin/"
chmod 0755 "$bin/git-verify-wrapper.sh"

# The CRDs of the same release, read by the contract test and installed by the beside-Argo-CD tests.
mod_dir=$(cd "$here" && go list -m -f '{{.Dir}}' github.com/argoproj/argo-cd/v3)
mkdir -p "$out/crds"
cp "$mod_dir"/manifests/crds/*-crd.yaml "$out/crds/"
chmod -R u+w "$out/crds"

log "done in $(($(date +%s) - start)) s: $bin"
cache_done "$out"
