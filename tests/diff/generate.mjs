// Random but valid pi session files (JSONL), deterministic from a seed.
//
//   node tests/diff/generate.mjs --out DIR [--seed N] [--count N] [--generation 0.74|0.87]   (env DIFF_SEED / DIFF_COUNT too)
//
// Writes DIR/s<index>.jsonl plus DIR/manifest.json = {seed, count, sessions:[{index, file, leaves, entryCount}]}.
// Session <i> only depends on (seed, i), so one failing session can be regenerated alone.
// Leaves in the manifest: "$default" = no leaf argument (pi: last entry), null = before the first entry,
// any other string = that entry id (ids not in the file test pi's fallback to the last entry).
//
// What it covers (see tests/fixtures/README.md for the hand-shaped counterparts): every entry type pi 0.75.5
// writes, the newer `usage`/`context_edit` types and unknown ones; user/assistant/toolResult/bashExecution/
// custom(/system, branchSummary) messages; images; aborted/error/length stops; usage with totalTokens 0;
// tool-call arguments with nested JSON, escapes, lone surrogates and number spellings JS re-formats (1e21,
// -0, 1.0, big ints); rewinds (plain and with branch_summary, fromId old/new style, empty summary), resets to
// no leaf, labels (set/move/clear with ""/null/missing, unknown targets, anchor:*), compactions with
// firstKeptEntryId on/off the path or unknown; astral chars, ZWJ emoji, combining marks, U+2028, BOM-in-text;
// non-canonical JSON spelling (spaces, \u escapes, "\/"), CRLF files, blank and malformed lines, a leading BOM,
// padded lines (JSON's whitespace, and U+00A0, VT, U+3000, U+2028, U+FEFF, U+0085), whitespace at the file's ends,
// blank lines of Unicode spaces, adjacent lines swapped (children before parents), duplicate ids (never forming a cycle: pi would
// loop forever), a second `session` line, date-only and invalid timestamps, orphans and missing parentId keys.
// Env DIFF_LONE_SURROGATES=0 leaves lone surrogates out (same random stream otherwise).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { fileIds } from "./reference.mjs";

export const DEFAULT_COUNT = 600;
/** DIFF_LONE_SURROGATES=0 leaves out lone surrogates (\udXXX escapes) without changing anything else. */
const LONE_SURROGATES = process.env.DIFF_LONE_SURROGATES !== "0";
/** s.slice(0, n) by UTF-16 index, like pi's truncation (may split a pair unless lone surrogates are off). */
const cut = (s, n) => (!LONE_SURROGATES && /[\ud800-\udbff]/.test(s[n - 1] ?? "") ? s.slice(0, n - 1) : s.slice(0, n));

// ---------------------------------------------------------------------------------------------------------
// PRNG: splitmix32 seeding + sfc32. Per-session streams: mix(seed, index).
function splitmix32(a) {
  return () => {
    a = (a + 0x9e3779b9) | 0;
    let t = a ^ (a >>> 16);
    t = Math.imul(t, 0x21f0aaad);
    t ^= t >>> 15;
    t = Math.imul(t, 0x735a2d97);
    t ^= t >>> 15;
    return t >>> 0;
  };
}

export function makeRng(seed) {
  const sm = splitmix32(seed >>> 0);
  let a = sm(), b = sm(), c = sm(), d = sm();
  const u32 = () => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return t >>> 0;
  };
  const rng = {
    u32,
    float: () => u32() / 4294967296,
    int: (n) => Math.floor(rng.float() * n), // [0, n)
    range: (lo, hi) => lo + rng.int(hi - lo + 1), // [lo, hi]
    chance: (p) => rng.float() < p,
    pick: (arr) => arr[rng.int(arr.length)],
    weighted(table) {
      // table: [[weight, value], ...]
      let total = 0;
      for (const [w] of table) total += w;
      let x = rng.float() * total;
      for (const [w, v] of table) {
        if ((x -= w) < 0) return v;
      }
      return table[table.length - 1][1];
    },
    hex: (n) => {
      let s = "";
      for (let i = 0; i < n; i++) s += "0123456789abcdef"[rng.int(16)];
      return s;
    },
  };
  return rng;
}

export function sessionSeed(seed, index) {
  return splitmix32(((seed >>> 0) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0)();
}

export function resolveSeed(explicit) {
  const raw = explicit ?? process.env.DIFF_SEED;
  if (raw !== undefined && raw !== "") {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new Error(`bad seed ${JSON.stringify(raw)} (want 0..4294967295)`);
    return n;
  }
  // No seed given: a fresh one per run (printed by every caller so a failure can be replayed).
  return (Date.now() ^ (process.pid << 16) ^ Math.floor(performance.now() * 1000)) >>> 0;
}

export function resolveCount(explicit) {
  const raw = explicit ?? process.env.DIFF_COUNT;
  if (raw === undefined || raw === "") return DEFAULT_COUNT;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`bad count ${JSON.stringify(raw)}`);
  return n;
}

// ---------------------------------------------------------------------------------------------------------
// JSON writer with a random but valid spelling. RawNum lets a number keep a literal text ("1e21", "-0", …)
// that JSON.parse reads back to the same double JSON.stringify would spell differently.
export class RawNum {
  constructor(text) {
    this.text = text;
  }
}
const NUM_SPELLINGS = [
  "1e21", "1E21", "1e+21", "1.5e300", "1e-7", "2.5E-8", "0.1", "0.30000000000000004", "-0", "-0.0", "1.0",
  "100.000", "12345678901234567890", "9007199254740993", "-9007199254740993", "123456789012345680000",
  "5e-324", "1.7976931348623157e308", "0.000001", "1e6", "4.35", "-1.25e-5", "0", "42", "1e2", "7E0",
];

function escapeString(s, style) {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i];
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "/" && style.slash) out += "\\/";
    else if (c < 0x20) {
      const short = { 8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r" }[c];
      out += short && !style.longControl ? short : "\\u" + c.toString(16).padStart(4, "0");
    } else if (c >= 0xd800 && c <= 0xdfff) {
      // Pairs may stay raw (UTF-8 in the file); lone surrogates must be escaped to stay valid UTF-8.
      const next = s.charCodeAt(i + 1);
      const paired = c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
      if (paired && !style.escapeUnicode) {
        out += ch + s[i + 1];
        i++;
      } else if (paired) {
        out += "\\u" + c.toString(16) + "\\u" + next.toString(16);
        i++;
      } else {
        out += "\\u" + (style.upperHex ? c.toString(16).toUpperCase() : c.toString(16));
      }
    } else if (c > 0x7e && style.escapeUnicode) out += "\\u" + c.toString(16).padStart(4, "0");
    else out += ch;
  }
  return out + '"';
}

export function writeJson(value, style = {}) {
  const colon = style.spaces ? ": " : ":";
  const comma = style.spaces ? ", " : ",";
  const w = (v) => {
    if (v instanceof RawNum) return v.text;
    if (v === null) return "null";
    if (typeof v === "number") return JSON.stringify(v);
    if (typeof v === "boolean") return v ? "true" : "false";
    if (typeof v === "string") return escapeString(v, style);
    if (Array.isArray(v)) return "[" + v.map(w).join(comma) + "]";
    const parts = [];
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined) continue;
      parts.push(escapeString(k, style) + colon + w(x));
    }
    return "{" + parts.join(comma) + "}";
  };
  return w(value);
}

// ---------------------------------------------------------------------------------------------------------
// Text pools. Token counts are UTF-16 lengths, so astral chars (2 units), ZWJ sequences and combining marks
// must appear often enough to matter.
const WORDS = [
  "the", "parser", "fails", "on", "line", "42", "fix", "it", "please", "refactor", "src/main.rs", "cargo", "test",
  "const", "x", "=", "{", "}", "()", "=>", "npm", "run", "build", "error:", "TypeError", "undefined", "null",
  "ok", "done", "let's", "try", "again", "README.md", "diff", "--stat", "index", "tree", "branch", "label",
  "café", "naïve", "Ünïcödé", "日本語", "中文", "한국어", "Ελληνικά", "русский", "עברית", "العربية",
  "😀", "🧪", "🚀", "👩‍💻", "🇺🇸", "👍🏽", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "𓀀", "🀄", "e\u0301", "a\u0308\u0323", "ñ", "Å",
  "\u2028", "\u2029", "\ufeff", "tab\there", "quote\"d", "back\\slash", "new\nline", "cr\rlf", "nul\u0000byte",
  "\u007f", "\u00a0", "<summary>", "</summary>", "```", "`code`", "$HOME", "%s", "\\u0041", "/*", "*/", "a/b/c",
];

function words(rng, min, max) {
  const n = rng.range(min, max);
  const out = [];
  for (let i = 0; i < n; i++) out.push(rng.pick(WORDS));
  return out.join(rng.chance(0.1) ? "\n" : " ");
}

function text(rng, opts = {}) {
  const size = rng.weighted([
    [30, [0, 6]],
    [45, [3, 40]],
    [18, [30, 300]],
    [4, [200, 800]],
    [0.3, [1000, 3000]],
  ]);
  let s = words(rng, opts.min ?? size[0], size[1]);
  if (opts.loneSurrogates && rng.chance(0.03)) {
    // A string cut inside a surrogate pair (pi truncates by UTF-16 index): JSON keeps it as \udXXX.
    const cut = rng.pick(["\ud83d", "\ude00", "x\udc00y", "\ud800"]);
    if (LONE_SURROGATES) s += cut;
  }
  return s;
}

function b64(rng, n) {
  const A = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  let s = "";
  for (let i = 0; i < n; i++) s += A[rng.int(64)];
  return s + "==";
}

const imageBlock = (rng) => ({ type: "image", data: b64(rng, rng.range(4, 120)), mimeType: rng.pick(["image/png", "image/jpeg", "image/webp"]) });

// ---------------------------------------------------------------------------------------------------------
// Message builders (pi-ai / pi-coding-agent 0.75.5 shapes).
const PROVIDERS = [
  ["anthropic", "anthropic-messages", ["claude-sonnet-4-5", "claude-opus-4-1"]],
  ["openai", "openai-responses", ["gpt-5", "gpt-4o"]],
  ["google", "google-generative-ai", ["gemini-2.5-pro"]],
  ["faux", "faux", ["faux-1"]],
];
const TOOL_NAMES = ["bash", "read", "edit", "write", "grep", "navigate_tree", "add_numbers", "ツール", "mcp__srv__do_thing"];

function jsonValue(rng, depth) {
  const kind = rng.weighted([
    [20, "str"],
    [12, "num"],
    [8, "raw"],
    [4, "bool"],
    [3, "null"],
    [depth > 0 ? 8 : 0, "arr"],
    [depth > 0 ? 8 : 0, "obj"],
  ]);
  switch (kind) {
    case "str":
      return text(rng, { loneSurrogates: true });
    case "num":
      return rng.weighted([
        [5, rng.int(1000)],
        [2, -rng.int(100000)],
        [2, rng.float() * 1000],
        [1, rng.u32() * 2 ** 21 + rng.u32()],
      ]);
    case "raw":
      return new RawNum(rng.pick(NUM_SPELLINGS));
    case "bool":
      return rng.chance(0.5);
    case "null":
      return null;
    case "arr": {
      const n = rng.weighted([[1, 0], [6, rng.range(1, 4)]]);
      return Array.from({ length: n }, () => jsonValue(rng, depth - 1));
    }
    default:
      return jsonObject(rng, depth - 1);
  }
}

function jsonObject(rng, depth) {
  const n = rng.weighted([[1, 0], [8, rng.range(1, 5)]]);
  const o = {};
  for (let i = 0; i < n; i++) {
    const key = rng.weighted([
      [10, rng.pick(["path", "command", "a", "b", "name", "action", "old_str", "new_str", "limit", "options"])],
      [2, rng.pick(["ключ", "😀key", "with space", "quo\"te", "", "2", "10", "__proto__x"])],
      [1, String(rng.int(50))],
    ]);
    o[key] = jsonValue(rng, depth);
  }
  return o;
}

function usage(rng) {
  const input = rng.weighted([[8, rng.int(200000)], [1, 0]]);
  const output = rng.int(8000);
  const cacheRead = rng.chance(0.5) ? rng.int(150000) : 0;
  const cacheWrite = rng.chance(0.3) ? rng.int(20000) : 0;
  const total = input + output + cacheRead + cacheWrite;
  const totalTokens = rng.weighted([
    [7, total],
    [3, 0], // falls back to the sum of the parts
    [1, rng.int(300000)], // disagrees with the parts: totalTokens wins when non-zero
  ]);
  const u = { input, output, cacheRead, cacheWrite, totalTokens };
  if (rng.chance(0.02)) u.totalTokens = new RawNum(rng.pick(["1e3", "2.0E3", "0.0"]));
  u.cost = {
    input: rng.float() * 0.5,
    output: rng.float() * 0.2,
    cacheRead: rng.chance(0.5) ? 0 : rng.float() * 0.01,
    cacheWrite: 0,
    total: rng.chance(0.1) ? new RawNum("0.30000000000000004") : rng.float(),
  };
  return u;
}

function userMessage(rng, ts) {
  const content = rng.weighted([
    [6, () => text(rng)],
    [
      3,
      () => {
        const blocks = [];
        const n = rng.range(1, 4);
        for (let i = 0; i < n; i++) blocks.push(rng.chance(0.7) ? { type: "text", text: text(rng) } : imageBlock(rng));
        return blocks;
      },
    ],
    [0.3, () => ""],
    [0.3, () => []],
  ])();
  return { role: "user", content, timestamp: ts };
}

function assistantMessage(rng, ts, { toolCalls = 0, stopReason } = {}) {
  const [provider, api, models] = rng.pick(PROVIDERS);
  const content = [];
  if (rng.chance(0.35)) {
    const t = { type: "thinking", thinking: text(rng) };
    if (rng.chance(0.6)) t.thinkingSignature = b64(rng, rng.range(10, 80));
    if (rng.chance(0.05)) t.redacted = true;
    content.push(t);
  }
  if (rng.chance(0.8) || toolCalls === 0) content.push({ type: "text", text: text(rng) });
  const calls = [];
  for (let i = 0; i < toolCalls; i++) {
    const call = {
      type: "toolCall",
      id: rng.pick(["toolu_", "call_", "fc_", ""]) + rng.hex(rng.range(6, 24)),
      name: rng.pick(TOOL_NAMES),
      arguments: jsonObject(rng, rng.range(0, 4)),
    };
    if (rng.chance(0.1)) call.thoughtSignature = b64(rng, 30);
    calls.push(call);
    content.push(call);
  }
  if (rng.chance(0.05)) content.length = 0;
  if (rng.chance(0.1)) content.reverse();
  const msg = { role: "assistant", content, api, provider, model: rng.pick(models) };
  if (rng.chance(0.04)) delete msg.provider; // old files: context `model` keeps only modelId
  if (rng.chance(0.1)) msg.responseId = "resp_" + rng.hex(16);
  msg.usage = usage(rng);
  if (rng.chance(0.03)) delete msg.usage;
  else if (rng.chance(0.02)) msg.usage = null;
  msg.stopReason = stopReason ?? (toolCalls ? "toolUse" : rng.weighted([[10, "stop"], [2, "aborted"], [2, "error"], [1, "length"]]));
  if (msg.stopReason === "error" || (msg.stopReason === "aborted" && rng.chance(0.5))) msg.errorMessage = text(rng, { min: 1 });
  msg.timestamp = ts;
  return { msg, calls };
}

function toolResultMessage(rng, ts, call) {
  const content = rng.weighted([
    [8, () => [{ type: "text", text: text(rng, { loneSurrogates: true }) }]],
    [2, () => [{ type: "text", text: text(rng) }, imageBlock(rng)]],
    [1, () => [imageBlock(rng)]],
    [1, () => []],
    [1, () => text(rng)],
  ])();
  const msg = { role: "toolResult", toolCallId: call?.id ?? "call_" + rng.hex(8), toolName: call?.name ?? rng.pick(TOOL_NAMES), content };
  if (rng.chance(0.4)) msg.details = rng.chance(0.5) ? { diff: text(rng), exitCode: rng.int(3) } : jsonObject(rng, 2);
  msg.isError = rng.chance(0.1);
  msg.timestamp = ts;
  return msg;
}

function bashMessage(rng, ts) {
  const msg = {
    role: "bashExecution",
    command: rng.pick(["ls -la", "cargo test", "git status", "echo 'héllo 😀'", "cat a.txt | grep x", ""]),
    output: text(rng),
    exitCode: rng.weighted([[5, 0], [2, 1], [1, 127], [1, undefined]]),
    cancelled: rng.chance(0.1),
    truncated: rng.chance(0.1),
    timestamp: ts,
  };
  if (msg.truncated) msg.fullOutputPath = "/tmp/pi-bash-" + rng.hex(8) + ".log";
  if (rng.chance(0.2)) msg.excludeFromContext = true;
  return msg;
}

function customContent(rng) {
  return rng.weighted([
    [5, () => text(rng)],
    [3, () => [{ type: "text", text: text(rng) }]],
    [1, () => [{ type: "text", text: text(rng) }, imageBlock(rng)]],
    [0.5, () => []],
  ])();
}

// ---------------------------------------------------------------------------------------------------------
// pi ≥0.87 shapes (pi-ai SystemMessage, SessionManager.appendContextEdit/appendUsage/appendCompaction).
const SECTION_NAMES = ["preamble", "tools", "rules", "docs", "addendum", "context", "skills", "my_ext", "ünï-section"];

function toolDeclaration(rng, name) {
  const decl = { name, description: text(rng, { min: 1 }), parameters: { type: "object", properties: jsonObject(rng, 2) } };
  if (rng.chance(0.5)) decl.parameters.required = Object.keys(decl.parameters.properties).slice(0, 2);
  if (rng.chance(0.1)) decl.constrainedSampling = rng.chance(0.5);
  return decl;
}

function systemContent(rng) {
  return rng.weighted([
    [8, () => ""],
    [2, () => text(rng)],
    [1, () => [{ type: "text", text: text(rng) }, ...(rng.chance(0.3) ? [{ type: "text", text: text(rng) }] : [])]],
    [0.3, () => []],
  ])();
}

/**
 * A `role:"system"` message as pi ≥0.87 stores it: "initial" = the leading one (content, every section, the tool
 * declarations); "patch" = a later sections patch (`null` removes one); "tools" = tool changes; "text" = extra
 * instructions; "odd" = hand-written shapes (null content, only toolsRemoved, empty sections).
 */
function systemMessage(rng, ts, kind) {
  const msg = { role: "system", content: "" };
  const sections = (n, nulls) => {
    const out = {};
    for (let i = 0; i < n; i++) out[rng.pick(SECTION_NAMES)] = nulls && rng.chance(0.25) ? null : text(rng, { min: 1 });
    return out;
  };
  const tools = (n) => Array.from({ length: n }, () => toolDeclaration(rng, rng.pick(TOOL_NAMES)));
  if (kind === "initial") {
    msg.content = systemContent(rng);
    if (rng.chance(0.9)) msg.sections = sections(rng.range(1, 5), false);
    if (rng.chance(0.85)) msg.toolsAdded = tools(rng.range(1, 5));
  } else if (kind === "patch") {
    msg.sections = sections(rng.range(1, 3), true);
  } else if (kind === "tools") {
    if (rng.chance(0.7)) msg.toolsAdded = tools(rng.range(1, 3));
    if (rng.chance(0.5)) msg.toolsRemoved = Array.from({ length: rng.range(1, 2) }, () => ({ name: rng.pick(TOOL_NAMES) }));
  } else if (kind === "text") {
    msg.content = systemContent(rng) || text(rng, { min: 1 });
  } else {
    rng.weighted([
      [2, () => (msg.content = null)],
      [1, () => (msg.sections = {})],
      [1, () => (msg.toolsRemoved = [{ name: rng.pick(TOOL_NAMES) }])],
      [1, () => (msg.toolsAdded = [])],
    ])();
  }
  msg.timestamp = rng.chance(0.1) ? 0 : ts;
  return msg;
}

/** A usage pi ≥0.87 ignores as an estimate baseline (calculateContextTokens(usage) is not > 0). */
function zeroUsage(rng) {
  const u = usage(rng);
  u.input = u.output = u.cacheRead = u.cacheWrite = 0;
  u.totalTokens = rng.chance(0.2) ? new RawNum("0.0") : 0;
  return u;
}

// ---------------------------------------------------------------------------------------------------------
// One session: simulate a SessionManager (append under the leaf, move the leaf) with random actions.
const ANCHOR_NAMES = ["impl-start", "tests-green", "a", "before-refactor", "x1", "loop-fix", "deep-dive-2", "ünïcode", "😀", "", "with space"];

/**
 * Host generations: "0.74" = what pi 0.74–0.86 write (the original stream, unchanged so the old hosts' test keeps
 * its strength and its seeds); "0.87" = what pi ≥0.87 writes on top (a leading system message with sections and
 * tool declarations and later patches of them, `context_edit` entries pi-style, `usage` entries, compactions
 * carrying a `systemMessage`, zero usage, `null` content). A different stream: the same seed gives other sessions.
 */
export const GENERATIONS = Object.freeze(["0.74", "0.87"]);

/**
 * Session `index` of `generation` in pi's current format ("v3"), or written in an older format pi migrates on
 * load (src/session/migrate.rs): "v2" (header version 2; most `custom` messages as the `hookMessage` they were
 * before v3), "v1" (no ids: the path to the leaf as one chain, header version missing/1/null, labels left
 * out, a compaction's firstKeptEntryId as pi's firstKeptEntryIndex — the target's place among the parsed lines,
 * the header at 0 — or some other index pi reads: the header, a later line, a fraction; hookMessage roles as in
 * v2). The same entries as "v3" up to the file's text; whitespace at the file's ends and padded lines are left to
 * v3 files (where the line a host reads first differs between hosts, v1 ids name lines).
 */
export function generateSession(seed, index, generation = "0.74", format = "v3") {
  if (!GENERATIONS.includes(generation)) throw new Error(`unknown generation ${generation} (want ${GENERATIONS.join(", ")})`);
  const v087 = generation === "0.87";
  // Another stream for the new generation (so its sessions are not the old ones plus a prefix).
  const rng = makeRng(v087 ? sessionSeed(seed ^ 0x5bd1e995, index) : sessionSeed(seed, index));
  const entries = []; // {obj, id}
  const byId = new Map();
  let leaf = null;
  let t = Date.UTC(2024, 0, 1) + rng.int(2 * 365 * 86400) * 1000 + rng.int(1000);
  const labels = new Map(); // target -> label (replayed like pi)
  const features = new Set();
  const lines = [];

  const newId = () => {
    for (;;) {
      const id = rng.hex(8);
      if (!byId.has(id)) return id;
    }
  };
  const tick = () => {
    if (!rng.chance(0.1)) t += rng.weighted([[6, rng.int(3000)], [3, rng.int(120000)], [1, rng.int(86400000)]]);
    if (rng.chance(0.01)) t -= rng.int(5000); // clock skew: timestamps mostly, not always, increasing
    return t;
  };
  const iso = (ms) => {
    const s = new Date(ms).toISOString();
    return rng.weighted([
      [97, () => s],
      [2, () => s.replace(/\.\d{3}Z$/, "Z")],
      [1, () => s.replace(/Z$/, "+00:00")],
      [0.15, () => s.slice(0, 10)], // date only: UTC midnight
      [0.1, () => "not a date"], // Date → NaN → null in the message's timestamp
    ])();
  };
  const pathIds = (from = leaf) => {
    const out = [];
    let cur = from;
    while (cur && byId.has(cur)) {
      out.push(cur);
      cur = byId.get(cur).parentId;
    }
    return out.reverse();
  };
  const anyId = () => (entries.length ? rng.pick(entries).id : null);
  const onPath = () => {
    const p = pathIds();
    return p.length ? rng.pick(p) : anyId();
  };
  const append = (type, fields, { parentId = leaf, order, forceId } = {}) => {
    const ms = tick();
    const id = forceId ?? newId();
    const base = { type, id, parentId, timestamp: iso(ms) };
    let obj;
    if (order === "customFirst") obj = { type, ...fields, id, parentId, timestamp: base.timestamp };
    else obj = { ...base, ...fields };
    if (parentId === undefined) delete obj.parentId;
    entries.push({ obj, id });
    byId.set(id, obj);
    leaf = id;
    return { id, ms };
  };
  const msgTs = () => t + rng.int(3);
  const appendMessage = (msg) => {
    // pi ≥0.87 reads `null` content (old versions, forks, hand-edited files) as "" / [].
    if (v087 && ["user", "assistant", "toolResult", "system"].includes(msg.role) && rng.chance(0.025)) {
      msg.content = null;
      features.add("null-content");
    }
    return append("message", { message: msg });
  };

  const setLabel = (target, label) => {
    const fields = { targetId: target };
    if (label === undefined) {
      // cleared: pi writes no `label` key; hand-written files may carry "" or null
      const how = rng.weighted([[3, "missing"], [2, "empty"], [1, "null"]]);
      if (how === "empty") fields.label = "";
      else if (how === "null") fields.label = null;
    } else fields.label = label;
    append("label", fields);
    if (label) labels.set(target, label);
    else labels.delete(target);
  };
  const anchorLabel = () =>
    rng.weighted([
      [12, () => "anchor:" + rng.pick(ANCHOR_NAMES)],
      [2, () => rng.pick(["checkpoint-1", "todo", "anchor", "Anchor:caps", "anchors:x", " anchor:lead-space"])],
      [1, () => "anchor:" + cut(text(rng, { min: 1 }), 30)],
    ])();

  const actions = {
    user: () => appendMessage(userMessage(rng, msgTs())),
    turn: () => {
      const nCalls = rng.weighted([[5, 0], [4, 1], [2, rng.range(2, 4)]]);
      const { msg, calls } = assistantMessage(rng, msgTs(), { toolCalls: nCalls });
      if (v087 && rng.chance(0.12)) {
        msg.usage = zeroUsage(rng); // local servers and some proxies report zero usage
        features.add("zero-usage");
      }
      const a = appendMessage(msg);
      // navigate_tree style: anchor label on the assistant message, written during the tool call
      if (calls.length && rng.chance(0.25)) setLabel(rng.chance(0.8) ? a.id : onPath(), anchorLabel());
      for (const call of calls) {
        if (rng.chance(0.08)) continue; // a call without result (aborted turn)
        appendMessage(toolResultMessage(rng, msgTs(), call));
      }
      if (calls.length && rng.chance(0.5)) {
        const { msg: after } = assistantMessage(rng, msgTs(), {});
        if (v087 && rng.chance(0.12)) after.usage = zeroUsage(rng);
        appendMessage(after);
      }
    },
    bash: () => appendMessage(bashMessage(rng, msgTs())),
    customRole: () =>
      appendMessage({
        role: "custom",
        customType: rng.pick(["my-ext", "reminder", "ünï"]),
        content: customContent(rng),
        display: rng.chance(0.5),
        details: rng.chance(0.5) ? jsonObject(rng, 2) : undefined,
        timestamp: msgTs(),
      }),
    otherRole: () =>
      appendMessage(
        rng.weighted([
          [2, () => ({ role: "system", content: text(rng), timestamp: msgTs() })],
          [1, () => ({ role: "branchSummary", summary: text(rng), fromId: anyId() ?? "root", timestamp: msgTs() })],
          [1, () => ({ role: "compactionSummary", summary: text(rng), tokensBefore: rng.int(99999), timestamp: msgTs() })],
          [1, () => ({ role: "mystery", content: text(rng), timestamp: msgTs() })],
        ])(),
      ),
    customMessage: () => {
      const fields = { customType: rng.pick(["my-ext", "reminder", "ünï", ""]), content: customContent(rng), display: rng.chance(0.6) };
      if (rng.chance(0.5)) fields.details = jsonObject(rng, 2);
      append("custom_message", fields, { order: rng.chance(0.3) ? "customFirst" : undefined });
    },
    custom: () =>
      append("custom", { customType: rng.pick(["my-ext", "state", "navigate-tree"]), data: rng.chance(0.8) ? jsonObject(rng, 3) : undefined }, { order: "customFirst" }),
    thinking: () => append("thinking_level_change", { thinkingLevel: rng.pick(["off", "minimal", "low", "medium", "high", "xhigh"]) }),
    model: () => {
      const [provider, , models] = rng.pick(PROVIDERS);
      append("model_change", { provider, modelId: rng.pick(models) });
    },
    label: () => {
      const kind = rng.weighted([[6, "set"], [2, "move"], [2, "clear"], [1, "unknown"], [1, "relabel"]]);
      if (!entries.length) return;
      if (kind === "set") setLabel(rng.chance(0.85) ? onPath() : anyId(), anchorLabel());
      else if (kind === "unknown") setLabel(rng.hex(8), anchorLabel());
      else if (kind === "clear") {
        const labelled = [...labels.keys()];
        setLabel(labelled.length && rng.chance(0.8) ? rng.pick(labelled) : anyId(), undefined);
      } else if (kind === "relabel") {
        const labelled = [...labels.keys()];
        setLabel(labelled.length ? rng.pick(labelled) : onPath(), anchorLabel());
      } else {
        // move a label to another entry: write the new one, then clear the old (or the other way round)
        const labelled = [...labels.entries()];
        if (!labelled.length) return;
        const [oldTarget, name] = rng.pick(labelled);
        const target = onPath();
        if (rng.chance(0.7)) {
          setLabel(target, name);
          if (target !== oldTarget) setLabel(oldTarget, undefined);
        } else {
          setLabel(oldTarget, undefined);
          setLabel(target, name);
        }
      }
    },
    compaction: () => {
      if (!entries.length) return;
      const p = pathIds();
      const first = rng.weighted([
        [8, () => (p.length ? rng.pick(p) : anyId())],
        [1, () => anyId()], // maybe on another branch: nothing before the compaction is kept
        [1, () => rng.hex(8)], // unknown id
        [0.3, () => undefined],
      ])();
      const fields = { summary: rng.chance(0.05) ? "" : text(rng, { min: 1 }), firstKeptEntryId: first, tokensBefore: rng.chance(0.95) ? rng.int(200000) : undefined };
      if (rng.chance(0.5)) fields.details = { readFiles: ["a.ts"], modifiedFiles: rng.chance(0.5) ? ["b.ts"] : [] };
      if (rng.chance(0.2)) fields.fromHook = rng.chance(0.5);
      if (v087) {
        // appendCompaction: the current system message (replayed), timestamped with the compaction's time.
        if (rng.chance(0.75)) fields.systemMessage = systemMessage(rng, 0, rng.chance(0.85) ? "initial" : rng.pick(["patch", "tools", "text"])); // never "odd": pi replays it (a null content would throw in pi itself)
        if (rng.chance(0.3)) fields.usage = rng.chance(0.2) ? zeroUsage(rng) : usage(rng);
        if (fields.systemMessage) features.add("compaction-systemMessage");
      }
      const c = append("compaction", fields);
      if (fields.systemMessage) fields.systemMessage.timestamp = rng.chance(0.9) ? c.ms : 0;
    },
    rewind: () => {
      if (!entries.length) return;
      const oldLeaf = leaf;
      const target = rng.weighted([[7, () => onPath()], [2, () => anyId()], [0.4, () => null]])();
      leaf = target;
      if (rng.chance(0.6)) {
        const fields = {
          fromId: rng.weighted([[3, () => target ?? "root"], [2, () => oldLeaf ?? "root"], [0.3, () => undefined]])(),
          summary: rng.chance(0.12) ? "" : text(rng, { min: 1 }),
        };
        if (rng.chance(0.4)) fields.details = { readFiles: [], modifiedFiles: ["src/x.rs"] };
        if (rng.chance(0.2)) fields.fromHook = true;
        if (v087 && rng.chance(0.3)) fields.usage = rng.chance(0.2) ? zeroUsage(rng) : usage(rng); // branchWithSummary(…, usage)
        append("branch_summary", fields, { parentId: target });
      }
    },
    reset: () => {
      leaf = null; // resetLeaf(): the next entry is a new root
    },
    sessionInfo: () => append("session_info", { name: rng.chance(0.8) ? cut(text(rng, { min: 1 }), 40) : "" }),
    usageEntry: () => {
      const [provider, , models] = rng.pick(PROVIDERS);
      const fields = { kind: rng.pick(["compaction", "branch_summary"]), provider, model: rng.pick(models), usage: usage(rng) };
      if (rng.chance(0.3)) fields.note = "summary";
      append("usage", fields);
    },
    contextEdit: () => {
      if (!entries.length) return;
      append("context_edit", { targetId: onPath(), replacement: rng.chance(0.3) ? null : { content: customContent(rng) } });
    },
    // ---- pi ≥0.87 only (generation "0.87") ----
    systemUpdate: () => {
      appendMessage(systemMessage(rng, msgTs(), rng.weighted([[5, "patch"], [4, "tools"], [2, "text"], [1, "initial"], [1, "odd"]])));
    },
    contextEditPi: () => {
      // SessionManager.appendContextEdit(targetId, {content} | null): pi checks the target (on the branch, an
      // editable message); hand-written or forked files also hold edits of anything, of missing ids, and repeats.
      if (!entries.length) return;
      const p = pathIds();
      const editable = p.filter((id) => {
        const o = byId.get(id);
        return o.type === "custom_message" || (o.type === "message" && ["user", "assistant", "toolResult"].includes(o.message?.role));
      });
      const target = rng.weighted([
        [10, () => (editable.length ? rng.pick(editable) : onPath())],
        [3, () => (edited.length ? rng.pick(edited) : onPath())], // a later edit of the same target wins
        [3, () => onPath()], // any entry on the path: system, compaction, branch_summary, label, bash, custom role…
        [1, () => anyId()], // maybe off the path
        [1, () => rng.hex(8)], // an id no entry has
      ])();
      if (!target) return;
      const o = byId.get(target);
      const role = o?.type === "message" ? o.message?.role : o?.type === "custom_message" ? "custom" : null;
      let replacement = null;
      if (rng.chance(0.75)) {
        let content = customContent(rng);
        // pi stores a string replacement of an assistant/toolResult as one text block; old or hand-written files may not
        if ((role === "assistant" || role === "toolResult") && typeof content === "string" && rng.chance(0.8)) content = [{ type: "text", text: content }];
        replacement = { content };
      }
      append("context_edit", { targetId: target, replacement });
      edited.push(target);
      features.add(replacement === null ? "context-edit-null" : "context-edit");
    },
    unknown: () => append(rng.pick(["frobnicate", "future_thing", "Message"]), { payload: jsonObject(rng, 2), message: rng.chance(0.3) ? { role: "user", content: "not a message entry" } : undefined }),
    orphan: () => append("message", { message: userMessage(rng, msgTs()) }, { parentId: rng.hex(8) }),
    noParentKey: () => append("message", { message: userMessage(rng, msgTs()) }, { parentId: undefined }),
    dupId: () => {
      // An id used twice (merged/edited files): pi's byId keeps the later entry. Only ids off the current path,
      // so no parent chain can loop (pi would walk a cycle forever).
      const onP = new Set(pathIds());
      const pool = entries.filter((e) => !onP.has(e.id));
      if (!pool.length) return;
      features.add("duplicate-id");
      append("message", { message: userMessage(rng, msgTs()) }, { forceId: rng.pick(pool).id });
    },
  };
  const edited = []; // context_edit targets so far (repeats)
  const baseTable = [
    [14, "user"], [22, "turn"], [3, "bash"], [2, "customRole"], [0.6, "otherRole"], [4, "customMessage"], [3, "custom"],
    [2, "thinking"], [2, "model"], [9, "label"], [3, "compaction"], [6, "rewind"], [0.3, "reset"], [1, "sessionInfo"],
    [1, "usageEntry"], [1, "contextEdit"], [0.5, "unknown"], [0.15, "orphan"], [0.1, "noParentKey"], [0.05, "dupId"],
  ];
  const table = v087 ? [...baseTable.map(([w, k]) => [k === "usageEntry" ? 3 : w, k]), [2, "systemUpdate"], [4, "contextEditPi"]] : baseTable;
  // pi ≥0.87 writes the system prompt and the tool declarations as the first message of every session.
  if (v087 && rng.chance(0.9)) appendMessage(systemMessage(rng, t, "initial"));

  const steps = rng.weighted([
    [3, () => 0],
    [3, () => 1],
    [25, () => rng.range(2, 12)],
    [50, () => rng.range(10, 60)],
    [16, () => rng.range(60, 200)],
    [3, () => rng.range(300, 700)],
  ])();
  // Session styles: some sessions lean on one feature so deep chains of it appear.
  const style = rng.weighted(v087 ? [[6, null], [1, "rewind"], [1, "label"], [1, "compaction"], [1.5, "contextEditPi"], [0.5, "systemUpdate"]] : [[6, null], [1, "rewind"], [1, "label"], [1, "compaction"]]);
  const styled = style ? table.map(([w, k]) => [k === style ? w * 6 : w, k]) : table;
  while (entries.length < steps) {
    const before = entries.length;
    actions[rng.weighted(styled)]();
    if (entries.length === before && rng.chance(0.3)) actions.user();
  }

  // ---- older formats ----
  let fileEntries = entries;
  const toHook = (obj) => (obj.type === "message" && obj.message?.role === "custom" && rng.chance(0.8) ? { ...obj, message: { ...obj.message, role: "hookMessage" } } : obj);
  if (format === "v2") fileEntries = entries.map(({ obj, id }) => ({ obj: toHook(obj), id }));
  if (format === "v1") {
    const last = entries.length ? entries[entries.length - 1].id : null;
    const [a, b] = [pathIds(leaf), pathIds(last)];
    const chain = (a.length >= b.length ? a : b).map((id) => byId.get(id)).filter((obj) => obj.type !== "label");
    const at = new Map(chain.map((obj, i) => [obj.id, i + 1])); // pi's entries index: the header is 0
    fileEntries = chain.map((obj, i) => {
      const copy = { ...toHook(obj) };
      delete copy.id;
      delete copy.parentId;
      if (copy.type === "compaction") {
        delete copy.firstKeptEntryId;
        const target = at.get(obj.firstKeptEntryId);
        copy.firstKeptEntryIndex = rng.weighted([
          [8, () => target ?? 1 + rng.int(i + 1)],
          [1, () => 0],
          [1, () => i + 1 + rng.range(0, 3)], // itself or a later line
          [0.5, () => (target ?? 1) + 0.5],
          [0.5, () => String(target ?? 1)],
        ])();
        features.add("v1-compaction");
      }
      return { obj: copy };
    });
  }

  // ---- file text ----
  const header = { type: "session", version: 3, id: `0190${rng.hex(4)}-${rng.hex(4)}-7${rng.hex(3)}-8${rng.hex(3)}-${rng.hex(12)}`, timestamp: new Date(Date.UTC(2024, 0, 1) + rng.int(1e10)).toISOString(), cwd: rng.pick(["/home/u/proj", "/tmp/проект", "C:\\Users\\x", "/srv/app 😀"]) };
  if (rng.chance(0.1)) header.parentSession = "/home/u/.pi/agent/sessions/--x--/old.jsonl";
  if (format === "v2") header.version = 2;
  if (format === "v1") rng.weighted([[7, () => delete header.version], [2, () => (header.version = 1)], [1, () => (header.version = null)]])();
  const fileStyle = {
    crlf: rng.chance(0.03),
    bom: rng.chance(0.01),
    trailingNewline: rng.chance(0.93),
    malformed: rng.chance(0.05),
    blank: rng.chance(0.04),
    padded: rng.chance(0.04), // whitespace around some lines: JSON's own (taken) or other (U+00A0, VT, …: skipped)
    spacedEnds: rng.chance(0.03), // whitespace at the file's ends, U+00A0 & co. included (pi ≤0.75 trims it away)
    swapped: rng.chance(0.03), // some adjacent lines swapped: children before parents, labels before targets
    secondHeader: rng.chance(0.01), // a second `session` line mid-file (concatenated files); pi drops it
  };
  if (format === "v1") fileStyle.padded = fileStyle.spacedEnds = false;
  lines.push(writeJson(header));
  for (const { obj } of fileEntries) {
    const style = {};
    if (rng.chance(0.08)) {
      style.spaces = rng.chance(0.5);
      style.escapeUnicode = rng.chance(0.5);
      style.slash = rng.chance(0.3);
      style.longControl = rng.chance(0.3);
      style.upperHex = rng.chance(0.5);
    }
    let line = writeJson(obj, style);
    if (fileStyle.padded && rng.chance(0.2)) {
      const around = rng.chance(0.7) ? [" ", "\t", "  ", "\r"] : ["\u00a0", "\u3000", "\u000b", "\u000c", "\u2028", "\ufeff", "\u0085"];
      line = rng.pick(around.filter((c) => c !== "\r")) + line + rng.pick(["", ...around]);
    }
    lines.push(line);
    // Blank to JavaScript's trim() (U+2028, U+FEFF, U+00A0 too), and U+0085, which is not.
    if (fileStyle.blank && rng.chance(0.05)) lines.push(rng.pick(["", "   ", "\t", "\u00a0", " \u2028", "\ufeff", "\u0085"]));
    if (fileStyle.malformed && rng.chance(0.04)) {
      lines.push(rng.pick(['{"type":"message","id":"deadbeef","parentId":', "not json at all", "{'single':'quotes'}", '{"type":"label",}', "]", '{"a":1}{"b":2}']));
    }
  }
  if (fileStyle.secondHeader && lines.length > 2) {
    lines.splice(1 + rng.int(lines.length - 1), 0, writeJson({ ...header, id: header.id.replace(/^0190/, "0191") }));
  }
  if (fileStyle.swapped && lines.length > 3) {
    for (let k = rng.range(1, 3); k > 0; k--) {
      const i = 1 + rng.int(lines.length - 2);
      [lines[i], lines[i + 1]] = [lines[i + 1], lines[i]];
    }
  }
  const nl = fileStyle.crlf ? "\r\n" : "\n";
  let fileText = lines.join(nl) + (fileStyle.trailingNewline ? nl : "");
  if (fileStyle.spacedEnds) fileText = rng.pick(["\u00a0", "\u3000 ", "\n\u00a0\n\t", "\u000b"]) + fileText + rng.pick(["\u00a0", "\u3000\n", "\n\u00a0\n"]);
  if (fileStyle.bom) fileText = "\ufeff" + fileText;

  // ---- leaf choices ----
  const leaves = ["$default", null];
  if (format === "v1") {
    // The core's names for a v1 file's entries (line-N), as the reference renames pi's random ones.
    const { ids, values } = fileIds(fileText);
    for (let i = Math.min(ids.length, rng.range(2, 4)); i > 0; i--) leaves.push(rng.pick(ids));
    const compactions = ids.filter((_, i) => values[i]?.type === "compaction");
    if (compactions.length) leaves.push(rng.pick(compactions));
    if (rng.chance(0.3)) leaves.push(rng.chance(0.5) ? `line-${lines.length + 5}` : rng.hex(8));
    features.add(`format-${format}`);
    return { text: fileText, leaves: [...new Set(leaves)], entryCount: ids.length, types: {}, features: [...features] };
  }
  if (format === "v2") features.add(`format-${format}`);
  const interestingTypes = v087 ? ["compaction", "branch_summary", "label", "context_edit", "usage"] : ["compaction", "branch_summary", "label"];
  const interesting = entries.filter(({ obj }) => interestingTypes.includes(obj.type) || labels.has(obj.id));
  const nRandom = Math.min(entries.length, rng.range(1, 3));
  for (let i = 0; i < nRandom; i++) leaves.push(rng.pick(entries).id);
  if (interesting.length && rng.chance(0.7)) leaves.push(rng.pick(interesting).id);
  if (v087 && interesting.length) leaves.push(rng.pick(interesting).id);
  if (rng.chance(0.3)) leaves.push(rng.chance(0.8) ? rng.hex(8) : "");
  for (const [k, v] of Object.entries(fileStyle)) if (v && k !== "trailingNewline") features.add(k);
  if (/\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])|(?<![dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}/.test(fileText)) features.add("lone-surrogate");
  const types = {};
  for (const { obj } of entries) {
    if (obj.type === "message" && obj.message?.role === "user" && Array.isArray(obj.message.content) && obj.message.content.some((b) => b?.type === "image")) features.add("user-image");
    const k = obj.type === "message" ? `message:${obj.message.role}` : obj.type;
    types[k] = (types[k] ?? 0) + 1;
  }
  return { text: fileText, leaves: [...new Set(leaves)], entryCount: entries.length, types, features: [...features] };
}

/** Which base sessions are also written in an older format: one in OLDER_EVERY as v1, another as v2. */
export const OLDER_EVERY = 12;
const olderFormatOf = (i) => (i % OLDER_EVERY === 0 ? "v1" : i % OLDER_EVERY === OLDER_EVERY / 2 ? "v2" : null);

export function generateBatch({ seed, count, dir, generation = "0.74" }) {
  mkdirSync(dir, { recursive: true });
  const sessions = [];
  const write = (i, format) => {
    const s = generateSession(seed, i, generation, format);
    const index = sessions.length;
    const file = join(dir, `s${String(i).padStart(4, "0")}${format === "v3" ? "" : `-${format}`}.jsonl`);
    writeFileSync(file, s.text);
    sessions.push({ index, file, leaves: s.leaves, entryCount: s.entryCount, types: s.types, features: s.features, ...(format === "v3" ? {} : { base: i, format }) });
  };
  for (let i = 0; i < count; i++) write(i, "v3");
  // The older formats after the base sessions (indexes from `count` on), so base session i keeps index i.
  for (let i = 0; i < count; i++) if (olderFormatOf(i)) write(i, olderFormatOf(i));
  const manifest = { seed, count, generation, sessions };
  writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest));
  return manifest;
}

// ---------------------------------------------------------------------------------------------------------
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const args = process.argv.slice(2);
  const opt = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  if (args.includes("--help") || !opt("--out")) {
    console.log("usage: node tests/diff/generate.mjs --out DIR [--seed N] [--count N] [--only INDEX [--format v1|v2|v3]] [--generation 0.74|0.87]\n(env DIFF_SEED, DIFF_COUNT)");
    process.exit(args.includes("--help") ? 0 : 2);
  }
  const seed = resolveSeed(opt("--seed"));
  const dir = opt("--out");
  const generation = opt("--generation") ?? "0.74";
  if (opt("--only") !== undefined) {
    const i = Number(opt("--only"));
    const s = generateSession(seed, i, generation, opt("--format") ?? "v3");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `s${String(i).padStart(4, "0")}.jsonl`);
    writeFileSync(file, s.text);
    writeFileSync(join(dir, "manifest.json"), JSON.stringify({ seed, count: 1, generation, sessions: [{ index: i, file, leaves: s.leaves, entryCount: s.entryCount }] }));
    console.log(`seed ${seed}: session ${i} -> ${file}`);
  } else {
    const count = resolveCount(opt("--count"));
    const t0 = performance.now();
    const m = generateBatch({ seed, count, dir, generation });
    const entries = m.sessions.reduce((a, s) => a + s.entryCount, 0);
    console.log(`seed ${seed}: ${count} sessions, ${entries} entries -> ${dir} (${Math.round(performance.now() - t0)} ms)`);
  }
}
