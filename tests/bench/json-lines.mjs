// Issue 12's line budget: "JSON reading/writing, number printing and result writing together ≤800 lines of
// src/". Counts code lines (not blank, not only a comment, nothing from a `#[cfg(test)]` module on) of the
// code whose job that is — wherever it lives — and prints one row per part and the total.
//   node tests/bench/json-lines.mjs
// What is counted (docs/benchmarks.md, "One module"):
//   src/session/wire.rs        reading a line with serde_json, the shims where JSON.parse differs
//   src/js.rs up to date_ms    UTF-16 / JSON.stringify lengths, WTF-8, number printing (ryu-js wrappers)
//   src/tool/number.rs         whole numbers written as JSON.stringify writes them
//   src/wasm/dto.rs            the result shapes the viewer/CLI exports write
//   src/wasm/mod.rs to_js…     the one serializer of results (and the ingest report through it)
//   src/session/context.rs     the context's JSON text (from `fn with_field` on: a member set in place,
//                              raw values, objects written from fields)
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

const root = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..");
const parts = [
  ["src/session/wire.rs", null, null],
  ["src/js.rs", null, /^\/\/\/ `new Date\(value\)\.getTime\(\)`|^pub fn date_ms/],
  ["src/tool/number.rs", null, null],
  ["src/wasm/dto.rs", null, null],
  ["src/wasm/mod.rs", /^pub\(crate\) fn to_js/, /^\/\/\/ A resident index/],
  ["src/session/context.rs", /^fn with_field/, null],
];

/** Code lines of `file` between the first line matching `from` (default: the start) and the first line
 *  matching `to` after it (default: the file's test module or end). */
function count(file, from, to) {
  const lines = readFileSync(join(root, file), "utf8").split("\n");
  let on = !from, n = 0;
  for (const line of lines) {
    if (!on && from.test(line)) on = true;
    if (!on) continue;
    if (/^#\[cfg\(test\)\]/.test(line) || (to && to.test(line))) break;
    const t = line.trim();
    if (t === "" || t.startsWith("//")) continue;
    n++;
  }
  if (from && !on) throw new Error(`${file}: no line matches ${from}`);
  return n;
}

let total = 0;
console.log("| part | code lines |\n|---|---:|");
for (const [file, from, to] of parts) {
  const n = count(file, from, to);
  total += n;
  console.log(`| \`${file}\`${from ? ` from \`${from.source.replace(/^\^/, "")}\`` : ""}${to ? " (part)" : ""} | ${n} |`);
}
console.log(`| **total** (goal ≤800) | **${total}** |`);
