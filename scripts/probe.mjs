#!/usr/bin/env node
// `npm run probe`: does this checkout work in the newest pi on the registry? What a maintainer runs when pi
// releases (not part of `npm test`: it asks the registry and may install a new host).
//   1. resolves the newest @earendil-works/pi-coding-agent (`npm view … version`; or the version given:
//      `npm run probe -- 1.6.0`);
//   2. installs it as a host with scripts/setup-hosts.sh (npm install before 0.99, the tarball's bundle from 0.99 on;
//      scripts/hosts.mjs installKind), and the newest tested host beside it;
//   3. builds pkg/ (scripts/build.mjs; PTN_PROBE_NO_BUILD=1 skips it) and runs on that host the e2e suite
//      (PTN_E2E_HOSTS), the differential tests (DIFF_HOSTS) and `doctor`;
//   4. prints what changed in pi's public surface that the shim touches since the newest tested version
//      (scripts/surface.mjs) and a verdict.
// Exit 0 green (every suite passed and every export the shim uses is there), 1 broken (or the probe could not run).
// Each step's full output goes to $PTN_CACHE/probe/<version>/<step>.log.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { NEWEST_TESTED, TESTED_HOSTS, compareVersions } from "../js/tested-hosts.js";
import { hostAvailable, hostDir, hostPackageDir, installKind, nodeFor, ptnCache } from "./hosts.mjs";
import { diffSurfaces, formatSurfaceDiff, readSurface } from "./surface.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const PI_PKG = "@earendil-works/pi-coding-agent";
const say = (m) => console.log(`[probe] ${m}`);
const die = (m) => {
  console.log(`[probe] ${m}\n\nprobe verdict: BROKEN (the probe could not run)`);
  process.exit(1);
};

// --- 1. the version -------------------------------------------------------------------------------
let version = process.argv[2];
if (version && !/^\d+\.\d+\.\d+/.test(version)) die(`usage: npm run probe [-- <pi version>] ("${version}" is not a version)`);
if (!version) {
  const r = spawnSync("npm", ["view", PI_PKG, "version"], { encoding: "utf8", timeout: 60_000 });
  version = r.stdout?.trim().split("\n").pop();
  if (r.status !== 0 || !/^\d+\.\d+\.\d+/.test(version ?? "")) die(`npm view ${PI_PKG} version failed: ${(r.stderr || r.error?.message || "").trim()}`);
}
const relation = TESTED_HOSTS.some((h) => h.version === version)
  ? "a tested version"
  : compareVersions(version, NEWEST_TESTED) > 0 ? `newer than the newest tested (${NEWEST_TESTED})` : "untested";
say(`pi ${version} (${relation}); installed as: ${installKind(version) === "bundle" ? "tarball bundle" : "npm install"}`);

const logDir = join(ptnCache(), "probe", version);
mkdirSync(logDir, { recursive: true });
/** Runs a step with its output in <logDir>/<name>.log; returns {ok, out, seconds}. */
function step(name, cmd, args, env = {}) {
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { cwd: root, encoding: "utf8", env: { ...process.env, ...env }, maxBuffer: 512 * 1024 * 1024 });
  const out = `${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? `\n${r.error.message}` : ""}`;
  writeFileSync(join(logDir, `${name}.log`), out);
  return { ok: r.status === 0, out, seconds: Math.round((Date.now() - t0) / 1000) };
}
const tail = (out, n = 30) => out.trimEnd().split("\n").slice(-n).map((l) => `    ${l}`).join("\n");

// --- 2. install -----------------------------------------------------------------------------------
const wanted = [...new Set([version, NEWEST_TESTED])];
const of = (kind) => wanted.filter((v) => installKind(v) === kind).join(" ") || " "; // ' ': none of that kind
const setup = step("setup-hosts", "bash", ["scripts/setup-hosts.sh"], { PI_VERSIONS: of("npm"), PI_BUNDLE_VERSIONS: of("bundle") });
if (!setup.ok || !hostAvailable(version)) die(`installing pi ${version} failed (${join(logDir, "setup-hosts.log")}):\n${tail(setup.out)}`);
say(`installed: ${hostDir(version)} (${setup.seconds}s)`);

// --- 3. build, e2e, differential tests, doctor ----------------------------------------------------
if (process.env.PTN_PROBE_NO_BUILD !== "1") {
  const build = step("build", process.execPath, ["scripts/build.mjs"]);
  if (!build.ok) die(`the build failed (${join(logDir, "build.log")}):\n${tail(build.out)}`);
  say(`built pkg/ (${build.seconds}s)`);
}
const results = [];
const check = (name, r, summary) => {
  results.push({ name, ok: r.ok });
  say(`${name}: ${r.ok ? "ok" : "FAILED"} — ${summary} (${r.seconds}s; ${join(logDir, `${name}.log`)})`);
  if (!r.ok) console.log(tail(r.out));
};
const e2e = step("e2e", process.execPath, ["--test", "tests/e2e/e2e.test.mjs"], { PTN_E2E_HOSTS: version });
check("e2e", e2e, e2e.out.match(/── pi \S+ on Node \S+: ([^─]+)──/)?.[1].trim() ?? "no summary line");
const diff = step("diff", process.execPath, ["--test", "tests/diff/diff.test.mjs"], { DIFF_HOSTS: version });
check("diff", diff, [...diff.out.matchAll(/^# (pass|fail) (\d+)/gm)].map((m) => `${m[2]} ${m[1]}ed`).join(", ") || "no summary");

const agentDir = mkdtempSync(join(tmpdir(), "ptn-probe-"));
writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ packages: [join(root, "pkg")] }));
const doctor = step("doctor", nodeFor(version), [join(root, "pkg", "cli.js"), "doctor", "--pi", hostDir(version)], { PI_CODING_AGENT_DIR: agentDir });
rmSync(agentDir, { recursive: true, force: true });
check("doctor", doctor, doctor.out.includes("Everything the plugin needs is there.") ? "every surface present" : "problems reported");
if (doctor.ok) console.log(doctor.out.split("\n").filter((l) => /^ {2}\w|^warning:/.test(l)).map((l) => `    ${l}`).join("\n"));

// --- 4. the surface diff and the verdict ----------------------------------------------------------
const surface = diffSurfaces(readSurface(hostPackageDir(NEWEST_TESTED)), readSurface(hostPackageDir(version)));
console.log(`\n${formatSurfaceDiff(surface)}`);
results.push({ name: "surface", ok: surface.exports.usedMissing.length === 0 });

const failed = results.filter((r) => !r.ok).map((r) => r.name);
const surfaceWord = surface.empty ? "same as tested" : "changed (read the diff above)";
console.log(`\nprobe verdict: pi ${version} — ${failed.length ? `BROKEN (${failed.join(", ")} failed)` : "GREEN"}; e2e, differential tests, doctor ${failed.some((f) => f !== "surface") ? "did not all pass" : "passed"}; surface ${surfaceWord}`);
if (!failed.length && compareVersions(version, NEWEST_TESTED) > 0) {
  console.log(`Next: add { version: "${version}", install: "${installKind(version)}", node: 22 } to js/tested-hosts.js and a row to docs/hosts.md's version table (tests/js/tested-hosts.test.js checks it), then npm test.`);
}
process.exit(failed.length ? 1 : 0);
