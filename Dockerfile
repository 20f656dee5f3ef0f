# The controller image: Node.js 24, production dependencies only, a non-root user, and a read-only
# root filesystem (the process writes only under /tmp: the Deployment mounts an emptyDir there).
# The entrypoint is `appset controller` under tini (Debian's package) as PID 1, which forwards
# signals and reaps the `git` and `ssh` children an aborted fetch leaves behind; arguments given to
# the container are the controller's flags. The e2e suite (test/e2e/deploy-image.test.ts) starts the
# built dist/ exactly as ENTRYPOINT does, after tini's `/usr/bin/tini --`, and runs the HEALTHCHECK
# command against it, since no container engine runs in CI.
#
# The base images are pinned by tag only (node:24-bookworm-slim, golang:1.26-bookworm), not by
# digest: pin them with `FROM image:tag@sha256:...` when building for release.

# Bundles the TypeScript into dist/cli with the dev dependencies (esbuild; scripts/build.ts).
FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json ./
COPY scripts/build.ts ./scripts/
COPY src ./src
RUN npm run build

# helm and kustomize, which the sync engine runs for Helm and Kustomize sources, built from their Go
# modules at the versions Argo CD v3.6 ships: the same pins (test/argocd/tools/go.mod) as the programs
# the reference repo-server runs in the tests. Static binaries, so they run on the Node.js image.
FROM golang:1.26-bookworm AS render-tools
ENV GOTOOLCHAIN=go1.27.3 CGO_ENABLED=0 GOFLAGS=-mod=mod
WORKDIR /tools
COPY test/argocd/tools/go.mod test/argocd/tools/go.sum test/argocd/tools/tools.go ./
RUN helm_version=$(go list -m -f '{{.Version}}' helm.sh/helm/v4) \
  && kustomize_version=$(go list -m -f '{{.Version}}' sigs.k8s.io/kustomize/kustomize/v5) \
  && go build -trimpath -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=$helm_version" -o /out/helm helm.sh/helm/v4/cmd/helm \
  && go build -trimpath -ldflags "-s -w -X sigs.k8s.io/kustomize/api/provenance.version=$kustomize_version" -o /out/kustomize sigs.k8s.io/kustomize/kustomize/v5

# Installs the production dependencies alone.
FROM node:24-bookworm-slim AS deps
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts

FROM node:24-bookworm-slim
# The OCI image labels; the version is package.json's (test/unit/deploy/dockerfile.test.ts holds them equal).
LABEL org.opencontainers.image.title="appset" \
      org.opencontainers.image.description="An Argo CD-compatible ApplicationSet controller, progressive syncs and sync engine, in TypeScript" \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.licenses="Apache-2.0"
# git (and ssh for SSH repository URLs) runs the Git generator's fetches; tini is the init process.
RUN apt-get update \
  && apt-get install -y --no-install-recommends git openssh-client ca-certificates tini \
  && rm -rf /var/lib/apt/lists/*
# Two malloc arenas: glibc otherwise keeps one per thread that allocates (the main thread, libuv's
# pool, V8's collector threads) and gives little of them back (docs/controller.md#v8-settings).
ENV NODE_ENV=production \
    APPSET_HEALTHCHECK_URL=http://127.0.0.1:8081/readyz \
    MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=deps /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json ./
COPY --from=render-tools /out/helm /out/kustomize /usr/local/bin/
# Argo CD's program name too, so manifests written for Argo CD's image (argo-helm passes
# /usr/local/bin/argocd-applicationset-controller as the first argument, or as the command) run it.
# As the first argument it runs under tini (the controller drops it), as `sync-engine` does (the sync
# engine's Deployment passes `args: [sync-engine]`); a container `command` replaces the ENTRYPOINT,
# and with it tini.
RUN chmod 0755 /app/dist/cli/main.js && ln -s /app/dist/cli/main.js /usr/local/bin/appset \
  && ln -s /app/dist/cli/main.js /usr/local/bin/argocd-applicationset-controller
# The base image's unprivileged "node" user, by number so that runAsNonRoot can verify it.
USER 1000:1000
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch(process.env.APPSET_HEALTHCHECK_URL).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "appset", "controller"]
