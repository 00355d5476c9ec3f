// The resume worker (js/resume.js starts it): reads a resumed session's file part by part into facts streams
// in its own instance of the wasm core, off the thread pi runs on, and posts each part back as it is done.
// Parts are claimed one at a time from the front (the main thread, when it has to wait, claims from the
// back), so every part is read exactly once. It runs at the lowest priority the system gives a thread:
// while pi works the main thread keeps its core; while pi waits for the index, the worker has it.
//
// workerData: { module (the compiled WebAssembly.Module), file, size, chunks ([start, end) per part),
//               claims (Int32Array on a SharedArrayBuffer, one slot per part: 0 free, 1 taken), version }
// messages:   { part, facts (Uint8Array, its buffer transferred), entries, problem } per part, then
//             { done: true, file: {dev, ino, size} } — or { error } when the worker cannot go on.
import { closeSync, fstatSync, openSync } from "node:fs";
import { setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { initSync, ChunkReader } from "./pi_tree_navigator.js";
import { readChunk } from "./resume-chunk.js";

const { module, file, size, chunks, claims, version } = workerData;
try {
  // On Linux a thread's nice value is its own: this lowers the worker, not pi.
  setPriority(19);
} catch {
  // not allowed here: the worker runs at pi's priority
}
let fd;
try {
  initSync({ module });
  const api = { ChunkReader };
  fd = openSync(file, "r");
  const st = fstatSync(fd);
  const scratch = {};
  for (let part = 0; part < chunks.length; part++) {
    if (Atomics.compareExchange(claims, part, 0, 1) !== 0) continue;
    const chunk = readChunk(api, fd, chunks[part], size, version, scratch);
    parentPort.postMessage({ part, facts: chunk.facts, entries: chunk.entries, problem: chunk.problem }, [chunk.facts.buffer]);
  }
  parentPort.postMessage({ done: true, file: { dev: st.dev, ino: st.ino, size: st.size } });
} catch (error) {
  parentPort.postMessage({ error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
} finally {
  if (fd !== undefined) closeSync(fd);
}
