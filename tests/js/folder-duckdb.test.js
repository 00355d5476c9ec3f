// `stats <folder> --rows` read by DuckDB's own JSON reader (`read_ndjson`, @duckdb/node-api): the rows as they are
// must give the totals `stats <folder> --json` gives — the money of the folder, of each session, of its active path
// and its abandoned branches, and its tokens. The generated folder (tests/js/folder-fixture.js) and the real
// sessions in ../shared/real-sessions (read in place; skipped when absent).
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { makeFolder } from "./folder-fixture.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CLI = join(resolve(process.env.PTN_PKG || join(root, "pkg")), "cli.js");
const REAL = resolve(root, "..", "shared", "real-sessions");

const run = (...args) => {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
};
const close = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

// The query docs/folder.md shows, per session and in total.
const PER_SESSION = `
  SELECT session, sum(usd) AS usd, sum(usd) FILTER (WHERE state = 'active') AS active,
         sum(usd) FILTER (WHERE state = 'abandoned') AS abandoned,
         sum(input) AS input, sum(output) AS output, sum(cacheRead) AS cache_read, sum(cacheWrite) AS cache_write,
         count(*) FILTER (WHERE kind = 'assistant') AS requests
  FROM read_ndjson(?) GROUP BY session`;
const TOTAL = `SELECT sum(usd) AS usd, count(DISTINCT session) AS sessions FROM read_ndjson(?)`;

async function agree(folder) {
  const { DuckDBInstance } = await import("@duckdb/node-api");
  const dir = mkdtempSync(join(tmpdir(), "ptn-duck-"));
  try {
    const report = JSON.parse(run("stats", folder, "--json"));
    const rows = join(dir, "rows.jsonl");
    writeFileSync(rows, run("stats", folder, "--rows"));
    const db = await DuckDBInstance.create(":memory:");
    const con = await db.connect();
    const query = async (sql) => (await con.runAndReadAll(sql, [rows])).getRowObjectsJS();
    const [total] = await query(TOTAL);
    if (report.totals.usd === null) assert.equal(total.usd, null);
    else close(total.usd, report.totals.usd, "the folder's usd");
    const bySession = new Map((await query(PER_SESSION)).map((r) => [r.session, r]));
    for (const s of report.sessions) {
      const r = bySession.get(s.file);
      if (!r) {
        assert.equal(s.cost.messages.requests + s.cost.total.input + s.cost.total.output, 0, `${s.file}: no rows, no requests`);
        continue;
      }
      for (const [k, col] of [["input", "input"], ["output", "output"], ["cacheRead", "cache_read"], ["cacheWrite", "cache_write"]]) assert.equal(Number(r[col]), s.cost.total[k], `${s.file}: ${k}`);
      assert.equal(Number(r.requests), s.cost.messages.requests, `${s.file}: requests`);
      if (s.cost.total.usd === null) {
        assert.equal(r.usd, null, `${s.file}: no prices, no money`);
        continue;
      }
      close(r.usd, s.cost.total.usd, `${s.file}: usd`);
      close(r.active ?? 0, s.cost.activePath.usd, `${s.file}: active path`);
      close(r.abandoned ?? 0, s.cost.abandoned.usd, `${s.file}: abandoned`);
    }
    assert.equal(Number(total.sessions), bySession.size);
    con.closeSync?.();
    return { report, total };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("DuckDB's read_ndjson of --rows gives the --json totals: a generated folder", { skip: !existsSync(CLI) && "run `npm run build` first" }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "ptn-folder-"));
  try {
    const { root: folder } = makeFolder(dir);
    const { report, total } = await agree(folder);
    assert.ok(report.totals.usd > 0 && Number(total.sessions) >= 6);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("DuckDB's read_ndjson of --rows gives the --json totals: ../shared/real-sessions", { skip: (!existsSync(REAL) && "../shared/real-sessions is absent") || (!existsSync(CLI) && "run `npm run build` first") }, async () => {
  const { report } = await agree(REAL);
  assert.ok(report.sessions.length >= 10);
});
