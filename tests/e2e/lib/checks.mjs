// Assertions over captured provider requests and the session tree.
import assert from "node:assert/strict";

/**
 * Strict tool_use/tool_result pairing (what Anthropic enforces): every assistant tool call is answered by a
 * toolResult in the messages right after it (before any other message), each exactly once, and every
 * toolResult answers a call of the assistant message right before its block.
 */
export function assertPaired(request, label = "request") {
  const msgs = request.messages;
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i];
    if (m.role === "toolResult") {
      assert.fail(`${label}: message ${i} is a toolResult (${m.toolCallId}) not directly after its assistant call`);
    }
    if (m.role !== "assistant") continue;
    const calls = (m.content ?? []).filter((c) => c.type === "toolCall").map((c) => c.id);
    const seen = new Set();
    let j = i + 1;
    while (j < msgs.length && msgs[j].role === "toolResult") {
      const id = msgs[j].toolCallId;
      assert.ok(calls.includes(id), `${label}: toolResult ${id} at ${j} answers no call of assistant ${i} (${calls})`);
      assert.ok(!seen.has(id), `${label}: toolResult ${id} repeated`);
      seen.add(id);
      j++;
    }
    for (const id of calls) assert.ok(seen.has(id), `${label}: tool call ${id} of assistant ${i} has no result right after it`);
    i = j - 1;
  }
}

/** Every toolResult entry on the branch follows the assistant entry (or results of it) that holds its call. */
export function assertChainWhole(sm) {
  let calls = [];
  for (const e of sm.getBranch()) {
    if (e.type !== "message") continue;
    const m = e.message;
    if (m.role === "assistant") calls = (m.content ?? []).filter((c) => c.type === "toolCall").map((c) => c.id);
    else if (m.role === "toolResult") assert.ok(calls.includes(m.toolCallId), `toolResult ${m.toolCallId} does not follow its call`);
    else calls = [];
  }
}

export function assertAllPaired(model) {
  model.requests.forEach((r, i) => assertPaired(r, `request ${i}`));
}

/** The toolResult message for `callId` in a request (or the last request that has it). */
export function toolResult(model, callId) {
  for (let i = model.requests.length - 1; i >= 0; i--) {
    const hit = model.requests[i].messages.find((m) => m.role === "toolResult" && m.toolCallId === callId);
    if (hit) return hit;
  }
  return undefined;
}

/** The toolResult entry for `callId` in the session (covers the last call, which no request shows). */
export function resultEntry(sm, callId) {
  return sm.getEntries().find((e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolCallId === callId)?.message;
}

export function resultText(sm, callId) {
  const m = resultEntry(sm, callId);
  assert.ok(m, `no tool result for ${callId}`);
  return m.content.map((c) => c.text ?? "").join("");
}

export function size(request) {
  return JSON.stringify(request.messages).length;
}

/** Text of a request's messages, for substring checks. */
export function text(request) {
  return JSON.stringify(request.messages);
}

export const BRANCH_SUMMARY_PREFIX = "The following is a summary of a branch that this conversation came back from";

/** Label → entry ids currently carrying it (active or not). */
export function labelsOf(sm) {
  const out = new Map();
  for (const e of sm.getEntries()) {
    const l = sm.getLabel(e.id);
    if (l) out.set(l, [...(out.get(l) ?? []), e.id]);
  }
  return out;
}

export function entriesOfType(sm, type) {
  return sm.getEntries().filter((e) => e.type === type);
}

/** A shape summary of the tree, to prove it did not change: entry count, types, leaf. */
export function treeShape(sm) {
  return { count: sm.getEntries().length, summaries: entriesOfType(sm, "branch_summary").length, labels: [...labelsOf(sm).keys()].sort() };
}
