// Where a resume's peak RSS happens: pi's RSS over time, beside the moments that matter, pi alone vs pi + plugin.
//
//   node tests/bench/rss-timeline.mjs [--size 100] [--host 1.6.0] [--case plain|tool] [--runs 3] [--every 2]
//                                      [--keep-sessions <dir>] [--pkg <dir>] [--instrument] [--variant name:ENV=..,PKG=dir]
//                                      [--json <file>]
//
// Each run is `pi -p --session <file> "say ok"` against the local Anthropic mock, as in resume-bench.mjs, with a
// small observer extension loaded in every variant (pi alone too): it marks its factory, session_start,
// before_agent_start, turn_end, agent_end and exit with the time and process.memoryUsage() (rss, the main
// isolate's heap, external, array buffers). VmRSS/VmHWM of the process are sampled from /proc every `--every` ms.
// The plugin's debug lines (PI_TREE_NAVIGATOR_DEBUG) are put on the same clock when they begin with an epoch time
// in ms: `--instrument` runs a copy of the package (made here, `instrument()`) whose debug lines do, with each
// instance's memory, and which adds lines for the worker's start, each part and the steps of the merge. Prints, per variant, the median peak and, for its
// median run, the RSS at each mark and where the peak falls among them. The observer costs every variant the same
// (pi's jiti, ~0 MB: docs/benchmarks.md "Where the plugin's fixed start cost goes").
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { nodeFor, piCliPath } from "../../scripts/hosts.mjs";
import { startAnthropicMock } from "../e2e/lib/mock-api.mjs";
import { agentDir } from "./resume-bench.mjs";
import { writeLongSession } from "./long-session.mjs";

const REPO = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const argv = process.argv.slice(2);
const opt = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const size = Number(opt("--size", "100"));
const host = opt("--host", "1.6.0");
const kase = opt("--case", "plain");
const runs = Number(opt("--runs", "3"));
const every = Number(opt("--every", "2"));
const work = mkdtempSync(join(tmpdir(), "ptn-rss-"));
const pkg = argv.includes("--instrument") ? instrument(resolve(opt("--pkg", join(REPO, "pkg"))), join(work, "pkg")) : resolve(opt("--pkg", join(REPO, "pkg")));
const variants = [
  { name: "alone", pkg: null, env: {} },
  { name: "plugin", pkg, env: {} },
  ...argv.flatMap((a, i) => (a === "--variant" ? [argv[i + 1]] : [])).map((spec) => {
    const [name, envs = ""] = spec.split(":");
    const env = Object.fromEntries(envs.split(",").filter(Boolean).map((kv) => kv.split("=")));
    const own = env.PKG ? resolve(env.PKG) : pkg;
    delete env.PKG;
    return { name, pkg: own, env };
  }),
];

const sessions = argv.includes("--keep-sessions") ? resolve(opt("--keep-sessions")) : join(work, "sessions");
const project = join(sessions, "project");
mkdirSync(project, { recursive: true });
const file = join(sessions, `resume-${size}mb.jsonl`);
if (!existsSync(file)) writeLongSession(file, { mb: size, cwd: project });
const bytes = statSync(file).size;
const marks = join(work, "marks.log");

// The observer: a package of its own, one extension file.
const observer = join(work, "observer");
mkdirSync(observer, { recursive: true });
writeFileSync(join(observer, "package.json"), JSON.stringify({ name: "rss-observer", type: "module", pi: { extensions: ["./observer.js"] } }));
writeFileSync(
  join(observer, "observer.js"),
  `import { appendFileSync } from "node:fs";
const mark = (ev) => {
  const m = process.memoryUsage();
  appendFileSync(${JSON.stringify(marks)}, JSON.stringify({ t: performance.timeOrigin + performance.now(), ev, rss: m.rss, heap: m.heapUsed, external: m.external, buffers: m.arrayBuffers }) + "\\n");
};
process.on("exit", () => mark("exit"));
export default function (pi) {
  mark("factory");
  for (const ev of ["session_start", "before_agent_start", "turn_end", "agent_end"]) pi.on(ev, () => mark(ev));
}
`,
);

/** A copy of the built package `from` in `to` whose debug lines carry the time and the memory of each instance. */
function instrument(from, to) {
  cpSync(from, to, { recursive: true });
  const mem = (m, wasm) => `\${(${m}.heapUsed / 1048576).toFixed(0)} MB heap, \${(${m}.arrayBuffers / 1048576).toFixed(0)} MB buffers, \${(${wasm} / 1048576).toFixed(0)} MB wasm`;
  const edits = {
    "pi_tree_navigator.js": [[/$/, "\nexport const wasmMemoryBytes = () => wasm?.memory?.buffer.byteLength ?? 0;\n"]],
    "load-node.js": [["initSync({ module: wasmModule });", "initSync({ module: wasmModule }); globalThis.__ptnWasm = glue.wasmMemoryBytes;\nimport * as glue from \"./pi_tree_navigator.js\";"]],
    "resume.js": [
      ["const text = `[pi-tree-navigator] ${line}\\n`;", `const m = process.memoryUsage(); const text = \`[pi-tree-navigator] \${performance.timeOrigin + performance.now()} \${line} [main: ${mem("m", "(globalThis.__ptnWasm?.() ?? 0)")}]\\n\`;`],
      ["if (m?.part !== undefined) build.results[m.part] = m;", "if (m?.part !== undefined) { if (m.part >= 0) build.results[m.part] = m; debug(`${m.part < 0 ? \"worker ready\" : `part ${m.part} from the worker`} [worker: ${m.mem}]`); }"],
      ["let here = await help(build, api);", "debug('settle: asked'); let here = await help(build, api); debug(`settle: ${here} parts read here`);"],
      ["const why = index.disagreement(", "debug(`settle: ${taken} entries merged`); const why = index.disagreement("],
      ["kept = adopt(sm, api, index, build.count, build.cursor);", "debug('settle: checked'); kept = adopt(sm, api, index, build.count, build.cursor);"],
    ],
    "resume-worker.js": [
      ["import { initSync, ChunkReader }", "import { wasmMemoryBytes, initSync, ChunkReader }"],
      ["const api = { ChunkReader };", `const api = { ChunkReader }; parentPort.postMessage({ part: -1, mem: \`${mem("process.memoryUsage()", "wasmMemoryBytes()")}\` });`],
      ["parentPort.postMessage({ part, facts:", `parentPort.postMessage({ mem: \`${mem("process.memoryUsage()", "wasmMemoryBytes()")}\`, part, facts:`],
    ],
  };
  for (const [name, list] of Object.entries(edits)) {
    let text = readFileSync(join(to, name), "utf8");
    for (const [a, b] of list) {
      if (typeof a === "string" && !text.includes(a)) throw new Error(`--instrument: ${name} no longer holds ${JSON.stringify(a)}`);
      text = text.replace(a, () => b);
    }
    writeFileSync(join(to, name), text);
  }
  return to;
}

const status = (pid) => {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(text)?.[1] ?? 0);
    return { rss: kb("VmRSS") / 1024, hwm: kb("VmHWM") / 1024 };
  } catch {
    return null;
  }
};

const mib = (b) => b / 1048576;
let script = [];
const mock = await startAnthropicMock({ replies: () => script.shift() ?? { text: "ok" } });
const results = Object.fromEntries(variants.map((v) => [v.name, []]));

function runOnce(v) {
  const dir = agentDir(work, `agent-${v.name}`, mock.url, null);
  const settings = JSON.parse(readFileSync(join(dir, "settings.json"), "utf8"));
  settings.packages = v.pkg ? [observer, v.pkg] : [observer];
  writeFileSync(join(dir, "settings.json"), JSON.stringify(settings));
  script = kase === "tool" ? [{ calls: [{ name: "navigate_tree", input: { action: "list" } }] }, { text: "ok" }] : [{ text: "ok" }];
  rmSync(marks, { force: true });
  const debugFile = join(work, "debug.log");
  rmSync(debugFile, { force: true });
  const env = { ...process.env, PI_CODING_AGENT_DIR: dir, PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0", PI_TREE_NAVIGATOR_DEBUG: debugFile, ...v.env };
  delete env.NODE_TEST_CONTEXT;
  return new Promise((done, fail) => {
    const t0 = performance.timeOrigin + performance.now();
    const child = spawn(nodeFor(host), [piCliPath(host), "-p", "--session", file, "say ok"], { env, cwd: project, stdio: ["ignore", "pipe", "pipe"] });
    const samples = [];
    const timer = setInterval(() => {
      const s = status(child.pid);
      if (s) samples.push({ t: performance.timeOrigin + performance.now() - t0, ...s });
    }, every);
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", fail);
    child.on("close", (code) => {
      clearInterval(timer);
      truncateSync(file, bytes);
      if (code !== 0 || !/\bok\b/.test(out)) return fail(new Error(`${v.name}: exit ${code}\n${out.slice(-2000)}`));
      const ev = existsSync(marks) ? readFileSync(marks, "utf8").trim().split("\n").map((l) => JSON.parse(l)) : [];
      const debug = existsSync(debugFile) ? readFileSync(debugFile, "utf8").trim().split("\n").filter(Boolean) : [];
      const timed = debug.flatMap((l) => {
        const m = /^\[pi-tree-navigator\] (\d+(?:\.\d+)?) (.*)$/.exec(l);
        return m ? [{ t: Number(m[1]) - t0, ev: m[2] }] : [];
      });
      const peak = samples.reduce((a, s) => (s.rss > a.rss ? s : a), { rss: 0, t: 0 });
      done({ samples, marks: ev.map((e) => ({ ...e, t: e.t - t0 })), debug: timed, plainDebug: debug, peak, hwm: Math.max(0, ...samples.map((s) => s.hwm)) });
    });
  });
}

const rssAt = (samples, t) => samples.reduce((a, s) => (s.t <= t ? s : a), samples[0])?.rss ?? 0;
console.log(`pi ${host}, ${size} MB session (${(bytes / 1e6).toFixed(1)} MB), case ${kase}, ${runs} runs, sampling every ${every} ms`);
try {
  for (let i = 0; i < runs; i++) {
    for (const v of i % 2 ? [...variants].reverse() : variants) results[v.name].push(await runOnce(v));
  }
} finally {
  await mock.close();
}
const sorted = (xs) => [...xs].sort((a, b) => a - b);
for (const v of variants) {
  const rs = results[v.name];
  const byHwm = [...rs].sort((a, b) => a.hwm - b.hwm);
  const med = byHwm[byHwm.length >> 1];
  console.log(`\n== ${v.name}: VmHWM ${sorted(rs.map((r) => r.hwm)).map((x) => x.toFixed(0)).join(" / ")} MB; median run: peak ${med.peak.rss.toFixed(0)} MB at ${med.peak.t.toFixed(0)} ms, exit at ${med.samples.at(-1)?.t.toFixed(0)} ms`);
  const rows = [
    ...med.marks.map((m) => ({ t: m.t, what: `${m.ev} (rss ${mib(m.rss).toFixed(0)}, heap ${mib(m.heap).toFixed(0)}, external ${mib(m.external).toFixed(0)}, buffers ${mib(m.buffers).toFixed(0)} MB)` })),
    // The worker's parts: the first and the last of them (the rest in --json).
    ...med.debug.filter((d, i, all) => !/^part \d+ from the worker/.test(d.ev) || i === all.findIndex((x) => /^part /.test(x.ev)) || i === all.findLastIndex((x) => /^part /.test(x.ev))).map((d) => ({ t: d.t, what: d.ev })),
    { t: med.peak.t, what: "** PEAK **" },
  ].sort((a, b) => a.t - b.t);
  for (const r of rows) console.log(`  ${r.t.toFixed(0).padStart(6)} ms  ${rssAt(med.samples, r.t).toFixed(0).padStart(4)} MB  ${r.what}`);
  // The curve, every 50 ms.
  const curve = [];
  for (let t = 0; t <= (med.samples.at(-1)?.t ?? 0); t += 50) curve.push(rssAt(med.samples, t).toFixed(0));
  console.log(`  curve (every 50 ms): ${curve.join(" ")}`);
  if (!med.debug.length && med.plainDebug.length) console.log(`  debug: ${med.plainDebug.join(" | ")}`);
}
const out = opt("--json", null);
if (out) writeFileSync(out, JSON.stringify(results));
rmSync(work, { recursive: true, force: true });
