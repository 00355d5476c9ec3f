// Driver: runs the e2e scenarios, the host-matrix checks, the CLI test and the fault matrix inside each real pi host,
// with the Node that host needs (0.74.2 on Node 20, the rest on Node 22), one child `node --test` per host. The
// hosts: every version of js/tested-hosts.js — npm installs and tarball bundles (pi-host.md §7).
// Hosts run one after another (each child uses the cores for its own files).
// A host whose run reports a skip not in KNOWN_SKIPS (or lacks a known one) fails.
// Needs scripts/setup-hosts.sh and `npm run build` first; PTN_E2E_HOSTS="0.75.5 …" narrows the matrix.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import test from "node:test";
import { NEWEST_TESTED, compareVersions } from "../../js/tested-hosts.js";
import { HOST_VERSIONS, REPO, missingPrerequisites, nodeFor } from "./lib/hosts.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const FILES = ["scenarios.e2e.mjs", "hosts.e2e.mjs", "agent.e2e.mjs", "cache-summary.e2e.mjs", "cli.e2e.mjs", "faults.e2e.mjs", "faults-lifecycle.e2e.mjs", "faults-input.e2e.mjs", "compaction.e2e.mjs", "compaction-cache.e2e.mjs", "compaction-diff.e2e.mjs", "compaction-cli.e2e.mjs", "context-edit.e2e.mjs", "unstored-call.e2e.mjs", "esc-batch.e2e.mjs", "wire.e2e.mjs", "wire-compaction.e2e.mjs", "recall.e2e.mjs", "ledger.e2e.mjs", "loop-hint.e2e.mjs", "rewind-saving.e2e.mjs", "cost.e2e.mjs"].map((f) => join(here, f));
const hosts = process.env.PTN_E2E_HOSTS ? process.env.PTN_E2E_HOSTS.split(/[\s,]+/).filter(Boolean) : HOST_VERSIONS;
const REPORTER = join(here, "lib/skip-reporter.mjs");
/** rewind-saving.e2e.mjs reads real users' sessions from here (in place). */
const REAL_SESSIONS = join(REPO, "../shared/real-sessions");

const before = (v) => (version) => compareVersions(version, v) < 0;
const WIRE_APIS = ["anthropic", "responses", "chat"];
/**
 * Every skip a host's run is known to report: the file, the tests' names (of the host's version `v`), the hosts that
 * skip them (`on`) and why. A host's run that reports any other skip, or lacks one of these, fails: a new skip
 * cannot slip in unseen, and a skip that went away is taken off this list.
 */
const KNOWN_SKIPS = [
  {
    file: "cache-summary.e2e.mjs",
    on: before("0.87.0"),
    why: "the fallbacks of the cache-preserving summary: pi <0.87 has no context_with_system, so no request to replay and every rewind falls back with reason no-capture (tested there)",
    names: () => [
      "fallback: the capture is stale (an entry was appended after it) → reason stale-capture",
      "fallback: the replay would overflow the window → reason overflow (never truncated)",
      "fallback: the branch crosses a compaction → reason crosses-compaction",
      "fallback: the registry has no streamSimple → reason no-stream",
      "fallback: the live-prefix request fails → the cold request follows, reason failed",
    ],
  },
  {
    file: "compaction-cache.e2e.mjs",
    on: before("0.87.0"),
    why: "the fallbacks of the compaction from the prompt cache and its Esc: pi <0.87 has no live request to reuse, so pi compacts on its own with reason no-capture (tested there)",
    names: () => [
      ...["an error", "an empty reply", "a tool call", "a reply cut at its output limit"].map((n) => `fallback: ${n} → pi's own compaction follows, reason failed`),
      "Esc during the request cancels the compaction: no cold request after it",
      "fallback: the leaf moved away from the captured request (/tree) → reason stale-capture",
      "fallback: the live request plus a summary would not fit the window → reason overflow",
      "fallback: the registry has no streamSimple → reason no-stream",
      "fallback: pi recovers from the live request overflowing the window (it will retry) → reason overflow",
      "fallback: pi's range to summarize is not where pi's compaction puts it (another extension changed it) → reason unaligned",
      "fallback: the session's model changed since the last request (/model) → reason model-changed",
    ],
  },
  {
    file: "wire-compaction.e2e.mjs",
    on: before("0.87.0"),
    why: "/compact from the cache on the wire: pi <0.87 has no live request to reuse (its threshold compaction, pi's own, is tested there)",
    names: () => WIRE_APIS.map((api) => `wire ${api}: /compact with instructions between prompts is written from the cache`),
  },
  {
    file: "context-edit.e2e.mjs",
    on: before("0.87.0"),
    why: "context_edit entries start with pi 0.87 (SessionManager.appendContextEdit)",
    names: (v) => [
      `pi ${v}: context_edit (replace a tool result, omit a call): the model's view, pi's numbers`,
      `pi ${v}: context_edit: navigate_tree's numbers are pi's after every call`,
      `pi ${v}: context_edit of an assistant message and edits batched with navigate_tree: previews and guards read what the model is sent`,
    ],
  },
  {
    file: "wire.e2e.mjs",
    on: before("0.99.0"),
    why: "idle cache warming starts with pi 0.99",
    names: () => ["wire anthropic: idle cache warming never re-sends a pre-rewind context"],
  },
  {
    file: "rewind-saving.e2e.mjs",
    on: (version) => version === NEWEST_TESTED && !existsSync(REAL_SESSIONS),
    why: "the real sessions are read in place from ../shared/real-sessions, which this checkout does not have",
    names: (v) => [`pi ${v}: the real sessions are there to resume`],
  },
];

/** The known skips of pi `version`: "file: name" → why. */
function knownSkips(version) {
  return new Map(KNOWN_SKIPS.filter((k) => k.on(version)).flatMap((k) => k.names(version).map((name) => [`${k.file}: ${name}`, k.why])));
}

test("e2e prerequisites are installed", () => {
  assert.deepEqual(missingPrerequisites(hosts), []);
});

for (const version of hosts) {
  test(`navigate_tree in real pi ${version}`, { timeout: 600_000 }, () => {
    const missing = missingPrerequisites([version]);
    assert.deepEqual(missing, [], `missing: ${missing.join(", ")}`);
    const env = { ...process.env, PTN_HOST_VERSION: version };
    // The tool scenarios pin exact labels, entry counts and scripted summary requests, written before
    // the automatic `anchor:start`, the pressure hint and the cache-preserving summaries and compactions
    // existed: they run with those switched off (their env kill switches). agent.e2e.mjs, cache-summary.e2e.mjs
    // and compaction-cache.e2e.mjs clear the switches and test the features themselves.
    env.PI_TREE_NAVIGATOR_NO_START_ANCHOR ??= "1";
    env.PI_TREE_NAVIGATOR_NO_HINT ??= "1";
    env.PI_TREE_NAVIGATOR_NO_CACHE_SUMMARY ??= "1";
    env.PI_TREE_NAVIGATOR_NO_CACHE_COMPACTION ??= "1";
    // A child `node --test` inherits this and would report to us instead of printing; it runs standalone.
    delete env.NODE_TEST_CONTEXT;
    const node = nodeFor(version);
    // The spec report to read, and each skip (file, name, reason) to hold against KNOWN_SKIPS.
    const dir = mkdtempSync(join(tmpdir(), "ptn-e2e-skips-"));
    const skipsFile = join(dir, "skips.jsonl");
    let r, reported;
    try {
      r = spawnSync(node, ["--test", "--test-reporter=spec", "--test-reporter-destination=stdout", `--test-reporter=${REPORTER}`, `--test-reporter-destination=${skipsFile}`, ...FILES], { env, encoding: "utf8", timeout: 600_000 });
      reported = readFileSync(skipsFile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const nodeVersion = spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim();
    const out = `${r.stdout ?? ""}${r.stderr ?? ""}`;
    const count = (what) => Number(out.match(new RegExp(`ℹ ${what} (\\d+)`))?.[1] ?? NaN);
    // A `todo` names a missing rule (its failing checks are reported, not hidden): shown in the headline.
    process.stdout.write(`\n── pi ${version} on Node ${nodeVersion}: ${count("pass")} passed, ${count("fail")} failed, ${count("todo")} todo, ${count("skipped")} skipped ──\n${out}\n`);
    assert.equal(r.status, 0, `pi ${version}: child test run failed (exit ${r.status}${r.error ? `, ${r.error.message}` : ""})`);
    assert.equal(count("fail"), 0);
    assert.ok(count("pass") >= 20, `only ${count("pass")} tests passed`);
    // Every skip is a known one of this host, and every known one was reported (none ran unexpectedly or vanished).
    const known = knownSkips(version);
    const seen = reported.map((s) => `${s.file}: ${s.name}`);
    assert.equal(reported.length, count("skipped"), "the skip reporter saw every skip the run counted");
    assert.deepEqual(reported.filter((s, i) => !known.has(seen[i])).map((s) => `${s.file}: ${s.name} (${s.reason})`), [], `pi ${version}: skips not in KNOWN_SKIPS`);
    assert.deepEqual([...known.keys()].filter((k) => !seen.includes(k)), [], `pi ${version}: KNOWN_SKIPS lists skips this run did not report`);
  });
}
