// A folder of sessions (`stats <folder>`, `view <folder>`): walks it as pi lays sessions out
// (`sessions/<cwd>/…jsonl`, any depth) and streams each file into a facts-only index in 1 MB pieces, one file at a
// time: a file is never whole in memory, and one index lives at a time. Every rule (what a file is, its row, the
// families, the totals, the texts) is the core's (`Folder`, src/folder/).
import { closeSync, fstatSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * The `*.jsonl` files under `root`, sorted by path (the same order on every run); directories are entered, links to
 * directories are not (a link back up would be walked forever). Unreadable directories are returned as
 * `{ file, code }` to be reported.
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
  // A file given alone is a folder of one.
  if (statSync(root).isFile()) files.push(resolve(root));
  else walk(resolve(root));
  return { files, problems };
}

/**
 * Reads every session of `root` into a core `Folder`. `onSession(index, file)`: called with each file's index while
 * it is alive, for the files that are sessions (`--rows` asks it for its requests). `host`: a pi version whose
 * rules to read with (`--host`). Returns the `Folder` (its `report()` / `text(root)`).
 */
export function readFolder(api, root, { host, onSession } = {}) {
  const folder = new api.Folder();
  const { files, problems } = sessionFiles(root);
  for (const p of problems) folder.unreadable(p.file, p.code);
  const piece = Buffer.allocUnsafe(1 << 20);
  for (const file of files) {
    const index = api.SessionIndex.plugin();
    let fd;
    try {
      if (host) index.setHostVersion(host);
      fd = openSync(file, "r");
      const size = fstatSync(fd).size;
      if (size > 2 ** 31 - 1) throw Object.assign(new RangeError("larger than 2 GiB"), { code: "ERR_FS_FILE_TOO_LARGE" });
      index.beginFile(size);
      let total = 0;
      for (let n; (n = readSync(fd, piece, 0, piece.length, null)) > 0; total += n) index.feedFile(piece.subarray(0, n));
      closeSync(fd);
      fd = undefined;
      if (index.endFileInto(folder, file, total) && onSession) onSession(index, file);
    } catch (err) {
      if (fd !== undefined) closeSync(fd);
      // A wasm error (a trap) is no file's fault: it is thrown on; an I/O error lists the file.
      if (typeof err.code === "string" && /^(E[A-Z]+|ERR_FS_\w+)$/.test(err.code)) folder.unreadable(file, err.code);
      else throw err;
    } finally {
      index.free();
    }
  }
  return folder;
}
