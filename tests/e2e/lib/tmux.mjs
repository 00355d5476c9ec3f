// Driving the interactive pi in tmux for the TUI tests: a tmux server on its own socket and a wait loop.
import { spawnSync } from "node:child_process";
import { hostAvailable } from "./hosts.mjs";

/**
 * Commands for the tmux server on `socket`: `tmux(...args)` (throws with tmux's error), `screen(name, escapes)` —
 * the pane's screen and the history above it, one string per line, trailing blanks dropped; `-e` keeps the
 * colour escapes — and `kill(name?)` (a session, or the whole server).
 */
export function tmuxServer(socket) {
  const tmux = (...args) => {
    const r = spawnSync("tmux", ["-S", socket, ...args], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`tmux ${args[0]} failed: ${r.stderr || r.error?.message}`);
    return r.stdout;
  };
  const screen = (name, escapes = false) =>
    tmux("capture-pane", "-p", ...(escapes ? ["-e"] : []), "-S", "-300", "-t", name).split("\n").map((l) => l.trimEnd());
  const kill = (name) => spawnSync("tmux", ["-S", socket, ...(name ? ["kill-session", "-t", name] : ["kill-server"])]);
  return { tmux, screen, kill };
}

/**
 * What a TUI test on pi `host` lacks, as messages naming the script that installs it (empty when nothing): the
 * tests assert this is empty, so a machine without tmux or the host fails them (setup.sh promises both) — never a skip.
 */
export function tuiPrerequisites(host) {
  const missing = [];
  if (spawnSync("tmux", ["-V"]).status !== 0) missing.push("tmux (scripts/setup.sh installs it)");
  if (!hostAvailable(host)) missing.push(`pi ${host} (scripts/setup-hosts.sh)`);
  return missing;
}

/** Polls `check` every 250 ms until it returns something truthy (returned), or throws after `timeoutMs`. */
export async function waitFor(what, check, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const got = check();
    if (got) return got;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
