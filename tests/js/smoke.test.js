// Node smoke test of the built package (run `npm run build` first): loads pkg/ through the Node entry,
// and through the package name + exports map from a throwaway consumer folder.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { spawnSync } from "node:child_process";
import { jsonl, entries, expected, pickEstimate } from "./session-fixture.js";
import { PACKED_PACKAGE_CAP, packTarball, sizeLine } from "../../scripts/pack.mjs";

const pkgDir = fileURLToPath(new URL("../../pkg/", import.meta.url));
const api = await import(pathToFileURL(join(pkgDir, "index-node.js")).href);
const { SessionIndex } = api;

function codeOf(fn) {
  try { fn(); } catch (e) {
    assert.ok(e instanceof Error, `thrown value is an Error (got ${Object.prototype.toString.call(e)})`);
    assert.equal(typeof e.code, "string", "error has a string code");
    return e.code;
  }
  assert.fail("expected a throw");
}

test("node entry exports SessionIndex and a resolved ready promise", async () => {
  assert.equal(typeof SessionIndex, "function");
  assert.equal(typeof SessionIndex.full, "function");
  assert.equal(typeof SessionIndex.plugin, "function");
  await api.ready;
});

test("full index: ingest, leaf, path, estimates", () => {
  const idx = SessionIndex.full();
  try {
    const rep = idx.appendJsonl(jsonl);
    assert.equal(rep.appended, 3);
    assert.deepEqual(rep.skipped, []);
    assert.equal(idx.entryCount, 3, "header is not an entry");
    assert.equal(idx.leafId(), "a0000003", "leaf defaults to the last appended entry");
    assert.deepEqual(idx.path(), ["a0000001", "a0000002", "a0000003"]);

    assert.deepEqual(pickEstimate(idx.estimate()), expected.current);
    assert.deepEqual(pickEstimate(idx.estimate("a0000002")), expected.a0000002);
    assert.deepEqual(pickEstimate(idx.estimate("a0000001")), expected.a0000001);
    assert.deepEqual(pickEstimate(idx.estimate(null)), expected.current, "null = the current leaf");
    idx.setLeaf(null);
    assert.deepEqual(pickEstimate(idx.estimate()), expected.none, "setLeaf(null): before the first entry");

    idx.setLeaf("a0000002");
    assert.equal(idx.leafId(), "a0000002");
    assert.deepEqual(pickEstimate(idx.estimate()), expected.a0000002);

    const ctx = JSON.parse(idx.contextJson("a0000003"));
    assert.equal(ctx.messages.length, 3);
    assert.deepEqual(ctx.messages.map((m) => m.role), ["user", "assistant", "user"]);
  } finally {
    idx.free();
  }
});

test("plugin index agrees on estimates; appendEntries takes host objects", () => {
  const idx = SessionIndex.plugin();
  try {
    const rep = idx.appendEntries(entries);
    assert.equal(rep.appended, 3);
    assert.equal(idx.entryCount, 3);
    assert.equal(idx.leafId(), "a0000003");
    assert.deepEqual(pickEstimate(idx.estimate()), expected.current);
    assert.equal(codeOf(() => idx.buildContext()), "NeedsFullMode");
  } finally {
    idx.free();
  }
});

test("appendEntries of a whole session (the first sync) goes in slices: all taken, skips at their batch position, the same index as JSONL", () => {
  // 200 entries crosses several of the binding's slices; entry 130 (1-based) is no entry object.
  const many = [];
  for (let i = 1; i <= 200; i++) {
    const id = `e${String(i).padStart(7, "0")}`;
    const parentId = i === 1 ? null : `e${String(i - 1).padStart(7, "0")}`;
    many.push({ type: "message", id, parentId, timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user", content: "x".repeat(i) } });
  }
  const batch = many.map((e, i) => (i === 129 ? 42 : e));
  const sliced = SessionIndex.plugin(), whole = SessionIndex.plugin();
  try {
    const rep = sliced.appendEntries(batch);
    assert.equal(rep.appended, 199);
    assert.deepEqual(rep.skipped.map((s) => s.line), [130]);
    whole.appendJsonl(batch.filter((e) => typeof e === "object").map((e) => JSON.stringify(e)).join("\n"));
    assert.equal(sliced.entryCount, whole.entryCount);
    assert.deepEqual(pickEstimate(sliced.estimate()), pickEstimate(whole.estimate()));
  } finally {
    sliced.free();
    whole.free();
  }
});

test("bad calls throw an Error with a code", () => {
  const idx = SessionIndex.full();
  try {
    idx.appendJsonl(jsonl);
    assert.equal(codeOf(() => idx.setLeaf("nope0000")), "UnknownEntry");
    assert.equal(idx.leafId(), "a0000003", "a failed setLeaf leaves the leaf alone");
  } finally {
    idx.free();
  }
});

test("absent values are null, not undefined", () => {
  const idx = SessionIndex.full();
  try {
    assert.equal(idx.entryCount, 0);
    assert.strictEqual(idx.leafId(), null, "empty index has a null leaf");
    idx.appendJsonl(jsonl);
    assert.strictEqual(idx.labelOf("a0000001"), null, "no label");
    assert.strictEqual(idx.findLabel("no-such-label"), null, "label not found");
    assert.strictEqual(idx.estimate("a0000001").lastUsageIndex, null, "no usage yet");
    idx.setLeaf(null);
    assert.strictEqual(idx.leafId(), null, "setLeaf(null) = before the first entry");
  } finally {
    idx.free();
  }
});

test("pkg/ packs (scripts/pack.mjs) and installs as an npm package; resolves by name (ESM import and CJS require)", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "ptn-consumer-"));
  const npm = (...args) => {
    const r = spawnSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir, encoding: "utf8" });
    assert.equal(r.status, 0, `npm ${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
  };
  try {
    writeFileSync(join(dir, "package.json"), JSON.stringify({ private: true }));
    const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
    assert.equal(manifest.type, "module");
    // The release tarball (`npm run pack`) and the package-size cap (HACKING.md, "One wasm module"): the
    // packed tarball, in npm's kB (1000 bytes; raised twice: scripts/pack.mjs says why).
    const packed = packTarball({ pkgDir, outDir: dir });
    assert.equal(basename(packed.file), `${manifest.name}-${manifest.version}.tgz`);
    assert.ok(packed.size <= PACKED_PACKAGE_CAP, `packed package ${(packed.size / 1000).toFixed(1)} kB exceeds the ${PACKED_PACKAGE_CAP / 1000} kB cap`);
    t.diagnostic(sizeLine(packed));
    npm("install", `./${basename(packed.file)}`, "--offline");
    if (manifest.bin) {
      for (const name of Object.keys(manifest.bin)) {
        assert.ok(existsSync(join(dir, "node_modules", ".bin", name)), `bin ${name} installed`);
      }
    }
    writeFileSync(join(dir, "esm.mjs"),
      'import { SessionIndex } from "pi-tree-navigator";\nconst i = SessionIndex.full(); console.log(i.entryCount); i.free();\n');
    writeFileSync(join(dir, "cjs.cjs"),
      'const { SessionIndex } = require("pi-tree-navigator");\nconst i = SessionIndex.plugin(); console.log(i.entryCount); i.free();\n');
    for (const f of ["esm.mjs", "cjs.cjs"]) {
      const r = spawnSync(process.execPath, [join(dir, f)], { cwd: dir, encoding: "utf8" });
      assert.equal(r.status, 0, `${f}: ${r.stderr}`);
      assert.equal(r.stdout.trim(), "0", f);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("appendJsonl and appendJsonlBytes take big inputs in pieces with the same result as line by line ", async () => {
  // ~300 KB: several 16K-unit / 64 KB pieces, astral characters (surrogate pairs) everywhere, so some piece
  // boundaries fall inside a pair or inside a UTF-8 sequence; a lone surrogate and a blank line as well.
  const lines = ['{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}'];
  let parent = null;
  for (let i = 0; i < 400; i++) {
    const id = `e${i}`;
    // Mostly astral characters, with an odd-length prefix on some lines, so that piece cuts land inside pairs.
    const text = `${"a".repeat(i % 3)}${"😀".repeat(300)}é${i === 200 ? "\ud800" : ""}`;
    lines.push(JSON.stringify({ type: "message", id, parentId: parent, timestamp: `2026-01-01T00:00:${String(i % 60).padStart(2, "0")}.000Z`, message: { role: "user", content: text } }));
    if (i === 100) lines.push("");
    parent = id;
  }
  const text = lines.join("\n") + "\n";
  {
    const core = api;
    const one = core.SessionIndex.plugin();
    for (const line of lines) one.appendJsonl(line + "\n");
    const whole = core.SessionIndex.plugin();
    const report = whole.appendJsonl(text);
    const bytes = core.SessionIndex.plugin();
    const reportBytes = bytes.appendJsonlBytes(new TextEncoder().encode(text));
    assert.deepEqual(report, { appended: 400, skipped: [], warnings: [] });
    assert.deepEqual(reportBytes, report);
    for (const index of [whole, bytes]) {
      assert.equal(index.entryCount, one.entryCount);
      assert.equal(index.leafId(), one.leafId());
      const plan = (i) => i.toolPlan({ action: "list" }, { callId: "c", contextWindow: 100000 });
      assert.deepEqual(plan(index), plan(one));
    }
  }
  // Every character arrived intact (a piece cut inside a surrogate pair or a UTF-8 sequence would not):
  // the full index keeps each entry's text as fed.
  const full = api.SessionIndex.full();
  full.appendJsonl(text);
  const fullBytes = api.SessionIndex.full();
  fullBytes.appendJsonlBytes(new TextEncoder().encode(text));
  for (const line of lines.slice(1).filter(Boolean)) {
    const id = JSON.parse(line).id;
    const fed = new TextDecoder().decode(new TextEncoder().encode(line)); // the lone surrogate as U+FFFD
    assert.equal(full.entryJson(id), fed, id);
    assert.equal(fullBytes.entryJson(id), fed, id);
  }
});

/** The session fixtures (tests/fixtures/*.jsonl) and a seeded `below(n)`, for the tests that cut files in pieces. */
function fixturesAndDice(seed) {
  const dir = fileURLToPath(new URL("../fixtures/", import.meta.url));
  const files = readdirSync(dir).filter((n) => n.endsWith(".jsonl"));
  assert.ok(files.length >= 10, `fixtures: ${files.length}`);
  return { dir, files, below: (n) => ((seed = (seed * 1103515245 + 12345) >>> 0) % n) };
}

test("listFileBytes takes a FileBytes gathered in pieces (spent afterwards) as it takes the file's Uint8Array", () => {
  const { dir, files, below } = fixturesAndDice(7);
  for (const name of files) {
    const bytes = readFileSync(join(dir, name));
    for (const leaf of [undefined, null]) {
      // Pieces of any size, cut anywhere (inside UTF-8 sequences too); the capacity is only a hint.
      const gathered = new api.FileBytes(below(2) ? bytes.length : 0);
      for (let at = 0; at < bytes.length; ) {
        const n = 1 + below(64);
        gathered.push(bytes.subarray(at, at + n));
        at += n;
      }
      assert.deepEqual(api.listFileBytes(gathered, leaf), api.listFileBytes(bytes, leaf), `${name} leaf ${leaf}`);
      assert.equal(codeOf(() => api.listFileBytes(gathered, leaf)), "InvalidArgument", "a spent FileBytes is no bytes");
    }
  }
  assert.equal(codeOf(() => api.listFileBytes("not bytes")), "InvalidArgument");
  // The capacity is a hint: more than the module's memory can hold is not reserved, and no trap.
  const roomy = new api.FileBytes(4 * 2 ** 30 - 1);
  roomy.push(readFileSync(join(dir, "example.jsonl")));
  assert.deepEqual(api.listFileBytes(roomy), api.listFileBytes(readFileSync(join(dir, "example.jsonl"))));
});

test("beginFile / feedFile / endFile: a file fed in pieces, cut anywhere, loads as loadFileBytes loads it whole", () => {
  const { dir, files, below } = fixturesAndDice(11);
  const seen = (idx, report) => ({ report, rows: idx.treeRowsJson(), context: idx.entryCount ? idx.contextJson() : null, leaf: idx.leafId() });
  for (const name of files) {
    const bytes = readFileSync(join(dir, name));
    const whole = SessionIndex.full();
    const streamed = SessionIndex.full();
    try {
      const want = seen(whole, whole.loadFileBytes(bytes));
      streamed.beginFile();
      for (let at = 0; at < bytes.length; ) {
        const n = 1 + below(96);
        streamed.feedFile(bytes.subarray(at, at + n));
        at += n;
      }
      assert.deepEqual(seen(streamed, streamed.endFile()), want, name);
    } finally {
      whole.free();
      streamed.free();
    }
  }
  const idx = SessionIndex.full();
  try {
    assert.equal(codeOf(() => idx.feedFile(new Uint8Array(1))), "InvalidArgument", "feedFile before beginFile");
    assert.equal(codeOf(() => idx.endFile()), "InvalidArgument", "endFile before beginFile");
    idx.beginFile();
    assert.equal(codeOf(() => idx.beginFile()), "InvalidArgument", "a second beginFile while one is open");
    assert.equal(codeOf(() => idx.loadFileBytes(new Uint8Array(0))), "InvalidArgument", "loadFileBytes while a file is loading");
    idx.feedFile(readFileSync(join(dir, "example.jsonl")));
    assert.equal(idx.endFile().appended, 24);
    assert.equal(codeOf(() => idx.beginFile()), "InvalidArgument", "a loaded index is not empty");
  } finally {
    idx.free();
  }
  // The size is a hint for making memory in one step: more than the module's memory can hold reserves
  // nothing, and no trap.
  const roomy = SessionIndex.full();
  try {
    roomy.beginFile(4 * 2 ** 30 - 1);
    roomy.feedFile(readFileSync(join(dir, "example.jsonl")));
    assert.equal(roomy.endFile().appended, 24);
  } finally {
    roomy.free();
  }
});

test("treeColumns() is treeRows() column by column (ids in one string, parents as rows); rowText, filter and pathRows follow it", () => {
  {
    // Rows are positions in the last treeColumns (or treeRowsJson): none yet, no path as rows.
    const idx = SessionIndex.full();
    idx.loadFileBytes(readFileSync(join(fixturesAndDice(1).dir, "example.jsonl")));
    assert.equal(codeOf(() => idx.pathRows()), "InvalidArgument");
    idx.treeColumns().free();
    assert.ok(idx.pathRows().length > 0);
    idx.free();
  }
  const { dir, files } = fixturesAndDice(17);
  const header = JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" });
  const user = (id, parentId, content) => JSON.stringify({ type: "message", id, parentId, timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user", content } });
  // A repeated id, a non-BMP id (two UTF-16 units: the id string is cut in JavaScript's units) and a label.
  const label = JSON.stringify({ type: "label", id: "l", parentId: "𝄞x", timestamp: "2026-01-01T00:00:00.000Z", targetId: "b", label: "anchor:here" });
  const odd = new TextEncoder().encode([header, user("a", null, "first"), user("b", "a", "second"), user("a", null, "third, same id"), user("𝄞x", "b", "clef"), label].join("\n"));
  for (const [name, bytes] of [...files.map((n) => [n, readFileSync(join(dir, n))]), ["odd ids", odd]]) {
    const idx = SessionIndex.full();
    try {
      idx.loadFileBytes(bytes);
      const rows = JSON.parse(idx.treeRowsJson());
      const c = idx.treeColumns();
      assert.equal(c.length, rows.length, name);
      const [ids, idEnds, parent, kinds, kind, labels] = [c.ids, c.idEnds, c.parent, c.kinds, c.kind, c.labels];
      assert.ok(idEnds instanceof Uint32Array && parent instanceof Int32Array && c.tokens instanceof Float64Array, name);
      const labelOf = new Map(labels.map((l) => [l.row, l]));
      const got = rows.map((_, i) => ({
        id: ids.slice(i > 0 ? idEnds[i - 1] : 0, idEnds[i]),
        parentId: parent[i] >= 0 ? rows[parent[i]].id : rows[i].parentId,
        type: kinds[kind[i]].type,
        role: kinds[kind[i]].role,
        depth: c.depth[i],
        children: c.children[i],
        active: c.active[i] === 1,
        leaf: c.leaf === i,
        label: labelOf.get(i)?.label ?? null,
        anchor: labelOf.get(i)?.anchor ?? null,
        tokens: c.tokens[i],
        text: idx.rowText(i),
        end: c.end[i],
      }));
      assert.deepEqual(got, rows, name);
      for (const mode of ["default", "no-tools", "user-only", "labeled-only", "all"]) assert.deepEqual(c.filter(mode), idx.treeFilter(mode), `${name}: ${mode}`);
      assert.equal(codeOf(() => c.filter("none")), "InvalidArgument", name);
      // pathRows(id) is path(id) as rows: each row on it is where that path's entry sits.
      if (rows.length) {
        for (const row of [0, rows.length >> 1, rows.length - 1]) {
          const id = rows[row].id;
          assert.deepEqual([...idx.pathRows(id)].map((r) => rows[r].id), idx.path(id), `${name}: path of ${id}`);
        }
        assert.deepEqual([...idx.pathRows()].map((r) => rows[r].id), idx.path(), `${name}: the leaf's path`);
      }
      // A root's parent row is -1 whatever its parentId names (nothing, or an entry the file lacks).
      rows.forEach((r, i) => assert.equal(parent[i] < 0, r.parentId === null || !rows.some((p) => p.id === r.parentId), `${name}: row ${i}`));
      c.free();
      if (name === "odd ids") assert.ok(labels.some((l) => l.anchor === "here"), name);
    } finally {
      idx.free();
    }
  }
});

test("treeRowsJson(false) leaves the texts out; rowText(row) gives each row's own, also where a file repeats an id", () => {
  const { dir, files } = fixturesAndDice(13);
  const header = JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" });
  const user = (id, parentId, content) => JSON.stringify({ type: "message", id, parentId, timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user", content } });
  const repeated = new TextEncoder().encode([header, user("a", null, "first"), user("b", "a", "second"), user("a", null, "third, same id")].join("\n"));
  for (const [name, bytes] of [...files.map((n) => [n, readFileSync(join(dir, n))]), ["repeated id", repeated]]) {
    const idx = SessionIndex.full();
    try {
      idx.loadFileBytes(bytes);
      const rows = JSON.parse(idx.treeRowsJson());
      const lean = JSON.parse(idx.treeRowsJson(false));
      assert.deepEqual(lean.map((r) => ({ ...r, text: "" })), rows.map((r) => ({ ...r, text: "" })), name);
      assert.ok(lean.every((r) => r.text === ""), name);
      assert.deepEqual(lean.map((_, i) => idx.rowText(i)), rows.map((r) => r.text), name);
      assert.equal(codeOf(() => idx.rowText(rows.length)), "InvalidArgument", name);
      if (name === "repeated id") assert.match(idx.rowText(0), /first/);
    } finally {
      idx.free();
    }
  }
});
