#!/usr/bin/env bash
# Toolchain setup for pi-tree-navigator (idempotent; see ../shared/reference/toolchain.md §7).
#
# Installs, skipping whatever is already present at the right version:
#   - rustup target wasm32-unknown-unknown           (never `rustup update`)
#   - wasm-bindgen-cli = the wasm-bindgen version in Cargo.lock   -> ~/.cargo/bin
#   - wasm-pack 0.15.1 (from crates.io; the npm package downloads from GitHub and fails) -> ~/.cargo/bin
#   - npm devDependencies (binaryen 132 = wasm-opt, typescript)   -> ./node_modules
#   - Bun 1.4.5 from npm                                          -> $PTN_CACHE/bun
#   - Debian's chromium (apt-get, only when /usr/bin/chromium is missing; for tests/browser, driven by the
#     playwright-core devDependency)
#   - Debian's tmux (apt-get, only when missing; tests/e2e/tui.test.mjs drives pi's interactive TUI in it)
#
# Everything except node_modules lives outside the repo. Env knobs:
#   PTN_CACHE         default ${XDG_CACHE_HOME:-$HOME/.cache}/pi-tree-navigator
#   TOOLS_TARGET_DIR  cargo target dir for the tool installs (default ~/.cache/wasm-tools-target)
#   WITH_BUN=0        skip Bun
#   WITH_BROWSER=0    skip Chromium (tests/browser then fail with a message saying so)
#   WITH_TMUX=0       skip tmux (tests/e2e/tui.test.mjs then fails with a message saying so)
# Never installs Debian's binaryen (wasm-opt 108 breaks wasm-pack builds).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

PTN_CACHE=${PTN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pi-tree-navigator}
WASM_PACK_VERSION=0.15.1
BUN_VERSION=1.4.5
WITH_BUN=${WITH_BUN:-1}
WITH_BROWSER=${WITH_BROWSER:-1}
WITH_TMUX=${WITH_TMUX:-1}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
BIN=${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin
export PATH="$BIN:$PATH"

T0=$SECONDS
step() { echo "[setup] $*" >&2; }
fail() { echo "[setup] ERROR: $*" >&2; exit 1; }
timed() { local s=$SECONDS rc=0; "$@" || rc=$?; step "rc=$rc after $((SECONDS - s))s: $*"; return $rc; }
have_version() { [ -x "$BIN/$1" ] && [ "$("$BIN/$1" --version 2>/dev/null | awk '{print $2}')" = "$2" ]; }

# --- prerequisites -------------------------------------------------------------------------------
command -v cargo >/dev/null || fail "cargo not found (the machine's Rust toolchain is required; rustup cannot be fetched here)"
command -v node >/dev/null || fail "node not found"
command -v npm >/dev/null || fail "npm not found"
node -e 'const [a,b]=process.versions.node.split(".").map(Number); if (a<20||(a===20&&b<19)) { console.error("[setup] ERROR: need node >= 20.19 (require(esm)), have "+process.version); process.exit(1) }'

# --- rust target ---------------------------------------------------------------------------------
if rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  step "rust target wasm32-unknown-unknown present"
else
  timed rustup target add wasm32-unknown-unknown \
    || fail "rustup target add wasm32-unknown-unknown failed (rustup's dist server unreachable?). Do NOT run 'rustup update'."
fi

# --- Cargo.lock (the wasm-bindgen version must match the CLI) ------------------------------------
if [ ! -f Cargo.lock ]; then
  step "Cargo.lock missing; generating it"
  timed cargo generate-lockfile || fail "cargo generate-lockfile failed (Cargo.toml does not resolve)"
fi
WBG=$(awk '$0=="name = \"wasm-bindgen\"" {getline; gsub(/version = |"/, ""); print; exit}' Cargo.lock)
[ -n "$WBG" ] || fail "wasm-bindgen not found in Cargo.lock"

export CARGO_TARGET_DIR=${TOOLS_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/wasm-tools-target}

# --- wasm-bindgen-cli ----------------------------------------------------------------------------
if have_version wasm-bindgen "$WBG" && [ -x "$BIN/wasm-bindgen-test-runner" ]; then
  step "wasm-bindgen-cli $WBG present"
else
  # --locked may fail against this registry mirror (the CLI's lock pins a crate version the mirror lacks).
  timed cargo install wasm-bindgen-cli --version "$WBG" --locked --force \
    || { step "locked install failed; retrying unlocked"; timed cargo install wasm-bindgen-cli --version "$WBG" --force; } \
    || fail "cargo install wasm-bindgen-cli $WBG failed (locked and unlocked)"
  have_version wasm-bindgen "$WBG" || fail "wasm-bindgen $WBG not runnable from $BIN after install"
fi

# --- wasm-pack -----------------------------------------------------------------------------------
if have_version wasm-pack "$WASM_PACK_VERSION"; then
  step "wasm-pack $WASM_PACK_VERSION present"
else
  timed cargo install wasm-pack --version "$WASM_PACK_VERSION" --locked --force \
    || { step "locked install failed; retrying unlocked"; timed cargo install wasm-pack --version "$WASM_PACK_VERSION" --force; } \
    || fail "cargo install wasm-pack $WASM_PACK_VERSION failed"
fi

# --- npm devDependencies -------------------------------------------------------------------------
# Skip when every devDependency is installed at exactly the pinned version.
devdeps_ok() {
  node -e '
    const fs = require("fs");
    const pkg = JSON.parse(fs.readFileSync("package.json", "utf8"));
    for (const [name, want] of Object.entries(pkg.devDependencies || {})) {
      let have;
      try { have = JSON.parse(fs.readFileSync(`node_modules/${name}/package.json`, "utf8")).version; } catch { process.exit(1); }
      if (have !== want) process.exit(1);
    }' 2>/dev/null
}
if devdeps_ok; then
  step "npm devDependencies present"
elif [ -f package-lock.json ]; then
  timed npm ci --no-audit --no-fund || fail "npm ci failed"
else
  timed npm install --no-audit --no-fund || fail "npm install failed"
fi
[ -x node_modules/.bin/wasm-opt ] || fail "node_modules/.bin/wasm-opt missing (npm binaryen devDependency)"

# --- Bun (from npm, into the cache) --------------------------------------------------------------
BUN="$PTN_CACHE/bun/node_modules/.bin/bun"
if [ "$WITH_BUN" = 1 ]; then
  if [ -x "$BUN" ] && [ "$("$BUN" --version 2>/dev/null)" = "$BUN_VERSION" ]; then
    step "bun $BUN_VERSION present"
  else
    mkdir -p "$PTN_CACHE/bun"
    [ -f "$PTN_CACHE/bun/package.json" ] || echo '{"private":true}' > "$PTN_CACHE/bun/package.json"
    timed npm install --prefix "$PTN_CACHE/bun" --no-audit --no-fund --save-exact "bun@$BUN_VERSION" \
      || fail "npm install bun@$BUN_VERSION into $PTN_CACHE/bun failed"
    [ "$("$BUN" --version 2>/dev/null)" = "$BUN_VERSION" ] || fail "bun $BUN_VERSION not runnable at $BUN after install"
  fi
fi

# Installs Debian package $1 with apt-get (as root, or through passwordless sudo); $2 is the knob that skips it.
apt_install() {
  local pkg=$1 knob=$2 SUDO=""
  [ "$(id -u)" = 0 ] || { command -v sudo >/dev/null && SUDO="sudo -n"; } \
    || fail "$pkg missing and not root (install Debian's $pkg, or $knob=0 to skip)"
  command -v apt-get >/dev/null || fail "$pkg missing and no apt-get (install $pkg, or $knob=0 to skip)"
  timed $SUDO apt-get update -qq || fail "apt-get update failed"
  timed env DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$pkg" || fail "apt-get install $pkg failed"
}

# --- Chromium (Debian package; toolchain.md §6) -----------------------------------------------------
if [ "$WITH_BROWSER" = 1 ]; then
  if [ -x "$CHROMIUM" ]; then
    step "chromium present ($CHROMIUM)"
  else
    apt_install chromium WITH_BROWSER
    [ -x "$CHROMIUM" ] || fail "chromium installed but $CHROMIUM is missing"
  fi
fi

# --- tmux (Debian package): the real interactive pi runs in it for tests/e2e/tui.test.mjs -------------
if [ "$WITH_TMUX" = 1 ]; then
  if command -v tmux >/dev/null; then
    step "tmux present ($(tmux -V))"
  else
    apt_install tmux WITH_TMUX
    command -v tmux >/dev/null || fail "tmux installed but not on PATH"
  fi
fi

step "$(rustc -V) | $(wasm-bindgen --version) | $(wasm-pack --version) | node $(node -v) | wasm-opt $(node_modules/.bin/wasm-opt --version 2>/dev/null | awk '{print $3}') | bun $([ -x "$BUN" ] && "$BUN" --version || echo skipped) | chromium $([ -x "$CHROMIUM" ] && "$CHROMIUM" --version 2>/dev/null | awk '{print $2}' || echo skipped)"
step "toolchain ready in $((SECONDS - T0))s"
