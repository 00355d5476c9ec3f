// `npm run demo` (scripts/demo.mjs): the newest tested pi by default, `--host` another tested one, and it installs
// only the host it runs. The plan is checked without installing anything; the demo step itself (cheap: one scripted
// session) runs on the default host, and the README quotes what it prints.
import test from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NEWEST_TESTED, TESTED_HOSTS } from "../../js/tested-hosts.js";
import { demoPlan } from "../../scripts/demo.mjs";
import { hostAvailable, hostDir } from "../../scripts/hosts.mjs";

const REPO = join(import.meta.dirname, "../..");

/** The versions setup-hosts.sh installs under `env` (its own defaults code, run without installing). */
function hostsInstalled(env) {
  const script = readFileSync(join(REPO, "scripts/setup-hosts.sh"), "utf8");
  const head = script.slice(0, script.indexOf("\nNODE22_VERSION="));
  const out = execFileSync("bash", ["-c", `${head}\necho "$PI_VERSIONS|$PI_BUNDLE_VERSIONS"`], { encoding: "utf8", env: { ...process.env, ...env }, cwd: join(REPO, "scripts") });
  return out.trim().split("|").flatMap((s) => s.split(/\s+/).filter(Boolean));
}

const hostsStep = (plan) => plan.steps.find((s) => s.args.includes("scripts/setup-hosts.sh"));
const demoStep = (plan) => plan.steps.at(-1);

test("npm run demo is scripts/demo.mjs", () => {
  const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));
  assert.equal(pkg.scripts.demo, "node scripts/demo.mjs");
});

test(`demo: pi ${NEWEST_TESTED} (the newest tested) by default, and only it is installed`, () => {
  const plan = demoPlan([]);
  assert.equal(plan.version, NEWEST_TESTED);
  assert.deepEqual(hostsInstalled(hostsStep(plan).env), [NEWEST_TESTED]);
  assert.deepEqual(demoStep(plan).args, ["tests/e2e/demo.mjs", "--host", NEWEST_TESTED]);
  assert.deepEqual(plan.steps.find((s) => s.args.includes("scripts/setup.sh")).env, { WITH_BUN: "0", WITH_BROWSER: "0" });
});

test("demo --host <version>: every tested version, installed alone; other arguments pass through", () => {
  for (const { version, node } of TESTED_HOSTS) {
    assert.equal(hostsStep(demoPlan(["--host", version])).env.WITH_NODE22, node === 22 ? "1" : "0", `${version}: Node 22 only when it runs on it`);
    for (const [argv, passed] of [[["--host", version], []], [[`--host=${version}`, "--long"], ["--long"]], [["--out", "d", "--host", version], ["--out", "d"]]]) {
      const plan = demoPlan(argv);
      assert.equal(plan.version, version);
      assert.deepEqual(hostsInstalled(hostsStep(plan).env), [version], argv.join(" "));
      assert.deepEqual(demoStep(plan).args, ["tests/e2e/demo.mjs", "--host", version, ...passed]);
    }
  }
});

test("demo --host with an untested version or none: exit 2, naming the tested ones, nothing run", () => {
  for (const argv of [["--host", "9.9.9"], ["--host"], ["--host="]]) {
    const r = spawnSync(process.execPath, [join(REPO, "scripts/demo.mjs"), ...argv], { encoding: "utf8", timeout: 20_000 });
    assert.equal(r.status, 2, argv.join(" "));
    assert.equal(r.stdout, "");
    assert.match(r.stderr, argv[0] === "--host" && argv.length === 2 ? new RegExp(`takes one of ${TESTED_HOSTS.map((h) => h.version).join(", ").replace(/\./g, "\\.")}`) : /--host needs a pi version/);
  }
});

test(`the demo step runs on pi ${NEWEST_TESTED} and prints what the README quotes`, (t) => {
  assert.ok(hostAvailable(NEWEST_TESTED), `pi ${NEWEST_TESTED} is not installed at ${hostDir(NEWEST_TESTED)}: run bash scripts/setup-hosts.sh`);
  const out = mkdtempSync(join(tmpdir(), "ptn-demo-"));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const r = spawnSync(process.execPath, [...demoStep(demoPlan([])).args, "--out", out], { cwd: REPO, env, encoding: "utf8", timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr + r.stdout);
  assert.match(r.stdout, new RegExp(`^pi-tree-navigator demo · pi ${NEWEST_TESTED.replace(/\./g, "\\.")} · Node 22\\.`));
  assert.match(r.stdout, /tool ▸ \[rewind 'read-parser' → 'parser-read'\] · context \d+\.\d% → \d+\.\d% of 128k/);
  assert.match(r.stdout, /\(summary live-prefix: /, "the newest pi serves the summary from the live prefix");
  assert.match(r.stdout, /tool ▸ \[list\] · 2 anchors/);
  assert.match(r.stdout, /\$ node pkg\/cli\.js list <session file>\n\[list\] · 2 anchors · ctx \d+\n/);
  const printed = r.stdout.match(/Context per request \(≈ tokens\): ([\d →]+\d)/)?.[1];
  assert.ok(printed, r.stdout);
  const readme = readFileSync(join(REPO, "README.md"), "utf8");
  // Two runs differ by a token at request 5 (573 / 574): pi 1.6 stores each tool result's durationMs in the
  // message (15 ms vs 6 ms, one character; the only difference between two runs' sessions besides ids and times).
  // The README's numbers must be this run's within 2 tokens each.
  const quoted = readme.match(/context per request: `([\d →]+\d)` tokens/)?.[1];
  assert.ok(quoted, "README quotes the demo's numbers");
  const nums = (s) => s.split("→").map((n) => Number(n.trim()));
  assert.equal(nums(quoted).length, nums(printed).length, `README's demo numbers ${quoted} vs printed ${printed}`);
  nums(quoted).forEach((n, i) => assert.ok(Math.abs(n - nums(printed)[i]) <= 2, `README's demo numbers ${quoted} vs printed ${printed}`));
  assert.match(readme, new RegExp(`one pi host \\(${NEWEST_TESTED.replace(/\./g, "\\.")}, the newest tested`));
});
