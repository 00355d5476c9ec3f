// The loop hint's way in (pkg/loop-hint.js → the module's LoopDetector): each result's strings are written into the
// detector's buffer in the module's memory and cross with one call, the result's text by reference, its tail copied
// and the whole of it only when it failed or its last line begins before the tail. These tests hand real results to
// the real module through the shim's `tool_result` handler (a stand-in pi: `on`, `sendMessage`) where a real pi
// cannot easily be made to: strings of every kind of UTF-16, a buffer and a memory that grow, texts whose end the
// tail cannot tell. The real-host proof of the hint is tests/e2e/loop-hint.e2e.mjs. Run `npm run build` first.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fakePi, loadPkg } from "./fake-pi.js";

fakePi("export const VERSION = '1.6.0'; export const getAgentDir = () => '/nonexistent';");
const api = await loadPkg("load-node.js");
const { installLoopHint } = await loadPkg("loop-hint.js");

/** A shim on a stand-in pi: `result(...)` hands over one tool result; `hints()` counts the hints sent. */
function hinted(repeats = 3) {
  const handlers = {};
  const sent = [];
  const pi = { on: (event, fn) => ((handlers[event] ??= []).push(fn)), sendMessage: (m) => sent.push(m), registerMessageRenderer() {} };
  const sm = {};
  const ctx = { sessionManager: sm, hasUI: false };
  const message = { text: "hint", headline: "loop", anchor: null, note: null };
  const loop = installLoopHint({ pi, core: () => api, withIndex: (_sm, fn) => fn({ loopMessage: () => message }), configOf: () => ({ loopHint: repeats }), env: {} });
  let n = 0;
  return {
    async result(toolName, input, text, isError = false) {
      for (const fn of handlers.tool_result) await fn({ toolCallId: `call-${n++}`, toolName, input, content: [{ type: "text", text }], isError }, ctx);
    },
    hints: () => loop.stateOf(sm)?.hints ?? 0,
    sent,
  };
}

test("strings of any UTF-16 cross whole: the same call and result three times is a loop, one unit's difference is not", async () => {
  const odd = "é 中文 🦀 \u{10FFFF} \ud800 lone, \udc00 lone, \u0000 nul";
  const same = hinted();
  for (let i = 0; i < 3; i++) await same.result(`tool ${odd}`, { path: odd, n: 1 }, `read ${odd}\n${odd}`);
  assert.equal(same.hints(), 1);
  assert.equal(same.sent.length, 1);
  // Differing only in one non-ASCII character (the arguments, or the result's text): no loop.
  const args = hinted();
  for (const c of ["é", "è", "é"]) await args.result("read", { path: c }, "same text");
  assert.equal(args.hints(), 0, "another path is another call");
  const texts = hinted();
  for (const c of ["中", "文", "中"]) await texts.result("read", { path: "a" }, `text ${c}`);
  assert.equal(texts.hints(), 0, "another text is another result");
});

test("results are the same by their text, not by the string object; arguments by their canonical JSON", async () => {
  const h = hinted();
  // Three different string objects of one text (made at run time), the arguments' keys in three orders.
  const inputs = [{ a: 1, b: { c: 2, d: [3] } }, { b: { d: [3], c: 2 }, a: 1 }, { b: { c: 2, d: [3] }, a: 1 }];
  for (const input of inputs) await h.result("grep", input, ["no", "match"].join(" "));
  assert.equal(h.hints(), 1);
});

test("a buffer and a memory that grow: arguments of 1 MB after small ones, then small ones again", async () => {
  const h = hinted();
  await h.result("write", { path: "x" }, "ok 0");
  const big = { path: "big", content: "é".repeat(500_000) + "x".repeat(500_000) };
  for (let i = 0; i < 3; i++) await h.result("write", big, "written");
  assert.equal(h.hints(), 1, "three identical large calls");
  for (let i = 0; i < 3; i++) await h.result("read", { path: "small" }, "small");
  assert.equal(h.hints(), 2, "and the small ones after (the buffer's view made again)");
});

test("a failure told by the whole text: a command's exit line that begins before the tail", async () => {
  const tailUnits = api.LoopDetector.tailUnits();
  // The last line is the exit line, indented so far that it begins before the tail: only the whole text tells
  // that the command failed. Three different calls failing alike: the same-error loop.
  const failing = `building\n${" ".repeat(tailUnits + 10)}Command exited with code 2`;
  const h = hinted();
  for (const command of ["make a", "make b", "make c"]) await h.result("custom_bash", { command }, failing);
  assert.equal(h.hints(), 1, "three failures in a row");
  // The same ending with exit code 0 is no failure: no loop.
  const ok = hinted();
  for (const command of ["make a", "make b", "make c"]) await ok.result("custom_bash", { command }, failing.replace("code 2", "code 0"));
  assert.equal(ok.hints(), 0);
  // A last line that only ends like an exit line (the tail sees nothing but spaces and the exit line): no failure.
  const lookalike = `building\nlog:${" ".repeat(tailUnits)}Command exited with code 2`;
  const not = hinted();
  for (const command of ["make a", "make b", "make c"]) await not.result("custom_bash", { command }, lookalike);
  assert.equal(not.hints(), 0, "the whole line is read before it counts as an exit");
  // A result longer than the tail whose last line the tail holds: its exit line read from the tail alone.
  const long = `${"log line\n".repeat(tailUnits)}error: boom\nCommand exited with code 1`;
  const tail = hinted();
  for (const command of ["x", "y", "z"]) await tail.result("custom_bash", { command }, long);
  assert.equal(tail.hints(), 1);
});

test("a result that changes each time is no loop, however often", async () => {
  const h = hinted(2);
  for (let i = 0; i < 30; i++) await h.result("bash", { command: "date" }, `tick ${i}`);
  assert.equal(h.hints(), 0);
});
