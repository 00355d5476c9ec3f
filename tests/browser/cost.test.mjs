// The viewer's money in real Chromium (issue 39): the header's chips (spent, on abandoned branches, cache
// misses, saved by rewinds and by compactions), the "Context as → cumulative cost" lens, each rewind's and
// compaction's saving on the timeline (a rewind's: what it removed, issue 37's number, at the requests' prices), and the selected request's cost in the context panel — every number as
// the CLI's `stats --json` cost block says for the same file. A session without prices shows no dollar.
import test, { after, before } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { browserSession, cliJson, PKG, selectEntry } from "./lib.mjs";
import { pricedRun } from "../e2e/lib/priced-run.mjs";

const { work, open } = browserSession(before, after, "ptn-browser-cost-");
const { formatUsd, ready } = await import(pathToFileURL(join(PKG, "index-node.js")).href);
await ready;

const chip = (page, key) => page.locator(`[data-stat="${key}"]`);

test("cost: the header's chips, the cost lens, the savings on the timeline and a request's cost are the CLI's", async () => {
  const file = join(work, "priced.jsonl");
  writeFileSync(file, pricedRun());
  const { cost } = cliJson("stats", file, "--json");
  assert.ok(cost.priced && cost.savings.compactions.items.length && cost.abandoned.usd > 0 && cost.cacheMisses.count > 0, "the generated run has every kind of money");
  assert.equal(cost.savings.rewinds.items.length, 1, "one rewind of the tool");
  const { page, seen } = await open(file);
  assert.equal(await chip(page, "spent").locator("b").textContent(), formatUsd(cost.total.usd));
  assert.equal(await chip(page, "abandoned-cost").locator("b").textContent(), formatUsd(cost.abandoned.usd));
  assert.equal(await chip(page, "cache-misses").locator("b").textContent(), String(cost.cacheMisses.count));
  assert.match(await chip(page, "cache-misses").textContent(), new RegExp(`\\(${formatUsd(cost.cacheMisses.usd).replace("$", "\\$")}\\)`));
  assert.ok(cost.savings.compactions.usd >= 0.005, "a saving of a cent or more");
  assert.equal(await chip(page, "saved-compactions").locator("b").textContent(), `≥${formatUsd(cost.savings.compactions.usd)}`);
  // The rewind's saving: what it removed (issue 37's rule, the number its result reported) at the requests' prices.
  const [rw] = cost.savings.rewinds.items;
  const [pathRewind] = cliJson("stats", file, "--json").rewinds;
  assert.equal(rw.tokensRemoved, pathRewind.saving.savedTokens);
  assert.ok(rw.usd >= 0.005, `a rewind saving of a cent or more: ${rw.usd}`);
  assert.equal(await chip(page, "saved-rewinds").locator("b").textContent(), `≥${formatUsd(cost.savings.rewinds.usd)}`);

  // Each rewind and compaction on the timeline carries its saving: the tokens it took out, then the money.
  for (const item of [rw, ...cost.savings.compactions.items]) {
    const marker = page.locator(`#timeline .marker:not(.anchor)[data-id="${item.entryId}"]`);
    assert.equal(await marker.getAttribute("data-saved"), String(item.usd));
    const usd = formatUsd(item.usd).replace("$", "\\$");
    assert.match(await marker.locator("title").textContent(), new RegExp(` · saved [\\d.]+k · at least ${usd} over ${item.requestsAfter} requests after it · `));
  }

  // The cost lens: the money spent along the active path, to the leaf's total.
  await page.selectOption("#window", "cost");
  await page.waitForSelector('#timeline svg[aria-label="money spent along the active path"]');
  assert.match(await page.locator("#timeline .readout").textContent(), new RegExp(`${formatUsd(cost.activePath.usd).replace("$", "\\$")} at the leaf`));

  // The context panel: the selected request's own cost.
  const first = cost.cacheMisses.items[0].entryId;
  await selectEntry(page, first);
  const pill = page.locator("#context-head .pill.cost");
  assert.match(await pill.textContent(), /^request \$\d+\.\d\d$|^request <\$0\.01$/);
  assert.deepEqual(seen.errors, []);
  await page.close();
});

test("cost: a session without prices shows no dollar anywhere in the header, and no cost lens", async () => {
  // The same run on a subscription: every cost pi recorded is 0.
  const zero = (u) => u && { ...u, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  const lines = pricedRun().trim().split("\n").map((l) => JSON.parse(l));
  for (const e of lines) {
    if (e.message?.usage) e.message.usage = zero(e.message.usage);
    if (e.usage) e.usage = zero(e.usage);
  }
  const file = join(work, "unpriced.jsonl");
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  const { cost } = cliJson("stats", file, "--json");
  assert.equal(cost.priced, false);
  const { page, seen } = await open(file);
  assert.equal(await chip(page, "spent").textContent(), "no prices recorded");
  assert.doesNotMatch(await page.locator("#stats").textContent(), /\$/);
  assert.equal(await page.locator('#window option[value="cost"]').isDisabled(), true);
  assert.deepEqual(seen.errors, []);
  await page.close();
});
