// The archive notice: when a resumed session file is big and mostly off the active path, the user (never the
// model) gets one note in pi's UI saying so, with the command that archives it after quitting pi. The core
// decides (src/notice.rs: the thresholds, the text); this file finds the facts and shows the note.
//
// The facts are the file's size (one stat: a small file is never read) and, for a big one, what `archive` would
// take out of it, measured by archive's own two passes without writing (js/archive.js, measureArchive: the note
// and `archive --dry-run` give the same numbers) in a worker thread with its own wasm instance at the lowest
// priority, so nothing of it runs on pi's thread, and only once the resume read of the same file (js/resume.js)
// is done with it. The worker is unref'd (it never keeps pi from exiting) and stopped when the session shuts down.
// With PI_TREE_NAVIGATOR_DEBUG set, one debug line says what each look decided, once it is over.
import { statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { archiveOnExitOn, envFlag, ENV_NO_ARCHIVE_NOTICE } from "./agent.js";
import { registry } from "./host.js";
import { cliWords } from "./archive.js";
import { debugLog } from "./resume.js";

/** The CLI's file, next to this one in the package. */
export const CLI_PATH = fileURLToPath(new URL("./cli.js", import.meta.url));
const WORKER_URL = new URL("./archive-notice-worker.js", import.meta.url);

/**
 * Measures `file` in a worker: `{fileBytes, savedBytes}` (what `archive` would take out of it), or null when
 * archive would refuse the file or the read failed. `onWorker(worker)` lets the caller stop it.
 */
export async function measureInWorker(file, onWorker = () => {}) {
  const m = await inWorker({ file }, onWorker);
  return m?.ok ? { fileBytes: m.fileBytes, savedBytes: m.savedBytes } : null;
}

/**
 * `archive --dry-run` of `file` in the same worker (`cli`: the words for its report): `{ok, text, fileBytes,
 * savedBytes}`; `ok: false` with archive's reason as `text` when there is nothing to archive or it refuses.
 */
export async function dryRunInWorker(file, cli, onWorker) {
  return (await inWorker({ file, cli, dryRun: true }, onWorker)) ?? { ok: false, text: `${file}: the measure failed` };
}

/** The worker's answer for `workerData`, or null when it failed. */
function inWorker(workerData, onWorker = () => {}) {
  return new Promise((resolve) => {
    let worker;
    try {
      worker = new Worker(WORKER_URL, { workerData });
    } catch {
      resolve(null);
      return;
    }
    worker.unref();
    onWorker(worker);
    worker.once("message", resolve);
    worker.once("error", () => resolve(null));
    worker.once("exit", () => resolve(null));
  });
}

/**
 * Installs the notice. `core()`: the live wasm API (null while down); `configOf(sm)`: the session's effective
 * config (agent.js's state); `after(sm)`: a promise the measure waits for first (the resume read of the same file,
 * js/resume.js: the index a tool call needs comes first, and the two never share the spare core). `readFacts(file)`
 * replaces the worker read (tests).
 */
export function installArchiveNotice({ pi, core, configOf, after = async () => {}, env = process.env, readFacts = measureInWorker }) {
  const reg = registry();
  const debug = debugLog(env);
  /** Session files already looked at in this process (a `/reload` or a second resume says nothing new). */
  reg.archiveNoticeSeen ??= new Set();
  /** SessionManager → the worker reading its file. */
  const workers = new WeakMap();

  /** Whether `ctx` is still the session of `file`: the user may have switched (pi's getters then throw). */
  function stillOn(ctx, file) {
    try {
      return ctx.sessionManager?.getSessionFile?.() === file;
    } catch {
      return false;
    }
  }

  /** Looks at the session's file and shows the notice when it is due; returns what it decided (the debug line). */
  async function check(ctx) {
    const sm = ctx?.sessionManager;
    const file = sm?.getSessionFile?.();
    const api = core();
    if (!file) return "no session file";
    if (!api || !ctx?.hasUI) return `not looked at (${api ? "no UI" : "no core"})`;
    if (reg.archiveNoticeSeen.has(file)) return "looked at already in this process";
    // With archiveOnExit on, the file is archived when pi quits: nothing to suggest.
    const enabled = configOf(sm)?.archiveNotice === true && !envFlag(ENV_NO_ARCHIVE_NOTICE, env) && !archiveOnExitOn(configOf(sm), env);
    let size;
    try {
      size = statSync(file).size;
    } catch {
      return "nothing written yet"; // a new session
    }
    if (!api.archiveNoticeWanted(size, enabled)) return enabled ? `${size} bytes: too small to read` : "off";
    reg.archiveNoticeSeen.add(file);
    await after(sm);
    const facts = stillOn(ctx, file) ? await readFacts(file, (w) => workers.set(sm, w)) : null;
    workers.delete(sm);
    if (!stillOn(ctx, file)) {
      reg.archiveNoticeSeen.delete(file); // looked at again when it is resumed again
      return "the session changed before the measure ended";
    }
    if (!facts) return "not measured (archive would refuse the file, or it could not be read)";
    const measured = `${facts.fileBytes} bytes, ${facts.savedBytes} of them for the archive`;
    const text = core()?.archiveNotice(facts.fileBytes, facts.savedBytes, file, cliWords(CLI_PATH));
    if (!text) return `not due (${measured})`;
    ctx.ui.notify(text, "info");
    return `shown (${measured})`;
  }

  pi.on("session_start", (_event, ctx) => {
    // Not awaited: pi's startup never waits for the read. The debug line comes once the check is over (tests wait
    // for it: after it, no notice can come for this session start).
    check(ctx).then(
      (what) => debug(`archive notice: ${what}`),
      (e) => debug(`archive notice: failed (${e instanceof Error ? e.message : String(e)})`),
    );
  });
  pi.on("session_shutdown", (_event, ctx) => {
    const sm = ctx?.sessionManager;
    const worker = sm && workers.get(sm);
    if (worker) void worker.terminate();
  });
}
