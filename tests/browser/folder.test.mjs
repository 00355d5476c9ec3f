// `view <folder>` in real Chromium (issue 40): the session list with `stats <folder>`'s columns and numbers (the
// generated folder of tests/js/folder-fixture.js: a family, bad files), a session opened from the list, and a
// session's page linking its parent and children.
import test, { after, before } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { makeFolder } from "../js/folder-fixture.js";
import { browserSession, cliJson, openViewer, PKG, serve, settled } from "./lib.mjs";

const state = browserSession(before, after, "ptn-browser-folder-");
const { formatUsd, ready } = await import(pathToFileURL(join(PKG, "index-node.js")).href);
await ready;

test("view <folder>: the list, a family's links, a session opened from the list", async () => {
  const { root, files: f } = makeFolder(state.work);
  const report = cliJson("stats", root, "--json");
  const s = await serve(root);
  state.servers.push(s);
  const { page, seen } = await openViewer(state.browser.context, s.url);
  assert.equal(await settled(page), "ready", await page.locator("#status").textContent());

  // One row per session, with the CLI's numbers; children right under their parent.
  const rows = await page.$$eval("#sessions tbody tr", (trs) => trs.map((tr) => ({ file: tr.dataset.file, depth: Number(tr.dataset.depth), cells: [...tr.cells].map((td) => td.textContent) })));
  assert.equal(rows.length, report.sessions.length);
  const by = new Map(report.sessions.map((x) => [x.file, x]));
  for (const r of rows) {
    const x = by.get(r.file);
    assert.equal(r.cells[1], x.firstMessage);
    assert.equal(r.cells[2], x.entries.toLocaleString("en-US"));
    assert.equal(r.cells[4], x.cost.total.usd === null ? "—" : formatUsd(x.cost.total.usd));
    assert.equal(r.cells[6], x.withChildren.sessions > 1 ? `${formatUsd(x.withChildren.usd)} (${x.withChildren.sessions})` : "");
  }
  const at = (file) => rows.findIndex((r) => r.file === file);
  assert.ok(at(f.parent) < at(f.child) && at(f.child) < at(f.grandchild));
  assert.deepEqual([rows[at(f.child)].depth, rows[at(f.grandchild)].depth], [1, 2]);
  assert.equal(rows[at(f.orphan)].cells[7], "missing");
  assert.equal(rows[at(f.cycleA)].cells[7], "cycle");
  assert.equal(await page.locator("#skipped li").count(), report.skipped.length);
  assert.match(await page.locator("#skipped").textContent(), /half-written/);

  // Open the child from the list: the viewer on that session, with links to the list, its parent and its child.
  await Promise.all([page.waitForURL(/index\.html\?file=/), page.locator(`#sessions tr[data-file="${f.child}"] a.session-link`).click()]);
  assert.equal(await settled(page), "ready");
  assert.equal(await page.locator("#file-name").textContent(), f.child.split("/").pop());
  await page.waitForSelector("#family:not([hidden])");
  assert.equal(await page.locator("#family a.parent-link").getAttribute("title"), f.parent);
  assert.deepEqual(await page.$$eval("#family a.child-link", (as) => as.map((a) => a.title)), [f.grandchild]);
  // Its parent's page lists both children; back to the list from there.
  await Promise.all([page.waitForURL(/index\.html\?file=/), page.locator("#family a.parent-link").click()]);
  assert.equal(await settled(page), "ready");
  assert.equal(await page.locator("#file-name").textContent(), f.parent.split("/").pop());
  await page.waitForSelector("#family:not([hidden])");
  assert.deepEqual((await page.$$eval("#family a.child-link", (as) => as.map((a) => a.title))).sort(), [f.child, f.fork].sort());
  assert.equal(await page.locator("#family a.parent-link").count(), 0);
  await Promise.all([page.waitForURL(/folder\.html/), page.locator("#family a.folder-link").click()]);
  assert.equal(await settled(page), "ready");
  assert.equal(await page.locator("#sessions tbody tr").count(), report.sessions.length);
  // A file of the folder that is no session is not served.
  const skippedUrl = new URL(s.url).origin + new URL(s.url).pathname.split("/viewer/")[0] + "/session/99/notes.jsonl";
  assert.equal((await page.request.get(skippedUrl)).status(), 404);
  assert.deepEqual([seen.errors, seen.offHost, await page.evaluate(() => window.__cspViolations)], [[], [], []]);
});
