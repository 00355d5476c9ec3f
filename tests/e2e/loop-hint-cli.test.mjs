// The loop hint (issue 41) in the real `pi` CLI, print mode, pi 1.6.0 (PTN_LOOP_CLI_HOST for another), with pi's own
// `bash`, `read` and `edit` tools on real files and pi's own Anthropic provider against the local mock
// (lib/mock-api.mjs; the model priced, so pi records each request's cost):
// - the same failing build three times: the hint is in the request right after the third failure, once; our CLI's
//   `stats --json` then lists that loop with its three requests and the money pi recorded for them;
// - a command whose output changes and succeeds, run 8 times: no hint (the same 8 runs with one output: a hint);
// - with `"loopHint": 2`, a file read twice with an edit between: no hint (read twice unchanged: a hint).
// Each scenario is one `pi -p` process; they run side by side. Runs on its own (not per host), ~10 s.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "node:test";
import { hostAvailable, nodeFor, piCliPath, PKG_DIR, runChild } from "./lib/hosts.mjs";
import { startAnthropicMock } from "./lib/mock-api.mjs";
import { cliAgent, textOf } from "./lib/wire.mjs";

const HOST = process.env.PTN_LOOP_CLI_HOST ?? "1.6.0";
const LOOP = "[loop] ";
const BUILD = "echo '   Compiling app v0.1.0'; echo 'error[E0425]: cannot find value `x` in this scope'; echo '  --> src/main.rs:2:13'; exit 101";

/** How many messages of each request carry the loop hint. */
const hintsPerRequest = (mock) => mock.requests.map((r) => (r.full.messages ?? []).filter((m) => textOf(m).includes(LOOP)).length);

/**
 * One `pi -p` run in a fresh agent dir and work folder: the model's `calls` (one tool call per reply, then "done"),
 * `files` written into the work folder first, `config` as tree-navigator.json. Returns the mock and the session file.
 */
async function printRun(t, { calls, files = {}, config = null }) {
  const root = mkdtempSync(join(tmpdir(), `ptn-loop-cli-`));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const mock = await startAnthropicMock({ replies: [...calls.map((c) => ({ calls: [c] })), { text: "done" }] });
  t.after(() => mock.close());
  const { agent, work: cwd } = cliAgent(root, mock.url);
  mkdirSync(join(cwd, "src"), { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(cwd, name), text);
  if (config) writeFileSync(join(agent, "tree-navigator.json"), JSON.stringify(config));
  const env = { ...process.env, PI_CODING_AGENT_DIR: agent, PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0" };
  for (const k of Object.keys(env)) if (k.startsWith("PI_TREE_NAVIGATOR_")) delete env[k];
  delete env.NODE_TEST_CONTEXT;
  const r = await runChild(nodeFor(HOST), [piCliPath(HOST), "-p", "do the work", "--offline", "-ns", "-nc", "-np", "--no-themes"], env, cwd);
  assert.equal(r.status, 0, `pi -p failed (${r.status}): ${r.stderr}\n${r.stdout}`);
  assert.match(r.stdout, /done/);
  assert.deepEqual(mock.violations, [], "pi's requests broke no API rule");
  assert.equal(mock.requests.length, calls.length + 1, "one request per call, then the last");
  const dirOf = (d) => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? dirOf(join(d, e.name)) : e.name.endsWith(".jsonl") ? [join(d, e.name)] : []));
  return { mock, file: dirOf(join(agent, "sessions"))[0], env, cwd };
}

test(`the loop hint in pi ${HOST}'s print mode, real tools, pi's Anthropic provider against the mock`, { timeout: 180_000 }, async (t) => {
  assert.ok(hostAvailable(HOST), `pi ${HOST} (scripts/setup-hosts.sh)`);
  const bash = (command) => ({ name: "bash", input: { command } });
  const read = { name: "read", input: { path: "src/lib.rs" } };
  const edit = { name: "edit", input: { path: "src/lib.rs", edits: [{ oldText: "fn a()", newText: "fn b()" }] } };
  const counter = "n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count; echo \"run $n: $(seq 1 $n | tr '\\n' ' ')\"";
  const lib = { "src/lib.rs": "fn a() {}\n" };
  const [build, changing, same, editRead, twice] = await Promise.all([
    printRun(t, { calls: [bash(BUILD), bash(BUILD), bash(BUILD)] }),
    printRun(t, { calls: Array.from({ length: 8 }, () => bash(counter)) }),
    printRun(t, { calls: Array.from({ length: 8 }, () => bash("echo 'run: 1 2 3'")) }),
    printRun(t, { calls: [read, edit, read], files: lib, config: { loopHint: 2 } }),
    printRun(t, { calls: [read, read], files: lib, config: { loopHint: 2 } }),
  ]);

  await t.test("the same failing build: the hint right after the third failure, once", () => {
    assert.deepEqual(hintsPerRequest(build.mock), [0, 0, 0, 1]);
    const hint = (build.mock.requests[3].full.messages ?? []).map(textOf).find((x) => x.includes(LOOP));
    assert.match(hint, /3 times and it failed each time with: error\[E0425\]: cannot find value `x` in this scope --> src\/main\.rs:2:13/);
    // The three results were real: pi's bash ran the command and reported its exit.
    const results = JSON.stringify(build.mock.requests[3].full.messages);
    assert.equal(results.split("Command exited with code 101").length - 1, 3);
  });

  await t.test("a command whose output changes and succeeds, 8 times: no hint (one output 8 times: a hint)", () => {
    assert.deepEqual(hintsPerRequest(changing.mock), Array(9).fill(0));
    assert.match(JSON.stringify(changing.mock.requests[8].full.messages), /run 8: 1 2 3 4 5 6 7 8/, "the command ran 8 times");
    assert.deepEqual(hintsPerRequest(same.mock), [0, 0, 0, 1, 1, 1, 1, 1, 1], "the same output: the hint after the third, once in the history");
  });

  await t.test("loopHint 2: a file read twice with an edit between, no hint (read twice unchanged: a hint)", () => {
    assert.deepEqual(hintsPerRequest(editRead.mock), [0, 0, 0, 0]);
    assert.match(readFileSync(join(editRead.cwd, "src/lib.rs"), "utf8"), /fn b\(\)/, "the edit was real");
    assert.deepEqual(hintsPerRequest(twice.mock), [0, 0, 1]);
  });

  await t.test("stats --json lists the build's loop with the money pi recorded for its requests", async () => {
    const r = await runChild(process.execPath, [join(PKG_DIR, "cli.js"), "stats", build.file, "--json"], build.env, build.cwd);
    assert.equal(r.status, 0, r.stderr);
    const { waste } = JSON.parse(r.stdout);
    assert.equal(waste.loops.length, 1, JSON.stringify(waste));
    const [loop] = waste.loops;
    assert.deepEqual([loop.tool, loop.repeats, loop.requestIds.length, loop.activePath], ["bash", 3, 3, true]);
    assert.ok(loop.call.startsWith("echo ' Compiling app v0.1.0'; echo 'error[E0425]") && loop.call.endsWith("…"), `the call on one line, cut: ${loop.call}`);
    // The money: pi's own `usage.cost.total` of those three requests, summed here from the file.
    const entries = readFileSync(build.file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const cost = loop.requestIds.map((id) => entries.find((e) => e.id === id).message.usage.cost.total).reduce((a, b) => a + b, 0);
    assert.ok(waste.priced && cost > 0, `pi recorded prices: ${cost}`);
    assert.ok(Math.abs(loop.usd - cost) < 1e-12 && Math.abs(waste.usd - cost) < 1e-12, `${loop.usd} vs ${cost}`);
    const human = await runChild(process.execPath, [join(PKG_DIR, "cli.js"), "stats", build.file], build.env, build.cwd);
    assert.match(human.stdout, /\n {2}loops: 1 \(3 calls in 3 requests, \$\d+\.\d{4}\)\n {4}bash `echo ' Compiling app v0\.1\.0'; echo 'error\[E0425\]: cannot find value 'x' in this scope'.*` ×3 \(the same failure: error\[E0425\]/);
  });
});
