# Sourced by the build scripts that cache binaries outside the repository (test/cluster/build.sh,
# test/argocd/build.sh): the cache root, reading a pinned version from a go.mod, and entering a
# cache entry (print its bin dir and exit when it is complete; otherwise take its lock, so a second
# caller waits for the first build and then finds the result).

cache_root=${APPSET_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/appset}

# The version a go.mod requires of a module, whether in a require block or on a require line.
required() { awk -v m="$1" '{for (i = 1; i < NF; i++) if ($i == m) {print $(i + 1); exit}}' "$2"; }

# cache_enter OUT: exits printing OUT/bin when OUT/.complete exists, else returns holding OUT's lock.
cache_enter() {
  local out=$1
  if [ -f "$out/.complete" ]; then
    echo "$out/bin"
    exit 0
  fi
  mkdir -p "$out/bin"
  exec 9>"$out/.lock"
  flock 9
  if [ -f "$out/.complete" ]; then
    echo "$out/bin"
    exit 0
  fi
}

# cache_done OUT: marks OUT complete and prints its bin dir.
cache_done() {
  touch "$1/.complete"
  echo "$1/bin"
}
