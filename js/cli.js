#!/usr/bin/env node
// pi-tree-navigator CLI: inspect a pi session file with the wasm core (Node >= 20).
// Runs from inside the built package (the build copies js/cli.js to pkg/cli.js next to index-node.js).
// All session logic lives in the core; this file only reads the file, parses arguments and prints.
import { accessSync, closeSync, constants, fstatSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const NAME = "pi-tree-navigator";
const USAGE = `Usage: ${NAME} <command> <file> [options]

Inspect a pi session file (JSONL) the way pi itself reads it.

Commands:
  context <file> [--leaf <id>] [--json]   the context pi builds for the leaf (buildSessionContext) as JSON
  tokens  <file> [--leaf <id>] [--json]   pi's token estimate for that context
  list    <file> [--leaf <id>] [--context-window <n>] [--json]
                                          anchors (labels "anchor:<name>") on the path, root → leaf
  tree    <file> [--json] [--archived]    the whole session tree; --archived: with what archive moved to
                                          <file>.archive merged back, those entries marked [archived] (dim
                                          on a terminal; "archived": "move"|"stub" in --json)
  stats   <file> [--json]                 entry counts, branches, labels, estimate at the leaf, the
                                          rewinds on the active path and what they saved, and every loop
                                          (a call or failure repeated 3 times) with its requests and cost
  stats   <folder> [--json | --rows]      every session under the folder (pi's sessions/<cwd>/*.jsonl):
                                          start, first message, entries, size, cost, saved, parent, each
                                          session's children rolled into "with children", the totals, and
                                          the files skipped (not a session, unreadable, half-written,
                                          malformed) with why; --rows: one JSON line per request, for
                                          DuckDB and other engines (docs/folder.md). Also for one <file>
  archive <file> [--dry-run] [--min-idle <s>] [--json]
                                          move what pi never sends again out of the session into
                                          <file>.archive (pi lists only *.jsonl as sessions): branches off
                                          the active path whole, and the content of path entries before the
                                          latest compaction's kept range (a stub stays). pi builds the same
                                          context, estimate, labels and leaf from the smaller file.
                                          --dry-run prints what would move and the sizes, writes nothing
          [--after-exit <pid>] [--if-worth <mb>] [--log <file>]
                                          what archiveOnExit and /archive run when pi quits: wait until
                                          process <pid> has exited, skip a file another process has open,
                                          --if-worth: only a file of at least <mb> MB that archive would
                                          halve; the outcome is appended to <file> (else printed)
  restore <file> [--min-idle <s>] [--json]
                                          put everything back from <file>.archive: the original bytes, then
                                          what pi appended since; the archive is removed
  doctor  [--pi <dir>]                    check the pi you run (global npm root, or --pi: its package dir,
                                          an npm install or an unpacked tarball) for what the plugin needs
  view    <file> [--port <n>] [--host <version>]
                                          open the session in the browser viewer: serves it on 127.0.0.1
                                          and prints the URL, with a random token that every request
                                          needs (Ctrl-C stops); a <folder>: its session list, each
                                          session opened from it

Options:
  --leaf <id>            entry id to use as the leaf (default: the file's last entry, as pi does on load;
                         "null" = before the first entry)
  --context-window <n>   model context window in tokens, for percentages in list (default: unknown)
  --port <n>             port for view (default: any free port)
  --host <version>       estimate with the rules of this pi version (default: inferred from the session:
                         a system message entry means pi >= 0.87; docs/hosts.md)
  --min-idle <s>         archive/restore refuse a file changed less than <s> seconds ago (default 60): pi
                         appends to a session without a lock, so close the pi using it first. Both write a
                         temporary file, fsync it and rename it over the session only if the session is still
                         the file, size and mtime they read (else nothing changes)
  --json                 machine-readable output (context always prints JSON; --json makes it one line)
  -h, --help             this help
  --version              package version

Exit status: 0 ok, 1 unreadable or invalid session file, 2 usage error.
Malformed lines are skipped (as pi does) and reported on stderr.
Older session formats are read as pi migrates them on load. A version-1 file (no entry ids) has no ids
to name a leaf by: there the entry on line N is "line-N" (e.g. --leaf line-7).`;

class UsageError extends Error {}
class InputError extends Error {}

const COMMANDS = {
  context: ["--leaf", "--host", "--json"],
  tokens: ["--leaf", "--host", "--json"],
  list: ["--leaf", "--context-window", "--host", "--json"],
  tree: ["--host", "--json", "--archived"],
  stats: ["--host", "--json", "--rows"],
  view: ["--port", "--host"],
  archive: ["--dry-run", "--min-idle", "--json", "--after-exit", "--if-worth", "--log"],
  restore: ["--min-idle", "--json"],
};
const TAKES_VALUE = new Set(["--leaf", "--context-window", "--port", "--host", "--min-idle", "--after-exit", "--if-worth", "--log"]);

function parseArgs(argv) {
  if (argv.length === 0) throw new UsageError("missing command");
  if (argv.includes("-h") || argv.includes("--help") || argv[0] === "help") return { help: true };
  if (argv[0] === "--version") return { version: true };
  const [command, ...rest] = argv;
  const allowed = COMMANDS[command];
  if (!allowed) throw new UsageError(`unknown command "${command}"`);
  const opts = { command, json: false, leaf: undefined, contextWindow: undefined, file: undefined };
  for (let i = 0; i < rest.length; i++) {
    let arg = rest[i];
    let value;
    if (arg.startsWith("--") && arg.includes("=")) {
      value = arg.slice(arg.indexOf("=") + 1);
      arg = arg.slice(0, arg.indexOf("="));
    }
    if (arg.startsWith("-") && arg !== "-") {
      if (!allowed.includes(arg)) throw new UsageError(`${command}: unknown option ${arg}`);
      if (TAKES_VALUE.has(arg)) {
        if (value === undefined) {
          if (i + 1 >= rest.length) throw new UsageError(`${command}: ${arg} needs a value`);
          value = rest[++i];
        }
        if (arg === "--host") {
          if (!/^v?\d+\.\d+(\.\d+)?([-+].*)?$/.test(value.trim())) throw new UsageError(`${command}: --host must be a pi version like 1.5.2, got "${value}"`);
          opts.host = value.trim();
        } else if (arg === "--leaf") {
          if (value === "") throw new UsageError(`${command}: --leaf needs an entry id`);
          opts.leaf = value === "null" ? null : value;
        } else if (arg === "--min-idle" || arg === "--after-exit" || arg === "--if-worth") {
          const what = { "--min-idle": "a whole number of seconds", "--after-exit": "a process id", "--if-worth": "a whole number of MB" }[arg];
          if (!/^\d+$/.test(value)) throw new UsageError(`${command}: ${arg} must be ${what}, got "${value}"`);
          opts[{ "--min-idle": "minIdle", "--after-exit": "afterExit", "--if-worth": "ifWorth" }[arg]] = Number(value);
        } else if (arg === "--log") {
          if (value === "") throw new UsageError(`${command}: --log needs a file`);
          opts.log = value;
        } else if (arg === "--port") {
          const n = Number(value);
          if (!/^\d+$/.test(value) || n > 65535) throw new UsageError(`${command}: --port must be a port number (0-65535), got "${value}"`);
          opts.port = n;
        } else {
          const n = Number(value);
          if (value.trim() === "" || !Number.isFinite(n) || n < 0) throw new UsageError(`${command}: --context-window must be a non-negative number, got "${value}"`);
          opts.contextWindow = n;
        }
      } else {
        if (value !== undefined) throw new UsageError(`${command}: ${arg} takes no value`);
        if (arg === "--dry-run") opts.dryRun = true;
        else if (arg === "--archived") opts.archived = true;
        else if (arg === "--rows") opts.rows = true;
        else opts.json = true;
      }
    } else if (opts.file === undefined) {
      opts.file = arg;
    } else {
      throw new UsageError(`${command}: unexpected argument "${arg}"`);
    }
  }
  if (opts.file === undefined) throw new UsageError(`${command}: missing <file>`);
  if (opts.rows && opts.json) throw new UsageError(`${command}: --rows and --json are two outputs: choose one`);
  return opts;
}

/**
 * Loads the file's bytes (no decoding in JS): `how` is "full" (an index with entries kept whole) for
 * `context`, "list" (the anchors and estimate at `leaf` only, `listFileBytes`) for `list` and `tokens`,
 * "facts" (an index of facts) for the rest, "stats" (facts, and what the loop rule reads of each entry on the way).
 * `host` (a pi version, `--host`) fixes the estimate profile first.
 * Reports skipped lines on stderr; throws InputError when the core says the file is no pi session.
 */
function load(api, file, how, host, leaf) {
  let bytes, size, index, report, list;
  try {
    if (how === "list") {
      // `list` reads the file piece by piece into the module's memory (`FileBytes`): never whole in a
      // JavaScript buffer too.
      readPieces(file, (n) => (bytes = new api.FileBytes(n)), (piece) => bytes.push(piece));
    } else {
      // The index is fed the file piece by piece as it is read (`beginFile` … `endFile`): the whole file is
      // never in memory twice, and the module grows only by what the index keeps.
      index = how === "full" ? api.SessionIndex.full() : api.SessionIndex.plugin();
      if (host) index.setHostVersion(host);
      if (how === "stats") index.collectLoops();
      size = readPieces(file, (n) => index.beginFile(n), (piece) => index.feedFile(piece));
      report = index.endFile();
    }
  } catch (err) {
    index?.free();
    throw new InputError(`${file}: cannot read: ${err.code === "ENOENT" ? "no such file" : err.code === "EISDIR" ? "is a directory" : err.message}`);
  }
  if (how === "list") {
    // `list` and `tokens` need estimates only: message contents are read in full only where they count.
    ({ report, list } = api.listFileBytes(bytes, leaf, host));
  }
  if (report.problem !== null) throw new InputError(`${file}:${report.problem}`);
  if (report.skipped.length || report.warnings.length) {
    const skipped = Uint32Array.from(report.skipped, (s) => s.line);
    for (const line of api.ingestNotes(file, skipped, report.skipped[0]?.reason ?? "", report.warnings)) process.stderr.write(`${NAME}: ${line}\n`);
  }
  // The file's size (for `stats`; `list` has handed its bytes to the core).
  return { index, list, bytes: size };
}

/**
 * Reads the file in 1 MB pieces (to its end, should it have grown since `fstat`): `start(size)` first, then
 * `take(piece)` for each piece (a view of one reused buffer); the number of bytes read. Files over 2 GiB are
 * refused as `readFileSync` refuses them (the module's memory could not hold them).
 */
function readPieces(file, start, take) {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    if (size > 2 ** 31 - 1) throw Object.assign(new RangeError(`File size (${size}) is greater than 2 GiB`), { code: "ERR_FS_FILE_TOO_LARGE" });
    start(size);
    const piece = Buffer.allocUnsafe(1 << 20);
    let total = 0;
    for (let n; (n = readSync(fd, piece, 0, piece.length, null)) > 0; total += n) take(piece.subarray(0, n));
    return total;
  } finally {
    closeSync(fd);
  }
}

function checkLeaf(index, file, leaf) {
  if (typeof leaf === "string" && !index.hasEntry(leaf)) throw new InputError(`${file}: no entry with id "${leaf}"`);
  return leaf;
}

const out = (s) => process.stdout.write(s.endsWith("\n") ? s : s + "\n");

function run(api, opts) {
  if (opts.command === "list" || opts.command === "tokens") return runList(api, opts);
  if (opts.command === "stats" && (opts.rows || isDirectory(opts.file))) return runFolder(api, opts);
  const { index, bytes } = load(api, opts.file, opts.command === "context" ? "full" : opts.command === "stats" ? "stats" : "facts", opts.host);
  const leaf = checkLeaf(index, opts.file, opts.leaf);
  // The index's current leaf is the file's last entry; `--leaf null` moves it before the first entry.
  if (leaf === null) index.setLeaf(null);
  const args = typeof leaf === "string" ? [leaf] : [];
  switch (opts.command) {
    case "context": {
      const json = index.contextJson(...args);
      out(opts.json ? json : JSON.stringify(JSON.parse(json), null, 2));
      return;
    }
    case "tree":
      out(opts.json ? JSON.stringify(index.treeRows()) : index.renderTree());
      return;
    case "stats": {
      const loops = index.wasteView();
      if (!opts.json) {
        out(`${index.statsText(basename(opts.file), bytes)}\n${loops.text}`);
        return;
      }
      out(JSON.stringify({ ...index.stats(bytes), rewinds: index.rewindSavings(), profile: index.profileLabel(), cost: index.cost(), waste: loops.waste }));
      return;
    }
  }
}

function isDirectory(path) {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // the file's own read says why
  }
}

/**
 * `stats <folder>` (and `--rows`, also of one file): js/folder.js streams each session into an index; the core's
 * `Folder` makes the rows, families, totals and texts. Rows are written as each file is read (never all in memory).
 */
async function runFolder(api, opts) {
  const { readFolder } = await import("./folder.js");
  const root = resolve(opts.file);
  try {
    statSync(root);
  } catch (err) {
    throw new InputError(`${opts.file}: cannot read: ${err.code === "ENOENT" ? "no such file or folder" : err.message}`);
  }
  const onRows = opts.rows ? (text) => process.stdout.write(text) : undefined;
  const folder = await readFolder(api, root, { host: opts.host, onRows });
  if (opts.rows) {
    for (const k of folder.report.skipped) process.stderr.write(`${NAME}: skipped ${k.file}: ${k.reason}\n`);
  } else {
    out(opts.json ? JSON.stringify(folder.report) : folder.text);
  }
}

/** `list` and `tokens`: one core call on the file's bytes (`listFileBytes`), no index kept. */
function runList(api, opts) {
  const { list } = load(api, opts.file, "list", opts.host, opts.leaf);
  if (list === null) throw new InputError(`${opts.file}: no entry with id "${opts.leaf}"`);
  switch (opts.command) {
    case "tokens": {
      const e = list.estimate;
      const est = { tokens: e.tokens, usageTokens: e.usageTokens, trailingTokens: e.trailingTokens, lastUsageIndex: e.lastUsageIndex };
      if (opts.json) out(JSON.stringify(est));
      else {
        const how = est.lastUsageIndex === null
          ? "no usable usage: every message estimated"
          : `usage ${est.usageTokens} from message #${est.lastUsageIndex} + ${est.trailingTokens} estimated after it`;
        out(`${est.tokens} tokens (${how})`);
      }
      return;
    }
    case "list": {
      const { anchors, estimate } = list;
      if (opts.json) out(JSON.stringify(anchors));
      else out(api.formatList(anchors, estimate.tokens, opts.contextWindow ?? 0));
      return;
    }
  }
}

async function main(argv) {
  if (argv[0] === "doctor") return doctor(argv.slice(1));
  let opts;
  try {
    opts = parseArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${NAME}: ${err.message}\nRun "${NAME} --help" for usage.\n`);
    return 2;
  }
  if (opts.help) {
    out(USAGE);
    return 0;
  }
  if (opts.version) {
    const pkg = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));
    out(`${pkg.name} ${pkg.version}`);
    return 0;
  }
  if (opts.command === "view") return view(opts);
  let api;
  try {
    api = await import("./index-node.js");
    await api.ready;
  } catch (err) {
    process.stderr.write(`${NAME}: cannot load the wasm core (run the CLI from the built package, pkg/cli.js): ${err.message}\n`);
    return 1;
  }
  if (opts.command === "archive" || opts.command === "restore") return archiveCommand(api, opts);
  if (opts.archived) return treeArchived(api, opts);
  try {
    await run(api, opts);
    return 0;
  } catch (err) {
    if (err instanceof InputError) process.stderr.write(`${NAME}: ${err.message}\n`);
    else process.stderr.write(`${NAME}: ${opts.file}: ${err.code ? `[${err.code}] ` : ""}${err.message}\n`);
    return 1;
  }
}

/** `tree --archived`: the tree of the session with its archive merged back (as `restore` would write it). */
async function treeArchived(api, opts) {
  const { mergeArchive } = await import("./viewer/archived.js");
  let merged;
  try {
    merged = await mergeArchive(readFileSync(opts.file), readFileSync(`${opts.file}.archive`));
  } catch (err) {
    const why = err.code === "ENOENT" ? `${err.path === opts.file ? "no such file" : `no archive (${basename(opts.file)}.archive)`}` : err.message;
    process.stderr.write(`${NAME}: ${opts.file}: ${why}\n`);
    return 1;
  }
  const index = api.SessionIndex.plugin();
  if (opts.host) index.setHostVersion(opts.host);
  index.loadFileBytes(merged.bytes);
  const rows = index.treeRows();
  if (opts.json) {
    out(JSON.stringify(rows.map((r) => ({ ...r, archived: merged.archived.get(r.id) ?? null }))));
    return 0;
  }
  // renderTree writes one line per row, in treeRows' order.
  const dim = process.stdout.isTTY ? (t) => `\x1b[2m${t}\x1b[22m` : (t) => t;
  const lines = index.renderTree().split("\n");
  out(lines.map((line, i) => (rows[i] && merged.archived.has(rows[i].id) ? dim(`${line} [archived]`) : line)).join("\n"));
  return 0;
}

/** `archive` / `restore` (js/archive.js; the texts are the core's): 0 done (or nothing to do), 1 refused or failed. */
async function archiveCommand(api, opts) {
  const { archiveFile, cliWords, restoreFile, restoreText, ArchiveError, ArchiveSkipped } = await import("./archive.js");
  const cli = cliWords(process.argv[1]);
  if (opts.afterExit !== undefined) {
    const { archiveAfterExit } = await import("./archive-after-exit.js");
    return archiveAfterExit(api, resolve(opts.file), opts.afterExit, { log: opts.log, minMb: opts.ifWorth, minIdle: opts.minIdle, cli });
  }
  try {
    if (opts.command === "restore") {
      const result = restoreFile(opts.file, opts);
      out(opts.json ? JSON.stringify(result) : restoreText(api, result));
      return 0;
    }
    const worth = opts.ifWorth === undefined ? undefined : (bytes, saved) => api.exitArchiveDue(bytes, saved, opts.ifWorth);
    const { text, ...result } = archiveFile(api, opts.file, { ...opts, cli, worth });
    out(opts.json ? JSON.stringify(result) : text);
    return 0;
  } catch (err) {
    if (err instanceof ArchiveSkipped) {
      out(`${opts.file}: ${api.exitSkipNotWorth(err.fileBytes, err.savedBytes, opts.ifWorth)}`);
      return 0;
    }
    const why = err instanceof ArchiveError ? err.message : err.code === "ENOENT" ? `${opts.file}: no such file` : `${opts.file}: ${err.message}`;
    process.stderr.write(`${NAME}: ${opts.command}: ${why}\n`);
    return 1;
  }
}

/** `doctor [--pi <dir>]` (js/doctor.js): 0 when everything the plugin needs is there, 1 otherwise, 2 on bad usage. */
async function doctor(args) {
  let piDir;
  for (let i = 0; i < args.length; i++) {
    const [arg, inline] = args[i].startsWith("--pi=") ? ["--pi", args[i].slice(5)] : [args[i], undefined];
    if (arg === "--pi" && (inline ?? args[i + 1]) !== undefined && (inline ?? args[i + 1]) !== "") {
      piDir = inline ?? args[++i];
    } else {
      process.stderr.write(`${NAME}: doctor: ${arg === "--pi" ? "--pi needs a directory" : `unexpected argument "${arg}"`}\nRun "${NAME} --help" for usage.\n`);
      return 2;
    }
  }
  let profileOf;
  try {
    const api = await import("./index-node.js");
    await api.ready;
    profileOf = (version) => {
      const index = api.SessionIndex.plugin();
      try {
        return index.setHostVersion(version) ?? null;
      } finally {
        index.free();
      }
    };
  } catch {
    profileOf = undefined; // run from js/ without a build: no profile line
  }
  const { diagnose, formatReport } = await import("./doctor.js");
  const report = await diagnose({ piDir, profileOf });
  out(formatReport(report));
  return report.problems.length ? 1 : 0;
}

/** `view`: serves the browser viewer and the file on 127.0.0.1 until interrupted. Prints the URL on stdout. */
async function view(opts) {
  const pkgDir = dirname(fileURLToPath(import.meta.url));
  const file = resolve(opts.file);
  if (isDirectory(file)) return viewFolder(opts, pkgDir, file);
  try {
    if (!statSync(file).isFile()) throw Object.assign(new Error(), { code: "EISDIR" });
    accessSync(file, constants.R_OK);
  } catch (err) {
    process.stderr.write(`${NAME}: ${opts.file}: cannot read: ${err.code === "ENOENT" ? "no such file" : err.code === "EISDIR" ? "is a directory" : err.message}\n`);
    return 1;
  }
  let server;
  let url;
  try {
    const { serveViewer, hasViewer } = await import("./viewer/server.js");
    if (!hasViewer(pkgDir)) throw new Error("viewer/ missing from the package");
    ({ server, url } = await serveViewer({ pkgDir, file, port: opts.port ?? 0, hostVersion: opts.host }));
  } catch (err) {
    const why = err.code === "EADDRINUSE" ? `port ${opts.port} is in use` : err.code === "ERR_MODULE_NOT_FOUND" ? "viewer/ missing from the package (run the CLI from the built package, pkg/cli.js)" : err.message;
    process.stderr.write(`${NAME}: view: cannot serve: ${why}\n`);
    return 1;
  }
  process.stderr.write(`${NAME}: serving ${basename(file)} on 127.0.0.1 only (Ctrl-C stops)\n`);
  out(url);
  return serveUntilStopped(server);
}

/** `view <folder>`: the folder read once (js/folder.js, as `stats <folder>`), its list page and its sessions served. */
async function viewFolder(opts, pkgDir, root) {
  let server;
  let url;
  let sessions;
  try {
    const api = await import("./index-node.js");
    await api.ready;
    const { readFolder } = await import("./folder.js");
    const { report } = await readFolder(api, root, { host: opts.host });
    sessions = report.sessions.length;
    const { serveViewer, hasViewer } = await import("./viewer/server.js");
    if (!hasViewer(pkgDir)) throw new Error("viewer/ missing from the package");
    ({ server, url } = await serveViewer({ pkgDir, folder: { root, report }, port: opts.port ?? 0, hostVersion: opts.host }));
  } catch (err) {
    const why = err.code === "EADDRINUSE" ? `port ${opts.port} is in use` : err.code === "ERR_MODULE_NOT_FOUND" ? "run the CLI from the built package (pkg/cli.js)" : err.message;
    process.stderr.write(`${NAME}: view: cannot serve: ${why}\n`);
    return 1;
  }
  process.stderr.write(`${NAME}: serving ${sessions} sessions of ${root} on 127.0.0.1 only (Ctrl-C stops)\n`);
  out(url);
  return serveUntilStopped(server);
}

/** Serves until SIGINT or SIGTERM; resolves to the exit status 0. */
function serveUntilStopped(server) {
  return new Promise((done) => {
    const stop = () => {
      server.close(() => done(0));
      server.closeAllConnections?.();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}

process.stdout.on("error", (err) => {
  if (err.code === "EPIPE") process.exit(0); // e.g. `| head`
  throw err;
});
process.exitCode = await main(process.argv.slice(2));
