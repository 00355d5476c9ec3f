// One process: pi's own SessionManager.open(file) + buildSessionContext() + estimateProjectedContextTokens (pi ≥0.87
// host dir, Node 22), timed from before open to after the estimate. Prints {ms, leafId, context, estimate}.
//   <node22> tests/bench/child-pi-open.mjs --pi <host dir> --file <session.jsonl>
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadPi087 } from "../diff/reference.mjs";

const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
const pi = await loadPi087(arg("--pi"));
// pi may repair the file it opens (a final newline): open a copy's directory, the file itself untouched.
const dir = mkdtempSync(join(tmpdir(), "ptn-pi-open-"));
const file = join(dir, "s.jsonl");
copyFileSync(arg("--file"), file);
const t0 = performance.now();
const sm = pi.SessionManager.open(file, dir);
const context = sm.buildSessionContext();
const estimate = pi.estimateProjectedContextTokens(sm.buildSessionProjection(), sm.getBranch());
const ms = performance.now() - t0;
rmSync(dir, { recursive: true, force: true });
process.stdout.write(JSON.stringify({ ms, leafId: sm.getLeafId(), context, estimate }));
