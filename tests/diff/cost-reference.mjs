// Reference runner for the cost model: what pi 1.6.0's own functions compute for session files.
//
//   <node 22> tests/diff/cost-reference.mjs --pi <host dir of pi ≥1.6 (a tarball bundle)> --files <files.json>
//
// <files.json>: an array of session file paths. Output on stdout, one JSON object per line: first {meta}, then
// per file {file, tokens, cost, breakdown, waste, misses} or {file, error}:
//   tokens, cost = AgentSession.prototype.getSessionStats() (what pi's /session shows), run with just the session
//                  manager (SessionManager.open on a copy of the file: pi may repair it)
//   breakdown    = getUsageCostBreakdown(sm.getEntries())
//   waste        = computeCacheWaste(sm.getEntries(), models); misses = collectCacheMisses(…) as
//                  [{entryId, missedTokens, missedCost}] in file order
// `models` stands for pi's model registry, which pi asks for a model's cache-read price when a request read
// nothing from the cache: here the latest price per token the file itself recorded for that provider/model
// (cost.cacheRead ÷ cacheRead, both > 0; in pi's unit, USD per million tokens), the rule the cost model uses.
//
// getUsageCostBreakdown is exported by its bundle chunk; computeCacheWaste and collectCacheMisses are not, so their
// chunk is loaded through a module hook that appends one export line — the very functions pi runs, nothing copied.
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { exportFromChunk } from "./reference.mjs";

function arg(name) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** The chunk of `chunks` whose text defines `function <name>(`. */
function chunkDefining(chunks, name) {
  const found = readdirSync(chunks).filter((f) => f.endsWith(".js") && readFileSync(join(chunks, f), "utf8").includes(`function ${name}(`));
  if (found.length !== 1) throw new Error(`${found.length} chunks of ${chunks} define ${name}`);
  return join(chunks, found[0]);
}

/** pi 1.6.0's functions from its bundle. */
export async function loadPiCost(hostDir) {
  const bundle = join(hostDir, "package", "dist", "bundle");
  if (!existsSync(join(bundle, "index.js"))) throw new Error(`no bundle in ${hostDir}`);
  const chunks = join(bundle, "chunks");
  const wasteChunk = chunkDefining(chunks, "computeCacheWaste");
  const wasteUrl = pathToFileURL(wasteChunk).href;
  exportFromChunk(wasteUrl, "computeCacheWaste as __ptnComputeCacheWaste, collectCacheMisses as __ptnCollectCacheMisses");
  const pi = await import(pathToFileURL(join(bundle, "index.js")).href);
  const waste = await import(wasteUrl);
  const breakdown = await import(pathToFileURL(chunkDefining(chunks, "getUsageCostBreakdown")).href);
  const version = JSON.parse(readFileSync(join(hostDir, "package", "package.json"), "utf8")).version;
  for (const [name, fn] of [["getUsageCostBreakdown", breakdown.getUsageCostBreakdown], ["computeCacheWaste", waste.__ptnComputeCacheWaste], ["getSessionStats", pi.AgentSession?.prototype?.getSessionStats]]) {
    if (typeof fn !== "function") throw new Error(`pi ${version}: ${name} not reachable`);
  }
  return {
    SessionManager: pi.SessionManager,
    getSessionStats: pi.AgentSession.prototype.getSessionStats,
    getUsageCostBreakdown: breakdown.getUsageCostBreakdown,
    computeCacheWaste: waste.__ptnComputeCacheWaste,
    collectCacheMisses: waste.__ptnCollectCacheMisses,
    meta: { piVersion: version, node: process.version },
  };
}

/** A model registry that knows each model's latest cache-read price recorded in `entries` (see the header). */
export function registryFrom(entries) {
  const prices = new Map();
  for (const e of entries) {
    const at = e.type === "message" && e.message?.role === "assistant" ? e.message : e.type === "usage" ? e : null;
    const u = at?.usage;
    if (u && u.cacheRead > 0 && u.cost?.cacheRead > 0) prices.set(`${at.provider}/${at.model}`, (u.cost.cacheRead / u.cacheRead) * 1e6);
  }
  return { getModel: (provider, model) => (prices.has(`${provider}/${model}`) ? { cost: { cacheRead: prices.get(`${provider}/${model}`) } } : undefined) };
}

export function computeCost(pi, file, tmpDir) {
  const copy = join(tmpDir, basename(file));
  copyFileSync(file, copy);
  try {
    const sm = pi.SessionManager.open(copy, tmpDir);
    const entries = sm.getEntries();
    const stats = pi.getSessionStats.call({ sessionManager: sm, sessionFile: copy, sessionId: "cost", getContextUsage: () => undefined });
    const models = registryFrom(entries);
    const misses = pi.collectCacheMisses(entries, models);
    const byMessage = new Map(entries.filter((e) => e.type === "message").map((e) => [e.message, e.id]));
    return {
      tokens: stats.tokens,
      cost: stats.cost,
      breakdown: pi.getUsageCostBreakdown(entries),
      waste: pi.computeCacheWaste(entries, models),
      misses: [...misses].map(([message, m]) => ({ entryId: byMessage.get(message), missedTokens: m.missedTokens, missedCost: m.missedCost })),
    };
  } finally {
    rmSync(copy, { force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const hostDir = arg("--pi");
  const files = JSON.parse(readFileSync(arg("--files"), "utf8"));
  const pi = await loadPiCost(hostDir);
  const tmpDir = mkdtempSync(join(tmpdir(), "ptn-cost-ref-"));
  process.stdout.write(JSON.stringify({ meta: pi.meta }) + "\n");
  for (const file of files) {
    let out;
    try {
      out = { file, ...computeCost(pi, file, tmpDir) };
    } catch (err) {
      out = { file, error: String(err?.stack ?? err) };
    }
    process.stdout.write(JSON.stringify(out) + "\n");
  }
  rmSync(tmpDir, { recursive: true, force: true });
}
