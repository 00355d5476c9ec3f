// `pi-tree-navigator doctor` against every host of the matrix (each on the Node it needs) and a directory that is
// not pi. Runs the built CLI (pkg/cli.js).
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ALL_HOST_VERSIONS, hostAvailable, hostDir, hostPackageDir, nodeFor, piCliPath } from "../../scripts/hosts.mjs";
import { NEWEST_TESTED, OLDEST_TESTED } from "../../js/tested-hosts.js";
import { packTarball } from "../../scripts/pack.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const pkgDir = process.env.PTN_PKG_DIR ?? join(root, "pkg");
const SURFACES = ["context event", "branchWithSummary", "appendMessage", "generateBranchSummary", "summarizer stream function", "refresh path", "getContextUsage"];

const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));

function doctor(node, args, agentDir, cli = join(pkgDir, "cli.js")) {
  const env = { ...process.env, PI_CODING_AGENT_DIR: agentDir };
  return { ...spawnSync(node, [cli, "doctor", ...args], { encoding: "utf8", env, cwd: agentDir, timeout: 120_000 }), agent: agentDir };
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
    assert.match(ok.stdout, new RegExp(`estimate profile: ${["0.74.2", "0.75.5"].includes(version) ? "pi-0\\.74" : ["1.5.2", "1.6.0"].includes(version) ? "pi-1\\.5" : "pi-0\\.87"}`));
    for (const s of SURFACES) assert.match(ok.stdout, new RegExp(`present  ${s}:`), s);
    // pi's own package manager resolves the local path: this package, from pkg/, in its version.
    assert.ok(ok.stdout.includes(`settings: pi loads pi-tree-navigator ${manifest.version} from ${resolve(pkgDir)}\n`), ok.stdout);
    assert.ok(ok.stdout.includes(`  loads       ${resolve(pkgDir)} — local path in ${join(ok.agent, "settings.json")} → ${resolve(pkgDir)} (${manifest.version})`), ok.stdout);
    assert.doesNotMatch(ok.stdout, /warning:/, "a tested version gets no untested-version warning");

    const unlisted = doctor(node, ["--pi", hostDir(version)], agentDir(t, false));
    assert.equal(unlisted.status, 1);
    const problems = unlisted.stdout.split("\n\n").at(-1).trim().split("\n");
    assert.deepEqual(problems, [`pi's settings do not list pi-tree-navigator: run \`pi install ${resolve(pkgDir)}\`.`]);
  });
}

/**
 * `sh(command, extraEnv)`: runs `command` in /bin/sh in `dir` as a user would type it, with `pi` on PATH being pi
 * `version`'s own CLI and its agent dir `dir`. Offline: PI_OFFLINE, npm with `offline` and an empty cache of its
 * own (anything it would fetch fails), git with a config of the test's own (`gitConfig`: e.g. a github.com URL
 * rewritten to a local repository) and none of the system's.
 */
function piShell(dir, version, gitConfig = "") {
  const bin = join(dir, "bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "pi"), `#!/bin/sh\nexec '${nodeFor(version)}' '${piCliPath(version)}' "$@"\n`, { mode: 0o755 });
  writeFileSync(join(dir, "gitconfig"), gitConfig);
  const env = {
    ...process.env,
    PATH: `${bin}:${process.env.PATH}`,
    PI_CODING_AGENT_DIR: dir,
    PI_OFFLINE: "1",
    npm_config_offline: "true",
    npm_config_cache: join(dir, "npm-cache"),
    GIT_CONFIG_GLOBAL: join(dir, "gitconfig"),
    GIT_CONFIG_NOSYSTEM: "1",
  };
  delete env.NODE_TEST_CONTEXT;
  return (command, extra = {}) => spawnSync("/bin/sh", ["-c", command], { cwd: dir, env: { ...env, ...extra }, encoding: "utf8", timeout: 120_000 });
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
  const sh = piShell(dir, version);
  const install = sh(advice);
  assert.equal(install.status, 0, `${advice}: ${install.stderr}${install.stdout}`);
  const list = sh("pi list");
  assert.equal(list.status, 0, list.stderr);
  assert.ok(list.stdout.includes(resolve(pkgDir)), `pi list does not show ${resolve(pkgDir)}:\n${list.stdout}`);
  const after = doctor(node, ["--pi", hostDir(version)], dir);
  assert.equal(after.status, 0, after.stdout);
  assert.match(after.stdout, /^settings: pi loads pi-tree-navigator \S+ from /m);

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
    assert.match(r.stdout, /^settings: pi loads no copy of pi-tree-navigator\n  not loaded  npm:pi-tree-navigator\S* — npm registry in /m);
    const problems = r.stdout.split("\n\n").at(-1).trim().split("\n");
    const source = typeof entry === "string" ? entry : entry.source;
    assert.deepEqual(problems, [
      `pi's settings list ${source}: that registry name is not this package (it is not published there); remove it and run \`pi install ${resolve(pkgDir)}\`.`,
    ], JSON.stringify(entry));
  }
});

/** Every file under `dir` with its size and mtime: what doctor must leave as it found it. */
function snapshot(dir) {
  return Object.fromEntries(readdirSync(dir, { recursive: true }).sort().map((f) => {
    const st = lstatSync(join(dir, String(f)));
    return [String(f), `${st.size} ${st.mtimeMs}`];
  }));
}

/** The problems (or with `"warning"`, the warnings) of a doctor run, one sentence each. */
const sentences = (stdout, kind = "problem") =>
  kind === "warning" ? stdout.split("\n").filter((l) => l.startsWith("warning: ")).map((l) => l.slice(9))
    : stdout.split("\n\n").at(-1).trim().split("\n").filter((l) => !/^Everything/.test(l));

/** The release tarball (scripts/pack.mjs) in a folder of the test's own. */
function releaseTarball(t) {
  const out = mkdtempSync(join(tmpdir(), "ptn-doctor-release-"));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  return packTarball({ pkgDir, outDir: out }).file;
}

/**
 * The release tarball installed by pi `version`'s own CLI, as the README says, into a fresh agent dir:
 * `{dir, sh, tgz, source, installed}` (`installed`: where pi's npm puts it).
 */
function tarballInstalled(t, version) {
  const dir = agentDir(t, false);
  const sh = piShell(dir, version);
  const tgz = releaseTarball(t);
  const source = `npm:pi-tree-navigator@file:${tgz}`;
  const install = sh(`pi install '${source}'`);
  assert.equal(install.status, 0, install.stderr + install.stdout);
  return { dir, sh, tgz, source, installed: join(dir, "npm", "node_modules", "pi-tree-navigator") };
}

const NEWEST = NEWEST_TESTED;
const needsNewest = () => assert.ok(hostAvailable(NEWEST), `pi ${NEWEST} is not installed at ${hostDir(NEWEST)}: run bash scripts/setup-hosts.sh`);

test(`doctor after pi ${NEWEST} installed the release tarball: the copy in pi's npm folder, its version; doctor writes nothing`, (t) => {
  needsNewest();
  const { dir, source, installed } = tarballInstalled(t, NEWEST);
  const before = snapshot(dir);
  const r = doctor(nodeFor(NEWEST), ["--pi", hostDir(NEWEST)], dir);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const settings = r.stdout.slice(r.stdout.indexOf("settings:")).split("\n\n")[0].split("\n");
  assert.deepEqual(settings, [
    `settings: pi loads pi-tree-navigator ${manifest.version} from ${installed}`,
    `  loads       ${source} — release tarball in ${join(dir, "settings.json")} → ${installed} (${manifest.version})`,
    `  (this doctor runs from another copy: ${resolve(pkgDir)}, ${manifest.version})`,
  ]);
  assert.deepEqual(snapshot(dir), before, "doctor wrote nothing in the agent dir");
  // The installed copy's own doctor, as the README runs it: the same copy, no "another copy" line.
  const own = doctor(nodeFor(NEWEST), ["--pi", hostDir(NEWEST)], dir, join(installed, "cli.js"));
  assert.equal(own.status, 0, own.stdout + own.stderr);
  assert.doesNotMatch(own.stdout, /another copy/);
  assert.ok(own.stdout.includes(`settings: pi loads pi-tree-navigator ${manifest.version} from ${installed}\n`), own.stdout);
});

test(`doctor on npm:<path>.tgz (pi ${NEWEST} installs it but never loads it): says so, and its two commands, run as written, fix it`, (t) => {
  needsNewest();
  const dir = agentDir(t, false);
  const sh = piShell(dir, NEWEST);
  const tgz = releaseTarball(t);
  assert.equal(sh(`pi install 'npm:${tgz}'`).status, 0);
  const r = doctor(nodeFor(NEWEST), ["--pi", hostDir(NEWEST)], dir);
  assert.equal(r.status, 1, r.stdout);
  assert.match(r.stdout, new RegExp(`^settings: pi loads no copy of pi-tree-navigator\\n  not loaded  npm:${tgz.replace(/[.]/g, "\\.")} — tarball by path alone in `, "m"));
  const fix = `\`pi remove npm:${tgz}\`, then \`pi install npm:pi-tree-navigator@file:${tgz}\``;
  assert.deepEqual(sentences(r.stdout), [
    `pi's settings list npm:${tgz}: pi installs a tarball named by its path alone but never loads it (it looks for it under npm/node_modules/${tgz.slice(1)}); run ${fix}.`,
  ]);
  for (const command of [...r.stdout.matchAll(/`(pi (?:remove|install) [^`]+)`/g)].map((m) => m[1])) {
    const ran = sh(command);
    assert.equal(ran.status, 0, `${command}: ${ran.stderr}${ran.stdout}`);
  }
  const after = doctor(nodeFor(NEWEST), ["--pi", hostDir(NEWEST)], dir);
  assert.equal(after.status, 0, after.stdout);
  assert.ok(after.stdout.includes(`settings: pi loads pi-tree-navigator ${manifest.version} from ${join(dir, "npm", "node_modules", "pi-tree-navigator")}\n`), after.stdout);
});

test(`doctor on git: entries pi ${NEWEST} installed (git clone of a local repository): the built package loads; the source checkout is named`, (t) => {
  needsNewest();
  const dir = agentDir(t, false);
  const repos = mkdtempSync(join(tmpdir(), "ptn-doctor-git-"));
  t.after(() => rmSync(repos, { recursive: true, force: true }));
  const git = (cwd, ...args) => {
    const r = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", ...args], { cwd, encoding: "utf8", env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" } });
    assert.equal(r.status, 0, `git ${args.join(" ")}: ${r.stderr}`);
  };
  // Two repositories as pi would clone them from github.com: one holding the built package (a release branch),
  // one the repository's own root (package "pi-tree-navigator-dev": no pi manifest, no wasm).
  const repo = (name, fill) => {
    const work = join(repos, `${name}-work`);
    mkdirSync(work);
    fill(work);
    git(work, "init", "-q");
    git(work, "add", "-A");
    git(work, "commit", "-qm", "content");
    git(repos, "clone", "-q", "--bare", work, join(repos, `${name}.git`));
    return `[url "file://${join(repos, `${name}.git`)}"]\n\tinsteadOf = https://github.com/example/${name}\n`;
  };
  const config = repo("pi-tree-navigator", (w) => cpSync(pkgDir, w, { recursive: true })) +
    repo("pi-tree-navigator-src", (w) => writeFileSync(join(w, "package.json"), JSON.stringify({ name: "pi-tree-navigator-dev", private: true })));
  const sh = piShell(dir, NEWEST, config);
  for (const source of ["git:github.com/example/pi-tree-navigator", "git:github.com/example/pi-tree-navigator-src"]) {
    const install = sh(`pi install ${source}`);
    assert.equal(install.status, 0, `${source}: ${install.stderr}${install.stdout}`);
  }
  const clone = join(dir, "git", "github.com", "example", "pi-tree-navigator");
  const r = doctor(nodeFor(NEWEST), ["--pi", hostDir(NEWEST)], dir);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.ok(r.stdout.includes(`settings: pi loads pi-tree-navigator ${manifest.version} from ${clone}\n`), r.stdout);
  assert.ok(r.stdout.includes(`  loads       git:github.com/example/pi-tree-navigator — git in ${join(dir, "settings.json")} → ${clone} (${manifest.version})\n`), r.stdout);
  assert.ok(r.stdout.includes(`  not loaded  git:github.com/example/pi-tree-navigator-src — git in ${join(dir, "settings.json")} → ${clone}-src\n`), r.stdout);
  assert.deepEqual(sentences(r.stdout, "warning"), [
    `pi's settings list git:github.com/example/pi-tree-navigator-src: ${clone}-src is the source of pi-tree-navigator, not the built package (pi runs no build: there is no wasm); ` +
      "run `pi remove git:github.com/example/pi-tree-navigator-src` and install the release tarball or the built pkg/ (README, \"Install\").",
  ]);
  // A git entry pi has not cloned yet (it would at its next start, with git reaching the host).
  writeFileSync(join(dir, "settings.json"), JSON.stringify({ packages: ["git:github.com/example/pi-tree-navigator@v9"] }));
  rmSync(join(dir, "git"), { recursive: true });
  const missing = doctor(nodeFor(NEWEST), ["--pi", hostDir(NEWEST)], dir);
  assert.equal(missing.status, 1, missing.stdout);
  assert.deepEqual(sentences(missing.stdout), [
    "pi's settings list git:github.com/example/pi-tree-navigator@v9, but pi finds no install of it: pi installs it at its next start when npm or git can reach it, " +
      "or run `pi install git:github.com/example/pi-tree-navigator@v9`.",
  ]);
});

test(`doctor on two copies at once (pi ${NEWEST} stops pi -p on them): names both and which to remove; after that, one copy and pi -p runs`, (t) => {
  needsNewest();
  // The tarball in the user's settings, and the built pkg/ in the project's: pi loads the project's first, once
  // it trusts the project (no decision stored: pi -p loads it only with --approve).
  const { dir, sh, tgz, source, installed } = tarballInstalled(t, NEWEST);
  writeFileSync(join(dir, ".pi", "settings.json"), JSON.stringify({ packages: [resolve(pkgDir)] }));
  const run = (...flags) => sh(`pi -p 'set an anchor' ${flags.join(" ")} --provider faux --model faux-1 --no-session --offline -e '${join(root, "tests", "e2e", "fixtures", "faux-cli", "index.js")}' -ns -nc -np --no-themes`,
    { PTN_FAUX_LOG: join(dir, "requests.jsonl"), PTN_FAUX_SCRIPT: JSON.stringify({ agent: [{ calls: [["navigate_tree", { action: "anchor", name: "one" }, "c1"]] }, { text: "all done" }], summary: [] }) });
  const twice = run("--approve");
  assert.notEqual(twice.status, 0, "pi -p stops on the second copy");
  assert.match(twice.stderr, /Tool "navigate_tree" conflicts with /);
  assert.equal(run().status, 0, "without --approve pi -p leaves the untrusted project's copy out");

  const before = snapshot(dir);
  const r = doctor(nodeFor(NEWEST), ["--pi", hostDir(NEWEST)], dir);
  assert.equal(r.status, 1, r.stdout);
  assert.deepEqual(snapshot(dir), before, "doctor wrote nothing in the agent dir");
  const settings = r.stdout.slice(r.stdout.indexOf("settings:")).split("\n\n")[0].split("\n");
  assert.deepEqual(settings, [
    "settings: pi loads pi-tree-navigator 2 times",
    `  loads       ${source} — release tarball in ${join(dir, "settings.json")} → ${installed} (${manifest.version})`,
    `  loads       ${resolve(pkgDir)} — local path in ${join(dir, ".pi", "settings.json")} → ${resolve(pkgDir)} (${manifest.version})` +
      " — once this project is trusted (pi asks at an interactive start; pi -p only with --approve)",
  ]);
  assert.deepEqual(sentences(r.stdout), [
    `pi loads pi-tree-navigator 2 times (${resolve(pkgDir)}, ${installed}): navigate_tree would register twice, which pi reports as \`Tool "navigate_tree" conflicts with …\` ` +
      `(pi -p stops there). Keep ${installed}: run \`pi remove -l --approve ${resolve(pkgDir)}\`.`,
  ]);
  const command = r.stdout.match(/: run `(pi remove [^`]+)`\.$/m)[1];
  const removed = sh(command);
  assert.equal(removed.status, 0, `${command}: ${removed.stderr}${removed.stdout}`);
  const after = doctor(nodeFor(NEWEST), ["--pi", hostDir(NEWEST)], dir);
  assert.equal(after.status, 0, after.stdout);
  assert.ok(after.stdout.includes(`settings: pi loads pi-tree-navigator ${manifest.version} from ${installed}\n`), after.stdout);
  const once = run("--approve");
  assert.equal(once.status, 0, once.stderr);
  assert.match(once.stdout, /all done/);
});

test(`doctor on a copy in the settings of a project pi ${NEWEST} does not trust: not loaded, and why`, (t) => {
  needsNewest();
  const dir = agentDir(t, false);
  writeFileSync(join(dir, ".pi", "settings.json"), JSON.stringify({ packages: [resolve(pkgDir)] }));
  // pi's trust store (<agent dir>/trust.json): the user answered "no" for this folder.
  writeFileSync(join(dir, "trust.json"), JSON.stringify({ [realpathSync(dir)]: false }));
  const r = doctor(nodeFor(NEWEST), ["--pi", hostDir(NEWEST)], dir);
  assert.equal(r.status, 1, r.stdout);
  assert.ok(r.stdout.includes(`settings: pi loads no copy of pi-tree-navigator\n  not loaded  ${resolve(pkgDir)} — local path in ${join(dir, ".pi", "settings.json")} → ${resolve(pkgDir)} (${manifest.version})\n`), r.stdout);
  assert.deepEqual(sentences(r.stdout), [
    `pi's settings list ${resolve(pkgDir)} in ${join(dir, ".pi", "settings.json")}, but pi does not trust this project (its trust store says no), so it loads nothing from the project's settings.`,
  ]);
});

test("doctor on npm:pi-tree-navigator@file:<tgz> installed by pi 0.75.5 (older than 0.87.1): not loaded, installed again at every start", (t) => {
  const version = "0.75.5";
  assert.ok(hostAvailable(version), `pi ${version} is not installed at ${hostDir(version)}: run bash scripts/setup-hosts.sh`);
  const { dir, tgz, source, installed } = tarballInstalled(t, version);
  const r = doctor(nodeFor(version), ["--pi", hostDir(version)], dir);
  assert.equal(r.status, 1, r.stdout);
  assert.ok(r.stdout.includes(`settings: pi loads no copy of pi-tree-navigator\n  not loaded  ${source} — release tarball in ${join(dir, "settings.json")} → ${installed} (${manifest.version})\n`), r.stdout);
  assert.deepEqual(sentences(r.stdout), [
    `pi's settings list ${source}: pi ${version} compares the installed version with "file:${tgz}", so it installs it again at every start and offline never loads it; ` +
      `run \`pi remove ${source}\`, unpack the tarball (tar xzf <tgz>) and \`pi install <absolute path of its package/ folder>\`.`,
  ]);
});
