// CLI tests: runs the BUILT CLI (pkg/cli.js) as a child process over tests/fixtures/*.jsonl.
// `context --json` and `tokens --json` must equal what pi 0.75.5 (Node 22) computes for the same file and
// leaf (tests/diff/reference.mjs); `list --json` anchors must equal pi's per-anchor estimate.
// Needs `npm run build` and the pi hosts (scripts/setup-hosts.sh); without them the tests FAIL with a hint.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { hostAvailable, hostDir, nodeFor } from "../../scripts/hosts.mjs";
import { coreEntryIds } from "../diff/reference.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const pkgDir = resolve(process.env.PTN_PKG || join(root, "pkg"));
const CLI = join(pkgDir, "cli.js");
const FIX = join(root, "tests", "fixtures");
const PI = "0.75.5";
const fx = (name) => join(FIX, name);

function cli(...args) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", cwd: root });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function requireBuilt() {
  assert.ok(existsSync(CLI), `${CLI} is missing: run \`npm run build\` (the build copies js/cli.js to pkg/cli.js)`);
  assert.ok(existsSync(join(pkgDir, "index-node.js")), `${pkgDir}/index-node.js is missing: run \`npm run build\``);
}

/** Entry ids of a fixture, read the way pi does (header and unparsable lines left out; a version-1 file's as the core names them). */
function entryIds(file) {
  const ids = coreEntryIds(readFileSync(file, "utf8"));
  const labelTargets = [];
  for (const line of readFileSync(file, "utf8").trim().split("\n")) {
    try {
      const e = JSON.parse(line);
      if (e.type === "session") continue;
      if (e.type === "label" && typeof e.label === "string" && e.label.startsWith("anchor:") && !labelTargets.includes(e.targetId)) labelTargets.push(e.targetId);
    } catch {}
  }
  return { ids, labelTargets };
}

// Fixtures the CLI must read successfully (all but the one where nothing parses).
const FIXTURES = readdirSync(FIX).filter((f) => f.endsWith(".jsonl") && f !== "all-malformed.jsonl").sort();

/** Leaves per fixture: the default, pi's null, the first/middle entry and up to two anchored entries. */
function leavesFor(file) {
  const { ids, labelTargets } = entryIds(file);
  const known = new Set(ids);
  const picks = [ids[0], ids[Math.floor(ids.length / 2)], ...labelTargets.filter((t) => known.has(t)).slice(0, 2)].filter(Boolean);
  return ["$default", null, ...new Set(picks)];
}

let reference; // file name -> {entryCount, results by JSON.stringify(leaf)}
function piReference() {
  if (reference) return reference;
  assert.ok(hostAvailable(PI), `pi ${PI} is not installed at ${hostDir(PI)}: run \`bash scripts/setup-hosts.sh\``);
  const node = nodeFor(PI);
  assert.ok(existsSync(node), `Node 22 for pi ${PI} is missing at ${node}: run \`bash scripts/setup-hosts.sh\``);
  const work = mkdtempSync(join(tmpdir(), "ptn-cli-"));
  try {
    const sessions = FIXTURES.map((f, index) => ({ index, file: fx(f), leaves: leavesFor(fx(f)) }));
    writeFileSync(join(work, "manifest.json"), JSON.stringify({ sessions }));
    const out = join(work, "ref.jsonl");
    const r = spawnSync(node, [join(root, "tests", "diff", "reference.mjs"), "--pi", hostDir(PI), "--manifest", join(work, "manifest.json"), "--out", out], { encoding: "utf8" });
    assert.equal(r.status, 0, `reference run failed:\n${r.stderr}`);
    const lines = readFileSync(out, "utf8").trim().split("\n").slice(1).map((l) => JSON.parse(l));
    reference = new Map();
    for (const l of lines) {
      assert.ok(!l.error, `pi failed on ${l.file}: ${l.error}`);
      reference.set(FIXTURES[l.index], { ...l, byLeaf: new Map(l.results.map((x) => [JSON.stringify(x.leaf), x])) });
    }
    return reference;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// Values are compared after a JSON round trip, as pi's own output is: the core echoes number spellings from the
// file (e.g. -0, 1.0, 1e21), which parse to the same values except that JSON.parse("-0") is -0, and
// JSON.stringify writes it as 0. Only values matter for what reaches the model.
const roundTrip = (v) => JSON.parse(JSON.stringify(v));
// The recording is pi 0.75.5's: its rules (`--host`), not the ones a file with pi ≥0.87 entries infers.
const leafArgs = (leaf) => ["--host", PI, ...(leaf === "$default" ? [] : ["--leaf", leaf === null ? "null" : leaf])];

// ---- outputs equal pi 0.75.5 ----------------------------------------------------------------------------
for (const name of FIXTURES) {
  test(`context/tokens/list --json match pi ${PI}: ${name}`, () => {
    requireBuilt();
    const ref = piReference().get(name);
    for (const [key, expected] of ref.byLeaf) {
      const leaf = JSON.parse(key);
      const where = `${name} leaf ${key}`;
      const ctx = cli("context", fx(name), ...leafArgs(leaf), "--json");
      if (ref.entryCount === 0 && typeof leaf === "string" && leaf !== "$default") {
        // pi loads this file as empty (no session header), so an entry id from the raw file is unknown:
        // the CLI says so instead of silently answering for another leaf.
        assert.equal(ctx.code, 1, `${where}: unknown leaf must exit 1`);
        assert.match(ctx.stderr, /no entry with id/);
        continue;
      }
      assert.equal(ctx.code, 0, `${where}: context exit ${ctx.code}: ${ctx.stderr}`);
      assert.equal(ctx.stdout.trim().split("\n").length, 1, `${where}: context --json prints one line`);
      assert.deepStrictEqual(roundTrip(JSON.parse(ctx.stdout)), expected.context, `${where}: context differs from pi's buildSessionContext`);
      // Printed as pi's context holds it: the same keys in the same order (JSON.stringify's), also where the
      // core rewrites a message (a version-1/2 file's hookMessage becomes custom in its place).
      assert.equal(JSON.stringify(roundTrip(JSON.parse(ctx.stdout))), JSON.stringify(expected.context), `${where}: context's key order differs from pi's`);

      const tok = cli("tokens", fx(name), ...leafArgs(leaf), "--json");
      assert.equal(tok.code, 0, `${where}: tokens exit ${tok.code}: ${tok.stderr}`);
      assert.deepStrictEqual(JSON.parse(tok.stdout), expected.estimate, `${where}: tokens differ from pi's estimateContextTokens`);

      if (leaf === null || (leaf !== "$default" && !expected.anchors.length)) continue; // list adds nothing there
      const list = cli("list", fx(name), ...leafArgs(leaf), "--json");
      assert.equal(list.code, 0, `${where}: list exit ${list.code}: ${list.stderr}`);
      const anchors = JSON.parse(list.stdout);
      assert.deepStrictEqual(anchors.map(({ name: n, entryId, tokens }) => ({ name: n, entryId, tokens })), expected.anchors.map((a) => ({ ...a, name: a.name.toWellFormed() })), `${where}: list anchors differ from pi (names well-formed)`);
      for (const a of anchors) assert.ok(a.hint === null || typeof a.hint === "string", `${where}: hint is string|null`);
    }
  });
}

// ---- human output and the other commands -------------------------------------------------------------------
test("list: human format from the core's formatter, with and without a context window", () => {
  requireBuilt();
  const plain = cli("list", fx("example.jsonl"));
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /^\[list\] · 3 anchors · ctx /);
  const names = [...plain.stdout.matchAll(/^\s+\S+\s+(task-start|flag-parsed|json-done)\b/gm)].map((m) => m[1]);
  assert.deepStrictEqual(names, ["task-start", "flag-parsed", "json-done"], "anchors root → leaf");
  const windowed = cli("list", fx("example.jsonl"), "--context-window", "128000");
  assert.equal(windowed.code, 0, windowed.stderr);
  assert.match(windowed.stdout, / of 128k/);
  assert.match(windowed.stdout, /%/);
  const none = cli("list", fx("empty.jsonl"));
  assert.equal(none.code, 0, none.stderr);
  assert.match(none.stdout, /^\[list\] · 0 anchors/);
});

test("list without a window: counts people read (`59`, `12`, `3.3k`), never `0.0k`", () => {
  requireBuilt();
  const small = cli("list", fx("labels.jsonl"));
  assert.equal(small.code, 0, small.stderr);
  const est = JSON.parse(cli("tokens", fx("labels.jsonl"), "--json").stdout);
  const anchors = JSON.parse(cli("list", fx("labels.jsonl"), "--json").stdout);
  assert.ok(est.tokens < 1000 && anchors.every((a) => a.tokens < 1000), "the fixture's counts are below a thousand");
  assert.match(small.stdout, new RegExp(`^\\[list\\] · 2 anchors · ctx ${est.tokens}\n`));
  const rows = [...small.stdout.matchAll(/^ {2}\s*(\S+) {2}(\S+)/gm)].map((m) => [m[2], m[1]]);
  assert.deepStrictEqual(rows, anchors.map((a) => [a.name, String(a.tokens)]));
  assert.doesNotMatch(small.stdout, /\d\.\dk/);
  const big = cli("list", fx("example.jsonl"));
  assert.match(big.stdout, /^\[list\] · 3 anchors · ctx \d+\.\dk\n/);
  assert.doesNotMatch(big.stdout, /\b0\.\dk/);
});

test("tokens and context: human output", () => {
  requireBuilt();
  const t = cli("tokens", fx("example.jsonl"));
  assert.equal(t.code, 0, t.stderr);
  const est = JSON.parse(cli("tokens", fx("example.jsonl"), "--json").stdout);
  assert.ok(t.stdout.startsWith(`${est.tokens} tokens`), t.stdout);
  const c = cli("context", fx("branches.jsonl"));
  assert.equal(c.code, 0, c.stderr);
  assert.deepStrictEqual(JSON.parse(c.stdout), JSON.parse(cli("context", fx("branches.jsonl"), "--json").stdout), "pretty and --json agree");
});

test("tree: text and rows cover every entry", () => {
  requireBuilt();
  for (const name of ["example.jsonl", "branches.jsonl", "labels.jsonl"]) {
    const { ids } = entryIds(fx(name));
    const text = cli("tree", fx(name));
    assert.equal(text.code, 0, text.stderr);
    for (const id of ids) assert.ok(text.stdout.includes(id), `${name}: tree text shows ${id}`);
    const rows = cli("tree", fx(name), "--json");
    assert.equal(rows.code, 0, rows.stderr);
    const parsed = JSON.parse(rows.stdout);
    assert.ok(Array.isArray(parsed));
    assert.deepStrictEqual(new Set(parsed.map((r) => r.id)), new Set(ids), `${name}: one row per entry`);
  }
});

test("stats: from the core, with the file size", () => {
  requireBuilt();
  const file = fx("example.jsonl");
  const s = cli("stats", file, "--json");
  assert.equal(s.code, 0, s.stderr);
  const stats = JSON.parse(s.stdout);
  assert.equal(stats.entries, entryIds(file).ids.length);
  assert.equal(stats.fileBytes, statSync(file).size);
  const human = cli("stats", file);
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /entries: \d+/);
  // The rewinds on the active path, each with what it saved (the core's rule: removed less the summary); the text
  // counts them and adds what they saved.
  for (const [name, count] of [["example.jsonl", 1], ["rewind-chain.jsonl", 4], ["branches.jsonl", 0]]) {
    const { rewinds } = JSON.parse(cli("stats", fx(name), "--json").stdout);
    assert.equal(rewinds.length, count, name);
    for (const r of rewinds) assert.equal(r.saving.savedTokens, r.saving.removedTokens - r.saving.summaryTokens, name);
    const total = rewinds.reduce((n, r) => n + r.saving.savedTokens, 0);
    const line = count ? `rewinds on the active path: ${count}, saved ${total < 1000 ? total : `${(total / 1000).toFixed(1)}k`} tokens` : "rewinds on the active path: 0";
    assert.ok(cli("stats", fx(name)).stdout.includes(`${line}\n`), `${name}: ${line}`);
  }
});

// ---- errors and exit codes ----------------------------------------------------------------------------------
test("--help and --version exit 0", () => {
  requireBuilt();
  for (const args of [["--help"], ["-h"], ["help"], ["list", "--help"]]) {
    const r = cli(...args);
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stdout, /^Usage: pi-tree-navigator/);
    for (const cmd of ["context", "tokens", "list", "tree", "stats"]) assert.match(r.stdout, new RegExp(`\\b${cmd}\\b`));
  }
  const v = cli("--version");
  assert.equal(v.code, 0);
  assert.match(v.stdout, /^pi-tree-navigator \d+\.\d+\.\d+/);
});

test("usage errors exit 2 with a one-line reason", () => {
  requireBuilt();
  const cases = [
    [],
    ["frobnicate", fx("example.jsonl")],
    ["list"],
    ["list", fx("example.jsonl"), "--bogus"],
    ["list", fx("example.jsonl"), "--leaf"],
    ["list", fx("example.jsonl"), "--context-window", "abc"],
    ["list", fx("example.jsonl"), "--context-window", "-5"],
    ["tree", fx("example.jsonl"), "--leaf", "x"],
    ["tokens", fx("example.jsonl"), fx("labels.jsonl")],
    ["tokens", fx("example.jsonl"), "--json=yes"],
  ];
  for (const args of cases) {
    const r = cli(...args);
    assert.equal(r.code, 2, `${JSON.stringify(args)} → exit ${r.code}: ${r.stderr}`);
    assert.equal(r.stdout, "", `${JSON.stringify(args)}: nothing on stdout`);
    assert.match(r.stderr.split("\n")[0], /^pi-tree-navigator: \S/, `${JSON.stringify(args)}: reason on stderr`);
  }
});

test("bad input exits 1 with one line naming the file (and line)", () => {
  requireBuilt();
  const work = mkdtempSync(join(tmpdir(), "ptn-cli-bad-"));
  try {
    const zero = join(work, "zero.jsonl");
    writeFileSync(zero, "");
    // Parent links in a circle: every command that walks the path to the leaf says so.
    const cycle = join(work, "cycle.jsonl");
    const msg = (id, parentId) => JSON.stringify({ type: "message", id, parentId, timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user", content: id } });
    writeFileSync(cycle, [JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" }), msg("a", "b"), msg("b", "a"), ""].join("\n"));
    // Over 2 GiB (sparse: no disk used): refused before anything is read, by every command.
    const huge = join(work, "huge.jsonl");
    writeFileSync(huge, "");
    truncateSync(huge, 2 ** 31 + 5);
    const cases = [
      [huge, /huge\.jsonl: cannot read: File size \(2147483653\) is greater than 2 GiB/],
      [fx("all-malformed.jsonl"), /all-malformed\.jsonl:1: /],
      [join(work, "missing.jsonl"), /missing\.jsonl: cannot read/],
      // (`stats` of a folder reads the folder: tests/js/folder.test.js)
      [work, /cannot read/, ["context", "tokens", "list", "tree"]],
      [zero, /zero\.jsonl:1: /],
      [cycle, /cycle\.jsonl: \[Cycle\] parent links form a cycle/, ["context", "tokens", "list"]],
    ];
    for (const [file, re, commands = ["context", "tokens", "list", "tree", "stats"]] of cases) {
      for (const cmd of commands) {
        const r = cli(cmd, file);
        assert.equal(r.code, 1, `${cmd} ${file} → exit ${r.code}: ${r.stderr}`);
        assert.equal(r.stdout, "", `${cmd} ${file}: nothing on stdout`);
        const lines = r.stderr.trimEnd().split("\n");
        assert.equal(lines.length, 1, `${cmd} ${file}: one-line error, got:\n${r.stderr}`);
        assert.match(lines[0], re);
      }
    }
    const unknown = cli("context", fx("example.jsonl"), "--leaf", "deadbeef");
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /example\.jsonl: .*deadbeef/);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

/**
 * A session of a long run in miniature: `n` turns on the path, each with an anchor (`s-<i>`) and an abandoned
 * branch off it that holds an anchor too (`b-<i>`), then a compaction that keeps only the last turn.
 */
function longRun(n) {
  const ts = (i) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
  const lines = [{ type: "session", version: 3, id: "0195f3a4-0000-7000-8000-0000000000aa", timestamp: ts(0), cwd: "/tmp" }];
  let t = 0;
  let leaf = null;
  const add = (entry) => {
    const e = { ...entry, timestamp: ts(++t) };
    lines.push(e);
    return e.id;
  };
  const user = (id, parentId, text) => add({ type: "message", id, parentId, message: { role: "user", content: text } });
  leaf = user("u0", null, "start the long run");
  for (let i = 1; i <= n; i++) {
    leaf = user(`p${i}`, leaf, `step ${i}: ${"work ".repeat(20)}`);
    const target = leaf;
    leaf = add({ type: "label", id: `l${i}`, parentId: leaf, targetId: target, label: `anchor:s-${i}` });
    const off = user(`x${i}`, leaf, `abandoned ${i}: ${"x".repeat(100 + i)}`);
    add({ type: "label", id: `m${i}`, parentId: off, targetId: off, label: `anchor:b-${i}` });
  }
  const kept = user("k", leaf, "the last turn");
  leaf = add({ type: "compaction", id: "c", parentId: kept, summary: "all the steps", firstKeptEntryId: "k", tokensBefore: 1000 });
  user("after", leaf, "go on");
  return lines.map((e) => JSON.stringify(e)).join("\n") + "\n";
}

test("archive's report names at most ten anchors and branches and counts the rest", () => {
  requireBuilt();
  const work = mkdtempSync(join(tmpdir(), "ptn-cli-long-"));
  try {
    const file = join(work, "long.jsonl");
    writeFileSync(file, longRun(25));
    const r = cli("archive", file, "--dry-run");
    assert.equal(r.code, 0, r.stderr);
    const text = r.stdout;
    const ten = (p) => Array.from({ length: 10 }, (_, i) => `${p}-${i + 1}`).join(", ");
    assert.match(text, new RegExp(`note: 25 anchors before the latest compaction \\(${ten("s")} and 15 more\\) would bring stubs`));
    assert.match(text, /would move whole: 50 entries off the active path \(.*\) in 25 branches/);
    // The ten largest branches (the later ones: their message is longer), then the rest summed up.
    const rows = text.split("\n").filter((l) => l.startsWith("    "));
    assert.equal(rows.length, 11, text);
    assert.match(rows[0], /^    from l25 at x25: 2 entries, \d+ B, anchors b-25$/);
    assert.match(rows[10], /^    and 15 more branches \(30 entries, [\d.]+ KB\)$/);
    assert.ok(text.length < 2500, `${text.length} characters:\n${text}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("archive's report names the restore command the way the CLI ran; run as printed, it puts the file back", () => {
  requireBuilt();
  const work = mkdtempSync(join(tmpdir(), "ptn-cli-restore-"));
  try {
    const file = join(work, "my session.jsonl");
    const original = longRun(3);
    writeFileSync(file, original);
    const r = cli("archive", file, "--min-idle", "0");
    assert.equal(r.code, 0, r.stderr);
    const restore = r.stdout.match(/; `([^`]+)` puts it back/)?.[1];
    assert.ok(restore?.endsWith(` ${CLI} restore '${file}'`), r.stdout);
    const old = new Date(Date.now() - 3600_000);
    utimesSync(file, old, old); // restore refuses a file changed in the last minute (pi may be writing)
    const back = spawnSync("sh", ["-c", restore], { encoding: "utf8" });
    assert.equal(back.status, 0, `${restore}\n${back.stderr}`);
    assert.equal(readFileSync(file, "utf8"), original);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("many malformed lines: ten line numbers and the count of the rest", () => {
  requireBuilt();
  const work = mkdtempSync(join(tmpdir(), "ptn-cli-bad-"));
  try {
    const file = join(work, "bad.jsonl");
    writeFileSync(file, readFileSync(fx("example.jsonl"), "utf8") + "not json\n".repeat(25));
    const r = cli("tokens", file, "--json");
    assert.equal(r.code, 0, r.stderr);
    const first = readFileSync(fx("example.jsonl"), "utf8").trimEnd().split("\n").length + 1;
    const ten = Array.from({ length: 10 }, (_, i) => first + i).join(", ");
    assert.match(r.stderr, new RegExp(`bad\\.jsonl: skipped 25 malformed lines \\(lines ${ten} and 15 more\\); first: `));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("malformed lines are skipped and reported on stderr as count + line numbers", () => {
  requireBuilt();
  const r = cli("tokens", fx("malformed.jsonl"), "--json");
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /malformed\.jsonl: skipped 4 malformed lines \(lines 3, 7, 8, 10\)/);
  JSON.parse(r.stdout); // stdout stays machine-readable
  const clean = cli("tokens", fx("example.jsonl"), "--json");
  assert.equal(clean.stderr, "", "no noise for a clean file");
});
