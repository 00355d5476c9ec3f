// The CLI goals as whole processes: `pi-tree-navigator list --json` on a 20k-entry session against
//   - the floor: a Node process that only reads the same file (tests/bench/child-floor.mjs), and
//   - the seed's list algorithm (pi 0.75.5's own load + per-anchor buildSessionContext/estimateContextTokens)
//     run as a process of its own;
// each a fresh `node`, file read included, interleaved, medians of N runs, the same minutes.
//   node tests/bench/cli-process.mjs [--entries 20000] [--anchors 100] [--runs 5] [--pkg pkg[,pkg2…]] [--no-seed] [--serde]
//
// `--serde` adds a column: the floor plus `serde_json` checking every line in a tiny wasm module that builds
// nothing (tests/bench/serde-floor, built here with the core's serde_json, features and release profile) —
// what any reader with the core's JSON library pays, so what is left between it and ours is the core's own.
// Prints one table row per package (several packages: interleaved, to compare builds); needs pi 0.75.5 and
// Node 22 (scripts/setup-hosts.sh) and a built pkg/. --no-seed leaves the seed out (its column reads "–").
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { generateBase, withAnchors } from "./gen.mjs";
import { hostDir, node22Path } from "../../scripts/hosts.mjs";
import { buildSerdeFloor } from "./serde-floor.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const entries = Number(opt("--entries", 20000)), anchors = Number(opt("--anchors", 100)), runs = Number(opt("--runs", 5));
const pkgs = opt("--pkg", "pkg").split(",").map((p) => resolve(p));
const withSeed = !args.includes("--no-seed");
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

const serdeWasm = args.includes("--serde") ? buildSerdeFloor() : null;
const dir = mkdtempSync(join(tmpdir(), "ptn-cli-bench-"));
const file = join(dir, "session.jsonl");
const session = withAnchors(generateBase(entries), anchors);
writeFileSync(file, session.text);
const node = node22Path();
const time = (argv) => { const t = performance.now(); const out = execFileSync(node, argv, { maxBuffer: 1 << 28 }).toString(); return [performance.now() - t, out]; };
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const ours = pkgs.map(() => []), seed = [], floor = [], serde = [];
for (let i = 0; i < runs; i++) {
  floor.push(time([join(here, "child-floor.mjs"), file])[0]);
  if (serdeWasm) {
    const [t, lines] = time([join(here, "child-serde-floor.mjs"), serdeWasm, file]);
    // Every non-blank line of the generated session is JSON (the header and the entries).
    if (Number(lines) !== session.text.split("\n").filter(Boolean).length) throw new Error(`serde floor took ${lines} lines`);
    serde.push(t);
  }
  let want = null;
  if (withSeed) {
    const [b, outB] = time([join(here, "cli-process.mjs"), "--seed-child", file, hostDir("0.75.5")]);
    seed.push(b);
    want = JSON.parse(outB).anchors;
  }
  pkgs.forEach((pkg, k) => {
    const [a, outA] = time([join(pkg, "cli.js"), "list", file, "--json"]);
    const got = JSON.parse(outA);
    const n = Array.isArray(got) ? got.length : got.anchors.length;
    if (want !== null && n !== want) throw new Error(`anchor counts differ: ${pkg} ${n}, seed ${want}`);
    if (n !== anchors) throw new Error(`${pkg}: ${n} anchors, the session has ${anchors}`);
    ours[k].push(a);
  });
}
const mb = (statSync(file).size / 1e6).toFixed(1);
rmSync(dir, { recursive: true, force: true });
const ms = (x) => `${x.toFixed(0)} ms`;
const serdeHead = serdeWasm ? " floor + `serde_json` checking every line (process) | its / floor |" : "";
console.log("| entries | file | anchors | floor: `node` + `readFileSync` (process) |" + serdeHead + " `cli.js list --json` (process) | ours / floor | seed list (process) | seed / ours | runs |" + (pkgs.length > 1 ? " package |" : ""));
console.log("|---:|---:|---:|---:|" + (serdeWasm ? "---:|---:|" : "") + "---:|---:|---:|---:|---:|" + (pkgs.length > 1 ? "---|" : ""));
pkgs.forEach((pkg, k) => {
  const o = median(ours[k]), f = median(floor);
  const s = withSeed ? median(seed) : NaN;
  const serdeCells = serdeWasm ? ` ${ms(median(serde))} | ${(median(serde) / f).toFixed(2)}× |` : "";
  console.log(`| ${entries} | ${mb} MB | ${anchors} | ${ms(f)} |${serdeCells} ${ms(o)} | **${(o / f).toFixed(2)}×** | ${withSeed ? ms(s) : "–"} | ${withSeed ? `**${(s / o).toFixed(1)}×**` : "–"} | ${runs} |` + (pkgs.length > 1 ? ` ${pkg} |` : ""));
});

