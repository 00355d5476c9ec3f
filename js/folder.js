// A folder of sessions (`stats <folder>`, `view <folder>`): walks it as pi lays sessions out
// (`sessions/<cwd>/…jsonl`, any depth) and has worker threads (js/folder-worker.js, one per core) read the files,
// each streamed in 1 MB pieces into a facts-only index, one file at a time per worker: a file is never whole in
// memory. Every rule (what a file is, its row, the families, the totals, the texts) is the core's (`Folder`,
// src/folder/); this module only hands each file's result to it in the folder's order.
import { readdirSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { Worker } from "node:worker_threads";

/**
 * The `*.jsonl` files under `root`, sorted by path (the same order on every run); directories are entered, links to
 * directories are not (a link back up would be walked forever). A file given alone is a folder of one. Directories
 * that cannot be read come back as `{ file, code }`, to be reported.
 */
export function sessionFiles(root) {
  const files = [];
  const problems = [];
  const walk = (dir) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      problems.push({ file: dir, code: err.code ?? err.message });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if ((e.isFile() || e.isSymbolicLink()) && e.name.endsWith(".jsonl")) files.push(path);
    }
  };
  if (statSync(root).isFile()) files.push(resolve(root));
  else walk(resolve(root));
  return { files, problems };
}

/**
 * Reads every session of `root`. `host`: the pi version whose rules to read with (`--host`); `onRows(text)`: the
 * `--rows` lines of each session, in the folder's order, as the files are read; `threads`: how many workers (default:
 * one per core, at most one per file). Resolves to `{ report, text }`: the core's report with each session's
 * `cost` block put in, and the text `stats <folder>` prints.
 */
export async function readFolder(api, root, { host, onRows, threads = availableParallelism() } = {}) {
  const { files, problems } = sessionFiles(root);
  const results = new Array(files.length);
  let written = 0;
  const flushRows = () => {
    // Rows in the folder's order: a file's lines wait for those before it.
    for (; written < files.length && results[written] !== undefined; written++) {
      if (results[written].rows) onRows(results[written].rows);
      results[written].rows = null;
    }
  };
  const next = new Int32Array(new SharedArrayBuffer(4));
  const count = Math.max(1, Math.min(threads, files.length));
  await Promise.all(
    Array.from({ length: files.length ? count : 0 }, () => {
      const worker = new Worker(new URL("./folder-worker.js", import.meta.url), {
        workerData: { module: api.wasmModule, files, next, host: host ?? null, rows: Boolean(onRows) },
      });
      return new Promise((done, fail) => {
        worker.on("message", (m) => {
          if (m.done) return;
          // With --rows the cost blocks are not printed: not kept either (memory follows the rows, not the folder).
          if (onRows && m.result) m.result.cost = null;
          results[m.at] = m;
          if (onRows) flushRows();
        });
        worker.once("error", fail);
        worker.once("exit", (code) => (code === 0 ? done() : fail(new Error(`a folder worker exited with ${code}`))));
      });
    }),
  );
  const folder = new api.Folder();
  const costs = new Map();
  try {
    for (const p of problems) folder.unreadable(p.file, p.code);
    files.forEach((file, i) => {
      const { result, code } = results[i];
      if (code) return folder.unreadable(file, code);
      if (!result.member) return folder.skip(file, result.skipped);
      const m = result.member;
      folder.add(m.file, m.id, m.parentSession, m.start, m.firstMessage, m.entries, m.bytes, m.usd, m.saved, m.requests);
      costs.set(file, result.cost);
    });
    const report = folder.report();
    for (const s of report.sessions) s.cost = costs.get(s.file);
    return { report, text: folder.text(resolve(root)) };
  } finally {
    folder.free();
  }
}
