// `listAnchors()` (or `anchors()` + `estimate()` on builds without it) in a process of its own (no reference heap next to it): the isolated number
// that row 1 shows beside the in-process comparison. Prints {median, min, max, runs} in ms per call.
//
//   node tests/bench/child-list.mjs <pkg dir> <session.jsonl>
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { stats } from "./timing.mjs";

const [pkg, file] = process.argv.slice(2);
const core = await import(pathToFileURL(join(pkg, "index-node.js")).href);
const index = core.SessionIndex.plugin();
index.appendJsonlBytes(readFileSync(file));
const call =
  typeof index.listAnchors === "function"
    ? () => index.listAnchors()
    : () => {
        index.anchors();
        index.estimate();
      };
for (let i = 0; i < 5; i++) call();
const times = [];
for (let r = 0; r < 15; r++) {
  const t0 = performance.now();
  let n = 0;
  do {
    call();
    n++;
  } while (performance.now() - t0 < 20);
  times.push((performance.now() - t0) / n);
}
console.log(JSON.stringify(stats(times)));
