// One memory measurement in a fresh process (wasm linear memory only grows, so each mode needs its own
// instance): prints {before, after, growth, fileBytes, entries} as JSON.
//
//   node tests/bench/child-memory.mjs <pkg dir> <session.jsonl> plugin|plugin-bytes|plugin-byte-chunks|plugin-chunks|plugin-objects|full|full-bytes
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [pkg, file, mode] = process.argv.slice(2);
// Plugin modes use a facts-only index (what pi's extension keeps), full modes a full one (CLI `context`, viewer); one wasm.
const plugin = mode.startsWith("plugin");
const core = await import(pathToFileURL(join(pkg, "index-node.js")).href);
// initSync() on an initialized module returns the instance's exports, `memory` included.
const { initSync } = await import(pathToFileURL(join(pkg, "pi_tree_navigator.js")).href);
const memory = initSync().memory;
const bytes = readFileSync(file);
const text = bytes.toString("utf8");
const objects = mode === "plugin-objects" ? text.trimEnd().split("\n").map((l) => JSON.parse(l)).filter((e) => e.type !== "session") : null;

const before = memory.buffer.byteLength;
const index = core.SessionIndex[plugin ? "plugin" : "full"]();
if (mode.endsWith("-bytes")) {
  index.appendJsonlBytes(bytes); // the file's bytes, copied once into wasm memory
} else if (mode === "plugin-byte-chunks") {
  // ≤256 KB slices of the file's bytes cut after a newline, as a shim reading the file incrementally would feed
  for (let at = 0; at < bytes.length; ) {
    let end = Math.min(bytes.length, at + (256 << 10));
    if (end < bytes.length) end = bytes.indexOf(10, end) + 1 || bytes.length;
    index.appendJsonlBytes(bytes.subarray(at, end));
    at = end;
  }
} else if (mode === "plugin-objects") {
  index.appendEntries(objects); // the plugin's first sync: every entry pi holds, in one call
} else if (mode === "plugin-chunks") {
  // 1 MB slices cut at line ends, as a reader streaming the file would feed them
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + (1 << 20));
    if (end < text.length) end = text.indexOf("\n", end) + 1 || text.length;
    index.appendJsonl(text.slice(at, end));
    at = end;
  }
} else {
  index.appendJsonl(text);
}
const after = memory.buffer.byteLength;
const entries = index.entryCount;
console.log(JSON.stringify({ before, after, growth: after - before, fileBytes: bytes.length, entries }));
