// One process of tests/bench/build-ab.mjs: a package's import, then on one session file the first
// `listFileBytes` of the process, the second, a plugin index's `appendJsonlBytes`, `listAnchors` (mean of 20)
// and a full index's `appendJsonlBytes`. Prints the times in ms as JSON.
//
//   node tests/bench/child-build-ab.mjs <pkg dir> <session.jsonl>
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [pkg, file] = process.argv.slice(2);
const bytes = readFileSync(file);
const t0 = performance.now();
const core = await import(pathToFileURL(join(pkg, "index-node.js")).href);
const t1 = performance.now();
core.listFileBytes(bytes);
const t2 = performance.now();
core.listFileBytes(bytes);
const t3 = performance.now();
const index = core.SessionIndex.plugin();
index.appendJsonlBytes(bytes);
const t4 = performance.now();
for (let i = 0; i < 20; i++) index.listAnchors();
const t5 = performance.now();
const full = core.SessionIndex.full();
full.appendJsonlBytes(bytes);
const t6 = performance.now();
console.log(JSON.stringify({ init: t1 - t0, list1: t2 - t1, list2: t3 - t2, ingest: t4 - t3, anchors: (t5 - t4) / 20, full: t6 - t5 }));
