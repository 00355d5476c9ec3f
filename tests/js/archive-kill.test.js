// The archiver killed at any point (issue 42): `archive --after-exit` — what archiveOnExit and /archive start when
// pi quits — is killed with SIGKILL before each of its file-changing calls in turn (tests/js/kill-at.mjs counts them),
// and at random moments of a normal run. After every kill the session file is byte for byte either the original or
// the archived file, never anything else; `restore` then gives back the original bytes, and `archive` run again
// (what the next quit does) archives it as an uninterrupted run would, leaving no temporary file behind.
// Needs `npm run build`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const CLI = fileURLToPath(new URL("../../pkg/cli.js", import.meta.url));
const KILL_AT = fileURLToPath(new URL("./kill-at.mjs", import.meta.url));
const GEN = fileURLToPath(new URL("../bench/gen.mjs", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "ptn-archive-kill-"));
test.after(() => rmSync(work, { recursive: true, force: true }));

const sha = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");
/** A process id that is not running (the archiver waits for it first). */
const GONE = 2 ** 22 + 12345;

// A long run's session (anchors, rewinds, compactions), ~5.6 MB: archive moves most of it.
const gen = JSON.parse(spawnSync(process.execPath, [GEN, "3000", "10", work], { encoding: "utf8" }).stdout);
const ORIGINAL = gen["10"].file;
const want = { original: sha(ORIGINAL) };

let runs = 0;
/** A fresh copy of the session as `s.jsonl` in a folder of its own. */
function fresh() {
  const dir = join(work, `run-${++runs}`);
  mkdirSync(dir);
  const file = join(dir, "s.jsonl");
  cpSync(ORIGINAL, file);
  const old = new Date(Date.now() - 3600_000);
  utimesSync(file, old, old);
  return { dir, file };
}

/** The archiver as pi starts it (after a pi that has exited), optionally under the kill preload. */
function archiverArgs(file, dir) {
  return [CLI, "archive", file, "--after-exit", String(GONE), "--if-worth", "0", "--log", join(dir, "log")];
}

const cli = (...args) => spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8" });

// The uninterrupted run: the archived file every interrupted one must equal or precede; how many calls it makes.
{
  const { dir, file } = fresh();
  const count = join(dir, "count");
  const r = spawnSync(process.execPath, ["--import", KILL_AT, ...archiverArgs(file, dir)], { env: { ...process.env, PTN_KILL_COUNT: count } });
  assert.equal(r.status, 0, String(r.stderr));
  assert.match(readFileSync(join(dir, "log"), "utf8"), /quit: archived: /);
  want.archived = sha(file);
  want.calls = Number(readFileSync(count, "utf8"));
  assert.notEqual(want.archived, want.original);
}

/** After a kill in `dir`: the session is the original or the archived file; restore and archive again. */
function checkAfterKill(dir, file, what) {
  const now = sha(file);
  assert.ok(now === want.original || now === want.archived, `${what}: the session is neither the original nor the archived file`);
  const side = `${file}.archive`;
  if (now === want.archived) assert.ok(existsSync(side), `${what}: archived without its archive`);
  // restore gives back the original bytes (or says there is nothing to restore: the session is the original).
  if (existsSync(side)) {
    const r = cli("restore", file, "--min-idle", "0");
    assert.equal(r.status, 0, `${what}: restore: ${r.stderr}`);
  }
  assert.equal(sha(file), want.original, `${what}: restore gives back the original bytes`);
  assert.ok(!existsSync(side), `${what}: no archive left after restore`);
  // The next archive (the next quit's) is the uninterrupted run's, and leaves nothing beside the files.
  const again = spawnSync(process.execPath, archiverArgs(file, dir), { encoding: "utf8" });
  assert.equal(again.status, 0, `${what}: archive again: ${again.stderr}`);
  assert.equal(sha(file), want.archived, `${what}: archived again as an uninterrupted run`);
  const left = readdirSync(dir).filter((n) => n.includes(".tmp-") || n.includes(".changed-"));
  assert.deepEqual(left, [], `${what}: temporary files left`);
}

test("killed before each of the archiver's file-changing calls: the original or the archived file, never anything else", () => {
  assert.ok(want.calls >= 8, `the archiver makes ${want.calls} file-changing calls`);
  for (let at = 1; at <= want.calls; at++) {
    const { dir, file } = fresh();
    const r = spawnSync(process.execPath, ["--import", KILL_AT, ...archiverArgs(file, dir)], { env: { ...process.env, PTN_KILL_AT: String(at) } });
    assert.equal(r.signal, "SIGKILL", `killed before call ${at} of ${want.calls}`);
    checkAfterKill(dir, file, `call ${at} of ${want.calls}`);
  }
});

test("killed at random moments of a normal run: the same", async () => {
  const run = (file, dir) => {
    const child = spawn(process.execPath, archiverArgs(file, dir), { stdio: "ignore" });
    return { child, exit: new Promise((r) => child.on("exit", (code, signal) => r({ code, signal }))) };
  };
  // How long a run takes here (the shortest of three), then kills spread over most of it (seeded: the same moments
  // every run of the test).
  let span = Infinity;
  for (let i = 0; i < 3; i++) {
    const { dir, file } = fresh();
    const t0 = performance.now();
    assert.equal((await run(file, dir).exit).code, 0);
    span = Math.min(span, performance.now() - t0);
  }
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  let killed = 0;
  for (let i = 0; i < 10; i++) {
    const { dir, file } = fresh();
    const { child, exit } = run(file, dir);
    const delay = random() * span * 0.9;
    await new Promise((r) => setTimeout(r, delay));
    child.kill("SIGKILL");
    if ((await exit).signal === "SIGKILL") killed++;
    checkAfterKill(dir, file, `killed after ${delay.toFixed(0)} ms`);
  }
  assert.ok(killed >= 5, `most runs were killed before they ended (${killed} of 10)`);
});
