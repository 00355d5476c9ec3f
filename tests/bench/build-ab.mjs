// Builds of the package side by side (an opt-level, an inline threshold, a wasm-opt flag): each package dir
// timed in fresh Node 22 processes (tests/bench/child-build-ab.mjs), interleaved run by run, on one generated
// session of 20k entries and 100 anchors; prints the medians per package. docs/benchmarks.md, "Build choice".
//
//   node tests/bench/build-ab.mjs <runs> <pkg dir>[,<pkg dir>…]
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateBase, withAnchors } from "./gen.mjs";
import { node22Path } from "../../scripts/hosts.mjs";

const [runs, list] = process.argv.slice(2);
if (!runs || !list) {
  console.error("usage: node tests/bench/build-ab.mjs <runs> <pkg dir>[,<pkg dir>…]");
  process.exit(2);
}
const pkgs = list.split(",");
const dir = mkdtempSync(join(tmpdir(), "ptn-build-ab-"));
const file = join(dir, "s20k.jsonl");
writeFileSync(file, withAnchors(generateBase(20000), 100).text);
const child = fileURLToPath(new URL("./child-build-ab.mjs", import.meta.url));
const results = Object.fromEntries(pkgs.map((p) => [p, []]));
try {
  for (let r = 0; r < Number(runs); r++) {
    for (const p of pkgs) results[p].push(JSON.parse(execFileSync(node22Path(), [child, p, file], { encoding: "utf8" })));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
for (const p of pkgs) {
  const keys = Object.keys(results[p][0]);
  console.log(p.padEnd(24), keys.map((k) => `${k} ${median(results[p].map((o) => o[k])).toFixed(1)}`).join("  "));
}
