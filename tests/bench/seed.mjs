// The reference side of the benchmarks: what the seed extension (@cad0p/pi-tree-navigator 0.1.0) and pi
// itself compute, with pi's own functions loaded from an installed host (pi 0.75.5 on Node 22).
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { loadPi } from "../diff/reference.mjs";

const LABEL_PREFIX = "anchor:";

/** pi's buildSessionContext / estimateContextTokens plus the SessionManager module of one host. */
export async function loadReference(hostDir) {
  const pi = await loadPi(hostDir);
  const smModule = await import(
    pathToFileURL(join(hostDir, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "core", "session-manager.js")).href
  );
  return { ...pi, SessionManager: smModule.SessionManager, parseSessionEntries: smModule.parseSessionEntries };
}

/**
 * pi's load of a session file's text: JSON.parse per line (parseSessionEntries, the loop of
 * loadEntriesFromFile) and the SessionManager's index (_buildIndex: byId, labels, leaf).
 * SessionManager.open(file) does the same after reading the file, but parses it twice (once in open() for
 * the header's cwd, once in setSessionFile), so this is the cheaper half of what the host really does.
 */
export function piLoad(ref, text) {
  const sm = ref.SessionManager.inMemory("/tmp");
  sm.fileEntries = ref.parseSessionEntries(text);
  sm._buildIndex();
  return sm;
}

/**
 * The messages of `path[0..=end]` up to its latest compaction or context_edit: pi ≥0.87's projected rule
 * (a usage recorded there is no anchor), which the core applies on every host (lead decision 2026-11-25,
 * docs/hosts.md). loadPi's estimateContextTokens takes them off before pi's own function runs, as the
 * differential tests do. Only the equal-numbers checks ask for it (`projected`): the timed seed runs as the
 * seed does, without this walk.
 */
function distrusted(path, end = path.length - 1) {
  let cut = -1;
  for (let i = 0; i <= end; i++) if (path[i].type === "compaction" || path[i].type === "context_edit") cut = i;
  const out = new Set();
  for (let i = 0; i <= cut; i++) if (path[i].type === "message" && path[i].message) out.add(path[i].message);
  return out;
}

/** The seed's estimateActiveBranchTokens(sm); `projected`: with the projected rule (see `distrusted`). */
export function seedActiveTokens(ref, sm, projected = false) {
  return ref.estimateContextTokens(sm.buildSessionContext().messages, projected ? distrusted(sm.getBranch()) : undefined).tokens;
}

/**
 * The numbers of the seed's `list` (index.ts, action "list"): the active branch, a byId map over
 * getEntries(), the current estimate, and per anchor on the path estimateContextTokens(buildSessionContext(
 * entries, anchorId, byId).messages). The seed also walks to a text hint per anchor and formats lines; that
 * part is left out here (the core's anchors() computes hints too), which only favours the reference.
 */
export function seedList(ref, sm, projected = false) {
  const path = sm.getBranch();
  const allEntries = sm.getEntries();
  const byId = new Map();
  for (const e of allEntries) byId.set(e.id, e);
  const total = seedActiveTokens(ref, sm, projected);
  const anchors = [];
  for (const [i, e] of path.entries()) {
    const lbl = sm.getLabel(e.id);
    if (lbl?.startsWith(LABEL_PREFIX)) {
      const tokens = ref.estimateContextTokens(ref.buildSessionContext(allEntries, e.id, byId).messages, projected ? distrusted(path, i) : undefined).tokens;
      anchors.push({ name: lbl.slice(LABEL_PREFIX.length), entryId: e.id, tokens });
    }
  }
  return { total, anchors };
}

/** The seed's anchor bookkeeping without the writes: the name lookup on the path and the estimate at the leaf. */
export function seedAnchorCompute(ref, sm, name) {
  const path = sm.getBranch();
  let prior = null;
  for (let i = path.length - 1; i >= 0; i--) {
    if (sm.getLabel(path[i].id) === LABEL_PREFIX + name) {
      prior = path[i].id;
      break;
    }
  }
  return { prior, tokens: seedActiveTokens(ref, sm) };
}

/** Throws unless the core's list numbers equal the seed's (names, entry ids, tokens, order, current total). */
export function assertSameList(ours, theirs, where) {
  const a = ours.anchors.map((x) => [x.name, x.entryId, x.tokens]);
  const b = theirs.anchors.map((x) => [x.name, x.entryId, x.tokens]);
  if (JSON.stringify(a) !== JSON.stringify(b) || ours.total !== theirs.total) {
    const at = a.findIndex((x, i) => JSON.stringify(x) !== JSON.stringify(b[i]));
    throw new Error(
      `${where}: the core's list differs from the seed's (pi) — ` +
        `total ${ours.total} vs ${theirs.total}, ${a.length} vs ${b.length} anchors, first difference at #${at}: ` +
        `${JSON.stringify(a[at])} vs ${JSON.stringify(b[at])}`,
    );
  }
}
