// archiveOnExit's shim (pkg/archive-on-exit.js) against a fake pi: when pi quits it starts the archiver with the
// right words (off by default, on by config and by env, the env winning both ways; a reload starts nothing; a
// session left earlier goes with the quit), and `/archive` (its dry run, the question, no dialog without a UI).
// Then the archiver itself (pkg/archive-after-exit.js through the CLI): it skips a file another process has open
// and one the rule finds not worth it, each with a log entry. The real-host proof is tests/e2e/archive-on-exit.test.mjs;
// the kill test tests/js/archive-kill.test.js. Run `npm run build` first.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fakePi, loadPkg, sparseFile } from "./fake-pi.js";

const work = mkdtempSync(join(tmpdir(), "ptn-exit-unit-"));
const agent = join(work, "agent");
mkdirSync(agent);
fakePi(`export const VERSION = '1.6.0'; export const getAgentDir = () => ${JSON.stringify(agent)};`);
const core = await loadPkg("index-node.js");
const { installArchiveOnExit } = await loadPkg("archive-on-exit.js");
const { installArchiveNotice } = await loadPkg("archive-notice.js");
const REGISTRY = Symbol.for("pi-tree-navigator.registry");
const CLI = fileURLToPath(new URL("../../pkg/cli.js", import.meta.url));
const LOG = join(agent, "tree-navigator.log");
test.after(() => rmSync(work, { recursive: true, force: true }));

/** A sparse file of `bytes` bytes: the shim only stats it. */
const sized = (name, bytes) => sparseFile(join(work, name), bytes);

/** A fake pi in a fresh process (registry): `quit(file, reason)` emits session_shutdown; `starts`: the archivers. */
function setup({ config = {}, env = {}, dryRun } = {}) {
  globalThis[REGISTRY] = undefined;
  const handlers = {};
  const commands = {};
  const pi = { on: (event, fn) => (handlers[event] ??= []).push(fn), registerCommand: (name, c) => (commands[name] = c) };
  const starts = [];
  const notes = [];
  installArchiveOnExit({ pi, core: () => core, configOf: () => config, env, start: (args, cwd) => starts.push({ args, cwd }), dryRun });
  const ctxOf = (file, { hasUI = true, confirm = true } = {}) => ({
    hasUI,
    sessionManager: { getSessionFile: () => file },
    ui: { notify: (text, level) => notes.push({ text, level }), select: async () => undefined, confirm: async (title, body) => (notes.push({ title, body }), confirm) },
  });
  const quit = (file, reason = "quit", opts) => {
    for (const fn of handlers.session_shutdown ?? []) fn({ type: "session_shutdown", reason }, ctxOf(file, opts));
  };
  return { quit, starts, notes, commands, ctxOf };
}

const archiver = (file, minMb) => ["archive", file, "--after-exit", String(process.pid), "--log", LOG, ...(minMb === undefined ? [] : ["--if-worth", String(minMb)])];

test("off by default; on by the config or by the env (which wins both ways); the config's minimum size", () => {
  const big = sized("big.jsonl", 20e6);
  const cases = [
    ["default", {}, {}, []],
    ["config", { archiveOnExit: true, archiveOnExitMinMB: 10 }, {}, [archiver(big, 10)]],
    ["env =1", {}, { PI_TREE_NAVIGATOR_ARCHIVE_ON_EXIT: "1" }, [archiver(big, 10)]],
    ["env =0 over the config", { archiveOnExit: true }, { PI_TREE_NAVIGATOR_ARCHIVE_ON_EXIT: "0" }, []],
    ["env =false over the config", { archiveOnExit: true }, { PI_TREE_NAVIGATOR_ARCHIVE_ON_EXIT: "false" }, []],
    ["under the minimum", { archiveOnExit: true, archiveOnExitMinMB: 25 }, {}, []],
    ["minimum 0", { archiveOnExit: true, archiveOnExitMinMB: 0 }, {}, [archiver(big, 0)]],
  ];
  for (const [what, config, env, want] of cases) {
    const s = setup({ config, env });
    s.quit(big);
    assert.deepEqual(s.starts.map((x) => x.args), want, what);
    if (want.length) assert.equal(s.starts[0].cwd, work, `${what}: run in the session's folder`);
  }
});

test("a reload starts nothing; a session left for another is archived with the quit; once per file per process", () => {
  const a = sized("a.jsonl", 20e6);
  const b = sized("b.jsonl", 20e6);
  const s = setup({ config: { archiveOnExit: true } });
  s.quit(a, "reload");
  assert.deepEqual(s.starts, []);
  s.quit(a, "resume"); // /resume to b: pi keeps running
  assert.deepEqual(s.starts, []);
  s.quit(b, "quit");
  assert.deepEqual(s.starts.map((x) => x.args[1]), [a, b]);
  s.quit(b, "quit"); // a second load of the extension in the same process
  assert.equal(s.starts.length, 2);
  // Nothing written yet, or no file: nothing to start.
  const none = setup({ config: { archiveOnExit: true } });
  none.quit(join(work, "never-written.jsonl"));
  none.quit(undefined);
  assert.deepEqual(none.starts, []);
});

test("with archiveOnExit on, the archive notice says nothing (the file is archived at the quit anyway)", async () => {
  const big = sized("noticed.jsonl", 60e6);
  for (const [config, env, noticed] of [[{ archiveNotice: true }, {}, 1], [{ archiveNotice: true, archiveOnExit: true }, {}, 0], [{ archiveNotice: true }, { PI_TREE_NAVIGATOR_ARCHIVE_ON_EXIT: "1" }, 0]]) {
    globalThis[REGISTRY] = undefined;
    const handlers = [];
    const notes = [];
    installArchiveNotice({ pi: { on: (e, fn) => e === "session_start" && handlers.push(fn) }, core: () => core, configOf: () => config, env, readFacts: async () => ({ fileBytes: 60e6, savedBytes: 50e6 }) });
    handlers[0]({}, { hasUI: true, sessionManager: { getSessionFile: () => big }, ui: { notify: (t) => notes.push(t) } });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(notes.length, noticed, JSON.stringify({ config, env }));
  }
});

test("/archive: archive's dry run, the question; Yes archives at the quit whatever the rule, No does not", async () => {
  const file = sized("asked.jsonl", 1000);
  const dryRun = async () => ({ ok: true, text: "asked.jsonl: 1000 B → 100 B (−90.0 %) [dry run: nothing written]" });
  for (const yes of [true, false]) {
    const s = setup({ dryRun });
    await s.commands.archive.handler("", s.ctxOf(file, { confirm: yes }));
    const asked = s.notes.find((n) => n.title);
    assert.equal(asked.title, "Archive this session when pi quits?");
    assert.ok(asked.body.startsWith("asked.jsonl: 1000 B → 100 B (−90.0 %) [dry run: nothing written]\n\nWhen you quit pi"), asked.body);
    assert.ok(asked.body.endsWith(`The result goes to ${LOG}.`), asked.body);
    s.quit(file);
    // Asked: no size rule (no --if-worth), even with archiveOnExit off and a file far under 10 MB.
    assert.deepEqual(s.starts.map((x) => x.args), yes ? [archiver(file)] : []);
    assert.equal(s.notes.some((n) => n.text === `tree-navigator: asked.jsonl will be archived once pi has exited (the result goes to ${LOG}).`), yes);
  }
});

test("/archive without a dialog, without a file, or when archive would refuse or has nothing to move: says why", async () => {
  const file = sized("told.jsonl", 1000);
  const s = setup({ dryRun: async () => ({ ok: false, text: "told.jsonl: nothing to archive (3 of 3 entries on the active path, no compaction before them)" }) });
  await s.commands.archive.handler("", s.ctxOf(file));
  assert.deepEqual(s.notes, [{ text: "told.jsonl: nothing to archive (3 of 3 entries on the active path, no compaction before them)", level: "warning" }]);
  s.notes.length = 0;
  await s.commands.archive.handler("", s.ctxOf(join(work, "none.jsonl")));
  assert.deepEqual(s.notes, [{ text: "tree-navigator: this session has no file yet: nothing to archive.", level: "info" }]);
  // Print mode: no dialog, so the command to run instead (on stdout: the UI's notify is none there).
  s.notes.length = 0;
  const writes = [];
  const write = process.stdout.write;
  process.stdout.write = (t) => (writes.push(String(t)), true);
  try {
    await s.commands.archive.handler("", s.ctxOf(file, { hasUI: false }));
  } finally {
    process.stdout.write = write;
  }
  assert.match(writes.join(""), /\/archive asks you to confirm, which needs pi's interactive UI\. After you quit pi, run:\n {2}\S+ .*cli\.js archive .*told\.jsonl\n/);
  s.quit(file);
  assert.deepEqual(s.starts, [], "nothing asked, nothing started");
});

/** The CLI's archiver on `file` after a pi that has exited; its log entry (exit status 0, or 1 when refused). */
function runArchiver(file, ...more) {
  const log = join(work, `log-${Math.random().toString(36).slice(2)}`);
  const r = spawnSync(process.execPath, [CLI, "archive", file, "--after-exit", String(2 ** 22 + 4321), "--log", log, ...more], { encoding: "utf8" });
  const text = readFileSync(log, "utf8");
  assert.equal(r.status, text.includes(" quit: refused: ") ? 1 : 0, r.stderr);
  return text;
}

test("the archiver skips a file another process has open, and one the rule finds not worth it; each logged; without the rule it archives", async () => {
  const gen = JSON.parse(spawnSync(process.execPath, [fileURLToPath(new URL("../bench/gen.mjs", import.meta.url)), "400", "5", work], { encoding: "utf8" }).stdout);
  const file = gen["5"].file;
  const holder = spawn("sh", ["-c", `exec 3<"$0"; exec sleep 30`, file], { stdio: "ignore" });
  try {
    await new Promise((r) => setTimeout(r, 300));
    const log = runArchiver(file, "--if-worth", "0");
    assert.match(log, new RegExp(`^\\S+ archive after pi \\(pid \\d+\\) quit: skipped: ${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}\\n  another process has the file open \\(${holder.pid} sleep\\), so nothing was changed\\n$`), log);
  } finally {
    holder.kill();
  }
  await new Promise((r) => holder.on("exit", r));
  assert.match(runArchiver(file, "--if-worth", "100"), /quit: skipped: .*\n {2}\d.* is under archiveOnExitMinMB \(100 MB\)\n$/);
  // The rule asked after each pass: the whole file, the first pass's bound, the exact share; a no writes nothing.
  const { archiveFile, ArchiveSkipped } = await loadPkg("archive.js");
  const before = readFileSync(file);
  const asked = [];
  assert.throws(() => archiveFile(core, file, { minIdle: 0, worth: (bytes, saved) => asked.push([bytes, saved]) < 3 }), ArchiveSkipped);
  assert.equal(asked.length, 3);
  assert.ok(asked[0][1] === before.length && asked[1][1] >= asked[2][1] && asked[2][1] > 0, JSON.stringify(asked));
  assert.ok(readFileSync(file).equals(before), "nothing written");
  assert.deepEqual(readdirSync(work).filter((n) => n.startsWith(basename(file)) && n !== basename(file)), [], "no archive, no temporary file");
  // This session keeps just over half of its bytes on the active path: the rule's share says no.
  assert.match(runArchiver(file, "--if-worth", "0"), /quit: skipped: .*\n {2}at most \S+ KB of its \S+ KB \(4\d %\) would move; archiveOnExit archives a file when at least half of it would\n$/);
  // What /archive starts (no rule: the user saw the numbers and said yes) archives it; a second run is refused.
  assert.match(runArchiver(file), /quit: archived: .*\n {2}\S+\.jsonl: .* → .*\n/);
  assert.match(runArchiver(file), /quit: refused: .*\n {2}.*already archived/);
});
