// Differential test of issue 29's resume read, on every host of the matrix: a resumed session's index read from
// its file (js/resume.js with its worker, the main thread's share of the parts, the core's agreement check)
// against the index the plugin built before, from pi's own entry objects — equal on everything the plugin
// answers from it (entries, leaf, labels, the estimate at every entry, list/anchor/rewind/recall plans,
// /anchors), through pi's real SessionManager.open (tests/diff/resume-child.mjs, one process per host). And the
// start anchor, now decided from pi's path labels and leaf without an index, as the index decided it.
//
//   node --test tests/diff/resume.test.mjs
// env: DIFF_SEED (default: fresh, printed), DIFF_RESUME_COUNT (base sessions per host generation, default 48),
//      DIFF_HOSTS (as tests/diff/diff.test.mjs), PTN_PKG=<built pkg dir>
//
// The sessions: tests/diff/generate.mjs's (both host generations; v1 and v2 files pi migrates and rewrites on
// open), each read in parts of 64 B – 2 KB so every session spans many parts, now and then with the worker
// alone for a while first; the same sessions without their final newline (pi ≥1.5 repairs that on open); and
// files that must NOT be used: changed under the read (cut, replaced, an entry moved, an entry pi never read —
// before `session_start`, and during the read), and a line pi keeps as an entry that the core does not take (an
// id that is no string; also in a session pi wrote itself, where only the agreement check can refuse it). A session read from its file must equal the old path's; a file that cannot stand for pi's
// entries must be refused with a debug line saying why (the navigator then takes pi's objects).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import test from "node:test";
import { fileURLToPath } from "node:url";
import { ALL_HOST_VERSIONS, hostAvailable, nodeFor } from "../../scripts/hosts.mjs";
import { generateBatch, resolveSeed } from "./generate.mjs";
import { writeLongSession } from "../bench/long-session.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");
const pkgDir = resolve(process.env.PTN_PKG || join(root, "pkg"));
const seed = resolveSeed();
const count = Number(process.env.DIFF_RESUME_COUNT ?? 48);
const hosts = (process.env.DIFF_HOSTS ?? "").trim() && process.env.DIFF_HOSTS !== "all" ? process.env.DIFF_HOSTS.trim().split(/[\s,]+/) : [...ALL_HOST_VERSIONS].reverse();
const generationOf = (version) => {
  const [maj, min] = version.split(".").map(Number);
  return maj > 0 || min >= 87 ? "0.87" : "0.74";
};
console.log(`[resume-diff] seed ${seed} count ${count} hosts ${hosts.join(" ")}  (replay: DIFF_SEED=${seed} DIFF_RESUME_COUNT=${count} DIFF_HOSTS="${hosts.join(" ")}" node --test tests/diff/resume.test.mjs)`);

const work = mkdtempSync(join(tmpdir(), "ptn-resume-diff-"));
test.after(() => rmSync(work, { recursive: true, force: true }));

/** The cases of one host generation (see resume-child.mjs). */
function casesFor(generation) {
  const dir = join(work, `sessions-${generation}`);
  const manifest = generateBatch({ seed, count, dir, generation });
  const cases = [];
  const sizes = [64, 512, 2048];
  for (const s of manifest.sessions) {
    const kind = s.format ? `migrated-${s.format}` : "plain";
    cases.push({ name: `${kind} s${s.index}`, kind, file: s.file, chunkBytes: sizes[s.index % 3], wait: s.index % 4 === 0 ? 150 : 0 });
  }
  const base = manifest.sessions.filter((s) => !s.format);
  // pi ≥1.5 appends the missing final newline as it opens the file; earlier hosts read it as it is.
  for (const s of base.slice(0, 6)) {
    const text = readFileSync(s.file, "utf8");
    if (!text.endsWith("\n")) continue;
    const file = join(dir, `s${s.index}-no-newline.jsonl`);
    writeFileSync(file, text.replace(/\n+$/, ""));
    cases.push({ name: `repaired s${s.index}`, kind: "repaired", file, chunkBytes: 256 });
  }
  // Changed under the read. Before session_start the file no longer holds pi's entries: never used. During the
  // read it may or may not be seen; whatever is used must then equal pi's entries.
  const big = base.filter((s) => s.entryCount >= 6).slice(0, 8);
  big.forEach((s, i) => {
    const other = big[(i + 1) % big.length].file;
    for (const change of ["truncate", "replace", "reparent", "append"]) {
      cases.push({ name: `changed-before ${change} s${s.index}`, kind: "changed-before", file: s.file, change, when: "before", other, chunkBytes: 256 });
    }
    cases.push({ name: `changed-after ${["truncate", "replace", "reparent", "append"][i % 4]} s${s.index}`, kind: "changed-after", file: s.file, change: ["truncate", "replace", "reparent", "append"][i % 4], when: "after", other, chunkBytes: 128, wait: i % 2 ? 60 : 0 });
  });
  // A line pi keeps as an entry and the core does not take (its id is no string).
  for (const s of big.slice(0, 3)) {
    const lines = readFileSync(s.file, "utf8").replace(/\n*$/, "").split("\n");
    // Before the last line, so pi's leaf stays an entry both paths know.
    lines.splice(lines.length - 1, 0, `{"type":"custom","id":1234,"parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","customType":"x"}`);
    const file = join(dir, `s${s.index}-numeric-id.jsonl`);
    writeFileSync(file, `${lines.join("\n")}\n`);
    cases.push({ name: `disagreeing s${s.index}`, kind: "disagreeing", file, chunkBytes: 512 });
  }
  // The same in a session pi wrote itself (no line a part could not decide alone): the agreement check refuses it.
  const clean = join(dir, "clean-numeric-id.jsonl");
  writeLongSession(clean, { mb: 0.3, cwd: dir });
  const lines = readFileSync(clean, "utf8").replace(/\n$/, "").split("\n");
  lines.splice(lines.length - 1, 0, `{"type":"custom","id":1234,"parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","customType":"x"}`);
  writeFileSync(clean, `${lines.join("\n")}\n`);
  cases.push({ name: "disagreeing (clean session)", kind: "disagreeing-clean", file: clean, chunkBytes: 4096 });
  return cases;
}

function run(cmd, args) {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_TEST_CONTEXT: "" } });
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    child.stdout.on("data", () => {});
    child.on("error", fail);
    child.on("close", (status) => (status === 0 ? done() : fail(new Error(`${cmd} ${args.join(" ")} exited ${status}:\n${err.slice(-4000)}`))));
  });
}

const prepared = {};
for (const version of hosts) {
  test(`resume read = pi's entries, pi ${version}`, { timeout: 600_000 }, async () => {
    assert.ok(existsSync(join(pkgDir, "resume.js")), `${pkgDir} is not built with the resume read: npm run build`);
    assert.ok(hostAvailable(version), `pi ${version} is not installed: npm run setup`);
    const generation = generationOf(version);
    prepared[generation] ??= casesFor(generation);
    const cases = prepared[generation];
    const casesFile = join(work, `cases-${version}.json`);
    const outFile = join(work, `results-${version}.jsonl`);
    writeFileSync(casesFile, JSON.stringify(cases));
    await run(nodeFor(version), [join(here, "resume-child.mjs"), "--version", version, "--pkg", pkgDir, "--cases", casesFile, "--out", outFile]);
    const results = readFileSync(outFile, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(results.length, cases.length);
    const tally = {};
    for (const [i, r] of results.entries()) {
      const c = cases[i];
      const where = `pi ${version}, ${r.name} (${c.file})`;
      assert.equal(r.error, undefined, `${where}: ${r.error}`);
      if (r.unopened) {
        // pi ≥0.87 refuses to open a file not led by a session header: nothing to resume.
        assert.match(r.unopened, /not a valid pi session/, where);
        (tally[c.kind] ??= { adopted: 0, refused: 0 }).unopened = (tally[c.kind].unopened ?? 0) + 1;
        continue;
      }
      (tally[c.kind] ??= { adopted: 0, refused: 0 })[r.adopted ? "adopted" : "refused"]++;
      assert.deepEqual(r.startAnchor, [], `${where}: the start anchor decided from pi's path labels differs from the index's decision`);
      assert.deepEqual(r.currentTokens, [], `${where}: currentTokens (from the last usage) differs from estimate().tokens`);
      assert.deepEqual(r.labelOnPath, [], `${where}: whether a label is on the active path, as pi says it, differs from the index's findLabel`);
      if (r.adopted) assert.equal(r.equal, true, `${where}: the index read from the file differs from pi's entries at ${r.first}`);
      else assert.match(r.reason, /resume: (file (not used|disagrees)|reading the file failed)/, `${where}: refused without a debug line saying why: ${r.reason}`);
      if (c.kind === "changed-before" || c.kind.startsWith("disagreeing")) assert.equal(r.adopted, false, `${where}: a file that no longer holds pi's entries was used`);
      if (c.kind === "disagreeing-clean") assert.match(r.reason, /file disagrees with pi's entries \(/, where);
      // pi rewrote these files as it opened them (its own JSON.stringify of every entry): read as they are.
      if (c.kind === "migrated-v1" || c.kind === "migrated-v2") assert.equal(r.adopted, true, `${where}: pi rewrote the file as it opened it; the read should use it (${r.reason})`);
      // pi ≥1.5 appends the missing newline; earlier pi leave the file as it is, odd whitespace included: a part may
      // then end on a line it cannot decide alone — refused for that, never for a disagreement.
      if (c.kind === "repaired" && !r.adopted) assert.match(r.reason, /part \d+: a line held at the part's end/, `${where}: a repaired file refused (${r.reason})`);
    }
    console.log(`[resume-diff] pi ${version}: ${JSON.stringify(tally)}`);
    // The read is the rule, not the exception: plain sessions are used from their file (a part ending on a line
    // pi ≤0.75 may trim, or a file pi loads differently from its first line, sends a few to pi's objects).
    const plain = tally.plain;
    assert.ok(plain.adopted >= 0.8 * (plain.adopted + plain.refused), `pi ${version}: only ${plain.adopted} of ${plain.adopted + plain.refused} plain sessions read from their file`);
    for (const kind of ["changed-before", "changed-after", "disagreeing", "disagreeing-clean", "repaired", "migrated-v1", "migrated-v2"]) {
      assert.ok((tally[kind]?.adopted ?? 0) + (tally[kind]?.refused ?? 0) > 0, `pi ${version}: no ${kind} session was opened by pi`);
    }
  });
}
