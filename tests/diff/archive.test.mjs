// Differential test of `archive` (js/archive.js + the core's src/archive.rs, through the BUILT package in pkg/):
// pi opens the archived file as it opens the original, on every host of the matrix; restore gives the original back.
//
//   node --test tests/diff/archive.test.mjs
// env: DIFF_SEED (default: fresh, printed), ARCHIVE_COUNT (sessions per host generation, default 80),
//      DIFF_HOSTS="0.75.5 1.6.0" (default: every tested host), PTN_PKG=<built pkg dir>, DIFF_KEEP=1 (keep the temp dir)
//
// 1. tests/diff/generate.mjs writes random sessions (many branches, labels written on branches later abandoned,
//    compactions, context edits, …; one in twelve also in pi's version 1 and 2 formats);
// 2. each is archived in a copy (archiveFile, as `pi-tree-navigator archive` does). Refused files (older formats,
//    repeated ids, lines pi versions read differently) must be left byte for byte as they were, with no archive;
// 3. each archived copy is restored in another copy: the result must equal the original byte for byte — and
//    with a line appended after archiving (as pi appends), the original followed by that line;
// 4. tests/diff/reference.mjs runs the originals and the archived files through each pi (SessionManager.open /
//    loadEntriesFromFile as the host has them): the leaf pi opens, the context and estimate it builds for it, the
//    labels on its path, the anchors' estimates and the session's name must be equal.
import test from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { generateBatch, resolveSeed } from "./generate.mjs";
import { ALL_HOST_VERSIONS, hostAvailable, hostDir, nodeFor } from "../../scripts/hosts.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");
const pkgDir = resolve(process.env.PTN_PKG || join(root, "pkg"));
const seed = resolveSeed();
const count = Number(process.env.ARCHIVE_COUNT ?? 80);
const hosts = (() => {
  const raw = (process.env.DIFF_HOSTS ?? "").trim();
  const list = !raw || raw === "all" ? [...ALL_HOST_VERSIONS].reverse() : raw.split(/[\s,]+/).filter(Boolean);
  for (const v of list) if (!ALL_HOST_VERSIONS.includes(v)) throw new Error(`DIFF_HOSTS: unknown host ${v}`);
  return list;
})();
const generationOf = (version) => {
  const [maj, min] = version.split(".").map(Number);
  return maj > 0 || min >= 87 ? "0.87" : "0.74";
};
console.log(`[archive] seed ${seed} count ${count} hosts ${hosts.join(" ")}  (replay: DIFF_SEED=${seed} ARCHIVE_COUNT=${count} DIFF_HOSTS="${hosts.join(" ")}" node --test tests/diff/archive.test.mjs)`);

const api = await import(pathToFileURL(join(pkgDir, "index-node.js")).href);
await api.ready;
const { archiveFile, restoreFile, archivePathOf } = await import(pathToFileURL(join(pkgDir, "archive.js")).href);

const work = mkdtempSync(join(tmpdir(), "ptn-archive-"));
let failed = false;
test.after(() => {
  if (process.env.DIFF_KEEP || failed) console.log(`[archive] kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
});

/** Per generation: the originals, the archived copies, and what archive did to each. */
const generations = {};
for (const g of [...new Set(hosts.map(generationOf))]) {
  const manifest = generateBatch({ seed, count, dir: join(work, `orig-${g}`), generation: g });
  const archivedDir = join(work, `archived-${g}`);
  mkdirSync(archivedDir);
  const done = [];
  const refused = {};
  for (const s of manifest.sessions) {
    const copy = join(archivedDir, basename(s.file));
    copyFileSync(s.file, copy);
    let result;
    try {
      result = archiveFile(api, copy, { minIdle: 0 });
    } catch (err) {
      const why = err.message.replace(/^[^:]*:\d*:? ?/, "").replace(/\(.*$/, "").trim();
      refused[why] = (refused[why] ?? 0) + 1;
      assert.deepEqual(readFileSync(copy), readFileSync(s.file), `${s.file}: a refused archive changed the file`);
      assert.ok(!existsSync(archivePathOf(copy)), `${s.file}: a refused archive left ${archivePathOf(copy)}`);
      continue;
    }
    if (s.format) assert.fail(`${s.file}: a ${s.format} file was archived`);
    done.push({ ...s, archived: copy, result });
  }
  const withMoves = done.filter((d) => !d.result.nothing && d.result.plan.moved.entries > 0).length;
  const withStubs = done.filter((d) => !d.result.nothing && d.result.plan.stubbed.entries > 0).length;
  const withKeptLabels = done.filter((d) => !d.result.nothing && d.result.plan.keptOffPath > 0).length;
  console.log(`[archive] generation ${g}: ${manifest.sessions.length} sessions, ${done.length} archived (${withMoves} with branches moved, ${withStubs} with stubs, ${withKeptLabels} keeping off-path labels), refused: ${JSON.stringify(refused)}`);
  const archivedManifest = { ...manifest, sessions: done.map((d) => ({ ...d, file: d.archived, result: undefined })) };
  writeFileSync(join(archivedDir, "manifest.json"), JSON.stringify(archivedManifest));
  const origManifest = { ...manifest, sessions: done.map((d) => ({ index: d.index, file: d.file, leaves: d.leaves })) };
  writeFileSync(join(work, `orig-${g}`, "archive-manifest.json"), JSON.stringify(origManifest));
  generations[g] = { done, withMoves, withStubs, withKeptLabels, archivedManifest: join(archivedDir, "manifest.json"), origManifest: join(work, `orig-${g}`, "archive-manifest.json") };
}

test("the generated sessions exercise archive: branches moved, stubs, off-path labels kept", () => {
  for (const [g, gen] of Object.entries(generations)) {
    assert.ok(gen.done.length >= count / 2, `generation ${g}: only ${gen.done.length} of ${count} sessions archived`);
    assert.ok(gen.withMoves >= count / 4, `generation ${g}: ${gen.withMoves} sessions with branches moved`);
    assert.ok(gen.withStubs >= Math.max(1, count / 16), `generation ${g}: ${gen.withStubs} sessions with stubs`);
    assert.ok(gen.withKeptLabels >= Math.max(1, count / 16), `generation ${g}: ${gen.withKeptLabels} sessions keeping off-path labels`);
  }
});

test("restore gives back the original bytes, and keeps what pi appended after archiving", () => {
  for (const [g, gen] of Object.entries(generations)) {
    const dir = join(work, `restored-${g}`);
    mkdirSync(dir);
    let n = 0;
    for (const d of gen.done) {
      if (d.result.nothing) continue;
      const copy = join(dir, basename(d.file));
      copyFileSync(d.archived, copy);
      copyFileSync(archivePathOf(d.archived), archivePathOf(copy));
      const original = readFileSync(d.file);
      const appended = n++ % 3 === 0 ? `{"type":"custom","id":"zzappend","parentId":${JSON.stringify(d.result.plan.leafId)},"timestamp":"2026-11-26T00:00:00.000Z","customType":"x"}\n` : "";
      if (appended) {
        // pi repairs a file without a final newline before it appends.
        if (readFileSync(copy).at(-1) !== 10) appendFileSync(copy, "\n");
        appendFileSync(copy, appended);
      }
      restoreFile(copy, { minIdle: 0 });
      const expected = appended ? Buffer.concat([original, Buffer.from((original.at(-1) !== 10 ? "\n" : "") + appended)]) : original;
      assert.ok(readFileSync(copy).equals(expected), `${d.file} (generation ${g}): restore differs from the original${appended ? " + the appended line" : ""}`);
      assert.ok(!existsSync(archivePathOf(copy)), "the archive is removed after restore");
    }
    assert.ok(n > 0);
  }
});

test("archive refuses a session it already archived, and restore refuses a session rewritten since", () => {
  const d = Object.values(generations)[0].done.find((x) => !x.result.nothing);
  assert.throws(() => archiveFile(api, d.archived, { minIdle: 0 }), /already archived/);
  const dir = join(work, "rewritten");
  mkdirSync(dir);
  const copy = join(dir, basename(d.file));
  const text = readFileSync(d.archived, "utf8");
  writeFileSync(copy, text.replace(/"timestamp":"/, '"timestamp":"1'));
  copyFileSync(archivePathOf(d.archived), archivePathOf(copy));
  assert.throws(() => restoreFile(copy, { minIdle: 0 }), /not the file archive wrote/);
  assert.ok(existsSync(archivePathOf(copy)), "the archive is kept when restore refuses");
  // A session changed a moment ago may be one pi is writing: refused.
  copyFileSync(d.file, copy);
  rmSync(archivePathOf(copy));
  assert.throws(() => archiveFile(api, copy, {}), /pi may be writing/);
  assert.ok(readFileSync(copy).equals(readFileSync(d.file)));
});

/**
 * The ids of the archived file's entries whose own context (pi's buildContextEntries, written here apart from the
 * core) holds a stubbed entry (from the archive's index): an anchor there estimates a context with stubs (the plan
 * names them, `anchorsWithStubs`), so only its name and place are compared. The leaf pi opens never sees one.
 */
function entriesSeeingStubs(d) {
  const side = readFileSync(archivePathOf(d.archived), "utf8").trimEnd().split("\n");
  const stubbed = new Set(JSON.parse(side.at(-1)).entries.filter((e) => e[4] === "stub").map((e) => e[3]));
  const byId = new Map();
  for (const line of readFileSync(d.archived, "utf8").split("\n")) {
    try {
      const e = JSON.parse(line);
      if (e?.type !== "session") byId.set(e.id, e);
    } catch {}
  }
  const out = new Set();
  for (const id of byId.keys()) {
    const path = [];
    for (let cur = byId.get(id); cur && path.length <= byId.size; cur = byId.get(cur.parentId)) path.unshift(cur);
    const c = path.findLastIndex((e) => e.type === "compaction");
    const k = c < 0 ? 0 : path.slice(0, c).findIndex((e) => e.id === path[c].firstKeptEntryId);
    const context = c < 0 ? path : [path[c], ...(k < 0 ? [] : path.slice(k, c)), ...path.slice(c + 1)];
    if (context.some((e) => stubbed.has(e.id))) out.add(id);
  }
  return out;
}

/** tests/diff/reference.mjs for one host and manifest, in its own Node. */
function runReference(version, manifestPath, tag) {
  if (!hostAvailable(version)) return Promise.reject(new Error(`pi ${version} is not installed at ${hostDir(version)}: run \`bash scripts/setup-hosts.sh\``));
  const out = join(work, `ref-${tag}-${version}.jsonl`);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(nodeFor(version), [join(here, "reference.mjs"), "--pi", hostDir(version), "--manifest", manifestPath, "--out", out, "--labels"], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`reference for pi ${version} exited ${code}:\n${stderr}`));
      const lines = readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l));
      lines.shift();
      resolvePromise(new Map(lines.map((l) => [l.index, l])));
    });
  });
}

for (const version of hosts) {
  test(`pi ${version} opens each archived file as the original: leaf, context, estimate, labels on the path, anchors, name`, async () => {
    const gen = generations[generationOf(version)];
    const [orig, archived] = [await runReference(version, gen.origManifest, "orig"), await runReference(version, gen.archivedManifest, "archived")];
    let compared = 0;
    const mismatches = [];
    for (const d of gen.done) {
      const a = orig.get(d.index), b = archived.get(d.index);
      assert.ok(a && b, `session ${d.index}: no reference result`);
      if (a.error || b.error) {
        mismatches.push(`${d.file}: reference error ${a.error ?? b.error}`);
        continue;
      }
      const seeing = d.result.plan?.stubbed.entries ? entriesSeeingStubs(d) : new Set();
      const pick = (r) => ({
        invalid: r.invalid ?? null,
        lastEntryId: r.lastEntryId,
        sessionName: r.sessionName,
        results: (r.results ?? [])
          .filter((x) => x.leaf === "$default")
          .map(({ context, estimate, anchors, pathLabels }) => ({
            context,
            estimate,
            anchors: anchors.map((x) => (seeing.has(x.entryId) ? { ...x, tokens: "(sees stubs)" } : x)),
            pathLabels,
          })),
      });
      assert.equal(pick(a).results.length, a.invalid ? 0 : 1, `session ${d.index}: the reference has no result for the leaf pi opens`);
      if (!a.invalid) assert.ok("sessionName" in a && Array.isArray(a.results[0].pathLabels), "the reference ran with --labels");
      try {
        assert.ok(!seeing.has(a.lastEntryId), `the leaf pi opens sees a stub`);
        // Names as the core hands them to JavaScript (a lone surrogate escape becomes U+FFFD).
        const anchorsSeeing = (pick(a).results[0]?.anchors ?? []).filter((x) => x.tokens === "(sees stubs)").map((x) => x.name.toWellFormed());
        assert.deepEqual(anchorsSeeing, d.result.plan?.anchorsWithStubs ?? [], `the plan names the anchors that see stubs`);
        assert.deepEqual(pick(b), pick(a));
        compared++;
      } catch (err) {
        mismatches.push(`${d.file} (archived: ${d.archived}): ${err.message.slice(0, 1500)}`);
      }
    }
    if (mismatches.length) failed = true;
    assert.equal(mismatches.length, 0, `${mismatches.length} mismatches:\n${mismatches.slice(0, 5).join("\n\n")}`);
    console.log(`[archive] pi ${version}: ${compared} archived sessions open as their originals`);
  });
}

test("the CLI: --dry-run writes nothing, archive and restore round-trip, refusals exit 1", async () => {
  const { spawnSync } = await import("node:child_process");
  const d = Object.values(generations)[0].done.find((x) => !x.result.nothing && x.result.plan.moved.entries > 0);
  const dir = join(work, "cli");
  mkdirSync(dir);
  const file = join(dir, basename(d.file));
  copyFileSync(d.file, file);
  const cli = (...args) => spawnSync(process.execPath, [join(pkgDir, "cli.js"), ...args], { encoding: "utf8" });
  const dry = cli("archive", file, "--dry-run");
  assert.equal(dry.status, 0, dry.stderr);
  assert.match(dry.stdout, /dry run: nothing written/);
  assert.match(dry.stdout, new RegExp(`would move whole: ${d.result.plan.moved.entries} entries off the active path`));
  assert.ok(readFileSync(file).equals(readFileSync(d.file)) && !existsSync(archivePathOf(file)), "--dry-run wrote nothing");
  const recent = cli("archive", file);
  assert.equal(recent.status, 1);
  assert.match(recent.stderr, /pi may be writing to it/);
  const done = cli("archive", file, "--min-idle", "0", "--json");
  assert.equal(done.status, 0, done.stderr);
  assert.equal(JSON.parse(done.stdout).main.bytes, readFileSync(file).length);
  assert.ok(readFileSync(file).length < readFileSync(d.file).length);
  // tree --archived: the original's tree, exactly the archived entries marked.
  const originalTree = JSON.parse(cli("tree", d.file, "--json").stdout);
  const merged = JSON.parse(cli("tree", file, "--archived", "--json").stdout);
  assert.deepEqual(merged.map(({ archived, ...r }) => r), originalTree);
  const index = JSON.parse(readFileSync(archivePathOf(file), "utf8").trimEnd().split("\n").at(-1));
  assert.deepEqual(merged.filter((r) => r.archived).map((r) => [r.id, r.archived]).sort(), index.entries.map((e) => [e[3], e[4]]).sort());
  const text = cli("tree", file, "--archived").stdout.trimEnd().split("\n");
  assert.equal(text.length, merged.length);
  assert.deepEqual(text.map((l) => l.endsWith(" [archived]")), merged.map((r) => r.archived !== null));
  assert.equal(cli("tree", d.file, "--archived").status, 1, "no archive");
  const again = cli("archive", file, "--min-idle=0");
  assert.equal(again.status, 1);
  assert.match(again.stderr, /already archived/);
  const back = cli("restore", file, "--min-idle", "0");
  assert.equal(back.status, 0, back.stderr);
  assert.ok(readFileSync(file).equals(readFileSync(d.file)));
  assert.equal(cli("restore", file, "--min-idle", "0").status, 1, "nothing to restore");
  assert.equal(cli("archive", file, "--min-idle", "x").status, 2);
  assert.match(cli("--help").stdout, /archive <file> \[--dry-run\]/);
});
