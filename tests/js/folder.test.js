// `stats <folder>` (issue 40): a generated folder (tests/js/folder-fixture.js: families, forks, bad input) and the real
// sessions in ../shared/real-sessions read in place. Every session's numbers must be what `stats <file> --json` says
// of that file; "with children" the sum over the family; `--rows` summed the same money; bad files listed, not summed.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { makeFolder } from "./folder-fixture.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CLI = join(resolve(process.env.PTN_PKG || join(root, "pkg")), "cli.js");
const REAL = resolve(root, "..", "shared", "real-sessions");

function cli(...args) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const json = (...args) => {
  const r = cli(...args);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
};
const close = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

/** Every session of `report` against `stats <file> --json` of its file. */
function sameAsStatsOfFile(report) {
  for (const s of report.sessions) {
    const one = json("stats", s.file, "--json");
    assert.deepEqual(s.cost, one.cost, `${s.file}: the cost block is the file's`);
    assert.equal(s.entries, one.entries, `${s.file}: entries`);
    assert.equal(s.bytes, one.fileBytes, `${s.file}: bytes`);
    assert.equal(s.bytes, statSync(s.file).size);
    const saved = [one.cost.savings.rewinds.usd, one.cost.savings.compactions.usd];
    assert.equal(s.saved.usd, saved.every((x) => x === null) ? null : saved.reduce((a, x) => a + (x ?? 0), 0), `${s.file}: saved`);
  }
}

/** withChildren against the family summed here: the session and every descendant, each once. */
function familiesAdd(report) {
  const by = new Map(report.sessions.map((s) => [s.file, s]));
  const family = (s, seen = new Set()) => {
    assert.ok(!seen.has(s.file), `${s.file}: walked twice (a circle followed)`);
    seen.add(s.file);
    for (const c of s.children) family(by.get(c), seen);
    return seen;
  };
  for (const s of report.sessions) {
    const members = [...family(s)].map((f) => by.get(f));
    assert.equal(s.withChildren.sessions, members.length, `${s.file}: family size`);
    const priced = members.filter((m) => m.cost.total.usd !== null);
    if (priced.length === 0) assert.equal(s.withChildren.usd, null);
    else close(s.withChildren.usd, priced.reduce((a, m) => a + m.cost.total.usd, 0), `${s.file}: withChildren`);
    for (const c of s.children) assert.equal(by.get(c).parent, s.file, `${c}: its parent is ${s.file}`);
  }
  const priced = report.sessions.filter((s) => s.cost.total.usd !== null);
  close(report.totals.usd, priced.reduce((a, s) => a + s.cost.total.usd, 0), "totals.usd");
  assert.equal(report.totals.sessions, report.sessions.length);
  assert.equal(report.totals.skipped, report.skipped.length);
}

/** `--rows` of the folder: JSON lines whose money per session is the session's cost block. */
function rowsAgree(dir, report) {
  const r = cli("stats", dir, "--rows");
  assert.equal(r.code, 0, r.stderr);
  const rows = r.stdout.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const keys = Object.keys(rows[0] ?? {});
  for (const row of rows) assert.deepEqual(Object.keys(row), keys, "every row has the same columns, in one order");
  for (const s of report.sessions) {
    const mine = rows.filter((x) => x.session === s.file);
    const sum = (xs, f) => xs.reduce((a, x) => a + f(x), 0);
    for (const k of ["input", "output", "cacheRead", "cacheWrite"]) assert.equal(sum(mine, (x) => x[k]), s.cost.total[k], `${s.file}: rows' ${k}`);
    assert.equal(mine.filter((x) => x.kind === "assistant").length, s.cost.messages.requests, `${s.file}: assistant rows`);
    if (s.cost.total.usd === null) {
      assert.ok(mine.every((x) => x.usd === null), `${s.file}: no prices, no money in its rows`);
      continue;
    }
    close(sum(mine, (x) => x.usd ?? 0), s.cost.total.usd, `${s.file}: rows' usd`);
    close(sum(mine.filter((x) => x.state === "active"), (x) => x.usd ?? 0), s.cost.activePath.usd, `${s.file}: active rows`);
    close(sum(mine.filter((x) => x.state === "abandoned"), (x) => x.usd ?? 0), s.cost.abandoned.usd, `${s.file}: abandoned rows`);
  }
  for (const k of report.skipped) assert.ok(!rows.some((x) => x.session === k.file), `${k.file}: skipped, no rows`);
  return rows;
}

test("stats <folder>: a generated folder's sessions, families, rows and bad files", { skip: !existsSync(CLI) && "run `npm run build` first" }, () => {
  const dir = mkdtempSync(join(tmpdir(), "ptn-folder-"));
  try {
    const { root: folder, files: f } = makeFolder(dir);
    const report = json("stats", folder, "--json");
    const by = new Map(report.sessions.map((s) => [s.file, s]));
    assert.deepEqual([...by.keys()].sort(), [f.parent, f.child, f.grandchild, f.fork, f.unpriced, f.orphan, f.cycleA, f.cycleB].sort());
    sameAsStatsOfFile(report);
    familiesAdd(report);

    // The family: parent ← child ← grandchild (by path), parent ← fork (by file name: written on another machine).
    assert.deepEqual(by.get(f.parent).children.sort(), [f.child, f.fork].sort());
    assert.equal(by.get(f.grandchild).parent, f.child);
    assert.equal(by.get(f.fork).parent, f.parent);
    assert.equal(by.get(f.parent).withChildren.sessions, 4);
    assert.equal(by.get(f.parent).parentSession, null);
    assert.equal(by.get(f.child).parentSession, f.parent, "parentSession as written");
    // Bad parents: reported, not followed.
    assert.equal(by.get(f.orphan).parentProblem, "missing");
    assert.equal(by.get(f.orphan).parent, null);
    assert.equal(by.get(f.cycleA).parentProblem, "cycle");
    assert.equal(by.get(f.cycleB).parentProblem, "cycle");
    assert.deepEqual([by.get(f.cycleA).children, by.get(f.cycleB).children], [[], []]);
    assert.equal(by.get(f.cycleA).withChildren.usd, 0.0625);
    // No prices: no money, not $0.
    assert.equal(by.get(f.unpriced).cost.total.usd, null);
    assert.equal(by.get(f.unpriced).withChildren.usd, null);
    assert.ok(by.get(f.parent).cost.savings.rewinds.items.length > 0 && by.get(f.parent).saved.usd > 0, "the long run's rewinds saved money");
    assert.equal(by.get(f.parent).firstMessage, "Please refactor the session reader and keep the tests green.");
    assert.equal(by.get(f.parent).start, "2026-11-26T00:00:01.000Z");

    // Bad files: listed with their reasons, out of the totals.
    const skipped = new Map(report.skipped.map((k) => [k.file, k.reason]));
    assert.deepEqual([...skipped.keys()].sort(), [f.malformed, f.appending, f.notSession, f.broken].sort());
    assert.match(skipped.get(f.malformed), /^malformed: line 3: /);
    assert.match(skipped.get(f.appending), /^half-written: /);
    assert.match(skipped.get(f.notSession), /^not a pi session/);
    assert.match(skipped.get(f.broken), /^unreadable: no such file/);
    assert.equal(report.totals.sessions, 8);

    const rows = rowsAgree(folder, report);
    assert.ok(rows.some((x) => x.spanKind === "rewind" && x.state === "active"), "requests after a rewind");
    assert.ok(rows.some((x) => x.spanKind === "rewind" && x.state === "abandoned"), "requests a rewind collapsed");
    assert.ok(rows.some((x) => x.spanKind === "compaction"), "requests after the compaction");
    const abandoned = rows.filter((x) => x.state === "abandoned" && x.session === f.parent);
    const rewindIds = new Set(by.get(f.parent).cost.savings.rewinds.items.map((i) => i.entryId));
    assert.ok(abandoned.length > 0 && abandoned.every((x) => rewindIds.has(x.spanId)), "each abandoned request names the rewind that collapsed it");
    assert.match(rows.find((x) => x.session === f.parent).time, /^2026-11-26T00:00:\d\d\.000Z$/);

    // The text: a row per session, children under their parents, the skipped files with reasons.
    const text = cli("stats", folder);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^.*: 8 sessions, 4 files skipped, /);
    const lines = text.stdout.split("\n");
    const at = (file) => lines.findIndex((l) => l.includes(file.slice(folder.length + 1)));
    assert.ok(at(f.parent) < at(f.child) && at(f.child) < at(f.grandchild), "children follow their parent");
    assert.match(lines[at(f.grandchild)], /^ {2}└ /, "a grandchild two levels in");
    assert.match(lines[at(f.orphan)], / not found /);
    assert.match(lines[at(f.cycleA)], / cycle /);
    assert.match(text.stdout, /skipped \(4; not in the totals\):/);
    assert.match(text.stdout, /half-written/);

    // A file given with --rows is a folder of one; --rows and --json together are a usage error.
    const one = cli("stats", f.child, "--rows");
    assert.equal(one.code, 0);
    assert.ok(one.stdout.trim().split("\n").every((l) => JSON.parse(l).session === f.child));
    assert.equal(cli("stats", folder, "--rows", "--json").code, 2);
    assert.equal(cli("stats", join(dir, "nothing-here"), "--json").code, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("stats <folder> over ../shared/real-sessions, read in place", { skip: (!existsSync(REAL) && "../shared/real-sessions is absent") || (!existsSync(CLI) && "run `npm run build` first") }, () => {
  const report = json("stats", REAL, "--json");
  assert.ok(report.sessions.length >= 10, `${report.sessions.length} sessions`);
  sameAsStatsOfFile(report);
  familiesAdd(report);
  rowsAgree(REAL, report);
  // A real header names its parent (a path on the user's machine, not in this folder): reported, not followed.
  const named = report.sessions.filter((s) => s.parentSession !== null);
  assert.ok(named.length >= 1);
  for (const s of named) assert.equal(s.parentProblem, s.parent === null ? "missing" : null);
});
