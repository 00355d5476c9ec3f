// Differential test of the cost model (src/cost/, through the BUILT package in pkg/): on every file in
// ../shared/real-sessions (read in place; skipped only when that folder is absent) and on generated sessions
// with usage entries, tool-result usage and summary usage (tests/diff/cost-sessions.mjs),
//   cost.total, cost.byModel, cost.cacheMisses  =  pi 1.6.0's own getSessionStats / getUsageCostBreakdown /
//                                                   computeCacheWaste on the same file (tests/diff/cost-reference.mjs)
//   cost.messages                               =  @ccusage/pi 18.0.11's `session --json` (usd within 1e-6, tokens exact)
//
//   node --test tests/diff/cost.test.mjs      env: COST_SEED (default: fresh, printed), COST_COUNT (default 60)
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { writeCostSessions } from "./cost-sessions.mjs";
import { hostAvailable, hostDir, nodeFor } from "../../scripts/hosts.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");
const pkgDir = resolve(process.env.PTN_PKG || join(root, "pkg"));
const realDir = resolve(root, "..", "shared", "real-sessions");
const seed = Number(process.env.COST_SEED) || Math.floor(Math.random() * 2 ** 31);
const count = Number(process.env.COST_COUNT) || 60;
const HOST = "1.6.0";
const ccusage = join(root, "node_modules", "@ccusage", "pi", "dist", "index.js");

console.log(`[cost] seed ${seed} count ${count}  (replay: COST_SEED=${seed} COST_COUNT=${count} node --test tests/diff/cost.test.mjs)`);
const work = mkdtempSync(join(tmpdir(), "ptn-cost-"));
let failed = false;
test.after(() => {
  if (failed) console.log(`[cost] kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
});

const { SessionIndex, ready } = await import(pathToFileURL(join(pkgDir, "index-node.js")).href);
await ready;

/** Our report for a file (the CLI's way: a facts-only index of the file's bytes). */
function ours(file) {
  const index = SessionIndex.plugin();
  try {
    index.loadFileBytes(readFileSync(file));
    return index.cost();
  } finally {
    index.free();
  }
}

/** pi 1.6.0's numbers for each file, by path (one Node 22 process for all of them). */
function reference(files) {
  const list = join(work, `files-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(list, JSON.stringify(files));
  const r = spawnSync(nodeFor(HOST), [join(here, "cost-reference.mjs"), "--pi", hostDir(HOST), "--files", list], { encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`cost-reference.mjs failed (${r.status}): ${r.stderr}`);
  const [meta, ...rows] = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(meta.meta.piVersion, HOST);
  return new Map(rows.map((row) => [row.file, row]));
}

/** @ccusage/pi's `session --json` for each file (one run over a folder of links, one project folder per file). */
function ccusageSessions(files) {
  const dir = join(work, `cc-${Math.random().toString(36).slice(2)}`);
  files.forEach((file, i) => {
    mkdirSync(join(dir, "sessions", `p${i}`), { recursive: true });
    symlinkSync(file, join(dir, "sessions", `p${i}`, `s_f${i}.jsonl`));
  });
  const r = spawnSync(process.execPath, [ccusage, "session", "--json", "--piPath", join(dir, "sessions")], { encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`ccusage-pi failed (${r.status}): ${r.stderr}`);
  const out = JSON.parse(r.stdout);
  const sessions = Array.isArray(out) ? [] : out.sessions;
  return new Map(files.map((file, i) => [file, sessions.find((s) => s.sessionId === `f${i}`) ?? null]));
}

/** Compares one file; returns the differences as text (empty: equal). */
function compare(file, cost, ref, cc) {
  const diffs = [];
  const eq = (what, a, b) => {
    if (!Object.is(a, b)) diffs.push(`${what}: ours ${JSON.stringify(a)}, reference ${JSON.stringify(b)}`);
  };
  const usd = (x) => (cost.priced ? x : x === 0 ? null : x); // without prices pi sums 0 and we show none
  if (ref.error) return [`pi failed: ${ref.error}`];
  eq("unpriced", cost.unpriced, 0);
  for (const k of ["input", "output", "cacheRead", "cacheWrite"]) eq(`total.${k}`, cost.total[k], ref.tokens[k]);
  eq("total.usd", cost.total.usd, usd(ref.cost));
  eq("byModel.length", cost.byModel.length, ref.breakdown.length);
  ref.breakdown.forEach((b, i) => {
    const m = cost.byModel[i] ?? {};
    eq(`byModel[${i}].key`, m.key, b.key);
    eq(`byModel[${i}].tokens`, m.tokens, b.tokens);
    eq(`byModel[${i}].usd`, m.usd, usd(b.cost));
  });
  eq("cacheMisses.count", cost.cacheMisses.count, ref.waste.missCount);
  eq("cacheMisses.tokens", cost.cacheMisses.tokens, ref.waste.missedTokens);
  // pi reads a registry price in USD per million tokens (÷ 1e6 again): a last-bit difference is the unit's.
  const close = (a, b) => a === b || (a !== null && Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b)));
  if (!close(cost.cacheMisses.usd, usd(ref.waste.missedCost))) eq("cacheMisses.usd", cost.cacheMisses.usd, usd(ref.waste.missedCost));
  eq("cacheMisses.items", JSON.stringify(cost.cacheMisses.items.map((m) => [m.entryId, m.tokens])), JSON.stringify(ref.misses.map((m) => [m.entryId, m.missedTokens])));
  // @ccusage/pi: assistant messages only. A file without any assistant usage is no session to it.
  const mine = cost.messages;
  if (cc === null) {
    eq("messages.requests (ccusage saw none)", mine.requests, 0);
  } else {
    eq("messages.input", mine.input, cc.inputTokens);
    eq("messages.output", mine.output, cc.outputTokens);
    eq("messages.cacheRead", mine.cacheRead, cc.cacheReadTokens);
    eq("messages.cacheWrite", mine.cacheWrite, cc.cacheCreationTokens);
    const usdMine = mine.usd ?? 0;
    if (!(Math.abs(usdMine - cc.totalCost) <= 1e-6)) eq("messages.usd", mine.usd, cc.totalCost);
    if (!cost.priced) eq("messages.usd (no prices)", mine.usd, null);
  }
  return diffs;
}

function check(t, files) {
  const refs = reference(files);
  const cc = ccusageSessions(files);
  const failures = [];
  for (const file of files) {
    const diffs = compare(file, ours(file), refs.get(file), cc.get(file));
    if (diffs.length) failures.push(`${basename(file)}:\n  ${diffs.slice(0, 8).join("\n  ")}`);
  }
  t.diagnostic(`${files.length} files, ${files.length - failures.length} equal`);
  if (failures.length) failed = true;
  assert.deepEqual(failures, [], failures.slice(0, 6).join("\n"));
}

const skipHost = !hostAvailable(HOST) && `pi ${HOST} is not installed (npm run setup)`;

test("the cost of every real session equals pi 1.6.0's and @ccusage/pi's", { skip: skipHost || (!existsSync(realDir) && `${realDir} is absent`) }, (t) => {
  const files = readdirSync(realDir).filter((f) => f.endsWith(".jsonl")).map((f) => join(realDir, f));
  assert.ok(files.length > 0, `no sessions in ${realDir}`);
  check(t, files);
});

test("the cost of generated sessions equals pi 1.6.0's and @ccusage/pi's", { skip: skipHost }, (t) => {
  const files = writeCostSessions({ seed, count, dir: join(work, "generated") });
  check(t, files);
  // The generator gives every kind of money (else the comparison above proves less than it says).
  const reports = files.map(ours);
  const has = (f) => reports.some(f);
  assert.ok(has((c) => c.summaries.recorded > 0), "a summary entry with usage");
  assert.ok(has((c) => c.byModel.some((m) => m.key === "Tools/summaries")), "tool results or summaries with usage");
  assert.ok(has((c) => c.cacheMisses.count > 0), "a cache miss");
  assert.ok(has((c) => (c.abandoned.usd ?? 0) > 0), "money on an abandoned branch");
  assert.ok(has((c) => c.byModel.some((m) => m.key.endsWith("-2026"))), "a responseModel key");
});
