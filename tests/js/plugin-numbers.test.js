// The plugin's wasm (what pi loads) reads and prints numbers as JavaScript does, including the rare cases it
// hands to the JavaScript engine (src/wasm/numbers.rs: `Number(s)`, `String(x)`, `toFixed`) instead of the
// exact Rust code the native and full builds carry. Every expectation is worked out here in JavaScript from
// the literal alone, and the hot path (pi's own integers) is checked to stay inside wasm; timestamps, which
// only order tree views, are not read by the plugin at all. Run `npm run build` first.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const pkgDir = fileURLToPath(new URL("../../pkg/", import.meta.url));
const { SessionIndex } = await import(pathToFileURL(join(pkgDir, "load-plugin.js")).href);

const WINDOW = 100000;

/** Literals that take every path: Rust's fast ones (integers, Clinger) and the engine's (long, tiny, huge). */
const LITERALS = [
  "0", "-0", "7", "1847", "9007199254740993", "0.1", "0.5", "12.25", "1.0", "1E5", "2.5e-7", "1e-7", "0.000001",
  "0.0000001", "0.30000000000000004", "0.013560000000000001", "123456789012345678901234567890",
  "100000000000000000000", "1e21", "1e+21", "5e-324", "2.4703282292062328e-324", "1.7976931348623157e308",
  "1.7976931348623158e308", "1e400", "-1e400", "4.9406564584124654e-324", "22250738585072011e-324",
  "3.141592653589793238462643383279502884197169399375105820974944592307816406286", "-1.5e-10", "1e23", "8.5",
  "0.05", "0.25", "1.005", "999.95", "4503599627370495.5", "-0.0001",
];

/** One session line per object, with `raw` substituted for the placeholder string `"@"` (a literal as written). */
function session(lines, raw) {
  const header = { type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/tmp" };
  return [header, ...lines].map((l) => JSON.stringify(l).replace('"@"', raw)).join("\n") + "\n";
}

const user = (id, parentId, timestamp = "2026-01-01T00:00:01.000Z") =>
  ({ type: "message", id, parentId, timestamp, message: { role: "user", content: "hello" } }); // 5 chars: 2 tokens
const anchor = (parentId) =>
  ({ type: "label", id: "l1", parentId, timestamp: "2026-01-01T00:00:09.000Z", targetId: parentId, label: "anchor:here" });

function list(text) {
  const index = SessionIndex.plugin();
  try {
    const report = index.appendJsonl(text);
    assert.deepEqual(report.skipped, []);
    const plan = index.toolPlan({ action: "list" }, { callId: "c", contextWindow: WINDOW });
    assert.equal(plan.kind, "list", JSON.stringify(plan));
    return plan;
  } finally {
    index.free();
  }
}

/** What a JSON number becomes after a trip through JSON text (`-0` → 0, ±Infinity → null). */
const throughJson = (x) => JSON.parse(JSON.stringify(x));

/** Counts the engine's conversions the wasm calls while `fn` runs. */
function countEngineCalls(fn) {
  const counts = { Number: 0, String: 0, toFixed: 0, DateParse: 0 };
  const saved = { Number: globalThis.Number, String: globalThis.String, toFixed: Number.prototype.toFixed, parse: Date.parse };
  const spy = (name, target) => new Proxy(target, { apply: (t, self, args) => (counts[name]++, Reflect.apply(t, self, args)) });
  globalThis.Number = spy("Number", saved.Number);
  globalThis.String = spy("String", saved.String);
  saved.Number.prototype.toFixed = spy("toFixed", saved.toFixed);
  Date.parse = spy("DateParse", saved.parse);
  try {
    fn();
  } finally {
    globalThis.Number = saved.Number;
    globalThis.String = saved.String;
    saved.Number.prototype.toFixed = saved.toFixed;
    Date.parse = saved.parse;
  }
  return counts;
}

test("usage numbers: read, printed and formatted as JavaScript does", () => {
  for (const raw of LITERALS) {
    const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: "@" };
    const assistant = { type: "message", id: "a1", parentId: "u1", timestamp: "2026-01-01T00:00:02.000Z",
      message: { role: "assistant", content: [{ type: "text", text: "hi" }], usage, stopReason: "stop" } };
    const plan = list(session([user("u1", null), assistant, anchor("a1")], raw));
    // pi: the last assistant's totalTokens (or the sum of the counters when it is 0 or NaN), no message after it.
    const value = JSON.parse(raw) || 0;
    assert.equal(plan.details.contextTokens, throughJson(value), `contextTokens for ${raw}`);
    assert.equal(plan.details.anchors[0].tokens, throughJson(value), `anchor tokens for ${raw}`);
    const pct = (value / WINDOW * 100).toFixed(1);
    assert.ok(plan.text.includes(`ctx ${pct}% of 100k`), `"${pct}%" for ${raw} in:\n${plan.text}`);
  }
});

test("numbers in tool-call arguments: JSON.stringify lengths as JavaScript measures them", () => {
  for (const raw of LITERALS) {
    // The estimate counts ceil((name + JSON.stringify(arguments)) / 4) for the assistant: names padded so that
    // the total is 0 and 1 (mod 4) catch a length off by one in either direction.
    const argsLength = JSON.stringify({ x: JSON.parse(raw) }).length;
    for (const rest of [0, 1]) {
      const nameLength = 8 + ((rest - argsLength) % 4 + 4) % 4;
      const assistant = { type: "message", id: "a1", parentId: "u1", timestamp: "2026-01-01T00:00:02.000Z",
        message: { role: "assistant", content: [{ type: "toolCall", id: "t1", name: "n".repeat(nameLength), arguments: { x: "@" } }],
          stopReason: "toolUse" } };
      const plan = list(session([user("u1", null), assistant, anchor("a1")], raw));
      const expected = 2 + Math.ceil((nameLength + argsLength) / 4);
      assert.equal(plan.details.contextTokens, expected, `JSON.stringify({x: ${raw}}).length = ${argsLength}`);
    }
  }
});

test("pi's own numbers never leave wasm, and no timestamp is read", () => {
  const lines = [user("u1", null)];
  for (let i = 1; i <= 50; i++) {
    const usage = { input: 1000 + i, output: 200, cacheRead: 30000, cacheWrite: 0, totalTokens: 31200 + i, cost: { total: 0.0123 } };
    lines.push({ type: "message", id: `a${i}`, parentId: i === 1 ? "u1" : `a${i - 1}`, timestamp: new Date(1767225600000 + i * 1234).toISOString(),
      message: { role: "assistant", content: [{ type: "toolCall", id: `t${i}`, name: "read", arguments: { path: "a.ts", offset: i, limit: 200 } }],
        usage, stopReason: "toolUse" } });
  }
  lines.push(anchor("a50"));
  const piStyle = session(lines, "");
  const counts = countEngineCalls(() => assert.equal(list(piStyle).details.contextTokens, 31250));
  assert.deepEqual(counts, { Number: 0, String: 0, toFixed: 0, DateParse: 0 });

  // The plugin orders no children (no tree views), the one use of timestamps, so it does not parse them:
  // not even forms only `Date.parse` could read reach the engine.
  const others = ["2026-01-01", "2026-01-01T00:00:02Z", "2026-01-01T01:00:03.5+01:00", "+002026-01-01T00:00:04.000Z",
    "2026-01-01T00:00:05.000", "Thu, 01 Jan 2026 00:00:06 GMT", "2026-02-30T00:00:00.000Z", "not a date"];
  const odd = session(others.map((t, i) => user(`u${i}`, i ? `u${i - 1}` : null, t)), "");
  const oddCounts = countEngineCalls(() => assert.equal(list(odd).details.contextTokens, 2 * others.length));
  assert.deepEqual(oddCounts, { Number: 0, String: 0, toFixed: 0, DateParse: 0 });
});
