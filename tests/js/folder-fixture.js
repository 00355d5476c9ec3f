// A generated folder of pi sessions laid out as pi lays them (`sessions/<cwd>/<time>_<id>.jsonl`) for the folder
// tests (`stats <folder>`, `--rows` read by DuckDB, `view <folder>`): a priced long run with rewinds and a
// compaction, its child (spawned: `parentSession` names the parent's path), a grandchild, a fork of the parent
// (named by file name only: a folder copied from another machine), a run without prices, and the bad input a
// folder holds: a malformed file, one being appended to (its last line half-written), a JSONL file that is no
// session, a link to nothing, a session whose parent is not in the folder, and two sessions naming each other.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeLongSession } from "../bench/long-session.mjs";

const header = (id, extra = {}) => JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-11-20T10:00:00.000Z", cwd: "/work/b", ...extra });
const user = (id, parentId, text) => JSON.stringify({ type: "message", id, parentId, timestamp: "2026-11-20T10:00:01.000Z", message: { role: "user", content: text, timestamp: 1 } });
const assistant = (id, parentId, usd) =>
  JSON.stringify({
    type: "message", id, parentId, timestamp: "2026-11-20T10:00:02.000Z",
    message: { role: "assistant", content: [{ type: "text", text: "done" }], api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5",
      usage: { input: 1000, output: 100, cacheRead: 0, cacheWrite: 0, totalTokens: 1100, cost: { input: usd / 2, output: usd / 2, cacheRead: 0, cacheWrite: 0, total: usd } },
      stopReason: "stop", timestamp: 2 },
  });
const small = (id, usd, extra) => [header(id, extra), user("u1", null, `question of ${id}`), assistant("a1", "u1", usd)].join("\n") + "\n";

/** Writes the folder under `dir`; returns its root and the files by role. */
export function makeFolder(dir) {
  const root = join(dir, "sessions");
  const a = join(root, "--work-a--");
  const b = join(root, "--work-b--");
  mkdirSync(a, { recursive: true });
  mkdirSync(b, { recursive: true });
  const f = {
    parent: join(a, "2026-11-26T00-00-00-000Z_0193a0b0-0000-7000-8000-000000000001.jsonl"),
    child: join(a, "2026-11-27T00-00-00-000Z_0193a0b0-0000-7000-8000-000000000002.jsonl"),
    grandchild: join(b, "2026-11-28T00-00-00-000Z_0193a0b0-0000-7000-8000-000000000003.jsonl"),
    fork: join(a, "2026-11-29T00-00-00-000Z_0193a0b0-0000-7000-8000-000000000004.jsonl"),
    unpriced: join(b, "2026-11-20T10-00-00-000Z_unpriced.jsonl"),
    malformed: join(b, "2026-11-20T10-00-00-000Z_malformed.jsonl"),
    appending: join(b, "2026-11-20T10-00-00-000Z_appending.jsonl"),
    notSession: join(b, "notes.jsonl"),
    broken: join(b, "2026-11-20T10-00-00-000Z_broken.jsonl"),
    orphan: join(b, "2026-11-20T10-00-00-000Z_orphan.jsonl"),
    cycleA: join(b, "2026-11-20T10-00-00-000Z_cycle-a.jsonl"),
    cycleB: join(b, "2026-11-20T10-00-00-000Z_cycle-b.jsonl"),
  };
  writeLongSession(f.parent, { mb: 0.4, priced: true, cwd: "/work/a", id: "0193a0b0-0000-7000-8000-000000000001", seed: 0 });
  writeLongSession(f.child, { mb: 0.25, priced: true, cwd: "/work/a", id: "0193a0b0-0000-7000-8000-000000000002", parentSession: f.parent, seed: 1 });
  writeLongSession(f.grandchild, { mb: 0.15, priced: true, cwd: "/work/b", id: "0193a0b0-0000-7000-8000-000000000003", parentSession: f.child, seed: 2 });
  // Named as on the machine that wrote it: found by its file name.
  const elsewhere = `/Users/someone/.pi/agent/sessions/--work-a--/${f.parent.split("/").pop()}`;
  writeLongSession(f.fork, { mb: 0.2, priced: true, cwd: "/work/a", id: "0193a0b0-0000-7000-8000-000000000004", parentSession: elsewhere, seed: 3 });
  writeLongSession(f.unpriced, { mb: 0.1, priced: false, cwd: "/work/b", id: "unpriced", seed: 4 });
  writeFileSync(f.malformed, [header("malformed"), user("u1", null, "hi"), '{"type":"message","id":"x",', assistant("a1", "u1", 0.5)].join("\n") + "\n");
  writeFileSync(f.appending, small("appending", 0.25) + '{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-11-20T10:00:03.000Z","message":{"role":"assist');
  writeFileSync(f.notSession, '{"note":"a JSONL file of something else"}\n{"note":2}\n');
  symlinkSync(join(b, "gone.jsonl"), f.broken);
  writeFileSync(f.orphan, small("orphan", 0.125, { parentSession: "/elsewhere/sessions/--x--/missing.jsonl" }));
  writeFileSync(f.cycleA, small("cycle-a", 0.0625, { parentSession: f.cycleB }));
  writeFileSync(f.cycleB, small("cycle-b", 0.03125, { parentSession: f.cycleA }));
  writeFileSync(join(b, "README.txt"), "not a session: not *.jsonl, not listed\n");
  return { root, files: f };
}
