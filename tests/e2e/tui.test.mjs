// navigate_tree in the real interactive pi (the newest tested host), read off the screen: pi runs in tmux
// (its own server socket) against a local Anthropic Messages mock (lib/mock-api.mjs, 127.0.0.1), with an
// isolated agent dir (PI_CODING_AGENT_DIR) whose models.json points a custom provider at the mock
// (lib/wire.mjs). The model anchors, reads a big file, rewinds and lists; the test reads `tmux capture-pane`:
// - collapsed, the rewind and the list after it take at most 7 screen lines (the core's headlines and pi's
//   expand hint), and none of the model-facing instruction shows;
// - pi's expand key (ctrl+o, `app.tools.expand`) shows the full texts the model read;
// - the rewind's cache-miss line shows only with pi's `showCacheMissNotices` on, and only for a summary that
//   missed the prompt cache.
// Needs tmux (scripts/setup.sh installs it), the hosts (scripts/setup-hosts.sh) and `npm run build`.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import test from "node:test";
import { HOST_VERSIONS, PKG_DIR, nodeFor, piCliPath } from "./lib/hosts.mjs";
import { startAnthropicMock } from "./lib/mock-api.mjs";
import { tmuxServer, tuiPrerequisites, waitFor } from "./lib/tmux.mjs";
import { WireModel } from "./lib/wire.mjs";

/** The built package's core (for what /anchors' first page holds). */
const core = await import(pathToFileURL(join(PKG_DIR, "index-node.js")).href);

/** The newest tested pi (versions compared numerically); PTN_TUI_HOST picks another (a look, not the proof). */
const HOST = process.env.PTN_TUI_HOST ?? [...HOST_VERSIONS].sort((a, b) => a.localeCompare(b, "en", { numeric: true })).at(-1);
/** The tmux server's socket: its own, in a temporary folder removed at the end (no stale socket left). */
const SOCKET_DIR = mkdtempSync(join(tmpdir(), "ptn-tui-tmux-"));
const SOCKET = join(SOCKET_DIR, "tmux.sock");
const FOCUS = "User asked: build the parser. Done: read the data. Left: tests.";
const SUMMARY = "## Goal\nBuild the parser.\n\n## Progress\n### Done\n- [x] read the data\n\n## Next Steps\n1. tests";

/** tmux on its own socket (lib/tmux.mjs). */
const { tmux, screen } = tmuxServer(SOCKET);

/**
 * One interactive pi session: the scripted model anchors `start`, reads big.txt with bash, rewinds
 * start → parser-done (the summarizer's request is the 4th), lists, tries a rewind to an anchor that does not
 * exist (refused), and ends with "All done.". Returns the
 * screen after the run and a function that presses the expand key and returns the screen after it.
 */
async function runPi(t, name, { cacheMissNotices, coldSummary }) {
  const dir = mkdtempSync(join(tmpdir(), "ptn-tui-"));
  const mock = await startAnthropicMock({
    replies: [
      { calls: [{ name: "navigate_tree", input: { action: "anchor", name: "start" } }] },
      { calls: [{ name: "bash", input: { command: "cat big.txt" } }] },
      { calls: [{ name: "navigate_tree", input: { action: "rewind", labelStart: "start", labelEnd: "parser-done", summaryFocus: FOCUS } }] },
      { text: SUMMARY },
      { calls: [{ name: "navigate_tree", input: { action: "list" } }] },
      { calls: [{ name: "navigate_tree", input: { action: "rewind", labelStart: "nope", labelEnd: "again", summaryFocus: FOCUS } }] },
      { text: "All done." },
    ],
  });
  t.after(async () => {
    spawnSync("tmux", ["-S", SOCKET, "kill-session", "-t", name]);
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const agent = join(dir, "agent");
  const work = join(dir, "work");
  mkdirSync(agent);
  mkdirSync(work);
  // ~30 KB: enough work after the anchor for the rewind to be worth it (the tool refuses tiny ones).
  writeFileSync(join(work, "big.txt"), Array.from({ length: 400 }, (_, i) => `line ${i}: ${"lorem ipsum dolor sit amet ".repeat(3)}`).join("\n"));
  const model = new WireModel({ api: "anthropic-messages", baseUrl: mock.url, modelId: "mock-model" });
  writeFileSync(join(agent, "models.json"), JSON.stringify(model.modelsJson()));
  writeFileSync(
    join(agent, "settings.json"),
    JSON.stringify({ defaultProvider: model.providerId, defaultModel: model.modelId, quietStartup: true, packages: [PKG_DIR], showCacheMissNotices: cacheMissNotices }),
  );
  const env = { PI_CODING_AGENT_DIR: agent, PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0" };
  if (coldSummary) env.PI_TREE_NAVIGATOR_NO_CACHE_SUMMARY = "1"; // the summary goes out cold: a cache miss
  const q = (s) => `'${String(s).replaceAll("'", "'\\''")}'`;
  const command = ["env", ...Object.entries(env).map(([k, v]) => q(`${k}=${v}`)), q(nodeFor(HOST)), q(piCliPath(HOST))].join(" ");
  tmux("new-session", "-d", "-s", name, "-x", "120", "-y", "60", "-c", work, command);
  await waitFor(`${name}: pi's editor`, () => screen(name).some((l) => l.includes("mock-model")));
  tmux("send-keys", "-t", name, "-l", "Please build the parser");
  tmux("send-keys", "-t", name, "Enter");
  // pi can show its footer a moment before its editor takes keys (seen once in ~10 runs on a loaded machine:
  // the run never started). When no request came, the prompt is typed again where it was lost.
  const started = await waitFor(`${name}: the run to start`, () => mock.requests.length > 0, 15_000).catch(() => false);
  if (!started) {
    if (!screen(name).some((l) => l.includes("Please build the parser"))) tmux("send-keys", "-t", name, "-l", "Please build the parser");
    tmux("send-keys", "-t", name, "Enter");
  }
  let last = [];
  const lines = await waitFor(`${name}: the scripted run to end`, () => {
    const s = screen(name);
    last = s;
    return mock.requests.length === 7 && s.some((l) => l.trim() === "All done.") ? s : null;
  }).catch((e) => {
    // What the pane showed, for the log: where the run stopped.
    process.stderr.write(`\n${name}: ${mock.requests.length} requests when the wait ended; the screen:\n${last.filter(Boolean).slice(-40).join("\n")}\n`);
    throw e;
  });
  assert.deepEqual(mock.violations, [], "pi's requests broke no API rule");
  return {
    name,
    mock,
    sessions: join(agent, "sessions"),
    lines,
    colours: screen(name, true),
    expand: () => {
      tmux("send-keys", "-t", name, "C-o");
      return waitFor(`${name}: the expanded texts`, () => {
        const s = screen(name);
        // The text wraps at the screen's width: a phrase is looked for in the lines joined again.
        return s.some((l) => l.includes("[rewind 'start' → 'parser-done']")) && s.map((l) => l.trim()).join(" ").includes("Items under") ? s : null;
      });
    },
  };
}

/** The screen lines from the rewind's call line down to the line before the refused rewind's call. */
function rewindAndList(lines) {
  const from = lines.findIndex((l) => l.includes("navigate_tree rewind start"));
  const to = lines.findIndex((l, i) => i > from && l.includes("navigate_tree rewind nope"));
  assert.ok(from >= 0 && to > from, `rewind call and the end on screen:\n${lines.join("\n")}`);
  return lines.slice(from, to).filter((l) => l.trim() !== "");
}

/** The session files under `dir` (pi's sessions folder), path → size in bytes. */
function sessionFiles(dir) {
  const sizes = {};
  for (const f of readdirSync(dir, { recursive: true })) {
    if (String(f).endsWith(".jsonl")) sizes[f] = statSync(join(dir, String(f))).size;
  }
  return sizes;
}

/**
 * Page 1 of what was collapsed at `name` in the session file `file`, from the built package's core as /anchors
 * reads it (`anchorsRecall` + `anchorsPage`): `{pages, lines}` (the body's lines, each shorter than the pager's
 * 118 columns here, so each is one screen line).
 */
function firstPage(file, name) {
  const text = readFileSync(file, "utf8");
  const entries = new Map(text.trim().split("\n").map((l) => JSON.parse(l)).filter((e) => e.id).map((e) => [e.id, e]));
  const index = core.SessionIndex.plugin();
  try {
    index.appendJsonl(text);
    const plan = index.anchorsRecall(name, 1, 200000);
    assert.equal(plan.kind, "recall", JSON.stringify(plan));
    const page = core.anchorsPage(plan, plan.entryIds.map((id) => entries.get(id)));
    assert.equal(page.kind, "page", JSON.stringify(page));
    const lines = page.body.split("\n");
    assert.ok(lines.every((l) => l.length < 110), "no line wraps on the 120-column screen");
    return { pages: page.pages, lines };
  } finally {
    index.free();
  }
}

/**
 * What the session in `file` cost and what its rewind saved, as the built core's cost model (src/cost/) says and
 * `/anchors` shows it: `{spent, saved}` as formatted there.
 */
function moneyOf(file) {
  const index = core.SessionIndex.plugin();
  try {
    index.appendJsonl(readFileSync(file, "utf8"));
    const cost = index.cost();
    assert.equal(cost.priced, true, "the mock's model is priced (lib/wire.mjs)");
    const [rewind] = cost.savings.rewinds.items;
    assert.ok(rewind?.tokensRemoved > 0 && rewind.usd !== null, `the rewind's saving is known: ${JSON.stringify(rewind)}`);
    return { spent: core.formatUsd(cost.total.usd), saved: core.formatUsd(rewind.usd) };
  } finally {
    index.free();
  }
}

/** Types `text` into the pane and presses Enter. */
function type(name, text) {
  tmux("send-keys", "-t", name, "-l", text);
  tmux("send-keys", "-t", name, "Enter");
}

test(`navigate_tree in pi ${HOST}'s interactive TUI (tmux, mock model)`, { timeout: 240_000 }, async (t) => {
  t.after(() => {
    spawnSync("tmux", ["-S", SOCKET, "kill-server"]);
    rmSync(SOCKET_DIR, { recursive: true, force: true });
  });
  assert.deepEqual(tuiPrerequisites(HOST), [], "prerequisites");
  // Three sessions at once: a cold summary with the notices off and on, and a summary from the prompt cache.
  const [off, on, warm] = await Promise.all([
    runPi(t, "cold-off", { cacheMissNotices: false, coldSummary: true }),
    runPi(t, "cold-on", { cacheMissNotices: true, coldSummary: true }),
    runPi(t, "warm-on", { cacheMissNotices: true, coldSummary: false }),
  ]);

  await t.test("collapsed: the rewind and the list take at most 7 lines, with the core's headlines", () => {
    const shown = rewindAndList(off.lines);
    process.stdout.write(`\n── pi ${HOST}, collapsed ──\n${shown.join("\n")}\n`);
    assert.ok(shown.length <= 7, `${shown.length} lines:\n${shown.join("\n")}`);
    const text = shown.join("\n");
    assert.match(text, /navigate_tree rewind start → parser-done · “User asked: build the parser/);
    // The ledger under the summary (the collapsed `cat big.txt` and its exit status) and what it cost.
    assert.match(text, /rewind 'start' → 'parser-done' · context \d+\.\d% → \d+\.\d% of 200k · ledger \d+ tokens · summary cold \(disabled\)/);
    assert.match(text, /navigate_tree list\n.*2 anchors · context \d+\.\d% of 200k\n.*start \d+\.\d% · parser-done \d+\.\d%/);
    assert.match(text, /ctrl\+o to expand/);
    const all = off.lines.join("\n");
    assert.doesNotMatch(all, /Items under '### Done'|Anchors \(root → leaf\)|summaryFocus needs/, "no model-facing text collapsed");
    assert.match(all, /anchor 'start' set at \d+\.\d% of 200k/);
  });

  await t.test("a refusal shows its reason in the error colour", () => {
    const refused = off.lines.find((l) => l.includes("refused:"));
    assert.match(refused ?? "", /refused: No anchor 'nope' on the active branch\. \(ctrl\+o to expand\)/);
    // The escape sequence that colours each headline (capture-pane -e): a refusal's differs from a success's.
    const sgr = (text) => {
      const line = off.colours.find((l) => l.includes(text)) ?? "";
      const at = line.indexOf(text);
      return line.slice(0, at).match(/(?:\x1b\[[0-9;]*m)+$/)?.[0];
    };
    const error = sgr("refused: No anchor");
    const success = sgr("rewind 'start' → 'parser-done' ·");
    assert.ok(error && success, `coloured headlines:\n${off.colours.join("\n")}`);
    assert.notEqual(error, success);
    assert.equal(sgr("anchor 'start' set at"), success);
  });

  await t.test("the expand key shows the full texts the model read", async () => {
    const lines = await off.expand();
    const text = lines.join("\n");
    process.stdout.write(`\n── pi ${HOST}, expanded ──\n${rewindAndList(lines).join("\n")}\n`);
    assert.match(text, /\[rewind 'start' → 'parser-done'\] · context/);
    // The text as the model read it (lines the screen wrapped joined again).
    const read = lines.map((l) => l.trim()).join(" ");
    assert.match(read, /\[rewind 'start' → 'parser-done'\] · context \d+\.\d% → \d+\.\d% of 200k · ledger \d+ tokens/);
    assert.match(read, /Its ledger lists 1 fact of the collapsed work verbatim/);
    assert.match(read, /Items under '### Done' are finished/);
    assert.match(text, /\[list\] · 2 anchors/);
    assert.match(text, /Anchors \(root → leaf\):/);
  });

  await t.test("/anchors lists the anchors and the rewind; a chosen row opens a pager at the page's first line, with the person's footer; the session does not grow", async () => {
    const { name, mock, sessions } = warm;
    const before = sessionFiles(sessions);
    assert.equal(Object.keys(before).length, 1, `one session file: ${JSON.stringify(before)}`);
    const requests = mock.requests.length;
    type(name, "/anchors");
    const title = "Anchors and rewinds · context now";
    const rewindRow = /rewind 1: start → parser-done · saved \d+(\.\d)?k? tokens · context \d+\.\d% → \d+\.\d% of 200k/;
    const listShown = () => (screen(name).some((l) => l.includes(title)) ? screen(name) : null);
    let list;
    try {
      list = await waitFor("the /anchors list", listShown, 5000);
    } catch {
      tmux("send-keys", "-t", name, "Enter"); // the first Enter only took the autocompletion
      list = await waitFor("the /anchors list", listShown);
    }
    const at = list.findIndex((l) => l.includes(title));
    const rows = list.slice(at, at + 8).join("\n");
    process.stdout.write(`\n── pi ${HOST}, /anchors ──\n${rows}\n`);
    assert.match(rows, /anchor +\d+\.\d% +start/);
    assert.match(rows, /anchor +\d+\.\d% +parser-done/);
    assert.match(rows, rewindRow);
    // The title says what the session cost, as the cost model reads the session file (pi priced every request
    // at the models.json prices), and the share of prompt tokens read from the cache; the rewind's row what it
    // saved so far in money (what it removed at the cache-read price of the requests after it, less its summary).
    const { spent, saved } = moneyOf(join(sessions, Object.keys(before)[0]));
    assert.ok(rows.includes(`spent ${spent}, `), `the title says the session cost ${spent}:\n${rows}`);
    assert.match(rows, /spent \$\d+\.\d\d, \d+\.\d% of prompt tokens from the cache/);
    const row = rows.split("\n").find((l) => rewindRow.test(l)) ?? "";
    assert.ok(row.includes(` · ≈ ${saved} saved so far`), `the rewind's row says it saved ${saved} so far:\n${rows}`);

    // What page 1 holds, from the core over the session file: its first line is what the pager must open at.
    const [file] = Object.keys(before);
    const first = firstPage(join(sessions, file), "parser-done");
    // Rows: start, parser-done, rewind 1. Choose the rewind.
    tmux("send-keys", "-t", name, "Down");
    tmux("send-keys", "-t", name, "Down");
    tmux("send-keys", "-t", name, "Enter");
    const pageTitle = `What was collapsed at 'parser-done' · page 1 of ${first.pages}`;
    const footer = (page, from) => new RegExp(`^ page ${page} of ${first.pages} · lines ${from}–(\\d+) of (\\d+) · → next page · ← back to the list · esc close · ↑↓ PgUp PgDn scroll$`);
    // The screen itself (capture-pane without the history above it), one string per line.
    const visible = (what, check) => waitFor(what, () => {
      const s = tmux("capture-pane", "-p", "-t", name).split("\n").map((l) => l.trimEnd());
      return check(s) ? s : null;
    });
    const page = await visible("page 1 in the pager", (s) => s.some((l) => l.includes(pageTitle)) && s.some((l) => footer(1, 1).test(l)));
    const top = page.findIndex((l) => l.includes(pageTitle));
    process.stdout.write(`\n── pi ${HOST}, /anchors → rewind 1, page 1 as opened (first 8 lines and the footer) ──\n${page.slice(0, top + 8).join("\n")}\n…\n${page.filter((l) => footer(1, 1).test(l)).join("\n")}\n`);
    assert.equal(top, 1, "the pager covers the screen from its top: a border, then the title");
    assert.match(page[0], /^─{120}$/);
    assert.equal(page[top + 1], ` ${first.lines[0]}`.slice(0, 120).trimEnd(), "the line under the title is page 1's first line");
    assert.equal(page[top + 2], ` ${first.lines[1]}`.slice(0, 120).trimEnd());
    const shownAll = page.join("\n");
    assert.doesNotMatch(shownAll, /navigate_tree\(action='recall'|\[recall 'parser-done'\]|enter submit|external editor/, "nothing for the model, no editor keys");
    const total = Number(page.map((l) => l.match(footer(1, 1))).find(Boolean)[2]);
    assert.equal(total, first.lines.length, "the footer counts the page's lines");

    // PgDn scrolls by a screen less a line; End shows the last line; → opens page 2 at its top; ← goes back.
    tmux("send-keys", "-t", name, "PageDown");
    const down = await visible("page 1 scrolled", (s) => s.some((l) => /^ page 1 of \d+ · lines (?!1–)\d+–/.test(l)));
    assert.ok(!down.some((l) => l === page[top + 1]), "the first line scrolled off");
    tmux("send-keys", "-t", name, "End");
    await visible("page 1's end", (s) => s.some((l) => new RegExp(`^ page 1 of \\d+ · lines \\d+–${total} of ${total} ·`).test(l)));
    tmux("send-keys", "-t", name, "Right");
    const second = await visible("page 2", (s) => s.some((l) => l.includes(`What was collapsed at 'parser-done' · page 2 of ${first.pages}`)));
    assert.ok(second.some((l) => footer(2, 1).test(l) || new RegExp(`^ page 2 of ${first.pages} · (→ next page · )?← back`).test(l)), second.join("\n"));
    // The last page offers no next page, and → does nothing there.
    let last;
    for (let k = 3; k <= first.pages; k++) {
      tmux("send-keys", "-t", name, "Right");
      last = await visible(`page ${k}`, (s) => s.some((l) => l.includes(`What was collapsed at 'parser-done' · page ${k} of ${first.pages}`)));
    }
    const lastTitle = `What was collapsed at 'parser-done' · page ${first.pages} of ${first.pages}`;
    const lastFooter = last.find((l) => l.startsWith(` page ${first.pages} of ${first.pages} · `));
    assert.match(lastFooter ?? "", /· ← back to the list · esc close/);
    assert.doesNotMatch(lastFooter, /next page/);
    tmux("send-keys", "-t", name, "Right");
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(tmux("capture-pane", "-p", "-t", name).includes(lastTitle), "still the last page");
    tmux("send-keys", "-t", name, "Left");
    await waitFor("back at the list", () => listShown());
    tmux("send-keys", "-t", name, "Escape");
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(sessionFiles(sessions), before, "the command wrote nothing to the session");
    assert.equal(mock.requests.length, requests, "and sent nothing to the model");
  });

  await t.test("the cache-miss line shows only with showCacheMissNotices on, for a summary that missed the cache", () => {
    const miss = (lines) => lines.filter((l) => l.includes("cache miss: the rewind's summary"));
    assert.equal(miss(off.lines).length, 0, "notices off: no line");
    process.stdout.write(`\n── pi ${HOST}, collapsed, showCacheMissNotices on ──\n${rewindAndList(on.lines).join("\n")}\n`);
    assert.equal(miss(on.lines).length, 1, `notices on, cold summary: one line\n${on.lines.join("\n")}`);
    assert.match(miss(on.lines)[0], /was written cold \(disabled\): \d+(\.\d)?k? prompt tokens not read from the cache/);
    assert.ok(rewindAndList(on.lines).length <= 8, "the line is the only addition");
    assert.equal(miss(warm.lines).length, 0, `notices on, cached summary: no line\n${warm.lines.join("\n")}`);
    assert.match(warm.lines.join("\n"), /summary from the prompt cache/);
  });
});
