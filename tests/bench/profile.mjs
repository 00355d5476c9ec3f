#!/usr/bin/env node
// Profiles the core where a benchmark goal is missed (the "Findings" of docs/benchmarks.md).
//
//   node tests/bench/profile.mjs [size|list|ingest|text|objects|file|full|all] [--entries 10000] [--anchors 100] [--keep]
//
// Builds a wasm with its function names kept (release profile, not stripped; wasm-bindgen; wasm-opt -Os -g)
// from the working tree into a temp dir — src/ and pkg/ are not touched — then:
//   size     raw/gzip size of the stripped build and the share of each crate/area (twiggy, if installed);
//   list     `listAnchors()` (else `anchors()` + `estimate()`) on a generated session, CPU-profiled (inspector, the timed loop only): self
//            time per function;
//   ingest   `SessionIndex.plugin().appendJsonlBytes(bytes)` the same way; text: `appendJsonl(text)`;
//   file     `listFileBytes(bytes)` (the CLI's `list`/`tokens`) the same way;
//   full     `SessionIndex.full()` fed the file in 2 MB pieces (`beginFile`/`feedFile`/`endFile`: the viewer's load);
//   objects  `SessionIndex.plugin().appendEntries(objects)` (the plugin's first sync) the same way.
// Needs the setup's toolchain (wasm32 target, wasm-bindgen, npm's wasm-opt) and Node 22 for the profiles.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { node22Path, ptnCache } from "../../scripts/hosts.mjs";
import { generateBase, withAnchors } from "./gen.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "../..");
const argv = process.argv.slice(2);
const what = argv.find((a) => !a.startsWith("--") && !/^\d+$/.test(a)) ?? "all";
const opt = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const ENTRIES = Number(opt("--entries", 10000));
const ANCHORS = Number(opt("--anchors", 100));
const work = mkdtempSync(join(tmpdir(), "ptn-profile-"));
const log = (m) => console.error(`[profile] ${m}`);
const cargoBin = join(process.env.CARGO_HOME || join(homedir(), ".cargo"), "bin");
const env = { ...process.env, PATH: [join(REPO, "node_modules", ".bin"), cargoBin, process.env.PATH].join(delimiter) };
const run = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { env, encoding: "utf8", maxBuffer: 256 << 20, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed:\n${r.stderr}`);
  return r.stdout;
};

// ---- a names-kept build ---------------------------------------------------------------------------------
// One module since issue 12 (no plugin build): `--plugin` is gone.
if (argv.includes("--plugin")) throw new Error("--plugin is gone: the package has one wasm module (issue 12)");
const target = join(ptnCache(), "profile-target");
log(`cargo build (wasm32, release, names kept) → ${target}`);
run("cargo", ["build", "--release", "--lib", "--target", "wasm32-unknown-unknown"], {
  cwd: REPO,
  env: { ...env, CARGO_TARGET_DIR: target, CARGO_PROFILE_RELEASE_STRIP: "false" },
  stdio: ["ignore", "ignore", "pipe"],
});
const pkg = join(work, "pkg");
run("wasm-bindgen", ["--target", "web", "--out-dir", pkg, join(target, "wasm32-unknown-unknown", "release", "pi_tree_navigator.wasm")]);
const features = ["--enable-bulk-memory", "--enable-nontrapping-float-to-int", "--enable-sign-ext", "--enable-mutable-globals", "--enable-reference-types", "--enable-multivalue"];
const bg = join(pkg, "pi_tree_navigator_bg.wasm");
const named = join(work, "named.wasm");
const stripped = join(work, "stripped.wasm");
run("wasm-opt", ["-Os", "-g", ...features, bg, "-o", named]);
run("wasm-opt", ["-Os", "--strip-debug", "--strip-producers", ...features, bg, "-o", stripped]);
copyFileSync(named, bg);
for (const f of ["load-node.js", "index-node.js"]) copyFileSync(join(REPO, "js", f), join(pkg, f));

// ---- size -------------------------------------------------------------------------------------------------
const AREAS = [
  ["wasm-bindgen export shims (with what wasm-opt inlined into them: in the plugin, most of the tool)", /shim|wasm_bindgen::|__wbg|__wbindgen|js_sys|externref/],
  ["serde_json (parser, Value, float parsing/printing)", /serde_json/],
  ["serde_wasm_bindgen", /serde_wasm_bindgen/],
  ["number formatting/parsing (core::fmt, flt2dec, dec2flt, zmij)", /flt2dec|dec2flt|core.*::fmt|zmij|LowerExp|Display|Debug|::fmt::/],
  ["allocator (dlmalloc, or the plugin's own) + alloc/collections (hashbrown, btree)", /dlmalloc|alloc::|hashbrown|btree|RawVec|__rdl_|__rust_alloc|wasm::alloc/],
  ["core: json (reader, writer, numbers)", /pi_tree_navigator::json/],
  ["core: session (ingest, index, context, estimates)", /pi_tree_navigator::session/],
  ["core: tool (plans, texts, synthetic)", /pi_tree_navigator::tool/],
  ["core: text / js helpers", /pi_tree_navigator::(text|js)/],
  ["core: wasm binding bodies", /pi_tree_navigator::wasm/],
  ["data segments (.rodata: strings, tables)", /^data segment/],
  ["std/core other", /std::|core\[|core::|<char>|<str>/],
];
function size() {
  const raw = readFileSync(stripped);
  console.log(`\nstripped build: ${(raw.length / 1024).toFixed(1)} KB raw, ${(gzipSync(raw, { level: 9 }).length / 1024).toFixed(1)} KB gzip -9`);
  const twiggy = spawnSync("twiggy", ["top", "-n", "100000", "--format", "csv", named], { env, encoding: "utf8", maxBuffer: 64 << 20 });
  if (twiggy.status !== 0) return log("twiggy not installed (cargo install twiggy): no per-area split");
  const rows = twiggy.stdout.trim().split("\n").slice(1).map((l) => l.match(/^(.*),(\d+),([\d.]+),/)).filter(Boolean)
    .map((m) => ({ name: m[1].replace(/^"|"$/g, ""), bytes: Number(m[2]) }))
    .filter((r) => !/function names|names" subsection/.test(r.name));
  const total = rows.reduce((a, r) => a + r.bytes, 0);
  const sums = new Map();
  for (const r of rows) {
    const area = AREAS.find(([, re]) => re.test(r.name))?.[0] ?? "other";
    sums.set(area, (sums.get(area) ?? 0) + r.bytes);
  }
  console.log(`share of the ${(total / 1024).toFixed(1)} KB code+data (names section excluded; gzip shrinks all areas alike):`);
  for (const [k, v] of [...sums].sort((a, b) => b[1] - a[1])) console.log(`  ${(v / 1024).toFixed(1).padStart(6)} KB ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
  console.log("largest functions:");
  for (const r of rows.sort((a, b) => b.bytes - a.bytes).slice(0, 15)) console.log(`  ${(r.bytes / 1024).toFixed(1).padStart(6)} KB  ${r.name.slice(0, 110)}`);
}

// ---- cpu profiles -----------------------------------------------------------------------------------------
/** An anonymous JS frame named by its source line (e.g. the glue's `JSON.stringify(…)` callback). */
const sources = new Map();
function anonymous(f) {
  const file = f.url.startsWith("file://") ? fileURLToPath(f.url) : null;
  if (file && !sources.has(file)) sources.set(file, existsSync(file) ? readFileSync(file, "utf8").split("\n") : []);
  const line = file ? sources.get(file)[f.lineNumber]?.trim() : "";
  return `(${f.url.split("/").pop()}:${f.lineNumber + 1}${line ? `: ${line.slice(0, 80)}` : ""})`;
}

function cpu(kind, file) {
  const script = join(work, "drive.mjs");
  writeFileSync(
    script,
    `import { readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
const core = await import(${JSON.stringify(join(pkg, "index-node.js"))});
const bytes = readFileSync(${JSON.stringify(file)});
const text = bytes.toString("utf8");
const kind = ${JSON.stringify(kind)};
const objects = kind === "objects" ? text.trimEnd().split("\\n").slice(1).map((l) => JSON.parse(l)) : null;
const resident = core.SessionIndex.plugin();
resident.appendJsonlBytes(bytes);
const call = () => {
  if (kind === "file") { core.listFileBytes(bytes); return; }
  if (kind === "full") {
    const f = core.SessionIndex.full();
    f.beginFile(bytes.length);
    for (let at = 0; at < bytes.length; at += 2 << 20) f.feedFile(bytes.subarray(at, at + (2 << 20)));
    f.endFile();
    f.free();
    return;
  }
  if (kind === "list") { if (resident.listAnchors) resident.listAnchors(); else { resident.anchors(); resident.estimate(); } return; }
  const i = core.SessionIndex.plugin();
  if (objects) i.appendEntries(objects);
  else if (kind === "text") i.appendJsonl(text);
  else i.appendJsonlBytes(bytes);
  i.free();
};
for (let i = 0; i < 3; i++) call(); // warm-up outside the profile
// profile only the timed loop (not the setup above)
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 100 });
await session.post("Profiler.start");
const t0 = performance.now();
let n = 0;
while (performance.now() - t0 < 5000) { call(); n++; }
const ms = (performance.now() - t0) / n;
const { profile } = await session.post("Profiler.stop");
writeFileSync(${JSON.stringify(join(work, `prof-${kind}.cpuprofile`))}, JSON.stringify(profile));
console.log(\`\${kind}: \${ms.toFixed(3)} ms per call (\${n} calls)\`);
`,
  );
  process.stdout.write(run(node22Path(), [script]));
  const prof = JSON.parse(readFileSync(join(work, `prof-${kind}.cpuprofile`), "utf8"));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let total = 0;
  prof.samples.forEach((id, i) => {
    const f = byId.get(id).callFrame;
    const name = (f.functionName || anonymous(f)).replace(/::h[0-9a-f]{16}$/, "");
    const dt = prof.timeDeltas[i] ?? 0;
    self.set(name, (self.get(name) ?? 0) + dt);
    total += dt;
  });
  console.log(`self time, ${kind} (the timed loop only; top 25):`);
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k.slice(0, 140)}`);
}

try {
  if (what === "size" || what === "all") size();
  if (what !== "size") {
    const file = join(work, "session.jsonl");
    const s = withAnchors(generateBase(ENTRIES), ANCHORS);
    writeFileSync(file, s.text);
    log(`session: ${ENTRIES} entries, ${ANCHORS} anchors, ${(s.bytes / 1e6).toFixed(1)} MB`);
    for (const kind of what === "all" ? ["list", "ingest", "text", "objects"] : [what]) cpu(kind, file);
  }
} finally {
  if (!argv.includes("--keep")) rmSync(work, { recursive: true, force: true });
  else log(`kept ${work}`);
}
