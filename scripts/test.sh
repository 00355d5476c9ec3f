#!/usr/bin/env bash
# `npm test`: THE one command that runs every test on a fresh machine.
#   setup (toolchain + pi hosts) → cargo test → build pkg/ → Node tests (tests/js, tests/diff, tests/e2e)
#   → browser tests (tests/browser: the session viewer in real Chromium) → Bun smoke test → .d.ts check.
# Setup and build failures stop the run (everything after needs them); test failures do not: every suite runs
# and a summary lists what failed. Exit status is non-zero if anything failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

T0=$SECONDS
failed=()
summary=()
run() {  # run NAME CMD...
  local name=$1 s=$SECONDS rc=0; shift
  echo "=== [test] $name: $*" >&2
  "$@" || rc=$?
  summary+=("$(printf '%-8s %-5s %4ss' "$name" "$([ $rc = 0 ] && echo ok || echo FAIL)" $((SECONDS - s)))")
  [ $rc = 0 ] || failed+=("$name")
  return $rc
}
report() {
  echo "=== [test] summary ($((SECONDS - T0))s):" >&2
  printf '    %s\n' "${summary[@]}" >&2
  if [ ${#failed[@]} -gt 0 ]; then echo "=== [test] FAILED: ${failed[*]}" >&2; exit 1; fi
  echo "=== [test] all passed" >&2
}

run setup bash scripts/setup.sh || { report; exit 1; }
run hosts bash scripts/setup-hosts.sh || { report; exit 1; }
run rust cargo test
run build node scripts/build.mjs || { report; exit 1; }
run js node scripts/test-js.mjs
run browser node scripts/test-js.mjs tests/browser
run bun node scripts/test-bun.mjs
run types node scripts/check-types.mjs
report
