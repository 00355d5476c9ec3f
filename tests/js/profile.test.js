// Host profiles through the built package (src/session/profile.rs, docs/hosts.md): the rules of pi ≥0.87 apply
// when the session shows it (a system message entry) or when asked (`setHostVersion`, CLI `--host`); `stats`
// says which profile was used.
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const api = await import(join(root, "pkg", "index-node.js"));
await api.ready;

const header = { type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/tmp" };
const system = { type: "message", id: "e1", parentId: null, timestamp: "2026-01-01T00:00:01.000Z",
  message: { role: "system", content: "", sections: { preamble: "x".repeat(400), cwd: "<cwd>/tmp</cwd>" }, toolsAdded: [{ name: "navigate_tree" }] } };
const user = { type: "message", id: "e2", parentId: "e1", timestamp: "2026-01-01T00:00:02.000Z",
  message: { role: "user", content: [{ type: "text", text: "look" }, { type: "image", data: "AAAA", mimeType: "image/png" }], timestamp: 2 } };
// A provider that reports zero usage: no baseline on any profile.
const zero = { type: "message", id: "e3", parentId: "e2", timestamp: "2026-01-01T00:00:03.000Z",
  message: { role: "assistant", content: [{ type: "text", text: "y".repeat(80000) }], api: "x", provider: "x", model: "m",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 }, stopReason: "stop", timestamp: 3 } };
const jsonl = [header, system, user, zero].map((e) => JSON.stringify(e)).join("\n") + "\n";

const systemTokens = Math.ceil((400 + "<cwd>/tmp</cwd>".length + JSON.stringify(system.message.toolsAdded).length) / 4);
const userTokens = 1 + 1200; // "look" + one image at 4800 chars
const zeroTokens = 20000;

test("a system message entry makes the index use pi ≥0.87's rules; zero usage is no baseline", () => {
  const index = api.SessionIndex.plugin();
  index.appendJsonl(jsonl);
  assert.deepEqual(index.profile(), { name: "pi-0.87", source: "inferred" });
  assert.equal(index.estimate().tokens, systemTokens + userTokens + zeroTokens);
  index.free();
});

test("setHostVersion fixes the profile before feeding", () => {
  const old = api.SessionIndex.plugin();
  assert.equal(old.setHostVersion("0.75.5"), "pi-0.74");
  old.appendJsonl(jsonl);
  assert.deepEqual(old.profile(), { name: "pi-0.74", source: "set" });
  assert.equal(old.estimate().tokens, 1 + zeroTokens); // system 0, user image 0; still no zero baseline
  assert.equal(old.setHostVersion("not a version"), undefined);
  old.free();
  const fresh = api.SessionIndex.plugin();
  assert.deepEqual(fresh.profile(), { name: "pi-0.74", source: "default" });
  assert.equal(fresh.setHostVersion("1.5.2"), "pi-1.5");
  assert.equal(fresh.setHostVersion("1.3.0"), "pi-0.87");
  fresh.free();
});

test("CLI: stats names the profile; --host overrides the inferred one", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "ptn-profile-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "s.jsonl");
  writeFileSync(file, jsonl);
  const cli = (...args) => spawnSync(process.execPath, [join(root, "pkg", "cli.js"), ...args], { encoding: "utf8" });
  const stats = JSON.parse(cli("stats", file, "--json").stdout);
  assert.equal(stats.profile, "pi-0.87 (inferred)");
  assert.equal(JSON.parse(cli("stats", file, "--json", "--host", "0.74.2").stdout).profile, "pi-0.74 (--host)");
  const tokens = (...extra) => JSON.parse(cli("tokens", file, "--json", ...extra).stdout).tokens;
  assert.equal(tokens(), systemTokens + userTokens + zeroTokens);
  assert.equal(tokens("--host", "0.75.5"), 1 + zeroTokens);
  const bad = cli("tokens", file, "--host", "latest");
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--host must be a pi version/);
});
