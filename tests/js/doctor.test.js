// `pi-tree-navigator doctor` against every host of the matrix (each on the Node it needs) and a directory that is
// not pi. Runs the built CLI (pkg/cli.js).
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ALL_HOST_VERSIONS, hostAvailable, hostDir, nodeFor } from "../../scripts/hosts.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const pkgDir = process.env.PTN_PKG_DIR ?? join(root, "pkg");
const SURFACES = ["context event", "branchWithSummary", "appendMessage", "generateBranchSummary", "summarizer stream function", "refresh path", "getContextUsage"];

function doctor(node, args, agentDir) {
  const env = { ...process.env, PI_CODING_AGENT_DIR: agentDir };
  return spawnSync(node, [join(pkgDir, "cli.js"), "doctor", ...args], { encoding: "utf8", env, cwd: agentDir, timeout: 120_000 });
}

function agentDir(t, listed) {
  const dir = mkdtempSync(join(tmpdir(), "ptn-doctor-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, ".pi"), { recursive: true });
  if (listed) writeFileSync(join(dir, "settings.json"), JSON.stringify({ packages: [pkgDir] }));
  return dir;
}

for (const version of ALL_HOST_VERSIONS) {
  test(`doctor on pi ${version}: version, Node, profile, every surface present; exit 0 only when settings list the package`, (t) => {
    assert.ok(hostAvailable(version), `pi ${version} is not installed at ${hostDir(version)}: run bash scripts/setup-hosts.sh`);
    const node = nodeFor(version);
    const ok = doctor(node, ["--pi", hostDir(version)], agentDir(t, true));
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, new RegExp(`^pi ${version.replace(/\./g, "\\.")} \\(`));
    assert.match(ok.stdout, /^Node v\d+\./m);
    assert.match(ok.stdout, new RegExp(`estimate profile: ${["0.74.2", "0.75.5"].includes(version) ? "pi-0\\.74" : "pi-0\\.87"}`));
    for (const s of SURFACES) assert.match(ok.stdout, new RegExp(`present  ${s}:`), s);
    assert.match(ok.stdout, /settings: lists pi-tree-navigator/);

    const unlisted = doctor(node, ["--pi", hostDir(version)], agentDir(t, false));
    assert.equal(unlisted.status, 1);
    const problems = unlisted.stdout.split("\n\n").at(-1).trim().split("\n");
    assert.deepEqual(problems, ["pi's settings do not list pi-tree-navigator: run `pi install npm:pi-tree-navigator` (or `pi install <path to the package>`)."]);
  });
}

test("doctor on a directory that is not pi: exit 1, one sentence", (t) => {
  const r = doctor(process.execPath, ["--pi", root], agentDir(t, true));
  assert.equal(r.status, 1);
  assert.match(r.stdout, /^pi: not found/);
  assert.match(r.stdout, /is not a pi installation: no @earendil-works\/pi-coding-agent package there/);
});

test("doctor on a pi that this Node cannot load names the Node it needs", (t) => {
  const newer = ALL_HOST_VERSIONS.find((v) => nodeFor(v) !== nodeFor("0.74.2"));
  const old = nodeFor("0.74.2");
  const major = Number(spawnSync(old, ["-p", "process.versions.node.split('.')[0]"], { encoding: "utf8" }).stdout.trim());
  if (major >= 22) return t.skip(`the machine's Node (${major}) loads every host`);
  const r = doctor(old, ["--pi", hostDir(newer)], agentDir(t, true));
  assert.equal(r.status, 1);
  assert.match(r.stdout, /cannot be loaded by this Node \(it needs Node >=22/);
  assert.match(r.stdout, /unknown  getContextUsage/);
});

test("doctor: bad usage exits 2", () => {
  const r = spawnSync(process.execPath, [join(pkgDir, "cli.js"), "doctor", "--pi"], { encoding: "utf8" });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--pi needs a directory/);
});
