// Host paths for the e2e suite: the setup scripts' helpers (scripts/hosts.mjs) plus the built package.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { HOST_VERSIONS, hostAvailable, hostEntryPath, hostPackageDir, isBundleHost, node22Path, nodeFor, piCliPath, ptnCache } from "../../../scripts/hosts.mjs";

export { HOST_VERSIONS, hostAvailable, hostEntryPath, isBundleHost, nodeFor, piCliPath, ptnCache };

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** The built package pi loads the extension from (`npm run build` → pkg/); PTN_PKG_DIR overrides. */
export const PKG_DIR = process.env.PTN_PKG_DIR ?? join(REPO, "pkg");

export const FIXTURES = join(REPO, "tests/e2e/fixtures");

/** An installed package of a host, e.g. packageDir("0.75.5", "pi-ai"). */
export function packageDir(version, name) {
  return join(dirname(hostPackageDir(version)), name);
}

/** What is missing to run the e2e suite on `versions` (default: every tested host), as human-readable items. */
export function missingPrerequisites(versions = HOST_VERSIONS) {
  const missing = versions.filter((v) => !hostAvailable(v)).map((v) => `pi ${v} (run scripts/setup-hosts.sh)`);
  if (!existsSync(node22Path())) missing.push("Node 22 (run scripts/setup-hosts.sh)");
  if (!existsSync(join(PKG_DIR, "extension.js"))) missing.push(`${PKG_DIR}/extension.js (run npm run build)`);
  return missing;
}

/**
 * For the demos: exits with a clear message when pi `version` or the built package is missing, and re-runs
 * the calling script (with `args`) under the Node that pi needs; returns only when already running under it.
 */
export function runDemoUnderHostNode(version, args) {
  if (!hostAvailable(version)) {
    console.error(`pi ${version} is not installed: run bash scripts/setup-hosts.sh`);
    process.exit(1);
  }
  if (!existsSync(join(PKG_DIR, "extension.js"))) {
    console.error(`${PKG_DIR}/extension.js missing: run npm run build`);
    process.exit(1);
  }
  const node = nodeFor(version);
  if (process.env.PTN_DEMO_CHILD !== "1" && node !== process.execPath) {
    const r = spawnSync(node, [process.argv[1], ...args], { stdio: "inherit", env: { ...process.env, PTN_DEMO_CHILD: "1" } });
    process.exit(r.status ?? 1);
  }
}

/**
 * Runs `cmd args` as a child without blocking this process (a mock in it answers from its event loop):
 * `{status, stdout, stderr}`; killed after two minutes.
 */
export function runChild(cmd, args, env, cwd) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
