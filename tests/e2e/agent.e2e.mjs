// Guidance, context-pressure hint, automatic start anchor and the config file, inside a real pi
// AgentSession (faux model, offline). Run per host by tests/e2e/e2e.test.mjs.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import test from "node:test";
import { assertAllPaired, labelsOf, resultText } from "./lib/checks.mjs";
import { createSession, loadHost, ScriptedModel, testDir } from "./lib/harness.mjs";
import { wrappedExtension } from "./lib/wrap.mjs";
import { FIXTURES, PKG_DIR } from "./lib/hosts.mjs";

// The driver switches the start anchor off for the older scenarios; these tests are about it.
for (const k of ["PI_TREE_NAVIGATOR_NO_START_ANCHOR", "PI_TREE_NAVIGATOR_NO_HINT", "PI_TREE_NAVIGATOR_NO_CACHE_SUMMARY"]) delete process.env[k];
const host = await loadHost();
const EXTENSIONS = [PKG_DIR, join(FIXTURES, "bulk-ext/index.js")];
const TOOLS = ["navigate_tree", "bulk_read"];
const GUIDANCE = "Context management: before bulky work";
const HINT = "[context ";

const bulk = (chars, id) => ["bulk_read", { chars, tag: id }, id];
const anchor = (name, id) => ["navigate_tree", { action: "anchor", name }, id];

/** A session whose agent dir / project hold the given config files (`null`: no file). */
async function start(t, steps, { globalConfig = null, projectConfig = null } = {}) {
  const made = testDir(t, "ptn-agent-");
  const dirs = made.dir;
  const agentDir = join(dirs, "agent");
  const cwd = join(dirs, "cwd");
  mkdirSync(join(cwd, ".pi"), { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  if (globalConfig !== null) writeFileSync(join(agentDir, "tree-navigator.json"), globalConfig);
  if (projectConfig !== null) writeFileSync(join(cwd, ".pi", "tree-navigator.json"), projectConfig);
  const before = process.env.PI_CODING_AGENT_DIR;
  process.env.PI_CODING_AGENT_DIR = agentDir; // pi's getAgentDir() reads it: the global layer
  t.after(() => {
    if (before === undefined) delete process.env.PI_CODING_AGENT_DIR;
    else process.env.PI_CODING_AGENT_DIR = before;
  });
  const m = new ScriptedModel(host);
  for (const s of steps) m.agent.push(typeof s === "string" ? m.text(s) : m.calls([s]));
  const s = (made.session = await createSession(host, m, { extensions: EXTENSIONS, tools: TOOLS, cwd }));
  return { m, s, sm: s.sm };
}

/** Messages of a request that carry the pressure hint. */
function hints(request) {
  return request.messages.filter((msg) => JSON.stringify(msg.content).includes(HINT));
}

function anchorIds(sm, name) {
  return labelsOf(sm).get(`anchor:${name}`) ?? [];
}

test("the system prompt carries the guidance while the tool is active", async (t) => {
  const { m, s } = await start(t, ["ok"]);
  await s.session.prompt("hello");
  assert.equal(m.requests.length, 1);
  assert.ok(m.requests[0].system.includes(GUIDANCE), `system prompt: ${m.requests[0].system.slice(0, 400)}`);
  assert.ok(m.requests[0].system.includes("You are a test agent."), "the host's own prompt is kept");
});

test("crossing the threshold: exactly one hint, inside the same prompt(), listing the start anchor", async (t) => {
  // contextHint 20 → 25,600 of the faux model's 128k: crossed by the second bulk result (~30k tokens).
  const { m, s, sm } = await start(t, [bulk(60_000, "b1"), bulk(60_000, "b2"), bulk(8_000, "b3"), bulk(8_000, "b4"), "done"], {
    globalConfig: JSON.stringify({ contextHint: 20 }),
  });
  await s.session.prompt("read everything");
  assert.equal(m.requests.length, 5);
  const perRequest = m.requests.map((r) => hints(r).length);
  // Requests 1–2 precede the crossing; the hint is steered in after turn 2 and stays in the history.
  assert.deepEqual(perRequest, [0, 0, 1, 1, 1], `hints per request: ${perRequest}`);
  const hint = JSON.stringify(hints(m.requests[4])[0].content);
  assert.match(hint, /\[context \d+\.\d% of 128k\]/);
  assert.ok(hint.includes("'start'"), `the hint lists anchor:start: ${hint}`);
  assert.equal(sm.getEntries().filter((e) => e.type === "custom_message" && e.customType === "tree-navigator-pressure").length, 1);
  assertAllPaired(m);
});

test("no hint without crossing, and none when the config turns it off", async (t) => {
  const { m, s } = await start(t, [bulk(60_000, "b1"), bulk(60_000, "b2"), "done"], {
    globalConfig: JSON.stringify({ contextHint: 20 }),
    projectConfig: JSON.stringify({ contextHint: "off" }),
  });
  await s.session.prompt("read");
  assert.equal(m.requests.length, 3);
  assert.deepEqual(m.requests.map((r) => hints(r).length), [0, 0, 0]);
});

test("a broken config file changes nothing: defaults apply (70%: no hint at 30k tokens), the run is not disturbed", async (t) => {
  const { m, s, sm } = await start(t, [bulk(60_000, "b1"), bulk(60_000, "b2"), "done"], { globalConfig: "{ not json", projectConfig: "[1]" });
  await s.session.prompt("read");
  assert.equal(m.requests.length, 3);
  assert.deepEqual(m.requests.map((r) => hints(r).length), [0, 0, 0]);
  assert.equal(anchorIds(sm, "start").length, 1, "the start anchor still uses its default");
});

test("a hint crossing with no anchor sends nothing to the model", async (t) => {
  const { m, s, sm } = await start(t, [bulk(60_000, "b1"), bulk(60_000, "b2"), "done"], {
    globalConfig: JSON.stringify({ contextHint: 20, startAnchorTurn: "off" }),
  });
  await s.session.prompt("read");
  assert.deepEqual(m.requests.map((r) => hints(r).length), [0, 0, 0]);
  assert.equal(anchorIds(sm, "start").length, 0);
});

test("anchor:start is written after turn 2 on the turn's last entry, once", async (t) => {
  const { m, s, sm } = await start(t, [bulk(100, "b1"), bulk(100, "b2"), bulk(100, "b3"), "done"]);
  await s.session.prompt("go");
  const ids = anchorIds(sm, "start");
  assert.equal(ids.length, 1);
  const target = sm.getEntry(ids[0]);
  assert.equal(target.message?.role, "toolResult");
  assert.equal(target.message.toolCallId, "b2", "labelled at the end of turn 2");
  assert.equal(sm.getEntries().filter((e) => e.type === "label" && e.label === "anchor:start").length, 1, "written once");
  assert.equal(m.requests.length, 4);
});

test("a short first run gets anchor:start at its end; the config's startAnchorTurn is honoured", async (t) => {
  const { sm, s } = await start(t, ["hi"], { projectConfig: JSON.stringify({ startAnchorTurn: 5 }) });
  await s.session.prompt("hello");
  const ids = anchorIds(sm, "start");
  assert.equal(ids.length, 1);
  assert.equal(sm.getEntry(ids[0]).message?.role, "assistant");
});

test("an existing anchor:start counts, and anchor(name='start') moves it", async (t) => {
  const { sm, s } = await start(t, [anchor("start", "a1"), bulk(100, "b1"), bulk(100, "b2"), anchor("start", "a2"), "done"]);
  await s.session.prompt("go");
  const ids = anchorIds(sm, "start");
  assert.equal(ids.length, 1, "one anchor:start");
  assert.match(resultText(sm, "a2"), /moved from its earlier position/);
  // The automatic writer never wrote: the model's own anchor counted.
  const writes = sm.getEntries().filter((e) => e.type === "label" && e.label === "anchor:start");
  assert.equal(writes.length, 2, "the model's two anchor calls only");
});

/** The hint's crossing as in the test above, with the extension loaded from `extension`. */
async function crossWith(t, extension) {
  const m = new ScriptedModel(host);
  for (const s of [bulk(60_000, "b1"), bulk(60_000, "b2"), bulk(8_000, "b3"), "done"]) m.agent.push(typeof s === "string" ? m.text(s) : m.calls([s]));
  const made = testDir(t, "ptn-agent-");
  const agentDir = made.dir;
  writeFileSync(join(agentDir, "tree-navigator.json"), JSON.stringify({ contextHint: 20 }));
  const before = process.env.PI_CODING_AGENT_DIR;
  process.env.PI_CODING_AGENT_DIR = agentDir;
  t.after(() => {
    if (before === undefined) delete process.env.PI_CODING_AGENT_DIR;
    else process.env.PI_CODING_AGENT_DIR = before;
  });
  const s = (made.session = await createSession(host, m, { extensions: [extension, join(FIXTURES, "bulk-ext/index.js")], tools: TOOLS, cwd: agentDir }));
  return { m, s, sm: s.sm };
}

const pressureEntries = (sm) => sm.getEntries().filter((e) => e.type === "custom_message" && e.customType === "tree-navigator-pressure");

test("a host that cannot steer the hint in gets it as a session entry instead", async (t) => {
  const { m, s, sm } = await crossWith(t, wrappedExtension(t, { throwingSend: true }));
  await s.session.prompt("read everything");
  assert.equal(globalThis.__ptnWrap.sends, 1, "one crossing, one attempt to steer");
  const entries = pressureEntries(sm);
  assert.equal(entries.length, 1, "the hint is stored once, as a custom message the next context carries");
  assert.match(JSON.stringify(entries[0].content), /\[context \d+\.\d% of 128k\]/);
  assert.equal(m.requests.length, 4, "the run is not disturbed");
  assertAllPaired(m);
});

test("when the session cannot take the hint either, the user gets it as a note", async (t) => {
  const { m, s, sm } = await crossWith(t, wrappedExtension(t, { throwingSend: true, ui: true }));
  sm.appendCustomMessageEntry = () => {
    throw new Error("the session cannot take a custom message (test)");
  };
  await s.session.prompt("read everything");
  const { sends, notes } = globalThis.__ptnWrap;
  assert.equal(sends, 1);
  assert.equal(pressureEntries(sm).length, 0);
  const warnings = notes.filter((n) => n.level === "warning");
  assert.equal(warnings.length, 1, `notes: ${JSON.stringify(notes)}`);
  assert.match(warnings[0].text, /\[context \d+\.\d% of 128k\]/);
  assert.deepEqual(m.requests.map((r) => hints(r).length), [0, 0, 0, 0], "nothing reached the model");
  assertAllPaired(m);
});
