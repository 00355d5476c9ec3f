// The shim's half of the config file: it finds and reads both layers (global = pi's agent dir, project =
// <cwd>/.pi/, the latter only when pi trusts the project) and hands what it found to the core, which
// parses and merges them (the rules themselves are table-tested in src/config.rs). Run `npm run build` first.
import { after, test } from "node:test";
import { fakePi, loadPkg, pkgDir } from "./fake-pi.js";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** pi's package as config.js sees it here: its agent dir is PI_CODING_AGENT_DIR. */
const FAKE_PI = `export function getAgentDir() { return process.env.PI_CODING_AGENT_DIR; }`;
fakePi(FAKE_PI);
const { loadConfig, readLayer } = await loadPkg("config.js");
const core = await loadPkg("index-node.js");

const made = [];
after(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

function dirs(global, project) {
  const root = mkdtempSync(join(tmpdir(), "ptn-config-"));
  made.push(root);
  const agentDir = join(root, "agent");
  const cwd = join(root, "cwd");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(join(cwd, ".pi"), { recursive: true });
  if (global !== undefined) writeFileSync(join(agentDir, "tree-navigator.json"), global);
  if (project !== undefined) writeFileSync(join(cwd, ".pi", "tree-navigator.json"), project);
  process.env.PI_CODING_AGENT_DIR = agentDir;
  return { agentDir, cwd };
}

test("no files: defaults, no warnings", () => {
  const { cwd } = dirs();
  const r = loadConfig(core, { cwd });
  assert.deepEqual(r.config, { hintPercent: 70, startAnchorTurn: 2, cacheSummary: true, cacheCompaction: true, archiveNotice: true, ledgerTokens: 600, loopHint: 3, archiveOnExit: false, archiveOnExitMinMB: 10 });
  assert.deepEqual(r.warnings, []);
});

test("both layers are read from pi's agent dir and <cwd>/.pi; the project wins per field", () => {
  const { cwd } = dirs(JSON.stringify({ contextHint: 40, cacheSummary: false, archiveNotice: false, ledgerTokens: 900, loopHint: 5, archiveOnExitMinMB: 25 }), JSON.stringify({ contextHint: 60, ledgerTokens: "off", loopHint: "off", archiveOnExit: true }));
  const r = loadConfig(core, { cwd });
  assert.deepEqual(r.config, { hintPercent: 60, startAnchorTurn: 2, cacheSummary: false, cacheCompaction: true, archiveNotice: false, ledgerTokens: null, loopHint: null, archiveOnExit: true, archiveOnExitMinMB: 25 });
});

test("an untrusted project is neither read nor warned about", () => {
  const { cwd } = dirs(JSON.stringify({ contextHint: 40 }), "{ broken");
  const r = loadConfig(core, { cwd, isProjectTrusted: () => false });
  assert.equal(r.config.hintPercent, 40);
  assert.deepEqual(r.warnings, []);
  const trusted = loadConfig(core, { cwd, isProjectTrusted: () => true });
  assert.equal(trusted.warnings.length, 1);
  assert.match(trusted.warnings[0], /project config .* is not valid JSON/);
});

/** Copies folder `from` to `to`, every file readable and every folder enterable by anyone (whatever the umask). */
function copyReadable(from, to) {
  mkdirSync(to, { recursive: true });
  chmodSync(to, 0o755);
  for (const e of readdirSync(from, { withFileTypes: true })) {
    if (e.isDirectory()) copyReadable(join(from, e.name), join(to, e.name));
    else if (e.isFile()) {
      copyFileSync(join(from, e.name), join(to, e.name));
      chmodSync(join(to, e.name), 0o644);
    }
  }
}

/** Whether a user other than the owner may run the program at `path`: it and every folder above it open to others. */
function othersMayRun(path) {
  for (let p = path; ; p = dirname(p)) {
    if ((statSync(p).mode & 0o001) === 0) return false;
    if (p === dirname(p)) return true;
  }
}

/**
 * `loadConfig(core, {cwd})` of the built package run by the user nobody, for a test running as root (root reads
 * every file, whatever its mode). The child runs copies of pkg/ and fake-pi.js in a folder anyone can read (the
 * checkout may sit under a home only root may enter), through `setpriv` or, failing that, `runuser` (util-linux,
 * both on Debian). Throws, naming what each tool said, when neither can run Node as another user.
 */
function loadConfigAsNobody(agentDir, cwd) {
  const dir = mkdtempSync(join(tmpdir(), "ptn-config-nobody-"));
  made.push(dir);
  chmodSync(dir, 0o755);
  copyReadable(pkgDir, join(dir, "pkg"));
  copyFileSync(fileURLToPath(new URL("./fake-pi.js", import.meta.url)), join(dir, "fake-pi.js"));
  writeFileSync(join(dir, "child.mjs"), `import { fakePi, loadPkg } from "./fake-pi.js";
fakePi(${JSON.stringify(FAKE_PI)});
const { loadConfig } = await loadPkg("config.js");
const core = await loadPkg("index-node.js");
process.stdout.write(JSON.stringify({ uid: process.getuid(), ...loadConfig(core, { cwd: process.argv[2] }) }));
`);
  for (const f of ["fake-pi.js", "child.mjs"]) chmodSync(join(dir, f), 0o644);
  // Node itself may sit where only root may go (a Node under /root): then a copy runs.
  let node = realpathSync(process.execPath);
  if (!othersMayRun(node)) {
    copyFileSync(node, join(dir, "node"));
    chmodSync(join(dir, "node"), 0o755);
    node = join(dir, "node");
  }
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, PI_CODING_AGENT_DIR: agentDir, PTN_PKG_DIR: join(dir, "pkg") };
  const tools = [
    ["setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]],
    ["runuser", ["-u", "nobody", "--"]],
  ];
  const said = [];
  for (const [tool, args] of tools) {
    const r = spawnSync(tool, [...args, node, join(dir, "child.mjs"), cwd], { cwd: dir, env, encoding: "utf8", timeout: 60_000 });
    if (r.status === 0) {
      const out = JSON.parse(r.stdout);
      assert.notEqual(out.uid, 0, `${tool} ran the child as root`);
      return out;
    }
    said.push(`${tool}: ${r.error?.message ?? `exit ${r.status}: ${r.stderr.trim().split("\n").slice(-3).join(" | ")}`}`);
  }
  throw new Error(`running as root, and no way to read the file as the user nobody:\n${said.join("\n")}`);
}

test("an unreadable file is one warning with its path (as the user nobody when the tests run as root)", () => {
  const { agentDir, cwd } = dirs("{}");
  const file = join(agentDir, "tree-navigator.json");
  // Only the file's own mode may keep it from the reader: the folders above it stay open to anyone.
  for (let d = agentDir; d !== tmpdir() && d.startsWith(tmpdir()); d = join(d, "..")) chmodSync(d, 0o755);
  chmodSync(file, 0o000);
  const r = process.getuid?.() === 0 ? loadConfigAsNobody(agentDir, cwd) : loadConfig(core, { cwd });
  assert.equal(r.warnings.length, 1, r.warnings.join("\n"));
  assert.match(r.warnings[0], /cannot read the global config/);
  assert.ok(r.warnings[0].includes(file), r.warnings[0]);
  assert.deepEqual(r.config, loadConfig(core, { cwd: dirs().cwd }).config, "the defaults stay in force");
});

test("readLayer: missing, a directory, text", () => {
  const { agentDir } = dirs("{\"x\":1}");
  assert.deepEqual(readLayer(join(agentDir, "nope.json")), { state: "missing" });
  assert.deepEqual(readLayer(undefined), { state: "missing" });
  assert.equal(readLayer(agentDir).state, "unreadable"); // EISDIR
  assert.deepEqual(readLayer(join(agentDir, "tree-navigator.json")), { state: "text", path: join(agentDir, "tree-navigator.json"), text: "{\"x\":1}" });
});

test("bad values reach the user as warnings, the rest stays in force", () => {
  const { cwd } = dirs(JSON.stringify({ contextHint: 500, startAnchorTurn: "soon", cacheSummary: "yes", archiveNotice: "no", loopHint: 1 }));
  const r = loadConfig(core, { cwd });
  assert.deepEqual(r.config, { hintPercent: 70, startAnchorTurn: 2, cacheSummary: true, cacheCompaction: true, archiveNotice: true, ledgerTokens: 600, loopHint: 3, archiveOnExit: false, archiveOnExitMinMB: 10 });
  assert.equal(r.warnings.length, 5, r.warnings.join("\n"));
  assert.ok(r.warnings.includes("tree-navigator: global config: `loopHint` is 1, not an integer 2–20; using 3 repeats."), r.warnings.join("\n"));
});
