// Issue 12's CLI goal as whole processes: `pi-tree-navigator list --json` on a 20k-entry session against the
// seed's list algorithm (pi 0.75.5's own load + per-anchor buildSessionContext/estimateContextTokens) run as
// a process of its own — each a fresh `node`, file read included, medians of N runs, the same minutes.
//   node tests/bench/cli-process.mjs [--entries 20000] [--anchors 100] [--runs 5] [--pkg pkg]
// Prints one table row; needs pi 0.75.5 and Node 22 (scripts/setup-hosts.sh) and a built pkg/.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { generateBase, withAnchors } from "./gen.mjs";
import { hostDir, node22Path } from "../../scripts/hosts.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const entries = Number(opt("--entries", 20000)), anchors = Number(opt("--anchors", 100)), runs = Number(opt("--runs", 5));
const pkg = resolve(opt("--pkg", "pkg"));
const here = fileURLToPath(new URL(".", import.meta.url));

if (process.argv[2] === "--seed-child") {
  // The seed side, in its own process: read the file, pi's load, the seed's list.
  const { loadReference, piLoad, seedList } = await import("./seed.mjs");
  const { readFileSync } = await import("node:fs");
  const ref = await loadReference(process.argv[4]);
  const t0 = performance.now();
  const out = seedList(ref, piLoad(ref, readFileSync(process.argv[3], "utf8")));
  process.stdout.write(JSON.stringify({ anchors: out.anchors.length, ms: performance.now() - t0 }));
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), "ptn-cli-bench-"));
const file = join(dir, "session.jsonl");
const session = withAnchors(generateBase(entries), anchors);
writeFileSync(file, session.text);
const node = node22Path();
const time = (argv) => { const t = performance.now(); const out = execFileSync(node, argv, { maxBuffer: 1 << 28 }).toString(); return [performance.now() - t, out]; };
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const ours = [], seed = [];
for (let i = 0; i < runs; i++) {
  const [a, outA] = time([join(pkg, "cli.js"), "list", file, "--json"]);
  const [b, outB] = time([join(here, "cli-process.mjs"), "--seed-child", file, hostDir("0.75.5")]);
  const got = JSON.parse(outA), want = JSON.parse(outB);
  const n = Array.isArray(got) ? got.length : got.anchors.length;
  if (n !== want.anchors) throw new Error(`anchor counts differ: ours ${n}, seed ${want.anchors}`);
  ours.push(a); seed.push(b);
}
const mb = (statSync(file).size / 1e6).toFixed(1);
console.log("| entries | file | anchors | `cli.js list --json` (process) | seed list (process) | seed / ours | runs |");
console.log("|---:|---:|---:|---:|---:|---:|---:|");
console.log(`| ${entries} | ${mb} MB | ${anchors} | ${median(ours).toFixed(0)} ms | ${median(seed).toFixed(0)} ms | **${(median(seed) / median(ours)).toFixed(1)}×** | ${runs} |`);
