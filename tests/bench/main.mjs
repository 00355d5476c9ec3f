// The benchmark run itself (Node 22, `--expose-gc`); started by tests/bench/run.mjs, which builds and
// snapshots pkg/ first. Prints the markdown tables and, with --write, puts them into docs/benchmarks.md
// between the `bench:begin` / `bench:end` markers (the Findings around them are kept).
//
//   <node22> --expose-gc tests/bench/main.mjs --pkg <pkg snapshot> [--quick] [--write] [--rows 1,2,3,4,5,6]
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, release, tmpdir, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync, brotliCompressSync, constants as zlibConstants } from "node:zlib";
import { bunPath, hostDir, systemNodePath } from "../../scripts/hosts.mjs";
import { assertSameList, loadReference, piLoad, seedActiveTokens, seedList } from "./seed.mjs";
import { buildSerdeFloor, serdeFloor } from "./serde-floor.mjs";
import { benchArgs, compare, fmtBytes, fmtMs, fmtRatio, fmtStat, roundsFor } from "./timing.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "../..");
const { argv, opt, pkg: PKG, quick: QUICK } = benchArgs();
const WRITE = argv.includes("--write");
const ROWS = new Set(opt("--rows", "1,2,3,4,5,6").split(",").map(Number));
const HOST = "0.75.5";
const SIZES = QUICK ? [1000, 10000] : [1000, 10000, 100000];
const ANCHORS = [10, 100];
const BIG = SIZES[SIZES.length - 1];
const T0 = performance.now();
const log = (m) => console.error(`[bench ${((performance.now() - T0) / 1000).toFixed(0).padStart(3)}s] ${m}`);
const budget = (ms) => roundsFor(ms, QUICK ? { budgetMs: 1500, min: 3, max: 7 } : { budgetMs: 4000, min: 5, max: 15 });

const core = await import(pathToFileURL(join(PKG, "index-node.js")).href);
const ref = await loadReference(hostDir(HOST));
// Row 2's floor: serde_json reading every string of the file in a module that builds nothing.
const floor = ROWS.has(2) ? await serdeFloor(buildSerdeFloor()) : null;
const work = mkdtempSync(join(tmpdir(), "ptn-bench-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

const R = { list: [], ingest: [], append: null, inhost: null, memory: [], artifact: null };
const files = {}; // size → JSONL file with 100 anchors (children read these)
let text1k = null;

// ---------------------------------------------------------------------------------------------------------
/** The core's list numbers: `listAnchors()` (one walk) where the build has it, else `anchors()` + `estimate()`. */
const HAS_LIST = typeof core.SessionIndex.prototype.listAnchors === "function";
const LIST_CALL = HAS_LIST ? "`listAnchors()`" : "`anchors()` + `estimate()`";
function oursList(index) {
  if (HAS_LIST) {
    const { anchors, estimate } = index.listAnchors();
    return { total: estimate.tokens, anchors };
  }
  const anchors = index.anchors();
  return { total: index.estimate().tokens, anchors };
}

/** What the plugin runs for `list`: the core's tool plan (one walk: anchors, total, the text the model reads). */
const LIST_FACTS = { callId: "bench-list", contextWindow: 128000, model: null, refreshReaches: true, nowMs: 0 };
function oursPlan(index) {
  const plan = index.toolPlan({ action: "list" }, LIST_FACTS);
  if (plan.kind !== "list") throw new Error(`list plan: ${plan.kind} ${plan.text ?? ""}`);
  return { total: plan.details.contextTokens, anchors: plan.details.anchors, text: plan.text };
}

function rowList(size, k, text) {
  const index = core.SessionIndex.plugin();
  index.appendJsonl(text);
  const sm = piLoad(ref, text);
  const seed = seedList(ref, sm, true); // the check: pi's numbers with the projected rule (seed.mjs)
  assertSameList(oursPlan(index), seed, `list ${size}/${k} (toolPlan)`);
  assertSameList(oursList(index), seed, `list ${size}/${k} (${LIST_CALL})`);
  let t = performance.now();
  seedList(ref, sm);
  const refMs = performance.now() - t;
  const r = compare({ ours: () => oursList(index), seed: () => seedList(ref, sm), plan: () => oursPlan(index) }, { rounds: budget(refMs) });
  index.free();
  const file = join(work, `list-${size}-${k}.jsonl`);
  writeFileSync(file, text);
  const alone = runChild(process.execPath, [join(HERE, "child-list.mjs"), PKG, file], `list alone ${size}/${k}`);
  rmSync(file);
  R.list.push({ size, anchors: k, ...r, alone });
  log(`list ${size}/${k}: ${HAS_LIST ? "listAnchors" : "anchors+estimate"} ${fmtStat(r.ours)} (alone ${fmtStat(alone)}) · seed ${fmtStat(r.seed)} · ${fmtRatio(r.seed.median / r.ours.median)} · toolPlan ${fmtStat(r.plan)}`);
}

// Row 2: a whole session file into an index, from the file on disk (page cache) to a queryable index on both
// sides: ours reads the bytes (no decoding), pi reads the text as loadEntriesFromFile does.
function rowIngest(size, file) {
  const text = readFileSync(file, "utf8");
  // same numbers first: entry count, leaf, current estimate
  const sm = piLoad(ref, text);
  const want = { entries: sm.getEntries().length, leaf: sm.getLeafId(), tokens: seedActiveTokens(ref, sm, true) };
  const feeds = {
    "plugin bytes": (i) => i.appendJsonlBytes(readFileSync(file)),
    "plugin text": (i) => i.appendJsonl(readFileSync(file, "utf8")),
    "full bytes": (i) => i.appendJsonlBytes(readFileSync(file)),
    "plugin objects": (i) => i.appendEntries(sm.getEntries()),
  };
  for (const [name, feed] of Object.entries(feeds)) {
    const index = core.SessionIndex[name.startsWith("full") ? "full" : "plugin"]();
    feed(index);
    const got = { entries: index.entryCount, leaf: index.leafId(), tokens: index.estimate().tokens };
    if (JSON.stringify(want) !== JSON.stringify(got)) throw new Error(`ingest ${size} ${name}: ${JSON.stringify(got)} vs pi ${JSON.stringify(want)}`);
    index.free();
  }
  {
    // what the plugin reports: the tool's list plan carries the current estimate
    const index = core.SessionIndex.plugin();
    index.appendJsonlBytes(readFileSync(file));
    const tokens = index.toolPlan({ action: "list" }, { callId: "bench" }).details.contextTokens;
    const got = { entries: index.entryCount, leaf: index.leafId(), tokens };
    if (JSON.stringify(want) !== JSON.stringify(got)) throw new Error(`ingest ${size} plugin list plan: ${JSON.stringify(got)} vs pi ${JSON.stringify(want)}`);
    index.free();
  }
  const objects = sm.getEntries();
  const t = performance.now();
  piLoad(ref, readFileSync(file, "utf8"));
  const refMs = performance.now() - t;
  const timed = (mode, feed) => () => {
    const i = core.SessionIndex[mode]();
    feed(i);
    i.free();
  };
  const r = compare(
    {
      pluginBytes: timed("plugin", (i) => i.appendJsonlBytes(readFileSync(file))),
      pluginText: timed("plugin", (i) => i.appendJsonl(readFileSync(file, "utf8"))),
      fullBytes: timed("full", (i) => i.appendJsonlBytes(readFileSync(file))),
      objects: timed("plugin", (i) => i.appendEntries(objects)),
      pi: () => piLoad(ref, readFileSync(file, "utf8")),
      serde: () => {
        floor.place(readFileSync(file));
        floor.countUnits();
      },
    },
    { rounds: budget(refMs * 4) },
  );
  R.ingest.push({ size, bytes: Buffer.byteLength(text), ...r });
  log(`ingest ${size}: plugin bytes ${fmtStat(r.pluginBytes)} · plugin text ${fmtStat(r.pluginText)} · full bytes ${fmtStat(r.fullBytes)} · objects ${fmtStat(r.objects)} · pi ${fmtStat(r.pi)} · serde_json alone ${fmtStat(r.serde)}`);
}

// Row 3: one entry appended to a resident plugin index of ~1k vs ~100k entries (a fresh 1k index per sample,
// so it stays ~1k; the big one stays resident and grows by <1%).
let appendSeq = 0;
function chain(parentId, n) {
  const objs = [];
  const lines = [];
  let parent = parentId;
  const body = "cargo test output line ok\n".repeat(80);
  for (let i = 0; i < n; i++) {
    const id = `f${(++appendSeq).toString(16).padStart(7, "0")}`;
    const ts = new Date(Date.UTC(2026, 5, 1) + appendSeq * 1000).toISOString();
    const message =
      i % 2 === 0
        ? { role: "assistant", content: [{ type: "toolCall", id: `tc${appendSeq}`, name: "bash", arguments: { command: "cargo test" } }], api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: { input: 900, output: 40, cacheRead: 30000, cacheWrite: 0, totalTokens: 30940, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "toolUse", timestamp: appendSeq }
        : { role: "toolResult", toolCallId: `tc${appendSeq - 1}`, toolName: "bash", content: [{ type: "text", text: body }], isError: false, timestamp: appendSeq };
    const obj = { type: "message", id, parentId: parent, timestamp: ts, message };
    objs.push(obj);
    lines.push(JSON.stringify(obj) + "\n");
    parent = id;
  }
  return { objs, lines };
}

function rowAppend(textSmall, textBig, sizeSmall, sizeBig) {
  const N = 200;
  const big = core.SessionIndex.plugin();
  big.appendJsonl(textBig);
  const big0 = big.entryCount;
  let small = null;
  let small0 = 0;
  const fresh = () => {
    small?.free();
    small = core.SessionIndex.plugin();
    small.appendJsonl(textSmall);
    small0 = small.entryCount;
    return small;
  };
  // 200 untimed appends first: right after a fresh index (and a forced GC) the first few dozen appends pay
  // one-off costs (allocator segments, wasm memory growth) that are not the steady state being measured.
  const WARM = 200;
  const prep = (index) => {
    for (const e of chain(index.leafId(), WARM).objs) index.appendEntries([e]);
    return { index, ...chain(index.leafId(), N) };
  };
  const r = compare(
    {
      smallObjects: ({ index, objs }, i) => index.appendEntries([objs[i]]),
      bigObjects: ({ index, objs }, i) => index.appendEntries([objs[i]]),
      smallJsonl: ({ index, lines }, i) => index.appendJsonl(lines[i]),
      bigJsonl: ({ index, lines }, i) => index.appendJsonl(lines[i]),
    },
    {
      rounds: QUICK ? 5 : 15,
      n: { smallObjects: N, bigObjects: N, smallJsonl: N, bigJsonl: N },
      setup: { smallObjects: () => prep(fresh()), bigObjects: () => prep(big), smallJsonl: () => prep(fresh()), bigJsonl: () => prep(big) },
    },
  );
  // every append landed: the last fresh small index holds its N, the big one every sample's N
  const rounds = r.bigObjects.runs;
  if (small.entryCount !== small0 + WARM + N || big.entryCount !== big0 + 2 * rounds * (WARM + N)) {
    throw new Error(`append: entry counts ${small.entryCount} / ${big.entryCount}, expected ${small0 + WARM + N} / ${big0 + 2 * rounds * (WARM + N)}`);
  }
  small.free();
  big.free();
  R.append = { sizeSmall, sizeBig, ...r };
  log(`append ${sizeSmall} vs ${sizeBig}: objects ${fmtStat(r.smallObjects)} vs ${fmtStat(r.bigObjects)} · jsonl ${fmtStat(r.smallJsonl)} vs ${fmtStat(r.bigJsonl)}`);
}

// ---------------------------------------------------------------------------------------------------------
function runChild(cmd, args, what, env = {}) {
  const r = spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 64 << 20, env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`${what} failed (${r.status}): ${r.stderr || r.stdout}`);
  const last = r.stdout.trim().split("\n").pop();
  return JSON.parse(last);
}

const MEMORY_MODES = ["plugin-bytes", "plugin-byte-chunks", "plugin-objects", "plugin", "full-bytes", "full"];
function rowMemory() {
  for (const size of SIZES) {
    for (const mode of MEMORY_MODES) {
      const m = runChild(process.execPath, [join(HERE, "child-memory.mjs"), PKG, files[size], mode], `memory ${size} ${mode}`);
      R.memory.push({ size, mode, ...m });
      log(`memory ${size} ${mode}: +${fmtBytes(m.growth)} (${((100 * m.growth) / m.fileBytes).toFixed(1)}% of ${fmtBytes(m.fileBytes)})`);
    }
  }
}

/** Raw, gzip -9 and brotli 11 sizes of one file in pkg/. */
function sizes(name) {
  const bytes = readFileSync(join(PKG, name));
  return {
    name, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

function rowArtifact() {
  // One wasm since issue 12: what pi loads, the CLI, the viewer and the library API.
  const files = [["one", "pi_tree_navigator_bg.wasm", "pi_tree_navigator.js"]];
  const builds = files.map(([build, wasm, glue]) => ({ build, wasm: sizes(wasm), glue: sizes(glue) }));
  const runtimes = [
    ["Node " + process.versions.node, process.execPath, []],
    ["Node " + spawnSync(systemNodePath(), ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.trim(), systemNodePath(), []],
  ];
  const bun = bunPath();
  const bunVersion = spawnSync(bun, ["--version"], { encoding: "utf8" });
  if (bunVersion.status === 0) runtimes.push(["Bun " + bunVersion.stdout.trim(), bun, []]);
  const init = {};
  for (const [name] of runtimes) for (const [build] of files) init[`${name} · ${build}`] = [];
  const runs = QUICK ? 5 : 11;
  for (let i = 0; i < runs; i++) {
    for (const [name, bin] of i % 2 ? [...runtimes].reverse() : runtimes) {
      for (const [build] of i % 2 ? [...files].reverse() : files) {
        init[`${name} · ${build}`].push(runChild(bin, [join(HERE, "child-init.mjs"), PKG, build], `init ${name} ${build}`));
      }
    }
  }
  const summarize = (xs, key) => {
    const s = xs.map((x) => x[key]).sort((a, b) => a - b);
    return { median: s[s.length >> 1], min: s[0], max: s[s.length - 1], runs: s.length };
  };
  // The packed npm package (`npm pack --dry-run`: the tarball's size, as tests/js/smoke.test.js caps it).
  const pack = spawnSync("npm", ["pack", "--dry-run", "--json"], { cwd: PKG, encoding: "utf8" });
  const packed = pack.status === 0 ? JSON.parse(pack.stdout)[0]?.size ?? null : null;
  R.artifact = {
    builds,
    packed,
    gzip: builds[0].wasm.gzip,
    init: Object.fromEntries(Object.entries(init).map(([k, xs]) => [k, { import: summarize(xs, "importMs"), first: summarize(xs, "firstMs") }])),
  };
  log(`artifact: ${builds.map((b) => `${b.build} ${fmtBytes(b.wasm.raw)} raw, ${fmtBytes(b.wasm.gzip)} gzip`).join(" · ")}`);
}

function rowInHost() {
  const file = files[10000];
  if (!file) return;
  R.inhost = runChild(process.execPath, ["--expose-gc", join(HERE, "inhost.mjs"), PKG, file, QUICK ? "4" : "10"], "in-host", { PTN_HOST_VERSION: HOST });
  log(`in-host: ${JSON.stringify(Object.fromEntries(Object.entries(R.inhost.ops).map(([k, v]) => [k, fmtMs(v.ours.median)])))}`);
}

// ---------------------------------------------------------------------------------------------------------
log(`pkg ${PKG}; pi ${ref.meta.piVersion} on Node ${process.versions.node}; sizes ${SIZES.join(", ")}${QUICK ? " (quick)" : ""}`);
for (const size of SIZES) {
  const t = performance.now();
  // generated in a child process: the generator's objects never sit in this heap (V8 would keep marking and
  // sweeping them on one of the two cores while we time)
  const made = runChild(process.execPath, ["--max-old-space-size=6144", join(HERE, "gen.mjs"), String(size), ANCHORS.join(","), work], `generate ${size}`);
  files[size] = made[100].file;
  log(`generated ${size} entries: ${fmtBytes(made[100].bytes)} in ${fmtMs(performance.now() - t)}`);
  const read = (k) => readFileSync(made[k].file, "utf8");
  if (ROWS.has(1)) for (const k of ANCHORS) rowList(size, k, read(k));
  globalThis.gc?.();
  const text = read(100);
  if (ROWS.has(2)) rowIngest(size, made[100].file);
  if (size === SIZES[0]) text1k = text;
  if (ROWS.has(3) && size === BIG) rowAppend(text1k, text, SIZES[0], BIG);
  globalThis.gc?.();
}
if (ROWS.has(4)) rowInHost();
if (ROWS.has(5)) rowMemory();
if (ROWS.has(6)) rowArtifact();
const wallS = (performance.now() - T0) / 1000;

// ---------------------------------------------------------------------------------------------------------
const git = (args) => spawnSync("git", args, { cwd: REPO, encoding: "utf8" }).stdout.trim();
const machine = {
  cpu: `${cpus()[0]?.model ?? "?"} × ${cpus().length}`,
  mem: fmtBytes(totalmem()),
  os: `Linux ${release()}`,
  node: process.versions.node,
  core: coreSource(),
  date: new Date().toISOString().slice(0, 16).replace("T", " ") + " UTC",
};
const md = render();
console.log(md);
if (WRITE) {
  writeDoc(md);
  if ([1, 2, 3, 4, 5, 6].every((r) => ROWS.has(r)) && !QUICK) writeHeadline();
}
log(`done in ${wallS.toFixed(0)} s`);

/** Which sources the measured package was built from: run.mjs records it in <pkg>/.bench-source. */
function coreSource() {
  const f = join(PKG, ".bench-source");
  if (existsSync(f)) return readFileSync(f, "utf8").trim();
  return `unknown build (repo HEAD ${git(["rev-parse", "--short", "HEAD"])})`;
}

function ratio(a, b) {
  return fmtRatio(a.median / b.median);
}
function k(n) {
  return n >= 1000 ? `${n / 1000}k` : String(n);
}
function goal(ok) {
  return ok ? "✅" : "❌";
}

function render() {
  const out = [];
  const p = (s = "") => out.push(s);
  p(`Run ${machine.date} · ${machine.cpu} · ${machine.mem} RAM · ${machine.os} · Node ${machine.node} (pi ${ref.meta.piVersion}) · ` +
    `core: ${machine.core} · \`npm run bench\` took ${wallS.toFixed(0)} s${QUICK ? " · **quick mode**" : ""}`);
  p();
  p("Times are medians per call with the min–max spread over the runs; each comparison alternates both sides in one process.");
  p();
  if (R.list.length) {
    p("### 1. `list`: anchors with cumulative estimates");
    p();
    p(`Ours: ${LIST_CALL} on the resident plugin index (the anchors with their cumulative estimates, and the current total${HAS_LIST ? ", one walk" : ""}).`);
    p("Also shown: the core's `toolPlan({action: \"list\"})`, the plugin's whole `list` call, which also formats the text the model reads and");
    p("returns the details object. Seed: the seed extension's `list` numbers with pi 0.75.5's `buildSessionContext` + `estimateContextTokens` per");
    p("anchor on a loaded `SessionManager` (its hint lookup and text formatting left out, which only favours it). Same names, entry ids, tokens");
    p(`and current total asserted for both of ours before timing. "Alone": ${LIST_CALL} in a process of its own, without pi's`);
    p("`SessionManager` (≈1 GB of objects at 100k) and the seed's garbage next to it.");
    p();
    p(`| entries | anchors | file | ours: ${LIST_CALL} | seed (pi 0.75.5) | speed-up | ours: \`toolPlan\` list (+ text) | runs | ours alone |`);
    p("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const r of R.list) {
      const bytes = R.ingest.find((x) => x.size === r.size)?.bytes;
      p(`| ${k(r.size)} | ${r.anchors} | ${bytes ? fmtBytes(bytes) : ""} | ${fmtStat(r.ours)} | ${fmtStat(r.seed)} | **${ratio(r.seed, r.ours)}** | ${fmtStat(r.plan)} (${ratio(r.seed, r.plan)}) | ${r.ours.runs} | ${fmtStat(r.alone)} |`);
    }
    const g1 = R.list.find((r) => r.size === 10000 && r.anchors === 100);
    const g2 = R.list.filter((r) => r.size === 100000);
    p();
    if (g1) p(`Goal ≥100× at 10k entries / 100 anchors: ${goal(g1.seed.median / g1.ours.median >= 100)} ${ratio(g1.seed, g1.ours)}.` +
      (g2.length ? ` Goal <10 ms at 100k entries: ${goal(g2.every((r) => r.ours.median < 10))} ${g2.map((r) => `${fmtMs(r.ours.median)} (${r.anchors} anchors; alone ${fmtMs(r.alone.median)})`).join(", ")}.` : ""));
    p();
  }
  if (R.ingest.length) {
    p("### 2. Ingest of a whole session file");
    p();
    p("From the file (page cache) to a queryable index. Ours: `SessionIndex.plugin().appendJsonlBytes(readFileSync(file))` (the bytes, no");
    p("decoding), the same from the decoded text (`appendJsonl`), full mode from bytes, and `appendEntries(sm.getEntries())` — the plugin's first");
    p("sync from the objects pi already holds (no file read). pi: `readFileSync(file, \"utf8\")` + `parseSessionEntries` (JSON.parse per line) + the");
    p("`SessionManager` index (`SessionManager.open` parses the file twice, so the host's real load is slower). Entry count, leaf and estimate");
    p("asserted equal for every one of ours, and for what the plugin's `list` plan reports. One wasm module (issue 12): the one pi loads.");
    p("\"serde_json alone\": the same bytes into a tiny module with the core's `serde_json` (`tests/bench/serde-floor`) that reads every");
    p("string of every line (escapes decoded, UTF-16 units counted, as a reader of each message's characters must) and builds nothing.");
    p();
    p("| entries | file | plugin bytes | plugin text | full bytes | plugin `appendEntries` | pi load | serde_json alone | pi / plugin bytes | pi / full bytes | pi / serde_json alone | runs |");
    p("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const r of R.ingest) {
      p(`| ${k(r.size)} | ${fmtBytes(r.bytes)} | ${fmtStat(r.pluginBytes)} | ${fmtStat(r.pluginText)} | ${fmtStat(r.fullBytes)} | ${fmtStat(r.objects)} | ${fmtStat(r.pi)} | ${fmtStat(r.serde)} | **${ratio(r.pi, r.pluginBytes)}** | ${ratio(r.pi, r.fullBytes)} | ${ratio(r.pi, r.serde)} | ${r.pi.runs} |`);
    }
    p();
    const r10 = R.ingest.find((r) => r.size === 10000);
    p(`Goal ≥3× pi's own load at 10k entries (issue 23): ${r10 ? `${goal(r10.pi.median >= 3 * r10.pluginBytes.median)} ${ratio(r10.pi, r10.pluginBytes)}` : "not run"}.` +
      ` Every size faster than pi: ${goal(R.ingest.every((r) => r.pi.median >= r.pluginBytes.median))} ${R.ingest.map((r) => `${k(r.size)}: ${ratio(r.pi, r.pluginBytes)}`).join(", ")}.`);
    p();
  }
  if (R.append) {
    const a = R.append;
    p("### 3. Appending one entry to a resident index");
    p();
    p(`Plugin index of ${k(a.sizeSmall)} vs ${k(a.sizeBig)} entries (a fresh ${k(a.sizeSmall)} index per sample, the ${k(a.sizeBig)} one resident); ${a.smallObjects.n} timed appends per`);
    p("sample after 200 untimed ones (assistant tool call / 2 KB tool result, alternating).");
    p();
    p(`| call | at ${k(a.sizeSmall)} | at ${k(a.sizeBig)} | ${k(a.sizeBig)} / ${k(a.sizeSmall)} |`);
    p("|---|---:|---:|---:|");
    p(`| \`appendEntries([entry])\` (the plugin's sync) | ${fmtStat(a.smallObjects)} | ${fmtStat(a.bigObjects)} | **${ratio(a.bigObjects, a.smallObjects)}** |`);
    p(`| \`appendJsonl(line)\` | ${fmtStat(a.smallJsonl)} | ${fmtStat(a.bigJsonl)} | **${ratio(a.bigJsonl, a.smallJsonl)}** |`);
    p();
    const flat = a.bigObjects.median / a.smallObjects.median < 1.5 && a.bigJsonl.median / a.smallJsonl.median < 1.5;
    p(`Goal flat (O(1), ratio < 1.5×): ${goal(flat)}.`);
    p();
  }
  if (R.inhost) {
    const h = R.inhost;
    p(`### 4. Per-call cost inside real pi ${h.piVersion} (Node ${h.node}), ${k(h.entries)}-entry session, ${h.anchors} anchors`);
    p();
    p("A real `AgentSession` (faux model, offline) with the extension from the built package, loaded by pi's loader; the tool's `execute` and");
    p("the hooks are timed by a wrapper extension. Seed: the same computation the seed extension does for that call, on the same live session.");
    p();
    p("| per call | ours | seed computation | speed-up | calls |");
    p("|---|---:|---:|---:|---:|");
    const label = {
      firstCall: "first call on the session (`anchor`, builds the index from `sm.getEntries()`)",
      anchor: "`anchor` (warm)",
      list: "`list`",
      rewind: "`rewind` bookkeeping (execute − summarizer call)",
      contextIdle: "`context` hook per request, no rewind pending",
      contextAfterRewind: "`context` hook per request after a rewind (rebuilds the messages)",
      prepareNextTurn: "`prepareNextTurn` per turn after a rewind",
    };
    for (const [key, name] of Object.entries(label)) {
      const v = h.ops[key];
      if (!v) continue;
      p(`| ${name} | ${fmtStat(v.ours)} | ${v.seed ? fmtStat(v.seed) : "—"} | ${v.seed ? `**${ratio(v.seed, v.ours)}**` : ""} | ${v.ours.runs} |`);
    }
    p();
    p(h.notes.map((n) => `- ${n}`).join("\n"));
    p();
  }
  if (R.memory.length) {
    p("### 5. Memory: wasm linear memory after ingest");
    p();
    p("Growth of `memory.buffer.byteLength` (the instance's exports, from `initSync()`) in a fresh process, before → after ingest. Linear memory");
    p("never shrinks, so this is the high-water mark, including transient buffers (the input text copied into wasm for `appendJsonl`).");
    p();
    p("| entries | JSONL | plugin bytes | plugin bytes, 256 KB chunks | plugin `appendEntries` | plugin text | full bytes | full text |");
    p("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const size of SIZES) {
      const row = (mode) => {
        const m = R.memory.find((x) => x.size === size && x.mode === mode);
        return m ? `${fmtBytes(m.growth)} (${((100 * m.growth) / m.fileBytes).toFixed(1)}%)` : "";
      };
      const fb = R.memory.find((x) => x.size === size)?.fileBytes ?? 0;
      p(`| ${k(size)} | ${fmtBytes(fb)} | ${row("plugin-bytes")} | ${row("plugin-byte-chunks")} | ${row("plugin-objects")} | ${row("plugin")} | ${row("full-bytes")} | ${row("full")} |`);
    }
    p();
    p("One wasm module (issue 12), the one pi loads. Bytes: `appendJsonlBytes(readFileSync(file))` (the binding copies 64 KB pieces in, never the");
    p("whole file); chunks: `appendJsonlBytes` of ≤256 KB slices of the file cut at line ends; `appendEntries`: every entry object in one");
    p("call (the plugin's first sync: the binding stringifies and copies in 64 entries at a time); text: `appendJsonl(text)` (16K-unit pieces).");
    p("Full mode keeps every entry's JSON text by design; full text is `appendJsonl(text)` on a full index.");
    p();
    const ok = (mode) => R.memory.filter((x) => x.mode === mode).every((m) => m.growth <= 0.25 * m.fileBytes);
    p(`Goal plugin mode ≤25% of the JSONL: ${goal(ok("plugin-byte-chunks"))} byte chunks · ${goal(ok("plugin-objects"))} \`appendEntries\` · ${goal(ok("plugin-bytes"))} whole bytes · ${goal(ok("plugin"))} whole text.`);
    p();
  }
  if (R.artifact) {
    const a = R.artifact;
    p("### 6. Artifact size and cold init");
    p();
    p("One wasm module (issue 12): what pi loads (`load-node.js`), the CLI, the viewer and the library API (`index-node.js`, `index-web.js`).");
    p();
    p("| file | raw | gzip -9 | brotli 11 |");
    p("|---|---:|---:|---:|");
    for (const b of a.builds) {
      p(`| \`${b.wasm.name}\` | ${fmtBytes(b.wasm.raw)} | **${fmtBytes(b.wasm.gzip)}** | ${fmtBytes(b.wasm.brotli)} |`);
      p(`| \`${b.glue.name}\` (JS glue) | ${fmtBytes(b.glue.raw)} | ${fmtBytes(b.glue.gzip)} | ${fmtBytes(b.glue.brotli)} |`);
    }
    p();
    p(a.packed === null ? "Packed npm package: `npm pack --dry-run` failed." :
      `Packed npm package (\`npm pack --dry-run\`, npm's kB): ${(a.packed / 1000).toFixed(1)} kB. Goal ≤400 kB (issue 23): ${goal(a.packed <= 400_000)}.`);
    p();
    p("Cold init in a fresh process: the import (read + compile + instantiate the wasm, glue: `index-node.js`), then the first");
    p("`SessionIndex.plugin()` + `appendJsonl` of a 3-line session + `toolPlan({action: \"list\"})`. Goal ≤25 ms on Node 22.");
    p();
    p("| runtime · build | import | first index calls | runs |");
    p("|---|---:|---:|---:|");
    for (const [name, v] of Object.entries(a.init)) p(`| ${name} | ${fmtStat(v.import)} | ${fmtStat(v.first)} | ${v.import.runs} |`);
    p();
    const node22 = Object.entries(a.init).find(([name]) => name.startsWith("Node 22"));
    if (node22) {
      const cold = node22[1].import.median + node22[1].first.median;
      p(`Goal ≤25 ms on Node 22 (import + first calls, medians): ${goal(cold <= 25)} ${fmtMs(cold)}.`);
      p();
    }
  }
  return out.join("\n");
}

/** One line of headline ratios (between the bench:headline markers of docs/benchmarks.md). */
function headline() {
  const parts = [];
  const l10 = R.list.find((r) => r.size === 10000 && r.anchors === 100);
  const l100 = R.list.find((r) => r.size === 100000 && r.anchors === 100);
  if (l10) parts.push(`\`list\` at 10k entries / 100 anchors **${ratio(l10.seed, l10.ours)}** faster than the seed's per-anchor \`buildSessionContext\` + \`estimateContextTokens\` (${fmtMs(l10.ours.median)} vs ${fmtMs(l10.seed.median)})`);
  if (l100) parts.push(`${fmtMs(l100.ours.median)} at 100k entries (seed ${fmtMs(l100.seed.median)})`);
  const i10 = R.ingest.find((r) => r.size === 10000);
  if (i10) parts.push(`ingest of a 10k-entry file **${ratio(i10.pi, i10.pluginBytes)}** pi's own load`);
  if (R.append) parts.push(`appending one entry ${fmtMs(R.append.smallObjects.median)} at ${k(R.append.sizeSmall)} vs ${fmtMs(R.append.bigObjects.median)} at ${k(R.append.sizeBig)} entries`);
  if (R.inhost?.ops.list?.seed) parts.push(`inside pi, \`list\` on a 10k-entry session ${fmtMs(R.inhost.ops.list.ours.median)} (seed ${fmtMs(R.inhost.ops.list.seed.median)})`);
  const m10 = R.memory.find((m) => m.size === 10000 && m.mode === "plugin-byte-chunks");
  if (m10) parts.push(`plugin index memory ${((100 * m10.growth) / m10.fileBytes).toFixed(0)}% of the JSONL at 10k entries`);
  if (R.artifact) parts.push(`the wasm ${fmtBytes(R.artifact.gzip)} gzip` + (R.artifact.packed === null ? "" : `, the packed package ${(R.artifact.packed / 1000).toFixed(1)} kB`));
  return parts.join("; ") + ".";
}

function writeHeadline() {
  const doc = join(REPO, "docs", "benchmarks.md");
  const A = "<!-- bench:headline -->";
  const B = "<!-- /bench:headline -->";
  const text = readFileSync(doc, "utf8");
  const a = text.indexOf(A);
  const b = text.indexOf(B);
  if (a < 0 || b < a) return log("docs/benchmarks.md has no bench:headline markers: headline not updated");
  writeFileSync(doc, text.slice(0, a + A.length) + headline() + text.slice(b));
  log("updated the headline in docs/benchmarks.md");
}

function writeDoc(md) {
  const doc = join(REPO, "docs", "benchmarks.md");
  const BEGIN = "<!-- bench:begin (generated by `npm run bench`; edit outside the markers) -->";
  const END = "<!-- bench:end -->";
  let body = existsSync(doc) ? readFileSync(doc, "utf8") : `# Benchmarks\n\n${BEGIN}\n${END}\n`;
  const a = body.indexOf("<!-- bench:begin");
  const b = body.indexOf(END);
  if (a < 0 || b < 0) body += `\n${BEGIN}\n${END}\n`;
  const start = body.indexOf("<!-- bench:begin");
  const end = body.indexOf(END);
  body = body.slice(0, start) + `${BEGIN}\n${md}\n` + body.slice(end);
  writeFileSync(doc, body);
  log(`wrote ${doc}`);
}
