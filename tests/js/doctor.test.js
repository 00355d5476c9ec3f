// `pi-tree-navigator doctor` against every host of the matrix (each on the Node it needs) and a directory that is
// not pi. Runs the built CLI (pkg/cli.js).
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ALL_HOST_VERSIONS, hostAvailable, hostDir, hostPackageDir, nodeFor, piCliPath } from "../../scripts/hosts.mjs";
import { NEWEST_TESTED, OLDEST_TESTED } from "../../js/tested-hosts.js";

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
    assert.doesNotMatch(ok.stdout, /warning:/, "a tested version gets no untested-version warning");

    const unlisted = doctor(node, ["--pi", hostDir(version)], agentDir(t, false));
    assert.equal(unlisted.status, 1);
    const problems = unlisted.stdout.split("\n\n").at(-1).trim().split("\n");
    assert.deepEqual(problems, [`pi's settings do not list pi-tree-navigator: run \`pi install ${resolve(pkgDir)}\`.`]);
  });
}

test(`doctor's install advice, followed as written on pi ${NEWEST_TESTED}: pi install, pi list shows it, pi -p loads it`, (t) => {
  const version = NEWEST_TESTED;
  assert.ok(hostAvailable(version), `pi ${version} is not installed at ${hostDir(version)}: run bash scripts/setup-hosts.sh`);
  const node = nodeFor(version);
  const dir = agentDir(t, false);
  const before = doctor(node, ["--pi", hostDir(version)], dir);
  assert.equal(before.status, 1, before.stdout + before.stderr);
  const advice = before.stdout.match(/: run `(pi install [^`]+)`\.$/m)?.[1];
  assert.ok(advice, `no install advice in:\n${before.stdout}`);
  assert.doesNotMatch(advice, /npm:/, "a registry name that is not ours");

  // The advice runs in a shell as a user would type it, with `pi` on PATH being pi's own CLI, offline and
  // with its agent dir in the temp dir.
  const bin = join(dir, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "pi"), `#!/bin/sh\nexec '${node}' '${piCliPath(version)}' "$@"\n`, { mode: 0o755 });
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, PI_CODING_AGENT_DIR: dir, PI_OFFLINE: "1" };
  delete env.NODE_TEST_CONTEXT;
  const sh = (command, extra = {}) => spawnSync("/bin/sh", ["-c", command], { cwd: dir, env: { ...env, ...extra }, encoding: "utf8", timeout: 120_000 });
  const install = sh(advice);
  assert.equal(install.status, 0, `${advice}: ${install.stderr}${install.stdout}`);
  const list = sh("pi list");
  assert.equal(list.status, 0, list.stderr);
  assert.ok(list.stdout.includes(resolve(pkgDir)), `pi list does not show ${resolve(pkgDir)}:\n${list.stdout}`);
  const after = doctor(node, ["--pi", hostDir(version)], dir);
  assert.equal(after.status, 0, after.stdout);
  assert.match(after.stdout, /settings: lists pi-tree-navigator/);

  // A print-mode run with a scripted model: the installed package's navigate_tree answers the model's call.
  const log = join(dir, "requests.jsonl");
  const script = { agent: [{ calls: [["navigate_tree", { action: "anchor", name: "first-touch" }, "c1"]] }, { text: "all done" }], summary: [] };
  const faux = join(root, "tests", "e2e", "fixtures", "faux-cli", "index.js");
  const run = sh(`pi -p 'set an anchor' --provider faux --model faux-1 --no-session --offline -e '${faux}' -ns -nc -np --no-themes`,
    { PTN_FAUX_LOG: log, PTN_FAUX_SCRIPT: JSON.stringify(script) });
  assert.equal(run.status, 0, `pi -p failed (${run.status}): ${run.stderr}\n${run.stdout}`);
  assert.match(run.stdout, /all done/);
  const requests = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(requests.length, 2, JSON.stringify(requests));
  const result = requests[1].messages.find((m) => m.role === "toolResult" && m.toolCallId === "c1");
  assert.ok(result, "the tool call has a result");
  assert.ok(!result.isError, JSON.stringify(result));
  assert.match(JSON.stringify(result.content), /\[anchor 'first-touch'\] set at/);
});

/**
 * A pi that claims `version` but is the newest tested host underneath: a temp dir whose package/package.json is
 * that host's with the version changed, its dist/ and the bundle's node_modules linked to the real ones.
 */
function relabeledHost(t, version) {
  const real = hostPackageDir(NEWEST_TESTED);
  const dir = mkdtempSync(join(tmpdir(), `ptn-doctor-pi-${version}-`));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "package"));
  const pkg = JSON.parse(readFileSync(join(real, "package.json"), "utf8"));
  writeFileSync(join(dir, "package", "package.json"), JSON.stringify({ ...pkg, version }));
  symlinkSync(join(real, "dist"), join(dir, "package", "dist"));
  symlinkSync(join(hostDir(NEWEST_TESTED), "node_modules"), join(dir, "node_modules"));
  return dir;
}

for (const [version, relation] of [["1.7.0", "newer"], ["0.70.0", "older"]]) {
  test(`doctor on a pi ${relation} than every tested version (${version}, the ${NEWEST_TESTED} host relabeled): warns it is untested, exit 0`, (t) => {
    assert.ok(hostAvailable(NEWEST_TESTED), `pi ${NEWEST_TESTED} is not installed at ${hostDir(NEWEST_TESTED)}: run bash scripts/setup-hosts.sh`);
    const r = doctor(nodeFor(NEWEST_TESTED), ["--pi", relabeledHost(t, version)], agentDir(t, true));
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, new RegExp(`^pi ${version.replace(/\./g, "\\.")} \\(`));
    for (const s of SURFACES) assert.match(r.stdout, new RegExp(`present  ${s}:`), s);
    const warnings = r.stdout.split("\n").filter((l) => l.startsWith("warning: "));
    assert.equal(warnings.length, 1, r.stdout);
    assert.ok(warnings[0].includes(`pi ${version} is ${relation} than any version this plugin was tested in (tested: pi ${OLDEST_TESTED} to ${NEWEST_TESTED})`), warnings[0]);
    if (relation === "newer") assert.ok(warnings[0].includes("`npm run probe`"), warnings[0]);
    assert.match(r.stdout, /Everything the plugin needs is there\./);
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

test(`doctor: npm:pi-tree-navigator in pi's settings is not this package (that registry name is not ours)`, (t) => {
  const version = NEWEST_TESTED;
  assert.ok(hostAvailable(version), `pi ${version} is not installed at ${hostDir(version)}: run bash scripts/setup-hosts.sh`);
  for (const entry of ["npm:pi-tree-navigator", "npm:pi-tree-navigator@0.1.0", { source: "npm:pi-tree-navigator" }]) {
    const dir = agentDir(t, false);
    writeFileSync(join(dir, "settings.json"), JSON.stringify({ packages: [entry] }));
    const r = doctor(nodeFor(version), ["--pi", hostDir(version)], dir);
    assert.equal(r.status, 1, r.stdout);
    assert.match(r.stdout, /settings: pi-tree-navigator not listed/);
    const problems = r.stdout.split("\n\n").at(-1).trim().split("\n");
    assert.deepEqual(problems, [
      `pi's settings list npm:pi-tree-navigator: that registry name is not this package (it is not published there); remove it and run \`pi install ${resolve(pkgDir)}\`.`,
      `pi's settings do not list pi-tree-navigator: run \`pi install ${resolve(pkgDir)}\`.`,
    ], JSON.stringify(entry));
  }
});
