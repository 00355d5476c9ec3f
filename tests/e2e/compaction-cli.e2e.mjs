// Our compaction as the real `pi` CLI reads it back (issue 31), per host: print mode against the Anthropic mock (the
// package from pi's settings, a threshold that one run crosses, the session saved), then `pi -c` continues the
// session — its first request carries the compaction's summary and not the compacted work — and the session file
// is read by pi's own SessionManager and by our CLI (`context`, `tree`, `tokens`): the same context, the compaction
// a row of the tree, the estimate pi's own estimator gives. On pi 0.74/0.75 pi compacts on its own (no live
// request); the reading is the same.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "node:test";
import { loadHost } from "./lib/harness.mjs";
import { FIXTURES, nodeFor, PKG_DIR, piCliPath, runChild } from "./lib/hosts.mjs";
import { startAnthropicMock } from "./lib/mock-api.mjs";
import { piEstimator } from "./lib/pi-estimate.mjs";
import { WireModel, textOf } from "./lib/wire.mjs";

for (const k of ["PI_TREE_NAVIGATOR_NO_START_ANCHOR", "PI_TREE_NAVIGATOR_NO_HINT", "PI_TREE_NAVIGATOR_NO_CACHE_SUMMARY", "PI_TREE_NAVIGATOR_NO_CACHE_COMPACTION"]) delete process.env[k];
const host = await loadHost();
const version = host.version;
const CAPTURES = host.major > 0 || host.minor >= 87;
const MARK = "Write a context checkpoint instead";
const COLD_MARK = "context summarization assistant";
const SUMMARY = "## Goal\nread the data (CLI-CHECKPOINT)";
const WINDOW = 200000;

test(`pi ${version} CLI: a compaction in print mode, then pi -c; pi and our CLI read the file as any compaction`, { timeout: 240_000 }, async (t) => {
  const root = mkdtempSync(join(tmpdir(), `ptn-compact-cli-${version}-`));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const agent = join(root, "agent");
  const cwd = join(root, "work");
  mkdirSync(agent);
  mkdirSync(cwd);
  const script = [
    ...[1, 2, 3, 4].map((i) => ({ calls: [{ name: "bulk_read", input: { chars: 20000, tag: `OLD${i}` } }] })),
    { text: "Read it all." },
    { text: "Continued." },
  ];
  const mock = await startAnthropicMock({
    replies(record) {
      const last = textOf(record.full.messages.at(-1));
      if (last.includes(MARK)) return (record.kind = "compaction", { text: SUMMARY });
      if (JSON.stringify(record.full.system ?? "").includes(COLD_MARK)) return (record.kind = "cold", { text: `${SUMMARY} (cold)` });
      record.kind = "main";
      return script.shift() ?? { text: "(script exhausted)" };
    },
  });
  t.after(() => mock.close());
  const model = new WireModel({ api: "anthropic-messages", baseUrl: mock.url, modelId: "mock-model", contextWindow: WINDOW });
  writeFileSync(join(agent, "models.json"), JSON.stringify(model.modelsJson()));
  writeFileSync(join(agent, "settings.json"), JSON.stringify({
    defaultProvider: model.providerId,
    defaultModel: model.modelId,
    packages: [PKG_DIR],
    compaction: { enabled: true, reserveTokens: WINDOW - 14000, keepRecentTokens: 3000 },
  }));
  const env = { ...process.env, PI_CODING_AGENT_DIR: agent, PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0" };
  delete env.NODE_TEST_CONTEXT;
  const pi = (args) => runChild(nodeFor(version), [piCliPath(version), ...args, "--offline", "-e", join(FIXTURES, "bulk-ext/index.js"), "-ns", "-nc", "-np", "--no-themes"], env, cwd);

  const first = await pi(["-p", "read the data"]);
  assert.equal(first.status, 0, `pi -p failed (${first.status}): ${first.stderr}\n${first.stdout}`);
  assert.match(first.stdout, /Read it all\./);
  assert.equal(mock.requests.filter((r) => r.kind === "compaction").length, CAPTURES ? 1 : 0, mock.requests.map((r) => r.kind).join(" "));
  const second = await pi(["-c", "-p", "go on"]);
  assert.equal(second.status, 0, `pi -c -p failed (${second.status}): ${second.stderr}\n${second.stdout}`);
  assert.match(second.stdout, /Continued\./);
  assert.deepEqual(mock.violations, [], "pi's requests broke no API rule");
  // pi -c's request: the summary, none of the compacted work.
  const resumed = JSON.stringify(mock.requests.filter((r) => r.kind === "main").at(-1).full.messages);
  assert.ok(resumed.includes("CLI-CHECKPOINT"), "pi -c's request carries the compaction's summary");
  assert.ok(!resumed.includes("OLD1: lorem"), "pi -c's request holds the compacted work");
  assert.ok(resumed.includes("go on"));

  // The session file, by pi's own SessionManager and by our CLI.
  const dirOf = (d) => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? dirOf(join(d, e.name)) : e.name.endsWith(".jsonl") ? [join(d, e.name)] : []));
  const [file, ...more] = dirOf(join(agent, "sessions"));
  assert.ok(file && more.length === 0, "one session file");
  const entries = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const compactions = entries.filter((e) => e.type === "compaction");
  assert.ok(compactions.length >= 1 && compactions[0].summary.includes("CLI-CHECKPOINT"));
  assert.equal(compactions[0].fromHook === true, CAPTURES, "ours where the host has a live request, else pi's own");
  const sm = host.pca.SessionManager.open(file, undefined, cwd);
  const piContext = host.pca.buildSessionContext(sm.getEntries(), sm.getLeafId()).messages;
  const cli = (...args) => runChild(process.execPath, [join(PKG_DIR, "cli.js"), ...args], env, cwd);
  const context = await cli("context", file, "--json");
  assert.equal(context.status, 0, context.stderr);
  assert.deepEqual(JSON.parse(context.stdout).messages, JSON.parse(JSON.stringify(piContext)), "our CLI's context is pi's");
  const tree = await cli("tree", file, "--json");
  assert.equal(tree.status, 0, tree.stderr);
  const rows = JSON.parse(tree.stdout);
  const list = Array.isArray(rows) ? rows : (rows.rows ?? []);
  for (const c of compactions) assert.ok(list.some((r) => r.id === c.id && r.type === "compaction"), `compaction ${c.id} is a row of the tree`);
  // The estimate at the file's leaf: pi's own estimator's number (lib/pi-estimate.mjs), the profile inferred from the file.
  const tokens = await cli("tokens", file, "--json");
  assert.equal(tokens.status, 0, tokens.stderr);
  const piTokens = (await piEstimator(host))(sm, sm.getLeafId());
  assert.ok(piTokens > 0, `pi's estimate: ${piTokens}`);
  assert.equal(JSON.parse(tokens.stdout).tokens, piTokens, `our CLI's estimate is pi's: ${tokens.stdout}`);
});
