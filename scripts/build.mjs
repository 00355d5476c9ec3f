#!/usr/bin/env node
// Builds the installable npm package in pkg/:
//   1. wasm-pack build --mode no-install --target web --release --out-dir pkg --no-gitignore
//      with node_modules/.bin first on PATH (npm's binaryen wasm-opt; Debian's wasm-opt 108 breaks the build)
//      and ~/.cargo/bin next (wasm-bindgen-cli = Cargo.lock version, wasm-pack 0.15.1; see scripts/setup.sh);
//   2. merges pkg.json over the generated pkg/package.json (pkg.json wins, "files" are unioned);
//   3. copies js/ (loaders, entry points, index.d.ts, cli.js, extension files, viewer/ …) into pkg/,
//      minifies every shipped .js (scripts/minify-js.mjs) and drops the doc comments of the generated
//      pi_tree_navigator.d.ts (scripts/strip-comments.mjs); the module is shipped zipped by zopfli
//      (pi_tree_navigator_bg.wasm.gz; the raw .wasm stays in pkg/, unpublished).
// Usage: node scripts/build.mjs [--dev]   (--dev: debug build, no wasm-opt)
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { homedir } from "node:os";
import { fileURLToPath } from "node:url";
import { gunzipSync, gzipSync } from "node:zlib";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkgDir = join(root, "pkg");
const jsDir = join(root, "js");
const dev = process.argv.includes("--dev");
const t0 = Date.now();
const log = (m) => console.error(`[build] ${m}`);
const die = (m) => { console.error(`[build] ERROR: ${m}`); process.exit(1); };

// --- 1. wasm-pack --------------------------------------------------------------------------------
const npmBin = join(root, "node_modules", ".bin");
const cargoBin = join(process.env.CARGO_INSTALL_ROOT || process.env.CARGO_HOME || join(homedir(), ".cargo"), "bin");
if (!existsSync(join(npmBin, "wasm-opt")) && !dev) die(`${npmBin}/wasm-opt missing: run \`npm run setup\` (npm binaryen devDependency)`);
const env = { ...process.env, PATH: [npmBin, cargoBin, process.env.PATH].join(delimiter) };
const which = (cmd) => spawnSync("sh", ["-c", `command -v ${cmd}`], { env, encoding: "utf8" }).stdout.trim();
if (!which("wasm-pack")) die("wasm-pack not found on PATH or in ~/.cargo/bin: run `npm run setup`");
if (!which("wasm-bindgen")) die("wasm-bindgen not found on PATH or in ~/.cargo/bin: run `npm run setup`");

rmSync(pkgDir, { recursive: true, force: true });
const args = ["build", "--mode", "no-install", "--target", "web", dev ? "--dev" : "--release",
  "--out-dir", "pkg", "--no-gitignore", ...(dev ? ["--no-opt"] : [])];
log(`wasm-pack ${args.join(" ")}  (wasm-opt: ${which("wasm-opt") || "none"})`);
const wasmPack = (argv, extraEnv = {}) => {
  const r = spawnSync("wasm-pack", argv, { cwd: root, env: { ...env, ...extraEnv }, stdio: "inherit" });
  if (r.error) die(`wasm-pack failed to start: ${r.error.message}`);
  if (r.status !== 0) die(`wasm-pack exited with ${r.status}`);
};
wasmPack(args);


// The published .d.ts without the raw wasm exports: wasm-bindgen lists every export of the module in
// `InitOutput` (~10 kB, ~1 kB of the packed package), which no caller uses — the classes and functions above it
// are the API. `initSync`/`init` keep their result type, narrowed to the module's memory.
{
  const dtsPath = join(pkgDir, "pi_tree_navigator.d.ts");
  const dts = readFileSync(dtsPath, "utf8");
  const initOutput = /export interface InitOutput \{\n\s*readonly memory: WebAssembly\.Memory;\n[^}]*\}/;
  if (!initOutput.test(dts)) die("pi_tree_navigator.d.ts: no `InitOutput` interface starting with `memory` (wasm-bindgen changed?)");
  writeFileSync(dtsPath, dts.replace(initOutput, "export interface InitOutput {\n    readonly memory: WebAssembly.Memory;\n}"));
}

// The module as the package ships it: gzip-compressed by zopfli (npm's @gfx/zopfli), 15 kB smaller packed than the
// raw module under the tarball's own gzip (issue 38; npm compresses at zlib's default level). The loaders unzip it
// (js/wasm-bytes.js, js/load-web.js). The raw module stays in pkg/ for the tools (twiggy, benches), unpublished.
{
  const wasmPath = join(pkgDir, "pi_tree_navigator_bg.wasm");
  const raw = readFileSync(wasmPath);
  let gz;
  if (dev) {
    gz = gzipSync(raw, { level: 1 });
  } else {
    const { gzipAsync } = await import("@gfx/zopfli");
    gz = Buffer.from(await gzipAsync(raw, { numiterations: 15, blocksplittingmax: 0 }));
  }
  if (!gunzipSync(gz).equals(raw)) die("pi_tree_navigator_bg.wasm.gz does not unzip to the module");
  writeFileSync(`${wasmPath}.gz`, gz);
  log(`pi_tree_navigator_bg.wasm.gz: ${gz.length} bytes (${dev ? "zlib level 1, --dev" : "zopfli, 15 iterations, unlimited block splits"}; the raw module gzip -9: ${gzipSync(raw, { level: 9 }).length})`);
}

// --- 2. copy js/ into pkg/ -----------------------------------------------------------------------
const skip = (name) => name.startsWith(".") || /\.test\.[cm]?[jt]s$/.test(name) || name === "node_modules";
const copied = [];
for (const name of existsSync(jsDir) ? readdirSync(jsDir).sort() : []) {
  if (skip(name)) continue;
  const src = join(jsDir, name);
  const isDir = statSync(src).isDirectory();
  cpSync(src, join(pkgDir, name), { recursive: true, filter: (p) => !skip(p.split("/").pop()) });
  copied.push(isDir ? `${name}/` : name);
}
log(`copied from js/: ${copied.join(" ")}`);

// The shipped JavaScript minified (scripts/minify-js.mjs: names kept but locals', checked to export the same
// names and hold the same literals), the generated glue included: its JSDoc blocks repeat
// pi_tree_navigator.d.ts. The repo's js/ is the source to read.
const { minifyJs } = await import("./minify-js.mjs");
const { stripComments } = await import("./strip-comments.mjs");
let saved = 0;
const minifyTree = async (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) await minifyTree(path);
    else if (name.endsWith(".js")) {
      const text = readFileSync(path, "utf8");
      const out = await minifyJs(text, name);
      saved += text.length - out.length;
      writeFileSync(path, out);
    }
  }
};
try {
  await minifyTree(pkgDir);
} catch (e) {
  die(e.message);
}
log(`the shipped .js minified: ${saved} bytes less`);

// The generated declarations without their doc comments (the core's `///` docs that tsify copies, ~14 kB of the
// packed package, issue 38): the types stay whole; the docs are read in src/ and HACKING.md.
{
  const dtsPath = join(pkgDir, "pi_tree_navigator.d.ts");
  const dts = readFileSync(dtsPath, "utf8");
  let out;
  try {
    out = stripComments(dts, "pi_tree_navigator.d.ts");
  } catch (e) {
    die(e.message);
  }
  writeFileSync(dtsPath, out);
  log(`doc comments stripped from pi_tree_navigator.d.ts: ${dts.length - out.length} bytes`);
}

// --- 3. package.json -----------------------------------------------------------------------------
const generated = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
const ours = JSON.parse(readFileSync(join(root, "pkg.json"), "utf8"));
const merged = { ...generated, ...ours };
for (const k of Object.keys(merged)) if (k.startsWith("//")) delete merged[k];
merged.files = [...new Set([...(generated.files || []), ...(ours.files || []), ...copied])]
  .filter((f) => existsSync(join(pkgDir, f)));
// wasm-pack lists the raw module; the package ships it zipped (above).
merged.files = merged.files.filter((f) => f !== "pi_tree_navigator_bg.wasm");
if (!existsSync(join(pkgDir, "cli.js"))) {
  delete merged.bin;
  log("no js/cli.js yet: package has no \"bin\"");
} else {
  chmodSync(join(pkgDir, "cli.js"), 0o755);
}
// The pi extension manifest ("pi": {"extensions": ["./extension.js"]}) is published only with js/extension.js.
if (!existsSync(join(pkgDir, "extension.js"))) {
  delete merged.pi;
  log("no js/extension.js yet: package has no \"pi\".\"extensions\"");
}
writeFileSync(join(pkgDir, "package.json"), JSON.stringify(merged, null, 2) + "\n");

// --- 4. sanity: everything the manifest points at exists -------------------------------------------
const targets = [];
const walk = (v) => { if (typeof v === "string") targets.push(v); else if (v && typeof v === "object") Object.values(v).forEach(walk); };
walk(merged.exports); walk(merged.bin); walk(merged.pi?.extensions); walk(merged.main); walk(merged.types);
const missing = targets.filter((t) => t.startsWith("./") && !t.includes("*") && !existsSync(join(pkgDir, t)));
if (missing.length) die(`pkg/package.json points at missing files: ${missing.join(", ")}`);

const wasm = join(pkgDir, "pi_tree_navigator_bg.wasm");
log(`pkg/ ready: ${merged.name}@${merged.version}, wasm ${statSync(wasm).size} bytes, ${((Date.now() - t0) / 1000).toFixed(1)}s`);
