// `archive` and `restore` for the CLI: file I/O only. What moves is the core's decision (ArchivePlanner, archiveStub);
// this file reads the session twice in 1 MB pieces, copies lines as the plan says, and writes atomically.
//
// The archive ("sidecar") is `<session>.archive` next to the session: pi lists only `*.jsonl` files as sessions
// (SessionManager.list / listAll / continueRecent in every tested pi), so it is never taken for one. Its format:
//   line 1      {"type":"pi-tree-navigator-archive","version":1,"session":<file name>,"sessionId":…,
//                "original":{"bytes":B,"sha256":…,"lines":L}}
//   then        every archived line of the session, byte for byte as it was, each followed by "\n", in file order
//   last line   {"type":"index","main":{"bytes":M,"sha256":…},
//                "entries":[[line, offset, length, id, "move"|"stub"], …]}
// `line` is the entry's 0-based line in the original file; `offset`/`length` the byte range of its original line in
// the archive (absolute, without the "\n"): a reader finds an archived entry by id from the last line alone (read
// backwards from the end to the previous "\n") and one read of `length` bytes at `offset`. "stub" lines left a stub
// with the same id in the session file; "move" lines left nothing. `main` is the session file as archive wrote it
// (restore refuses when that prefix changed; lines pi appended after it are kept).
import { createHash } from "node:crypto";
import { closeSync, existsSync, fchmodSync, fstatSync, fsyncSync, openSync, readdirSync, readSync, realpathSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { basename, delimiter, dirname, join, resolve } from "node:path";

export const ARCHIVE_SUFFIX = ".archive";
export const ARCHIVE_TYPE = "pi-tree-navigator-archive";
/** Seconds since the session's last change below which archive/restore refuse: pi appends with no lock. */
export const DEFAULT_MIN_IDLE = 60;
const PIECE = 1 << 20;
const NL = Buffer.from("\n");

export class ArchiveError extends Error {}

/** `archive` with a `worth` rule that said no: nothing was written. */
export class ArchiveSkipped extends Error {
  constructor(fileBytes, savedBytes) {
    super(`not worth archiving (${savedBytes} of ${fileBytes} bytes would move)`);
    Object.assign(this, { fileBytes, savedBytes });
  }
}

export const archivePathOf = (file) => file + ARCHIVE_SUFFIX;

/** The CLI's command name (package.json's "bin"). */
export const CLI_NAME = "pi-tree-navigator";

function real(path) {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The file `name` resolves to on `path` (a PATH value), as a real path, or null. */
function onPath(name, path) {
  for (const dir of path.split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return real(join(dir, name));
  }
  return null;
}

/**
 * How to call Node for the CLI: `node` when the `node` on the PATH is `execPath` (the usual case: pi's launcher and
 * the CLI's shebang run `node`), else `execPath` itself (pi ≥0.75 needs Node 22; a `node` on the PATH may be older
 * than the CLI needs). Plain `node` when `execPath` is no Node (a bundled pi, Bun).
 */
export function nodeCommand(execPath = process.execPath, path = process.env.PATH ?? "") {
  const self = real(execPath);
  if (process.versions.bun || !/^node(\.exe)?$/i.test(self.split(/[\\/]/).pop() ?? "")) return "node";
  return onPath("node", path) === self ? "node" : execPath;
}

/**
 * The words that run the CLI file `script` (the package's cli.js, or the "bin" link to it): the command name when
 * the PATH finds that same file under it, else the Node (`nodeCommand`) and the script's absolute path.
 */
export function cliWords(script, { execPath = process.execPath, path = process.env.PATH ?? "" } = {}) {
  if (onPath(CLI_NAME, path) === real(script)) return [CLI_NAME];
  return [nodeCommand(execPath, path), resolve(script)];
}

/** Every piece of the file from its start (fd), hashed; returns {bytes, sha256}. */
function eachPiece(fd, onPiece) {
  const hash = createHash("sha256");
  const buf = Buffer.allocUnsafe(PIECE);
  let pos = 0;
  for (let n; (n = readSync(fd, buf, 0, PIECE, pos)) > 0; pos += n) {
    const piece = buf.subarray(0, n);
    hash.update(piece);
    onPiece(piece);
  }
  return { bytes: pos, sha256: hash.digest("hex") };
}

/** The file's lines (its "\n"-separated pieces; the piece after the last "\n" too, possibly empty), in order. */
function* lines(fd, hash) {
  const buf = Buffer.allocUnsafe(PIECE);
  let carry = [];
  let pos = 0;
  for (let n; (n = readSync(fd, buf, 0, PIECE, pos)) > 0; pos += n) {
    const piece = buf.subarray(0, n);
    hash?.update(piece);
    let start = 0;
    for (let at; (at = piece.indexOf(10, start)) !== -1; start = at + 1) {
      const part = piece.subarray(start, at);
      if (carry.length) {
        carry.push(part);
        yield Buffer.concat(carry);
        carry = [];
      } else yield part;
    }
    // Copied: the buffer is reused for the next piece.
    if (start < n) carry.push(Buffer.from(piece.subarray(start)));
  }
  yield Buffer.concat(carry);
}

/** A buffered output file (or a counter when fd is null), hashing its first `hashUpTo` bytes. */
class Output {
  constructor(fd, hashUpTo = Infinity) {
    this.fd = fd;
    this.bytes = 0;
    this.hash = createHash("sha256");
    this.hashUpTo = hashUpTo;
    this.buf = fd === null ? null : Buffer.allocUnsafe(PIECE);
    this.n = 0;
  }
  write(b) {
    if (this.bytes < this.hashUpTo) this.hash.update(this.bytes + b.length <= this.hashUpTo ? b : b.subarray(0, this.hashUpTo - this.bytes));
    this.bytes += b.length;
    if (this.fd === null) return;
    if (this.n + b.length > this.buf.length) this.flush();
    if (b.length >= this.buf.length) writeSync(this.fd, b);
    else {
      b.copy(this.buf, this.n);
      this.n += b.length;
    }
  }
  flush() {
    if (this.n) writeSync(this.fd, this.buf, 0, this.n);
    this.n = 0;
  }
  close() {
    if (this.fd === null) return;
    this.flush();
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = null;
  }
}

function checkIdle(st, minIdle, file) {
  const age = (Date.now() - st.mtimeMs) / 1000;
  if (minIdle > 0 && age < minIdle) {
    throw new ArchiveError(`${file}: changed ${Math.max(0, Math.floor(age))} s ago; pi may be writing to it (pi appends to a session without a lock). Close the pi session using it, or wait until it has been idle for ${minIdle} s (--min-idle <s> sets the wait)`);
  }
}

/** Throws unless `file` is still the inode `fd` was opened on, with the size and mtime of `st`. */
function checkUnchanged(fd, file, st, what) {
  const now = fstatSync(fd);
  let onDisk;
  try {
    onDisk = statSync(file);
  } catch {
    onDisk = null;
  }
  if (!onDisk || onDisk.ino !== st.ino || onDisk.dev !== st.dev || now.size !== st.size || now.mtimeMs !== st.mtimeMs) {
    throw new ArchiveError(`${file}: changed while ${what}; nothing was changed (run again when pi is not using it)`);
  }
}

/** Whether `file` is still the inode `st` describes. */
function sameFile(file, st) {
  try {
    const now = statSync(file);
    return now.ino === st.ino && now.dev === st.dev;
  } catch {
    return false;
  }
}

function fsyncDir(path) {
  let fd;
  try {
    fd = openSync(dirname(path), "r");
    fsyncSync(fd);
  } catch {
    // Some file systems cannot fsync a directory: the renames are still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const tempName = (path) => `${path}.tmp-${process.pid}-${Date.now()}`;

/** Whether process `pid` exists (EPERM: it does, another user's). */
export function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
}

/**
 * Removes the temporary files (`tempName`) of `file` and of its archive that an `archive` or `restore` killed
 * midway left behind: those whose process is gone. The session file itself is never one of them.
 */
function removeStaleTemps(file) {
  const dir = dirname(file);
  const names = [basename(file), basename(archivePathOf(file))];
  let list;
  try {
    list = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of list) {
    const m = /^(.*)\.tmp-(\d+)-\d+$/.exec(n);
    if (m && names.includes(m[1]) && !alive(Number(m[2]))) rmSync(join(dir, n), { force: true });
  }
}

/** Whether the open session `fd` (of `size` bytes) begins with the original bytes `header` (an archive's) names. */
function beginsWithOriginal(fd, size, header) {
  const { bytes, sha256 } = header.original ?? {};
  if (!(size >= bytes)) return false;
  const hash = createHash("sha256");
  const buf = Buffer.allocUnsafe(PIECE);
  for (let pos = 0, n; pos < bytes && (n = readSync(fd, buf, 0, Math.min(PIECE, bytes - pos), pos)) > 0; pos += n) hash.update(buf.subarray(0, n));
  return hash.digest("hex") === sha256;
}

/**
 * Removes `file`'s archive when it is left over from an `archive` killed between its two renames: the session
 * still begins with every original byte the archive holds, so it holds nothing else. Returns whether it did.
 */
function dropLeftoverArchive(file) {
  const side = archivePathOf(file);
  if (!existsSync(side)) return false;
  const fd = openSync(file, "r");
  const sfd = openSync(side, "r");
  try {
    const { header } = readArchiveEnds(sfd, side, fstatSync(sfd).size);
    if (!beginsWithOriginal(fd, fstatSync(fd).size, header)) return false;
    rmSync(side);
    fsyncDir(side);
    return true;
  } catch {
    return false;
  } finally {
    closeSync(fd);
    closeSync(sfd);
  }
}

/** Replaces `file` by `tmp` (same directory), unless `file` changed since `st` (fd: opened on it then). */
function replaceChecked(fd, file, st, tmp, what) {
  checkUnchanged(fd, file, st, what);
  renameSync(tmp, file);
  fsyncDir(file);
  // pi appends without a lock: an append that reached the old file between the check and the rename would be lost
  // with it. The old file is still open here: keep a copy rather than lose it.
  const after = fstatSync(fd);
  if (after.size !== st.size) {
    const saved = `${file}.changed-${Date.now()}`;
    const out = openSync(saved, "wx", 0o600);
    try {
      eachPiece(fd, (p) => writeSync(out, p));
      fsyncSync(out);
    } finally {
      closeSync(out);
    }
    throw new ArchiveError(`${file}: pi wrote to it while it was being replaced; that version is saved as ${saved}`);
  }
}

/**
 * What of `line` (its plan action: 0 keep, 1 move, 2 stub) stays in the session file: the line itself (kept, or a
 * stub line with no faithful stub), its stub naming the archive `archiveName`, or null (it moves whole).
 */
function keptPart(api, line, action, archiveName) {
  if (action === 1) return null;
  const stub = action === 2 ? (api.archiveStub(line, archiveName) ?? null) : null;
  return stub === null ? line : Buffer.from(stub);
}

/**
 * What `archive` would take out of `file`, measured by its own two passes without writing or hashing anything:
 * `{fileBytes, savedBytes, plan}`, or null when archive would refuse the file (or it is archived already).
 * `worth(plan, fileBytes)` decides after the first pass whether the second is worth reading (its upper bound:
 * `plan.moved.bytes + plan.stubbed.bytes`); when it says no, `savedBytes` is null.
 */
export function measureArchive(api, file, { worth = () => true } = {}) {
  if (existsSync(archivePathOf(file))) return null;
  const fd = openSync(file, "r");
  const planner = new api.ArchivePlanner();
  try {
    const buf = Buffer.allocUnsafe(PIECE);
    let fileBytes = 0;
    for (let n; (n = readSync(fd, buf, 0, PIECE, fileBytes)) > 0; fileBytes += n) planner.push(buf.subarray(0, n));
    const plan = planner.finish();
    if (plan.problem !== null) return null;
    if (!worth(plan, fileBytes)) return { fileBytes, savedBytes: null, plan };
    const actions = planner.actions();
    const name = basename(archivePathOf(file));
    let mainBytes = 0;
    let i = 0;
    for (const line of lines(fd)) {
      const stays = keptPart(api, line, actions[i], name);
      if (stays !== null) mainBytes += stays.length + (i !== plan.lines - 1 ? 1 : 0);
      i++;
    }
    // A file that grew or changed between the passes (pi appended) is measured again at the next resume.
    if (i !== plan.lines) return null;
    return { fileBytes, savedBytes: fileBytes - mainBytes, plan };
  } finally {
    planner.free();
    closeSync(fd);
  }
}

/**
 * Archives `file` (see the header). `opts`: {dryRun, minIdle (seconds), cli (the words that run the CLI, for the
 * report's `restore` command: `cliWords`), worth(fileBytes, savedBytes) (asked after the first pass with its upper
 * bound and before anything is renamed with the exact number; false: ArchiveSkipped, nothing written)}. Returns the
 * plan's summary with the sizes and the core's report for people: {plan, original: {bytes, sha256}, main: {bytes},
 * archive: {path, bytes}, dryRun, text}.
 */
export function archiveFile(api, file, { dryRun = false, minIdle = DEFAULT_MIN_IDLE, cli = [CLI_NAME], worth = () => true } = {}) {
  const side = archivePathOf(file);
  if (!dryRun) {
    removeStaleTemps(file);
    dropLeftoverArchive(file);
  }
  if (existsSync(side)) throw new ArchiveError(`${file}: already archived (${basename(side)} exists); run restore first, then archive again`);
  const fd = openSync(file, "r");
  const temps = [];
  const outputs = [];
  let planner;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new ArchiveError(`${file}: not a regular file`);
    if (!dryRun) checkIdle(st, minIdle, file);
    // The whole file is the most that could move: a `worth` that says no to that needs no read.
    if (!worth(st.size, st.size)) throw new ArchiveSkipped(st.size, st.size);
    // Pass 1: the facts-only index and the plan (the planner stays until the report's text is written).
    planner = new api.ArchivePlanner();
    const original = eachPiece(fd, (piece) => planner.push(piece));
    const plan = planner.finish();
    const actions = planner.actions();
    const ids = planner.archivedIds();
    if (plan.problem !== null) throw new ArchiveError(`${file}:${plan.problem}`);
    const result = { file, plan, original, dryRun, main: { bytes: original.bytes }, archive: { path: side, bytes: 0 } };
    /** The result with the core's text for people (`text`). */
    const reported = (r) =>
      Object.assign(r, {
        text: planner.reportText(basename(file), basename(side), r.original.bytes, r.main.bytes, r.archive.bytes, r.dryRun, r.stubsKeptWhole ?? 0, r.nothing === true, cli, resolve(file)),
      });
    if (plan.moved.entries + plan.stubbed.entries === 0) return reported({ ...result, nothing: true });
    if (!worth(original.bytes, plan.moved.bytes + plan.stubbed.bytes)) throw new ArchiveSkipped(original.bytes, plan.moved.bytes + plan.stubbed.bytes);

    // Pass 2: copy the lines (to counters only for a dry run).
    const mainTmp = dryRun ? null : tempName(file);
    const sideTmp = dryRun ? null : tempName(side);
    const open = (p) => {
      if (p === null) return null;
      const out = openSync(p, "wx", st.mode & 0o777);
      temps.push(p);
      fchmodSync(out, st.mode & 0o777);
      return out;
    };
    const main = new Output(open(mainTmp));
    outputs.push(main);
    const archive = new Output(open(sideTmp));
    outputs.push(archive);
    archive.write(Buffer.from(JSON.stringify({ type: ARCHIVE_TYPE, version: 1, session: basename(file), sessionId: plan.sessionId, original: { bytes: original.bytes, sha256: original.sha256, lines: plan.lines } }) + "\n"));
    const index = [];
    const again = createHash("sha256");
    const name = basename(side);
    let i = 0;
    let nextId = 0;
    for (const line of lines(fd, again)) {
      const action = actions[i];
      const stays = keptPart(api, line, action, name);
      if (action !== 0 && stays !== line) {
        index.push([i, archive.bytes, line.length, ids[nextId], action === 1 ? "move" : "stub"]);
        archive.write(line);
        archive.write(NL);
      }
      if (action !== 0) nextId++;
      if (stays !== null) main.write(stays);
      if (stays !== null && i !== plan.lines - 1) main.write(NL);
      i++;
    }
    if (i !== plan.lines || again.digest("hex") !== original.sha256) throw new ArchiveError(`${file}: changed while being archived; nothing was changed (run again when pi is not using it)`);
    const mainSum = main.hash.digest("hex");
    archive.write(Buffer.from(JSON.stringify({ type: "index", main: { bytes: main.bytes, sha256: mainSum }, entries: index }) + "\n"));
    main.close();
    archive.close();
    result.main = { bytes: main.bytes, sha256: mainSum };
    result.archive.bytes = archive.bytes;
    result.stubsKeptWhole = plan.stubbed.entries - index.filter((e) => e[4] === "stub").length;
    if (dryRun) return reported(result);
    if (!worth(original.bytes, original.bytes - main.bytes)) throw new ArchiveSkipped(original.bytes, original.bytes - main.bytes);
    // The archive first: a session file without its archive would have lost what moved.
    checkUnchanged(fd, file, st, "being archived");
    renameSync(sideTmp, side);
    temps.splice(temps.indexOf(sideTmp), 1);
    fsyncDir(side);
    try {
      replaceChecked(fd, file, st, mainTmp, "being archived");
      temps.splice(temps.indexOf(mainTmp), 1);
    } catch (err) {
      // Not replaced (the session is still the file read): the archive goes. Replaced, then found written to
      // meanwhile: the archive stays with the new session file (the old one is saved; replaceChecked).
      if (sameFile(file, st)) rmSync(side, { force: true });
      throw err;
    }
    return reported(result);
  } finally {
    planner?.free();
    closeSync(fd);
    for (const o of outputs) if (o.fd !== null) closeSync(o.fd);
    for (const t of temps) rmSync(t, { force: true });
  }
}

/** The archive's first and last lines (header and index), checked. */
function readArchiveEnds(fd, side, size) {
  const first = [];
  for (const line of lines(fd)) {
    first.push(line);
    break;
  }
  let header;
  try {
    header = JSON.parse(first[0].toString("utf8"));
  } catch {
    header = null;
  }
  if (header?.type !== ARCHIVE_TYPE || header.version !== 1) throw new ArchiveError(`${side}: not a pi-tree-navigator archive`);
  // The last line: read backwards from the end to the "\n" before it.
  let tail = Buffer.alloc(0);
  let pos = size - 1; // the final "\n"
  for (;;) {
    const from = Math.max(0, pos - PIECE);
    const chunk = Buffer.allocUnsafe(pos - from);
    readSync(fd, chunk, 0, chunk.length, from);
    tail = Buffer.concat([chunk, tail]);
    const at = tail.lastIndexOf(10);
    if (at !== -1 || from === 0) {
      tail = tail.subarray(at + 1);
      break;
    }
    pos = from;
  }
  let index;
  try {
    index = JSON.parse(tail.toString("utf8"));
  } catch {
    index = null;
  }
  if (index?.type !== "index" || !Array.isArray(index.entries)) throw new ArchiveError(`${side}: incomplete archive (no index at its end)`);
  return { header, index };
}

/**
 * The entries `archive` took out of `file` (moved whole or left as stubs), each parsed from its original line:
 * `Map<line, entry>` by the line it had in the original file. The index line is read once, then each entry
 * with one read at its offset. `null` when there is no archive; throws ArchiveError when it is unreadable.
 */
export function readArchivedEntries(file) {
  const side = archivePathOf(file);
  if (!existsSync(side)) return null;
  const fd = openSync(side, "r");
  try {
    const { index } = readArchiveEnds(fd, side, fstatSync(fd).size);
    const byLine = new Map();
    for (const [line, offset, length] of index.entries) {
      const buf = Buffer.allocUnsafe(length);
      if (readSync(fd, buf, 0, length, offset) !== length) throw new ArchiveError(`${side}: truncated at line ${line}`);
      byLine.set(line, JSON.parse(buf.toString("utf8")));
    }
    return byLine;
  } catch (e) {
    throw e instanceof ArchiveError ? e : new ArchiveError(`${side}: unreadable (${e.message})`);
  } finally {
    closeSync(fd);
  }
}

/** Puts everything archive moved back into `file`: the original bytes, then whatever pi appended since. */
export function restoreFile(file, { minIdle = DEFAULT_MIN_IDLE } = {}) {
  const side = archivePathOf(file);
  if (!existsSync(side)) throw new ArchiveError(`${file}: no archive (${basename(side)}) to restore from`);
  removeStaleTemps(file);
  const fd = openSync(file, "r");
  const sfd = openSync(side, "r");
  let tmp = null;
  let out = null;
  try {
    const st = fstatSync(fd);
    checkIdle(st, minIdle, file);
    const { header, index } = readArchiveEnds(sfd, side, fstatSync(sfd).size);
    // The session file must still begin with what archive wrote.
    const prefix = createHash("sha256");
    const buf = Buffer.allocUnsafe(PIECE);
    for (let pos = 0, n; pos < index.main.bytes && (n = readSync(fd, buf, 0, Math.min(PIECE, index.main.bytes - pos), pos)) > 0; pos += n) prefix.update(buf.subarray(0, n));
    if (st.size < index.main.bytes || prefix.digest("hex") !== index.main.sha256) {
      // An archive killed before it replaced the session: the session is the original already.
      if (dropLeftoverArchive(file)) return { file, bytes: st.size, restored: 0, appendedSince: st.size - header.original.bytes };
      throw new ArchiveError(`${file}: not the file archive wrote (it was rewritten or replaced since); nothing restored, ${basename(side)} kept`);
    }
    tmp = tempName(file);
    out = new Output(openSync(tmp, "wx", st.mode & 0o777), header.original.bytes);
    fchmodSync(out.fd, st.mode & 0o777);
    const main = lines(fd);
    const take = () => main.next().value ?? Buffer.alloc(0);
    let k = 0;
    const entries = index.entries;
    for (let i = 0; i < header.original.lines; i++) {
      if (i > 0) out.write(NL);
      if (k < entries.length && entries[k][0] === i) {
        const [, offset, length, , kind] = entries[k++];
        const rec = Buffer.allocUnsafe(length);
        if (readSync(sfd, rec, 0, length, offset) !== length) throw new ArchiveError(`${side}: truncated`);
        out.write(rec);
        if (kind === "stub") take();
      } else out.write(take());
    }
    // Lines pi appended after archiving.
    for (let r = main.next(); !r.done; r = main.next()) {
      out.write(NL);
      out.write(r.value);
    }
    if (k !== entries.length || out.hash.digest("hex") !== header.original.sha256) {
      throw new ArchiveError(`${file}: the restored file would differ from the original; nothing restored, ${basename(side)} kept`);
    }
    const bytes = out.bytes;
    out.close();
    replaceChecked(fd, file, st, tmp, "being restored");
    tmp = null;
    rmSync(side);
    fsyncDir(side);
    return { file, bytes, restored: entries.length, appendedSince: bytes - header.original.bytes };
  } finally {
    closeSync(fd);
    closeSync(sfd);
    if (out?.fd != null) closeSync(out.fd);
    if (tmp) rmSync(tmp, { force: true });
  }
}

/** The core's text for what `restore` did (`r`: restoreFile's result). */
export function restoreText(api, r) {
  return api.restoreText(basename(r.file), basename(archivePathOf(r.file)), r.restored, r.bytes, r.appendedSince);
}
