// archiveOnExit and `/archive` in real pi — the newest tested host and 0.75.5 (PTN_EXIT_HOSTS="…" picks others) —
// against a local Anthropic Messages mock (lib/mock-api.mjs, 127.0.0.1), each pi with an isolated agent dir:
// - print mode: a scripted run anchors, reads a 200 KB file and rewinds (the plugin's own long-run shape), with
//   `"archiveOnExit": true`; pi quits, and within a minute the archive is next to the session and the log in the
//   agent dir says so. pi's own loader then opens the archived file as the file pi left (restored from the archive in
//   a copy): the same leaf, context, estimate, labels on the path and name; a resumed pi's `recall` reads the same
//   collapsed text as on that copy, and `/anchors` (print mode: its rows as text) shows the same rows. The env
//   switch wins both ways (=0 over the config's true, =1 without the config's key); with neither nothing starts.
// - the TUI under tmux: `/archive` shows `archive --dry-run`'s report and asks; Yes; quitting prints the one line;
//   the archive appears; the log says "archived".
// - and on every host of the matrix (0.74.2 … 1.6.0), the end of print mode archives a session with archiveOnExit:
//   each host's `pi -p` ends with session_shutdown, reason "quit".
// Needs tmux (scripts/setup.sh), the hosts (scripts/setup-hosts.sh) and `npm run build`.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "node:test";
import { hostDir } from "../../scripts/hosts.mjs";
import { HOST_VERSIONS, PKG_DIR, REPO, nodeFor, piCliPath, runChild } from "./lib/hosts.mjs";
import { startAnthropicMock } from "./lib/mock-api.mjs";
import { tmuxServer, tuiPrerequisites, waitFor } from "./lib/tmux.mjs";
import { WireModel, textOf } from "./lib/wire.mjs";

const NEWEST = [...HOST_VERSIONS].sort((a, b) => a.localeCompare(b, "en", { numeric: true })).at(-1);
const HOSTS = process.env.PTN_EXIT_HOSTS ? process.env.PTN_EXIT_HOSTS.split(/[\s,]+/).filter(Boolean) : [NEWEST, "0.75.5"];
const WORK = mkdtempSync(join(tmpdir(), "ptn-exit-archive-"));
const SOCKET = join(WORK, "tmux.sock");
const { tmux, screen, kill } = tmuxServer(SOCKET);
const CLI = join(PKG_DIR, "cli.js");
const q = (s) => `'${String(s).replaceAll("'", "'\\''")}'`;

test.after(() => {
  kill();
  rmSync(WORK, { recursive: true, force: true });
});

/** The run that makes the session: anchor, a 200 KB read, a rewind over it (the summary is the 4th request), done. */
const LONG_RUN = [
  { calls: [{ name: "navigate_tree", input: { action: "anchor", name: "start" } }] },
  { calls: [{ name: "bash", input: { command: "cat big.txt" } }] },
  { calls: [{ name: "navigate_tree", input: { action: "rewind", labelStart: "start", labelEnd: "parser-done", summaryFocus: "User asked: build the parser. Done: read big.txt." } }] },
  { text: "## Goal\nBuild the parser.\n\n## Progress\n### Done\n- [x] read big.txt\n\n## Next Steps\n1. tests" },
  { text: "All done." },
];
// pi's bash tool keeps the output's last 50 KB: a line near its end.
const MARK = "big line 2990:";

/** An agent dir for pi `host` pointing at `mock`, loading the built package, with `config` as its tree-navigator.json. */
function agentDir(name, mock, config) {
  const dir = join(WORK, name);
  mkdirSync(dir, { recursive: true });
  const model = new WireModel({ api: "anthropic-messages", baseUrl: mock.url, modelId: "mock-model" });
  writeFileSync(join(dir, "models.json"), JSON.stringify(model.modelsJson()));
  writeFileSync(join(dir, "settings.json"), JSON.stringify({ defaultProvider: model.providerId, defaultModel: model.modelId, quietStartup: true, packages: [PKG_DIR] }));
  if (config) writeFileSync(join(dir, "tree-navigator.json"), JSON.stringify(config));
  return dir;
}

/** `pi -p <args>` on `host` with the agent dir `agent` (the plugin's debug lines to `debug`): {status, stdout, stderr}. */
function piPrint(host, agent, args, { env = {}, debug, cwd }) {
  const all = { ...process.env, PI_CODING_AGENT_DIR: agent, PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0", PI_TREE_NAVIGATOR_DEBUG: debug, ...env };
  delete all.NODE_TEST_CONTEXT;
  return runChild(nodeFor(host), [piCliPath(host), "-p", ...args], all, cwd);
}

const debugLines = (file) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter((l) => l.includes("archive on exit")) : []);
const logOf = (agent) => (existsSync(join(agent, "tree-navigator.log")) ? readFileSync(join(agent, "tree-navigator.log"), "utf8") : "");

/** `file`'s archive appears within a minute, and the log in `agent` says it was archived. */
async function archivedWithinAMinute(file, agent) {
  await waitFor(`${file}.archive`, () => existsSync(`${file}.archive`) && logOf(agent).includes(`: archived: ${file}`), 60_000);
}

/** A copy of an archived `file` (with its archive) in `dir`, restored: the file as pi left it. */
function restoredCopy(file, dir) {
  mkdirSync(dir, { recursive: true });
  const copy = join(dir, "session.jsonl");
  cpSync(file, copy);
  cpSync(`${file}.archive`, `${copy}.archive`);
  const r = spawnSync(process.execPath, [CLI, "restore", copy, "--min-idle", "0"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return copy;
}

/** What pi `host`'s own loader builds for each file (tests/diff/reference.mjs): leaf, context, estimate, labels, name. */
function piOpens(host, files) {
  const manifest = join(WORK, `manifest-${host}-${Date.now()}.json`);
  writeFileSync(manifest, JSON.stringify({ sessions: files.map((file, index) => ({ index, file, leaves: ["$default"] })) }));
  const r = spawnSync(nodeFor(host), [join(REPO, "tests/diff/reference.mjs"), "--pi", hostDir(host), "--manifest", manifest, "--labels"], { encoding: "utf8", maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim().split("\n").slice(1).map((l) => JSON.parse(l));
}

test("every host of the matrix: the end of print mode is pi's quit (session_shutdown, reason quit): the session is archived", { timeout: 600_000 }, async (t) => {
  const root = join(WORK, "matrix");
  const project = join(root, "project");
  mkdirSync(project, { recursive: true });
  const { writeLongSession } = await import(join(REPO, "tests/bench/long-session.mjs"));
  const source = join(root, "source.jsonl");
  writeLongSession(source, { mb: 1, cwd: project });
  const mock = await startAnthropicMock({ replies: () => ({ text: "ok" }) });
  t.after(() => mock.close());
  for (const host of HOST_VERSIONS) {
    const agent = agentDir(`agent-${host}-matrix`, mock, { archiveOnExit: true, archiveOnExitMinMB: 0 });
    const file = join(root, `${host}.jsonl`);
    cpSync(source, file);
    const debug = join(root, `${host}.debug`);
    const r = await piPrint(host, agent, ["--session", file, "say ok"], { debug, cwd: project });
    assert.equal(r.status, 0, `pi ${host}: ${r.stderr}`);
    assert.match(debugLines(debug).join("\n"), /archiver started for /, `pi ${host}`);
    await archivedWithinAMinute(file, agent);
  }
});

for (const host of HOSTS) {
  test(`pi ${host}, print mode: archived when pi quits, resumed the same, recall and /anchors read what was collapsed`, { timeout: 600_000 }, async (t) => {
    const root = join(WORK, `print-${host}`);
    const project = join(root, "project");
    const sessions = join(root, "sessions");
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, "big.txt"), Array.from({ length: 3000 }, (_, i) => `big line ${i}: ${"lorem ipsum dolor sit amet ".repeat(2)}`).join("\n"));
    const mock = await startAnthropicMock({ replies: [] });
    t.after(() => mock.close());
    const debug = join(root, "debug.log");
    const on = agentDir(`agent-${host}-on`, mock, { archiveOnExit: true, archiveOnExitMinMB: 0 });

    // The run: pi makes the session; at its end it quits and the archiver starts.
    mock.replies.push(...LONG_RUN);
    const run = await piPrint(host, on, ["--session-dir", sessions, "Please build the parser"], { debug, cwd: project });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /All done\./);
    const [file] = readdirSync(sessions).filter((n) => n.endsWith(".jsonl")).map((n) => join(sessions, n));
    assert.ok(file, "pi wrote the session");
    assert.match(debugLines(debug).join("\n"), /archive on exit: archiver started for .* in [\d.]+ ms/);
    await archivedWithinAMinute(file, on);
    const before = restoredCopy(file, join(root, "restored"));
    assert.ok(readFileSync(before, "utf8").includes(MARK), "the read is in the session pi left");
    assert.ok(!readFileSync(file, "utf8").includes(MARK), "and out of the archived file");

    await t.test("pi's own loader opens the archived file as the file pi left: leaf, context, estimate, labels, name", () => {
      const [a, b] = piOpens(host, [file, before]);
      assert.ok(!a.error && !b.error, a.error ?? b.error);
      assert.equal(a.lastEntryId, b.lastEntryId, "the leaf pi opens");
      const [ra, rb] = [a.results[0], b.results[0]];
      assert.deepEqual(ra.context, rb.context, "the context");
      assert.deepEqual(ra.estimate, rb.estimate, "the estimate");
      assert.deepEqual(ra.pathLabels, rb.pathLabels, "the labels on the path");
      assert.ok(ra.pathLabels.some(([, label]) => label === "anchor:parser-done"), JSON.stringify(ra.pathLabels));
      assert.equal(a.sessionName, b.sessionName);
    });

    await t.test("resumed: recall reads the collapsed read from the archive, as on the file pi left; the env's 0 wins over the config", async () => {
      const answers = [];
      for (const f of [file, before]) {
        const from = mock.requests.length;
        mock.replies.push({ calls: [{ name: "navigate_tree", input: { action: "recall", name: "parser-done", query: MARK } }] }, { text: "ok" });
        const r = await piPrint(host, on, ["--session", f, "What did big.txt say?"], { debug, cwd: project, env: { PI_TREE_NAVIGATOR_ARCHIVE_ON_EXIT: "0" } });
        assert.equal(r.status, 0, r.stderr);
        const reqs = mock.requests.slice(from);
        assert.equal(reqs.length, 2);
        answers.push(textOf(reqs[1].full.messages.at(-1)));
      }
      assert.ok(answers[0].includes(MARK), `recall's page holds the collapsed read:\n${answers[0].slice(0, 600)}`);
      assert.equal(answers[0], answers[1], "the same page as on the file pi left");
      assert.equal(debugLines(debug).at(-1), "[pi-tree-navigator] archive on exit: off");
      assert.ok(!existsSync(`${before}.archive`), "PI_TREE_NAVIGATOR_ARCHIVE_ON_EXIT=0: not archived");
    });

    await t.test("resumed: /anchors shows the same rows as on the file pi left, the rewind with what it saved", async () => {
      const rows = [];
      for (const f of [file, before]) {
        const r = await piPrint(host, on, ["--session", f, "/anchors"], { debug, cwd: project, env: { PI_TREE_NAVIGATOR_ARCHIVE_ON_EXIT: "0" } });
        assert.equal(r.status, 0, r.stderr);
        const out = `${r.stdout}\n${r.stderr}`;
        rows.push(out.slice(out.indexOf("Anchors and rewinds")).split("\n").filter(Boolean).slice(0, 8).join("\n"));
      }
      process.stdout.write(`\n── pi ${host}: /anchors on the archived file ──\n${rows[0]}\n`);
      assert.match(rows[0], /parser-done/, rows[0]);
      assert.match(rows[0], /rewind/i, rows[0]);
      // The money (the title's spent and cache-read share, a rewind's "≈ $x saved so far": src/cost/) is each file's
      // own: the recall runs above appended requests to both, and the mock's cache served them differently. The
      // rest is the same, and both say the money.
      const money = /spent \$\d+\.\d\d, \d+\.\d% of prompt tokens from the cache| · ≈ −?<?\$\d+\.\d\d saved so far/g;
      for (const r of rows) assert.equal(r.match(money)?.length, 2, r);
      assert.equal(rows[0].replace(money, "<money>"), rows[1].replace(money, "<money>"));
    });

    await t.test("off by default; on with PI_TREE_NAVIGATOR_ARCHIVE_ON_EXIT=1 alone", async () => {
      const plain = agentDir(`agent-${host}-plain`, mock);
      const envOnly = agentDir(`agent-${host}-env`, mock, { archiveOnExitMinMB: 0 });
      for (const [agent, env, archived] of [[plain, {}, false], [envOnly, { PI_TREE_NAVIGATOR_ARCHIVE_ON_EXIT: "1" }, true]]) {
        const copy = restoredCopy(file, join(root, `copy-${archived}`));
        mock.replies.push({ text: "ok" });
        const r = await piPrint(host, agent, ["--session", copy, "say ok"], { debug, cwd: project, env });
        assert.equal(r.status, 0, r.stderr);
        if (archived) await archivedWithinAMinute(copy, agent);
        else {
          // The decision is made in the shutdown handler, before pi exits: its debug line is the proof.
          assert.equal(debugLines(debug).at(-1), "[pi-tree-navigator] archive on exit: off");
          assert.ok(!existsSync(`${copy}.archive`) && !logOf(agent), "nothing started, nothing logged");
        }
      }
    });
  });

  test(`pi ${host}, the TUI: /archive shows the dry run and asks; Yes; quit; archived`, { timeout: 300_000 }, async (t) => {
    assert.deepEqual(tuiPrerequisites(host), [], "prerequisites");
    const root = join(WORK, `tui-${host}`);
    const project = join(root, "project");
    mkdirSync(project, { recursive: true });
    // A long run's session (tests/bench/long-session.mjs: rewinds over big reads) whose header names `project`.
    const { writeLongSession } = await import(join(REPO, "tests/bench/long-session.mjs"));
    const file = join(root, "session.jsonl");
    writeLongSession(file, { mb: 2, cwd: project });
    const mock = await startAnthropicMock({ replies: [] });
    t.after(() => mock.close());
    const agent = agentDir(`agent-${host}-tui`, mock);
    const name = `tui-${host.replaceAll(".", "-")}`;
    const env = { PI_CODING_AGENT_DIR: agent, PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0" };
    const command = ["env", ...Object.entries(env).map(([k, v]) => q(`${k}=${v}`)), q(nodeFor(host)), q(piCliPath(host)), "--session", q(file)].join(" ");
    tmux("new-session", "-d", "-s", name, "-x", "200", "-y", "60", "-c", project, command);
    // Keep the pane after pi exits: the quit line is read from it.
    tmux("set-option", "-t", name, "remain-on-exit", "on");
    const text = () => screen(name).join("\n");
    await waitFor(`${name}: pi's editor`, () => text().includes("mock-model"));
    // pi can show its footer a moment before its editor takes keys: typed again until it shows.
    await waitFor("/archive typed", () => {
      if (!text().includes("/archive")) tmux("send-keys", "-t", name, "-l", "/archive");
      return text().includes("/archive");
    });
    tmux("send-keys", "-t", name, "Enter");
    const dialog = await waitFor("the dialog", () => (text().includes("Archive this session when pi quits?") && text().includes("→ Yes") ? text() : null));
    process.stdout.write(`\n── pi ${host}: /archive ──\n${screen(name).filter(Boolean).slice(-24).join("\n")}\n`);
    // archive --dry-run's first line for the file as it is now (pi appended to it at start): the same numbers.
    const first = spawnSync(process.execPath, [CLI, "archive", file, "--dry-run"], { encoding: "utf8" }).stdout.split("\n")[0];
    assert.match(first, /^session\.jsonl: .* \[dry run: nothing written\]$/);
    assert.ok(dialog.includes(first), `archive --dry-run's report: ${first}`);
    assert.ok(!existsSync(`${file}.archive`), "nothing archived yet");
    tmux("send-keys", "-t", name, "Enter"); // Yes
    const line = "tree-navigator: session.jsonl will be archived once pi has exited";
    await waitFor("the answer to Yes", () => text().includes(line));
    // Ctrl+D quits from an empty editor; the editor may take keys a moment after the dialog closed: sent again.
    // (tmux does not always draw its "Pane is dead" line: the pane's own flag says it.)
    const dead = () => tmux("list-panes", "-t", name, "-F", "#{pane_dead}").trim() === "1";
    let sent = 0;
    await waitFor("pi to exit", () => dead() || (sent++ % 8 === 0 && tmux("send-keys", "-t", name, "C-d") && false), 30_000);
    // The one line on quit: after pi's last frame (its footer names the model), where pi prints its own last lines.
    const lines = screen(name).filter(Boolean);
    const after = lines.slice(lines.findLastIndex((l) => l.includes("mock-model")) + 1);
    process.stdout.write(`── after quitting ──\n${after.join("\n")}\n`);
    assert.ok(after.some((l) => l.startsWith(line)), "the one line on quit");
    await archivedWithinAMinute(file, agent);
  });
}
