#!/usr/bin/env node
// Regenerates docs/cost.png: the viewer on a generated priced run (tests/e2e/lib/priced-run.mjs — never a real
// user's session) with "Context as → cumulative cost": the header's money chips, the money spent along the active
// path with the rewind and the compaction marked, and the request after the compaction selected (its cost in the
// context panel's head).
//
//   node tests/browser/cost-screenshot.mjs [--out docs/cost.png]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pricedRun } from "../e2e/lib/priced-run.mjs";
import { cliJson, launch, openViewer, requirePrereqs, ROOT, selectEntry, serve } from "./lib.mjs";

const at = process.argv.indexOf("--out");
const out = at > 0 ? process.argv[at + 1] : join(ROOT, "docs", "cost.png");
requirePrereqs();
const work = mkdtempSync(join(tmpdir(), "ptn-cost-shot-"));
const session = join(work, "priced-run.jsonl");
writeFileSync(session, pricedRun());
const server = await serve(session);
const browser = await launch({ width: 1440, height: 860 });
try {
  const { page, seen } = await openViewer(browser.context, server.url);
  await page.selectOption("#window", "cost");
  const rows = cliJson("tree", session, "--json");
  const compaction = rows.findIndex((r) => r.type === "compaction");
  const after = rows.slice(compaction).find((r) => r.role === "assistant") ?? rows.find((r) => r.leaf);
  await selectEntry(page, after.id);
  await page.mouse.move(5, 5);
  await page.waitForTimeout(200);
  await page.screenshot({ path: out });
  if (seen.errors.length || seen.offHost.length) throw new Error(`page problems: ${JSON.stringify(seen)}`);
  console.log(`wrote ${out} (a generated priced run)`);
} finally {
  await browser.close();
  await server.stop();
  rmSync(work, { recursive: true, force: true });
}
