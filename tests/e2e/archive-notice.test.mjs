// The archive notice in the real interactive pi (the newest tested host), read off the screen: pi runs in tmux (its
// own server socket) against a local Anthropic Messages mock (lib/mock-api.mjs, 127.0.0.1) with an isolated agent
// dir, resuming generated sessions (tests/bench/gen.mjs: a long run with anchors, rewinds and compactions):
// - a 55 MB session of which archive would take ~90 % out: one notice, with the size, the share and the command,
//   the same numbers as `archive --dry-run`; the model's request never carries it; after quitting pi the command
//   as printed archives the file, and the restore command archive prints puts it back;
// - the same session with PI_TREE_NAVIGATOR_NO_ARCHIVE_NOTICE=1, and with "archiveNotice": false in the agent
//   dir's tree-navigator.json: no notice;
// - a 5 MB session: no notice.
// Needs tmux (scripts/setup.sh installs it), the hosts (scripts/setup-hosts.sh) and `npm run build`.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "node:test";
import { HOST_VERSIONS, PKG_DIR, REPO, nodeFor, piCliPath } from "./lib/hosts.mjs";
import { startAnthropicMock } from "./lib/mock-api.mjs";
import { tmuxServer, tuiPrerequisites, waitFor } from "./lib/tmux.mjs";
import { WireModel } from "./lib/wire.mjs";

/** The newest tested pi (versions compared numerically); PTN_TUI_HOST picks another. */
const HOST = process.env.PTN_TUI_HOST ?? [...HOST_VERSIONS].sort((a, b) => a.localeCompare(b, "en", { numeric: true })).at(-1);
const SOCKET_DIR = mkdtempSync(join(tmpdir(), "ptn-notice-tmux-"));
const SOCKET = join(SOCKET_DIR, "tmux.sock");
const WORK = mkdtempSync(join(tmpdir(), "ptn-notice-"));
/** Wide enough that the command stays on one screen line. */
const COLUMNS = Number(process.env.PTN_NOTICE_COLUMNS ?? 400);

const { tmux, screen, kill } = tmuxServer(SOCKET);

/** A session of `entries` entries from the benchmarks' generator, its header's cwd set to `cwd` (pi resumes only a session whose cwd exists). */
function generate(entries, cwd) {
  const dir = join(WORK, `gen-${entries}`);
  mkdirSync(dir, { recursive: true });
  const r = spawnSync(process.execPath, [join(REPO, "tests/bench/gen.mjs"), String(entries), "10", dir], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const file = JSON.parse(r.stdout)["10"].file;
  const text = readFileSync(file, "utf8");
  const nl = text.indexOf("\n");
  const header = { ...JSON.parse(text.slice(0, nl)), cwd };
  writeFileSync(file, JSON.stringify(header) + text.slice(nl));
  return file;
}

/** The CLI's dry run of `file`: what archive would take out of it. */
function dryRun(file) {
  const r = spawnSync(process.execPath, [join(PKG_DIR, "cli.js"), "archive", file, "--dry-run", "--json"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const j = JSON.parse(r.stdout);
  return { fileBytes: j.original.bytes, savedBytes: j.original.bytes - j.main.bytes };
}

/**
 * pi resuming a copy of `session` in tmux window `name`; `env` / `config` (the agent dir's tree-navigator.json)
 * as given; the plugin's debug lines go to `debug`. Returns { name, file (the copy), mock, agent, debug }.
 */
async function startPi(t, name, session, { env = {}, config } = {}) {
  const dir = join(WORK, name);
  const agent = join(dir, "agent");
  const work = join(WORK, "work");
  mkdirSync(agent, { recursive: true });
  const file = join(dir, "session.jsonl");
  cpSync(session, file);
  // An old session, as a resumed one is: `archive` refuses a file changed in the last minute.
  const old = new Date(Date.now() - 3600_000);
  utimesSync(file, old, old);
  const mock = await startAnthropicMock({ replies: [{ text: "ok" }] });
  t.after(async () => {
    kill(name);
    await mock.close();
  });
  const model = new WireModel({ api: "anthropic-messages", baseUrl: mock.url, modelId: "mock-model" });
  writeFileSync(join(agent, "models.json"), JSON.stringify(model.modelsJson()));
  writeFileSync(join(agent, "settings.json"), JSON.stringify({ defaultProvider: model.providerId, defaultModel: model.modelId, quietStartup: true, packages: [PKG_DIR] }));
  if (config) writeFileSync(join(agent, "tree-navigator.json"), JSON.stringify(config));
  const debug = join(dir, "debug.log");
  const all = { PI_CODING_AGENT_DIR: agent, PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0", PI_TREE_NAVIGATOR_DEBUG: debug, ...env };
  const q = (s) => `'${String(s).replaceAll("'", "'\\''")}'`;
  const command = ["env", ...Object.entries(all).map(([k, v]) => q(`${k}=${v}`)), q(nodeFor(HOST)), q(piCliPath(HOST)), "--session", q(file)].join(" ");
  tmux("new-session", "-d", "-s", name, "-x", String(COLUMNS), "-y", "80", "-c", work, command);
  await waitFor(`${name}: pi's editor`, () => screen(name).some((l) => l.includes("mock-model")));
  return { name, file, mock, agent, debug };
}

/** What the notice's look at pi `p`'s session decided (its debug line), once the look is over. */
const decided = (p) => waitFor(`${p.name}: the archive notice's look`, () => (existsSync(p.debug) ? readFileSync(p.debug, "utf8").match(/\] archive notice: (.*)/)?.[1] : null));

const NOTICE = "tree-navigator: this session file is";

const prerequisites = () => {
  const missing = tuiPrerequisites(HOST);
  if (!existsSync(join(PKG_DIR, "archive-notice.js"))) missing.push(`${PKG_DIR}/archive-notice.js (npm run build)`);
  return missing;
};

test(`the archive notice in pi ${HOST}'s interactive TUI (tmux, mock model)`, { timeout: 600_000 }, async (t) => {
  t.after(() => {
    kill();
    rmSync(SOCKET_DIR, { recursive: true, force: true });
    rmSync(WORK, { recursive: true, force: true });
  });
  assert.deepEqual(prerequisites(), [], "prerequisites");
  mkdirSync(join(WORK, "work"));
  const big = generate(30_000, join(WORK, "work"));
  const small = generate(3_000, join(WORK, "work"));
  const core = await import(join(PKG_DIR, "index-node.js"));
  assert.ok(dryRun(small).fileBytes < 50e6, "the small session is under 50 MB");

  const [on, envOff, configOff, little] = [
    await startPi(t, "big", big),
    await startPi(t, "big-env-off", big, { env: { PI_TREE_NAVIGATOR_NO_ARCHIVE_NOTICE: "1" } }),
    await startPi(t, "big-config-off", big, { config: { archiveNotice: false } }),
    await startPi(t, "small", small),
  ];
  // What `archive --dry-run` says of the file pi resumed (the stubs name the archive, so the same file name).
  const expected = dryRun(on.file);
  assert.ok(expected.fileBytes >= 50e6 && expected.savedBytes >= expected.fileBytes / 2, `the big session qualifies: ${JSON.stringify(expected)}`);

  await t.test("a big session mostly off the active path: one notice with the size, the share and the command", async () => {
    const lines = await waitFor("the notice", () => {
      const s = screen(on.name);
      return s.some((l) => l.includes("Turn this notice off")) ? s : null;
    });
    const text = lines.join("\n");
    process.stdout.write(`\n── pi ${HOST}, resuming a ${(expected.fileBytes / 1e6).toFixed(1)} MB session ──\n${lines.filter(Boolean).slice(-16).join("\n")}\n`);
    assert.equal(text.split(NOTICE).length - 1, 1, "exactly one notice");
    assert.equal(await decided(on), `shown (${expected.fileBytes} bytes, ${expected.savedBytes} of them for the archive)`);
    // The core's text for the dry run's numbers and this machine's command, line for line on the screen.
    const want = core.archiveNotice(expected.fileBytes, expected.savedBytes, on.file, ["NODE", join(PKG_DIR, "cli.js")]);
    const [sentence, commandLine, offLine] = want.split("\n");
    assert.ok(text.replace(/\s+/g, " ").includes(sentence.replace(/\s+/g, " ")), `the notice's sentence on screen:\n${text}`);
    assert.ok(lines.some((l) => l.includes(offLine)), "how to turn it off");
    const command = lines.find((l) => l.includes(" archive ") && l.includes(on.file))?.trim();
    assert.ok(command, `the command on screen:\n${text}`);
    assert.ok(command.endsWith(commandLine.trim().replace(/^NODE /, "")), `${command}\n${commandLine}`);
  });

  await t.test("the model never sees it: pi's next request carries no word of it", async () => {
    tmux("send-keys", "-t", on.name, "-l", "say ok");
    tmux("send-keys", "-t", on.name, "Enter");
    // pi can show its footer a moment before its editor takes keys: the prompt is typed again where it was lost.
    if (!(await waitFor("the request", () => on.mock.requests.length > 0, 15_000).catch(() => false))) {
      if (!screen(on.name).some((l) => l.includes("say ok"))) tmux("send-keys", "-t", on.name, "-l", "say ok");
      tmux("send-keys", "-t", on.name, "Enter");
    }
    await waitFor("the request", () => on.mock.requests.length === 1).catch((e) => {
      process.stderr.write(`\n${on.mock.requests.length} requests; the screen:\n${screen(on.name).filter(Boolean).slice(-20).join("\n")}\n`);
      throw e;
    });
    // (The generator's compactions may keep a tool result without its call, which the mock answers with a 400: the
    // request is what counts here.)
    assert.ok(!JSON.stringify(on.mock.requests[0].body).includes("never sends again"), "no notice in the request");
    assert.equal(screen(on.name).join("\n").split(NOTICE).length - 1, 1, "still one notice after a turn");
  });

  await t.test("off with the env switch, off with the config file, none on a small session", async () => {
    // Each look is over (its debug line) before the screen is read: no notice can come after it.
    for (const [p, want] of [[envOff, /^off$/], [configOff, /^off$/], [little, /^\d+ bytes: too small to read$/]]) {
      const what = await decided(p);
      assert.match(what, want, `${p.name}: the look decided "${what}"`);
      const text = screen(p.name).join("\n");
      assert.ok(!text.includes(NOTICE), `${p.name}: no notice:\n${text}`);
    }
  });

  await t.test("after quitting pi, the command as printed archives the session", async () => {
    const command = screen(on.name).find((l) => l.includes(" archive ") && l.includes(on.file)).trim();
    tmux("send-keys", "-t", on.name, "C-c");
    tmux("send-keys", "-t", on.name, "C-c");
    await waitFor("pi to quit", () => spawnSync("tmux", ["-S", SOCKET, "has-session", "-t", on.name]).status !== 0, 30_000);
    // pi wrote the turn above a moment ago: the file is as old as a session resumed a while after its last turn.
    const old = new Date(Date.now() - 3600_000);
    utimesSync(on.file, old, old);
    const r = spawnSync("sh", ["-c", command], { encoding: "utf8" });
    assert.equal(r.status, 0, `${command}\n${r.stderr}`);
    assert.match(r.stdout, /moved whole: \d+ entries off the active path/);
    assert.ok(existsSync(`${on.file}.archive`), "the archive next to the session");
    // Its report names the command that puts it back, the same way: it does (a while later, as archive's own guard wants).
    const restore = r.stdout.match(/; `([^`]+)` puts it back/)?.[1];
    assert.ok(restore?.includes(` restore ${on.file}`), r.stdout);
    utimesSync(on.file, old, old);
    const back = spawnSync("sh", ["-c", restore], { encoding: "utf8" });
    assert.equal(back.status, 0, `${restore}\n${back.stderr}`);
    assert.ok(!existsSync(`${on.file}.archive`), "restored: the archive is gone");
  });
});
