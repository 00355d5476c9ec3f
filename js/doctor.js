// `pi-tree-navigator doctor [--pi <dir>]`: is the pi the user runs a host this plugin works in?
// Finds pi (the global npm root, or --pi: a pi-coding-agent package directory, a directory with it in
// node_modules, or an unpacked tarball), prints its version, Node's, the estimate profile that applies and each
// host surface the plugin relies on, and whether pi's settings list this package. Exit 1 with one sentence per
// missing piece. Only looks: nothing is installed, written or run in pi.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { NEWEST_TESTED, OLDEST_TESTED, compareVersions } from "./tested-hosts.js";

const PI_PKG = "@earendil-works/pi-coding-agent";
const OUR_NAME = "pi-tree-navigator";

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}

/** The pi-coding-agent package directory for `dir` (the package itself, an npm install, an unpacked tarball). */
export function findPiPackage(dir) {
  const candidates = [dir, join(dir, "package"), join(dir, "node_modules", ...PI_PKG.split("/")), join(dir, ...PI_PKG.split("/"))];
  return candidates.find((d) => readJson(join(d, "package.json"))?.name === PI_PKG) ?? null;
}

/** The global npm root's pi, or null. */
function globalPi() {
  try {
    const root = execFileSync("npm", ["root", "-g"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 20_000 }).trim();
    return root ? findPiPackage(root) : null;
  } catch {
    return null;
  }
}

/** The module to import the SDK from: the bundle when the tarball has one (pi ≥0.99), else the package's main. */
function sdkEntry(pkgDir, pkg) {
  const bundle = join(pkgDir, "dist", "bundle", "index.js");
  if (existsSync(bundle)) return bundle;
  let main = pkg.exports?.["."];
  if (main && typeof main === "object") main = main.import ?? main.default;
  return join(pkgDir, main ?? pkg.main ?? "dist/index.js");
}

/** `settings.json` files pi reads packages from: the agent dir's, and the project's `.pi/`. */
function settingsFiles(cwd) {
  const agentDir = process.env.PI_CODING_AGENT_DIR || join(homedir(), ".pi", "agent");
  return [join(agentDir, "settings.json"), join(cwd, ".pi", "settings.json")];
}

/** The `source` of a `packages`/`extensions` entry (a string, or an object's `source`), or null. */
const sourceOf = (entry) => {
  const source = typeof entry === "string" ? entry : entry?.source;
  return typeof source === "string" ? source : null;
};

/** Whether a `packages` entry names `pi-tree-navigator` on the npm registry: a name that is not ours there. */
const isRegistryName = (entry) => /^npm:/.test(sourceOf(entry) ?? "") && sourceOf(entry).slice(4).replace(/(.)@[^@/]*$/, "$1") === OUR_NAME;

/**
 * Whether a `packages` entry is this package: a path whose package.json names it (or a git/URL source naming it).
 * `npm:pi-tree-navigator` is not: this package is not published under that name, so such an entry installs
 * whatever someone else put there.
 */
function isOurs(entry, base) {
  const source = sourceOf(entry);
  if (source === null || /^npm:/.test(source)) return false;
  if (/^(git:|https?:|ssh:)/.test(source)) return source.includes(OUR_NAME);
  const dir = isAbsolute(source) ? source : resolve(base, source);
  return readJson(join(dir, "package.json"))?.name === OUR_NAME;
}

/**
 * The install line that works as written: `pi install <absolute path of this package>` (the directory doctor runs
 * from, when it is the built package). Never a registry name: `pi-tree-navigator` on npm is not ours.
 */
export function installCommand() {
  const here = dirname(fileURLToPath(import.meta.url));
  if (readJson(join(here, "package.json"))?.name !== OUR_NAME) return "pi install <path of the built package, pkg/>";
  // Quoted for a POSIX shell when the path holds anything but plain path characters.
  return `pi install ${/^[\w./@+:,-]+$/.test(here) ? here : `'${here.replace(/'/g, "'\\''")}'`}`;
}

/**
 * Whether pi `version` lies inside the tested range (js/tested-hosts.js): null when it does, else one sentence. A
 * warning, not a problem: an untested pi may well work, and doctor's surfaces say whether it can.
 */
export function untestedWarning(version) {
  const range = `tested: pi ${OLDEST_TESTED} to ${NEWEST_TESTED}`;
  if (compareVersions(version, NEWEST_TESTED) > 0) {
    return `pi ${version} is newer than any version this plugin was tested in (${range}): it is untested there. ` +
      "From a checkout of pi-tree-navigator, `npm run probe` runs the test suites in the newest pi and shows what changed.";
  }
  if (compareVersions(version, OLDEST_TESTED) < 0) {
    return `pi ${version} is older than any version this plugin was tested in (${range}): it is untested there; ` +
      `updating pi to ${NEWEST_TESTED} is the tested path.`;
  }
  return null;
}

/**
 * Everything doctor reports, as data: `{pi: {dir, version}|null, node, profile, surfaces: [{name, ok, detail}],
 * settings: {listed, files}, problems: string[], warnings: string[]}`. Warnings leave the exit code at 0.
 */
export async function diagnose({ piDir, cwd = process.cwd(), profileOf } = {}) {
  const problems = [];
  const warnings = [];
  const report = { pi: null, node: process.version, profile: null, surfaces: [], settings: { listed: false, files: [] }, problems, warnings };
  const pkgDir = piDir ? findPiPackage(resolve(piDir)) : globalPi();
  if (!pkgDir) {
    problems.push(
      piDir
        ? `${resolve(piDir)} is not a pi installation: no ${PI_PKG} package there (give the package directory, an npm install or an unpacked tarball).`
        : `No pi found in the global npm root: install it (npm install -g ${PI_PKG}) or point doctor at it with --pi <dir>.`,
    );
    return report;
  }
  const pkg = readJson(join(pkgDir, "package.json"));
  report.pi = { dir: pkgDir, version: pkg.version };
  report.profile = profileOf?.(pkg.version) ?? null;
  const untested = untestedWarning(pkg.version);
  if (untested) warnings.push(untested);

  let sdk = null;
  try {
    sdk = await import(pathToFileURL(sdkEntry(pkgDir, pkg)).href);
  } catch (err) {
    const engines = pkg.engines?.node ? ` (it needs Node ${pkg.engines.node}; this is ${process.version})` : "";
    problems.push(`pi ${pkg.version} cannot be loaded by this Node${engines}: ${String(err?.message ?? err).split("\n")[0]}`);
  }
  const sm = sdk?.SessionManager?.prototype ?? {};
  const session = sdk?.AgentSession?.prototype ?? {};
  const registry = sdk?.ModelRegistry?.prototype ?? {};
  const fn = (x) => typeof x === "function";
  const rebuilds = fn(sm.buildSessionProjection);
  const surface = (name, ok, detail, missing) => {
    // Without a loaded SDK nothing can be looked at: "unknown", and the load failure is the one problem.
    report.surfaces.push({ name, ok: sdk ? ok : null, detail });
    if (!ok && sdk) problems.push(missing);
  };
  surface("context event", fn(sdk?.ExtensionRunner?.prototype?.emitContext), "pi.on(\"context\") before every request",
    `pi ${pkg.version} has no context event, so a rewind cannot reach the requests of a running prompt.`);
  surface("branchWithSummary", fn(sm.branchWithSummary), "SessionManager.branchWithSummary",
    `pi ${pkg.version}'s SessionManager has no branchWithSummary, so the tree cannot move.`);
  surface("appendMessage", fn(sm.appendMessage), "SessionManager.appendMessage",
    `pi ${pkg.version}'s SessionManager has no appendMessage, so the rewind call cannot be paired with its result.`);
  surface("generateBranchSummary", fn(sdk?.generateBranchSummary), "exported by the package",
    `pi ${pkg.version} does not export generateBranchSummary, so rewinds cannot be summarized.`);
  const streamFn = String(sdk?.generateBranchSummary ?? "").includes("streamFn");
  surface("summarizer stream function", fn(sdk?.generateBranchSummary) && (!streamFn || fn(registry.streamSimple)),
    streamFn ? "streamFn option; the live agent's, or ctx.modelRegistry.streamSimple" : "pi-ai's global provider registry",
    `pi ${pkg.version}'s summarizer takes a stream function but ctx.modelRegistry has no streamSimple to give it.`);
  surface("refresh path", rebuilds || (fn(sdk?.ExtensionRunner?.prototype?.emitContext) && fn(session.prompt)),
    rebuilds ? "the host rebuilds every request from the session" : "the context event + AgentSession.prompt capture",
    `pi ${pkg.version} offers no way for a rewind to reach the next request.`);
  surface("getContextUsage", fn(session.getContextUsage), "ctx.getContextUsage() (the footer the numbers match)",
    `pi ${pkg.version} has no getContextUsage, so its footer cannot be compared with the tool's numbers.`);

  for (const file of settingsFiles(cwd)) {
    const settings = readJson(file);
    if (!settings) continue;
    report.settings.files.push(file);
    if ((settings.packages ?? []).some((p) => isOurs(p, dirname(file))) || (settings.extensions ?? []).some((p) => isOurs(p, dirname(file)))) {
      report.settings.listed = true;
    }
  }
  if (report.settings.files.some((file) => [...(readJson(file)?.packages ?? []), ...(readJson(file)?.extensions ?? [])].some(isRegistryName))) {
    problems.push(`pi's settings list npm:${OUR_NAME}: that registry name is not this package (it is not published there); remove it and run \`${installCommand()}\`.`);
  }
  if (!report.settings.listed) {
    problems.push(`pi's settings do not list ${OUR_NAME}: run \`${installCommand()}\`.`);
  }
  return report;
}

/** The report as text. */
export function formatReport(r) {
  const lines = [];
  lines.push(r.pi ? `pi ${r.pi.version} (${r.pi.dir})` : "pi: not found");
  lines.push(`Node ${r.node}`);
  if (r.profile) lines.push(`estimate profile: ${r.profile}`);
  for (const s of r.surfaces) lines.push(`  ${s.ok === null ? "unknown" : s.ok ? "present" : "MISSING"}  ${s.name}: ${s.detail}`);
  if (r.pi) lines.push(`settings: ${r.settings.listed ? `lists ${OUR_NAME}` : `${OUR_NAME} not listed`}${r.settings.files.length ? ` (${r.settings.files.map((f) => basename(dirname(f)) + "/" + basename(f)).join(", ")})` : " (no settings file)"}`);
  if (r.warnings?.length) lines.push("", ...r.warnings.map((w) => `warning: ${w}`));
  if (r.problems.length) {
    lines.push("", ...r.problems);
  } else {
    lines.push("", "Everything the plugin needs is there.");
  }
  return lines.join("\n");
}
