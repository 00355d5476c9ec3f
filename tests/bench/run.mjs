#!/usr/bin/env node
// `npm run bench`: the side-by-side benchmarks (docs/benchmarks.md).
//
//   node tests/bench/run.mjs [--quick] [--no-write] [--rows 1,2,3,4,5,6] [--pkg <dir>] [--no-resume] [--no-exit-archive] [--no-cost]
//
// --quick: 1k and 10k entries only, fewer runs, nothing written. --pkg: measure that built package as is
// (no build step), e.g. a copy made while someone else keeps editing the sources.
// 1. checks the prerequisites of the README's setup (pi 0.75.5 + Node 22 from scripts/setup-hosts.sh, Bun
//    from scripts/setup.sh); 2. builds pkg/ when it is missing or older than src/, js/ or Cargo.*;
// 3. copies pkg/ to a temp dir (so a concurrent rebuild cannot change the wasm mid-run);
// 4. runs tests/bench/main.mjs under Node 22 (pi ≥0.75 needs it; the comparisons run in that one process),
//    which prints the tables and writes them into docs/benchmarks.md (unless --no-write or --quick);
// 5. then tests/bench/resume-rows.mjs (issue 29: resume, per turn, the CLI vs its floor; its env switches there);
// 6. then tests/bench/exit-archive-bench.mjs (issue 42: resume after exit archive, 300 MB and 1 GB; --no-exit-archive
//    leaves it out);
// 7. then tests/bench/folder-bench.mjs (issue 40: row "cost", `stats <folder>` vs ccusage-pi on a 1.1 GB folder;
//    --no-cost leaves it out).
// The whole run holds the bench lock (timing.mjs: one benchmark at a time on this shared machine).
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { hostAvailable, node22Path } from "../../scripts/hosts.mjs";
import { benchLock } from "./timing.mjs";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const args = process.argv.slice(2);
const die = (m) => {
  console.error(`[bench] ${m}`);
  process.exit(1);
};

if (!hostAvailable("0.75.5") || !existsSync(node22Path())) die("pi 0.75.5 and Node 22 are missing: run `npm run setup` first");

function newest(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let t = st.mtimeMs;
  for (const name of readdirSync(path)) t = Math.max(t, newest(join(path, name)));
  return t;
}
const at = args.indexOf("--pkg");
const given = at >= 0 ? resolve(args[at + 1]) : null;
if (at >= 0) args.splice(at, 2);
const pkg = given ?? join(REPO, "pkg");
const wasm = join(pkg, "pi_tree_navigator_bg.wasm");
if (!given) {
  const sources = Math.max(...["src", "js", "Cargo.toml", "Cargo.lock", "pkg.json"].map((p) => newest(join(REPO, p))));
  if (!existsSync(join(pkg, "extension.js")) || !existsSync(wasm) || statSync(wasm).mtimeMs < sources) {
    console.error("[bench] pkg/ is missing or older than the sources: npm run build");
    const b = spawnSync(process.execPath, [join(REPO, "scripts", "build.mjs")], { cwd: REPO, stdio: "inherit" });
    if (b.status !== 0) die("build failed");
  }
}
if (!existsSync(join(pkg, "extension.js")) || !existsSync(wasm)) die(`${pkg} is not a built package (no extension.js / wasm)`);

await benchLock();
const snap = mkdtempSync(join(tmpdir(), "ptn-bench-pkg-"));
cpSync(pkg, join(snap, "pkg"), { recursive: true });
if (!given) {
  // what the package was built from: HEAD, plus a note when the core's sources have uncommitted changes
  const git = (a) => spawnSync("git", a, { cwd: REPO, encoding: "utf8" }).stdout?.trim() ?? "";
  const dirty = git(["status", "--porcelain", "--", "src", "Cargo.toml", "Cargo.lock"]) ? " + uncommitted src changes" : "";
  writeFileSync(join(snap, "pkg", ".bench-source"), `\`${git(["log", "-1", "--format=%h"])}\` (${git(["log", "-1", "--format=%cs"])})${dirty}`);
}
const write = !args.includes("--no-write") && !args.includes("--quick");
const mainArgs = ["--expose-gc", "--max-old-space-size=6144", join(REPO, "tests", "bench", "main.mjs"), "--pkg", join(snap, "pkg")];
if (write) mainArgs.push("--write");
mainArgs.push(...args.filter((a) => a !== "--no-write"));
const r = spawnSync(node22Path(), mainArgs, { cwd: REPO, stdio: "inherit" });
// Issue 29's rows (resume, per turn, the CLI vs its floor): tests/bench/resume-rows.mjs; --no-resume leaves them out.
let resume = { status: 0 };
if (r.status === 0 && !args.includes("--no-resume")) {
  const resumeArgs = [join(REPO, "tests", "bench", "resume-rows.mjs"), "--pkg", join(snap, "pkg"), ...args.filter((a) => a === "--quick"), ...(write ? ["--write"] : [])];
  resume = spawnSync(node22Path(), resumeArgs, { cwd: REPO, stdio: "inherit" });
}
// Issue 42's rows (resume after exit archive): tests/bench/exit-archive-bench.mjs; --no-exit-archive leaves them out.
let exitArchive = { status: 0 };
if (r.status === 0 && !args.includes("--no-exit-archive")) {
  const exitArgs = [join(REPO, "tests", "bench", "exit-archive-bench.mjs"), "--pkg", join(snap, "pkg"), ...args.filter((a) => a === "--quick"), ...(write ? ["--write"] : [])];
  exitArchive = spawnSync(node22Path(), exitArgs, { cwd: REPO, stdio: "inherit" });
}
// Issue 40's row "cost" (a folder of sessions: ours vs ccusage-pi): tests/bench/folder-bench.mjs; --no-cost leaves it out.
let cost = { status: 0 };
if (r.status === 0 && !args.includes("--no-cost")) {
  const costArgs = [join(REPO, "tests", "bench", "folder-bench.mjs"), "--pkg", join(snap, "pkg"), ...args.filter((a) => a === "--quick"), ...(write ? ["--write"] : [])];
  cost = spawnSync(node22Path(), costArgs, { cwd: REPO, stdio: "inherit" });
}
rmSync(snap, { recursive: true, force: true });
process.exit([r, resume, exitArchive, cost].map((x) => x.status ?? 1).find((st) => st !== 0) ?? 0);
