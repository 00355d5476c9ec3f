// One host's side of tests/diff/resume.test.mjs: a resumed session's index read from its file (the built
// package's js/resume.js: its worker, the main thread's share, the core's agreement check) against the index
// built from pi's own entry objects (the path before issue 29), on pi's real SessionManager.
//
//   <node for the host> tests/diff/resume-child.mjs --version <pi version> --pkg <built pkg> --cases <cases.json> --out <results.jsonl>
//
// cases.json: [{ name, file, change?, when?, wait? }]. Each case: the file is copied, opened with pi's
// SessionManager.open (pi may repair or migrate it as it does on resume), `change` applied to the file before
// or after `session_start` (`when`: "before" | "after"), then the resume read settles (at once, or after the
// worker had `wait` ms alone) and, when it hands an index over, that index — fed pi's entries after the count it
// holds and pi's leaf, as the navigator does — is compared with the old path's on everything the plugin answers
// from it. Also: the start anchor decided from pi's path labels and leaf (`startAnchorStepOnPath`) against the
// old index's `startAnchorStep`. Writes one JSON line per case: {name, adopted, reason, equal, first (the first
// difference), startAnchor (the decisions that differ)}.
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { register } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { hostEntryPath } from "../../scripts/hosts.mjs";

const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
const version = arg("--version");
const pkgDir = arg("--pkg");
const cases = JSON.parse(readFileSync(arg("--cases"), "utf8"));
const out = arg("--out");

// The package's shim imports pi's package by name, as pi's loader resolves it for an extension: here, the host's.
const entry = pathToFileURL(hostEntryPath(version)).href;
register(
  `data:text/javascript,${encodeURIComponent(`export async function resolve(s, c, next) {
  if (s === "@earendil-works/pi-coding-agent") return { url: ${JSON.stringify(entry)}, shortCircuit: true };
  return next(s, c);
}`)}`,
);
const pkg = await import(entry);
const load = (name) => import(pathToFileURL(join(pkgDir, name)).href);
const core = await load("load-node.js");
const { installResume } = await load("resume.js");
const { createHost } = await load("host.js");

const FACTS = { callId: "diff-resume", contextWindow: 128000, model: { api: "x", provider: "y", id: "z" }, refreshReaches: true, nowMs: 1_800_000_000_000 };
const FOCUS = "User asked: the probe. Done: nothing. Left: nothing.";

const attempt = (fn) => {
  try {
    return fn();
  } catch (e) {
    return { threw: `${e?.code ?? ""} ${e?.message ?? e}` };
  }
};

/** Everything the plugin answers from an index: entries, leaf, labels, estimates at every entry, every tool plan. */
function digest(index, ids) {
  const anchors = attempt(() => index.listAnchors());
  const names = Array.isArray(anchors?.anchors) ? anchors.anchors.map((a) => a.name) : [];
  const plans = [
    attempt(() => index.toolPlan({ action: "list" }, FACTS)),
    attempt(() => index.toolPlan({ action: "anchor", name: "probe" }, FACTS)),
  ];
  for (const name of names) {
    plans.push(attempt(() => index.toolPlan({ action: "rewind", labelStart: name, labelEnd: "probe-end", summaryFocus: FOCUS }, FACTS)));
    plans.push(attempt(() => index.toolPlan({ action: "recall", name }, FACTS)));
  }
  return {
    entryCount: index.entryCount,
    leafId: index.leafId(),
    profile: index.profile(),
    path: attempt(() => index.path()),
    labels: ids.map((id) => index.labelOf(id)),
    estimates: ids.map((id) => attempt(() => index.estimate(id))),
    anchors,
    anchorsView: attempt(() => index.anchorsView(FACTS.contextWindow)),
    plans,
  };
}

/** The first place two JSON values differ, as a path. */
function firstDifference(a, b, path = "$") {
  if (JSON.stringify(a) === JSON.stringify(b)) return null;
  if (a && b && typeof a === "object" && typeof b === "object") {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDifference(a[k], b[k], `${path}.${k}`);
      if (d) return d;
    }
  }
  return `${path}: ${JSON.stringify(a)?.slice(0, 300)} vs ${JSON.stringify(b)?.slice(0, 300)}`;
}

/** Applies a change to the session file under pi's feet. */
function change(file, kind, other) {
  const text = readFileSync(file, "utf8");
  const lines = text.split("\n");
  switch (kind) {
    case "truncate": {
      // Cut at a line start half-way: entries pi holds are gone from the file.
      const keep = lines.slice(0, Math.max(1, Math.floor(lines.length / 2))).join("\n") + "\n";
      truncateSync(file, Buffer.byteLength(keep));
      return;
    }
    case "replace": {
      // Another session renamed over it (a new file at the same path).
      const tmp = `${file}.new`;
      writeFileSync(tmp, readFileSync(other));
      renameSync(tmp, file);
      return;
    }
    case "reparent": {
      // One entry moved under another parent, in place.
      const at = lines.findLastIndex((l) => /"parentId":"[^"]+"/.test(l));
      lines[at] = lines[at].replace(/"parentId":"[^"]+"/, '"parentId":null');
      writeFileSync(file, lines.join("\n"));
      return;
    }
    case "append": {
      // An entry pi never read.
      const id = "fffffff0";
      writeFileSync(file, `${text}${text.endsWith("\n") ? "" : "\n"}${JSON.stringify({ type: "custom", id, parentId: null, timestamp: "2026-01-01T00:00:00.000Z", customType: "x" })}\n`);
      return;
    }
    default:
      throw new Error(`unknown change ${kind}`);
  }
}

const handlers = {};
const pi = {
  on: (name, fn) => (handlers[name] ??= []).push(fn),
  registerTool() {},
  setLabel() {},
};
const host = createHost(pi, { pkg });
const lines = [];
for (const c of cases) {
  const dir = mkdtempSync(join(tmpdir(), "ptn-resume-diff-"));
  try {
    const file = join(dir, "session.jsonl");
    copyFileSync(c.file, file);
    const log = join(dir, "debug.log");
    let adopted = null;
    const resume = installResume({
      pi,
      core: () => core,
      host,
      adopt: (_sm, _api, index, fed, cursor) => {
        adopted = { index, fed, cursor };
        return true;
      },
      wasmBase: pathToFileURL(join(pkgDir, "/")).href,
      env: { PI_TREE_NAVIGATOR_DEBUG: log },
      minBytes: 0,
      chunkBytes: c.chunkBytes ?? 512,
    });
    let sm;
    try {
      sm = pkg.SessionManager.open(file, dir);
    } catch (e) {
      // A file this pi refuses to open (pi ≥0.87: not led by a session header) is never resumed.
      lines.push(JSON.stringify({ name: c.name, unopened: e?.message ?? String(e) }));
      continue;
    }
    if (c.change && c.when === "before") change(file, c.change, c.other);
    for (const h of handlers.session_start ?? []) h({ type: "session_start" }, { sessionManager: sm });
    handlers.session_start = [];
    if (c.change && c.when === "after") change(file, c.change, c.other);
    if (c.wait) await new Promise((r) => setTimeout(r, c.wait));
    await resume.settle(sm);
    handlers.session_shutdown = [];
    const debug = (() => {
      try {
        return readFileSync(log, "utf8");
      } catch {
        return "";
      }
    })();
    // The old path: every entry object pi holds, then its leaf.
    const old = core.SessionIndex.plugin();
    old.setHostVersion(host.version);
    // (pi's leaf may be an entry the core does not take, e.g. one whose id is no string: then both paths throw alike.)
    const oldSync = attempt(() => old.sync(sm.getEntries(), sm.getLeafId()));
    const ids = sm.getEntries().map((e) => e.id).filter((id) => typeof id === "string");
    const want = digest(old, ids);
    // The start anchor is decided from what pi says of the active path (no index): as the old index decides it.
    const startAnchor = [];
    // (Where the old path's sync throws, it decides nothing at all.)
    for (const turns of oldSync?.threw ? [] : [0, 1, 2, 3]) {
      for (const runEnded of [false, true]) {
        for (const turn of [null, 1, 2, 5]) {
          const facts = { turns, runEnded, disabledByEnv: turns === 3 && runEnded };
          const onPath = core.startAnchorStepOnPath(facts, turn, host.labelOnPath(sm, core.startAnchorLabel()), host.leafId(sm));
          const indexed = attempt(() => old.startAnchorStep(facts, turn));
          if (JSON.stringify(onPath) !== JSON.stringify(indexed)) startAnchor.push({ facts, turn, onPath, indexed });
        }
      }
    }
    // Whether a label is on the active path, as pi says it (the start anchor's fact), = the index's findLabel.
    const labelOnPath = [];
    if (!oldSync?.threw) {
      const values = new Set(["anchor:start", "no such label"]);
      for (const e of sm.getEntries()) if (e?.type === "label" && typeof e.label === "string") values.add(e.label);
      for (const label of values) {
        const host_ = host.labelOnPath(sm, label);
        const index_ = old.findLabel(label) !== null;
        if (host_ !== index_) labelOnPath.push({ label, host: host_, index: index_ });
      }
    }
    // The estimate per turn (from the last usage) = the estimate along the whole path, at every entry.
    const currentTokens = [];
    if (!oldSync?.threw) {
      for (const id of ids) {
        old.setLeaf(id);
        const fast = attempt(() => old.currentTokens());
        const full = attempt(() => old.estimate().tokens);
        if (JSON.stringify(fast) !== JSON.stringify(full)) currentTokens.push({ id, fast, full });
      }
      attempt(() => old.setLeaf(sm.getLeafId()));
    }
    let result = { name: c.name, adopted: !!adopted, reason: debug.trim().split("\n").pop() ?? "", startAnchor, currentTokens, labelOnPath };
    if (adopted) {
      // What the navigator does with it: the entries after the count it holds, then pi's leaf.
      const newSync = attempt(() => adopted.index.sync(host.entriesSince(sm, adopted.fed, adopted.cursor), sm.getLeafId()));
      const got = digest(adopted.index, ids);
      const first = firstDifference({ ...want, sync: oldSync?.threw ?? null }, { ...got, sync: newSync?.threw ?? null });
      result = { ...result, equal: first === null, first };
      adopted.index.free();
    } else {
      result = { ...result, equal: null };
    }
    old.free();
    lines.push(JSON.stringify(result));
  } catch (e) {
    lines.push(JSON.stringify({ name: c.name, error: `${e?.stack ?? e}` }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
writeFileSync(out, lines.join("\n") + "\n");
