// One process: pi's own session listing (`SessionManager.list(cwd, dir)`: what `/resume` reads) over the folder
// `--dir` for the sessions of `--cwd` (pi ≥1.x lists only those), timed from the call to its answer. Prints
// {ms, sessions, firstMessages}.
//   <node> tests/bench/child-pi-list.mjs --entry <the host's index.js> --dir <folder of sessions> --cwd <their cwd>
import { pathToFileURL } from "node:url";

const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
const { SessionManager } = await import(pathToFileURL(arg("--entry")).href);
const dir = arg("--dir");
const t0 = performance.now();
const list = await SessionManager.list(arg("--cwd"), dir);
const ms = performance.now() - t0;
process.stdout.write(JSON.stringify({ ms, sessions: list.length, firstMessages: list.map((s) => s.firstMessage.slice(0, 40)).sort() }));
