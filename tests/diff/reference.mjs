// Reference runner: what a real pi install computes for a batch of session files.
//
//   <node> tests/diff/reference.mjs --pi <host dir> --manifest <manifest.json> --out <results.jsonl>
//
// <host dir> holds node_modules/@earendil-works/pi-coding-agent (e.g. $PTN_CACHE/hosts/pi-0.75.5; run pi >= 0.75
// with Node 22). The manifest is the one tests/diff/generate.mjs writes: {sessions:[{index, file, leaves}]};
// leaves: "$default" (no leaf argument: pi falls back to the last entry), null, or an entry id.
//
// Output, one JSON object per line: first {meta:{piVersion, agentCoreVersion, estimateFrom, node}}, then per
// session {index, file, entryCount, lastEntryId, results:[{leaf, context, estimate, anchors}] } or {index, file, error}.
//   context  = buildSessionContext(entries, leaf)            (pi-coding-agent root export)
//   estimate = estimateContextTokens(context.messages)       (pi-agent-core root export in 0.74/0.75)
//   pathLabels = [id, label] of each labelled entry on the leaf's path (root → leaf), and per session sessionName
//              (getSessionName: the file's latest session_info): only with --labels (tests/diff/archive.test.mjs),
//              so the recording of tests/fixtures/record-expected.mjs stays as it is
//   anchors  = for each entry on the leaf's path (root → leaf) whose label starts with "anchor:":
//              {name, entryId, tokens: estimateContextTokens(buildSessionContext(entries, entryId).messages).tokens}
// entries are read like SessionManager.open does: loadEntriesFromFile (pi's own function), migrations for files
// older than version 3, then the header(s) dropped (getEntries()). Labels are replayed like _buildIndex.
// Everything is written with JSON.stringify, so a reader gets pi's values after a JSON round trip.
//
// pi ≥0.87 (0.87.1 npm install; 0.99.1 … 1.6.0 tarball bundles, <host dir>/package/dist/bundle) is
// asked through its own SessionManager instead (see loadPi087 / computeSession087): the session is opened with
// SessionManager.open (on a copy: pi may repair the file), the leaf set with branch()/resetLeaf(), and
//   context  = sm.buildSessionContext()                                  (what the host sends the model)
//   estimate = estimateProjectedContextTokens(sm.buildSessionProjection(), sm.getBranch())
//              (what its getContextUsage() and compaction use: usage recorded before a later context_edit or
//              compaction is not trusted); anchors the same with the anchor's entry as the leaf.
// The estimate is cross-checked per leaf against pi's own AgentSession.prototype.getContextUsage (run with just
// the session manager and a model's context window) wherever that reports a number (it reports null right after
// a compaction); a difference is written as `usageCheck` and fails the test.
import { copyFileSync, createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import * as nodeModule from "node:module"; // registerHooks: Node ≥22.15 (bundle hosts only; pi 0.74.2 runs on Node 20)
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const WITH_LABELS = process.argv.includes("--labels");

function arg(name) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Locate and import pi's functions from a host dir. Exported so tests can reuse it in-process. */
export async function loadPi(hostDir) {
  const scope = join(hostDir, "node_modules", "@earendil-works");
  const codingDir = join(scope, "pi-coding-agent");
  if (!existsSync(join(codingDir, "package.json"))) throw new Error(`pi is not installed in ${hostDir} (no ${codingDir})`);
  const coreDir = [join(codingDir, "node_modules", "@earendil-works", "pi-agent-core"), join(scope, "pi-agent-core")].find((d) =>
    existsSync(join(d, "package.json")),
  );
  const imp = (p) => import(pathToFileURL(p).href);
  const coding = await imp(join(codingDir, "dist", "index.js"));
  const sessionManager = await imp(join(codingDir, "dist", "core", "session-manager.js"));
  const buildSessionContext = coding.buildSessionContext;
  if (typeof buildSessionContext !== "function") throw new Error("pi-coding-agent does not export buildSessionContext");

  let estimateContextTokens, estimateFrom;
  if (coreDir) {
    const core = await imp(join(coreDir, "dist", "index.js"));
    if (typeof core.estimateContextTokens === "function") {
      estimateContextTokens = core.estimateContextTokens;
      estimateFrom = "@earendil-works/pi-agent-core";
    } else {
      const deep = join(coreDir, "dist", "harness", "compaction", "compaction.js");
      if (existsSync(deep)) {
        const m = await imp(deep);
        if (typeof m.estimateContextTokens === "function") {
          estimateContextTokens = m.estimateContextTokens;
          estimateFrom = "@earendil-works/pi-agent-core/dist/harness/compaction/compaction.js";
        }
      }
    }
  }
  if (!estimateContextTokens) {
    const m = await imp(join(codingDir, "dist", "core", "compaction", "compaction.js"));
    estimateContextTokens = m.estimateContextTokens;
    estimateFrom = "@earendil-works/pi-coding-agent/dist/core/compaction/compaction.js";
  }
  if (typeof estimateContextTokens !== "function") throw new Error(`no estimateContextTokens in ${hostDir}`);
  // The zero-usage rule of pi ≥0.87 (a usage whose calculateContextTokens is not > 0 is no anchor) is the
  // tool's rule on every host (src/session/profile.rs). Older hosts anchor on it; for them pi's own function
  // is given the messages with such a usage taken off, which is exactly what the newer hosts' check does.
  // Likewise the projected rule of pi ≥0.87 (LEAD DECISION 2026-11-25, docs/hosts.md): a usage recorded at or
  // before the branch's latest compaction or context_edit is no anchor. `distrusted` is the set of message objects
  // (buildSessionContext returns entry.message itself) of the path's entries up to that point; their usage is
  // taken off before pi's own function runs, which gives what estimateProjectedContextTokens gives (no trusted
  // usage left → every message counted).
  const piEstimate = estimateContextTokens;
  const calc = coding.calculateContextTokens;
  estimateContextTokens = (messages, distrusted) =>
    piEstimate(messages.map((m) => (m?.role === "assistant" && m.usage && (!(calc(m.usage) > 0) || distrusted?.has(m)) ? { ...m, usage: undefined } : m)));
  const version = (d) => (d ? JSON.parse(readFileSync(join(d, "package.json"), "utf8")).version : null);
  return {
    buildSessionContext,
    estimateContextTokens,
    collectEntriesForBranchSummary: coding.collectEntriesForBranchSummary,
    SessionManager: coding.SessionManager,
    loadEntriesFromFile: sessionManager.loadEntriesFromFile,
    migrateSessionEntries: coding.migrateSessionEntries ?? sessionManager.migrateSessionEntries,
    meta: { piVersion: version(codingDir), agentCoreVersion: version(coreDir), estimateFrom, node: process.version },
  };
}

/**
 * Makes the bundle chunk at `chunkUrl` also export `names` (an export list's inside, `a as b, c as d`): a module
 * hook appends one line to its source when it loads, so the very functions pi runs can be called (Node ≥22.15).
 */
export function exportFromChunk(chunkUrl, names) {
  nodeModule.registerHooks({
    load(url, context, nextLoad) {
      const r = nextLoad(url, context);
      if (url !== chunkUrl) return r;
      const src = typeof r.source === "string" ? r.source : Buffer.from(r.source).toString("utf8");
      return { ...r, source: `${src}\nexport { ${names} };\n` };
    },
  });
}

/** True when the host dir holds a tarball bundle (pi ≥0.99) rather than an npm install. */
const bundleEntry = (hostDir) => join(hostDir, "package", "dist", "bundle", "index.js");

/**
 * pi ≥0.87's functions. npm install (0.87.1): root exports plus dist/core/compaction/compaction.js, which exports
 * estimateProjectedContextTokens. Bundles: the root exports buildSessionContext, SessionManager, AgentSession, …
 * but not the estimator; it lives in one chunk of dist/bundle/chunks under its own name. That chunk is loaded
 * through a module hook that appends one line, `export { estimateProjectedContextTokens as … }`, so the very
 * function pi runs (same module instance, same helpers) is called — nothing is re-implemented or copied.
 */
export async function loadPi087(hostDir) {
  const imp = (p) => import(pathToFileURL(p).href);
  if (existsSync(bundleEntry(hostDir))) {
    const chunks = join(hostDir, "package", "dist", "bundle", "chunks");
    let chunk, fnName;
    for (const f of readdirSync(chunks)) {
      if (!f.endsWith(".js")) continue;
      const m = readFileSync(join(chunks, f), "utf8").match(/function (estimateProjectedContextTokens\d*)\(/);
      if (m) {
        if (chunk) throw new Error(`two chunks define estimateProjectedContextTokens: ${chunk}, ${f}`);
        [chunk, fnName] = [join(chunks, f), m[1]];
      }
    }
    if (!chunk) throw new Error(`no chunk of ${chunks} defines estimateProjectedContextTokens`);
    const chunkUrl = pathToFileURL(chunk).href;
    exportFromChunk(chunkUrl, `${fnName} as __ptnEstimateProjectedContextTokens`);
    const pi = await imp(bundleEntry(hostDir));
    const c = await imp(chunk);
    if (typeof c.__ptnEstimateProjectedContextTokens !== "function") throw new Error(`${chunk}: ${fnName} not reachable`);
    const pkg = JSON.parse(readFileSync(join(hostDir, "package", "package.json"), "utf8"));
    return {
      ...pick(pi),
      estimateProjectedContextTokens: c.__ptnEstimateProjectedContextTokens,
      meta: { piVersion: pkg.version, estimateFrom: `${basename(chunk)} ${fnName} (bundle)`, node: process.version },
    };
  }
  const codingDir = join(hostDir, "node_modules", "@earendil-works", "pi-coding-agent");
  const pi = await imp(join(codingDir, "dist", "index.js"));
  const c = await imp(join(codingDir, "dist", "core", "compaction", "compaction.js"));
  if (typeof c.estimateProjectedContextTokens !== "function") throw new Error(`pi in ${hostDir} has no estimateProjectedContextTokens (older than 0.87?)`);
  const pkg = JSON.parse(readFileSync(join(codingDir, "package.json"), "utf8"));
  return {
    ...pick(pi),
    estimateProjectedContextTokens: c.estimateProjectedContextTokens,
    meta: { piVersion: pkg.version, estimateFrom: "@earendil-works/pi-coding-agent/dist/core/compaction/compaction.js", node: process.version },
  };
  function pick(m) {
    for (const k of ["SessionManager", "AgentSession", "collectEntriesForBranchSummary"]) {
      if (typeof m[k] !== "function") throw new Error(`pi in ${hostDir} does not export ${k}`);
    }
    return { generation: "0.87", SessionManager: m.SessionManager, AgentSession: m.AgentSession, collectEntriesForBranchSummary: m.collectEntriesForBranchSummary };
  }
}

/** True for a host whose package is pi ≥0.87 (the projection and its estimator). */
export function isPi087(hostDir) {
  if (existsSync(bundleEntry(hostDir))) return true;
  const pj = join(hostDir, "node_modules", "@earendil-works", "pi-coding-agent", "package.json");
  const [maj, min] = JSON.parse(readFileSync(pj, "utf8")).version.split(".").map(Number);
  return maj > 0 || min >= 87;
}

/**
 * One session through pi ≥0.87's SessionManager (see the header). A file pi refuses to open (e.g. its first
 * parsed line is no session header) is `{invalid: message}`.
 */
export function computeSession087(pi, file, leaves, tmpDir) {
  const copy = join(tmpDir, basename(file));
  copyFileSync(file, copy);
  let sm;
  try {
    sm = pi.SessionManager.open(copy, tmpDir);
  } catch (err) {
    return { invalid: String(err?.message ?? err) };
  }
  const entries = sm.getEntries();
  // getEntries() hands out pi's own entry objects: renamed there, then pi's id maps rebuilt from them.
  if (renameV1Ids(file, entries)) sm._buildIndex();
  const lastEntryId = entries.length ? entries[entries.length - 1].id ?? null : null;
  const session = { sessionManager: sm, model: { contextWindow: 1e15 } };
  session._limitsModel = () => session.model; // bundles ask _limitsModel(), 0.87.1 reads .model
  const estimateHere = () => pi.estimateProjectedContextTokens(sm.buildSessionProjection(), sm.getBranch());
  /** Moves pi's leaf like buildSessionContext(entries, leaf) resolves one: null = none, unknown = the last entry. */
  const moveTo = (leaf) => {
    if (leaf === null) sm.resetLeaf();
    else if (typeof leaf === "string" && leaf !== "$default" && sm.getEntry(leaf)) sm.branch(leaf);
    else if (lastEntryId !== null && sm.getEntry(lastEntryId)) sm.branch(lastEntryId);
    else sm.resetLeaf();
  };
  const results = [];
  for (const leaf of leaves) {
    moveTo(leaf);
    const context = sm.buildSessionContext();
    const estimate = estimateHere();
    let usage;
    try {
      usage = pi.AgentSession.prototype.getContextUsage.call(session);
    } catch {
      // pi's own check throws on an assistant message without usage after a compaction
      // (calculateContextTokens(undefined)): no number to cross-check against there.
      usage = { tokens: null };
    }
    const usageCheck = usage && usage.tokens !== null && usage.tokens !== estimate.tokens ? { getContextUsage: usage.tokens, estimate: estimate.tokens } : undefined;
    const branch = sm.getBranch();
    const anchors = [];
    for (const e of branch) {
      const label = sm.getLabel(e.id);
      if (typeof label === "string" && label.startsWith("anchor:")) anchors.push({ name: label.slice("anchor:".length), entryId: e.id });
    }
    const pathLabels = branch.filter((e) => sm.getLabel(e.id) !== undefined).map((e) => [e.id, sm.getLabel(e.id)]);
    for (const a of anchors) {
      sm.branch(a.entryId);
      a.tokens = estimateHere().tokens;
    }
    results.push({ leaf, context, estimate, anchors, ...(WITH_LABELS ? { pathLabels } : {}), usageTokens: usage?.tokens ?? null, ...(usageCheck ? { usageCheck } : {}) });
  }
  // Tree moves, as computeBetween does for the older hosts, on the same session manager.
  const between = [];
  const ids = leaves.filter((l) => typeof l === "string" && l !== "$default" && sm.getEntry(l));
  if (lastEntryId !== null) {
    for (const id of ids) {
      for (const [oldLeaf, target] of [[lastEntryId, id], [id, lastEntryId]]) {
        const r = pi.collectEntriesForBranchSummary(sm, oldLeaf, target);
        between.push({ oldLeaf, target, entryIds: r.entries.map((e) => e.id), commonAncestorId: r.commonAncestorId });
      }
    }
  }
  rmSync(copy, { force: true });
  return { entryCount: entries.length, lastEntryId, ...(WITH_LABELS ? { sessionName: sm.getSessionName?.() ?? null } : {}), results, between };
}

/**
 * The ids pi-tree-navigator gives a file's entries, in file order (session lines left out): as written, except in
 * a version-1 file (header `version ?? 1` below 2), where pi gives each value after the header a random id and
 * the core the id `line-<N>`, N its line in the file (src/session/migrate.rs). Written apart from the core: the
 * lines JSON.parse takes, numbered from 1.
 */
export function coreEntryIds(text) {
  return fileIds(text).ids;
}

/** coreEntryIds, whether the file is a version-1 one, and the parsed values the ids are of. */
export function fileIds(text) {
  const lines = text.replace(/^\uFEFF/, "").split("\n");
  let header;
  const values = [];
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let value;
    try {
      value = JSON.parse(line);
    } catch {
      return;
    }
    if (header === undefined) header = value?.type === "session" ? value : null;
    if (value?.type !== "session") values.push({ line: i + 1, value });
  });
  const v1 = Boolean(header) && (header.version ?? 1) < 2;
  return { v1, ids: values.map(({ line, value }) => (v1 ? `line-${line}` : value?.id)), values: values.map(({ value }) => value) };
}

/**
 * pi's random v1 ids in `entries` (pi's migrated entries of `file`, in file order, session lines left out)
 * renamed to the core's (see coreEntryIds), with every reference to them: a renaming pi's functions cannot
 * tell from its own ids, so the results name entries as the core does. A file of another version is left as it is.
 */
export function renameV1Ids(file, entries) {
  const { v1, ids } = fileIds(readFileSync(file, "utf8"));
  if (!v1) return false;
  if (ids.length !== entries.length) throw new Error(`${file}: pi holds ${entries.length} entries, the file's lines give ${ids.length}`);
  const to = new Map(entries.map((e, i) => [e.id, ids[i]]));
  for (const e of entries) {
    e.id = to.get(e.id);
    if (e.parentId != null) e.parentId = to.get(e.parentId) ?? e.parentId;
    if (e.type === "compaction" && typeof e.firstKeptEntryId === "string") e.firstKeptEntryId = to.get(e.firstKeptEntryId) ?? e.firstKeptEntryId;
  }
  return true;
}

/** Entries as SessionManager.open(file).getEntries() would hold them, plus pi's label map. */
export function readSession(pi, file) {
  const fileEntries = pi.loadEntriesFromFile(file);
  const header = fileEntries.find((e) => e.type === "session");
  if (fileEntries.length && (header?.version ?? 1) < 3) pi.migrateSessionEntries(fileEntries);
  const entries = fileEntries.filter((e) => e.type !== "session");
  renameV1Ids(file, entries);
  const labels = new Map();
  for (const e of entries) {
    if (e.type !== "label") continue;
    if (e.label) labels.set(e.targetId, e.label);
    else labels.delete(e.targetId);
  }
  return { entries, labels };
}

/** pi's leaf resolution (buildSessionContext / getBranch): null → no path; unknown or missing → last entry. */
function pathTo(entries, byId, leaf) {
  if (leaf === null) return [];
  let cur = (leaf ? byId.get(leaf) : undefined) ?? entries[entries.length - 1];
  const path = [];
  while (cur) {
    path.unshift(cur);
    cur = cur.parentId ? byId.get(cur.parentId) : undefined;
  }
  return path;
}

/** The messages of the path's entries up to its latest compaction or context_edit (see loadPi). */
function distrustedMessages(path) {
  let last = -1;
  path.forEach((e, i) => {
    if (e.type === "compaction" || e.type === "context_edit") last = i;
  });
  const out = new Set();
  for (let i = 0; i <= last; i++) if (path[i].type === "message" && path[i].message) out.add(path[i].message);
  return out;
}

export function computeLeaf(pi, { entries, labels }, leaf, byId) {
  const leafArg = leaf === "$default" ? undefined : leaf;
  const context = pi.buildSessionContext(entries, leafArg, byId);
  const path = pathTo(entries, byId, leafArg);
  const estimate = pi.estimateContextTokens(context.messages, distrustedMessages(path));
  const anchors = [];
  for (const e of path) {
    const label = labels.get(e.id);
    if (typeof label === "string" && label.startsWith("anchor:")) {
      const tokens = pi.estimateContextTokens(pi.buildSessionContext(entries, e.id, byId).messages, distrustedMessages(pathTo(entries, byId, e.id))).tokens;
      anchors.push({ name: label.slice("anchor:".length), entryId: e.id, tokens });
    }
  }
  const pathLabels = path.filter((e) => labels.has(e.id)).map((e) => [e.id, labels.get(e.id)]);
  return { leaf, context, estimate, anchors, ...(WITH_LABELS ? { pathLabels } : {}) };
}

/**
 * pi's collectEntriesForBranchSummary(session, old, target) for moves between the last entry and each chosen
 * leaf, both ways, on an in-memory SessionManager holding the same entries (getBranch/getEntry are pi's own).
 */
function computeBetween(pi, entries, leaves, lastEntryId) {
  if (!pi.collectEntriesForBranchSummary || !pi.SessionManager?.inMemory || lastEntryId === null) return [];
  const sm = pi.SessionManager.inMemory("/tmp");
  sm.fileEntries.push(...entries);
  sm._buildIndex();
  const ids = leaves.filter((l) => typeof l === "string" && l !== "$default" && sm.getEntry(l));
  const out = [];
  for (const id of ids) {
    for (const [oldLeaf, target] of [[lastEntryId, id], [id, lastEntryId]]) {
      const r = pi.collectEntriesForBranchSummary(sm, oldLeaf, target);
      out.push({ oldLeaf, target, entryIds: r.entries.map((e) => e.id), commonAncestorId: r.commonAncestorId });
    }
  }
  return out;
}

export function computeSession(pi, file, leaves) {
  const s = readSession(pi, file);
  const byId = new Map();
  for (const e of s.entries) byId.set(e.id, e);
  const lastEntryId = s.entries.length ? s.entries[s.entries.length - 1].id ?? null : null; // SessionManager's leaf on load
  return {
    entryCount: s.entries.length,
    lastEntryId,
    // SessionManager.getSessionName: the latest session_info entry of the file.
    ...(WITH_LABELS ? { sessionName: s.entries.findLast((e) => e.type === "session_info")?.name?.trim() || null } : {}),
    results: leaves.map((leaf) => computeLeaf(pi, s, leaf, byId)),
    between: computeBetween(pi, s.entries, leaves, lastEntryId),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const hostDir = arg("--pi"), manifestPath = arg("--manifest"), outPath = arg("--out");
  if (!hostDir || !manifestPath) {
    console.error("usage: <node> tests/diff/reference.mjs --pi <host dir> --manifest <manifest.json> [--out <results.jsonl>]");
    process.exit(2);
  }
  const pi087 = isPi087(hostDir);
  const pi = pi087 ? await loadPi087(hostDir) : await loadPi(hostDir);
  const tmpDir = mkdtempSync(join(tmpdir(), "ptn-ref-"));
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  const out = outPath ? createWriteStream(outPath) : process.stdout;
  const write = (obj) => out.write(JSON.stringify(obj) + "\n");
  write({ meta: pi.meta });
  const t0 = performance.now();
  for (const s of manifest.sessions) {
    try {
      write({ index: s.index, file: s.file, ...(pi087 ? computeSession087(pi, s.file, s.leaves, tmpDir) : computeSession(pi, s.file, s.leaves)) });
    } catch (err) {
      write({ index: s.index, file: s.file, error: String(err?.stack ?? err) });
    }
  }
  if (out !== process.stdout) await new Promise((res, rej) => out.end((e) => (e ? rej(e) : res())));
  rmSync(tmpDir, { recursive: true, force: true });
  console.error(`[reference] pi ${pi.meta.piVersion} on node ${process.version}: ${manifest.sessions.length} sessions in ${Math.round(performance.now() - t0)} ms`);
}
