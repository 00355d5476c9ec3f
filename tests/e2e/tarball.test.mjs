// The release tarball as a pi user without Rust installs it: `scripts/pack.mjs` packs pkg/ into
// pi-tree-navigator-<version>.tgz, pi's own CLI installs it into an empty agent dir, `pi list` shows it, and a
// print-mode run against a local Anthropic mock (lib/mock-api.mjs) calls the tool: anchor → bulky work → rewind
// (the summary request goes to the mock too) → list.
//
// Offline: npm runs with `npm_config_offline=true` and an empty cache of its own, so anything it would fetch
// from a registry fails the install; pi runs with PI_OFFLINE=1. The tarball has no dependencies to fetch.
//
// The spec is `npm:pi-tree-navigator@file:<absolute path>`: pi finds an npm install by the spec's name. A bare
// `npm:<path>.tgz` installs but never loads (pi looks under npm/node_modules/<the path>; tried on 1.6.0), and on
// pi < 0.87 the `@file:` version never equals the installed one, so pi reinstalls at every start (offline: not at
// all). Those hosts install the unpacked tarball as a local path instead (README, "Install").
// Needs the hosts (scripts/setup-hosts.sh) and `npm run build`.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "node:test";
import { FILE_SPEC_SINCE } from "../../js/doctor.js";
import { compareVersions } from "../../js/tested-hosts.js";
import { packTarball, sizeLine } from "../../scripts/pack.mjs";
import { FIXTURES, HOST_VERSIONS, PKG_DIR, hostAvailable, nodeFor, piCliPath, runChild } from "./lib/hosts.mjs";
import { startAnthropicMock } from "./lib/mock-api.mjs";
import { WireModel } from "./lib/wire.mjs";

const FOCUS = "User asked: do the work. Done: read the data. Left: nothing.";
const SUMMARY = "## Goal\nDo the work.\n\n## Progress\n### Done\n- [x] read the data (TARBALL-SUMMARY)";

/** Runs pi `version`'s CLI without blocking this process (the mock answers from its event loop). */
function pi(version, args, env, cwd) {
  return runChild(nodeFor(version), [piCliPath(version), ...args], env, cwd);
}

const root = mkdtempSync(join(tmpdir(), "ptn-tarball-"));
test.after(() => rmSync(root, { recursive: true, force: true }));
const manifest = JSON.parse(readFileSync(join(PKG_DIR, "package.json"), "utf8"));
const packed = packTarball({ pkgDir: PKG_DIR, outDir: join(root, "release") });

test("npm run pack's tarball: named after the package and its version, within the size cap", (t) => {
  t.diagnostic(sizeLine(packed));
  assert.equal(packed.file, join(root, "release", `${manifest.name}-${manifest.version}.tgz`));
  // The unpacked package (the wasm, the shim, the viewer) is what the tarball holds: gzip shrinks it, never grows it.
  assert.ok(packed.size > 0 && packed.size < packed.unpackedSize, sizeLine(packed));
  const listing = spawnSync("tar", ["tzf", packed.file], { encoding: "utf8" }).stdout.split("\n");
  for (const f of ["package/package.json", "package/extension.js", "package/pi_tree_navigator_bg.wasm.gz", "package/cli.js"]) {
    assert.ok(listing.includes(f), `${f} in the tarball`);
  }
  assert.deepEqual(manifest.dependencies ?? {}, {}, "no dependencies: npm installs it without a registry");
});

for (const version of HOST_VERSIONS) {
  const fileSpec = compareVersions(version, FILE_SPEC_SINCE) >= 0;
  const how = fileSpec ? "pi install npm:pi-tree-navigator@file:<tgz>" : "pi install <unpacked tarball>";
  test(`pi ${version}: ${how} into an empty agent dir, pi list, pi -p calls the tool (local mock model)`, { timeout: 240_000 }, async (t) => {
    assert.ok(hostAvailable(version), `pi ${version} is not installed: run scripts/setup-hosts.sh`);
    const dir = join(root, `pi-${version}`);
    const agent = join(dir, "agent");
    const cwd = join(dir, "work");
    mkdirSync(agent, { recursive: true });
    mkdirSync(cwd);
    const env = {
      ...process.env,
      PI_CODING_AGENT_DIR: agent,
      PI_OFFLINE: "1",
      PI_SKIP_VERSION_CHECK: "1",
      PI_TELEMETRY: "0",
      npm_config_offline: "true",
      npm_config_cache: join(dir, "npm-cache"),
    };
    delete env.NODE_TEST_CONTEXT;

    let source = `npm:${manifest.name}@file:${packed.file}`;
    let installed = join(agent, "npm", "node_modules", manifest.name);
    if (!fileSpec) {
      // What the README says for these hosts: unpack the tarball and install the folder.
      const untar = spawnSync("tar", ["xzf", packed.file, "-C", dir], { encoding: "utf8" });
      assert.equal(untar.status, 0, untar.stderr);
      source = installed = join(dir, "package");
    }
    const install = await pi(version, ["install", source], env, cwd);
    assert.equal(install.status, 0, `pi install ${source}: ${install.stderr}${install.stdout}`);
    const list = await pi(version, ["list"], env, cwd);
    assert.equal(list.status, 0, list.stderr);
    const listed = list.stdout.split("\n").map((l) => l.trim());
    if (fileSpec) assert.ok(listed.includes(source), `pi list shows ${source}:\n${list.stdout}`);
    assert.ok(listed.includes(installed), `pi list shows where it is installed, ${installed}:\n${list.stdout}`);
    assert.equal(JSON.parse(readFileSync(join(installed, "package.json"), "utf8")).version, manifest.version);

    const mock = await startAnthropicMock({
      replies: [
        { calls: [{ name: "navigate_tree", input: { action: "anchor", name: "start" } }] },
        { calls: [{ name: "bulk_read", input: { chars: 40000 } }] },
        { calls: [{ name: "navigate_tree", input: { action: "rewind", labelStart: "start", labelEnd: "done", summaryFocus: FOCUS } }] },
        { text: SUMMARY },
        { calls: [{ name: "navigate_tree", input: { action: "list" } }] },
        { text: "All done." },
      ],
    });
    t.after(() => mock.close());
    const model = new WireModel({ api: "anthropic-messages", baseUrl: mock.url, modelId: "mock-model" });
    writeFileSync(join(agent, "models.json"), JSON.stringify(model.modelsJson()));
    const run = await pi(
      version,
      ["-p", "do the work", "--provider", model.providerId, "--model", model.modelId, "--no-session", "--offline",
        "-e", join(FIXTURES, "bulk-ext/index.js"), "-ns", "-nc", "-np", "--no-themes"],
      env,
      cwd,
    );
    assert.equal(run.status, 0, `pi -p failed (${run.status}): ${run.stderr}\n${run.stdout}`);
    assert.match(run.stdout, /All done\./);
    assert.deepEqual(mock.violations, [], "pi's requests broke no API rule");
    assert.equal(mock.requests.length, 6, "anchor, work, rewind, summary, list, end");

    /** The tool results of a request's last user message, as text. */
    const results = (i) => mock.requests[i].full.messages.at(-1).content.filter((b) => b.type === "tool_result");
    const text = (b) => (typeof b.content === "string" ? b.content : b.content.map((c) => c.text ?? "").join(""));
    const [anchor] = results(1);
    assert.ok(!anchor.is_error, text(anchor));
    assert.match(text(anchor), /\[anchor 'start'\] set at/);
    const [rewind] = results(4);
    assert.ok(!rewind.is_error, text(rewind));
    assert.match(text(rewind), /\[rewind 'start' → 'done'\] · context \d+\.\d% → \d+\.\d% of 200k/);
    const before = JSON.stringify(mock.requests[2].full.messages).length;
    const after = JSON.stringify(mock.requests[4].full.messages).length;
    assert.ok(after * 10 < before, `the request after the rewind is small again: ${before} → ${after} characters`);
    assert.match(JSON.stringify(mock.requests[4].full.messages), /TARBALL-SUMMARY/);
    const [listResult] = results(5);
    assert.match(text(listResult), /\[list\] · 2 anchors/);
  });
}
