// Facts survive a rewind (issue 30), in real pi with real tools (faux model, offline). The collapsed work holds a real
// `read` of src/lexer/tokens.rs, a real `bash` run printing `error[E0308]: mismatched types` at src/parser.rs:42:7 and
// `test result: FAILED. 12 passed; 2 failed`, a real `write` of src/parser/expr.rs, and a user instruction steered in
// mid-run (`session.steer`); the summarizer's text mentions none of it. In the request right after the rewind each fact
// is found verbatim — in the branch summary and nowhere else — on the cache-preserving path (pi ≥0.87; the older hosts
// fall back to the cold one) and on pi's cold path; `recall` by each item's id reads that entry whole. Without the
// ledger the same run keeps none of the user's, the error's or the test's words (the check can fail). A summary cut at
// the output limit still rewinds and says so where the reply is seen (both paths on pi ≥0.87); the summary request
// asks for the model's own output limit there.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import test from "node:test";
import { assertAllPaired, resultEntry, resultText } from "./lib/checks.mjs";
import { createSession, loadHost, routedModel, testDir, useAgentDir } from "./lib/harness.mjs";
import { FIXTURES, PKG_DIR } from "./lib/hosts.mjs";

// The driver switches the cache-preserving summary off for the older scenarios; this file sets it per test.
for (const k of ["PI_TREE_NAVIGATOR_NO_START_ANCHOR", "PI_TREE_NAVIGATOR_NO_HINT", "PI_TREE_NAVIGATOR_NO_CACHE_SUMMARY", "PI_TREE_NAVIGATOR_NO_LEDGER"]) delete process.env[k];
const host = await loadHost();
const CAPTURES = host.major > 0 || host.minor >= 87; // context_with_system: the cache-preserving path exists
const SEES_REPLY = host.major > 0 || host.minor >= 87; // pi's summarizer takes our stream function
const EXTENSIONS = [PKG_DIR, join(FIXTURES, "bulk-ext/index.js")];
const TOOLS = ["navigate_tree", "bulk_read", "read", "bash", "write"];
const INSTRUCTION = "Stop the task here: do not continue the work";
const STEERED = "Keep the public API of Token unchanged: do not rename any variant.";
const TOKENS_RS = "pub enum Token {\n    Ident(String),\n    Number(i64),\n}\n";
const EXPR_RS = "pub fn parse_expr(tokens: &[Token]) -> Expr {\n    todo!()\n}\n";
const COMMAND = "printf 'error[E0308]: mismatched types\\n  --> src/parser.rs:42:7\\n\\ntest result: FAILED. 12 passed; 2 failed; 0 ignored\\n'; exit 101";
/** The six facts, as the next request must hold them. */
const FACTS = ["src/lexer/tokens.rs", "error[E0308]: mismatched types", "src/parser.rs:42:7", "test result: FAILED. 12 passed; 2 failed", "src/parser/expr.rs", STEERED];
const FOCUS = "User asked to fix the parser. Done: the parser work. Left: nothing.";
const SUMMARY = "## Goal\nFix the parser.\n## Progress\n### Done\n- the parser work\n## Next Steps\n1. Report to the user";

/** Each path's words in a test's name: what it checks on this host (pi <0.87 has no cache path: the default takes the cold one). */
const PATH_NAMES = { cache: CAPTURES ? "cache path" : `default config; pi ${host.version} has no cache path, so the cold one, reason no-capture`, cold: "cold path" };

const isCacheSummary = (request) => JSON.stringify(request.messages.at(-1)?.content ?? "").includes(INSTRUCTION);
const textOf = (m) => (typeof m.content === "string" ? m.content : (m.content ?? []).map((c) => c.text ?? "").join(""));

/**
 * One run: anchor, real read / bash (the user steers in while it runs) / write, bulky work, rewind, then `recall` of every
 * ledger item named in the next request. `config`: tree-navigator.json; `summary(m)`: the summarizer's reply.
 */
async function run(t, { config = null, summary = (m) => m.text(SUMMARY) } = {}) {
  const made = testDir(t, "ptn-ledger-");
  const dirs = made.dir;
  const agentDir = join(dirs, "agent");
  const cwd = join(dirs, "cwd");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(join(cwd, "src/lexer"), { recursive: true });
  mkdirSync(join(cwd, "src/parser"), { recursive: true });
  writeFileSync(join(cwd, "src/lexer/tokens.rs"), TOKENS_RS);
  useAgentDir(t, agentDir, config);

  const { m, order } = routedModel(host, isCacheSummary);
  const box = { recalls: null, replies: [] };
  const call = (name, args, id) => m.calls([[name, args, id]]);
  m.agentBy.main = [
    call("navigate_tree", { action: "anchor", name: "start" }, "c1"),
    call("read", { path: "src/lexer/tokens.rs" }, "c2"),
    () => {
      // The user types while the command runs: pi delivers it after the tool, before the next request.
      box.steered = box.session.steer(STEERED);
      return call("bash", { command: COMMAND }, "c3");
    },
    call("write", { path: "src/parser/expr.rs", content: EXPR_RS }, "c4"),
    call("bulk_read", { chars: 30_000, tag: "work" }, "c5"),
    call("navigate_tree", { action: "rewind", labelStart: "start", labelEnd: "done", summaryFocus: FOCUS }, "c6"),
    ...Array.from({ length: 12 }, () => (request) => {
      // After the rewind: recall each entry the summary's ledger names, one call at a time.
      if (!box.recalls) {
        const summary = request.messages.find((x) => x.role === "user" && textOf(x).includes("<ledger>"));
        box.recalls = [...new Set([...textOf(summary ?? { content: "" }).matchAll(/^- \[([^\]]+)\] /gm)].map((x) => x[1]))];
        box.recalled = [...box.recalls];
      }
      const id = box.recalls.shift();
      return id ? call("navigate_tree", { action: "recall", name: id }, `k-${id}`) : m.text("done");
    }),
  ];
  // The summarizer's reply, kept as returned, whichever request (cache path or cold) asked for it.
  const reply = () => {
    const r = summary(m);
    box.replies.push(r);
    return r;
  };
  m.agentBy.live = [reply];
  m.summary.push(reply);
  const s = (made.session = await createSession(host, m, { extensions: EXTENSIONS, tools: TOOLS, cwd }));
  box.session = s.session;
  await s.session.prompt("Fix the parser.");
  await box.steered;
  const rewound = resultEntry(s.sm, "c6");
  assert.ok(rewound, "the rewind ran");
  assert.notEqual(rewound.isError, true, resultText(s.sm, "c6"));
  // The first request after the rewind: the one that carries the rewind's own result.
  const next = m.requests.find((r) => r.messages.some((x) => x.role === "toolResult" && x.toolCallId === "c6"));
  assert.ok(next, "a request after the rewind");
  return { m, sm: s.sm, order, rewound, next, recalled: box.recalled ?? [], replies: box.replies, cwd };
}

/** Each fact is in the branch summary of `next`, and in no other message of it. */
function assertFactsInSummaryOnly(next) {
  const summary = next.messages.find((x) => x.role === "user" && textOf(x).includes("Summary of the work this rewind collapsed:"));
  assert.ok(summary, "the branch summary is in the next request");
  const others = next.messages.filter((x) => x !== summary).map((x) => JSON.stringify(x)).join("\n");
  for (const fact of FACTS) {
    assert.ok(textOf(summary).includes(fact), `"${fact}" in the summary:\n${textOf(summary)}`);
    assert.ok(!others.includes(fact), `"${fact}" only in the summary, not elsewhere in the request`);
  }
  return textOf(summary);
}

/** `recall` by each id the ledger named read that entry whole. */
function assertRecalledWhole(sm, recalled) {
  // The steered message, the read's result, the bash result (its command, error and test lines), the write's call.
  assert.equal(recalled.length, 4, `the ledger names the entries of its items: ${recalled}`);
  for (const id of recalled) {
    const page = resultEntry(sm, `k-${id}`);
    const text = resultText(sm, `k-${id}`);
    assert.equal(page?.isError, false, `recall ${id}: ${text}`);
    assert.ok(text.startsWith(`[recall '${id}'] page 1 of 1 · entry ${id}, whole`), text.slice(0, 120));
    const entry = sm.getEntry(id);
    const message = entry.message;
    if (message.role === "assistant") {
      for (const c of message.content.filter((b) => b.type === "toolCall")) {
        assert.ok(text.includes(`[tool call ${c.name} (${c.id})]`), `${id}: the call`);
        for (const [k, v] of Object.entries(c.arguments)) assert.ok(text.includes(`${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`), `${id}: argument ${k} whole`);
      }
    } else {
      assert.ok(text.includes(textOf(message)), `${id}: the ${message.role} text whole`);
    }
  }
}

for (const path of ["cache", "cold"]) {
  test(`pi ${host.version}: the six planted facts reach the next request verbatim after a rewind (${PATH_NAMES[path]}), and recall reads each item's entry whole`, async (t) => {
    const { sm, order, rewound, next, recalled, replies, m } = await run(t, { config: path === "cold" ? { cacheSummary: false } : null });
    const served = rewound.details.summaryCache;
    if (path === "cache" && CAPTURES) assert.equal(served.mode, "live-prefix", JSON.stringify(served));
    else assert.deepEqual([served.mode, served.reason], ["fallback", path === "cold" ? "disabled" : "no-capture"], JSON.stringify(served));
    const asked = order.filter((o) => o.kind !== "main").map((o) => o.request);
    assert.equal(asked.length, 1, "one summary request");
    const summary = assertFactsInSummaryOnly(next);
    assert.ok(!summary.includes("explored a different conversation branch"), "our own wording, not pi's preamble");
    assert.ok(!summary.includes("<read-files>") && !summary.includes("<modified-files>"), "pi's lists are not repeated");
    // What the rewind's result says it cost, and what pi stores.
    assert.ok(rewound.details.ledgerTokens > 0 && rewound.details.ledgerItems >= 6, JSON.stringify(rewound.details));
    assert.match(resultText(sm, "c6"), new RegExp(` · ledger ${rewound.details.ledgerTokens} tokens\\n`));
    const stored = sm.getEntries().find((e) => e.type === "branch_summary");
    assert.deepEqual(stored.details, { readFiles: ["src/lexer/tokens.rs"], modifiedFiles: ["src/parser/expr.rs"] });
    // The summarizer answered once, and its text as stored holds none of the facts: each is in the ledger after it.
    assert.equal(replies.length, 1, "one reply of the summarizer");
    const answered = textOf(replies[0]);
    const ledgerAt = stored.summary.indexOf("<ledger>");
    const [said, ledger] = [stored.summary.slice(0, ledgerAt), stored.summary.slice(ledgerAt)];
    assert.ok(answered && said.includes(answered), `the summarizer's reply is the summary's text:\n${said}`);
    for (const fact of FACTS) {
      assert.ok(!said.includes(fact), `"${fact}" not in the summarizer's part:\n${said}`);
      assert.ok(ledger.includes(fact), `"${fact}" in the ledger:\n${ledger}`);
    }
    assert.equal(Math.ceil(stored.summary.slice(stored.summary.indexOf("<ledger>")).length / 4), rewound.details.ledgerTokens);
    // The summary request asked for the model's own output limit where the plugin sends it.
    if (SEES_REPLY) assert.equal(asked[0].options.maxTokens, m.model.maxTokens);
    assertRecalledWhole(sm, recalled);
    assertAllPaired(m);
  });
}

test(`pi ${host.version}: without the ledger the next request keeps none of the user's, the error's or the test's words`, async (t) => {
  const { next, rewound } = await run(t, { config: { ledgerTokens: "off" } });
  const all = JSON.stringify(next.messages);
  for (const fact of [STEERED, "error[E0308]: mismatched types", "src/parser.rs:42:7", "test result: FAILED"]) {
    assert.ok(!all.includes(fact), `"${fact}" is lost without the ledger`);
  }
  assert.equal(rewound.details.ledgerTokens, 0);
});

for (const path of ["cache", "cold"]) {
  test(`pi ${host.version}: a summary cut at the output limit still rewinds, the facts kept (${PATH_NAMES[path]})`, async (t) => {
    const cut = (m) => host.ai.fauxAssistantMessage("## Goal\nFix the pars", { stopReason: "length" });
    const { sm, rewound, next } = await run(t, { config: path === "cold" ? { cacheSummary: false } : null, summary: cut });
    assertFactsInSummaryOnly(next);
    // Where the plugin sees the reply (the cache path; the cold path through the stream function pi ≥0.87 takes).
    const seen = SEES_REPLY && (path === "cold" || CAPTURES);
    assert.equal(rewound.details.summaryCut, seen, JSON.stringify(rewound.details));
    assert.equal(/The summary was cut off at the output limit/.test(resultText(sm, "c6")), seen);
    const stored = sm.getEntries().find((e) => e.type === "branch_summary");
    assert.equal(stored.summary.includes("(This summary was cut off at the model's output limit."), seen);
  });
}
