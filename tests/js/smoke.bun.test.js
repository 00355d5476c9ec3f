// Bun smoke test of the built package (run `npm run build` first; run with `npm run test:bun`).
import { test, expect } from "bun:test";
import { SessionIndex, ready } from "../../pkg/index-node.js";
import { jsonl, expected, pickEstimate } from "./session-fixture.js";
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

function codeOf(fn) {
  try { fn(); } catch (e) {
    expect(e).toBeInstanceOf(Error);
    expect(typeof e.code).toBe("string");
    return e.code;
  }
  throw new Error("expected a throw");
}

test("bun: ingest, leaf, estimates, error codes", async () => {
  await ready;
  const idx = SessionIndex.full();
  try {
    const rep = idx.appendJsonl(jsonl);
    expect(rep.appended).toBe(3);
    expect(idx.entryCount).toBe(3);
    expect(idx.leafId()).toBe("a0000003");
    expect(pickEstimate(idx.estimate())).toEqual(expected.current);
    expect(pickEstimate(idx.estimate("a0000001"))).toEqual(expected.a0000001);
    expect(pickEstimate(idx.estimate(null))).toEqual(expected.current);
    idx.setLeaf(null); // before the first entry
    expect(pickEstimate(idx.estimate())).toEqual(expected.none);
    idx.setLeaf(idx.path("a0000003").at(-1));
    expect(codeOf(() => idx.setLeaf("nope0000"))).toBe("UnknownEntry");
  } finally {
    idx.free();
  }
});

test("bun: the package resolves by name through the exports map", () => {
  const dir = mkdtempSync(join(tmpdir(), "ptn-bun-consumer-"));
  try {
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(fileURLToPath(new URL("../../pkg/", import.meta.url)), join(dir, "node_modules", "pi-tree-navigator"), "dir");
    writeFileSync(join(dir, "esm.mjs"),
      'import { SessionIndex } from "pi-tree-navigator";\nconst i = SessionIndex.full(); console.log(i.entryCount); i.free();\n');
    writeFileSync(join(dir, "cjs.cjs"),
      'const { SessionIndex } = require("pi-tree-navigator");\nconst i = SessionIndex.plugin(); console.log(i.entryCount); i.free();\n');
    for (const f of ["esm.mjs", "cjs.cjs"]) {
      const r = Bun.spawnSync([process.execPath, join(dir, f)], { cwd: dir });
      expect(r.stderr.toString()).toBe("");
      expect(r.exitCode).toBe(0);
      expect(r.stdout.toString().trim()).toBe("0");
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("bun: the browser entry (await init() fetching a file: URL) works in a fresh process", () => {
  // A separate process, so the glue is not already initialised by the Node entry imported above.
  const web = fileURLToPath(new URL("../../pkg/index-web.js", import.meta.url));
  const script = `const m = await import(${JSON.stringify(web)}); await m.ready;
    const i = m.SessionIndex.plugin(); const r = i.appendJsonl(${JSON.stringify(jsonl)});
    console.log(JSON.stringify([r.appended, i.estimate().tokens])); i.free();`;
  const r = Bun.spawnSync([process.execPath, "-e", script]);
  expect(r.stderr.toString()).toBe("");
  expect(r.exitCode).toBe(0);
  expect(JSON.parse(r.stdout.toString())).toEqual([3, expected.current.tokens]);
});
