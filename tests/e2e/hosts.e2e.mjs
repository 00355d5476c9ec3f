// Host matrix checks (issue 13), run per host by tests/e2e/e2e.test.mjs:
// - runs started by pi.sendMessage(…, {triggerTurn: true}) and by an extension command, not prompt(),
//   with both provider paths the host has (see ScriptedModel's `provider`);
// - the summarizer passes no explicit apiKey when the host resolves none (pi 1.5.x: an explicit key, even "",
//   overrides the stored OAuth login);
// - footer parity: after every navigate_tree call the numbers it reports equal pi's own ctx.getContextUsage().
import assert from "node:assert/strict";
import { join } from "node:path";
import test from "node:test";
import { assertAllPaired, BRANCH_SUMMARY_PREFIX, resultText } from "./lib/checks.mjs";
import { createSession, loadHost, ScriptedModel } from "./lib/harness.mjs";
import { FIXTURES, PKG_DIR } from "./lib/hosts.mjs";

const host = await loadHost();
const PROBE = Symbol.for("ptn.e2e.probe");
const EXTENSIONS = [PKG_DIR, join(FIXTURES, "bulk-ext/index.js"), join(FIXTURES, "probe-ext/index.js")];
const TOOLS = ["navigate_tree", "bulk_read"];
const FOCUS = "Done: read the data. Left: nothing.";
const PATHS = host.runtimeHost ? ["native", "registered"] : ["registered"];

const steps = (m) => [
  m.calls([["navigate_tree", { action: "anchor", name: "start" }, "c1"]]),
  m.calls([["bulk_read", { chars: 40000, tag: "bulk" }, "c2"]]),
  m.calls([["navigate_tree", { action: "rewind", labelStart: "start", labelEnd: "done", summaryFocus: FOCUS }, "c3"]]),
  m.calls([["navigate_tree", { action: "list" }, "c4"]]),
  m.text("all done"),
];

async function start(t, provider) {
  const m = new ScriptedModel(host, { provider });
  m.agent.push(...steps(m));
  m.summary.push((req) => {
    m.summaryOptions = req.options;
    return m.text("## Goal\nread the data\n## Progress\n### Done\n- read (HOST-SUMMARY)");
  });
  const s = await createSession(host, m, { extensions: EXTENSIONS, tools: TOOLS });
  t.after(() => s.dispose());
  return { m, s, sm: s.sm, probe: globalThis[PROBE] };
}

/** Resolves when the agent has settled (a run started without prompt() has nothing to await). */
async function settled(session, m, requests) {
  const t0 = Date.now();
  while (Date.now() - t0 < 20_000) {
    if (m.requests.length >= requests && !session.isStreaming) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`run did not settle: ${m.requests.length} requests, streaming=${session.isStreaming}`);
}

function checkRewound(m, sm, label) {
  assert.equal(m.summaryRequests.length, 1, `${label}: one summary request`);
  const rewind = resultText(sm, "c3");
  assert.match(rewind, /^\[rewind 'start' → 'done'\]/, `${label}: ${rewind}`);
  const after = JSON.stringify(m.requests[3].messages);
  assert.ok(after.includes(BRANCH_SUMMARY_PREFIX) && after.includes("HOST-SUMMARY"), `${label}: request 4 holds the summary`);
  assert.ok(!after.includes("x".repeat(1000)), `${label}: request 4 no longer holds the bulk`);
  assertAllPaired(m);
}

/**
 * Footer parity: each navigate_tree call's numbers against pi's ctx.getContextUsage() at that moment.
 * - list: `contextTokens` = pi's number when the result is ready;
 * - rewind: `contextBefore` = pi's number when the request that made the call was sent (the context the model
 *   last saw; pi's number while the call runs also holds the call's own usage), `contextAfter` = pi's number when
 *   the result is ready (the tree has moved; the leaf is the summary's re-appended call);
 * - anchor: `contextTokens` is the estimate at the labelled point (before the call's own message), so it is
 *   compared with pi's number taken when that point was the leaf (the start of the turn that made the call).
 */
function checkFooter(probe, label) {
  let checked = 0;
  for (const call of probe.calls) {
    const d = call.details ?? {};
    const action = call.input?.action;
    if (process.env.PTN_E2E_DEBUG) console.log(label, action, JSON.stringify({ before: call.before, after: call.after, d }));
    if (call.isError || d.refused) continue;
    if (action === "list") {
      assert.equal(d.contextTokens, call.after.tokens, `${label}: list contextTokens vs getContextUsage()`);
      checked++;
    } else if (action === "rewind") {
      // contextBefore is the context the model last saw (at the parent of the call's own message): pi's number
      // when the request that made the call was sent.
      assert.ok(probe.atLeaf.has(call.parentOfCall), `${label}: pi's number at the request that made the rewind call`);
      assert.equal(d.contextBefore, probe.atLeaf.get(call.parentOfCall).tokens, `${label}: rewind contextBefore vs getContextUsage() at its request`);
      if (!host.runtimeHost && d.stateRefreshed === false) {
        // pi <0.80 computes its number from agent.state.messages; a run started without prompt() leaves the
        // session uncaptured, so that copy cannot be refreshed: pi's footer keeps the pre-rewind number until the
        // next prompt() (the model already sees the rewound context through the `context` event). We show the
        // session's number.
        assert.equal(call.after.tokens, call.before.tokens, `${label}: pi's stale footer`);
        assert.ok(d.contextAfter < d.contextBefore, `${label}: our contextAfter is the rewound session's`);
      } else {
        assert.equal(d.contextAfter, call.after.tokens, `${label}: rewind contextAfter vs getContextUsage() after the rewind`);
      }
      checked++;
    } else if (action === "anchor" && probe.atLeaf.has(d.entryId)) {
      assert.equal(d.contextTokens, probe.atLeaf.get(d.entryId).tokens, `${label}: anchor contextTokens vs getContextUsage() at the anchored point`);
      checked++;
    }
  }
  assert.equal(checked, 3, `${label}: anchor, rewind and list compared with pi's footer`);
}

for (const provider of PATHS) {
  test(`pi ${host.version} [${provider}]: a run started by pi.sendMessage(…, {triggerTurn: true}) rewinds`, async (t) => {
    const { m, s, sm, probe } = await start(t, provider);
    probe.pi.sendMessage({ customType: "ptn-run", content: "do the work", display: true }, { triggerTurn: true });
    await settled(s.session, m, 5);
    checkRewound(m, sm, "sendMessage");
    checkFooter(probe, "sendMessage");
  });

  test(`pi ${host.version} [${provider}]: a run started by an extension command rewinds`, async (t) => {
    const { m, s, sm, probe } = await start(t, provider);
    await s.session.prompt("/ptn-run do the work");
    await settled(s.session, m, 5);
    checkRewound(m, sm, "command");
    checkFooter(probe, "command");
  });

  test(`pi ${host.version} [${provider}]: prompt() run — footer parity after every call`, async (t) => {
    const { m, s, sm, probe } = await start(t, provider);
    await s.session.prompt("do the work");
    checkRewound(m, sm, "prompt");
    checkFooter(probe, "prompt");
    if (!host.runtimeHost || provider === "native") {
      // No key resolved by the host → none passed (pi 1.5.x would let even "" override a stored OAuth login).
      const resolved = host.runtimeHost ? undefined : "offline";
      assert.equal(m.summaryOptions?.apiKey, resolved, "summarizer apiKey");
    }
  });
}
