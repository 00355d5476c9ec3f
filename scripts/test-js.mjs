#!/usr/bin/env node
// Runs every Node test file with `node --test`: *.test.{js,mjs,cjs} under tests/js, tests/diff, tests/e2e
// (missing folders are fine). Bun-only files (*.bun.test.*) are left to scripts/test-bun.mjs.
// Usage: node scripts/test-js.mjs [dir-or-file …] [-- extra node --test flags]
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const argv = process.argv.slice(2);
const dd = argv.indexOf("--");
const roots = (dd < 0 ? argv : argv.slice(0, dd));
const extra = dd < 0 ? [] : argv.slice(dd + 1);
const dirs = roots.length ? roots : ["tests/js", "tests/diff", "tests/e2e"];
const isTest = (n) => /\.test\.[cm]?js$/.test(n) && !/\.bun\.test\./.test(n);

const files = [];
function walk(p) {
  if (!existsSync(p)) return;
  if (statSync(p).isFile()) { files.push(p); return; }
  for (const n of readdirSync(p).sort()) {
    if (n.startsWith(".") || n === "node_modules" || n === "fixtures") continue;
    const q = join(p, n);
    if (statSync(q).isDirectory()) walk(q);
    else if (isTest(n)) files.push(q);
  }
}
for (const d of dirs) walk(join(root, d));
if (!files.length) { console.log(`[test-js] no test files under ${dirs.join(", ")}`); process.exit(0); }
console.error(`[test-js] ${process.execPath} --test ${files.map((f) => relative(root, f)).join(" ")}`);
const r = spawnSync(process.execPath, ["--test", ...extra, ...files], { cwd: root, stdio: "inherit" });
process.exit(r.status ?? 1);
