// What the machine's second core can do for the CLI's `list --json` (issue 29 item 6: ≤2.6× the floor), as
// whole processes on the 20k-entry session, interleaved, medians — each a way the CLI could read the file:
//   floor     a Node process that only reads the file (tests/bench/child-floor.mjs);
//   cli       `cli.js list --json`, today's CLI: one `listFileBytes` (the skim) on the main thread;
//   chunks    the resume read's machinery (js/resume-worker.js, resume-chunk.js): the file's 2 MB parts read
//             into facts streams by a worker from the front and the main thread from the back, merged with
//             `appendFacts`, then `listAnchors` (pi 1.6.0's rules: the same list here), checked;
//   warm      today's CLI plus a worker that runs `listFileBytes` on the file's first 2 MB meanwhile, so V8
//             may tier the module's hot functions up (their code is shared between the instances) before the
//             main thread's call needs them — the same list, checked;
//   split     the best that skimming on two cores could do: a worker skims the file's first 35 % (`listFileBytes`
//             of it), the main thread the rest behind the header line, at once; nothing merged, nothing read
//             again — not the list (a label behind the cut names an entry before it): only timed;
//   busy      today's CLI while another process keeps the other core busy (a loop of integer arithmetic): how
//             much a thread's work on one core slows the other's on this machine.
//   node tests/bench/cli-cores.mjs [--entries 20000] [--anchors 100] [--runs 9] [--pkg pkg]
// Prints one table row per way; needs Node 22 (scripts/setup-hosts.sh) and a built pkg/.
import { execFileSync, spawn } from "node:child_process";
import { fstatSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

import { benchArgs, stats, uptime } from "./timing.mjs";

const { argv: args, opt, pkg } = benchArgs();

if (args[0] === "--child") {
  const [, way, pkgDir, file] = args;
  const api = await import(pathToFileURL(join(pkgDir, "index-node.js")).href);
  process.stdout.write(await child(way, api, pkgDir, file));
  process.exit(0);
}

/** One process of a way: what it prints (the list's JSON; `split`: the anchors counted). */
async function child(way, api, pkgDir, file) {
  const fd = openSync(file, "r");
  const size = fstatSync(fd).size;
  const glue = pathToFileURL(join(pkgDir, "pi_tree_navigator.js")).href;
  const onWorker = (code, data) => new Worker(`import { workerData, parentPort } from "node:worker_threads"; import { openSync, readSync } from "node:fs"; const m = await import(workerData.glue); m.initSync({ module: workerData.module }); ${code}`, { eval: true, workerData: { module: api.wasmModule, glue, file, ...data } });
  const readAll = (bytes, from, to) => {
    const piece = Buffer.allocUnsafe(1 << 20);
    for (let at = from, n; at < to && (n = readSync(fd, piece, 0, Math.min(piece.length, to - at), at)) > 0; at += n) bytes.push(piece.subarray(0, n));
    return bytes;
  };
  if (way === "chunks") {
    const { planChunks, readChunk } = await import(pathToFileURL(join(pkgDir, "resume-chunk.js")).href);
    const chunks = planChunks(size, 2 << 20);
    const claims = new Int32Array(new SharedArrayBuffer(4 * chunks.length));
    const results = new Array(chunks.length).fill(null);
    const worker = new Worker(pathToFileURL(join(pkgDir, "resume-worker.js")), { workerData: { module: api.wasmModule, file, size, chunks, claims, version: "1.6.0" } });
    const done = new Promise((ok, fail) => {
      worker.on("message", (m) => (m.part !== undefined ? (results[m.part] = m) : m.done ? ok() : fail(new Error(m.error))));
      worker.on("error", fail);
    });
    const scratch = {};
    for (let part = chunks.length - 1; part >= 0; part--) {
      if (Atomics.compareExchange(claims, part, 0, 1) === 0) results[part] = readChunk(api, fd, chunks[part], size, "1.6.0", scratch);
    }
    await done;
    const index = api.SessionIndex.plugin();
    for (const r of results) {
      if (r.problem) throw new Error(r.problem);
      index.appendFacts(r.facts);
    }
    return JSON.stringify(index.listAnchors(undefined).anchors);
  }
  if (way === "warm") {
    onWorker("const fd = openSync(workerData.file, 'r'); const b = Buffer.allocUnsafe(2e6); const n = readSync(fd, b, 0, b.length, 0); m.listFileBytes(b.subarray(0, b.subarray(0, n).lastIndexOf(10) + 1));", {}).unref();
    return JSON.stringify(api.listFileBytes(readAll(new api.FileBytes(size), 0, size)).list.anchors);
  }
  // split
  const probe = Buffer.allocUnsafe(1 << 16);
  readSync(fd, probe, 0, probe.length, Math.floor(size * 0.35));
  const cut = Math.floor(size * 0.35) + probe.indexOf(10) + 1;
  readSync(fd, probe, 0, probe.length, 0);
  const header = Buffer.from(probe.subarray(0, probe.indexOf(10) + 1));
  const worker = onWorker("const fd = openSync(workerData.file, 'r'); const b = Buffer.allocUnsafe(workerData.cut); readSync(fd, b, 0, b.length, 0); parentPort.postMessage(m.listFileBytes(b).list.anchors.length);", { cut });
  const front = new Promise((ok) => worker.on("message", ok));
  const bytes = new api.FileBytes(size - cut + header.length);
  bytes.push(header);
  const back = api.listFileBytes(readAll(bytes, cut, size)).list.anchors.length;
  return String((await front) + back);
}

const { generateBase, withAnchors } = await import("./gen.mjs");
const { node22Path } = await import("../../scripts/hosts.mjs");
const entries = Number(opt("--entries", 20000));
const anchors = Number(opt("--anchors", 100));
const runs = Number(opt("--runs", 9));
const here = new URL(".", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "ptn-cli-cores-"));
const file = join(dir, "session.jsonl");
writeFileSync(file, withAnchors(generateBase(entries), anchors).text);
const mb = (statSync(file).size / 1e6).toFixed(1);
const node = node22Path();
const ways = {
  floor: [join(here, "child-floor.mjs"), file],
  cli: [join(pkg, "cli.js"), "list", file, "--json"],
  chunks: [join(here, "cli-cores.mjs"), "--child", "chunks", pkg, file],
  warm: [join(here, "cli-cores.mjs"), "--child", "warm", pkg, file],
  split: [join(here, "cli-cores.mjs"), "--child", "split", pkg, file],
  busy: [join(pkg, "cli.js"), "list", file, "--json"],
};
const times = Object.fromEntries(Object.keys(ways).map((w) => [w, []]));
const before = uptime();
try {
  for (let i = 0; i < runs; i++) {
    let list = null;
    for (const [way, argv] of Object.entries(ways)) {
      const spinner = way === "busy" ? spawn(node, ["-e", "let x = 0; for (;;) x = (x * 7 + 1) % 1000003;"], { stdio: "ignore" }) : null;
      const t = performance.now();
      let out;
      try {
        out = execFileSync(node, argv, { maxBuffer: 1 << 28, encoding: "utf8" }).trim();
      } finally {
        spinner?.kill();
      }
      times[way].push(performance.now() - t);
      if (way === "cli") list = out;
      else if (way === "split" ? !(Number(out) > 0) : way !== "floor" && out !== list) throw new Error(`${way}: not the CLI's answer (${out.slice(0, 80)})`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const floor = stats(times.floor).median;
console.log(`${entries} entries, ${mb} MB, ${anchors} anchors; ${runs} runs each, interleaved. Load before: \`${before}\`; after: \`${uptime()}\`.`);
console.log("");
console.log("| way | process (median) | min | / floor |");
console.log("|---|---:|---:|---:|");
for (const [way, xs] of Object.entries(times)) {
  const { median, min } = stats(xs);
  console.log(`| ${way} | ${median.toFixed(0)} ms | ${min.toFixed(0)} ms | **${(median / floor).toFixed(2)}×** |`);
}
