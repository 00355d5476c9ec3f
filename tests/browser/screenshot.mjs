#!/usr/bin/env node
// Regenerates docs/viewer.png: the viewer on the session `npm run demo` writes (a real pi session: anchor →
// bulky reads → rewind → list), all entries shown, the tip of the abandoned branch selected. The context
// panel shows what the model saw just before the rewind; the timeline shows that branch (dashed) next to the
// active path.
//
//   node tests/browser/screenshot.mjs [--session FILE] [--out docs/viewer.png]
//
// Without --session it runs tests/e2e/demo.mjs into a temporary directory first (needs the pi hosts).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliJson, launch, openViewer, requirePrereqs, ROOT, selectEntry, serve, showAll } from "./lib.mjs";

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const out = arg("--out", join(ROOT, "docs", "viewer.png"));
requirePrereqs();

let session = arg("--session", null);
let work;
if (!session) {
  work = mkdtempSync(join(tmpdir(), "ptn-shot-"));
  const r = spawnSync(process.execPath, [join(ROOT, "tests", "e2e", "demo.mjs"), "--out", work], { stdio: ["ignore", "ignore", "inherit"] });
  if (r.status !== 0) throw new Error("the demo failed");
  const dir = join(work, "sessions");
  session = join(dir, readdirSync(dir).find((f) => f.endsWith(".jsonl")));
}

const server = await serve(session);
const browser = await launch({ width: 1440, height: 860 });
try {
  const { page, seen } = await openViewer(browser.context, server.url);
  await showAll(page);
  const rows = cliJson("tree", session, "--json");
  const tip = rows.findLast((r) => !r.active && r.children === 0) ?? rows.find((r) => r.leaf);
  await selectEntry(page, tip.id);
  await page.locator("#timeline").hover({ position: { x: 400, y: 100 } });
  await page.mouse.move(5, 5);
  await page.waitForTimeout(200);
  await page.screenshot({ path: out });
  if (seen.errors.length || seen.offHost.length) throw new Error(`page problems: ${JSON.stringify(seen)}`);
  console.log(`wrote ${out} (${session})`);
} finally {
  await browser.close();
  await server.stop();
  if (work) rmSync(work, { recursive: true, force: true });
}
