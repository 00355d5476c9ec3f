// The archive notice's shim (pkg/archive-notice.js, its worker, archive.js's measureArchive) against a fake pi: when
// it reads, when it tells, once per session file, never on a stale session; the measure equals `archive --dry-run`.
// The real-host proof is tests/e2e/archive-notice.test.mjs (pi 1.6.0's TUI under tmux). Run `npm run build` first.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fakePi, loadPkg, sparseFile } from "./fake-pi.js";

fakePi("export const VERSION = '1.6.0';");
const core = await loadPkg("index-node.js");
const { installArchiveNotice, measureInWorker } = await loadPkg("archive-notice.js");
const { cliWords, measureArchive, nodeCommand } = await loadPkg("archive.js");
const REGISTRY = Symbol.for("pi-tree-navigator.registry");
const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));
const CLI = fileURLToPath(new URL("../../pkg/cli.js", import.meta.url));

const work = mkdtempSync(join(tmpdir(), "ptn-notice-unit-"));
test.after(() => rmSync(work, { recursive: true, force: true }));

/** A sparse file of `bytes` bytes: the notice stats it, the fake measure never reads it. */
const sized = (name, bytes) => sparseFile(join(work, name), bytes);

/** A fake pi with the events the notice uses, one session per `start(file)`; `notes` are the UI's notices. */
function setup({ hasUI = true, config = { archiveNotice: true }, env = {}, facts } = {}) {
  globalThis[REGISTRY] = undefined; // a fresh process's registry
  const handlers = {};
  const pi = { on: (event, fn) => (handlers[event] ??= []).push(fn) };
  const notes = [];
  const reads = [];
  const readFacts = async (file) => {
    reads.push(file);
    return facts?.(file) ?? null;
  };
  installArchiveNotice({ pi, core: () => core, configOf: () => config, env, readFacts });
  const emit = async (event, ctx) => {
    for (const fn of handlers[event] ?? []) fn({}, ctx);
    await new Promise((r) => setTimeout(r, 20)); // the check runs after session_start returns
  };
  const ctxOf = (file) => {
    const sm = { getSessionFile: () => file };
    return { sm, ctx: { hasUI, sessionManager: sm, ui: { notify: (text, level) => notes.push({ text, level }) } } };
  };
  return { emit, ctxOf, notes, reads };
}

const bigFacts = (file) => ({ fileBytes: 60e6, savedBytes: 45e6, file });

test("a big session: measured once, one info notice with the core's text; a reload or second resume says nothing new", async () => {
  const file = sized("big.jsonl", 60e6);
  const s = setup({ facts: bigFacts });
  const { ctx } = s.ctxOf(file);
  await s.emit("session_start", ctx);
  assert.deepEqual(s.reads, [file]);
  assert.equal(s.notes.length, 1);
  assert.equal(s.notes[0].level, "info");
  assert.equal(s.notes[0].text, core.archiveNotice(60e6, 45e6, file, cliWords(CLI)));
  await s.emit("session_start", s.ctxOf(file).ctx);
  assert.equal(s.reads.length, 1, "not measured again in this process");
  assert.equal(s.notes.length, 1, "one notice per session file");
});

test("nothing is read without a UI, with the notice off (config or env), for a small file, or for a new session", async () => {
  const big = sized("big2.jsonl", 60e6);
  const small = sized("small.jsonl", 49_999_999);
  const cases = [
    ["no UI", setup({ hasUI: false, facts: bigFacts }), big],
    ["config off", setup({ config: { archiveNotice: false }, facts: bigFacts }), big],
    ["config not loaded", setup({ config: null, facts: bigFacts }), big],
    ["env off", setup({ env: { PI_TREE_NAVIGATOR_NO_ARCHIVE_NOTICE: "1" }, facts: bigFacts }), big],
    ["under 50 MB", setup({ facts: bigFacts }), small],
    ["no file yet", setup({ facts: bigFacts }), join(work, "not-written-yet.jsonl")],
    ["in-memory session", setup({ facts: bigFacts }), undefined],
  ];
  for (const [what, s, file] of cases) {
    await s.emit("session_start", s.ctxOf(file).ctx);
    assert.deepEqual(s.reads, [], what);
    assert.deepEqual(s.notes, [], what);
  }
  // The env switch set to "0" or "false" is no switch (as the other features' switches).
  const on = setup({ env: { PI_TREE_NAVIGATOR_NO_ARCHIVE_NOTICE: "0" }, facts: bigFacts });
  await on.emit("session_start", on.ctxOf(big).ctx);
  assert.equal(on.notes.length, 1);
});

test("with PI_TREE_NAVIGATOR_DEBUG, one line per look says what it decided, once it is over", async () => {
  const log = join(work, "debug.log");
  const cases = [
    [{ facts: bigFacts }, sized("debug-big.jsonl", 60e6), "shown (60000000 bytes, 45000000 of them for the archive)"],
    [{ facts: () => ({ fileBytes: 60e6, savedBytes: 29e6 }) }, sized("debug-on-path.jsonl", 60e6), "not due (60000000 bytes, 29000000 of them for the archive)"],
    [{ facts: () => null }, sized("debug-refused.jsonl", 60e6), "not measured (archive would refuse the file, or it could not be read)"],
    [{ env: { PI_TREE_NAVIGATOR_NO_ARCHIVE_NOTICE: "1" }, facts: bigFacts }, sized("debug-off.jsonl", 60e6), "off"],
    [{ facts: bigFacts }, sized("debug-small.jsonl", 1000), "1000 bytes: too small to read"],
  ];
  for (const [options, file, want] of cases) {
    writeFileSync(log, "");
    const s = setup({ ...options, env: { ...options.env, PI_TREE_NAVIGATOR_DEBUG: log } });
    await s.emit("session_start", s.ctxOf(file).ctx);
    assert.equal(readFileSync(log, "utf8"), `[pi-tree-navigator] archive notice: ${want}\n`);
  }
});

test("not due (under half off the path, or archive would refuse the file): measured, nothing said", async () => {
  const file = sized("mostly-on-path.jsonl", 60e6);
  const s = setup({ facts: () => ({ fileBytes: 60e6, savedBytes: 29e6 }) });
  await s.emit("session_start", s.ctxOf(file).ctx);
  assert.equal(s.reads.length, 1);
  assert.deepEqual(s.notes, []);
  const refused = setup({ facts: () => null });
  await refused.emit("session_start", refused.ctxOf(sized("refused.jsonl", 60e6)).ctx);
  assert.deepEqual(refused.notes, []);
});

test("a session left while it was measured gets no notice there, and is measured again when resumed again", async () => {
  const file = sized("left.jsonl", 60e6);
  let release;
  const gate = new Promise((r) => (release = r));
  globalThis[REGISTRY] = undefined;
  const handlers = [];
  const notes = [];
  let reads = 0;
  installArchiveNotice({
    pi: { on: (event, fn) => event === "session_start" && handlers.push(fn) },
    core: () => core,
    configOf: () => ({ archiveNotice: true }),
    env: {},
    readFacts: async (f) => {
      reads++;
      await gate;
      return bigFacts(f);
    },
  });
  const sm = { getSessionFile: () => file };
  // The measure ends only after the user switched to another session: pi's getters on this ctx throw by then.
  const stale = {
    hasUI: true,
    gone: false,
    ui: { notify: (text) => notes.push(text) },
    get sessionManager() {
      if (stale.gone) throw new Error("This extension ctx is stale after session replacement or reload.");
      return sm;
    },
  };
  handlers[0]({}, stale);
  await new Promise((r) => setTimeout(r, 10)); // the measure is under way
  assert.equal(reads, 1);
  stale.gone = true;
  release();
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(notes, [], "no notice on a stale session");
  handlers[0]({}, { hasUI: true, sessionManager: sm, ui: { notify: (text) => notes.push(text) } });
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(reads, 2, "measured again when resumed again");
  assert.equal(notes.length, 1);
});

test("the measure waits for the resume read of the same file; a session left meanwhile is not read", async () => {
  const file = sized("after.jsonl", 60e6);
  for (const leave of [false, true]) {
    globalThis[REGISTRY] = undefined;
    let release;
    const resumeRead = new Promise((r) => (release = r));
    const handlers = [];
    const reads = [];
    const notes = [];
    installArchiveNotice({
      pi: { on: (event, fn) => event === "session_start" && handlers.push(fn) },
      core: () => core,
      configOf: () => ({ archiveNotice: true }),
      after: () => resumeRead,
      env: {},
      readFacts: async (f) => {
        reads.push(f);
        return bigFacts(f);
      },
    });
    const sm = { getSessionFile: () => (ctx.gone ? "/another/session.jsonl" : file) };
    const ctx = { hasUI: true, gone: false, sessionManager: sm, ui: { notify: (text) => notes.push(text) } };
    handlers[0]({}, ctx);
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(reads, [], "nothing read while the resume read runs");
    ctx.gone = leave;
    release();
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(reads, leave ? [] : [file], leave ? "left: not read" : "read once the resume read is done");
    assert.equal(notes.length, leave ? 0 : 1);
  }
});

/** A session whose first assistant reply (`bytes` characters) is off the active path: a later reply to the same prompt is the leaf. */
function offPathSession(bytes) {
  const at = (s) => `2026-01-01T00:00:0${s}.000Z`;
  const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  const reply = (id, text, s) => ({ type: "message", id, parentId: "u1", timestamp: at(s), message: { role: "assistant", content: [{ type: "text", text }], api: "faux", provider: "faux", model: "faux-1", usage, stopReason: "stop", timestamp: s } });
  return [
    { type: "session", version: 3, id: "s-big", timestamp: at(0), cwd: "/" },
    { type: "message", id: "u1", parentId: null, timestamp: at(1), message: { role: "user", content: "read it", timestamp: 1 } },
    reply("x1", "x".repeat(bytes), 2),
    reply("y1", "ok", 3),
  ].map((l) => `${JSON.stringify(l)}\n`).join("");
}

test("the measure is archive's: the same numbers as `archive --dry-run`, in the worker too (both numbers where the notice is due); refused files none", async () => {
  const dir = join(work, "measure");
  mkdirSync(dir);
  for (const name of ["compaction.jsonl", "branches.jsonl", "example.jsonl"]) {
    const file = join(dir, name);
    copyFileSync(join(FIXTURES, name), file);
    const r = spawnSync(process.execPath, [CLI, "archive", file, "--dry-run", "--json"], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    const dry = JSON.parse(r.stdout);
    const m = measureArchive(core, file);
    assert.equal(m.fileBytes, dry.original.bytes, name);
    assert.equal(m.savedBytes, dry.original.bytes - dry.main.bytes, name);
    // The worker measures the second pass only when the first says the notice may be due (never under 50 MB).
    assert.deepEqual(await measureInWorker(file), { fileBytes: dry.original.bytes, savedBytes: 0 }, name);
  }
  // A file the notice is due for (over 50 MB, nearly all of it off the active path): the worker's second pass runs,
  // and both its numbers are the dry run's.
  const big = join(dir, "big.jsonl");
  writeFileSync(big, offPathSession(52e6));
  const r = spawnSync(process.execPath, [CLI, "archive", big, "--dry-run", "--json"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const dry = JSON.parse(r.stdout);
  const saved = dry.original.bytes - dry.main.bytes;
  assert.ok(dry.original.bytes > 50e6 && saved > dry.original.bytes / 2, JSON.stringify(dry.plan));
  assert.deepEqual(await measureInWorker(big), { fileBytes: dry.original.bytes, savedBytes: saved });
  rmSync(big);
  // Refused by archive: an older format, a file archived already.
  const v1 = join(dir, "v1.jsonl");
  writeFileSync(v1, '{"type":"session","id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n{"type":"message","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}\n');
  assert.equal(measureArchive(core, v1), null);
  assert.equal(await measureInWorker(v1), null);
  const archived = join(dir, "compaction.jsonl");
  writeFileSync(`${archived}.archive`, "");
  assert.equal(measureArchive(core, archived), null);
  assert.equal(await measureInWorker(join(dir, "missing.jsonl")), null, "a file that cannot be read");
});

test("the CLI's words: its command name when the PATH finds this very cli.js, else Node and the script's path", () => {
  const bin = join(work, "bin");
  mkdirSync(bin);
  symlinkSync(process.execPath, join(bin, "node"));
  assert.equal(nodeCommand(process.execPath, `/nonexistent:${bin}`), "node");
  const other = join(work, "other");
  mkdirSync(other);
  writeFileSync(join(other, "node"), "#!/bin/sh\n");
  chmodSync(join(other, "node"), 0o755);
  assert.equal(nodeCommand(process.execPath, `${other}:${bin}`), process.execPath, "the first node on the PATH is another one");
  assert.equal(nodeCommand(process.execPath, ""), process.execPath);
  // Not run by a `node` binary (a bundled pi, Bun): plain `node`.
  assert.equal(nodeCommand("/usr/local/bin/pi", ""), "node");
  // npm's "bin" link on the PATH to this package's cli.js: the command name; to another copy, or none: node + path.
  assert.deepEqual(cliWords(CLI, { path: bin }), ["node", CLI]);
  symlinkSync(CLI, join(bin, "pi-tree-navigator"));
  assert.deepEqual(cliWords(CLI, { path: bin }), ["pi-tree-navigator"]);
  assert.deepEqual(cliWords(join(bin, "pi-tree-navigator"), { path: bin }), ["pi-tree-navigator"]);
  const elsewhere = join(work, "elsewhere");
  mkdirSync(elsewhere);
  writeFileSync(join(elsewhere, "pi-tree-navigator"), "#!/bin/sh\n");
  assert.deepEqual(cliWords(CLI, { path: `${elsewhere}:${bin}` }), ["node", CLI]);
});
