#!/usr/bin/env node
// Runs the Bun tests (tests/**/*.bun.test.{js,ts}) with the Bun that scripts/setup.sh installs from npm.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bunPath } from "./hosts.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const files = [];
(function walk(p) {
  if (!existsSync(p)) return;
  for (const n of readdirSync(p).sort()) {
    if (n.startsWith(".") || n === "node_modules" || n === "fixtures") continue;
    const q = join(p, n);
    if (statSync(q).isDirectory()) walk(q);
    else if (/\.bun\.test\.[cm]?[jt]s$/.test(n)) files.push(q);
  }
})(join(root, "tests"));
if (!files.length) { console.log("[test-bun] no *.bun.test.* files"); process.exit(0); }
const bun = bunPath();
const v = spawnSync(bun, ["--version"], { encoding: "utf8" });
if (v.error || v.status !== 0) {
  console.error(`[test-bun] ERROR: bun not runnable (${bun}): run \`npm run setup\``);
  process.exit(1);
}
console.error(`[test-bun] bun ${v.stdout.trim()} test ${files.length} file(s)`);
const r = spawnSync(bun, ["test", ...files], { cwd: root, stdio: "inherit" });
process.exit(r.status ?? 1);
