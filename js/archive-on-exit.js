// archiveOnExit and `/archive`: a session file archived for the user once pi has exited (docs/archive.md).
//
// When pi quits (its `session_shutdown` with reason "quit": the TUI's quit and the end of print mode, on every
// tested host) and archiveOnExit is on (`"archiveOnExit": true` in tree-navigator.json, or
// PI_TREE_NAVIGATOR_ARCHIVE_ON_EXIT=1; the env wins both ways) or `/archive` was confirmed for the file, this
// starts the package's own CLI, detached — `archive <file> --after-exit <pi's pid> --log <agentDir>/tree-navigator.log`
// (plus `--if-worth <archiveOnExitMinMB>` unless the user asked) — and returns: quitting waits for no read of the
// file, only one `stat` and the spawn. The CLI waits until pi has exited, then decides and archives
// (js/archive-after-exit.js). A session left earlier in the same process (`/resume`, `/new`) is archived with it.
// Where pi has a UI, one line on the terminal says so (pi has stopped its TUI by then); the outcome goes to the
// log, never to the model. Every sentence is the core's (src/notice.rs).
//
// `/archive` runs `archive --dry-run` in a worker (js/archive-notice.js), shows its report and asks to confirm.
import { spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { archiveOnExitOn } from "./agent.js";
import { canAsk, say } from "./anchors-command.js";
import { CLI_PATH, dryRunInWorker } from "./archive-notice.js";
import { cliWords, nodeCommand } from "./archive.js";
import { agentDir } from "./config.js";
import { registry } from "./host.js";
import { debugLog } from "./resume.js";

/** The log file's name, in pi's agent dir (beside pi's own pi-debug.log). */
export const LOG_FILE = "tree-navigator.log";

/** Where the archiver writes: `<agentDir>/tree-navigator.log` (pi's default agent dir when this pi cannot say). */
export function logPath(pkg) {
  return join(agentDir(pkg) ?? join(homedir(), ".pi", "agent"), LOG_FILE);
}

/** Starts the archiver: detached, no stdio, not waited for. Returns the child. */
export function startArchiver(args, cwd) {
  const child = spawn(nodeCommand(), [CLI_PATH, ...args], { detached: true, stdio: "ignore", cwd });
  child.on("error", () => {}); // a Node that cannot start: nothing to archive with, nothing to break
  child.unref();
  return child;
}

/**
 * Installs the `/archive` command and the `session_shutdown` hook. `core()`: the live wasm API; `configOf(sm)`:
 * the session's effective config (agent.js). `start(args, cwd)` and `dryRun(file, cli)` replace the spawn and the
 * worker (tests).
 */
export function installArchiveOnExit({ pi, core, configOf, pkg, env = process.env, start = startArchiver, dryRun = dryRunInWorker }) {
  const reg = registry();
  const debug = debugLog(env);
  // Process-wide (every load of the extension, every session of this pi): files `/archive` was confirmed for,
  // files left to archive at the quit (`{file, minMb}`), and files an archiver was started for.
  reg.exitArchive ??= { asked: new Set(), left: new Map(), started: new Set() };
  const state = reg.exitArchive;
  const cli = () => cliWords(CLI_PATH);
  // Only `no-ui` names the command: the others need no look along the PATH (the quit line is on the quit's clock).
  const text = (what, file, bytes = 0, report) => core()?.exitArchiveText(what, file ?? "", bytes, logPath(pkg), what === "no-ui" ? cli() : [], report) ?? "";

  /** `{file, minMb}` to archive for `ctx`'s session at its shutdown (minMb null: the user asked), or why not. */
  function wanted(ctx) {
    const sm = ctx?.sessionManager;
    const file = sm?.getSessionFile?.();
    const api = core();
    if (!file || !api) return `not looked at (${api ? "no session file" : "no core"})`;
    if (state.asked.has(file)) return { file, minMb: null };
    const config = configOf(sm);
    if (!archiveOnExitOn(config, env)) return "off";
    const minMb = config?.archiveOnExitMinMB ?? 10;
    let size;
    try {
      size = statSync(file).size;
    } catch {
      return "nothing written";
    }
    // The rule's size half now (one stat); the share is measured by the archiver, after pi has exited.
    return api.exitArchiveDue(size, size, minMb) ? { file, minMb } : `${size} bytes: under ${minMb} MB`;
  }

  pi.on("session_shutdown", (event, ctx) => {
    const t0 = performance.now();
    // A reload keeps the session; leaving it for another (`/resume`, `/new`, a fork) keeps this pi running.
    if (event?.reason === "reload") return;
    let want;
    try {
      want = wanted(ctx);
    } catch (e) {
      want = `failed (${e?.message ?? e})`;
    }
    if (typeof want === "string") debug(`archive on exit: ${want}`);
    else state.left.set(want.file, want.minMb);
    if (event?.reason !== undefined && event.reason !== "quit") return;
    const files = [...state.left.keys()];
    for (const [file, minMb] of state.left) {
      if (state.started.has(file)) continue;
      state.started.add(file);
      const args = ["archive", file, "--after-exit", String(process.pid), "--log", logPath(pkg)];
      if (minMb !== null) args.push("--if-worth", String(minMb));
      try {
        start(args, dirname(file));
      } catch (e) {
        debug(`archive on exit: could not start the archiver for ${file} (${e?.message ?? e})`);
        continue;
      }
      // pi has stopped its TUI by now (it prints its own last lines the same way).
      try {
        if (ctx.hasUI && process.stderr.isTTY) process.stderr.write(`${text("quit", file)}\n`);
      } catch {}
    }
    state.left.clear();
    if (files.length) debug(`archive on exit: archiver started for ${files.join(", ")} in ${(performance.now() - t0).toFixed(1)} ms`);
  });

  if (typeof pi?.registerCommand !== "function") return;
  pi.registerCommand("archive", {
    description: "Archive this session when pi quits: what pi never sends again moves to <session>.archive (restore puts it back)",
    handler: async (_args, ctx) => {
      if (!core()) return say(ctx, "navigate_tree's core crashed earlier; run /reload.", "error");
      const file = ctx.sessionManager?.getSessionFile?.();
      if (!file || !existsSync(file)) return say(ctx, text("no-file", file), "info");
      if (!canAsk(ctx)) return say(ctx, text("no-ui", file), "info");
      const bytes = statSync(file).size;
      if (bytes >= 50e6) say(ctx, text("measuring", file, bytes), "info");
      const dry = await dryRun(file, cli());
      if (!dry.ok) return say(ctx, dry.text, "warning");
      if (!(await ctx.ui.confirm(text("title", file), text("confirm", file, bytes, dry.text)))) return;
      state.asked.add(file);
      say(ctx, text("quit", file, bytes), "info");
    },
  });
}
