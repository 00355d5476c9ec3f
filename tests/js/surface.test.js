// scripts/surface.mjs — the public-surface diff `npm run probe` prints — on real hosts from the cache (no network):
// the newest two tested versions, an older pair with real changes in what the shim uses, and the newest host with
// a used member and a used export removed on purpose.
import test from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { diffSurfaces, formatSurfaceDiff, readSurface, TOUCHED, USED_EXPORTS } from "../../scripts/surface.mjs";
import { TESTED_HOSTS, NEWEST_TESTED } from "../../js/tested-hosts.js";
import { hostAvailable, hostDir, hostPackageDir } from "../../scripts/hosts.mjs";

const need = (version) => assert.ok(hostAvailable(version), `pi ${version} is not installed at ${hostDir(version)}: run bash scripts/setup-hosts.sh`);
const PREVIOUS = TESTED_HOSTS.at(-2).version;

test(`every declaration and used member the surface list names is in pi ${NEWEST_TESTED} (the list is not stale)`, () => {
  need(NEWEST_TESTED);
  const s = readSurface(hostPackageDir(NEWEST_TESTED));
  for (const name of USED_EXPORTS) assert.ok(s.exports.has(name), `pi ${NEWEST_TESTED} does not export ${name}`);
  for (const { name, uses } of TOUCHED) {
    const d = s.declarations[name];
    assert.ok(d, `no declaration of ${name} in pi ${NEWEST_TESTED}'s .d.ts files`);
    for (const u of uses) assert.ok(d.members?.has(u), `${name} has no member ${u} in pi ${NEWEST_TESTED}`);
  }
});

test(`pi ${PREVIOUS} → ${NEWEST_TESTED}: nothing the shim touches changed; the documented additions are elsewhere`, () => {
  need(PREVIOUS);
  need(NEWEST_TESTED);
  const d = diffSurfaces(readSurface(hostPackageDir(PREVIOUS)), readSurface(hostPackageDir(NEWEST_TESTED)));
  assert.equal(d.from, PREVIOUS);
  assert.equal(d.to, NEWEST_TESTED);
  assert.deepEqual(d.declarations, []);
  assert.deepEqual(d.exports, { added: [], removed: [], usedMissing: [] });
  assert.equal(d.empty, true);
  if (PREVIOUS === "1.5.2" && NEWEST_TESTED === "1.6.0") {
    // pi-host.md §8: AgentSessionRuntime.takeUnreportedDiagnostics(), ExtensionRuntime.reportError, the read tool's
    // details.imageUnsupportedByModel — none in a declaration the shim touches, but their files changed. (Exec's
    // "128 + signal" exit code is a doc comment only: core/exec.d.ts is the same, comments aside.)
    assert.ok(!d.files.includes("core/exec.d.ts"));
    for (const f of ["core/agent-session-runtime.d.ts", "core/extensions/types.d.ts", "core/tools/read.d.ts"]) {
      assert.ok(d.files.includes(f), `${f} not among the changed files: ${d.files.join(" ")}`);
    }
  }
  const text = formatSurfaceDiff(d);
  assert.match(text, /same as tested: no change in the exports and declarations the shim touches/);
});

test("pi 0.74.2 → 0.87.1: the members the shim came to rely on show as added and used", () => {
  need("0.74.2");
  need("0.87.1");
  const d = diffSurfaces(readSurface(hostPackageDir("0.74.2")), readSurface(hostPackageDir("0.87.1")));
  assert.equal(d.empty, false);
  const added = (name) => d.declarations.find((e) => e.name === name)?.members?.added.filter((x) => x.used).map((x) => x.member) ?? [];
  assert.ok(added("SessionManager").includes("buildSessionProjection"), JSON.stringify(added("SessionManager")));
  assert.ok(added("ModelRegistry").includes("streamSimple"));
  assert.ok(added("ExtensionAPI").includes('on("context_with_system")'));
  assert.deepEqual(d.declarations.find((e) => e.name === "ContextWithSystemEvent"), { name: "ContextWithSystemEvent", change: "added", used: false });
  const text = formatSurfaceDiff(d);
  assert.match(text, /\+ buildSessionProjection\(\):SessionProjection {2}\(used by the shim\)/);
  assert.doesNotMatch(text, /same as tested/);
});

test(`pi ${NEWEST_TESTED} with branchWithSummary and the SessionManager export removed on purpose: both reported`, (t) => {
  need(NEWEST_TESTED);
  const real = hostPackageDir(NEWEST_TESTED);
  const dir = mkdtempSync(join(tmpdir(), "ptn-surface-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(join(real, "package.json"), join(dir, "package.json"));
  cpSync(join(real, "dist"), join(dir, "dist"), { recursive: true, filter: (p) => !p.includes("/dist/bundle") && (!/\.\w+$/.test(p) || p.endsWith(".d.ts")) });
  const sm = join(dir, "dist", "core", "session-manager.d.ts");
  const src = readFileSync(sm, "utf8");
  const broken = src.replace(/^\s*branchWithSummary\([^;]*;$/m, "");
  assert.notEqual(broken, src, "branchWithSummary's declaration not found to remove");
  writeFileSync(sm, broken);
  const index = join(dir, "dist", "index.d.ts");
  writeFileSync(index, readFileSync(index, "utf8").replace(/ SessionManager,/, ""));

  const d = diffSurfaces(readSurface(real), readSurface(dir));
  assert.equal(d.empty, false);
  assert.deepEqual(d.exports.usedMissing, ["SessionManager"]);
  assert.deepEqual(d.exports.removed, ["SessionManager"]);
  const removed = d.declarations.find((e) => e.name === "SessionManager")?.members?.removed ?? [];
  assert.deepEqual(removed.map((x) => [x.member, x.used]), [["branchWithSummary", true]]);
  assert.ok(d.files.includes("core/session-manager.d.ts") && d.files.includes("index.d.ts"));
  const text = formatSurfaceDiff(d);
  assert.match(text, /MISSING exports the shim uses: SessionManager/);
  assert.match(text, /- branchWithSummary\(.*\(used by the shim\)/);
});
