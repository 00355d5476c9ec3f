#!/usr/bin/env node
// Benchmark (not a test): how long real Chromium takes to load and render a generated ~100 MB pi session in
// the session viewer served by `pkg/cli.js view`, and to move the selection. Goal (issue 23): first render of
// the tree of a 100 MB session in under 1 s. Also the module's cold start in Chromium, as row 6 of `npm run
// bench` times it in Node and Bun: a fresh browser profile each run (no HTTP or compiled-code cache), the
// web entry's import and the wasm's fetch (the browser's network on a fresh profile: most of it), the wasm
// compiled and instantiated from its bytes, then the same first index calls.
//
//   node tests/bench/viewer-bench.mjs [--mb 100] [--runs 3] [--moves 30] [--cold 5] [--keep FILE]
//
// The session comes from tests/bench/gen.mjs, a realistic long autonomous run: tool output up to ~60 KB,
// anchors, rewinds and branches. Needs `npm run build` and Chromium (`npm run setup`).
// Times come from the page's own performance marks (ms since navigation start), and its navigation timing
// (the page's first byte, the page parsed: responseStart, domInteractive):
//   fetch-start  the session's fetch starts (while the wasm compiles)   wasm-ready  the module is ready
//   fetched  the file's last byte is in       indexed the core holds the session (fed while it arrives)
//   parsed   the page's model is built (treeRowsJson, path, estimates)
//   tree     first frame with the tree drawn   ready   stats, timeline and the leaf's context drawn
// Moving the selection:
//   key → row       ArrowDown until the new row is highlighted (next frame)
//   key → context   until the context for it is drawn (after the 90 ms key-rest delay)
//   jump            a click on the timeline at a far point until that context is drawn
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { FIRST_SESSION } from "./first-calls.mjs";
import { generateBase, withAnchors } from "./gen.mjs";
import { launch, openViewer, requirePrereqs, serve, settled } from "../browser/lib.mjs";

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const MB = Number(arg("--mb", 100));
const RUNS = Number(arg("--runs", 3));
const MOVES = Number(arg("--moves", 30));
const COLD = Number(arg("--cold", 5));
const keep = arg("--keep", null);

requirePrereqs();
const work = mkdtempSync(join(tmpdir(), "ptn-viewer-bench-"));
const file = keep ?? join(work, `session-${MB}mb.jsonl`);

// ---- the session: scale the entry count to the wanted size -----------------------------------------------
if (!keep || !existsSync(file)) {
  const t0 = Date.now();
  const probe = withAnchors(generateBase(4000, 11), 10).text;
  const perEntry = Buffer.byteLength(probe) / 4000;
  const entries = Math.ceil((MB * 1e6) / perEntry);
  const { text } = withAnchors(generateBase(entries, 11), 40);
  writeFileSync(file, text);
  console.log(`generated ${entries} entries, ${(statSync(file).size / 1e6).toFixed(1)} MB in ${((Date.now() - t0) / 1000).toFixed(1)} s → ${file}`);
}

const fileMB = statSync(file).size / 1e6;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];
const fmt = (ms) => `${Math.round(ms)} ms`;

const server = await serve(file);
const browser = await launch({ width: 1400, height: 900 });
const loads = [];
const moves = { row: [], context: [], jump: [] };
const cold = [];
let info;
try {
  for (let run = 0; run < RUNS; run++) {
    const { page } = await openViewer(browser.context, server.url, { wait: false, intercept: false });
    const state = await settled(page, 300000);
    if (state !== "ready") throw new Error(`viewer state ${state}`);
    const marks = await page.evaluate(() => {
      const nav = performance.getEntriesByType("navigation")[0];
      const marks = Object.fromEntries(performance.getEntriesByType("mark").map((m) => [m.name.replace("ptn:", ""), m.startTime]));
      return { ...marks, "page-start": nav.responseStart, "page-parsed": nav.domInteractive };
    });
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send("Performance.enable");
    const metrics = Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value]));
    loads.push({ ...marks, heap: metrics.JSHeapUsedSize, nodes: metrics.Nodes });
    info ??= await page.evaluate(() => ({
      entries: document.getElementById("tree-info").dataset.total,
      shown: document.getElementById("tree-info").dataset.shown,
      rowsInDom: document.querySelectorAll("#tree .row").length,
      leafMessages: document.querySelector("#context-head [data-messages]").dataset.messages,
    }));

    // Move the selection with the keyboard, from the top of the tree.
    await page.focus("#tree");
    await page.keyboard.press("Home");
    await page.waitForFunction(() => document.getElementById("context").dataset.leaf === document.querySelector(".row.selected")?.dataset.id);
    for (let i = 0; i < MOVES; i++) {
      const t = await page.evaluate(async () => {
        const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
        const before = document.querySelector(".row.selected")?.dataset.id;
        const t0 = performance.now();
        document.getElementById("tree").dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown", bubbles: true }));
        while (document.querySelector(".row.selected")?.dataset.id === before) await frame();
        await frame();
        const row = performance.now() - t0;
        const id = document.querySelector(".row.selected").dataset.id;
        while (document.getElementById("context").dataset.leaf !== id) await new Promise((r) => setTimeout(r, 2));
        await frame();
        return { row, context: performance.now() - t0 };
      });
      moves.row.push(t.row);
      moves.context.push(t.context);
    }
    // Jumps: click the timeline at 90%, 50% and 99% of the path (deep contexts).
    const box = await page.locator("#timeline svg").boundingBox();
    for (const f of [0.9, 0.5, 0.99]) {
      const x = box.x + 52 + f * (box.width - 66);
      const t = await page.evaluate(async ({ x, y }) => {
        const el = document.elementFromPoint(x, y);
        const before = document.getElementById("context").dataset.leaf;
        const t0 = performance.now();
        el.dispatchEvent(new MouseEvent("click", { clientX: x, clientY: y, bubbles: true }));
        while (document.getElementById("context").dataset.leaf === before) await new Promise((r) => setTimeout(r, 2));
        await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
        return performance.now() - t0;
      }, { x, y: box.y + 120 });
      moves.jump.push(t);
    }
    await page.close();
  }
  // Cold start: a fresh profile per run, a page of the server's origin (its 404: no viewer running), then
  // the web entry imported and the first calls made in it.
  const base = server.url.slice(0, server.url.indexOf("/viewer/"));
  for (let run = 0; run < COLD; run++) {
    const fresh = await launch({ width: 800, height: 600 });
    try {
      const page = await fresh.context.newPage();
      await page.goto(`${base}/cold-start`);
      cold.push(await page.evaluate(async ({ base, session }) => {
        const t0 = performance.now();
        const core = await import(`${base}/load-web.js`);
        const zipped = (await fetch(`${base}/pi_tree_navigator_bg.wasm.gz`)).body; // the module as the package ships it
        const bytes = await new Response(zipped.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer();
        const fetched = performance.now();
        core.initSync({ module: await WebAssembly.compile(bytes) });
        const t1 = performance.now();
        const index = core.SessionIndex.plugin();
        index.appendJsonl(session);
        const plan = index.toolPlan({ action: "list" }, { callId: "c1", contextWindow: 200000 });
        if (plan.kind !== "list") throw new Error(`list plan: ${JSON.stringify(plan)}`);
        index.free();
        return { fetch: fetched - t0, init: t1 - fetched, first: performance.now() - t1 };
      }, { base, session: FIRST_SESSION }));
    } finally {
      await fresh.close();
    }
  }
} finally {
  await browser.close();
  await server.stop();
  if (!keep) rmSync(work, { recursive: true, force: true });
}

const col = (k) => loads.map((l) => l[k]);
console.log(`\nviewer on ${fileMB.toFixed(1)} MB: ${info.entries} entries (${info.shown} shown by default, ${info.rowsInDom} rows in the DOM), ${info.leafMessages} messages in the leaf's context; Chromium ${RUNS} runs, median (min–max)`);
const row = (label, xs) => console.log(`  ${label.padEnd(32)} ${fmt(median(xs)).padStart(8)}   (${fmt(Math.min(...xs))} – ${fmt(Math.max(...xs))})`);
row("page's first byte", col("page-start"));
row("page parsed", col("page-parsed"));
row("fetch starts", col("fetch-start"));
row("wasm ready", col("wasm-ready"));
row("file fetched", col("fetched"));
row("indexed (fed while it arrives)", col("indexed"));
row("page model (tree rows, path)", col("parsed"));
row("first render of the tree", col("tree"));
row("ready (stats, timeline, context)", col("ready"));
console.log(`  ${"JS heap after load".padEnd(30)} ${(median(col("heap")) / 1e6).toFixed(0).padStart(5)} MB`);
console.log(`selection, ${moves.row.length} key moves and ${moves.jump.length} timeline jumps: median / p95`);
console.log(`  ${"key → row highlighted".padEnd(30)} ${fmt(median(moves.row)).padStart(8)} / ${fmt(p95(moves.row))}`);
console.log(`  ${"key → context drawn".padEnd(30)} ${fmt(median(moves.context)).padStart(8)} / ${fmt(p95(moves.context))}   (includes the 90 ms key-rest delay)`);
console.log(`  ${"timeline jump → context drawn".padEnd(30)} ${fmt(median(moves.jump)).padStart(8)} / ${fmt(p95(moves.jump))}`);
if (cold.length) {
  console.log(`cold start of the module in Chromium (a fresh profile each run), ${cold.length} runs, median (min–max)`);
  row("glue import + wasm fetch", cold.map((c) => c.fetch));
  row("compile + instantiate", cold.map((c) => c.init));
  row("first index calls", cold.map((c) => c.first));
  row("compile → first calls done", cold.map((c) => c.init + c.first));
}
const goal = median(col("tree"));
// Issue 23's goal for a 100 MB session (the default file here is 101 MB).
console.log(`goal: first render of the tree < 1000 ms (issue 23, a 100 MB session): ${goal < 1000 ? "met" : "NOT met"} (${fmt(goal)})`);
console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? "?"}, load average ${loadavg().map((x) => x.toFixed(1)).join(" ")}`);
