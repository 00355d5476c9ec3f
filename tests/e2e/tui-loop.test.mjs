// The loop hint (issue 41) as the user sees it: the real interactive pi (the newest tested host; PTN_TUI_HOST for
// another) in tmux against the local Anthropic mock; the model anchors, runs the same failing `bash` build three
// times (pi's own bash tool), then stops. Read with `tmux capture-pane`:
// - collapsed, the hint is one line in pi's custom-message renderer (the core's headline and pi's expand hint), and
//   none of the text the model read shows;
// - pi's expand key (ctrl+o) shows the hint's text.
// The screen is printed (the report's "what the user sees"). Needs tmux, the hosts and `npm run build`. ~5 s.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "node:test";
import { HOST_VERSIONS, nodeFor, piCliPath } from "./lib/hosts.mjs";
import { startAnthropicMock } from "./lib/mock-api.mjs";
import { tmuxServer, tuiPrerequisites, waitFor } from "./lib/tmux.mjs";
import { cliAgent } from "./lib/wire.mjs";

const HOST = process.env.PTN_TUI_HOST ?? [...HOST_VERSIONS].sort((a, b) => a.localeCompare(b, "en", { numeric: true })).at(-1);
const SOCKET_DIR = mkdtempSync(join(tmpdir(), "ptn-tui-loop-"));
const SOCKET = join(SOCKET_DIR, "tmux.sock");
const BUILD = "echo 'error: cc not found'; exit 1";
const { tmux, screen, kill } = tmuxServer(SOCKET);

test(`pi ${HOST}'s interactive TUI: the loop hint is one line, expanded its text`, { timeout: 120_000 }, async (t) => {
  t.after(() => {
    kill();
    rmSync(SOCKET_DIR, { recursive: true, force: true });
  });
  assert.deepEqual(tuiPrerequisites(HOST), [], "prerequisites");
  const dir = mkdtempSync(join(tmpdir(), "ptn-tui-loop-"));
  const build = { calls: [{ name: "bash", input: { command: BUILD } }] };
  const mock = await startAnthropicMock({
    replies: [{ calls: [{ name: "navigate_tree", input: { action: "anchor", name: "start" } }] }, build, build, build, { text: "Stopped building." }],
  });
  t.after(async () => {
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const { agent, work } = cliAgent(dir, mock.url, { quietStartup: true });
  const env = { PI_CODING_AGENT_DIR: agent, PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0" };
  const q = (s) => `'${String(s).replaceAll("'", "'\\''")}'`;
  const command = ["env", ...Object.entries(env).map(([k, v]) => q(`${k}=${v}`)), q(nodeFor(HOST)), q(piCliPath(HOST))].join(" ");
  const name = "loop";
  tmux("new-session", "-d", "-s", name, "-x", "120", "-y", "60", "-c", work, command);
  await waitFor("pi's editor", () => screen(name).some((l) => l.includes("mock-model")));
  const type = () => {
    tmux("send-keys", "-t", name, "-l", "Please build it");
    tmux("send-keys", "-t", name, "Enter");
  };
  type();
  // pi can show its footer a moment before its editor takes keys: type again where the prompt was lost.
  if (!(await waitFor("the run to start", () => mock.requests.length > 0, 15_000).catch(() => false))) {
    if (!screen(name).some((l) => l.includes("Please build it"))) tmux("send-keys", "-t", name, "-l", "Please build it");
    tmux("send-keys", "-t", name, "Enter");
  }
  let last = [];
  const lines = await waitFor("the run to end", () => {
    last = screen(name);
    return last.some((l) => l.trim() === "Stopped building.") ? last : null;
  }).catch((e) => {
    process.stderr.write(`\nthe screen when the wait ended:\n${last.filter(Boolean).slice(-40).join("\n")}\n`);
    throw e;
  });
  assert.deepEqual(mock.violations, [], "pi's requests broke no API rule");
  // The model read the hint: in the request after the third failure.
  assert.ok(JSON.stringify(mock.requests[4].full.messages).includes("[loop] You have called bash"));

  const from = lines.findIndex((l) => l.includes("↻ loop:"));
  const shown = lines.slice(Math.max(0, lines.findIndex((l) => l.includes("Please build it"))), lines.findIndex((l) => l.trim() === "Stopped building.") + 1).filter((l) => l.trim() !== "");
  process.stdout.write(`\n── pi ${HOST}, collapsed ──\n${shown.join("\n")}\n`);
  assert.ok(from >= 0, `no loop hint line:\n${lines.join("\n")}`);
  assert.ok(!lines[from + 1].trim() || lines[from + 1].includes("Stopped building."), "the line does not wrap");
  const hintLines = lines.filter((l) => l.includes("↻ loop:"));
  assert.equal(hintLines.length, 1, hintLines.join("\n"));
  assert.match(hintLines[0], /^ *↻ loop: bash `echo 'error: cc not found'; exit 1` ×3, same failure → rewind to 'start' \(ctrl\+o to expand\)$/);
  // Collapsed, the one line and nothing of the text the model read.
  const all = lines.join("\n");
  assert.doesNotMatch(all, /\[loop\] You have called|Calling it again will not change that/);
  assert.doesNotMatch(all, /\[tree-navigator-loop\]/, "not pi's default box with its label");

  tmux("send-keys", "-t", name, "C-o");
  const expanded = await waitFor("the expanded hint", () => {
    const s = screen(name);
    return s.map((l) => l.trim()).join(" ").includes("Calling it again will not change that.") ? s : null;
  });
  const text = expanded.map((l) => l.trim()).join(" ");
  process.stdout.write(`\n── pi ${HOST}, expanded (ctrl+o) ──\n${expanded.filter((l) => l.trim() !== "").slice(-30).join("\n")}\n`);
  assert.ok(text.includes("[loop] You have called bash `echo 'error: cc not found'; exit 1` 3 times and it failed each time with: error: cc not found."), text);
  assert.match(text, /navigate_tree\(action='rewind', labelStart='start', labelEnd='loop-exit'/);
  assert.ok(!expanded.some((l) => l.includes("↻ loop:")), "expanded, the text replaces the line");
});
