// The shim's half of the config file: it finds and reads both layers (global = pi's agent dir, project =
// <cwd>/.pi/, the latter only when pi trusts the project) and hands what it found to the core, which
// parses and merges them (the rules themselves are table-tested in src/config.rs). Run `npm run build` first.
import { after, test } from "node:test";
import { fakePi, loadPkg } from "./fake-pi.js";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

fakePi(`export function getAgentDir() { return process.env.PI_CODING_AGENT_DIR; }`);
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
  assert.deepEqual(r.config, { hintPercent: 70, startAnchorTurn: 2, cacheSummary: true, cacheCompaction: true, archiveNotice: true, ledgerTokens: 600, loopHint: 3 });
  assert.deepEqual(r.warnings, []);
});

test("both layers are read from pi's agent dir and <cwd>/.pi; the project wins per field", () => {
  const { cwd } = dirs(JSON.stringify({ contextHint: 40, cacheSummary: false, archiveNotice: false, ledgerTokens: 900, loopHint: 5 }), JSON.stringify({ contextHint: 60, ledgerTokens: "off", loopHint: "off" }));
  const r = loadConfig(core, { cwd });
  assert.deepEqual(r.config, { hintPercent: 60, startAnchorTurn: 2, cacheSummary: false, cacheCompaction: true, archiveNotice: false, ledgerTokens: null, loopHint: null });
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

test("an unreadable file is one warning with its path", { skip: process.getuid?.() === 0 ? "root reads every file" : false }, () => {
  const { agentDir, cwd } = dirs("{}");
  chmodSync(join(agentDir, "tree-navigator.json"), 0o000);
  const r = loadConfig(core, { cwd });
  assert.equal(r.warnings.length, 1);
  assert.match(r.warnings[0], /cannot read the global config/);
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
  assert.deepEqual(r.config, { hintPercent: 70, startAnchorTurn: 2, cacheSummary: true, cacheCompaction: true, archiveNotice: true, ledgerTokens: 600, loopHint: 3 });
  assert.equal(r.warnings.length, 5, r.warnings.join("\n"));
  assert.ok(r.warnings.includes("tree-navigator: global config: `loopHint` is 1, not an integer 2–20; using 3 repeats."), r.warnings.join("\n"));
});
