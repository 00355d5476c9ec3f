// A worker of `stats <folder>` / `view <folder>` (js/folder.js starts them): its own instance of the wasm core reads
// the folder's files one at a time — each claimed from a shared counter, so every file is read once — streaming
// each in 1 MB pieces into a facts-only index, and posts the core's result for it (`endFileForFolder`: the session's
// row and cost block, or why it is skipped), with its `--rows` lines when asked.
//
// workerData: { module (the compiled WebAssembly.Module), files, next (Int32Array on a SharedArrayBuffer: the next
//               file to claim), host (a pi version or null), rows (bool) }
// messages:   { at, result, rows } per file — or { at, code } for a file that could not be read — then { done: true }
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { initSync, SessionIndex } from "./pi_tree_navigator.js";

const { module, files, next, host, rows } = workerData;
initSync({ module });
const piece = Buffer.allocUnsafe(1 << 20);
for (let at; (at = Atomics.add(next, 0, 1)) < files.length; ) {
  const file = files[at];
  const index = SessionIndex.plugin();
  let fd;
  try {
    if (host) index.setHostVersion(host);
    fd = openSync(file, "r");
    const size = fstatSync(fd).size;
    if (size > 2 ** 31 - 1) throw Object.assign(new RangeError("larger than 2 GiB"), { code: "ERR_FS_FILE_TOO_LARGE" });
    index.beginFile(size);
    let total = 0;
    for (let n; (n = readSync(fd, piece, 0, piece.length, null)) > 0; total += n) index.feedFile(piece.subarray(0, n));
    const result = index.endFileForFolder(file, total);
    parentPort.postMessage({ at, result, rows: rows && result.member ? index.requestRows(file) : null });
  } catch (err) {
    // An I/O error lists the file; anything else (a trap of the core) is no file's fault: it ends the run.
    if (typeof err?.code === "string" && /^(E[A-Z]+|ERR_FS_\w+)$/.test(err.code)) parentPort.postMessage({ at, code: err.code });
    else throw err;
  } finally {
    if (fd !== undefined) closeSync(fd);
    index.free();
  }
}
parentPort.postMessage({ done: true });
