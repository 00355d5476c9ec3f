// The recording cargo test checks the core against (tests/fixtures/expected/pi-0.75.5.ndjson) must still be
// what real pi 0.75.5 says about tests/fixtures/*.jsonl: re-run pi and compare byte for byte.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import test from "node:test";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

test("recorded pi 0.75.5 answers for the fixtures are current", () => {
  const r = spawnSync(process.execPath, [join(root, "tests", "fixtures", "record-expected.mjs"), "--check"], { encoding: "utf8" });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  assert.match(r.stdout, /matches pi/);
});
