// Differential test: the wasm core (through the BUILT package in pkg/) against real pi, on every host of the matrix.
//
//   node --test tests/diff/diff.test.mjs
// env: DIFF_SEED (default: fresh, printed), DIFF_COUNT (default 600, per host generation), DIFF_KEEP=1 (keep the
//      temp dir), DIFF_LONE_SURROGATES=0 (generate no lone \udXXX escapes; same sessions otherwise),
//      DIFF_HOSTS="0.75.5 1.5.2" (the hosts to run; default and "all": every tested host), PTN_PKG=<built pkg dir>
//
// 1. tests/diff/generate.mjs writes DIFF_COUNT random sessions per host generation for a seed (printed) to a temp
//    dir: generation "0.74" for pi 0.74.2/0.75.5 (the original stream), "0.87" for pi ≥0.87 (also system messages
//    with sections and tool declarations, context_edit entries, usage entries, compactions carrying a systemMessage,
//    zero usage, null content, user images);
// 2. tests/diff/reference.mjs runs them through each pi (one process per host, at most one at a time beside this
//    one): pi 0.75.5 on Node 22 and 0.74.2 on Node 20 (buildSessionContext, estimateContextTokens); pi 0.87.1 (npm)
//    and the bundles (0.99.1 … 1.6.0) on Node 22 through their own SessionManager: the context the host
//    sends the model, estimateProjectedContextTokens (what getContextUsage() uses; cross-checked against pi's own
//    getContextUsage wherever that gives a number) and the per-anchor estimates;
//    Every OLDER_EVERY-th base session is also written in pi's version-1 format (no ids, one chain; firstKeptEntryIndex)
//    and another in version 2 (hookMessage), which every host migrates on load; the reference renames pi's random
//    v1 ids to the core's line-N (renameV1Ids), so both name entries alike;
// 3. the same files go through SessionIndex.full().appendJsonl(text) and, per leaf ("$default" = no argument,
//    pi's null = setLeaf(null) then no argument, entry ids, unknown ids), contextJson/buildContext, estimate and
//    anchors are compared deep-equal with pi's. The index is told the host's version (setHostVersion) first; the
//    wasm side runs once per (generation, profile). A plugin-mode index fed in pieces (appendJsonl chunks or
//    appendEntries) must give the same estimates and anchors, and so must the CLI's skimmed read of the file
//    (listFileBytes; null for an unknown leaf id, which the CLI refuses). Also checked: entryCount, appended, skipped line
//    numbers, leafId() after loading, tree moves (collectEntriesForBranchSummary), and on pi ≥0.87 whether the file
//    is a session at all (pi refuses to open it ⇔ loadFileBytes reports a problem).
// 4. Every tenth base session is also continued by a rewind carried out through the package (toolPlan, rewindSummary,
//    rewindFinish) and written as a session of its own: its branch summary holds the ledger of the collapsed entries
//    as the plugin writes it (tests/diff/ledgered.mjs); pi must read it like any other.
// Any mismatch fails the test; the seed, session index, leaf and first differing JSON path are printed and the
// session file plus expected/actual land in tests/diff/.out/. Missing pi hosts or an unbuilt pkg/ FAIL (no skip).
import test from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { generateBatch, resolveCount, resolveSeed } from "./generate.mjs";
import { addLedgeredSessions } from "./ledgered.mjs";
import { ALL_HOST_VERSIONS, hostAvailable, hostDir, nodeFor } from "../../scripts/hosts.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");
const outDir = join(here, ".out");
const pkgDir = resolve(process.env.PTN_PKG || join(root, "pkg"));
const seed = resolveSeed();
const count = resolveCount();
const MAX_REPORTED = 12;

/** Hosts run by default: the seven of the matrix, newest first (docs/hosts.md, "Differential tests"). */
const DEFAULT_HOSTS = [...ALL_HOST_VERSIONS].reverse();
const hosts = (() => {
  const raw = (process.env.DIFF_HOSTS ?? "").trim();
  if (!raw) return DEFAULT_HOSTS;
  if (raw === "all") return [...ALL_HOST_VERSIONS].reverse();
  const list = raw.split(/[\s,]+/).filter(Boolean);
  // An untested version is accepted when it is installed (`npm run probe` installs the newest pi and runs it here).
  for (const v of list) if (!ALL_HOST_VERSIONS.includes(v) && !hostAvailable(v)) throw new Error(`DIFF_HOSTS: unknown host ${v} (known: ${ALL_HOST_VERSIONS.join(", ")}; or install it: npm run probe)`);
  return list;
})();
/** The generation of sessions a host is tested on: what that pi writes. */
const generationOf = (version) => {
  const [maj, min] = version.split(".").map(Number);
  return maj > 0 || min >= 87 ? "0.87" : "0.74";
};

rmSync(outDir, { recursive: true, force: true }); // only this run's failures end up there
console.log(`[diff] seed ${seed} count ${count} hosts ${hosts.join(" ")}  (replay: DIFF_SEED=${seed} DIFF_COUNT=${count} DIFF_HOSTS="${hosts.join(" ")}" node --test tests/diff/diff.test.mjs)`);

// ---- shared setup: generate once per generation, run the wasm side once per (generation, profile) -------------
const work = mkdtempSync(join(tmpdir(), "ptn-diff-"));
const generations = {};
for (const g of [...new Set(hosts.map(generationOf))]) {
  const tGen = performance.now();
  const manifest = generateBatch({ seed, count, dir: join(work, `sessions-${g}`), generation: g });
  const coverage = { types: {}, features: {} };
  for (const s of manifest.sessions) {
    for (const [k, v] of Object.entries(s.types)) coverage.types[k] = (coverage.types[k] ?? 0) + v;
    for (const f of s.features) coverage.features[f] = (coverage.features[f] ?? 0) + 1;
  }
  // Sessions whose branch summaries carry the ledger as the plugin writes it (tests/diff/ledgered.mjs).
  const older = manifest.sessions.length - count;
  const ledgered = addLedgeredSessions(manifest, await loadPackage(), { hostVersion: g === "0.87" ? "1.6.0" : "0.75.5" });
  writeFileSync(join(work, `sessions-${g}`, "manifest.json"), JSON.stringify(manifest));
  console.log(`[diff] generation ${g}: ${count} sessions (+${older} of them in older formats, +${ledgered.added} continued by a rewind with a ledgered summary; ${ledgered.refused} such rewinds refused) in ${Math.round(performance.now() - tGen)} ms -> ${join(work, `sessions-${g}`)}`);
  console.log(`[diff]   entries by type: ${JSON.stringify(coverage.types)}`);
  console.log(`[diff]   sessions with: ${JSON.stringify(coverage.features)}`);
  generations[g] = { manifest, coverage, ledgered, manifestPath: join(work, `sessions-${g}`, "manifest.json") };
}
let failedAny = false;
test.after(() => {
  if (process.env.DIFF_KEEP || failedAny) console.log(`[diff] kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
});

async function loadPackage() {
  const pj = join(pkgDir, "package.json");
  if (!existsSync(pj)) {
    throw new Error(`the package is not built: ${pj} is missing. Run \`npm run build\` (or set PTN_PKG to a built pkg dir).`);
  }
  const manifestJson = JSON.parse(readFileSync(pj, "utf8"));
  let entry = manifestJson.exports?.["."];
  if (entry && typeof entry === "object") entry = entry.node ?? entry.import ?? entry.default;
  entry ??= manifestJson.main ?? "./index-node.js";
  const mod = await import(pathToFileURL(join(pkgDir, entry)).href);
  await mod.ready;
  if (typeof mod.SessionIndex?.full !== "function") throw new Error(`${join(pkgDir, entry)} does not export SessionIndex.full()`);
  return mod;
}

/**
 * Runs fn(args) for a manifest leaf with the binding's leaf convention (HACKING.md): "$default" = no argument
 * (the index's current leaf, the last entry after loading); an id = that id; pi's `null` ("before the first
 * entry") = setLeaf(null) and the current leaf, restored afterwards.
 */
function atLeaf(index, leaf, fn) {
  if (leaf !== null) return fn(leaf === "$default" ? [] : [leaf]);
  const saved = index.leafId();
  index.setLeaf(null);
  try {
    return fn([]);
  } finally {
    index.setLeaf(saved);
  }
}
const roundTrip = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
const attempt = (fn) => {
  try {
    return { ok: true, value: fn() };
  } catch (err) {
    return { ok: false, error: `${err?.code ? `[${err.code}] ` : ""}${err?.message ?? err}` };
  }
};

/** The text's lines as the host generation reads a file: pi ≤0.75 `content.trim().split("\n")` (which also
 * strips a leading BOM), pi ≥0.87 line by line as they are; with the number of lines the trim took off. */
function fileLines(text, generation) {
  if (generation !== "0.74") return { lines: text.split("\n"), offset: 0 };
  return { lines: text.trim().split("\n"), offset: text.slice(0, text.length - text.trimStart().length).split("\n").length - 1 };
}

/** Physical line numbers (1-based, like an editor) of the lines pi skips as malformed (non-blank, JSON.parse fails). */
function malformedLines(text, generation) {
  const out = [];
  const { lines, offset } = fileLines(text, generation);
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    try {
      JSON.parse(line);
    } catch {
      out.push(i + 1 + offset);
    }
  });
  return out;
}

function splitLines(text, rngSeed) {
  // Cut the file into 1–3 pieces at line boundaries (deterministic per session).
  const nl = [];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) nl.push(i + 1);
  const cuts = [...new Set([nl[rngSeed % Math.max(nl.length, 1)], nl[(rngSeed * 7 + 3) % Math.max(nl.length, 1)]])]
    .filter((c) => c !== undefined && c < text.length)
    // Not after a line that other whitespace ends (U+00A0, …): read then, it would be the file's last line,
    // which pi ≤0.75's `content.trim()` trims — as pi reading the file at that moment would.
    .filter((c) => { const t = text.slice(0, c - 1).split("\n").pop().replace(/[ \t\r]+$/, ""); return t === t.trimEnd(); })
    .sort((a, b) => a - b);
  const pieces = [];
  let prev = 0;
  for (const c of cuts) {
    pieces.push(text.slice(prev, c));
    prev = c;
  }
  pieces.push(text.slice(prev));
  return pieces.filter((p) => p.length);
}

function parsedEntries(text, generation) {
  const out = [];
  for (const line of fileLines(text, generation).lines) {
    if (!line.trim()) continue;
    try {
      const e = JSON.parse(line);
      if (e?.type !== "session") out.push(e);
    } catch {}
  }
  return out;
}

/** Everything the wasm core says about one session, per leaf (computed once, compared against every pi leg). */
function wasmSession(api, session, hostVersion, generation) {
  const text = readFileSync(session.file, "utf8");
  const full = api.SessionIndex.full();
  const plugin = api.SessionIndex.plugin();
  // The host's rules (src/session/profile.rs), as the shim sets them from the running pi's version.
  full.setHostVersion(hostVersion);
  plugin.setHostVersion(hostVersion);
  try {
    const report = attempt(() => full.appendJsonl(text));
    // A host hands the plugin its entries migrated (pi migrates on load): an older format is fed as the file.
    const viaEntries = session.index % 2 === 1 && !session.format;
    const pluginIngest = attempt(() => {
      if (viaEntries) plugin.appendEntries(parsedEntries(text, generation));
      else for (const piece of splitLines(text, session.index)) plugin.appendJsonl(piece);
    });
    const res = {
      text,
      report: report.ok ? roundTrip(report.value) : report,
      entryCount: attempt(() => full.entryCount),
      leafId: attempt(() => full.leafId()),
      pluginIngest,
      pluginMode: viaEntries ? "appendEntries" : "appendJsonl chunks",
      leaves: {},
    };
    const bytes = readFileSync(session.file);
    for (const leaf of session.leaves) {
      const key = JSON.stringify(leaf);
      const f = (fn) => attempt(() => atLeaf(full, leaf, (a) => roundTrip(fn(a))));
      const p = (fn) => attempt(() => atLeaf(plugin, leaf, (a) => roundTrip(fn(a))));
      res.leaves[key] = {
        contextJson: f((a) => JSON.parse(full.contextJson(...a))),
        buildContext: leaf === "$default" || session.index % 5 === 0 ? f((a) => full.buildContext(...a)) : null,
        estimate: f((a) => full.estimate(...a)),
        anchors: f((a) => full.anchors(...a)),
        pluginEstimate: p((a) => plugin.estimate(...a)),
        pluginAnchors: p((a) => plugin.anchors(...a)),
        // The CLI's list/tokens: the file skimmed, read in full only where the answer needs it.
        skim: attempt(() => roundTrip(api.listFileBytes(bytes, leaf === "$default" ? undefined : leaf, hostVersion).list)),
        known: leaf === null || leaf === "$default" || full.hasEntry(leaf),
      };
    }
    // Tree navigation: what a move between the last entry and each chosen leaf leaves behind.
    res.between = {};
    const last = attempt(() => full.leafId());
    for (const leaf of session.leaves) {
      if (typeof leaf !== "string" || leaf === "$default" || !last.ok || !full.hasEntry(leaf)) continue;
      for (const [oldLeaf, target] of [[last.value, leaf], [leaf, last.value]]) {
        res.between[`${oldLeaf}>${target}`] = attempt(() => roundTrip(full.entriesBetween(oldLeaf, target)));
      }
    }
    // An explicit null argument means the current leaf, same as no argument.
    res.nullArg = attempt(() => JSON.stringify([full.contextJson(null) === full.contextJson(), roundTrip(full.estimate(null)), roundTrip(full.estimate())]));
    if (generation === "0.87") {
      // Is the file a pi session at all (the CLI's and the viewer's question)? pi ≥0.87 refuses to open some.
      const fresh = api.SessionIndex.full();
      try {
        fresh.setHostVersion(hostVersion);
        res.fileProblem = attempt(() => fresh.loadFileBytes(readFileSync(session.file)).problem);
      } finally {
        fresh.free?.();
      }
    }
    return res;
  } finally {
    full.free?.();
    plugin.free?.();
  }
}

const wasmResults = new Map(); // `${generation}|${profile}` -> Map(index -> wasmSession(...))
let api;
async function wasmAll(version) {
  api ??= await loadPackage();
  const generation = generationOf(version);
  const probe = api.SessionIndex.plugin();
  const profile = probe.setHostVersion(version);
  probe.free?.();
  const key = `${generation}|${profile}`;
  if (wasmResults.has(key)) return wasmResults.get(key);
  const t0 = performance.now();
  const results = new Map();
  for (const s of generations[generation].manifest.sessions) results.set(s.index, wasmSession(api, s, version, generation));
  console.log(`[diff] wasm core, generation ${generation}, profile ${profile}: ${results.size} sessions in ${Math.round(performance.now() - t0)} ms`);
  wasmResults.set(key, results);
  return results;
}

/** Runs tests/diff/reference.mjs for one host in a child process (its own Node); resolves to its results. */
function runReference(version) {
  if (!hostAvailable(version)) {
    return Promise.reject(new Error(`pi ${version} is not installed at ${hostDir(version)}: run \`bash scripts/setup-hosts.sh\` (npm run setup).`));
  }
  const node = nodeFor(version);
  if (!existsSync(node) && node.includes("/")) return Promise.reject(new Error(`node for pi ${version} not found at ${node}: run \`bash scripts/setup-hosts.sh\`.`));
  const out = join(work, `ref-${version}.jsonl`);
  const t0 = performance.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(node, [join(here, "reference.mjs"), "--pi", hostDir(version), "--manifest", generations[generationOf(version)].manifestPath, "--out", out], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", (err) => reject(new Error(`reference for pi ${version} failed to start (${node}): ${err.message}`)));
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`reference for pi ${version} exited ${code}:\n${stderr}`));
      const lines = readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l));
      const meta = lines.shift().meta;
      console.log(`[diff] pi ${meta.piVersion} (${meta.estimateFrom}) on node ${meta.node}: ${Math.round(performance.now() - t0)} ms`);
      resolvePromise({ meta, sessions: new Map(lines.map((l) => [l.index, l])) });
    });
  });
}

// The references run one at a time in the background, in test order, while this process computes the wasm side
// (2 processes busy at most). Each leg awaits its own host's promise.
const references = new Map();
{
  let chain = Promise.resolve();
  for (const v of hosts) {
    const p = chain.then(() => runReference(v));
    p.catch(() => {}); // reported by the host's own test
    references.set(v, p);
    chain = p.catch(() => {});
  }
}

// ---- comparison ----------------------------------------------------------------------------------------------
function firstDiff(expected, actual, path = "$") {
  if (Object.is(expected, actual)) return null;
  const te = Array.isArray(expected) ? "array" : expected === null ? "null" : typeof expected;
  const ta = Array.isArray(actual) ? "array" : actual === null ? "null" : typeof actual;
  if (te !== ta || te !== "object" && te !== "array") return { path, expected, actual };
  if (te === "array") {
    for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
      if (i >= expected.length || i >= actual.length) return { path: `${path}.length`, expected: expected.length, actual: actual.length };
      const d = firstDiff(expected[i], actual[i], `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
  for (const k of keys) {
    const p = `${path}.${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}`;
    if (!(k in actual)) return { path: p, expected: expected[k], actual: "<missing>" };
    if (!(k in expected)) return { path: p, expected: "<missing>", actual: actual[k] };
    const d = firstDiff(expected[k], actual[k], p);
    if (d) return d;
  }
  return null;
}

const short = (v) => {
  const s = typeof v === "string" ? JSON.stringify(v) : JSON.stringify(v) ?? String(v);
  return s.length > 240 ? s.slice(0, 240) + `… (${s.length} chars)` : s;
};

function compareLeg(version, ref, wasm) {
  const { manifest } = generations[generationOf(version)];
  const mismatches = [];
  const add = (index, leaf, what, expected, actual) => {
    const d = firstDiff(expected, actual);
    if (d) mismatches.push({ index, leaf, what, diff: d, expected, actual });
  };
  for (const s of manifest.sessions) {
    const r = ref.sessions.get(s.index);
    const w = wasm.get(s.index);
    if (!r || r.error) {
      mismatches.push({ index: s.index, leaf: null, what: "reference", diff: { path: "$", expected: "pi result", actual: r?.error ?? "missing" } });
      continue;
    }
    if (w.report.ok === false) {
      add(s.index, null, "appendJsonl", "no throw", w.report.error);
      continue;
    }
    if (w.fileProblem) {
      const problem = w.fileProblem.ok ? w.fileProblem.value : `<threw ${w.fileProblem.error}>`;
      add(s.index, null, "file is a session (pi opens it ⇔ loadFileBytes problem null)", r.invalid ? "not a session" : "a session", problem === null ? "a session" : "not a session");
    }
    if (r.invalid) continue; // pi cannot open it: nothing more to compare
    // ingest facts: every entry pi holds is held, malformed lines are reported by their 1-based line number
    add(s.index, null, "entryCount", r.entryCount, w.entryCount.ok ? w.entryCount.value : w.entryCount.error);
    add(s.index, null, "appended", r.entryCount, w.report.appended);
    add(s.index, null, "skipped lines", malformedLines(w.text, generationOf(version)), (w.report.skipped ?? []).map((x) => x.line));
    add(s.index, null, "leafId()", r.lastEntryId, w.leafId.ok ? w.leafId.value : w.leafId.error);
    if (!w.pluginIngest.ok) add(s.index, null, `plugin ${w.pluginMode}`, "no throw", w.pluginIngest.error);
    if (w.nullArg.ok) {
      const [sameContext, estNull, estNone] = JSON.parse(w.nullArg.value);
      add(s.index, null, "contextJson(null) = contextJson()", true, sameContext);
      add(s.index, null, "estimate(null) = estimate()", estNone, estNull);
    } else add(s.index, null, "null leaf argument", "no throw", w.nullArg.error);
    for (const b of r.between ?? []) {
      const got = w.between[`${b.oldLeaf}>${b.target}`];
      add(s.index, b.target, `entriesBetween(${b.oldLeaf}, ${b.target})`, { entryIds: b.entryIds, commonAncestorId: b.commonAncestorId }, got?.ok ? got.value : got?.error ?? "<not computed>");
    }
    for (const rr of r.results) {
      const wl = w.leaves[JSON.stringify(rr.leaf)];
      const val = (x) => (x.ok ? x.value : `<threw ${x.error}>`);
      const anchorsOf = (list) => (Array.isArray(list) ? list.map(({ name, entryId, tokens }) => ({ name, entryId, tokens })) : list);
      // Strings leave the core well-formed: an unpaired surrogate in a label reads as U+FFFD (counts stay exact).
      const piAnchors = rr.anchors.map((a) => ({ ...a, name: a.name.toWellFormed() }));
      if (rr.usageCheck) add(s.index, rr.leaf, "pi: getContextUsage() = estimateProjectedContextTokens", rr.usageCheck.getContextUsage, rr.usageCheck.estimate);
      add(s.index, rr.leaf, "contextJson", rr.context, val(wl.contextJson));
      if (wl.buildContext) add(s.index, rr.leaf, "buildContext", rr.context, val(wl.buildContext));
      add(s.index, rr.leaf, "estimate", rr.estimate, val(wl.estimate));
      add(s.index, rr.leaf, "anchors", piAnchors, anchorsOf(val(wl.anchors)));
      add(s.index, rr.leaf, `plugin estimate (${w.pluginMode})`, rr.estimate, val(wl.pluginEstimate));
      add(s.index, rr.leaf, `plugin anchors (${w.pluginMode})`, piAnchors, anchorsOf(val(wl.pluginAnchors)));
      const skim = val(wl.skim);
      if (wl.known) {
        add(s.index, rr.leaf, "skimmed estimate (listFileBytes)", rr.estimate, skim?.estimate ?? skim);
        add(s.index, rr.leaf, "skimmed anchors (listFileBytes)", piAnchors, anchorsOf(skim?.anchors ?? skim));
        // pi has no previews: the skim's must be the full index's.
        const hints = (list) => (Array.isArray(list) ? list.map((a) => a.hint) : list);
        add(s.index, rr.leaf, "skimmed anchor hints = full index's", hints(val(wl.anchors)), hints(skim?.anchors ?? skim));
      } else add(s.index, rr.leaf, "skimmed list of an unknown leaf id", null, skim);
      if (wl.anchors.ok && Array.isArray(wl.anchors.value)) {
        for (const a of wl.anchors.value) {
          if (!(a.hint === null || typeof a.hint === "string")) add(s.index, rr.leaf, "anchor hint type", "string|null", a.hint);
        }
      }
    }
  }
  return mismatches;
}

function report(version, mismatches) {
  if (!mismatches.length) return;
  const { manifest } = generations[generationOf(version)];
  failedAny = true;
  mkdirSync(outDir, { recursive: true });
  const bySession = new Map();
  for (const m of mismatches) if (!bySession.has(m.index)) bySession.set(m.index, m);
  const lines = [`pi ${version}: ${mismatches.length} mismatches in ${bySession.size}/${manifest.sessions.length} sessions (seed ${seed})`];
  const kinds = {};
  for (const m of mismatches) kinds[m.what] = (kinds[m.what] ?? 0) + 1;
  lines.push(`  by kind: ${JSON.stringify(kinds)}`);
  let shown = 0;
  for (const [index, m] of bySession) {
    const session = manifest.sessions[index];
    const base = `seed-${seed}-g${generationOf(version)}-s${String(index).padStart(4, "0")}`;
    const dest = join(outDir, `${base}.jsonl`);
    copyFileSync(session.file, dest);
    const all = mismatches.filter((x) => x.index === index);
    writeFileSync(join(outDir, `${base}.pi-${version}.json`), JSON.stringify(all.map(({ leaf, what, diff, expected, actual }) => ({ leaf, what, diff, expected, actual })), null, 1));
    if (shown++ < MAX_REPORTED) {
      lines.push(
        `  session ${index} leaf ${JSON.stringify(m.leaf)} ${m.what} at ${m.diff.path}\n` +
          `      pi:   ${short(m.diff.expected)}\n      wasm: ${short(m.diff.actual)}\n` +
          `      file: ${dest}  (regenerate: node tests/diff/generate.mjs --seed ${seed} --generation ${generationOf(version)} --only ${session.base ?? index}${session.format ? ` --format ${session.format}` : ""} --out DIR)`,
      );
    }
  }
  if (bySession.size > MAX_REPORTED) lines.push(`  … ${bySession.size - MAX_REPORTED} more sessions in ${outDir}`);
  return lines.join("\n");
}

async function leg(version) {
  const wasm = await wasmAll(version);
  const ref = await references.get(version);
  const { manifest, ledgered } = generations[generationOf(version)];
  const mismatches = compareLeg(version, ref, wasm);
  const leaves = manifest.sessions.reduce((a, s) => a + s.leaves.length, 0);
  const anchors = [...ref.sessions.values()].reduce((a, s) => a + (s.results ?? []).reduce((b, r) => b + r.anchors.length, 0), 0);
  const moves = [...ref.sessions.values()].reduce((a, s) => a + (s.between ?? []).length, 0);
  const checked = [...ref.sessions.values()].reduce((a, s) => a + (s.results ?? []).filter((r) => r.usageTokens !== null && r.usageTokens !== undefined).length, 0);
  const invalid = [...ref.sessions.values()].filter((s) => s.invalid).length;
  console.log(
    `[diff] pi ${version}: ${manifest.sessions.length} sessions (generation ${generationOf(version)}; ${manifest.sessions.filter((s) => s.format).length} in pi's v1/v2 formats, ${manifest.sessions.filter((s) => s.ledgered).length} holding a ledgered summary), ${leaves} leaves, ${anchors} anchors, ${moves} tree moves (entriesBetween) compared` +
      (generationOf(version) === "0.87" ? `, ${checked} leaves with getContextUsage() cross-checked, ${invalid} files pi does not open` : "") +
      `, ${mismatches.length} mismatches`,
  );
  assert.ok(moves > count, `too few tree moves compared (${moves}): is collectEntriesForBranchSummary exported by pi ${version}?`);
  // Refused rewinds are only counted: were they all refused, no ledgered summary would be compared at all.
  assert.ok(ledgered.added > 0, `no session holds a ledgered summary (${ledgered.refused} such rewinds refused): the ledger went unchecked against pi ${version}`);
  const text = report(version, mismatches);
  if (text) assert.fail(text);
}

const MUST_COVER = {
  "0.74": [
    "message:user", "message:assistant", "message:toolResult", "message:bashExecution", "message:custom", "message:system",
    "thinking_level_change", "model_change", "compaction", "branch_summary", "custom", "custom_message", "label",
    "session_info", "usage", "context_edit",
  ],
  "0.87": ["message:system", "usage", "context_edit", "compaction", "branch_summary", "label", "custom_message", "message:toolResult"],
};
const MUST_FEATURE = {
  "0.74": ["malformed", "crlf", "blank", "swapped", "format-v1", "format-v2", "v1-compaction"],
  "0.87": ["context-edit", "context-edit-null", "compaction-systemMessage", "zero-usage", "null-content", "user-image", "format-v1", "format-v2", "v1-compaction"],
};
for (const [g, { coverage }] of Object.entries(generations)) {
  test(`generator covers every entry type, generation ${g} (needs DIFF_COUNT >= 300)`, { skip: count < 300 && `only ${count} sessions` }, () => {
    const missing = MUST_COVER[g].filter((t) => !coverage.types[t]);
    assert.deepStrictEqual(missing, [], `seed ${seed}: no ${missing.join(", ")} generated`);
    for (const f of MUST_FEATURE[g]) assert.ok(coverage.features[f], `seed ${seed}: no session with ${f}`);
  });
}

for (const v of hosts) {
  test(`differential: wasm core vs pi ${v} on Node ${v < "0.75" ? 20 : 22}`, { timeout: 8 * 60_000 }, () => leg(v));
}
