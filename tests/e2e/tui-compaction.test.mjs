// pi's compaction with the plugin loaded, as the user sees it (issue 31): the real interactive pi (the newest tested
// host; PTN_TUI_HOST for another) in tmux against the local Anthropic mock, a compaction threshold one run crosses,
// read with `tmux capture-pane`:
// - written from the prompt cache: pi's own compaction line and summary, then our one dim line saying so with the
//   mock's cache numbers; no cache-miss warning, with pi's `showCacheMissNotices` on or off;
// - pi's own compaction after an unusable reply (reason `failed`): our line says it went cold and why; with
//   `showCacheMissNotices` on, also the cache-miss warning with the prompt tokens not read from the cache;
// - switched off (PI_TREE_NAVIGATOR_NO_CACHE_COMPACTION): no line of ours at all.
// The screens are printed (the report's "what the user sees"). Needs tmux, the hosts and `npm run build`.
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "node:test";
import { FIXTURES, HOST_VERSIONS, PKG_DIR, nodeFor, piCliPath } from "./lib/hosts.mjs";
import { startAnthropicMock } from "./lib/mock-api.mjs";
import { tmuxServer, tuiPrerequisites, waitFor } from "./lib/tmux.mjs";
import { WireModel } from "./lib/wire.mjs";

const HOST = process.env.PTN_TUI_HOST ?? [...HOST_VERSIONS].sort((a, b) => a.localeCompare(b, "en", { numeric: true })).at(-1);
const SOCKET_DIR = mkdtempSync(join(tmpdir(), "ptn-tui-compact-"));
const SOCKET = join(SOCKET_DIR, "tmux.sock");
const MARK = "Write a context checkpoint instead";
const COLD_MARK = "context summarization assistant";
const SUMMARY = "## Goal\nRead the logs.\n\n## Progress\n### Done\n- [x] read four logs";
const WINDOW = 200000;
const OURS = "tree-navigator: compaction summary";

const { tmux, screen, kill } = tmuxServer(SOCKET);

const textOf = (m) => (typeof m?.content === "string" ? m.content : (m?.content ?? []).map((b) => b.text ?? (typeof b.content === "string" ? b.content : "")).join(""));

/** One interactive pi: four 20k-character reads (the third crosses the threshold), then "All read.". */
async function runPi(t, name, { notices, live = "ok", env: extra = {} }) {
  const dir = mkdtempSync(join(tmpdir(), "ptn-tui-compact-"));
  const script = [...[1, 2, 3, 4].map((i) => ({ calls: [{ name: "bulk_read", input: { chars: 20000, tag: `log${i}` } }] })), { text: "All read." }];
  const mock = await startAnthropicMock({
    replies(record) {
      if (textOf(record.full.messages.at(-1)).includes(MARK)) {
        record.kind = "compaction";
        return live === "ok" ? { text: SUMMARY } : { text: "" };
      }
      if (JSON.stringify(record.full.system ?? "").includes(COLD_MARK)) return (record.kind = "cold", { text: `${SUMMARY} (pi's own)` });
      record.kind = "main";
      return script.shift() ?? { text: "(script exhausted)" };
    },
  });
  t.after(async () => {
    kill(name);
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const agent = join(dir, "agent");
  const work = join(dir, "work");
  mkdirSync(agent);
  mkdirSync(work);
  const model = new WireModel({ api: "anthropic-messages", baseUrl: mock.url, modelId: "mock-model", contextWindow: WINDOW });
  writeFileSync(join(agent, "models.json"), JSON.stringify(model.modelsJson()));
  writeFileSync(join(agent, "settings.json"), JSON.stringify({
    defaultProvider: model.providerId,
    defaultModel: model.modelId,
    quietStartup: true,
    packages: [PKG_DIR],
    showCacheMissNotices: notices,
    compaction: { enabled: true, reserveTokens: WINDOW - 14000, keepRecentTokens: 3000 },
  }));
  const env = { PI_CODING_AGENT_DIR: agent, PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0", ...extra };
  const q = (s) => `'${String(s).replaceAll("'", "'\\''")}'`;
  const command = ["env", ...Object.entries(env).map(([k, v]) => q(`${k}=${v}`)), q(nodeFor(HOST)), q(piCliPath(HOST)), "-e", q(join(FIXTURES, "bulk-ext/index.js"))].join(" ");
  tmux("new-session", "-d", "-s", name, "-x", "120", "-y", "60", "-c", work, command);
  await waitFor(`${name}: pi's editor`, () => screen(name).some((l) => l.includes("mock-model")));
  const type = () => {
    tmux("send-keys", "-t", name, "-l", "Please read the logs");
    tmux("send-keys", "-t", name, "Enter");
  };
  type();
  // pi can show its footer a moment before its editor takes keys: type again where the prompt was lost.
  const started = await waitFor(`${name}: the run to start`, () => mock.requests.length > 0, 15_000).catch(() => false);
  if (!started) {
    if (!screen(name).some((l) => l.includes("Please read the logs"))) tmux("send-keys", "-t", name, "-l", "Please read the logs");
    tmux("send-keys", "-t", name, "Enter");
  }
  let last = [];
  const lines = await waitFor(`${name}: the run to end`, () => {
    const s = screen(name);
    last = s;
    return s.some((l) => l.trim() === "All read.") ? s : null;
  }).catch((e) => {
    process.stderr.write(`\n${name}: the screen when the wait ended:\n${last.filter(Boolean).slice(-40).join("\n")}\n`);
    throw e;
  });
  // Our line comes a moment after pi re-renders its chat for the compaction.
  await new Promise((r) => setTimeout(r, 500));
  assert.deepEqual(mock.violations, [], "pi's requests broke no API rule");
  return { lines: screen(name), mock, early: lines };
}

/** The screen from pi's compaction line to the end (blank lines dropped). */
function fromCompaction(lines) {
  const at = lines.findIndex((l) => /compact/i.test(l));
  return lines.slice(Math.max(0, at)).filter((l) => l.trim() !== "");
}

test(`pi ${HOST}'s interactive TUI: a compaction from the prompt cache, one that went cold, and the feature off`, { timeout: 240_000 }, async (t) => {
  t.after(() => {
    kill();
    rmSync(SOCKET_DIR, { recursive: true, force: true });
  });
  assert.deepEqual(tuiPrerequisites(HOST), [], "prerequisites");
  const [warm, coldOn, coldOff, off] = await Promise.all([
    runPi(t, "compact-warm", { notices: true }),
    runPi(t, "compact-cold-on", { notices: true, live: "empty" }),
    runPi(t, "compact-cold-off", { notices: false, live: "empty" }),
    runPi(t, "compact-off", { notices: true, env: { PI_TREE_NAVIGATOR_NO_CACHE_COMPACTION: "1" } }),
  ]);
  const show = (label, r) => process.stdout.write(`\n── pi ${HOST}, ${label} ──\n${fromCompaction(r.lines).join("\n")}\n`);

  await t.test("from the prompt cache: pi's compaction, then our line with the cache's numbers, no warning", () => {
    show("compaction from the prompt cache (showCacheMissNotices on)", warm);
    const text = warm.lines.join("\n");
    assert.equal(warm.mock.requests.filter((r) => r.kind === "compaction").length, 1);
    assert.match(text, /tree-navigator: compaction summary from the prompt cache \(\d+(\.\d)?k of \d+(\.\d)?k prompt tokens read from the cache\)/);
    assert.doesNotMatch(text, /cache miss: the compaction's summary/);
    assert.ok(text.includes("All read."));
  });

  await t.test("an unusable reply: pi's own compaction; our line says why; the warning only with showCacheMissNotices", () => {
    show("pi's own compaction after an empty reply (showCacheMissNotices on)", coldOn);
    show("the same with showCacheMissNotices off", coldOff);
    for (const r of [coldOn, coldOff]) {
      assert.deepEqual(r.mock.requests.filter((x) => x.kind !== "main").map((x) => x.kind).slice(0, 2), ["compaction", "cold"]);
      assert.match(r.lines.join("\n"), /tree-navigator: compaction summary by pi's own request, cold \(failed\)/);
    }
    assert.match(coldOn.lines.join("\n"), /cache miss: the compaction's summary was written cold \(failed\): \d+(\.\d)?k prompt tokens not read from the cache/);
    assert.doesNotMatch(coldOff.lines.join("\n"), /cache miss: the compaction's summary/);
  });

  await t.test("switched off: pi compacts on its own and nothing of ours shows", () => {
    show("the feature switched off", off);
    assert.equal(off.mock.requests.filter((r) => r.kind === "compaction").length, 0);
    assert.ok(off.mock.requests.some((r) => r.kind === "cold"));
    assert.ok(!off.lines.some((l) => l.includes(OURS)), "a line of ours shows");
  });
});
