// The archive notice's measure (js/archive-notice.js), in a worker thread with its own wasm instance at the
// lowest priority: what `archive` would take out of the session file, by archive's own two passes without writing
// (js/archive.js, measureArchive); the second pass only when the first says the notice may be due. Posts
// `{ok, fileBytes, savedBytes}` (`ok: false` when archive would refuse the file, or it cannot be read).
// With `dryRun` (the `/archive` command, js/archive-on-exit.js: someone waits for it, so at pi's priority) it is
// `archive --dry-run` itself: `{ok, text, fileBytes, savedBytes}`, or `{ok: false, text}` when there is nothing to
// archive or archive refuses the file (its reason).
import { setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import * as api from "./load-node.js";
import { ArchiveError, archiveFile, measureArchive } from "./archive.js";

let answer = { ok: false };
if (workerData.dryRun) {
  try {
    const r = archiveFile(api, workerData.file, { dryRun: true, cli: workerData.cli });
    answer = { ok: r.nothing !== true, text: r.text, fileBytes: r.original.bytes, savedBytes: r.original.bytes - r.main.bytes };
  } catch (e) {
    answer = { ok: false, text: e instanceof ArchiveError ? e.message : `${workerData.file}: ${e.message}` };
  }
} else {
  try {
    // On Linux a thread's nice value is its own: this lowers the worker, not pi.
    setPriority(19);
  } catch {
    // not allowed here: the worker runs at pi's priority
  }
  try {
    const m = measureArchive(api, workerData.file, { worth: (plan, bytes) => api.archiveNoticeDue(bytes, plan.moved.bytes + plan.stubbed.bytes) });
    if (m) answer = { ok: true, fileBytes: m.fileBytes, savedBytes: m.savedBytes ?? 0 };
  } catch {
    // a file that cannot be read gets no notice
  }
}
parentPort.postMessage(answer);
