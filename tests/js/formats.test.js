// Session formats pi migrates on load (src/session/migrate.rs), through the built package as the library and the
// viewer use it: a version-1 file (no ids; pi's early fixture format) loaded the viewer's way (a full index,
// loadFileBytes, its SessionModel) and through the library's other ingest paths reads as pi reads it —
// the context (keys in pi's order) and estimates pi 0.75.5 recorded for it (tests/fixtures/expected), with the
// entries named `line-<N>`. Run `npm run build` first.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const pkgDir = join(root, "pkg");
const api = await import(pathToFileURL(join(pkgDir, "index-node.js")).href);
const { SessionModel } = await import(pathToFileURL(join(pkgDir, "viewer", "model.js")).href);
const { SessionIndex } = api;

const fixture = (name) => readFileSync(join(root, "tests", "fixtures", name));
/** What pi 0.75.5 computed for a fixture, by leaf. */
function recorded(name) {
  const line = readFileSync(join(root, "tests", "fixtures", "expected", "pi-0.75.5.ndjson"), "utf8")
    .split("\n")
    .find((l) => l.startsWith(`{"file":${JSON.stringify(name)}`));
  assert.ok(line, `${name} is recorded (node tests/fixtures/record-expected.mjs)`);
  const rec = JSON.parse(line);
  return { ...rec, byLeaf: new Map(rec.results.map((r) => [r.leaf, r])) };
}

test("the viewer loads a version-1 file as pi does: entries line-N, pi's context and estimates", () => {
  const bytes = fixture("v1-format.jsonl");
  const pi = recorded("v1-format.jsonl");
  const index = SessionIndex.full();
  index.setHostVersion("0.75.5"); // the recording is pi 0.75.5's
  const report = index.loadFileBytes(bytes);
  assert.deepEqual(report.skipped, []);
  assert.equal(report.problem, null);
  const model = new SessionModel(index, bytes.length);
  try {
    assert.equal(model.count, pi.entryCount);
    assert.deepEqual(Array.from({ length: model.count }, (_, i) => model.id(i)), ["line-2", "line-3", "line-4", "line-5", "line-6", "line-7", "line-8", "line-9"]);
    assert.deepEqual(Array.from(model.parent), [-1, 0, 1, 2, 3, 4, 5, 6], "one chain");
    assert.equal(model.leafId, "line-9");
    // One chain: each entry's path is the lines before it.
    assert.deepEqual(index.path("line-5"), ["line-2", "line-3", "line-4", "line-5"]);
    for (const [leaf, want] of pi.byLeaf) {
      const arg = leaf === "$default" ? undefined : leaf;
      if (leaf === null) continue;
      assert.equal(index.contextJson(arg), JSON.stringify(want.context), `context at ${leaf} (keys in pi's order)`);
      assert.deepEqual(index.estimate(arg), want.estimate, `estimate at ${leaf}`);
    }
    // The entry as pi holds it after migrating.
    assert.equal(index.entryJson("line-3"), '{"type":"thinking_level_change","timestamp":"2025-03-01T09:00:03.000Z","thinkingLevel":"low","id":"line-3","parentId":"line-2"}');
  } finally {
    model.dispose();
  }
});

test("every library ingest path reads a version-1 file the same", () => {
  const bytes = fixture("v1-edge.jsonl");
  const text = bytes.toString("utf8");
  const pi = recorded("v1-edge.jsonl");
  const answers = (index) => ({ ids: index.path(), estimate: index.estimate(), mid: index.estimate("line-11") });
  const want = { ids: ["line-2", "line-5", "line-6", "line-7", "line-8", "line-9", "line-10", "line-11", "line-13", "line-14"], estimate: pi.byLeaf.get("$default").estimate, mid: pi.byLeaf.get("line-11").estimate };
  for (const make of [() => SessionIndex.plugin(), () => SessionIndex.full()]) {
    const paths = {
      loadFile: (ix) => ix.loadFile(text),
      loadFileBytes: (ix) => ix.loadFileBytes(bytes),
      appendJsonl: (ix) => {
        const lines = text.split(/(?<=\n)/);
        ix.appendJsonl(lines.slice(0, 6).join(""));
        ix.appendJsonl(lines.slice(6).join(""));
      },
      appendJsonlBytes: (ix) => ix.appendJsonlBytes(bytes),
    };
    for (const [name, feed] of Object.entries(paths)) {
      const index = make();
      index.setHostVersion("0.75.5");
      try {
        feed(index);
        assert.deepEqual(answers(index), want, name);
      } finally {
        index.free();
      }
    }
  }
  // The skimmed read of the CLI's list/tokens.
  const skimmed = api.listFileBytes(bytes, "line-11", "0.75.5");
  assert.deepEqual(skimmed.list.estimate, want.mid);
  assert.deepEqual(api.listFileBytes(bytes, null, "0.75.5").report.skipped.map((s) => s.line), [3]);
});
