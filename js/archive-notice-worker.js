// The archive notice's measure (js/archive-notice.js), in a worker thread with its own wasm instance at the
// lowest priority: what `archive` would take out of the session file, by archive's own two passes without writing
// (js/archive.js, measureArchive); the second pass only when the first says the notice may be due. Posts
// `{ok, fileBytes, savedBytes}` (`ok: false` when archive would refuse the file, or it cannot be read).
import { setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import * as api from "./load-node.js";
import { measureArchive } from "./archive.js";

try {
  // On Linux a thread's nice value is its own: this lowers the worker, not pi.
  setPriority(19);
} catch {
  // not allowed here: the worker runs at pi's priority
}
let answer = { ok: false };
try {
  const m = measureArchive(api, workerData.file, { worth: (plan, bytes) => api.archiveNoticeDue(bytes, plan.moved.bytes + plan.stubbed.bytes) });
  if (m) answer = { ok: true, fileBytes: m.fileBytes, savedBytes: m.savedBytes ?? 0 };
} catch {
  // a file that cannot be read gets no notice
}
parentPort.postMessage(answer);
