// The real `pi` CLI (pi-host.md §4 recipe C): `pi install <pkg/>`, then a print-mode session, offline, with a
// test extension that registers a scripted "faux" provider. Run per host by tests/e2e/e2e.test.mjs.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import test from "node:test";
import { assertPaired, BRANCH_SUMMARY_PREFIX } from "./lib/checks.mjs";
import { FIXTURES, nodeFor, PKG_DIR, piCliPath } from "./lib/hosts.mjs";

const version = process.env.PTN_HOST_VERSION;
const FOCUS = "User asked: 'do the work'. Done: read the data. Left: nothing.";

function pi(args, env, cwd) {
  const r = spawnSync(nodeFor(version), [piCliPath(version), ...args], { cwd, env, encoding: "utf8", timeout: 120_000 });
  return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "", error: r.error };
}

test(`pi ${version} CLI: pi install pkg/, then anchor → work → rewind → list in print mode`, (t) => {
  const root = mkdtempSync(join(tmpdir(), `ptn-cli-${version}-`));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const cwd = join(root, "cwd");
  mkdirSync(cwd);
  const log = join(root, "requests.jsonl");
  const script = {
    agent: [
      { calls: [["navigate_tree", { action: "anchor", name: "start" }, "c1"]] },
      { calls: [["bulk_read", { chars: 40000 }, "c2"]] },
      { calls: [["navigate_tree", { action: "rewind", labelStart: "start", labelEnd: "done", summaryFocus: FOCUS }, "c3"]] },
      { calls: [["navigate_tree", { action: "list" }, "c4"]] },
      { text: "all done" },
    ],
    summary: [{ text: "## Goal\nread the data\n## Progress\n### Done\n- read (CLI-SUMMARY)" }],
  };
  const env = {
    ...process.env,
    PI_CODING_AGENT_DIR: join(root, "agent"),
    PI_OFFLINE: "1",
    PTN_FAUX_LOG: log,
    PTN_FAUX_SCRIPT: JSON.stringify(script),
  };
  delete env.NODE_TEST_CONTEXT;

  const install = pi(["install", PKG_DIR], env, cwd);
  assert.equal(install.status, 0, `pi install failed: ${install.stderr}${install.stdout}`);
  const settings = JSON.parse(readFileSync(join(root, "agent", "settings.json"), "utf8"));
  // pi records the source relative to the agent dir.
  assert.deepEqual(settings.packages.map((p) => resolve(join(root, "agent"), typeof p === "string" ? p : p.source)), [resolve(PKG_DIR)]);

  const run = pi(
    ["-p", "do the work", "--provider", "faux", "--model", "faux-1", "--no-session", "--offline",
      "-e", join(FIXTURES, "faux-cli/index.js"), "-e", join(FIXTURES, "bulk-ext/index.js"), "-ns", "-nc", "-np", "--no-themes"],
    env,
    cwd,
  );
  assert.equal(run.status, 0, `pi -p failed (${run.status}): ${run.stderr}\n${run.stdout}`);
  assert.match(run.stdout, /all done/);

  const requests = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const agent = requests.filter((r) => r.kind === "agent");
  assert.equal(agent.length, 5, JSON.stringify(requests.map((r) => r.kind)));
  assert.equal(requests.filter((r) => r.kind === "summary").length, 1);
  agent.forEach((r, i) => assertPaired(r, `CLI request ${i}`));
  const before = JSON.stringify(agent[2].messages);
  const after = JSON.stringify(agent[3].messages);
  assert.ok(after.length * 10 < before.length, `${after.length} vs ${before.length}`);
  assert.ok(after.includes(BRANCH_SUMMARY_PREFIX) && after.includes("CLI-SUMMARY"));
  assert.match(after, /\[rewind 'start' → 'done'\] · context \d+\.\d% → \d+\.\d% of 128k/);
  const last = JSON.stringify(agent[4].messages);
  assert.match(last, /\[list\] · 2 anchors/);
});
