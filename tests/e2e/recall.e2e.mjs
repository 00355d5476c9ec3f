// navigate_tree(action="recall") in real pi (issue 24): the model reads back, word for word, what a rewind
// collapsed. One run per host:
//   anchor "start" → bulk_read 30k chars (numbered lines, "alpha") → bulk_read 600 chars ("beta") → rewind to
//   "start" as "done" → recall "done" page by page to the end → recall "start" (the anchor rewound to) with a
//   query → refusals: unknown name, no match, a page past the end, an anchor nothing was rewound to → "done".
// Checked: the pages put back together are the collapsed entries' exact text (the 30k tool result included), each
// page ≤ 2,000 tokens (ceil(chars/4)), the query narrows to the one entry, each refusal says why, and recall
// adds nothing to the session but its call and result: the model's next request is the previous one plus the
// call and the page, nothing else.
// After a compaction and `pi-tree-navigator archive` (the collapsed branch moved to the sidecar, the rewind's summary
// and synthetic call left as stubs), the same recalls in the reopened
// session give the very same pages, read from the sidecar.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test, { after } from "node:test";
import { assertAllPaired, resultEntry } from "./lib/checks.mjs";
import { createSession, loadHost, ScriptedModel } from "./lib/harness.mjs";
import { FIXTURES, PKG_DIR } from "./lib/hosts.mjs";

const host = await loadHost();
const EXTENSIONS = [PKG_DIR, join(FIXTURES, "bulk-ext/index.js")];
const TOOLS = ["navigate_tree", "bulk_read"];
const PAGE_TOKENS = 2000;
const recall = (args, id) => ["navigate_tree", { action: "recall", ...args }, id];

/** The text of the last message of a request, when it is a tool result. */
function lastResult(request) {
  const m = request.messages.at(-1);
  return m?.role === "toolResult" ? m.content.map((c) => c.text ?? "").join("") : "";
}

/** A page's entries: `{id, what, part, text}` each, the text exactly as the page holds it. */
function piecesOf(page) {
  const header = /^──── entry (\S+) · (.+?)(?: · part (\d+) of (\d+))? ────\n/gm;
  const heads = [...page.matchAll(header)];
  const end = page.search(/\n(Page \d+ of \d+: navigate_tree|End of what was collapsed at )[^\n]*$/);
  return heads.map((h, i) => {
    const from = h.index + h[0].length;
    const to = i + 1 < heads.length ? heads[i + 1].index - 1 : end;
    return { id: h[1], what: h[2], part: h[3] ? Number(h[3]) : null, text: page.slice(from, to) };
  });
}

let run;
after(() => run?.then((r) => r.s.dispose()).catch(() => {}));

function recallRun() {
  return (run ??= (async () => {
    const m = new ScriptedModel(host);
    const pages = [];
    // After the first page, follow "Page k of n: …" to the end, then the rest of the script.
    const rest = [
      recall({ name: "start", query: "BETA" }, "q1"),
      recall({ name: "nope" }, "x1"),
      recall({ name: "done", query: "not in there" }, "x2"),
      recall({ name: "done", page: 99 }, "x3"),
      ["navigate_tree", { action: "anchor", name: "later" }, "a2"],
      recall({ name: "later" }, "x4"),
    ];
    const follow = (request) => {
      const next = /\nPage (\d+) of \d+: navigate_tree\(action='recall', name='done', page=\d+\)$/.exec(lastResult(request));
      if (next) return m.calls([recall({ name: "done", page: Number(next[1]) }, `p${next[1]}`)]);
      const step = rest.shift();
      return step ? m.calls([step]) : m.text("all read");
    };
    m.agent.push(
      m.calls([["navigate_tree", { action: "anchor", name: "start" }, "a1"]]),
      m.calls([["bulk_read", { chars: 30000, tag: "alpha", numbered: true }, "b1"]]),
      m.calls([["bulk_read", { chars: 600, tag: "beta" }, "b2"]]),
      m.calls([["navigate_tree", { action: "rewind", labelStart: "start", labelEnd: "done", summaryFocus: "Done: read alpha and beta. Left: nothing." }, "r1"]]),
      m.calls([recall({ name: "done" }, "p1")]),
      ...Array.from({ length: 40 }, () => follow),
    );
    m.summary.push(m.text("## Goal\nread the data\n## Progress\n### Done\n- read alpha and beta"));
    const s = await createSession(host, m, { extensions: EXTENSIONS, tools: TOOLS });
    const { sm } = s;
    await s.session.prompt("read the data");
    for (const e of sm.getEntries()) if (e.type === "message" && e.message.toolCallId?.startsWith("p")) pages.push(e);
    return { m, s, sm, pages };
  })());
}

/** The result message of call `id` and its text. */
function result(sm, id) {
  const message = resultEntry(sm, id);
  assert.ok(message, `no result for ${id}`);
  return { message, text: message.content.map((c) => c.text ?? "").join("") };
}

test(`pi ${host.version}: recall gives back the exact text a rewind collapsed, in pages of ≤2k tokens`, async () => {
  const { m, sm, pages } = await recallRun();
  assert.match(result(sm, "r1").text, /^\[rewind 'start' → 'done'\]/, "the rewind happened");
  assert.ok(pages.length >= 4, `30k characters take several pages (${pages.length})`);
  const got = new Map();
  pages.forEach((entry, i) => {
    const text = entry.message.content.map((c) => c.text ?? "").join("");
    assert.equal(entry.message.isError, false, text);
    assert.ok(Math.ceil(text.length / 4) <= PAGE_TOKENS, `page ${i + 1}: ${Math.ceil(text.length / 4)} tokens`);
    assert.ok(text.startsWith(`[recall 'done'] page ${i + 1} of ${pages.length} · `), text.slice(0, 120));
    assert.equal(entry.message.details.page, i + 1);
    assert.ok(entry.message.details.tokens <= PAGE_TOKENS);
    for (const p of piecesOf(text)) got.set(p.id, (got.get(p.id) ?? "") + p.text);
  });
  // Every collapsed tool result and assistant text, byte for byte (the rewind's own call has no text).
  const alpha = sm.getEntries().find((e) => e.message?.toolCallId === "b1");
  const beta = sm.getEntries().find((e) => e.message?.toolCallId === "b2");
  assert.equal(alpha.message.content[0].text.length, 30000);
  assert.deepEqual([...got.keys()], [alpha.id, beta.id], "the collapsed entries with text, oldest first");
  assert.ok(got.get(alpha.id) === alpha.message.content[0].text, "the 30k tool result comes back exactly");
  assert.ok(got.get(beta.id) === beta.message.content[0].text, "the small one too");
  assertAllPaired(m);
});

test(`pi ${host.version}: a query narrows recall; refusals say why`, async () => {
  const { sm } = await recallRun();
  const beta = sm.getEntries().find((e) => e.message?.toolCallId === "b2");
  const q = result(sm, "q1");
  assert.equal(q.message.isError, false, q.text);
  assert.ok(q.text.startsWith(`[recall 'start'] page 1 of 1 · 1 of 2 collapsed entries contain "BETA"`), q.text.slice(0, 200));
  assert.deepEqual(q.message.details.entryIds, [beta.id]);
  assert.deepEqual(piecesOf(q.text).map((p) => p.text), [beta.message.content[0].text]);
  const refusals = { x1: "No anchor 'nope' in this session.", x2: "None of the 2 entries collapsed at 'done' contains \"not in there\"", x3: "There is no page 99: recall 'done' has", x4: "Nothing was collapsed at 'later'" };
  const codes = { x1: "UnknownName", x2: "NoMatch", x3: "NoSuchPage", x4: "NothingCollapsed" };
  for (const [id, start] of Object.entries(refusals)) {
    const r = result(sm, id);
    assert.equal(r.message.isError, true, `${id}: ${r.text}`);
    assert.ok(r.text.startsWith(start), `${id}: ${r.text}`);
    assert.equal(r.message.details.refused, codes[id]);
  }
});

test(`pi ${host.version}: recall adds only its call and result; the next request grows by exactly the page`, async () => {
  const { m, sm } = await recallRun();
  const ids = ["p1", "p2", "q1", "x1", "x2"];
  for (const id of ids) {
    // The request that answered with the call, and the next one.
    const at = m.requests.findIndex((r) => r.messages.some((x) => x.role === "toolResult" && x.toolCallId === id));
    assert.ok(at > 0, `a request after ${id}`);
    const [before, next] = [m.requests[at - 1], m.requests[at]];
    assert.deepEqual(next.messages.slice(0, before.messages.length), before.messages, `${id}: everything before stays as it was`);
    const added = next.messages.slice(before.messages.length);
    assert.deepEqual(added.map((x) => x.role), ["assistant", "toolResult"], `${id}: only the call and its result`);
    assert.deepEqual(added[0].content.filter((c) => c.type === "toolCall").map((c) => c.id), [id]);
    assert.equal(added[1].content.map((c) => c.text).join(""), result(sm, id).text, `${id}: the result is the page`);
  }
  // In the session: each recall's result is the only child of its call, and the next entry is the model's reply.
  for (const id of ids) {
    const call = sm.getEntries().find((e) => e.message?.role === "assistant" && e.message.content.some((c) => c.id === id));
    const children = sm.getEntries().filter((e) => e.parentId === call.id);
    assert.deepEqual(children.map((e) => e.message?.role), ["toolResult"], `${id}: nothing but the result under the call`);
    const after = sm.getEntries().filter((e) => e.parentId === children[0].id);
    assert.deepEqual(after.map((e) => e.message?.role), ["assistant"], `${id}: then the model's next message`);
  }
});

/**
 * Runs `/anchors` in pi through its command runner with a scripted dialog: every row is chosen in turn and every
 * page read to the end. Returns what the user saw (dialog titles, options, pages, notes) and checks nothing was
 * added to the session.
 */
async function anchorsSeen(s) {
  const runner = s.session.extensionRunner;
  const command = runner.getCommand("anchors");
  assert.ok(command, "/anchors is registered in pi");
  const ctx = Object.defineProperties({}, Object.getOwnPropertyDescriptors(runner.createCommandContext()));
  const seen = [];
  let next = 0;
  let rows = null;
  const ui = {
    select: async (title, options) => {
      seen.push(["select", title, options]);
      if (rows === null || options === rows || options.join("\n") === rows.join("\n")) {
        rows = options;
        return next < options.length ? options[next++] : undefined; // each row in turn, then Esc
      }
      return options[0]; // a page: the next one, else back to the rows
    },
    editor: async (title, text) => {
      seen.push(["page", title, text]);
      return undefined;
    },
    notify: (text, level) => seen.push(["note", level, text]),
  };
  Object.defineProperty(ctx, "ui", { value: ui });
  Object.defineProperty(ctx, "hasUI", { value: true });
  const count = s.sm.getEntries().length;
  await command.handler("", ctx);
  assert.equal(s.sm.getEntries().length, count, "/anchors added nothing to the session");
  return seen;
}

test(`pi ${host.version}: after archive, recall reads the collapsed entries from the sidecar, the same pages`, async () => {
  const dir = mkdtempSync(join(tmpdir(), `ptn-recall-archive-${host.version}-`));
  const cwd = join(dir, "cwd");
  const sessionDir = join(dir, "sessions");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(sessionDir, { recursive: true });
  const calls = [recall({ name: "done" }, "p1"), recall({ name: "done", page: 2 }, "p2"), recall({ name: "start", query: "BETA" }, "q1")];
  const sessions = [];
  try {
    const m = new ScriptedModel(host);
    m.agent.push(
      m.calls([["navigate_tree", { action: "anchor", name: "start" }, "a1"]]),
      m.calls([["bulk_read", { chars: 30000, tag: "alpha", numbered: true }, "b1"]]),
      m.calls([["bulk_read", { chars: 600, tag: "beta" }, "b2"]]),
      m.calls([["navigate_tree", { action: "rewind", labelStart: "start", labelEnd: "done", summaryFocus: "Done: read alpha and beta." }, "r1"]]),
      ...calls.map((c) => m.calls([c])),
      m.text("read"),
    );
    m.summary.push(m.text("## Goal\nread the data\n## Progress\n### Done\n- read alpha and beta"));
    m.summary.push(m.text("## Goal\nread the data\n## Progress\n### Done\n- read, rewound, recalled"));
    const sm = host.pca.SessionManager.create(cwd, sessionDir);
    const s = await createSession(host, m, { extensions: EXTENSIONS, tools: TOOLS, sessionManager: sm, cwd, compaction: { keepRecentTokens: 500 } });
    sessions.push(s);
    await s.session.prompt("read the data");
    // A compaction after it all: the rewind's summary and synthetic call become stubs on archiving.
    m.agent.push(m.text("nothing more"));
    await s.session.prompt("anything else?");
    await s.session.compact();
    const file = s.sm.getSessionFile();
    const alpha = s.sm.getEntries().find((e) => e.message?.toolCallId === "b1");
    const before = calls.map(([, , id]) => result(s.sm, id));
    for (const [i, r] of before.entries()) assert.equal(r.message.isError, false, `${calls[i][2]}: ${r.text}`);
    const anchorsBefore = await anchorsSeen(s);

    const cli = spawnSync(process.execPath, [join(PKG_DIR, "cli.js"), "archive", file, "--min-idle", "0"], { encoding: "utf8" });
    assert.equal(cli.status, 0, `archive: ${cli.stdout}${cli.stderr}`);
    assert.ok(existsSync(`${file}.archive`), "the sidecar was written");
    const reopened = host.pca.SessionManager.open(file);
    assert.equal(reopened.getEntry(alpha.id), undefined, "the collapsed branch left pi's session");
    const summary = reopened.getBranch().find((e) => e.type === "branch_summary");
    assert.match(summary.summary, /^\[archived in /, "the rewind's summary is a stub in pi's session");

    const m2 = new ScriptedModel(host);
    const again = calls.map(([tool, args, id]) => [tool, args, `${id}b`]);
    m2.agent.push(...again.map((c) => m2.calls([c])), m2.text("read again"));
    const s2 = await createSession(host, m2, { extensions: EXTENSIONS, tools: TOOLS, sessionManager: reopened, cwd });
    sessions.push(s2);
    // The user's /anchors after archive: the same rows, the same pages (the collapsed text read from the sidecar).
    const anchorsAfter = await anchorsSeen(s2);
    assert.deepEqual(anchorsAfter, anchorsBefore, "/anchors shows the same rows and pages as before archiving");
    const shown = anchorsBefore.filter(([kind]) => kind === "page").map(([, , text]) => text);
    assert.ok(shown.some((text) => piecesOf(text).some((p) => p.id === alpha.id)), "/anchors showed the 30k result (from the sidecar after archive)");
    await s2.session.prompt("read it again");
    again.forEach(([, , id], i) => {
      const r = result(s2.sm, id);
      assert.equal(r.message.isError, false, `${id}: ${r.text}`);
      assert.ok(r.text === before[i].text, `${id}: the same page, byte for byte, as before archiving`);
      assert.deepEqual(r.message.details, before[i].message.details, `${id}: the same details`);
    });
    assert.ok(piecesOf(before[0].text).some((p) => p.id === alpha.id), "page 1 holds the 30k result read from the sidecar");

    // Without the sidecar, recall answers as before archiving was read: a refusal, not a crash.
    rmSync(`${file}.archive`);
    const m3 = new ScriptedModel(host);
    m3.agent.push(m3.calls([recall({ name: "done" }, "z1")]), m3.text("gone"));
    const s3 = await createSession(host, m3, { extensions: EXTENSIONS, tools: TOOLS, sessionManager: host.pca.SessionManager.open(file), cwd });
    sessions.push(s3);
    await s3.session.prompt("once more");
    const z = result(s3.sm, "z1");
    assert.equal(z.message.isError, true, z.text);
    assert.ok(z.text.startsWith("Nothing was collapsed at 'done'"), z.text);
  } finally {
    for (const s of sessions) s.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});
