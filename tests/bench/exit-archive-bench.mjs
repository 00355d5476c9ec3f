// Issue 42's rows of `npm run bench`: "resume after exit archive" — a long run archived by archiveOnExit when pi
// quits, then resumed with the plugin, against pi alone resuming the original.
//
//   node tests/bench/exit-archive-bench.mjs --pkg <built pkg> [--sizes 300,1024] [--runs 5] [--host 1.6.0] [--write] [--quick]
//
// Per size (tests/bench/long-session.mjs: anchors, big reads, rewinds; PTN_BENCH_SESSIONS keeps them):
// 1. the archive: `pi -p --session <copy> "say ok"` with the plugin and `"archiveOnExit": true` — pi's wall time, the
//    shutdown handler's own time (its debug line: what quitting waits for), and how long after pi's exit the archive
//    is in place (the log's entry); then the archiver's own command line (the one the plugin starts) on a second
//    copy under `/usr/bin/time`: its wall time and peak RSS;
// 2. resume, alternating processes, medians: pi alone on the original, pi + plugin on the archived file (what the
//    user resumes from then on), and pi + plugin with archiveOnExit on the original (the quit's cost where the file is
//    big and pi's RSS is too: an archive already there makes each started archiver refuse at once, so every run
//    quits the same way);
// 3. pi's own session listing (`SessionManager.list`, what `/resume` reads) over a folder holding the generated
//    sessions, before (the originals) and after (the archived files, their archives beside them), on pi 1.6.0 and
//    0.75.5, alternating processes, medians.
// `uptime` is printed beside each part. --write puts the tables into docs/benchmarks.md between the
// `bench:exit-archive` markers. Takes the bench lock (timing.mjs) unless run.mjs holds it.
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { hostAvailable, hostEntryPath, nodeFor, piCliPath } from "../../scripts/hosts.mjs";
import { startAnthropicMock } from "../e2e/lib/mock-api.mjs";
import { writeLongSession } from "./long-session.mjs";
import { agentDir } from "./resume-bench.mjs";
import { benchArgs, benchLock, stats, uptime, writeBenchBlock } from "./timing.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const { argv, opt, pkg: PKG, quick: QUICK } = benchArgs();
const SIZES = opt("--sizes", QUICK ? "50" : "300,1024").split(",").map(Number);
const RUNS = Number(opt("--runs", QUICK ? "2" : "5"));
const HOST = opt("--host", "1.6.0");
const LIST_HOSTS = ["1.6.0", "0.75.5"].filter(hostAvailable);
const log = (m) => console.error(`[bench:exit-archive] ${m}`);
const s = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
const x = (a, b) => `${(a / b).toFixed(2)}×`;
const mbOf = (bytes) => `${(bytes / 1e6).toFixed(bytes < 10e6 ? 2 : 0)} MB`;

await benchLock(log);
const work = mkdtempSync(join(tmpdir(), "ptn-bench-exit-"));
const sessions = process.env.PTN_BENCH_SESSIONS ? resolve(process.env.PTN_BENCH_SESSIONS) : join(work, "sessions");
const project = join(sessions, "project");
mkdirSync(project, { recursive: true });
const mock = await startAnthropicMock({ replies: () => ({ text: "ok" }) });
const agents = {
  alone: agentDir(work, "agent-alone", mock.url, null),
  plugin: agentDir(work, "agent-plugin", mock.url, PKG),
};
writeFileSync(join(agents.plugin, "tree-navigator.json"), JSON.stringify({ archiveOnExit: true }));
const debugFile = join(work, "debug.log");
const LOG = join(agents.plugin, "tree-navigator.log");

/** `cmd args` under /usr/bin/time: {ms, rssMb, status, stdout, stderr}. */
function timed(cmd, args, env = process.env) {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn("/usr/bin/time", ["-f", "%M", cmd, ...args], { env, cwd: project, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", fail);
    child.on("close", (status) => done({ ms: performance.now() - t0, rssMb: Number(stderr.trim().split("\n").at(-1)) / 1024, status, stdout, stderr }));
  });
}

/** `pi -p --session <file> "say ok"` on HOST, pi alone or with the plugin; the file is cut back to `keep` bytes after. */
async function resume(file, plugin, keep) {
  rmSync(debugFile, { force: true });
  const env = { ...process.env, PI_CODING_AGENT_DIR: plugin ? agents.plugin : agents.alone, PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0", PI_TREE_NAVIGATOR_DEBUG: debugFile };
  delete env.NODE_TEST_CONTEXT;
  const r = await timed(nodeFor(HOST), [piCliPath(HOST), "-p", "--session", file, "say ok"], env);
  if (r.status !== 0 || !/\bok\b/.test(r.stdout)) throw new Error(`pi ${HOST} on ${file}: exit ${r.status}\n${r.stderr.slice(-2000)}`);
  if (keep !== undefined) truncateSync(file, keep);
  const debug = existsSync(debugFile) ? readFileSync(debugFile, "utf8") : "";
  const quit = debug.match(/archive on exit: archiver started for .* in ([\d.]+) ms/);
  return { ...r, quitMs: quit ? Number(quit[1]) : null, debug };
}

const rows = [];
const list = { before: join(work, "list-before"), after: join(work, "list-after") };
mkdirSync(list.before);
mkdirSync(list.after);
try {
  for (const mb of SIZES) {
    const original = join(sessions, `resume-${mb}mb.jsonl`);
    if (!existsSync(original)) {
      const t = performance.now();
      const made = writeLongSession(original, { mb, cwd: project });
      log(`generated ${mb} MB: ${made.entries} entries, ${made.rewinds} rewinds in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }
    const bytes = statSync(original).size;
    const dir = join(work, `${mb}`);
    mkdirSync(dir);
    // 1. archived by archiveOnExit after a `pi -p` turn.
    const load1 = uptime();
    const file = join(dir, "archived.jsonl");
    copyFileSync(original, file);
    const turn = await resume(file, true);
    if (turn.quitMs === null) throw new Error(`${mb} MB: no archiver started:\n${turn.debug}`);
    const exited = performance.now();
    const entry = `: archived: ${file}`;
    while (!(existsSync(LOG) && readFileSync(LOG, "utf8").includes(entry))) {
      if (performance.now() - exited > 600_000) throw new Error(`${mb} MB: not archived after 10 minutes:\n${existsSync(LOG) ? readFileSync(LOG, "utf8") : "(no log)"}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const archivedAfterMs = performance.now() - exited;
    const archivedBytes = statSync(file).size;
    log(`${mb} MB: pi's turn ${s(turn.ms)}, quit handler ${turn.quitMs} ms, archived ${s(archivedAfterMs)} after pi exited: ${mbOf(bytes)} → ${mbOf(archivedBytes)}`);
    // The archiver's command line (what the plugin starts) on a second copy, under /usr/bin/time.
    const replica = join(dir, "replica.jsonl");
    copyFileSync(original, replica);
    const gone = 2 ** 22 + 777;
    const archiver = await timed(process.execPath, [join(PKG, "cli.js"), "archive", replica, "--after-exit", String(gone), "--log", join(dir, "replica.log"), "--if-worth", "10"]);
    if (archiver.status !== 0 || !readFileSync(join(dir, "replica.log"), "utf8").includes(": archived: ")) throw new Error(`${mb} MB: the archiver's replica failed:\n${archiver.stderr}`);
    rmSync(replica, { force: true });
    rmSync(`${replica}.archive`, { force: true });
    log(`${mb} MB: the archiver ${s(archiver.ms)}, peak RSS ${archiver.rssMb.toFixed(0)} MB`);

    // 2. resume: alternating, medians.
    const load2 = uptime();
    const orig = join(dir, "original.jsonl");
    copyFileSync(original, orig);
    // An archive beside it (not a real one): every archiver started at the quit refuses at once.
    writeFileSync(`${orig}.archive`, "not an archive\n");
    const sample = { alone: [], archived: [], quit: [] };
    for (let i = 0; i < RUNS; i++) {
      const order = i % 2 ? ["quit", "archived", "alone"] : ["alone", "archived", "quit"];
      for (const v of order) {
        const r = v === "alone" ? await resume(orig, false, bytes) : v === "archived" ? await resume(file, true, archivedBytes) : await resume(orig, true, bytes);
        if (v === "quit" && r.quitMs === null) throw new Error(`${mb} MB: no archiver started on the original:\n${r.debug}`);
        sample[v].push(r);
      }
    }
    const med = (v, k) => stats(sample[v].map((r) => r[k])).median;
    const row = {
      mb,
      bytes,
      archivedBytes,
      turnMs: turn.ms,
      quitMs: turn.quitMs,
      archivedAfterMs,
      archiver: { ms: archiver.ms, rssMb: archiver.rssMb },
      alone: { ms: med("alone", "ms"), rssMb: med("alone", "rssMb") },
      archived: { ms: med("archived", "ms"), rssMb: med("archived", "rssMb") },
      quit: { ms: med("quit", "ms"), rssMb: med("quit", "rssMb"), handler: stats(sample.quit.map((r) => r.quitMs)) },
      load: [load1, load2, uptime()],
    };
    rows.push(row);
    log(`${mb} MB: alone ${s(row.alone.ms)} · + plugin on the archived file ${s(row.archived.ms)} (${x(row.archived.ms, row.alone.ms)}) · + plugin with archiveOnExit on the original ${s(row.quit.ms)}, quit handler ${row.quit.handler.median.toFixed(1)} ms (max ${row.quit.handler.max.toFixed(1)})`);
    linkSync(original, join(list.before, `resume-${mb}mb.jsonl`));
    linkSync(file, join(list.after, `resume-${mb}mb.jsonl`));
    linkSync(`${file}.archive`, join(list.after, `resume-${mb}mb.jsonl.archive`));
    rmSync(orig, { force: true });
  }

  // 3. pi's own session listing over the folder, before and after.
  const loadList = uptime();
  const listing = [];
  for (const host of LIST_HOSTS) {
    const sample = { before: [], after: [] };
    for (let i = 0; i < Math.max(3, RUNS - 2); i++) {
      for (const when of i % 2 ? ["after", "before"] : ["before", "after"]) {
        const r = await timed(nodeFor(host), ["--max-old-space-size=8192", join(HERE, "child-pi-list.mjs"), "--entry", hostEntryPath(host), "--dir", list[when], "--cwd", project]);
        if (r.status !== 0) throw new Error(`listing on pi ${host} (${when}): ${r.stderr.slice(-1500)}`);
        sample[when].push({ ...JSON.parse(r.stdout), rssMb: r.rssMb, wallMs: r.ms });
      }
    }
    const m = (when, k) => stats(sample[when].map((r) => r[k])).median;
    listing.push({ host, before: { ms: m("before", "ms"), rssMb: m("before", "rssMb"), sessions: sample.before[0].sessions }, after: { ms: m("after", "ms"), rssMb: m("after", "rssMb"), sessions: sample.after[0].sessions } });
    log(`listing on pi ${host}: before ${s(m("before", "ms"))} (${sample.before[0].sessions} sessions), after ${s(m("after", "ms"))} (${sample.after[0].sessions} sessions)`);
  }

  // The tables.
  const out = [];
  const p = (line = "") => {
    out.push(line);
    console.log(line);
  };
  p("### Resume after exit archive (issue 42)");
  p();
  p(`A long run (tests/bench/long-session.mjs) gets one \`pi -p --session <file> "say ok"\` turn on pi ${HOST} with the plugin and`);
  p('`"archiveOnExit": true`; when pi quits the plugin starts the archiver, which archives the file once pi has exited. Then, alternating');
  p(`processes, medians of ${RUNS}: pi alone resuming the original against pi + plugin resuming the archived file (goal ≤0.25×), and pi + plugin`);
  p("with archiveOnExit resuming the original (its quit starts an archiver each time: *quit handler* is what quitting waits for, goal ≤50 ms).");
  p("The archiver's peak RSS is its own command line on a copy under `/usr/bin/time` (goal ≤200 MB at 1 GB).");
  p();
  p("| session | archived file | archived after pi exited | archiver: wall, peak RSS | pi alone, original | + plugin, archived file | ratio | + plugin, archiveOnExit, original | quit handler: first turn / median (max) of runs |");
  p("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    p(`| ${mbOf(r.bytes)} | ${mbOf(r.archivedBytes)} | ${s(r.archivedAfterMs)} | ${s(r.archiver.ms)}, ${r.archiver.rssMb.toFixed(0)} MB | ${s(r.alone.ms)}, ${r.alone.rssMb.toFixed(0)} MB | ${s(r.archived.ms)}, ${r.archived.rssMb.toFixed(0)} MB | **${x(r.archived.ms, r.alone.ms)}** | ${s(r.quit.ms)} (${x(r.quit.ms, r.alone.ms)}) | ${r.quitMs.toFixed(1)} ms / ${r.quit.handler.median.toFixed(1)} ms (${r.quit.handler.max.toFixed(1)}) |`);
  }
  p();
  for (const r of rows) p(`Load at ${r.mb} MB (archive, resume, after): \`${r.load.join("`; `")}\`.`);
  p();
  p("pi's own session listing (`SessionManager.list` over the folder: what `/resume` reads), one process each, alternating, medians:");
  p(`before: the ${SIZES.map((m) => `${m} MB`).join(" and ")} originals; after: the archived files, their archives beside them. Load: \`${loadList}\`.`);
  p();
  p("| pi | before | after | ratio | sessions listed before / after |");
  p("|---|---:|---:|---:|---:|");
  for (const l of listing) p(`| ${l.host} | ${s(l.before.ms)}, ${l.before.rssMb.toFixed(0)} MB | ${s(l.after.ms)}, ${l.after.rssMb.toFixed(0)} MB | ${x(l.after.ms, l.before.ms)} | ${l.before.sessions} / ${l.after.sessions} |`);
  if (argv.includes("--write") && !QUICK) log(`written into ${writeBenchBlock("exit-archive", "tests/bench/exit-archive-bench.mjs", out)}`);
  writeFileSync(join(tmpdir(), "ptn-bench-exit-archive.json"), JSON.stringify({ rows, listing }, null, 1));
} finally {
  await mock.close();
  rmSync(work, { recursive: true, force: true });
}
