#!/usr/bin/env node
// Type checks of the built package (run after `npm run build`):
//   1. tests/js/types.check.ts is compiled with `tsc --noEmit --strict` as a consumer that imports
//      "pi-tree-navigator" through pkg/'s exports map (a temp folder with node_modules/pi-tree-navigator -> pkg);
//      skipLibCheck is off, so pkg/*.d.ts themselves must type-check too;
//   2. the published .d.ts files in pkg/ must not contain the type `any` (comments ignored).
//      Allowed: wasm-bindgen's own init plumbing in pi_tree_navigator.d.ts — the `InitOutput` interface (the build
//      keeps only its `memory`; raw wasm exports there had `any` for an externref) and the
//      InitInput/SyncInitInput/initSync/__wbg_init lines. They are not part of the SessionIndex API; each allowed
//      line is printed.
// The consumer is compiled with lib es2022 + esnext.disposable + dom: wasm-bindgen 0.2.130 emits
// `[Symbol.dispose](): void` on classes, which needs esnext.disposable (or lib esnext) when skipLibCheck is off.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkgDir = join(root, "pkg");
const tsc = join(root, "node_modules", ".bin", "tsc");
const fail = (m) => { console.error(`[check-types] ERROR: ${m}`); process.exit(1); };
if (!existsSync(join(pkgDir, "package.json"))) fail("pkg/ not built: run `npm run build`");
if (!existsSync(tsc)) fail("node_modules/.bin/tsc missing: run `npm run setup`");

// --- 1. consumer type check ----------------------------------------------------------------------
const tmp = mkdtempSync(join(tmpdir(), "ptn-types-"));
let ok = true;
try {
  mkdirSync(join(tmp, "node_modules"));
  symlinkSync(pkgDir, join(tmp, "node_modules", "pi-tree-navigator"), "dir");
  writeFileSync(join(tmp, "package.json"), JSON.stringify({ private: true, type: "module" }));
  copyFileSync(join(root, "tests", "js", "types.check.ts"), join(tmp, "consumer.ts"));
  writeFileSync(join(tmp, "tsconfig.json"), JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext",
      lib: ["es2022", "esnext.disposable", "dom"], types: [], skipLibCheck: false, noUnusedLocals: false, exactOptionalPropertyTypes: true,
    },
    files: ["consumer.ts"],
  }));
  const r = spawnSync(tsc, ["-p", ".", "--pretty", "false"], { cwd: tmp, encoding: "utf8" });
  const out = (r.stdout + r.stderr).replace(/^consumer\.ts\(/gm, "tests/js/types.check.ts(")
    .replaceAll("node_modules/pi-tree-navigator/", "pkg/");
  if (r.status !== 0) { console.error(out.trim()); console.error("[check-types] tsc: FAILED (consumer.ts = tests/js/types.check.ts)"); ok = false; }
  else console.log("[check-types] tsc --noEmit --strict on tests/js/types.check.ts against pkg/: ok");
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

// --- 2. no `any` on the public surface -----------------------------------------------------------
const ALLOWED = [
  /^export type (InitInput|SyncInitInput)\b/,
  /^export function initSync\(/,
  /^export default function __wbg_init\b/,
];
// Strip comments but keep line numbers.
const stripComments = (s) => s.replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, " ")).replace(/\/\/.*$/gm, "");
// The published .d.ts files: those in pkg/package.json "files" (folders walked). wasm-bindgen's
// pi_tree_navigator_bg.wasm.d.ts (raw wasm exports) is not published and not importable, so it is not scanned.
const dts = [];
const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
(function walk(paths) {
  for (const q of paths) {
    if (!existsSync(q)) continue;
    if (statSync(q).isDirectory()) walk(readdirSync(q).filter((n) => n !== "node_modules").map((n) => join(q, n)));
    else if (q.endsWith(".d.ts")) dts.push(q);
  }
})((manifest.files || []).map((f) => join(pkgDir, f)));
if (!dts.length) fail("no .d.ts in pkg/package.json \"files\"");
let anyHits = 0;
for (const f of dts) {
  const lines = stripComments(readFileSync(f, "utf8")).split("\n");
  let inInitOutput = false;
  lines.forEach((line, i) => {
    const t = line.trim();
    if (/^export interface InitOutput\b/.test(t)) inInitOutput = true;
    const allowed = inInitOutput || ALLOWED.some((re) => re.test(t));
    if (inInitOutput && t === "}") inInitOutput = false;
    if (!/\bany\b/.test(line)) return;
    const where = `${relative(root, f)}:${i + 1}: ${t}`;
    if (allowed) console.log(`[check-types] allowed (wasm-bindgen init plumbing): ${where}`);
    else { console.error(`[check-types] \`any\` on the public surface: ${where}`); anyHits++; }
  });
}
if (anyHits) { console.error(`[check-types] ${anyHits} \`any\` in pkg/*.d.ts: FAILED`); ok = false; }
else console.log(`[check-types] no \`any\` in ${dts.map((f) => relative(root, f)).join(", ")}: ok`);
process.exit(ok ? 0 : 1);
