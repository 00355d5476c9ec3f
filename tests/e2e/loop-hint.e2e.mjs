// The loop hint (issue 41) inside a real pi AgentSession, per host (faux model, offline), with pi's real `bash` and
// `edit` tools on real files:
// - the same failing build three times: the hint is in the request right after the third failure, exactly once;
//   the model takes the ready rewind the hint
//   spells out, to the anchor it names, and the rewind succeeds with the build's error line in the summary's ledger;
// - three different edits into one compiler error (each build's output differs): the same-error loop, its hint
//   names the error line; the rewind succeeds;
// - a loop completed in the turn that also crosses the context-pressure threshold: both hints, each once, the loop
//   hint in the very next request;
// - switched off by `"loopHint": "off"` and by PI_TREE_NAVIGATOR_NO_LOOP_HINT: no hint (each with the run that
//   gets one otherwise);
// - no anchor before the loop: the hint without the rewind, and a note for the user;
// - a host that cannot steer: the hint as a session entry.
// Run per host by tests/e2e/e2e.test.mjs.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import test from "node:test";
import { assertAllPaired, resultEntry } from "./lib/checks.mjs";
import { createSession, loadHost, ScriptedModel, testDir, useAgentDir } from "./lib/harness.mjs";
import { wrappedExtension } from "./lib/wrap.mjs";
import { FIXTURES, PKG_DIR } from "./lib/hosts.mjs";

// The driver switches the pressure hint off for the older scenarios; the first test here wants it. The automatic
// start anchor and the cache-preserving summary stay off (as the driver has them, also when run alone): the anchors
// are the model's, and the summary request goes to the summarizer's script.
delete process.env.PI_TREE_NAVIGATOR_NO_HINT;
delete process.env.PI_TREE_NAVIGATOR_NO_LOOP_HINT;
process.env.PI_TREE_NAVIGATOR_NO_START_ANCHOR = "1";
process.env.PI_TREE_NAVIGATOR_NO_CACHE_SUMMARY = "1";
const host = await loadHost();
const TOOLS = ["navigate_tree", "bash", "edit", "read"];
const LOOP = "[loop] ";
const PRESSURE = "[context ";
const ERROR = "error[E0308]: mismatched types";
/** A build log of ~41k characters (~10k tokens: work worth a rewind), then the error, exit 1: the same every run. */
const BUILD = `for i in $(seq 1 650); do echo "   Compiling dependency-$i v0.1.0 (/work/deps/dependency-$i)"; done; printf '${ERROR}\\n  --> src/main.rs:2:5\\n'; exit 1`;
/** A build whose log names the source's size (each edit changes it): the output differs, the error line does not. */
const SIZED_BUILD = `echo "   Compiling app v0.1.0 ($(wc -c < src/main.rs) bytes)"; for i in $(seq 1 300); do echo "   checking module $i of app"; done; printf '${ERROR}\\n  --> src/main.rs:2:5\\n'; exit 1`;
const SUMMARY = "## Goal\nFix the build.\n## Progress\n### Done\n- tried the build\n## Next Steps\n1. another approach";

const textOf = (m) => (typeof m.content === "string" ? m.content : (m.content ?? []).map((c) => c.text ?? "").join(""));
/** The messages of a request that carry `mark`. */
const carrying = (request, mark) => request.messages.filter((msg) => textOf(msg).includes(mark));
const loopEntries = (sm) => sm.getEntries().filter((e) => e.type === "custom_message" && e.customType === "tree-navigator-loop");

/** The rewind the hint spells out, as the model would send it: `{labelStart, labelEnd, summaryFocus}` or null. */
function readyRewind(request) {
  const hint = carrying(request, LOOP).map(textOf).at(-1) ?? "";
  const m = hint.match(/navigate_tree\(action='rewind', labelStart='([^']+)', labelEnd='([^']+)', summaryFocus='([^']+)'\)/);
  return m ? { action: "rewind", labelStart: m[1], labelEnd: m[2], summaryFocus: m[3] } : null;
}

/**
 * A session in a work folder with src/main.rs; `config`: tree-navigator.json; `steps`: the model's script (tool
 * call tuples `[name, args, id]` or lists of them, strings for text, functions of the request). `extension`: the package
 * or a wrapper (`extensions`, `tools`: more).
 */
async function start(t, steps, { config = null, extension = PKG_DIR, extensions = [extension], tools = TOOLS } = {}) {
  const made = testDir(t, "ptn-loop-");
  const agentDir = join(made.dir, "agent");
  const cwd = join(made.dir, "cwd");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(join(cwd, "src"), { recursive: true });
  writeFileSync(join(cwd, "src/main.rs"), "fn main() {\n    let x: u32 = \"one\";\n}\n");
  useAgentDir(t, agentDir, config);
  const m = new ScriptedModel(host);
  // A step: text, a function of the request, one call `[name, args, id]`, or several calls in one message.
  for (const s of steps) m.agent.push(typeof s === "string" ? m.text(s) : typeof s === "function" ? s : m.calls(Array.isArray(s[0]) ? s : [s]));
  m.summary.push(m.text(SUMMARY));
  const s = (made.session = await createSession(host, m, { extensions, tools, cwd }));
  return { m, s, sm: s.sm };
}

/** The model's step that takes the ready rewind from the hint (or says it found none). */
const takeTheRewind = (m, box) => (request) => {
  box.rewind = readyRewind(request);
  return box.rewind ? m.calls([["navigate_tree", box.rewind, "rw"]]) : m.text("no rewind in the hint");
};

test("the same failing build three times: one hint right after the third, the ready rewind succeeds", async (t) => {
  const box = {};
  const build = (id) => ["bash", { command: BUILD }, id];
  const { m, s, sm } = await start(
    t,
    [["navigate_tree", { action: "anchor", name: "before-build" }, "a1"], build("b1"), build("b2"), build("b3"), (r) => takeTheRewind(m, box)(r), "stopped"],
  );
  await s.session.prompt("build the app");
  assert.equal(m.requests.length, 6);
  const loops = m.requests.map((r) => carrying(r, LOOP).length);
  // Requests 1–4 precede the third failure's turn; the hint is steered in after it and stays in the history.
  assert.deepEqual(loops.slice(0, 5), [0, 0, 0, 0, 1], `loop hints per request: ${loops}`);
  const hint = textOf(carrying(m.requests[4], LOOP)[0]);
  assert.match(hint, /You have called bash `for i in \$\(seq 1 650\).*` 3 times and it failed each time with: error\[E0308\]: mismatched types --> src\/main\.rs:2:5/);
  assert.ok(hint.includes("rewind to 'before-build', the newest anchor before it"), hint);
  assert.equal(loopEntries(sm).length, 1, "one hint in the session");
  assert.equal(loopEntries(sm)[0].details?.anchor, "before-build");
  // The model's rewind, exactly as the hint wrote it, succeeded.
  assert.deepEqual([box.rewind.labelStart, box.rewind.labelEnd], ["before-build", "loop-exit"]);
  const result = resultEntry(sm, "rw");
  assert.notEqual(result.isError, true, textOf(result));
  assert.match(textOf(result), /rewind 'before-build' → 'loop-exit'/);
  const summary = sm.getEntries().find((e) => e.type === "branch_summary");
  assert.ok(summary.summary.includes("<ledger>") && summary.summary.includes(`${ERROR} --> src/main.rs:2:5`), "the ledger carries the error line");
  // The request after the rewind: the summary, not the three builds (nor the hint, which was collapsed with them).
  const after = m.requests[5];
  assert.equal(carrying(after, "Compiling dependency-17 ").length, 0);
  assert.equal(carrying(after, LOOP).length, 0);
  assertAllPaired(m);
});

test("three different edits into one compiler error: the same-error loop, its hint names the line", async (t) => {
  const box = {};
  const edit = (from, to, id) => ["edit", { path: "src/main.rs", edits: [{ oldText: from, newText: to }] }, id];
  const build = (id) => ["bash", { command: SIZED_BUILD }, id];
  const { m, s, sm } = await start(t, [
    ["navigate_tree", { action: "anchor", name: "before-fix" }, "a1"],
    edit('"one"', '"1"', "e1"),
    build("b1"),
    edit('"1"', "1u64", "e2"),
    build("b2"),
    edit("1u64", "1_000_i32", "e3"),
    build("b3"),
    (r) => takeTheRewind(m, box)(r),
    "stopped",
  ]);
  await s.session.prompt("fix the type error");
  // The edits were real and each build's output differed (the source's size).
  const outputs = ["b1", "b2", "b3"].map((id) => textOf(resultEntry(sm, id)).split("\n")[0]);
  assert.equal(new Set(outputs).size, 3, outputs.join(" | "));
  const loops = m.requests.map((r) => carrying(r, LOOP).length);
  assert.deepEqual(loops.slice(0, 8), [0, 0, 0, 0, 0, 0, 0, 1], `loop hints per request: ${loops}`);
  const hint = textOf(carrying(m.requests[7], LOOP)[0]);
  assert.match(hint, /3 times and it failed each time with: error\[E0308\]: mismatched types --> src\/main\.rs:2:5/);
  assert.equal(loopEntries(sm).length, 1);
  assert.equal(box.rewind?.labelStart, "before-fix");
  assert.notEqual(resultEntry(sm, "rw").isError, true, textOf(resultEntry(sm, "rw")));
  assert.ok(sm.getEntries().find((e) => e.type === "branch_summary").summary.includes(ERROR));
  assertAllPaired(m);
});

test("a loop and a pressure crossing in one turn: both hints, each once; the loop hint in the very next request", async (t) => {
  // Three different small builds failing with one error; the third comes with bulky work that crosses 20% of 128k.
  const build = (n, id) => ["bash", { command: `echo "build ${n}"; printf '${ERROR}\\n'; exit 1` }, id];
  const { m, s, sm } = await start(
    t,
    [["navigate_tree", { action: "anchor", name: "start" }, "a1"], build(1, "b1"), build(2, "b2"), [["bulk_read", { chars: 100_000, tag: "big" }, "r3"], build(3, "b3")], "stopped", "stopped"],
    { config: { contextHint: 20 }, extensions: [PKG_DIR, join(FIXTURES, "bulk-ext/index.js")], tools: [...TOOLS, "bulk_read"] },
  );
  await s.session.prompt("build the app");
  const loops = m.requests.map((r) => carrying(r, LOOP).length);
  const pressure = m.requests.map((r) => carrying(r, PRESSURE).length);
  assert.deepEqual(loops.slice(0, 5), [0, 0, 0, 0, 1], `loop hints per request: ${loops}`);
  // Both were steered in the same turn, the loop hint first: pi delivers steered messages one per request (its
  // default \`steeringMode\`), so the pressure hint comes with this request or the next — once, either way.
  assert.deepEqual(pressure.slice(0, 4), [0, 0, 0, 0], `pressure hints per request: ${pressure}`);
  assert.ok(pressure[4] + (pressure[5] ?? 0) >= 1 && pressure.every((n) => n <= 1), `pressure hints per request: ${pressure}`);
  const ofType = (type) => sm.getEntries().filter((e) => e.type === "custom_message" && e.customType === type).length;
  assert.deepEqual([ofType("tree-navigator-loop"), ofType("tree-navigator-pressure")], [1, 1]);
  assertAllPaired(m);
});

/** Three identical failing builds and the end: the number of loop hints the run got. */
async function threeBuilds(t, options) {
  const build = (id) => ["bash", { command: BUILD }, id];
  const { m, s, sm } = await start(t, [["navigate_tree", { action: "anchor", name: "start" }, "a1"], build("b1"), build("b2"), build("b3"), "stopped"], options);
  await s.session.prompt("build the app");
  assert.equal(m.requests.length, 5);
  return { hints: m.requests.reduce((n, r) => n + carrying(r, LOOP).length, 0), entries: loopEntries(sm).length, m };
}

test("loopHint 'off' in tree-navigator.json: no hint (the same run gets one by default)", async (t) => {
  assert.deepEqual(await threeBuilds(t, { config: { loopHint: "off" } }).then(({ hints, entries }) => [hints, entries]), [0, 0]);
  const on = await threeBuilds(t, {});
  assert.deepEqual([on.hints, on.entries], [1, 1], "without the switch the same run gets its hint");
  // loopHint 4: three failures are no loop yet.
  assert.deepEqual(await threeBuilds(t, { config: { loopHint: 4 } }).then(({ hints }) => hints), 0);
});

test("PI_TREE_NAVIGATOR_NO_LOOP_HINT=1: no hint", async (t) => {
  process.env.PI_TREE_NAVIGATOR_NO_LOOP_HINT = "1";
  t.after(() => delete process.env.PI_TREE_NAVIGATOR_NO_LOOP_HINT);
  const off = await threeBuilds(t, {});
  assert.deepEqual([off.hints, off.entries], [0, 0]);
});

test("no anchor before the loop: the hint without a rewind, and a note for the user", async (t) => {
  const build = (id) => ["bash", { command: BUILD }, id];
  const { m, s } = await start(t, [build("b1"), build("b2"), build("b3"), "stopped"], { extension: wrappedExtension(t, { ui: true }) });
  await s.session.prompt("build the app");
  const hints = carrying(m.requests[3], LOOP).map(textOf);
  assert.equal(hints.length, 1);
  assert.ok(!hints[0].includes("navigate_tree("), hints[0]);
  assert.match(hints[0], /Take a different approach, or ask the user\.$/);
  const notes = globalThis.__ptnWrap.notes.filter((n) => n.text.includes("no anchor before the loop"));
  assert.equal(notes.length, 1, JSON.stringify(globalThis.__ptnWrap.notes));
});

test("a host that cannot steer gets the hint as a session entry", async (t) => {
  const build = (id) => ["bash", { command: BUILD }, id];
  const { m, s, sm } = await start(t, [["navigate_tree", { action: "anchor", name: "start" }, "a1"], build("b1"), build("b2"), build("b3"), "stopped"], {
    extension: wrappedExtension(t, { throwingSend: true }),
  });
  await s.session.prompt("build the app");
  assert.equal(globalThis.__ptnWrap.sends, 1, "one loop, one attempt to steer");
  assert.equal(loopEntries(sm).length, 1, "stored once, as a custom message the next context carries");
  assert.match(textOf(loopEntries(sm)[0]), /^\[loop\] You have called bash/);
  assert.equal(m.requests.length, 5, "the run is not disturbed");
  assertAllPaired(m);
});
