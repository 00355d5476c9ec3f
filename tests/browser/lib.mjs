// Helpers for the browser tests and the viewer benchmark: the built CLI's `view` server, real Chromium
// (Debian's /usr/bin/chromium driven by playwright-core, flags from ../shared/reference/toolchain.md §6), and
// page helpers that drive the viewer the way a user does (clicks, keys, scrolling the virtual tree).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const PKG = resolve(process.env.PTN_PKG || join(ROOT, "pkg"));
export const CLI = join(PKG, "cli.js");
export const FIXTURES = join(ROOT, "tests", "fixtures");
export const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
export const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** Throws a readable error when the build or Chromium is missing. */
export function requirePrereqs() {
  if (!existsSync(join(PKG, "viewer", "index.html"))) throw new Error(`${PKG}/viewer is missing: run \`npm run build\``);
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run \`npm run setup\` (installs Debian's chromium; WITH_BROWSER=0 skips it)`);
}

/** Runs the built CLI synchronously. */
export function cli(...args) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", maxBuffer: 1 << 30 });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
export const cliJson = (...args) => {
  const r = cli(...args);
  if (r.code !== 0) throw new Error(`cli ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
};

/** Starts `cli.js view <file>`; resolves to `{url, proc, stop()}` once it printed the URL. */
export function serve(file, ...extra) {
  const proc = spawn(process.execPath, [CLI, "view", file, ...extra], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  proc.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((r) => proc.once("exit", (code, signal) => r({ code, signal })));
  return new Promise((res, rej) => {
    let out = "";
    proc.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/^(http:\/\/\S+)\n/m);
      if (m) res({ url: m[1], proc, stderr: () => stderr, stop: async () => { proc.kill("SIGINT"); return exited; } });
    });
    exited.then(({ code }) => rej(new Error(`view exited ${code} before printing a URL: ${stderr}`)));
  });
}

/** Launches Chromium with a fresh profile. `close()` also removes the profile. */
export async function launch({ width = 1400, height = 900 } = {}) {
  const { chromium } = await import("playwright-core");
  const profile = mkdtempSync(join(tmpdir(), "ptn-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width, height },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Opens `url` in a new page and waits until the viewer settled. Records dialogs, page errors, console errors,
 * CSP violations and every request (requests leaving 127.0.0.1 are recorded, then aborted). `intercept: false`
 * leaves requests alone (interception slows large responses; for the benchmark).
 */
export async function openViewer(context, url, { wait = true, intercept = true } = {}) {
  const page = await context.newPage();
  const seen = { dialogs: [], errors: [], console: [], requests: [], offHost: [] };
  page.on("dialog", (d) => {
    seen.dialogs.push(`${d.type()}: ${d.message()}`);
    d.dismiss().catch(() => {});
  });
  page.on("pageerror", (e) => seen.errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") seen.console.push(`${m.type()}: ${m.text()}`);
  });
  if (intercept) await page.route("**/*", (route) => {
    const u = route.request().url();
    seen.requests.push(u);
    if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(u)) {
      seen.offHost.push(u);
      return route.abort();
    }
    return route.continue();
  });
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener("securitypolicyviolation", (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(url);
  if (wait) await settled(page);
  return { page, seen };
}

/** Waits until the viewer finished loading (ready, empty or error). */
export async function settled(page, timeout = 120000) {
  await page.waitForFunction(() => ["ready", "empty", "error", "idle"].includes(document.documentElement.dataset.state), null, { timeout });
  return page.evaluate(() => document.documentElement.dataset.state);
}

/** Shows every entry: filter "all", nothing folded. */
export async function showAll(page) {
  await page.selectOption("#filter", "all");
  await page.click("#unfold-all");
  await page.waitForFunction(() => {
    const i = document.getElementById("tree-info").dataset;
    return i.shown === i.total;
  });
}

/** Every displayed tree row in order, read by scrolling the virtual list: `[{id, label, cls, text}]`. */
export async function collectRows(page) {
  return page.evaluate(async () => {
    const tree = document.getElementById("tree");
    const seen = new Map();
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    tree.scrollTop = 0;
    await frame();
    for (;;) {
      for (const el of tree.querySelectorAll(".row")) {
        const pos = Math.round(new DOMMatrix(getComputedStyle(el).transform).m42 / el.offsetHeight);
        if (!seen.has(pos)) {
          const chip = el.querySelector(".chip");
          seen.set(pos, { id: el.dataset.id, label: chip ? chip.dataset.label : null, cls: el.className, text: el.querySelector(".txt").textContent });
        }
      }
      if (tree.scrollTop + tree.clientHeight >= tree.scrollHeight - 1) break;
      tree.scrollTop += tree.clientHeight;
      await frame();
    }
    return [...seen.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v);
  });
}

/** Scrolls the tree until the row for `id` is rendered and clicks it; waits for the context to show it. */
export async function selectEntry(page, id) {
  const found = await page.evaluate(async (id) => {
    const tree = document.getElementById("tree");
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    tree.scrollTop = 0;
    await frame();
    for (;;) {
      const el = [...tree.querySelectorAll(".row")].find((r) => r.dataset.id === id);
      if (el) {
        el.scrollIntoView({ block: "center" });
        await frame();
        return true;
      }
      if (tree.scrollTop + tree.clientHeight >= tree.scrollHeight - 1) return false;
      tree.scrollTop += tree.clientHeight;
      await frame();
    }
  }, id);
  if (!found) throw new Error(`no tree row for ${id}`);
  await page.locator(`#tree .row[data-id="${cssString(id)}"] .txt`).click();
  await page.waitForFunction((id) => document.getElementById("context").dataset.leaf === id, id);
}

/** The context panel with everything expanded: `{leaf, messages: [{role, text}], tokens, count}`. */
export async function readContext(page) {
  await page.click("#expand-all");
  return page.evaluate(async () => {
    const ctx = document.getElementById("context");
    // <details> toggle events (which build the collapsed bodies) fire asynchronously
    for (let i = 0; i < 200 && [...ctx.querySelectorAll("details")].some((d) => d.childNodes.length < 2); i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    const head = document.getElementById("context-head");
    return {
      leaf: ctx.dataset.leaf,
      count: Number(head.querySelector("[data-messages]").dataset.messages),
      tokens: Number(head.querySelector("[data-tokens]").dataset.tokens),
      messages: [...ctx.querySelectorAll("li.msg")].map((li) => ({ role: li.dataset.role, text: li.textContent })),
    };
  });
}

/** A CSS string literal body for an attribute selector value. */
export const cssString = (s) => s.replace(/["\\]/g, "\\$&").replace(/\n/g, "\\a ");

/**
 * A test file's browser and servers: launched before its tests, closed (with its temporary folder `work`) after
 * them. `open(file)` serves a session file and opens the viewer on it.
 */
export function browserSession(before, after, prefix) {
  const state = { browser: null, servers: [], work: mkdtempSync(join(tmpdir(), prefix)) };
  before(async () => {
    requirePrereqs();
    state.browser = await launch();
  });
  after(async () => {
    await state.browser?.close();
    for (const s of state.servers) await s.stop();
    rmSync(state.work, { recursive: true, force: true });
  });
  state.open = async (file) => {
    const s = await serve(file);
    state.servers.push(s);
    return openViewer(state.browser.context, s.url);
  };
  return state;
}
