// Compaction from the prompt cache vs pi's own (issue 31): prompt tokens each compaction's summary request(s) send
// fresh vs read from the provider's cache, for one long generated run that compacts several times.
//
//   node tests/bench/compaction-bench.mjs [--host 1.6.0] [--seed 7] [--profile tools|prose]
//
// A manual run (not in `npm test` or `npm run bench`). Two generated runs (a seeded generator), each one prompt and
// then tool calls until pi has compacted several times: `tools` — 160 calls whose results are 2k–40k characters (pi's
// own request cuts each to 2,000), a short text before some; `prose` — 520 calls whose results are 0.5k–1.9k
// characters (pi keeps them whole), each after 1k–3k characters of the model's text. In real pi (`--host`, ≥0.87) on pi's
// own Anthropic provider (message threads where pi has them) against the local mock (tests/e2e/lib/mock-api.mjs),
// which accounts the prompt cache from the bytes (≈4 characters a token). pi's default compaction settings (reserve
// 16,384, keep 20,000) on a 200k window. It runs twice with the same conversation: with the plugin (ours), and with
// PI_TREE_NAVIGATOR_NO_CACHE_COMPACTION=1 (pi's own cold request: its summarization prompt and the conversation
// serialized, tool results cut at 2,000 characters; two requests for a split turn). Each compaction's row: pi's
// `tokensBefore`, then per side the prompt tokens not read from the cache (input + cache writes) and read from it,
// and what that costs at Anthropic's Sonnet prices (input $3, cache write $3.75, cache read $0.30 per million).
// The numbers are token counts, not timings: the machine's load does not change them (printed anyway).
import { loadavg } from "node:os";
import { join } from "node:path";
import { FIXTURES, PKG_DIR, runDemoUnderHostNode } from "../e2e/lib/hosts.mjs";
// A seeded generator (mulberry32): the same run on both sides.
import { rng } from "./rng.mjs";

const argv = process.argv.slice(2);
const opt = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const HOST = opt("--host", "1.6.0");
const SEED = Number(opt("--seed", "7"));
const PROFILES = {
  tools: { calls: 160, result: [2000, 40000], text: [0, 0], textShare: 0.3, what: "results 2k–40k chars (pi's own request cuts each to 2,000)" },
  prose: { calls: 520, result: [500, 1900], text: [1000, 3000], textShare: 1, what: "results 0.5k–1.9k chars after 1k–3k chars of the model's text (pi keeps them whole)" },
};
const ONLY = opt("--profile", null);
runDemoUnderHostNode(HOST, argv);
process.env.PTN_HOST_VERSION = HOST;
for (const k of ["PI_TREE_NAVIGATOR_NO_START_ANCHOR", "PI_TREE_NAVIGATOR_NO_HINT", "PI_TREE_NAVIGATOR_NO_CACHE_SUMMARY", "PI_TREE_NAVIGATOR_NO_CACHE_COMPACTION"]) delete process.env[k];
// The hint would steer the model to rewind; this run is about pi's compaction when nothing rewinds.
process.env.PI_TREE_NAVIGATOR_NO_HINT = "1";
const { createSession, loadHost } = await import("../e2e/lib/harness.mjs");
const { startAnthropicMock } = await import("../e2e/lib/mock-api.mjs");
const { WireModel } = await import("../e2e/lib/wire.mjs");
const { compareVersions } = await import("../../js/tested-hosts.js");
const host = await loadHost(HOST);

const WINDOW = 200000;
const MARK = "Write a context checkpoint instead";
const COLD_MARK = "context summarization assistant";
// A realistic checkpoint: ~1,500 characters in pi's sections.
const SUMMARY = ["## Goal", "Audit the service logs and fix the failing parser.", "", "## Constraints & Preferences", "- keep the public API", "", "## Progress", "### Done",
  ...Array.from({ length: 12 }, (_, i) => `- [x] read logs/part-${i}.txt: ${"noted the error codes and the timings ".repeat(2)}`), "", "### In Progress", "- [ ] the parser fix", "",
  "## Key Decisions", "- **Parse lazily**: the logs are large", "", "## Next Steps", "1. fix src/parser.rs:42", "", "## Critical Context", "- error[E0308] at src/parser.rs:42:7"].join("\n");
const PRICE = { input: 3, cacheWrite: 3.75, cacheRead: 0.3 }; // $ per million tokens


function script(profile) {
  const r = rng(SEED);
  const between = (lo, hi) => Math.round(lo + r() * (hi - lo));
  const out = [];
  for (let i = 0; i < profile.calls; i++) {
    const chars = between(...profile.result);
    const words = between(...profile.text);
    const text = r() < profile.textShare ? (words ? `Part ${i}: ${"the parser keeps failing on nested blocks, so I read on. ".repeat(Math.ceil(words / 56))}`.slice(0, words) : `Part ${i} read; moving on.`) : null;
    out.push({ ...(text ? { text } : {}), calls: [{ name: "bulk_read", input: { chars, tag: `part-${i}`, numbered: true } }] });
  }
  out.push({ text: "All parts read." });
  return out;
}

const textOf = (m) => (typeof m?.content === "string" ? m.content : (m?.content ?? []).map((b) => b.text ?? (typeof b.content === "string" ? b.content : "")).join(""));

/** One run; returns the compactions: pi's tokensBefore and the usage of the summary request(s) of each. */
async function run(profile, ours) {
  if (ours) delete process.env.PI_TREE_NAVIGATOR_NO_CACHE_COMPACTION;
  else process.env.PI_TREE_NAVIGATOR_NO_CACHE_COMPACTION = "1";
  const main = script(profile);
  const mock = await startAnthropicMock({
    replies(record) {
      if (record.body.max_tokens === 1) return (record.kind = "warm", { text: "." });
      if (textOf(record.full.messages.at(-1)).includes(MARK)) return (record.kind = "summary", { text: SUMMARY });
      if (JSON.stringify(record.full.system ?? "").includes(COLD_MARK)) return (record.kind = "summary", { text: SUMMARY });
      record.kind = "main";
      return main.shift() ?? { text: "(script exhausted)" };
    },
  });
  const threads = compareVersions(HOST, "1.5.1") >= 0;
  const model = new WireModel({ api: "anthropic-messages", baseUrl: mock.url, compat: threads ? { supportsMessageThreads: true } : undefined, contextWindow: WINDOW });
  const s = await createSession(host, model, {
    extensions: [PKG_DIR, join(FIXTURES, "bulk-ext/index.js")],
    tools: ["navigate_tree", "bulk_read"],
    compaction: { enabled: true, reserveTokens: 16384, keepRecentTokens: 20000 },
  });
  try {
    await s.session.prompt("Read every part of the logs.");
    for (const end = Date.now() + 10000; Date.now() < end && s.session.isCompacting; ) await new Promise((r) => setTimeout(r, 20));
    // The summary request(s) of one compaction: a run of them between two main requests.
    const groups = [];
    let open = null;
    for (const r of mock.requests) {
      if (r.kind === "summary") (open ??= groups[groups.push([]) - 1]).push(r);
      else if (r.kind === "main") open = null;
    }
    const entries = s.sm.getEntries().filter((e) => e.type === "compaction");
    if (entries.length !== groups.length) throw new Error(`${entries.length} compactions, ${groups.length} summary request groups`);
    if (mock.violations.length) throw new Error(`API rule violations: ${mock.violations.join("; ")}`);
    return entries.map((e, i) => {
      const u = groups[i].map((r) => r.usage).reduce((a, x) => ({
        fresh: a.fresh + x.input_tokens + x.cache_creation_input_tokens,
        write: a.write + x.cache_creation_input_tokens,
        input: a.input + x.input_tokens,
        read: a.read + x.cache_read_input_tokens,
      }), { fresh: 0, write: 0, input: 0, read: 0 });
      const cost = (u.input * PRICE.input + u.write * PRICE.cacheWrite + u.read * PRICE.cacheRead) / 1e6;
      return { tokensBefore: e.tokensBefore, fromHook: e.fromHook === true, requests: groups[i].length, ...u, cost };
    });
  } finally {
    s.dispose();
    await mock.close();
  }
}

const k = (n) => (n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n));
const usd = (x) => `$${x.toFixed(3)}`;
const pct = (a, b) => (b > 0 ? `${((100 * a) / b).toFixed(1)}%` : "—");
const lines = [`pi ${HOST} (Node ${process.versions.node}), seed ${SEED}, 200k window, pi's default compaction settings (reserve 16,384, keep 20,000); load ${loadavg().map((x) => x.toFixed(2)).join(" ")}`];
for (const [name, profile] of Object.entries(PROFILES)) {
  if (ONLY && ONLY !== name) continue;
  const theirs = await run(profile, false);
  const mine = await run(profile, true);
  lines.push("", `**${name}**: ${profile.calls} tool calls, ${profile.what}`, "");
  lines.push("| compaction | pi's tokensBefore | pi's own: fresh | from cache | cost | ours: fresh | from cache | read from cache | cost |");
  lines.push("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  const n = Math.min(theirs.length, mine.length);
  for (let i = 0; i < n; i++) {
    const [a, b] = [theirs[i], mine[i]];
    lines.push(`| ${i + 1}${a.requests > 1 ? ` (pi: ${a.requests} requests)` : ""}${b.fromHook ? "" : " (ours fell back)"} | ${k(a.tokensBefore)} | ${k(a.fresh)} | ${k(a.read)} | ${usd(a.cost)} | ${k(b.fresh)} | ${k(b.read)} | ${pct(b.read, b.read + b.fresh)} | ${usd(b.cost)} |`);
  }
  const sum = (xs, f) => xs.slice(0, n).reduce((acc, x) => acc + f(x), 0);
  lines.push(`| **all ${n}** | | **${k(sum(theirs, (x) => x.fresh))}** | ${k(sum(theirs, (x) => x.read))} | **${usd(sum(theirs, (x) => x.cost))}** | **${k(sum(mine, (x) => x.fresh))}** | ${k(sum(mine, (x) => x.read))} | ${pct(sum(mine, (x) => x.read), sum(mine, (x) => x.read + x.fresh))} | **${usd(sum(mine, (x) => x.cost))}** |`);
  if (theirs.length !== mine.length) lines.push("", `(pi's own run compacted ${theirs.length} times, ours ${mine.length}: the table pairs the first ${n})`);
}
console.log(lines.join("\n"));
