// js/tested-hosts.js is the one list of tested pi versions: the setup scripts and host tests read it, and the
// per-version table (docs/hosts.md) and the README's test line must name exactly its versions.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { TESTED_HOSTS, NEWEST_TESTED, OLDEST_TESTED, compareVersions } from "../../js/tested-hosts.js";
import { ALL_HOST_VERSIONS, BUNDLE_HOST_VERSIONS, NPM_HOST_VERSIONS, nodeFor, node22Path } from "../../scripts/hosts.mjs";

const REPO = join(import.meta.dirname, "../..");
const versions = TESTED_HOSTS.map((h) => h.version);

test("the list is oldest first, without repeats, and its ends are named", () => {
  for (let i = 1; i < versions.length; i++) assert.equal(compareVersions(versions[i - 1], versions[i]), -1, `${versions[i - 1]} before ${versions[i]}`);
  assert.equal(OLDEST_TESTED, versions[0]);
  assert.equal(NEWEST_TESTED, versions.at(-1));
  assert.equal(compareVersions("1.10.0", "1.9.9"), 1);
  assert.equal(compareVersions("v1.6.0", "1.6.0"), 0);
});

test("scripts/hosts.mjs derives its lists from it", () => {
  assert.deepEqual([...ALL_HOST_VERSIONS], versions);
  assert.deepEqual([...NPM_HOST_VERSIONS, ...BUNDLE_HOST_VERSIONS].sort(compareVersions), versions);
  for (const h of TESTED_HOSTS) assert.equal(nodeFor(h.version) === node22Path(), h.node === 22, `${h.version} runs on Node ${h.node}`);
});

test("setup-hosts.sh installs exactly the listed versions by default", () => {
  // The script's own helper, run without installing anything: source up to the defaults and print them.
  const script = readFileSync(join(REPO, "scripts/setup-hosts.sh"), "utf8");
  const head = script.slice(0, script.indexOf("\nNODE22_VERSION="));
  const out = execFileSync("bash", ["-c", `${head}\necho "$PI_VERSIONS|$PI_BUNDLE_VERSIONS"`], { encoding: "utf8", env: { ...process.env, PI_VERSIONS: "", PI_BUNDLE_VERSIONS: "" }, cwd: join(REPO, "scripts") });
  const [npm, bundle] = out.trim().split("|").map((s) => s.split(/\s+/).filter(Boolean));
  assert.deepEqual(npm, TESTED_HOSTS.filter((h) => h.install === "npm").map((h) => h.version));
  assert.deepEqual(bundle, TESTED_HOSTS.filter((h) => h.install === "bundle").map((h) => h.version));
});

test("the per-version table (docs/hosts.md) and the README's test line name exactly the tested versions", () => {
  const hosts = readFileSync(join(REPO, "docs/hosts.md"), "utf8");
  const heading = hosts.indexOf("\n## Behaviour per pi version\n");
  assert.ok(heading >= 0, "docs/hosts.md has the heading \"## Behaviour per pi version\"");
  const table = hosts.slice(heading);
  // The first table under the heading: its rows after the header and the |---| line.
  const lines = table.split("\n");
  const start = lines.findIndex((l) => l.startsWith("|"));
  const end = lines.findIndex((l, i) => i > start && !l.startsWith("|"));
  const inTable = lines.slice(start + 2, end).flatMap((row) => row.split("|")[1].split(",").map((s) => s.trim()));
  assert.deepEqual(inTable, versions, "docs/hosts.md table rows");
  const readme = readFileSync(join(REPO, "README.md"), "utf8");
  const line = readme.split("\n").find((l) => l.startsWith("npm test "));
  assert.ok(line.includes(`e2e in pi ${versions.join("/")},`), `README's npm test line names ${versions.join("/")}: ${line}`);
});
