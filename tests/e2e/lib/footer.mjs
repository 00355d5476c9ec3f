// Footer parity with pi's own numbers, including the moments pi has none (getContextUsage() → `tokens: null`,
// right after a compaction until a reply with usage arrives). The probe fixture (fixtures/probe-ext) records
// pi's number before every request (by leaf) and around every navigate_tree call.
import assert from "node:assert/strict";

/**
 * The numbers each navigate_tree call reported, paired with pi's at the same moment (as in hosts.e2e.mjs):
 * - list: `contextTokens` vs pi's number when the result is ready (leaf then);
 * - anchor: `contextTokens` (the estimate at the labelled point) vs pi's number when that point was the leaf
 *   (the request that made the call);
 * - rewind: `contextBefore` vs pi's number at the request that made the call; `contextAfter` vs pi's number
 *   when the result is ready (the tree has moved).
 * Returns `[{label, action, ours, pi, leaf}]` (`pi` null where pi reported none).
 */
export function footerPairs(probe) {
  const out = [];
  for (const call of probe.calls) {
    const d = call.details ?? {};
    const action = call.input?.action;
    if (call.isError || d.refused) continue;
    const at = (leaf) => {
      assert.ok(probe.atLeaf.has(leaf), `${call.id} ${action}: pi's number at leaf ${leaf} was recorded`);
      return probe.atLeaf.get(leaf)?.tokens ?? null;
    };
    if (action === "list") out.push({ label: `${call.id} list`, action, ours: d.contextTokens, pi: call.after?.tokens ?? null, leaf: call.leafAfter });
    else if (action === "anchor") out.push({ label: `${call.id} anchor`, action, ours: d.contextTokens, pi: at(d.entryId), leaf: d.entryId });
    else if (action === "rewind") {
      out.push({ label: `${call.id} rewind before`, action: "rewind-before", ours: d.contextBefore, pi: at(call.parentOfCall), leaf: call.parentOfCall });
      out.push({ label: `${call.id} rewind after`, action: "rewind-after", ours: d.contextAfter, pi: call.after?.tokens ?? null, leaf: call.leafAfter });
    }
  }
  return out;
}

/** The pairs with `ref`: pi's own estimator (`estimate(sm, leaf)`, lib/pi-estimate.mjs) on the context at the leaf. */
export function withReference(pairs, { sm, estimate, where = "" }) {
  return pairs.map((p) => {
    const ref = estimate(sm, p.leaf);
    if (process.env.PTN_E2E_DEBUG) console.log(where, p.label, JSON.stringify({ ours: p.ours, pi: p.pi, ref, leaf: p.leaf }));
    return { ...p, ref };
  });
}

/**
 * The reference is pi's: wherever pi has a number, pi's estimator on the context at that leaf gives the same.
 * (Independent of the tool; it proves the reference the null moments are compared with.)
 */
export function assertReferenceIsPi(checked, where) {
  const wrong = checked.filter((p) => p.pi !== null && p.ref !== p.pi).map((p) => `${p.label}: the reference estimator ${p.ref} ≠ getContextUsage() ${p.pi}`);
  assert.ok(checked.some((p) => p.pi !== null), `${where}: pi had a number at some call`);
  assert.deepEqual(wrong, [], `${where}: reference vs pi`);
}

/**
 * Footer parity for every pair: the tool's number is always a number; it equals pi's getContextUsage() where pi
 * has one, and pi's own estimator on that context where pi reports `null`. Every mismatch is listed (not just
 * the first): the list is the signal when a rule is missing.
 */
export function assertFooterParity(checked, where) {
  const wrong = [];
  for (const p of checked) {
    if (typeof p.ours !== "number") wrong.push(`${p.label}: the tool reports ${p.ours}, not a number`);
    else if (p.pi === null) {
      if (p.ours !== p.ref) wrong.push(`${p.label}: pi reports null; tool ${p.ours} ≠ pi's own estimator ${p.ref}`);
    } else if (p.ours !== p.pi) wrong.push(`${p.label}: tool ${p.ours} ≠ getContextUsage() ${p.pi}`);
  }
  assert.deepEqual(wrong, [], `${where}: footer parity`);
}
