// The "resume" benchmark: what the plugin adds to pi's own resume of a long session, as a user meets it.
//
//   node tests/bench/resume-bench.mjs [--sizes 100,300,1024] [--hosts 1.6.0,0.75.5] [--runs 5] [--cases plain,tool]
//                                     [--pkg <dir>] [--keep-sessions <dir>] [--json <file>]
//
// For each host and session size: `pi -p --session <file> "say ok"` against a local mock of the Anthropic Messages API
// (tests/e2e/lib/mock-api.mjs, 127.0.0.1), each run its own process, pi alone and pi + plugin alternating; wall time
// and peak RSS (`/usr/bin/time -f %M`) of the whole process; medians. Two cases:
// - plain: the model answers "ok" — the plugin must add nothing that waits (≤1.10× pi alone, peak RSS ≤1.10×);
// - tool: the model's first answer is `navigate_tree {action: "list"}`, then "ok" — pi alone answers the call with
//   "tool not found", pi + plugin with the list, which needs the whole index (≤1.30× pi alone).
// The list's text is checked on every plugin run (it names the session's anchors), so the index is built, not
// postponed. Sessions come from tests/bench/long-session.mjs (a long run of anchors, big reads and rewinds, v3),
// generated once per size into --keep-sessions (default: a temp dir removed at the end). pi appends the run's
// entries to the file it resumes: the file is cut back to its original length after every run.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { hostAvailable, nodeFor, piCliPath } from "../../scripts/hosts.mjs";
import { startAnthropicMock } from "../e2e/lib/mock-api.mjs";
import { WireModel } from "../e2e/lib/wire.mjs";
import { writeLongSession } from "./long-session.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "../..");

/** pi 0.75.5 reads a session file as one string: it cannot open one over ~512 MB (ERR_STRING_TOO_LONG). */
export const MAX_MB = { "0.75.5": 512 };

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function stat(xs) {
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), runs: xs.length };
}

/** Runs `cmd args` under /usr/bin/time: { ms, rssMb, cpuMs (user + system), status, stdout, stderr }. */
function timed(cmd, args, { env, cwd, onStart }) {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn("/usr/bin/time", ["-f", "%M %U %S", cmd, ...args], { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    onStart?.(t0);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", fail);
    child.on("close", (status) => {
      const ms = performance.now() - t0;
      const [rssKb, user, sys] = stderr.trim().split("\n").at(-1).split(" ").map(Number);
      done({ ms, rssMb: rssKb / 1024, cpuMs: (user + sys) * 1000, status, stdout, stderr });
    });
  });
}

/**
 * One agent dir per (host, variant): models.json points provider "wire" at the mock; settings.json picks it and, for
 * the plugin variant, lists the built package (a local path: pi loads it in place).
 */
export function agentDir(root, name, mockUrl, pkg) {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const model = new WireModel({ api: "anthropic-messages", baseUrl: mockUrl, modelId: "mock-model" });
  writeFileSync(join(dir, "models.json"), JSON.stringify(model.modelsJson()));
  const settings = { defaultProvider: model.providerId, defaultModel: model.modelId, quietStartup: true, packages: pkg ? [pkg] : [] };
  writeFileSync(join(dir, "settings.json"), JSON.stringify(settings));
  return dir;
}

/**
 * Runs the benchmark; returns the rows. `log(line)` reports progress.
 */
export async function runResumeBench({ sizes, hosts, runs, cases, pkg, sessionsDir, variants = [], log = () => {} }) {
  const work = mkdtempSync(join(tmpdir(), "ptn-resume-"));
  const sessions = sessionsDir ?? join(work, "sessions");
  // pi refuses to resume a session whose header's cwd is gone: the sessions name this directory, kept beside them.
  const project = join(sessions, "project");
  mkdirSync(sessions, { recursive: true });
  mkdirSync(project, { recursive: true });
  // The mock answers by the run's script: set before each run.
  let script = [];
  const arrived = [];
  const mock = await startAnthropicMock({ replies: () => script.shift() ?? { text: "ok" }, onRequest: () => arrived.push(performance.now()) });
  const debugFile = join(work, "debug.log");
  // pi alone, pi + plugin, and any extra plugin variants (`{name, env}`: the plugin with these env vars).
  const all = [{ name: "alone", plugin: false, env: {} }, { name: "plugin", plugin: true, env: {} }, ...variants.map((v) => ({ ...v, plugin: true }))];
  const rows = [];
  try {
    for (const host of hosts) {
      if (!hostAvailable(host)) throw new Error(`pi ${host} is not installed: run npm run setup`);
      const dirs = { alone: agentDir(work, `agent-${host}-alone`, mock.url, null), plugin: agentDir(work, `agent-${host}-plugin`, mock.url, pkg) };
      // A variant may name another built package (`pkg`): its own agent dir.
      for (const v of all) if (v.pkg) dirs[v.name] = agentDir(work, `agent-${host}-${v.name}`, mock.url, v.pkg);
      for (const mb of sizes) {
        if (mb > (MAX_MB[host] ?? Infinity)) continue;
        const file = join(sessions, `resume-${mb}mb.jsonl`);
        if (!existsSync(file)) {
          const t = performance.now();
          const made = writeLongSession(file, { mb, cwd: project });
          log(`generated ${mb} MB: ${made.entries} entries, ${made.rewinds} rewinds in ${((performance.now() - t) / 1000).toFixed(1)} s`);
        }
        const size = statSync(file).size;
        for (const kase of cases) {
          const samples = Object.fromEntries(all.map((v) => [v.name, []]));
          for (let i = 0; i < runs; i++) {
            // Alternating: each round in another order (rotated), so no variant always follows the same one.
            const order = all.map((_, k) => all[(k + i) % all.length]);
            if (i % 2) order.reverse();
            for (const variant of order) {
              script = kase === "tool" ? [{ calls: [{ name: "navigate_tree", input: { action: "list" } }] }, { text: "ok" }] : [{ text: "ok" }];
              const before = mock.requests.length;
              let t0 = 0;
              rmSync(debugFile, { force: true });
              const env = {
                ...process.env,
                PI_CODING_AGENT_DIR: dirs[variant.pkg ? variant.name : variant.plugin ? "plugin" : "alone"],
                PI_OFFLINE: "1",
                PI_SKIP_VERSION_CHECK: "1",
                PI_TELEMETRY: "0",
                PI_TREE_NAVIGATOR_DEBUG: debugFile,
                ...variant.env,
              };
              delete env.NODE_TEST_CONTEXT;
              const r = await timed(nodeFor(host), [piCliPath(host), "-p", "--session", file, "say ok"], { env, cwd: project, onStart: (t) => (t0 = t) });
              truncateSync(file, size);
              const reqs = mock.requests.slice(before);
              const what = `pi ${host} ${variant.name} ${mb} MB ${kase}`;
              if (r.status !== 0 || !/\bok\b/.test(r.stdout)) throw new Error(`${what}: exit ${r.status}\n${r.stdout}\n${r.stderr.slice(-3000)}`);
              const expected = kase === "tool" ? 2 : 1;
              if (reqs.length !== expected) throw new Error(`${what}: ${reqs.length} requests, expected ${expected}`);
              if (kase === "tool") {
                // The index is built, not postponed: the list names the session's anchors.
                const answer = JSON.stringify(reqs[1].full.messages.at(-1));
                const ok = variant.plugin ? /\[list\] · \d+ anchors/.test(answer) : /not found/i.test(answer);
                if (!ok) throw new Error(`${what}: the tool call's answer is not what it should be: ${answer.slice(0, 500)}`);
              }
              const debug = existsSync(debugFile) ? readFileSync(debugFile, "utf8").trim().split("\n").pop() : "";
              samples[variant.name].push({ ms: r.ms, rssMb: r.rssMb, cpuMs: r.cpuMs, firstRequestMs: arrived[before] - t0, debug });
            }
          }
          const summary = (xs) => ({
            ms: stat(xs.map((s) => s.ms)),
            rssMb: stat(xs.map((s) => s.rssMb)),
            cpuMs: stat(xs.map((s) => s.cpuMs)),
            firstRequestMs: stat(xs.map((s) => s.firstRequestMs)),
            debug: xs.map((s) => s.debug).filter(Boolean),
          });
          const row = { host, mb, bytes: size, kase, ...Object.fromEntries(all.map((v) => [v.name, summary(samples[v.name])])) };
          rows.push(row);
          const a = row.alone;
          log(
            `pi ${host} ${mb} MB ${kase}: alone ${a.ms.median.toFixed(0)} ms / ${a.rssMb.median.toFixed(0)} MB / first request ${a.firstRequestMs.median.toFixed(0)} ms` +
              all.slice(1).map((v) => {
                const x = row[v.name];
                return ` · ${v.name} ${x.ms.median.toFixed(0)} ms (${(x.ms.median / a.ms.median).toFixed(2)}×) / ${x.rssMb.median.toFixed(0)} MB (${(x.rssMb.median / a.rssMb.median).toFixed(2)}×) / first request ${x.firstRequestMs.median.toFixed(0)} ms`;
              }).join(""),
          );
        }
      }
    }
  } finally {
    await mock.close();
    rmSync(work, { recursive: true, force: true });
  }
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const argv = process.argv.slice(2);
  const opt = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
  const rows = await runResumeBench({
    sizes: opt("--sizes", "100,300,1024").split(",").map(Number),
    hosts: opt("--hosts", "1.6.0,0.75.5").split(","),
    runs: Number(opt("--runs", "5")),
    cases: opt("--cases", "plain,tool").split(","),
    // --variant name:ENV=value,ENV=value (repeatable): the plugin run with these env vars, measured alongside
    // (PKG=<dir>: another built package).
    variants: argv.flatMap((a, i) => (a === "--variant" ? [argv[i + 1]] : [])).map((spec) => {
      const [name, envs = ""] = spec.split(":");
      const env = Object.fromEntries(envs.split(",").filter(Boolean).map((kv) => kv.split("=")));
      const pkg = env.PKG ? resolve(env.PKG) : undefined;
      delete env.PKG;
      return { name, env, pkg };
    }),
    pkg: resolve(opt("--pkg", join(REPO, "pkg"))),
    sessionsDir: argv.includes("--keep-sessions") ? resolve(opt("--keep-sessions")) : null,
    log: (m) => console.error(`[resume] ${m}`),
  });
  const out = opt("--json", null);
  if (out) writeFileSync(out, JSON.stringify(rows, null, 1));
  console.log(JSON.stringify(rows));
}
