// The fault matrix (issue 6): every host call navigate_tree makes fails in turn, inside a real pi
// AgentSession (faux model), with a session FILE. Run per host by tests/e2e/e2e.test.mjs.
//
// Each cell scripts: anchor `a` → 40k chars of work → the faulty call (c3) → list (c4) → "ok", then a
// second prompt. The fault is armed only while c3 runs (between pi's `tool_execution_start` and
// `tool_execution_end` events), so pi's own writes around it succeed. For every cell:
//   1. the tool result says what failed (and the model saw a failed call);
//   2. the next model request passes the strict tool_use/tool_result pairing check (every request does);
//   3. no entry that existed before the call is lost — in memory, and in the file as pi reopens it;
//   4. the file still loads in pi (SessionManager.open; its context passes the pairing check) and in our
//      CLI (`node pkg/cli.js stats <file> --json` exits 0);
//   5. pi's loop continues: the scripted run goes on past c3, and a second prompt() works.
//
// Faults: a throwing call (setLabel, branchWithSummary, appendMessage, auth); the summarizer (provider
// error, thrown, aborted, empty, slow then aborted by the user); the session file write on a full disk
// (the file is swapped for a symlink to /dev/full: real ENOSPC from the kernel) and on a read-only file
// (EACCES from chmod when not root; as root, where permissions do not apply, fs's write functions throw
// EROFS); a real wasm trap (wasm-bindgen's table of JS values grown from JS behind the instance's back, so its
// next call that holds a JS value aborts: `unreachable`, as a Rust panic is), before and after the tree moved.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs, { chmodSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "node:test";
import { pathToFileURL } from "node:url";
import { assertAllPaired, assertPaired, entriesOfType, labelsOf, resultEntry, resultText, toolResult } from "./lib/checks.mjs";
import { createSession, loadHost, ScriptedModel } from "./lib/harness.mjs";
import { FIXTURES, PKG_DIR } from "./lib/hosts.mjs";

const host = await loadHost();
const EXTENSIONS = [PKG_DIR, join(FIXTURES, "bulk-ext/index.js")];
const TOOLS = ["navigate_tree", "bulk_read"];
const FOCUS = "User asked: 'build the parser'. Done: read the input data. Left: write the tests.";
const SUMMARY = "## Goal\nBuild the parser\n## Progress\n### Done\n- read the input data (MARK-SUMMARY)";
const REGISTRY = Symbol.for("pi-tree-navigator.registry");

const anchor = (name, id) => ["navigate_tree", { action: "anchor", name }, id];
const rewind = (id) => ["navigate_tree", { action: "rewind", labelStart: "a", labelEnd: "b", summaryFocus: FOCUS }, id];
const list = (id) => ["navigate_tree", { action: "list" }, id];
const bulk = (chars, id) => ["bulk_read", { chars, tag: "bulk" }, id];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * A file-backed session whose faulty call is `fault.call` (default: the rewind c3). `fault.arm(env)` runs
 * when c3 starts (returns a disarm function, run when c3 ends).
 */
async function start(t, { call = rewind("c3"), summaries = [SUMMARY], arm, moreSteps = [list("c4"), "ok"] } = {}) {
  const m = new ScriptedModel(host);
  for (const s of [anchor("a", "c1"), bulk(40000, "c2"), call, ...moreSteps]) m.agent.push(typeof s === "string" ? m.text(s) : m.calls([s]));
  for (const s of summaries) m.summary.push(typeof s === "string" ? m.text(s) : s);
  const dir = mkdtempSync(join(tmpdir(), `ptn-faults-${host.version}-`));
  const cwd = join(dir, "cwd");
  const sessionDir = join(dir, "sessions");
  fs.mkdirSync(cwd, { recursive: true });
  fs.mkdirSync(sessionDir, { recursive: true });
  const sm = host.pca.SessionManager.create(cwd, sessionDir);
  const s = await createSession(host, m, { extensions: EXTENSIONS, tools: TOOLS, sessionManager: sm, cwd });
  const env = { m, s, sm: s.sm, dir, sessionDir, before: null, file: null, windowRan: false };
  let disarm;
  const unsubscribe = s.session.subscribe((event) => {
    if (event.toolCallId !== "c3") return;
    if (event.type === "tool_execution_start") {
      env.before = env.sm.getEntries().map((e) => e.id);
      env.file = env.sm.getSessionFile();
      env.windowRan = true;
      disarm = arm?.(env);
    } else if (event.type === "tool_execution_end") {
      disarm?.();
      disarm = undefined;
    }
  });
  t.after(() => {
    unsubscribe?.();
    disarm?.();
    try {
      chmodSync(sessionDir, 0o755);
    } catch {}
    s.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  return env;
}

/** Replaces `obj[name]` until the returned function is called. */
function patch(obj, name, replacement) {
  const had = Object.prototype.hasOwnProperty.call(obj, name);
  const original = obj[name];
  obj[name] = replacement(original);
  return () => {
    if (had) obj[name] = original;
    else delete obj[name];
  };
}

/** The session file on a full disk: swapped for a symlink to /dev/full (ENOSPC from the kernel). */
function fullDisk(env) {
  const file = env.file;
  renameSync(file, `${file}.real`);
  symlinkSync("/dev/full", file);
  return () => {
    unlinkSync(file);
    renameSync(`${file}.real`, file);
  };
}

/** The session file read-only: chmod (EACCES) as a normal user; as root, fs's writes throw EROFS. */
function readOnly(env) {
  const file = env.file;
  if (process.getuid?.() !== 0) {
    chmodSync(file, 0o444);
    chmodSync(env.sessionDir, 0o555);
    return () => {
      chmodSync(env.sessionDir, 0o755);
      chmodSync(file, 0o644);
    };
  }
  const erofs = (p) => Object.assign(new Error(`EROFS: read-only file system, open '${p}'`), { code: "EROFS", errno: -30, syscall: "open", path: p });
  const targets = (p) => typeof p === "string" && p === file;
  const undo = ["appendFileSync", "writeFileSync", "openSync"].map((name) =>
    patch(fs, name, (original) => (p, ...rest) => {
      if (targets(p)) throw erofs(p);
      return original(p, ...rest);
    }),
  );
  syncBuiltinESMExports();
  return () => {
    for (const u of undo) u();
    syncBuiltinESMExports();
  };
}

/**
 * The wasm exports of the instance the extension uses. pi imports the package natively, so every load in
 * this process shares the instance of `pkg/load-node.js` (the package's one wasm) — unless a trap replaced it (registry.liveCore).
 * An initialised wasm-bindgen glue returns its exports from `initSync()`.
 */
const packageCore = await import(pathToFileURL(join(PKG_DIR, "load-node.js")).href);
function extensionExports() {
  const reg = globalThis[REGISTRY];
  const live = reg?.liveCore && !reg.retiredCores.has(reg.liveCore.SessionIndex) ? reg.liveCore : packageCore;
  return live.initSync();
}

/**
 * Makes the instance trap at its next call that holds a JS value (nearly every call: an argument, or the result it
 * builds). wasm-bindgen keeps JS values in a table whose slots its slab hands out, growing the table when the slab
 * is full and aborting (`unreachable`) when the table grew by other hands in between: so the slab is filled to
 * its capacity (allocate until the table grows, which shows the new capacity, then the rest), and the table grown
 * by one slot here.
 */
function breakSlots(exports) {
  const table = exports.__wbindgen_externrefs;
  const length = table.length;
  while (table.length === length) exports.__externref_table_alloc();
  for (let left = table.length - length - 1; left > 0; left--) exports.__externref_table_alloc();
  table.grow(1);
}

/** Checks 1–5 for the cell. `expect`: what the failed result must say. */
async function verify(env, expect, { rewound = false } = {}) {
  const { m, s, sm } = env;
  assert.ok(env.windowRan, "the faulty call ran");
  // 1. the tool result says what failed; the model saw a failed call
  const result = resultEntry(sm, "c3");
  assert.ok(result, "c3 has a result");
  assert.equal(result.isError, true, "c3 failed");
  assert.match(resultText(sm, "c3"), expect);
  const seen = toolResult(m, "c3");
  assert.ok(seen, "the next request carried c3's result");
  assert.equal(seen.isError, true);
  // 2. strict pairing on every request (the one after c3 included)
  assertAllPaired(m);
  // 3. nothing that existed before the call is lost (memory and file)
  const now = new Set(sm.getEntries().map((e) => e.id));
  for (const id of env.before) assert.ok(now.has(id), `entry ${id} lost in memory`);
  const reopened = host.pca.SessionManager.open(env.file);
  const onDisk = new Set(reopened.getEntries().map((e) => e.id));
  for (const id of env.before) assert.ok(onDisk.has(id), `entry ${id} lost in the file`);
  // 4. the file loads in pi (its context pairs) and in our CLI
  const diskContext = reopened.buildSessionContext().messages.filter((msg) => msg.role !== "system");
  assertPaired({ messages: diskContext }, "the reopened file's context");
  for (const e of reopened.getEntries()) {
    if (e.parentId) assert.ok(onDisk.has(e.parentId), `entry ${e.id} in the file has a missing parent ${e.parentId}`);
  }
  const cli = spawnSync(process.execPath, [join(PKG_DIR, "cli.js"), "stats", env.file, "--json"], { encoding: "utf8" });
  assert.equal(cli.status, 0, `cli stats: ${cli.stderr}`);
  const stats = JSON.parse(cli.stdout);
  assert.equal(stats.entries, reopened.getEntries().length);
  const activeSummary = reopened.getBranch().some((e) => e.type === "branch_summary");
  assert.equal(activeSummary, rewound, "whether the rewind stands in the file");
  // 5. the loop continued past c3 (c4 ran) and a second prompt works
  assert.ok(resultEntry(sm, "c4"), "the run continued to c4");
  assert.equal(resultEntry(sm, "c4").isError, false, resultText(sm, "c4"));
  const requests = m.requests.length;
  m.agent.push(m.text("second prompt answered"));
  await s.session.prompt("and now?");
  assert.equal(m.requests.length, requests + 1);
  assertAllPaired(m);
  return { reopened };
}

const mark = (name) => `${host.version}: ${name}`;

// --- setLabel ---------------------------------------------------------------------------------------

test(mark("anchor: setLabel throws → anchor not set, nothing else changed"), async (t) => {
  const env = await start(t, {
    call: anchor("b", "c3"),
    arm: ({ sm }) => patch(sm, "appendLabelChange", () => () => { throw new Error("label store unavailable"); }),
  });
  await env.s.session.prompt("build it");
  await verify(env, /^The anchor may not have been saved: writing its label failed \(label store unavailable\)/);
  assert.equal(labelsOf(env.sm).has("anchor:b"), false);
});

test(mark("anchor: label write hits a full disk → leaf restored, the file never gets a child of the lost entry"), async (t) => {
  const env = await start(t, { call: anchor("b", "c3"), arm: fullDisk });
  await env.s.session.prompt("build it");
  await verify(env, /writing its label failed \(ENOSPC: no space left on device/);
});

test(mark("rewind: setLabel throws after the branch → summary kept, chain repaired, error names the labels"), async (t) => {
  const env = await start(t, {
    arm: ({ sm }) => patch(sm, "appendLabelChange", () => () => { throw new Error("label store unavailable"); }),
  });
  await env.s.session.prompt("build it");
  await verify(env, /^The rewind's summary was written, but writing the anchor labels failed: label store unavailable/, { rewound: true });
});

// --- branchWithSummary ------------------------------------------------------------------------------

test(mark("rewind: branchWithSummary throws before moving → session unchanged"), async (t) => {
  const env = await start(t, {
    arm: ({ sm }) => patch(sm, "branchWithSummary", () => () => { throw new Error("branch refused"); }),
  });
  await env.s.session.prompt("build it");
  await verify(env, /^The rewind failed: moving the tree failed \(branch refused\)\. The session was not changed\.$/);
  assert.equal(entriesOfType(env.sm, "branch_summary").length, 0);
});

test(mark("rewind: branchWithSummary hits a full disk (moved in memory, not written) → rewind undone"), async (t) => {
  const env = await start(t, { arm: fullDisk });
  await env.s.session.prompt("build it");
  await verify(env, /^The rewind failed while writing the session \(ENOSPC: no space left on device[^)]*\) and was undone/);
});

test(mark("rewind: the session file is read-only → rewind undone"), async (t) => {
  const env = await start(t, { arm: readOnly });
  await env.s.session.prompt("build it");
  await verify(env, /^The rewind failed while writing the session \((EROFS: read-only file system|EACCES: permission denied)[^)]*\) and was undone/);
});

// --- appendMessage ----------------------------------------------------------------------------------

test(mark("rewind: appendMessage (the synthetic call) throws → rewind undone, the result pairs with the original call"), async (t) => {
  const env = await start(t, {
    arm: ({ sm }) =>
      patch(sm, "appendMessage", (original) => function (message) {
        if (message?.role === "assistant" && message.usage?.input === 0) throw new Error("append refused");
        return original.call(this, message);
      }),
  });
  await env.s.session.prompt("build it");
  await verify(env, /^The rewind failed while writing the session \(append refused\) and was undone/);
  // The summary stays in memory on a side branch; the active path is the old one.
  const active = new Set(env.sm.getBranch().map((e) => e.id));
  assert.ok(entriesOfType(env.sm, "branch_summary").every((e) => !active.has(e.id)));
});

// --- the summarizer ---------------------------------------------------------------------------------

test(mark("summarizer: provider error → refused, session unchanged"), async (t) => {
  const env = await start(t, { summaries: [] });
  env.m.summary.push(env.m.error("provider exploded"));
  await env.s.session.prompt("build it");
  await verify(env, /^Summarization failed: .*provider exploded.*The session was not changed\.$/s);
});

test(mark("summarizer: the provider throws → refused, session unchanged"), async (t) => {
  const env = await start(t, { summaries: [] });
  env.m.summary.push(() => {
    throw new Error("socket hang up");
  });
  await env.s.session.prompt("build it");
  await verify(env, /^Summarization failed: .*socket hang up.*The session was not changed\.$/s);
});

test(mark("summarizer: aborted → refused, session unchanged"), async (t) => {
  const env = await start(t, { summaries: [] });
  env.m.summary.push(env.m.aborted());
  await env.s.session.prompt("build it");
  await verify(env, /^Summarization aborted\.$/);
});

test(mark("summarizer: empty summary → refused, session unchanged"), async (t) => {
  const env = await start(t, { summaries: [""] });
  await env.s.session.prompt("build it");
  await verify(env, /^Summarization failed: the summary is empty\. The session was not changed\.$/);
});

test(mark("summarizer: slow, then the user aborts → refused, run ends, next prompt works"), async (t) => {
  const env = await start(t, { summaries: [], moreSteps: [] });
  env.m.summary.push(async (_request, h) => {
    setTimeout(() => void env.s.session.abort(), 50);
    await sleep(400);
    return h.ai.fauxAssistantMessage("## Goal\nlate summary");
  });
  await env.s.session.prompt("build it");
  // The run was aborted: c4 never ran. Check 1–4 by hand, then 5 with a new prompt.
  assert.match(resultText(env.sm, "c3"), /^Summarization aborted\.$/);
  assert.equal(resultEntry(env.sm, "c3").isError, true);
  assert.equal(entriesOfType(env.sm, "branch_summary").length, 0);
  const now = new Set(env.sm.getEntries().map((e) => e.id));
  for (const id of env.before) assert.ok(now.has(id));
  env.m.agent.push(env.m.calls([list("c4")]), env.m.text("ok"));
  await env.s.session.prompt("continue");
  assert.equal(resultEntry(env.sm, "c4").isError, false);
  assertAllPaired(env.m);
  const reopened = host.pca.SessionManager.open(env.file);
  assertPaired({ messages: reopened.buildSessionContext().messages.filter((msg) => msg.role !== "system") });
  assert.equal(spawnSync(process.execPath, [join(PKG_DIR, "cli.js"), "stats", env.file], { encoding: "utf8" }).status, 0);
});

// --- auth -------------------------------------------------------------------------------------------

test(mark("auth: getApiKeyAndHeaders throws → refused before summarizing"), async (t) => {
  const env = await start(t, {
    arm: () => patch(host.pca.ModelRegistry.prototype, "getApiKeyAndHeaders", () => async () => { throw new Error("keychain locked"); }),
  });
  await env.s.session.prompt("build it");
  await verify(env, /credentials did not resolve \(keychain locked\)\. The session was not changed\.$/);
  assert.equal(env.m.summaryRequests.length, 0);
});

test(mark("auth: no credentials (ok: false) → refused before summarizing"), async (t) => {
  const env = await start(t, {
    arm: () => patch(host.pca.ModelRegistry.prototype, "getApiKeyAndHeaders", () => async () => ({ ok: false, error: 'No API key found for "faux"' })),
  });
  await env.s.session.prompt("build it");
  await verify(env, /credentials did not resolve \(No API key found for "faux"\)/);
  assert.equal(env.m.summaryRequests.length, 0);
});

// --- the wasm core traps ----------------------------------------------------------------------------

test(mark("wasm trap while planning (real trap in pi's own load of the extension) → error, core restarted, next call works"), async (t) => {
  const env = await start(t, { call: list("c3"), arm: () => breakSlots(extensionExports()) });
  const restarts = globalThis[REGISTRY].stats.coreRestarts;
  await env.s.session.prompt("build it");
  await verify(env, /^navigate_tree failed: its WebAssembly core crashed on this call \(RuntimeError: unreachable\)\. Nothing was written\. The core was restarted and its index rebuilt from the session \(\d+ entries\)/);
  assert.equal(globalThis[REGISTRY].stats.coreRestarts, restarts + 1);
  assert.match(resultText(env.sm, "c4"), /\[list\] · 1 anchor/, "the rebuilt index knows the anchor");
});

test(mark("wasm trap after the tree moved → summary kept, chain repaired, core restarted"), async (t) => {
  const env = await start(t, {
    arm: (e) =>
      patch(e.sm, "branchWithSummary", (original) => function (...args) {
        const id = original.apply(this, args);
        breakSlots(extensionExports()); // rewindFinish, the next call into wasm, traps
        return id;
      }),
  });
  await env.s.session.prompt("build it");
  await verify(env, /^The rewind's summary was written, but reading the new summary back failed: unreachable/, { rewound: true });
});
