// The session viewer in real Chromium, against the page served by the built CLI (`pkg/cli.js view <file>`).
// Every expectation comes from the CLI on the same file (tree --json, context/tokens/list --json), so the page
// must show what the core computes. Needs `npm run build` and Chromium (`npm run setup`).
import test, { after, before } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { networkInterfaces } from "node:os";
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { visibleText } from "../../js/viewer/dom.js";
import {
  cli, cliJson, collectRows, FIXTURES, launch, PKG, openViewer, readContext, requirePrereqs, selectEntry, serve, settled, showAll,
} from "./lib.mjs";

const fx = (name) => join(FIXTURES, name);
let browser;
const servers = [];
const work = mkdtempSync(join(tmpdir(), "ptn-browser-"));

before(async () => {
  requirePrereqs();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  for (const s of servers) await s.stop();
  rmSync(work, { recursive: true, force: true });
});

async function open(file, { hash = "", query = "" } = {}) {
  const s = await serve(file);
  servers.push(s);
  const viewer = await openViewer(browser.context, s.url + query + hash);
  return { ...viewer, server: s };
}

/** Every string (keys and values) inside a JSON value. */
function stringLeaves(v, out = []) {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => stringLeaves(x, out));
  else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) out.push(k), stringLeaves(x, out);
  return out;
}

/** Strings a rendered context message must contain, from the CLI's JSON of that message. */
function expectedStrings(m) {
  const out = [];
  const content = (c) => {
    if (typeof c === "string") out.push(c);
    else if (Array.isArray(c)) {
      for (const b of c) {
        if (b?.type === "text") out.push(b.text);
        else if (b?.type === "thinking") out.push(b.thinking);
        else if (b?.type === "toolCall") out.push(b.name, ...stringLeaves(b.arguments).map((v) => JSON.stringify(v).slice(1, -1)));
        else if (b?.type === "image") out.push(`[image ${b.mimeType || "?"}`);
      }
    }
  };
  switch (m.role) {
    case "branchSummary": out.push("<summary>", m.summary, "</summary>"); break;
    case "compactionSummary": out.push("<summary>", m.summary, "</summary>"); break;
    case "bashExecution": out.push(m.command, m.output || "(no output)"); break;
    default: content(m.content);
  }
  return out.filter((s) => typeof s === "string" && s.length).map(visibleText);
}

function assertSameContext(shown, file, id) {
  const want = cliJson("context", file, "--leaf", id, "--json");
  const tokens = cliJson("tokens", file, "--leaf", id, "--json").tokens;
  assert.equal(shown.leaf, id);
  assert.equal(shown.count, want.messages.length, `${id}: message count`);
  assert.equal(shown.messages.length, want.messages.length, `${id}: rendered messages`);
  assert.equal(shown.tokens, tokens, `${id}: token estimate`);
  want.messages.forEach((m, i) => {
    assert.equal(shown.messages[i].role, m.role, `${id} message #${i}: role`);
    for (const s of expectedStrings(m)) assert.ok(shown.messages[i].text.includes(s), `${id} message #${i} (${m.role}) lacks ${JSON.stringify(s.slice(0, 80))}`);
  });
}

// ---- the server --------------------------------------------------------------------------------------

function get(url, { host, method = "GET" } = {}) {
  const u = new URL(url);
  return new Promise((res, rej) => {
    const req = request({ hostname: u.hostname, port: u.port, path: u.pathname + u.search, method, headers: host ? { Host: host } : {} }, (r) => {
      let body = "";
      r.setEncoding("latin1");
      r.on("data", (d) => (body += d));
      r.on("end", () => res({ status: r.statusCode, headers: r.headers, body }));
    });
    req.on("error", rej);
    req.end();
  });
}

test("view serves the viewer, the zipped wasm and the file on 127.0.0.1 only, with a CSP", async () => {
  const s = await serve(fx("example.jsonl"));
  servers.push(s);
  const u = new URL(s.url);
  assert.equal(u.hostname, "127.0.0.1");
  const page = await get(s.url);
  assert.equal(page.status, 200);
  assert.match(page.headers["content-type"], /^text\/html/);
  const csp = page.headers["content-security-policy"];
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'(;|$)/);
  assert.doesNotMatch(csp, /'unsafe-inline'|'unsafe-eval'|\*/);
  assert.match(csp, /require-trusted-types-for 'script'/);
  assert.match(page.body, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self' 'wasm-unsafe-eval';/);
  assert.doesNotMatch(page.body, /<script(?![^>]*\bsrc=)[^>]*>/, "no inline script in index.html");
  assert.equal(page.headers["x-content-type-options"], "nosniff");
  const root = `${u.origin}/${u.pathname.split("/")[1]}`; // the origin and the URL's token
  const wasm = await get(`${root}/pi_tree_navigator_bg.wasm.gz`);
  assert.equal(wasm.status, 200);
  assert.equal(wasm.headers["content-type"], "application/gzip");
  assert.equal((await get(`${root}/pi_tree_navigator_bg.wasm`)).status, 404, "only the zipped module is served");
  const file = await get(`${u.origin}${new URL(u.searchParams.get("file"), u.origin).pathname}`);
  assert.equal(file.status, 200);
  assert.equal(file.body.length, (await import("node:fs")).statSync(fx("example.jsonl")).size);
  for (const path of ["/cli.js", "/package.json", "/viewer/server.js", "/viewer/../cli.js", "/%2e%2e/package.json", "/session/other.jsonl", "/index-node.js"]) {
    // `%2e%2e` climbs out of the token's segment in the URL parser: what is left has no token (403).
    assert.equal((await get(`${root}${path}`)).status, path.startsWith("/%2e") ? 403 : 404, path);
  }
  assert.equal((await get(`${root}/`)).status, 302);
  assert.equal((await get(s.url, { host: "evil.example" })).status, 421, "DNS rebinding: foreign Host refused");
  assert.equal((await get(s.url, { method: "POST" })).status, 405);
  // Not reachable on any other interface.
  const others = Object.values(networkInterfaces()).flat().filter((i) => i && i.family === "IPv4" && !i.internal);
  for (const i of others) await assert.rejects(get(`http://${i.address}:${u.port}/viewer/`), /ECONNREFUSED|EHOSTUNREACH|ETIMEDOUT/, i.address);
  const { code } = await s.stop();
  assert.equal(code, 0, "Ctrl-C ends view with status 0");
});

test("view: the URL carries a random token; without it, or altered, page, assets and session are refused (403)", async () => {
  const [a, b] = [await serve(fx("example.jsonl")), await serve(fx("example.jsonl"))];
  servers.push(a, b);
  const u = new URL(a.url);
  const token = u.pathname.split("/")[1];
  assert.match(token, /^[A-Za-z0-9_-]{43}$/, "32 random bytes, base64url");
  assert.notEqual(new URL(b.url).pathname.split("/")[1], token, "each server has its own token");
  assert.equal(u.searchParams.get("file"), `/${token}/session/example.jsonl`, "the session path carries it too");
  const paths = ["/viewer/", "/viewer/index.html", "/viewer/main.js", "/viewer/viewer.css", "/load-web.js", "/pi_tree_navigator.js", "/pi_tree_navigator_bg.wasm.gz", "/session/example.jsonl", "/"];
  for (const path of paths) assert.notEqual((await get(`${u.origin}/${token}${path}`)).status, 403, `with the token: ${path}`);
  const flip = (c) => (c === "A" ? "B" : "A");
  const wrong = [
    "", // missing
    `/${flip(token[0])}${token.slice(1)}`, // one character altered, first and last
    `/${token.slice(0, -1)}${flip(token.at(-1))}`,
    `/${token.slice(0, -1)}`, // cut short
    `/${token}x`, // longer
    `/${token.toLowerCase()}`,
    `/${new URL(b.url).pathname.split("/")[1]}`, // another server's
  ];
  for (const prefix of wrong) {
    for (const path of paths) {
      const r = await get(`${u.origin}${prefix}${path}`);
      assert.equal(r.status, 403, `${prefix || "(no token)"}${path}`);
      assert.doesNotMatch(r.body, /"type":"session"|wasm|<html/i, "nothing of the session or the page");
    }
  }
  for (const query of [`?token=${token}`, `?file=/${token}/session/example.jsonl`]) {
    assert.equal((await get(`${u.origin}/viewer/${query}`)).status, 403, `token in the query only: ${query}`);
  }
  // The Host check stays, before the token check: a foreign Host gets 421 with or without it.
  assert.equal((await get(a.url, { host: "evil.example" })).status, 421);
  assert.equal((await get(`${u.origin}/viewer/`, { host: "evil.example" })).status, 421);

  // In Chromium: the printed URL works, and every request the page makes carries the token; an altered one
  // gets the refusal and no viewer.
  const { page, seen } = await openViewer(browser.context, a.url);
  assert.equal(await settled(page), "ready");
  assert.ok(seen.requests.length >= 5, seen.requests.join("\n"));
  for (const r of seen.requests) assert.ok(r.startsWith(`${u.origin}/${token}/`), r);
  assert.deepEqual(seen.errors, []);
  await page.close();
  const bad = await browser.context.newPage();
  const response = await bad.goto(`${u.origin}/${token.slice(0, -1)}${flip(token.at(-1))}/viewer/?file=${encodeURIComponent(u.searchParams.get("file"))}`);
  assert.equal(response.status(), 403);
  assert.equal(await bad.locator("#tree").count(), 0, "no viewer page");
  await bad.close();
});

test("view: the page asks for each of its files once (the preloads are the fetches it uses)", async () => {
  const { page, seen } = await open(fx("example.jsonl"));
  await page.waitForTimeout(500);
  const paths = seen.requests.map((u) => new URL(u).pathname.split("/").slice(2).join("/"));
  const counts = new Map();
  for (const p of paths) counts.set(p, (counts.get(p) ?? 0) + 1);
  for (const [p, n] of counts) assert.equal(n, 1, `${p} requested ${n} times: ${paths.join(", ")}`);
  for (const p of ["viewer/early.js", "viewer/fetch.js", "viewer/main.js", "viewer/app.js", "pi_tree_navigator.js", "pi_tree_navigator_bg.wasm.gz", "session/example.jsonl"]) {
    assert.ok(counts.has(p), `${p} not requested: ${paths.join(", ")}`);
  }
  assert.deepEqual(seen.errors, []);
  assert.deepEqual(seen.console.filter((m) => /preload/i.test(m)), [], "no unused preload");
  await page.close();
});

test("view: usage and input errors", () => {
  assert.equal(cli("view").code, 2);
  assert.equal(cli("view", fx("example.jsonl"), "--port", "x").code, 2);
  assert.equal(cli("view", fx("example.jsonl"), "--port", "70000").code, 2);
  assert.equal(cli("view", fx("example.jsonl"), "--json").code, 2);
  const missing = cli("view", join(work, "nope.jsonl"));
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no such file/);
  // (A folder is served as its session list: tests/browser/folder.test.mjs.)
});

test("header: the estimate profile the core used (default, inferred from the session, view --host)", async () => {
  const cases = [
    // [fixture, view/stats options, profile, source, the header's text]
    ["images.jsonl", [], "pi-0.74", "default", "profile pi-0.74 (default)"],
    ["newer-types.jsonl", [], "pi-0.87", "inferred", "profile pi-0.87 (inferred)"],
    ["images.jsonl", ["--host", "1.5.2"], "pi-1.5", "set", "profile pi-1.5 (--host 1.5.2)"],
  ];
  const estimates = [];
  for (const [name, extra, profile, source, label] of cases) {
    const file = fx(name);
    const stats = cliJson("stats", file, ...extra, "--json");
    assert.equal(stats.profile.split(" ")[0], profile, `${name} ${extra.join(" ")}: the CLI's stats name the same profile`);
    const s = await serve(file, ...extra);
    servers.push(s);
    if (extra.length) assert.equal(new URL(s.url).searchParams.get("host"), "1.5.2", "view --host passes the version to the page");
    const { page, seen } = await openViewer(browser.context, s.url);
    const el = page.locator("#profile");
    assert.equal(await el.getAttribute("data-profile"), profile, `${name}: profile`);
    assert.equal(await el.getAttribute("data-source"), source, `${name}: source`);
    assert.equal(await el.textContent(), label);
    // The profile is applied, not only named: the estimate at the leaf is the CLI's with the same options.
    const shown = await page.locator('[data-stat="estimate"] b').textContent();
    assert.equal(shown, stats.estimate.tokens.toLocaleString("en-US"), `${name} ${extra.join(" ")}: estimate`);
    estimates.push(shown);
    assert.deepEqual(seen.errors, []);
    await page.close();
  }
  // images.jsonl: user images count 0 for pi 0.74 and 4800 chars for pi >= 0.87, so --host changes the number.
  assert.notEqual(estimates[0], estimates[2], "images.jsonl estimates differ between pi-0.74 and --host 1.5.2");
  // A ?host= that is no pi version: said so, and the profile is chosen without it.
  const { page, seen } = await open(fx("images.jsonl"), { query: "&host=latest" });
  assert.equal(await page.locator("#profile").getAttribute("data-source"), "default");
  assert.match(await page.locator("#errors").textContent(), /\?host=latest is no pi version/);
  assert.deepEqual(seen.errors, []);
  await page.close();
});

test("view --host: a version that is no pi version is a usage error", () => {
  const r = cli("view", fx("example.jsonl"), "--host", "latest");
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--host must be a pi version/);
});

// ---- the tree ----------------------------------------------------------------------------------------

for (const name of ["example.jsonl", "branches.jsonl", "labels.jsonl", "compaction.jsonl", "rewind-chain.jsonl", "unicode.jsonl", "v1-format.jsonl"]) {
  test(`tree: ${name} shows every entry in the CLI's order with its labels, active path and leaf`, async () => {
    const file = fx(name);
    const want = cliJson("tree", file, "--json");
    // pi's version-1 format (no ids): the entry on line N is line-N (src/session/migrate.rs).
    if (name.startsWith("v1-")) assert.deepEqual(want.map((r) => r.id), ["line-2", "line-3", "line-4", "line-5", "line-6", "line-7", "line-8", "line-9"]);
    const { page, seen } = await open(file);
    assert.equal(await page.locator("#tree-info").getAttribute("data-total"), String(want.length));
    await showAll(page);
    const rows = await collectRows(page);
    assert.equal(rows.length, want.length, "node count");
    assert.deepEqual(rows.map((r) => r.id), want.map((r) => r.id), "order");
    assert.deepEqual(rows.map((r) => r.label), want.map((r) => r.label), "labels");
    assert.deepEqual(rows.map((r) => /\bactive\b/.test(r.cls)), want.map((r) => r.active), "active path");
    assert.deepEqual(rows.map((r) => /\bleaf\b/.test(r.cls)), want.map((r) => r.leaf), "leaf");
    assert.deepEqual(rows.map((r) => r.text), want.map((r) => visibleText(r.text)), "row text");
    const stats = cliJson("stats", file, "--json");
    assert.equal(await page.locator('[data-stat="entries"] b').textContent(), stats.entries.toLocaleString("en-US"));
    assert.deepEqual(seen.errors, []);
    assert.deepEqual(seen.offHost, []);
    await page.close();
  });
}

test("tree: abandoned branches start folded; default filter hides bookkeeping; keyboard moves and folds", async () => {
  const file = fx("example.jsonl");
  const want = cliJson("tree", file, "--json");
  const { page } = await open(file);
  const shown = await collectRows(page);
  const abandoned = want.filter((r) => !r.active).map((r) => r.id);
  // Only the branch's first row (or its stand-in) is shown, folded.
  assert.ok(shown.filter((r) => abandoned.includes(r.id)).length <= 1, "abandoned branch folded");
  assert.ok(!shown.some((r) => r.id === "000000a1"), "model_change hidden by the default filter");
  assert.ok(shown.some((r) => /\bleaf\b/.test(r.cls)), "leaf shown (selected) even though it is a label entry");
  // Keyboard: from the leaf, Home goes to the first row, ArrowDown to the next.
  await page.focus("#tree");
  await page.keyboard.press("Home");
  await page.waitForFunction((id) => document.querySelector(".row.selected")?.dataset.id === id, shown[0].id);
  await page.keyboard.press("ArrowDown");
  await page.waitForFunction((id) => document.querySelector(".row.selected")?.dataset.id === id, shown[1].id);
  await page.waitForFunction((id) => document.getElementById("context").dataset.leaf === id, shown[1].id);
  // Unfold with → on the folded row; fold back with ←.
  const folded = shown.find((r) => /type-/.test(r.cls) && abandoned.includes(r.id));
  await selectEntry(page, folded.id);
  // Off the active path, the timeline draws the selected entry's own path too.
  assert.equal(await page.locator("#timeline .alt-line").count(), 1, "selected branch drawn");
  const before = Number(await page.locator("#tree-info").getAttribute("data-shown"));
  await page.focus("#tree");
  await page.keyboard.press("ArrowRight");
  await page.waitForFunction((n) => Number(document.getElementById("tree-info").dataset.shown) > n, before);
  await page.keyboard.press("ArrowLeft");
  await page.waitForFunction((n) => Number(document.getElementById("tree-info").dataset.shown) === n, before);
  await page.close();
});

// ---- what the model saw ------------------------------------------------------------------------------

for (const name of ["example.jsonl", "branches.jsonl", "compaction.jsonl", "custom-messages.jsonl", "images.jsonl", "unicode.jsonl", "rewind-chain.jsonl"]) {
  test(`context: ${name}: selecting a node shows the messages of \`context --leaf <id> --json\``, async () => {
    const file = fx(name);
    const rows = cliJson("tree", file, "--json");
    const { page } = await open(file);
    await showAll(page);
    // The leaf, an abandoned entry, every branch summary / compaction, and a few spread over the file.
    const ids = new Set([rows.find((r) => r.leaf)?.id, rows.find((r) => !r.active)?.id,
      ...rows.filter((r) => r.type === "branch_summary" || r.type === "compaction").map((r) => r.id),
      ...[0.25, 0.5, 0.75].map((f) => rows[Math.floor(rows.length * f)].id)].filter(Boolean));
    for (const id of ids) {
      await selectEntry(page, id);
      assertSameContext(await readContext(page), file, id);
    }
    await page.close();
  });
}

test("context: a deep link (#id) opens with that entry selected", async () => {
  const file = fx("example.jsonl");
  const { page } = await open(file, { hash: "#000000ae" });
  assertSameContext(await readContext(page), file, "000000ae");
  await page.close();
});

test("context: the head of an entry no model or thinking level was set for shows no pill for them", async () => {
  // 00000a10 sits under a second root of only user messages: no model, the default thinking level.
  const { page, seen } = await open(fx("branches.jsonl"), { hash: "#00000a10" });
  const pills = await page.$$eval("#context-head .pill", (els) => els.map((e) => e.textContent));
  assert.deepEqual(pills, ["2 messages", "18 tokens", "thinking off"]);
  assert.doesNotMatch(await page.locator("#context-head").textContent(), /null|undefined/);
  assert.deepEqual(seen.errors, []);
  await page.close();
});

// ---- the timeline ------------------------------------------------------------------------------------

for (const name of ["example.jsonl", "rewind-chain.jsonl", "compaction.jsonl", "labels.jsonl"]) {
  test(`timeline: ${name}: one marker per anchor, per rewind and per compaction on the active path`, async () => {
    const file = fx(name);
    const rows = cliJson("tree", file, "--json");
    const anchors = cliJson("list", file, "--json");
    const onPath = (type) => rows.filter((r) => r.active && r.type === type).map((r) => r.id);
    const { page } = await open(file);
    const markers = await page.$$eval("#timeline .marker", (els) => els.map((e) => ({ kind: e.dataset.kind, id: e.dataset.id })));
    const of = (kind) => markers.filter((m) => m.kind === kind).map((m) => m.id);
    assert.deepEqual(of("anchor"), anchors.map((a) => a.entryId), "anchors");
    assert.deepEqual(of("rewind"), onPath("branch_summary"), "rewinds");
    assert.deepEqual(of("compaction"), onPath("compaction"), "compactions");
    // A rewind of the tool says what it saved (the core's number, as stats reports it).
    const saved = cliJson("stats", file, "--json").rewinds;
    const titles = await page.$$eval("#timeline .marker.rewind title", (els) => els.map((e) => e.textContent));
    assert.equal(titles.filter((t) => / · saved [\d.]+[k%]? · /.test(t)).length, saved.length, titles.join(" | "));
    const path = rows.filter((r) => r.active);
    assert.ok(await page.locator("#timeline svg path.line").getAttribute("d"), "plot drawn");
    assert.match(await page.locator("#timeline .readout").textContent(), new RegExp(`${path.length} entries on the active path`));
    // Clicking a marker selects its entry.
    if (markers.length) {
      const m = markers[markers.length > 1 ? 1 : 0];
      await page.locator(`#timeline .marker[data-pos]`).nth(markers.length > 1 ? 1 : 0).click({ force: true });
      await page.waitForFunction((id) => document.getElementById("context").dataset.leaf === id, m.id);
    }
    // Clicking the plot's left edge selects the root of the path.
    const box = await page.locator("#timeline svg").boundingBox();
    await page.mouse.click(box.x + 53, box.y + 120);
    await page.waitForFunction((id) => document.getElementById("context").dataset.leaf === id, path[0].id);
    await page.close();
  });
}

// ---- search ------------------------------------------------------------------------------------------

test("search: finds a known string, highlights the hits in the tree and jumps to them", async () => {
  const file = fx("example.jsonl");
  const { page } = await open(file);
  await page.fill("#search", "JSON array");
  await page.press("#search", "Enter");
  await page.waitForFunction(() => Number(document.getElementById("hits").dataset.count) > 0);
  const { SessionIndex } = await import(pathToFileURL(join(PKG, "index-node.js")).href);
  const index = SessionIndex.full();
  index.loadFile((await import("node:fs")).readFileSync(file, "utf8"));
  const want = index.search("JSON array", 10000);
  index.free();
  assert.ok(want.includes("00000a15"), "the core finds “Emitting a JSON array now.”");
  assert.equal(Number(await page.locator("#hits").getAttribute("data-count")), want.length);
  // Enter jumped to the first hit after the selection (wrapping): selected row is a hit, with the text marked.
  await page.waitForFunction(() => document.querySelector(".row.selected.hit"));
  await showAll(page);
  const rows = await collectRows(page);
  assert.deepEqual(rows.filter((r) => /\bhit\b/.test(r.cls)).map((r) => r.id).sort(), [...want].sort());
  await selectEntry(page, "00000a15");
  assert.match(await page.locator(".row.selected mark").first().textContent(), /^json array$/i);
  assert.ok((await page.locator("#context mark").count()) > 0, "hits marked in the context too");
  // n / N move between hits.
  await page.focus("#tree");
  await page.keyboard.press("n");
  await page.waitForFunction(() => document.querySelector(".row.selected")?.dataset.id !== "00000a15");
  assert.ok(want.includes(await page.locator(".row.selected").getAttribute("data-id")));
  await page.close();
});

// ---- hostile content ---------------------------------------------------------------------------------

test("hostile.jsonl: nothing executes, nothing leaves 127.0.0.1, the payload text is visible", async () => {
  const file = fx("hostile.jsonl");
  const rows = cliJson("tree", file, "--json");
  const { page, seen } = await open(file);
  await showAll(page);
  const shownRows = await collectRows(page);
  assert.equal(shownRows.length, rows.length);
  // Visit every entry and open everything, so every text is rendered at least once.
  let text = shownRows.map((r) => r.text + (r.label ?? "")).join("\n");
  for (const r of rows) {
    await selectEntry(page, r.id);
    const ctx = await readContext(page);
    text += ctx.messages.map((m) => m.text).join("\n");
  }
  text += await page.locator("#timeline").evaluate((e) => [...e.querySelectorAll("title")].map((t) => t.textContent).join("\n"));
  await page.locator("#timeline").hover();
  await page.mouse.move(10, 10);
  await page.waitForTimeout(300); // give any onerror/onload/animation a chance to fire

  assert.deepEqual(seen.dialogs, [], "no dialog opened");
  assert.deepEqual(seen.offHost, [], "no request left 127.0.0.1");
  assert.deepEqual(seen.errors, [], "no page errors");
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], "nothing even tried to load or run (no CSP violation)");
  const dom = await page.evaluate(() => ({
    scripts: [...document.scripts].map((s) => s.getAttribute("src")),
    risky: document.querySelectorAll("img, iframe, object, embed, a, body link, style, form, base, meta[http-equiv=refresh], svg image, svg script, svg animate, marquee").length,
    headLinks: [...document.head.querySelectorAll("link")].map((l) => `${l.rel} ${l.getAttribute("href")}`),
    handlers: [...document.querySelectorAll("*")].flatMap((e) => [...e.attributes].filter((a) => /^on/i.test(a.name) || /javascript:/i.test(a.value)).map((a) => `${e.tagName}.${a.name}`)),
    bodyText: document.body.innerText,
  }));
  assert.deepEqual(dom.scripts, ["early.js", "main.js"], "only the viewer's own scripts");
  const ownLinks = [...readFileSync(join(PKG, "viewer/index.html"), "utf8").matchAll(/<link rel="([^"]+)" href="([^"]+)"/g)].map((m) => `${m[1]} ${m[2]}`);
  assert.deepEqual(dom.headLinks, ownLinks, "the head holds index.html's own links only");
  assert.equal(dom.risky, 0, "no element from session data");
  assert.deepEqual(dom.handlers, [], "no handler or javascript: attribute");
  for (const payload of [
    "<script>alert('user-script')</script>",
    `<img src=x onerror="alert('user-img')">`,
    "[click me](javascript:alert('md-link'))",
    `<a href="javascript:alert('a-href')">open</a>`,
    "<svg onload=alert('thinking')>",
    "</pre></div></details><script>alert('result')</script>",
    "<b onmouseover=alert('summary')>bold</b>",
    "<iframe srcdoc=\"<script>alert('compaction')</script>\"></iframe>",
    "x\"><img src=x onerror=alert('id')>",
    "anchor:<img src=x onerror=alert('label')>",
    "bash<script>alert('tool-name')</script>",
    "javascript:alert(document.cookie)",
    "![pixel](http://198.51.100.7/md-pixel.png)",
  ]) {
    assert.ok(text.includes(payload) || dom.bodyText.includes(payload), `payload shown as text: ${payload}`);
  }
  // Bidi and zero-width characters are shown as markers, never applied.
  for (const marker of ["⟨U+202E⟩", "⟨U+200B⟩", "⟨U+2066⟩", "⟨U+061C⟩", "⟨U+E0049⟩", "⟨U+200D⟩"]) assert.ok(text.includes(marker), marker);
  assert.doesNotMatch(dom.bodyText, /[\u202A-\u202E\u2066-\u2069\u200B\u061C]/, "no raw bidi/zero-width character rendered");
  await page.close();
});

// ---- loading problems and other ways in --------------------------------------------------------------

test("malformed lines are listed with their line numbers; the valid entries still load", async () => {
  const file = fx("malformed.jsonl");
  const want = cliJson("tree", file, "--json");
  const { page } = await open(file);
  assert.equal(await settled(page), "ready");
  const errors = await page.locator("#errors").textContent();
  for (const line of [3, 7, 8, 10]) assert.match(errors, new RegExp(`line ${line}:`));
  assert.match(errors, /4 malformed lines skipped/);
  assert.equal(await page.locator("#tree-info").getAttribute("data-total"), String(want.length));
  await page.close();
});

test("not a session: the page says so (with the line) and loads nothing", async () => {
  for (const name of ["all-malformed.jsonl", "no-header.jsonl"]) {
    const { page } = await open(fx(name));
    assert.equal(await settled(page), "empty", name);
    assert.ok(await page.locator("#errors").isVisible(), name);
    assert.match(await page.locator("#errors").textContent(), name === "all-malformed.jsonl" ? /line 1:/ : /warning: /);
    await page.close();
  }
});

test("file picker and drag-and-drop load a session without the server's file", async () => {
  const s = await serve(fx("empty.jsonl"));
  servers.push(s);
  const base = new URL(s.url);
  const { page } = await openViewer(browser.context, new URL(".", base).href);
  assert.equal(await settled(page), "idle");
  await page.setInputFiles("#file-input", fx("branches.jsonl"));
  await page.waitForFunction(() => document.getElementById("file-name").textContent === "branches.jsonl" && document.documentElement.dataset.state === "ready");
  assert.equal(await page.locator("#tree-info").getAttribute("data-total"), String(cliJson("tree", fx("branches.jsonl"), "--json").length));
  const text = (await import("node:fs")).readFileSync(fx("example.jsonl"), "utf8");
  await page.evaluate((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], "dropped.jsonl"));
    for (const type of ["dragenter", "dragover", "drop"]) document.body.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, text);
  await page.waitForFunction(() => document.getElementById("file-name").textContent === "dropped.jsonl" && document.documentElement.dataset.state === "ready");
  assert.equal(await page.locator("#tree-info").getAttribute("data-total"), "24");
  await page.close();
});

test("?file= may only name this server's files", async () => {
  const s = await serve(fx("example.jsonl"));
  servers.push(s);
  const base = new URL(s.url);
  const { page, seen } = await openViewer(browser.context, new URL(`?file=${encodeURIComponent("http://198.51.100.7/x.jsonl")}`, base).href);
  assert.equal(await settled(page), "error");
  assert.deepEqual(seen.offHost, []);
  await page.close();
});

test("virtualized: a 20,000-entry session keeps ~a screenful of rows in the DOM and scrolls to the end", async () => {
  const lines = [JSON.stringify({ type: "session", version: 3, id: "big", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/" })];
  let parent = null;
  for (let i = 0; i < 20000; i++) {
    const id = `e${i}`;
    const role = i % 2 ? "assistant" : "user";
    const message = role === "user" ? { role, content: `question ${i}`, timestamp: i }
      : { role, content: [{ type: "text", text: `answer ${i}` }], api: "x", provider: "p", model: "m", usage: { input: i, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: i + 1 }, stopReason: "stop", timestamp: i };
    lines.push(JSON.stringify({ type: "message", id, parentId: parent, timestamp: new Date(1735689600000 + i * 1000).toISOString(), message }));
    parent = id;
  }
  const file = join(work, "big.jsonl");
  writeFileSync(file, lines.join("\n") + "\n");
  const { page } = await open(file);
  assert.equal(await page.locator("#tree-info").getAttribute("data-total"), "20000");
  const inDom = await page.locator("#tree .row").count();
  assert.ok(inDom > 10 && inDom < 200, `rows in the DOM: ${inDom}`);
  // The leaf is selected and scrolled into view at the end of the list.
  assert.equal(await page.locator(".row.selected").getAttribute("data-id"), "e19999");
  await page.focus("#tree");
  await page.keyboard.press("Home");
  await page.waitForFunction(() => document.querySelector(".row.selected")?.dataset.id === "e0");
  assert.ok((await page.locator("#tree .row").count()) < 200);
  await page.close();
});

test("streamed: a multi-megabyte session is indexed while it arrives, in pieces cut inside lines and characters, as the CLI reads it whole", async () => {
  // Text full of multi-byte characters, so the pieces the browser hands over end inside UTF-8 sequences too.
  const lines = [JSON.stringify({ type: "session", version: 3, id: "streamed", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/" })];
  let parent = null;
  for (let i = 0; i < 120; i++) {
    const id = `s${i}`;
    const text = `${i} ${"héllo wörld ✓ 𝄞 日本語 ".repeat(800 + i * 7)}`;
    const message = i % 2 === 0 ? { role: "user", content: text, timestamp: i }
      : { role: "assistant", content: [{ type: "text", text }], api: "x", provider: "p", model: "m", usage: { input: 10 * i, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 10 * i + 5 }, stopReason: "stop", timestamp: i };
    lines.push(JSON.stringify({ type: "message", id, parentId: parent, timestamp: new Date(1735689600000 + i * 1000).toISOString(), message }));
    parent = id;
  }
  // A malformed line in the middle and a last line without a newline after it.
  lines.splice(60, 0, "{not json");
  const file = join(work, "streamed.jsonl");
  writeFileSync(file, lines.join("\n"));
  const want = cliJson("tree", file, "--json");
  const { page } = await open(file);
  assert.equal(await page.locator("#tree-info").getAttribute("data-total"), String(want.length));
  assert.match(await page.locator("#errors").textContent(), /line 61:/);
  assert.equal(await page.locator(".row.selected").getAttribute("data-id"), "s119");
  assertSameContext(await readContext(page), file, "s119");
  // Indexing started before the last byte arrived (the old way fetched the whole file first).
  const marks = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType("mark").map((m) => [m.name, m.startTime])));
  assert.ok(marks["ptn:parse-start"] < marks["ptn:fetched"], JSON.stringify(marks));
  await page.close();
});

test("loops: the stats strip counts every loop of the file (any branch); each row is the CLI's line and selects the loop's first request", async () => {
  // A run that builds into the same error four times (priced), abandoned by a rewind; then one that reads the same
  // file three times on the active path.
  const lines = [JSON.stringify({ type: "session", version: 3, id: "loops", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/" })];
  let parent = null;
  let n = 0;
  const push = (entry, under = parent) => {
    const id = `l${n++}`;
    lines.push(JSON.stringify({ ...entry, id, parentId: under, timestamp: new Date(1735689600000 + n * 1000).toISOString() }));
    parent = id;
    return id;
  };
  const usage = (usd) => ({ input: 100, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: 110, cost: { input: usd, output: 0, cacheRead: 0, cacheWrite: 0, total: usd } });
  const call = (name, args, usd) => {
    const cid = `c${n}`;
    push({ type: "message", message: { role: "assistant", content: [{ type: "toolCall", id: cid, name, arguments: args }], api: "x", provider: "p", model: "m", usage: usage(usd), stopReason: "toolUse", timestamp: n } });
    return cid;
  };
  const result = (cid, name, text, isError) => push({ type: "message", message: { role: "toolResult", toolCallId: cid, toolName: name, content: [{ type: "text", text }], isError, timestamp: n } });
  push({ type: "message", message: { role: "user", content: "build it", timestamp: 0 } });
  const start = push({ type: "label", targetId: "l0", label: "anchor:start" });
  for (let i = 0; i < 4; i++) result(call("bash", { command: "cargo build" }, 0.02), "bash", "error[E0308]: mismatched types\nCommand exited with code 101", true);
  push({ type: "branch_summary", fromId: parent, summary: "tried the build" }, start);
  for (let i = 0; i < 3; i++) result(call("read", { path: "src/main.rs" }, 0.01), "read", "fn main() {}", false);
  const file = join(work, "loops.jsonl");
  writeFileSync(file, lines.join("\n") + "\n");
  const { waste } = cliJson("stats", file, "--json");
  assert.equal(waste.loops.length, 2, JSON.stringify(waste));
  const human = cli("stats", file).stdout.split("\n");
  const { page, seen } = await open(file);
  assert.equal(await page.locator('[data-stat="loops"] b').textContent(), "2");
  assert.equal(await page.locator('[data-stat="loops"]').getAttribute("title"), human.find((l) => l.startsWith("  loops:")).trim());
  await page.locator(".loops summary").click();
  const shown = await page.locator(".loops .loop").allTextContents();
  // The CLI lists the loops most repeated first; the page in the order they started: the same lines.
  assert.deepEqual([...shown].sort(), human.filter((l) => l.startsWith("    ")).map((l) => l.trim()).sort());
  assert.match(shown[0], /^bash `cargo build` ×4 \(the same failure: error\[E0308\]: mismatched types\): 4 requests, \$0\.0800, off the active path$/);
  // A loop's row selects the request it started with (its branch unfolded).
  await page.locator(".loops .loop").first().click();
  await page.waitForFunction((id) => document.getElementById("context").dataset.leaf === id, waste.loops[0].requestIds[0]);
  assert.deepEqual(seen.errors, []);
  await page.close();
});

test("archived branches: loaded on demand from the session's archive, shown greyed; the file pi opens shows none", async () => {
  const { copyFileSync, readFileSync } = await import("node:fs");
  const file = join(work, "archived.jsonl");
  copyFileSync(fx("branches.jsonl"), file);
  const original = cliJson("tree", file, "--json");
  const plan = cliJson("archive", file, "--min-idle", "0", "--json");
  assert.ok(plan.plan.moved.entries > 0, "the fixture has branches to archive");
  const archivedTree = cliJson("tree", file, "--json");
  const { page, seen } = await open(file);
  await showAll(page);
  assert.equal(await page.locator("#tree-info").getAttribute("data-total"), String(archivedTree.length));
  assert.equal(await page.locator("#tree .row.archived").count(), 0);
  const button = page.locator("#show-archived");
  await button.waitFor({ state: "visible" });
  await button.click();
  await page.waitForFunction((n) => document.getElementById("tree-info").dataset.total === String(n) && document.documentElement.dataset.state === "ready", original.length);
  await showAll(page);
  const rows = await collectRows(page);
  assert.deepEqual(rows.map((r) => r.id), original.map((r) => r.id), "the whole original tree, in pi's order");
  const index = JSON.parse(readFileSync(`${file}.archive`, "utf8").trimEnd().split("\n").at(-1));
  const archivedIds = new Set(index.entries.map((e) => e[3]));
  assert.deepEqual(rows.filter((r) => /\barchived\b/.test(r.cls)).map((r) => r.id).sort(), [...archivedIds].sort(), "exactly the archived entries are greyed");
  assert.equal(await page.locator(".row.leaf").getAttribute("data-id"), original.find((r) => r.leaf).id, "the same leaf");
  assert.ok(await button.isHidden());
  assert.deepEqual(seen.errors, []);
  assert.deepEqual(seen.offHost, []);
  await page.close();
});
