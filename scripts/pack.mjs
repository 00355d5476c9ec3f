#!/usr/bin/env node
// `npm run pack`: the release tarball, pi-tree-navigator-<version>.tgz, packed by npm from the built package
// (pkg/, `npm run build`) into the repository root (or --out <dir>). A machine without Rust installs it with
//   pi install npm:pi-tree-navigator@file:<absolute path of the .tgz>
// (the name before `@file:` is what pi finds the install by; see README, "Install"). Prints the tarball's size
// beside the package's unpacked size and the cap the smoke test holds the tarball to.
// Usage: node scripts/pack.mjs [--out <dir>]
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The packed package may weigh this much at most, in npm's kB (1000 bytes); tests/js/smoke.test.js holds it.
 * 300 → 400 kB for speed and cold start (issue 23); 400 → 425 kB for the ledger under every summary (issue 30);
 * back to 400 kB (issue 38: 424.4 kB → 393.8 kB) once the README held only a pi user's page (its depth in docs/,
 * which the package does not ship) and the generated .d.ts lost its doc comments; 400 → 415 kB for the loop hint and
 * the loops `stats` and the viewer list (issue 41: +16.9 kB packed, 393.8 → 410.7 kB; the wasm +32 kB raw: the rule,
 * the walk over every branch, the texts, the binding); 415 → 420 kB for what a rewind saves (issue 37: +5.1 kB
 * packed, 410.7 → 415.8 kB: each assistant's usage source read and kept, the saving's one rule, and its reporters —
 * the guard at the summary, stats, the viewer, the pressure hint); 420 → 425 kB for archiveOnExit and `/archive` (issue 42: +7.2 kB
 * packed; the wasm +6.7 kB raw: the config keys, the exit rule, the texts and four bindings; the shim: the archiver,
 * archive-after-exit.js, and the pi side, archive-on-exit.js, ~1.5 kB each); 425 → 440 kB for the cost model
 * (issue 39: +16.9 kB packed, ~423.0 → 439.9 kB after its merge with issues 37 and 42 — its usage reading, the one
 * cost result, its texts and binding, the viewer's money — once its reading had shed two readers and the rare
 * entries' fields, and its sort and flattened struct: 441.1 kB before those); 440 → 443 kB for `stats` reading each
 * line once (issue 39: +2.5 kB packed, 439.9 → 442.4 kB; the wasm +4.9 kB raw: a tool call's arguments built as a
 * value and a tool result's call and text taken in the one read that feeds the index, where the loops re-read every
 * message line as a `serde_json::Value`, which doubled `stats`' time). Back to 400 kB (issue 38: 442.4 → 395.5 kB
 * with issue 39 in) by cuts that leave every feature and test: no stable sort and four unused exports less in the
 * module, the shipped .js minified, reference types, wasm-opt's --low-memory-unused, opt-level "z" with the inliner
 * of "s" (as fast: docs/benchmarks.md, "Build choice") and ryu-js's small tables (377.6 kB before issue 39's merge).
 * A folder of sessions (issue 40) adds ~+21.7 kB packed (the wasm +35 kB raw: the folder's rows, families and
 * totals, the `--rows` lines, the text table, the header's `parentSession`, the binding; the shim's folder.js,
 * folder-worker.js, the viewer's list page and family links): 395.5 → 415.0 kB, the cap 420 kB for it. Then the
 * wasm shipped gzip-compressed by zopfli (pi_tree_navigator_bg.wasm.gz; npm's tarball gzip leaves the raw module
 * ~15 kB larger): 395.6 → 382.0 kB without the folder, 415.0 → 401.2 kB with it; and its functions ordered by name
 * (wasm-opt's --reorder-functions-by-name: like code side by side, where gzip finds its repeats): 399.2 kB. Back to
 * 400 kB (issue 38), with 0.8 kB to spare. Then a refused line (repeated keys, unpaired surrogates, ±∞) read
 * again by the one entry reader from its tree written out as tagged JSON, no second reader of entries from the
 * tree (the wasm −24 kB raw), and terser's compressor on for the shipped .js (literals left alone): 390.6 kB.
 */
export const PACKED_PACKAGE_CAP = 400_000;

/**
 * Packs `pkgDir` with `npm pack` into `outDir` (created when missing) and returns
 * `{file, name, version, size, unpackedSize, entryCount}`: the tarball's absolute path, its size in bytes, and the
 * package's unpacked size and file count as npm reports them. Throws when pkgDir is not a built package or npm fails.
 */
export function packTarball({ pkgDir = join(root, "pkg"), outDir = root } = {}) {
  const manifest = join(pkgDir, "package.json");
  if (!existsSync(manifest)) throw new Error(`${pkgDir} holds no built package: run \`npm run build\` first`);
  const { name, version } = JSON.parse(readFileSync(manifest, "utf8"));
  mkdirSync(outDir, { recursive: true });
  const r = spawnSync("npm", ["pack", resolve(pkgDir), "--pack-destination", resolve(outDir), "--json", "--loglevel=error"], {
    cwd: resolve(outDir),
    encoding: "utf8",
  });
  if (r.error) throw new Error(`npm pack could not start: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`npm pack failed (${r.status}): ${r.stderr}`);
  const [info] = JSON.parse(r.stdout);
  const file = join(resolve(outDir), info.filename);
  return { file, name, version, size: statSync(file).size, unpackedSize: info.unpackedSize, entryCount: info.entryCount };
}

/** One line on the sizes: the tarball beside the package unpacked, in npm's kB. */
export function sizeLine(p) {
  const kB = (n) => `${(n / 1000).toFixed(1)} kB`;
  return `${p.file}: ${kB(p.size)} packed (cap ${kB(PACKED_PACKAGE_CAP)}), package ${kB(p.unpackedSize)} unpacked in ${p.entryCount} files`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const out = args.length === 2 && args[0] === "--out" ? args[1] : root;
  if (args.length && out === root) {
    console.error("usage: node scripts/pack.mjs [--out <dir>]");
    process.exit(2);
  }
  try {
    const packed = packTarball({ outDir: out });
    console.log(`[pack] ${sizeLine(packed)}`);
    console.log(`[pack] install it (no Rust needed): pi install npm:${packed.name}@file:${packed.file}`);
  } catch (e) {
    console.error(`[pack] ERROR: ${e.message}`);
    process.exit(1);
  }
}
