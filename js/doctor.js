// `pi-tree-navigator doctor [--pi <dir>]`: is the pi the user runs a host this plugin works in?
// Finds pi (the global npm root, or --pi: a pi-coding-agent package directory, a directory with it in
// node_modules, or an unpacked tarball), prints its version, Node's, the estimate profile that applies and each
// host surface the plugin relies on, and which copies of this package pi's settings list — each as that pi's own
// package manager resolves it (a local path, the release tarball or another npm spec, a git source), whether pi
// loads it, from where and in which version. Two copies loaded (the tool would register twice) and a listed copy
// pi does not load are named with what to run. Exit 1 with one sentence per missing piece. Only looks: nothing is
// installed, fetched, written or run in pi.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
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

/**
 * The oldest pi that keeps an `npm:<name>@file:<tgz>` install (it checks the installed version against a semver
 * range, none for a `file:` spec); older pi compares it with the spec and installs it again at every start.
 */
export const FILE_SPEC_SINCE = "0.87.1";

/** The name of the source checkout's own package.json (the repository root: not a pi package, no wasm). */
const DEV_NAME = `${OUR_NAME}-dev`;

/** A shell word for a POSIX shell: as is when it holds only plain path characters, else single-quoted. */
const shellWord = (s) => (/^[\w./@+:,=-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);

/** The folder holding `file`'s nearest package.json (at most 4 levels up), or null. */
function packageRootOf(file) {
  let dir = dirname(file);
  for (let i = 0; i < 4 && dir !== dirname(dir); i++, dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
  }
  return null;
}

/** pi's parsed npm source with its `version` (pi < 0.87 parses none: the spec after the name's `@`). */
function withVersion(parsed) {
  if (parsed?.type !== "npm" || parsed.version !== undefined || !parsed.spec?.startsWith(`${parsed.name}@`)) return parsed;
  return { ...parsed, version: parsed.spec.slice(parsed.name.length + 1) };
}

/**
 * What kind of `packages` entry `parsed` (pi's own `parseSource`) is, for the report: a local path, the release
 * tarball (`npm:<name>@file:<…>.tgz`), a tarball named by its path alone (`npm:<…>.tgz`, which pi never loads),
 * another npm spec, or a git source.
 */
function kindOf(parsed) {
  if (parsed?.type === "git") return "git";
  if (parsed?.type !== "npm") return "local path";
  if (/^[./~]|\.(tgz|tar\.gz)$/.test(parsed.name)) return "tarball by path alone";
  if (/^file:/.test(parsed.version ?? "")) return /\.(tgz|tar\.gz)$/.test(parsed.version) ? "release tarball" : "npm file: folder";
  return "npm registry";
}

/**
 * Every copy of this package pi's settings name and whether pi loads it, as the host's own package manager
 * resolves them: pi's `DefaultPackageManager` over its `SettingsManager` on a read-only view of the two settings
 * files (`<agent dir>/settings.json`, user; `<cwd>/.pi/settings.json`, project, whose copies pi loads as its trust
 * in the project decides). `listConfiguredPackages` gives each `packages` entry and its install folder (what
 * `pi list` prints), `resolve` the extensions pi would load, with every missing install skipped: nothing is
 * installed, fetched or written.
 *
 * Returns `{copies, files, unknown}`: `copies` are `{source, scope, file, kind, dir, name, version, loads,
 * loadOrder, untrusted, pending}` (`dir` null when pi finds no install; `name`/`version` from that folder's
 * package.json; `loadOrder`: the place among the extensions pi loads, null when it does not; `untrusted`: a project
 * copy pi does not load because the project is not trusted; `pending`: a project copy pi loads once the project is
 * trusted); `unknown` is a sentence when this pi offers no package manager to ask (then `copies` is empty).
 */
export async function findCopies(sdk, { cwd, version }) {
  const agentDir = sdk?.getAgentDir?.() ?? (process.env.PI_CODING_AGENT_DIR || join(homedir(), ".pi", "agent"));
  const fileOf = { user: join(agentDir, "settings.json"), project: join(resolve(cwd), ".pi", "settings.json") };
  const files = Object.values(fileOf).filter((f) => existsSync(f));
  if (typeof sdk?.DefaultPackageManager !== "function" || typeof sdk?.SettingsManager?.fromStorage !== "function") {
    return { copies: [], files, unknown: `pi ${version} offers no package manager to ask` };
  }
  const read = (file) => {
    try {
      return readFileSync(file, "utf8");
    } catch {
      return undefined;
    }
  };
  // pi's storage interface: `withLock(scope, fn)` hands fn the file's text; a text fn returns is not written.
  const storage = { withLock: (scope, fn) => void fn(read(scope === "global" ? fileOf.user : fileOf.project)) };
  let configured;
  let resolved;
  let pm;
  let trust = true;
  try {
    // Resolved as a trusted project would be, so the project's copies are seen; `trust` then says whether pi
    // loads them: pi ≥0.87 reads `.pi/settings.json` only for a project it trusts (its trust store, else the
    // `defaultProjectTrust` setting, else it asks at an interactive start and print mode does not).
    const settingsManager = sdk.SettingsManager.fromStorage(storage);
    if (typeof sdk.ProjectTrustStore === "function") {
      trust = new sdk.ProjectTrustStore(agentDir).get(resolve(cwd));
      const fallback = settingsManager.getDefaultProjectTrust?.();
      trust ??= fallback === "always" ? true : fallback === "never" ? false : null;
    }
    pm = new sdk.DefaultPackageManager({ cwd: resolve(cwd), agentDir, settingsManager });
    configured = pm.listConfiguredPackages();
    resolved = await pm.resolve(async () => "skip");
  } catch (err) {
    return { copies: [], files, unknown: `pi ${version}'s package manager failed: ${String(err?.message ?? err).split("\n")[0]}` };
  }
  const pkgAt = (dir) => (dir ? readJson(join(dir, "package.json")) : null);
  // The extensions pi loads that are this package: their package folder, and the settings entry they came from.
  const loaded = (resolved?.extensions ?? [])
    .filter((r) => r.enabled !== false)
    .map((r, order) => ({ r, order, dir: r.metadata?.packageRoot ?? packageRootOf(r.path) }))
    .filter(({ dir }) => pkgAt(dir)?.name === OUR_NAME);
  const copies = [];
  for (const entry of configured ?? []) {
    const parsed = withVersion(pm.parseSource(entry.source));
    const kind = kindOf(parsed);
    const dir = entry.installedPath ?? null;
    const pkg = pkgAt(dir);
    const ours = pkg?.name === OUR_NAME || pkg?.name === DEV_NAME ||
      (parsed.type === "npm" && (parsed.name === OUR_NAME || (kind === "tarball by path alone" && basename(parsed.name).startsWith(`${OUR_NAME}-`)))) ||
      (!pkg && parsed.type === "git" && String(parsed.path ?? entry.source).includes(OUR_NAME));
    if (!ours) continue;
    const project = entry.scope === "project";
    const load = project && trust === false ? undefined : loaded.find(({ r }) => r.metadata?.source === entry.source && r.metadata?.scope === entry.scope);
    copies.push({ source: entry.source, scope: entry.scope, file: fileOf[entry.scope] ?? null, kind, dir: load?.dir ?? dir, name: pkg?.name ?? null,
      version: pkgAt(load?.dir ?? dir)?.version ?? null, loads: Boolean(load), loadOrder: load?.order ?? null,
      untrusted: project && trust === false, pending: project && trust === null, parsed });
  }
  // Copies pi loads from outside `packages`: an `extensions` entry naming the file, or an extensions folder.
  for (const { r, dir, order } of loaded) {
    if (copies.some((c) => (c.loads || c.untrusted) && c.source === r.metadata?.source && c.scope === r.metadata?.scope)) continue;
    if (r.metadata?.scope === "project" && trust === false) continue;
    const kind = r.metadata?.source === "auto" ? "auto-discovered" : "extensions entry";
    copies.push({ source: r.path, scope: r.metadata?.scope ?? null, file: fileOf[r.metadata?.scope] ?? null, kind, dir, name: OUR_NAME,
      version: pkgAt(dir)?.version ?? null, loads: true, loadOrder: order, untrusted: false, pending: r.metadata?.scope === "project" && trust === null, parsed: null });
  }
  return { copies, files, unknown: null };
}

/**
 * Why pi does not load a listed `copy` (see findCopies), with what to run: one sentence. `install` is the
 * install line that works as written.
 */
function notLoadedWhy(copy, piVersion, install) {
  const { source, kind, dir, name, parsed } = copy;
  const remove = removeCommand(copy);
  if (copy.untrusted) {
    return `pi's settings list ${source} in ${copy.file}, but pi does not trust this project (its trust store says no), so it loads nothing from the project's settings.`;
  }
  if (kind === "npm registry") {
    return `pi's settings list ${source}: that registry name is not this package (it is not published there); remove it and run \`${install}\`.`;
  }
  if (kind === "tarball by path alone") {
    return `pi's settings list ${source}: pi installs a tarball named by its path alone but never loads it (it looks for it under npm/node_modules/${parsed.name.replace(/^\/+/, "")}); ` +
      `run \`${remove}\`, then \`pi install ${copy.scope === "project" ? "-l " : ""}${shellWord(`npm:${OUR_NAME}@file:${resolve(parsed.name.replace(/^~(?=\/)/, homedir()))}`)}\`.`;
  }
  if (name === DEV_NAME) {
    return `pi's settings list ${source}: ${dir} is the source of ${OUR_NAME}, not the built package (pi runs no build: there is no wasm); ` +
      `run \`${remove}\` and install the release tarball or the built pkg/ (README, "Install").`;
  }
  if (/^file:/.test(parsed?.version ?? "") && compareVersions(piVersion, FILE_SPEC_SINCE) < 0) {
    return `pi's settings list ${source}: pi ${piVersion} compares the installed version with "${parsed.version}", so it installs it again at every start and offline never loads it; ` +
      `run \`${remove}\`, unpack the tarball (tar xzf <tgz>) and \`pi install <absolute path of its package/ folder>\`.`;
  }
  if (!dir) {
    return `pi's settings list ${source}, but pi finds no install of it: pi installs it at its next start when npm or git can reach it, or run \`pi install ${shellWord(source)}\`.`;
  }
  return `pi's settings list ${source} (installed at ${dir}), but pi ${piVersion} does not load it (an entry filter, or a folder pi does not read as a package).`;
}

/**
 * The install line that works as written: `pi install <absolute path of this package>` (the directory doctor runs
 * from, when it is the built package). Never a registry name: `pi-tree-navigator` on npm is not ours.
 */
export function installCommand() {
  const here = dirname(fileURLToPath(import.meta.url));
  if (readJson(join(here, "package.json"))?.name !== OUR_NAME) return "pi install <path of the built package, pkg/>";
  return `pi install ${shellWord(here)}`;
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
 * settings: {files, copies, loaded, unknown, doctor}, problems: string[], warnings: string[]}` (`copies`: every copy
 * of this package pi's settings name, see findCopies; `loaded`: those pi loads, in its order; `doctor`: the copy
 * doctor runs from). Warnings leave the exit code at 0.
 */
export async function diagnose({ piDir, cwd = process.cwd(), profileOf } = {}) {
  const problems = [];
  const warnings = [];
  const report = { pi: null, node: process.version, profile: null, surfaces: [], settings: { files: [], copies: [], loaded: [], unknown: null, doctor: null }, problems, warnings };
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

  const found = sdk ? await findCopies(sdk, { cwd, version: pkg.version }) : { copies: [], files: [], unknown: "pi could not be loaded" };
  const copies = found.copies.map(({ parsed, ...copy }) => copy);
  const loaded = copies.filter((c) => c.loads).sort((a, b) => a.loadOrder - b.loadOrder);
  report.settings = { files: found.files, copies, loaded, unknown: found.unknown, doctor: ourCopy() };
  const install = installCommand();
  if (found.unknown) {
    if (sdk) warnings.push(`doctor cannot tell which copy of ${OUR_NAME} pi loads: ${found.unknown}.`);
    return report;
  }
  if (loaded.length > 1) {
    // Keep the first copy pi loads without asking (a project copy waits for the project's trust).
    const keep = loaded.find((c) => !c.pending) ?? loaded[0];
    problems.push(`pi loads ${OUR_NAME} ${loaded.length} times (${loaded.map((c) => c.dir).join(", ")}): navigate_tree would register twice, ` +
      `which pi reports as \`Tool "navigate_tree" conflicts with …\` (pi -p stops there). Keep ${keep.dir}: ${loaded.filter((c) => c !== keep).map(removeHint).join("; ")}.`);
  }
  for (const copy of found.copies.filter((c) => !c.loads)) (loaded.length ? warnings : problems).push(notLoadedWhy(copy, pkg.version, install));
  if (copies.length === 0) problems.push(`pi's settings do not list ${OUR_NAME}: run \`${install}\`.`);
  return report;
}

/** How to drop a loaded `copy`: `pi remove` for a `packages` entry, else where the file is listed or lies. */
function removeHint(copy) {
  if (copy.kind === "extensions entry") return `remove ${copy.source} from "extensions" in ${copy.file}`;
  if (copy.kind === "auto-discovered") return `move ${dirname(copy.source)} out of pi's extensions folder`;
  return `run \`${removeCommand(copy)}\``;
}

/**
 * The `pi remove` line for a `packages` entry: a local path as an absolute one (pi matches what `remove` is given
 * against the cwd, what settings hold against the settings file's folder), `-l` for the project's settings.
 */
function removeCommand(copy) {
  const source = copy.kind === "local path" && copy.dir ? copy.dir : copy.source;
  // pi changes an untrusted project's settings only with --approve.
  const project = copy.scope === "project" ? `-l ${copy.pending || copy.untrusted ? "--approve " : ""}` : "";
  return `pi remove ${project}${shellWord(source)}`;
}

/** This doctor's own copy: `{dir, version}` of the package it runs from (null when run from js/). */
function ourCopy() {
  const dir = dirname(fileURLToPath(import.meta.url));
  const pkg = readJson(join(dir, "package.json"));
  return pkg?.name === OUR_NAME ? { dir, version: pkg.version } : null;
}

/** The settings part of the report: which copy pi loads, then each copy listed. */
function settingsLines({ files, copies, loaded, unknown, doctor }) {
  const where = files.length ? files.join(", ") : "no settings file";
  if (unknown) return [`settings: which copy of ${OUR_NAME} pi loads is unknown (${unknown})`];
  if (copies.length === 0) return [`settings: ${OUR_NAME} not listed (${where})`];
  const first = loaded[0];
  const head = loaded.length === 0 ? `settings: pi loads no copy of ${OUR_NAME}`
    : loaded.length === 1 ? `settings: pi loads ${OUR_NAME} ${first.version ?? "(no version)"} from ${first.dir}`
    : `settings: pi loads ${OUR_NAME} ${loaded.length} times`;
  const lines = [head];
  for (const c of copies) {
    const at = c.dir ? ` → ${c.dir}${c.version ? ` (${c.version})` : ""}` : "";
    const once = c.pending ? " — once this project is trusted (pi asks at an interactive start; pi -p only with --approve)" : "";
    lines.push(`  ${c.loads ? "loads     " : "not loaded"}  ${c.source} — ${c.kind}${c.file ? ` in ${c.file}` : ""}${at}${once}`);
  }
  if (doctor && loaded.length === 1 && doctor.dir !== first.dir) lines.push(`  (this doctor runs from another copy: ${doctor.dir}, ${doctor.version})`);
  return lines;
}

/** The report as text. */
export function formatReport(r) {
  const lines = [];
  lines.push(r.pi ? `pi ${r.pi.version} (${r.pi.dir})` : "pi: not found");
  lines.push(`Node ${r.node}`);
  if (r.profile) lines.push(`estimate profile: ${r.profile}`);
  for (const s of r.surfaces) lines.push(`  ${s.ok === null ? "unknown" : s.ok ? "present" : "MISSING"}  ${s.name}: ${s.detail}`);
  if (r.pi) lines.push(...settingsLines(r.settings));
  if (r.warnings?.length) lines.push("", ...r.warnings.map((w) => `warning: ${w}`));
  if (r.problems.length) {
    lines.push("", ...r.problems);
  } else {
    lines.push("", "Everything the plugin needs is there.");
  }
  return lines.join("\n");
}
