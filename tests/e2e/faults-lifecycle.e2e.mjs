// Concurrency and lifecycle in a real pi host (issue 6, item 4). Run per host by tests/e2e/e2e.test.mjs.
//
// - A subagent beside its parent: while the parent's run is in flight, a second AgentSession runs its own
//   anchor → work → rewind; neither sees the other's index, labels, captured session or context.
// - pi's session runtime (what /new and /resume use): /new and /resume each shut the old session down,
//   which frees its index; every load of the extension keeps exactly one prompt wrapper, and exactly one
//   `context` handler runs per request; a resumed session rewinds normally.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "node:test";
import { assertAllPaired, entriesOfType, labelsOf, resultText, size, text } from "./lib/checks.mjs";
import { createSession, loadHost, ScriptedModel } from "./lib/harness.mjs";
import { FIXTURES, PKG_DIR } from "./lib/hosts.mjs";

const host = await loadHost();
const EXTENSIONS = [PKG_DIR, join(FIXTURES, "bulk-ext/index.js")];
const TOOLS = ["navigate_tree", "bulk_read"];
const FOCUS = "User asked: 'build the parser'. Done: read the input data. Left: write the tests.";
const SUMMARY = "## Goal\nBuild the parser\n## Progress\n### Done\n- read the input data (MARK-SUMMARY)";
const REGISTRY = Symbol.for("pi-tree-navigator.registry");
const ORIGINAL = Symbol.for("pi-tree-navigator.original-prompt");
const WRAPPER = Symbol.for("pi-tree-navigator.prompt-wrapper");

const anchor = (name, id) => ["navigate_tree", { action: "anchor", name }, id];
const rewind = (from, to, id) => ["navigate_tree", { action: "rewind", labelStart: from, labelEnd: to, summaryFocus: FOCUS }, id];
const list = (id) => ["navigate_tree", { action: "list" }, id];
const bulk = (chars, id, tag) => ["bulk_read", { chars, tag }, id];
const reg = () => globalThis[REGISTRY];

/** Exactly one prompt wrapper around pi's own prompt. */
function assertOneWrapper() {
  const proto = host.pca.AgentSession.prototype;
  assert.equal(proto.prompt[WRAPPER], true, "prompt is wrapped");
  assert.equal(proto[ORIGINAL][WRAPPER], undefined, "the stashed original is itself a wrapper");
}

test(`${host.version}: a subagent run inside the parent's run shares no index, label, captured session or context`, async (t) => {
  const m = new ScriptedModel(host);
  m.router = (r) => (ScriptedModel.firstUserText(r).includes("child") ? "child" : "parent");
  let child;
  m.agentBy.parent = [
    m.calls([anchor("p", "p1")]),
    m.calls([bulk(30000, "p2", "parent")]),
    // The parent's next model turn waits for a whole subagent run (as a subagent tool would).
    async () => {
      await child.session.prompt("child task");
      return m.calls([list("p3")]);
    },
    m.text("parent done"),
  ];
  m.agentBy.child = [
    m.calls([anchor("c", "k1")]),
    m.calls([bulk(40000, "k2", "child")]),
    m.calls([rewind("c", "c-done", "k3")]),
    m.calls([list("k4")]),
    m.text("child done"),
  ];
  m.summary.push(m.text(SUMMARY));
  const parent = await createSession(host, m, { extensions: EXTENSIONS, tools: TOOLS });
  child = await createSession(host, m, { extensions: EXTENSIONS, tools: TOOLS });
  t.after(() => {
    parent.dispose();
    child.dispose();
  });
  await parent.session.prompt("parent task");

  // Each session was captured as itself.
  assert.equal(reg().sessions.get(parent.sm), parent.session);
  assert.equal(reg().sessions.get(child.sm), child.session);
  // The child's rewind stayed in the child.
  assert.equal(entriesOfType(child.sm, "branch_summary").length, 1);
  assert.equal(entriesOfType(parent.sm, "branch_summary").length, 0);
  assert.deepEqual([...labelsOf(parent.sm).keys()], ["anchor:p"]);
  assert.deepEqual([...labelsOf(child.sm).keys()].sort(), ["anchor:c", "anchor:c-done"]);
  assert.match(resultText(parent.sm, "p3"), /\[list\] · 1 anchor ·/);
  assert.doesNotMatch(resultText(parent.sm, "p3"), /c-done/);
  assert.match(resultText(child.sm, "k4"), /\[list\] · 2 anchors ·/);
  // Requests: the child's after its rewind are small; the parent's keep the parent's work, never the child's.
  const forParent = m.requests.filter((r) => !ScriptedModel.firstUserText(r).includes("child"));
  const forChild = m.requests.filter((r) => ScriptedModel.firstUserText(r).includes("child"));
  assert.equal(forParent.length + forChild.length, m.requests.length);
  assert.ok(forParent.every((r) => !text(r).includes("child:")), "the parent saw the child's work");
  assert.ok(forChild.every((r) => !text(r).includes("parent:")), "the child saw the parent's work");
  assert.ok(text(forParent.at(-1)).includes("parent:"), "the parent lost its own context");
  assert.ok(size(forChild.at(-1)) * 10 < size(forChild.at(-3)), "the child's rewind reached its next request");
  assert.ok(!text(forParent.at(-1)).includes("MARK-SUMMARY"), "the child's summary leaked into the parent");
  forParent.forEach((r, i) => assertAllPaired({ requests: [r] }, i));
  forChild.forEach((r, i) => assertAllPaired({ requests: [r] }, i));
  assertOneWrapper();
});

/** pi's session runtime over the faux model (the machinery behind /new, /resume, /fork). */
async function runtime(t, m) {
  const { pca } = host;
  const root = mkdtempSync(join(tmpdir(), `ptn-lifecycle-${host.version}-`));
  const cwd = join(root, "cwd");
  const agentDir = join(root, "agent");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  const settingsManager = pca.SettingsManager.inMemory({ compaction: { enabled: false }, retry: { enabled: false } });
  const resourceLoaderOptions = {
    additionalExtensionPaths: EXTENSIONS,
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true,
    systemPromptOverride: () => "You are a test agent.",
  };
  let auth;
  if (host.runtimeHost) {
    const modelRuntime = await pca.ModelRuntime.create({ authPath: join(agentDir, "auth.json"), modelsPath: null, refreshOnCreate: false });
    modelRuntime.registerNativeProvider(m.faux.provider);
    auth = { modelRuntime };
  } else {
    const authStorage = pca.AuthStorage.inMemory();
    authStorage.setRuntimeApiKey("faux", "offline");
    auth = { authStorage, modelRegistry: pca.ModelRegistry.inMemory(authStorage) };
  }
  const createRuntime = async ({ cwd: dir, agentDir: ad, sessionManager, sessionStartEvent }) => {
    const services = await pca.createAgentSessionServices({ cwd: dir, agentDir: ad, settingsManager, resourceLoaderOptions, ...auth });
    const errors = (services.resourceLoader.getExtensions?.().errors ?? []).map((e) => `${e.path}: ${e.error}`);
    assert.deepEqual(errors, [], "extension load errors");
    const created = await pca.createAgentSessionFromServices({
      services,
      sessionManager,
      sessionStartEvent,
      model: m.model,
      thinkingLevel: "off",
      tools: TOOLS,
    });
    m.register(); // pi ≤0.79 resets pi-ai's provider registry on a reload; the faux provider is test scaffolding
    return { ...created, services, diagnostics: services.diagnostics ?? [] };
  };
  const sessionDir = join(root, "sessions");
  const rt = await pca.createAgentSessionRuntime(createRuntime, { cwd, agentDir, sessionManager: pca.SessionManager.create(cwd, sessionDir) });
  t.after(() => {
    try {
      rt.session.dispose();
    } catch {}
    rmSync(root, { recursive: true, force: true });
  });
  return rt;
}

/** Runs a prompt and returns how many requests it made and how many times our context handler ran. */
async function prompt(rt, m, textIn) {
  const requests = m.requests.length;
  const calls = reg().contextCalls;
  await rt.session.prompt(textIn);
  return { requests: m.requests.length - requests, handlerRuns: reg().contextCalls - calls };
}

test(`${host.version}: /new and /resume free the old index, keep one wrapper and one context handler per request, and the resumed session rewinds`, async (t) => {
  const m = new ScriptedModel(host);
  const rt = await runtime(t, m);

  // Session 1: anchor, bulky work.
  m.agent.push(m.calls([anchor("one", "a1")]), m.calls([bulk(40000, "a2", "first")]), m.text("ok"));
  let run = await prompt(rt, m, "first task");
  assert.equal(run.handlerRuns, run.requests, "one context handler run per request");
  const file1 = rt.session.sessionFile;
  const sm1 = rt.session.sessionManager;
  assert.ok(file1, "session 1 has a file");

  // /new: session 1 shuts down (its index is freed); session 2 starts clean.
  let freed = reg().stats.indexesFreed;
  await rt.newSession();
  assert.equal(reg().stats.indexesFreed, freed + 1, "/new freed the old session's index");
  assert.notEqual(rt.session.sessionManager, sm1);
  m.agent.push(m.calls([anchor("two", "b1")]), m.calls([list("b2")]), m.text("ok"));
  run = await prompt(rt, m, "second task");
  assert.equal(run.handlerRuns, run.requests, "after /new: one context handler run per request");
  assert.match(resultText(rt.session.sessionManager, "b2"), /\[list\] · 1 anchor ·/);
  assert.doesNotMatch(resultText(rt.session.sessionManager, "b2"), /\bone\b/);
  assertOneWrapper();

  // /resume session 1: session 2's index is freed; session 1's anchor is found and a rewind works.
  freed = reg().stats.indexesFreed;
  await rt.switchSession(file1);
  assert.equal(reg().stats.indexesFreed, freed + 1, "/resume freed the old session's index");
  m.summary.push(m.text(SUMMARY));
  m.agent.push(m.calls([rewind("one", "one-done", "a3")]), m.calls([list("a4")]), m.text("ok"));
  const before = m.requests.length;
  run = await prompt(rt, m, "continue the first task");
  assert.equal(run.handlerRuns, run.requests, "after /resume: one context handler run per request");
  const sm = rt.session.sessionManager;
  assert.doesNotMatch(resultText(sm, "a3"), /^(No anchor|Summarization)/, resultText(sm, "a3"));
  assert.match(resultText(sm, "a3"), /^\[rewind 'one' → 'one-done'\]/);
  assert.match(resultText(sm, "a4"), /\[list\] · 2 anchors ·/);
  const [first, , last] = m.requests.slice(before);
  assert.ok(size(last) * 10 < size(first), `the rewind reached the next request (${size(first)} → ${size(last)})`);
  assertOneWrapper();
  assertAllPaired(m);
});
