// Cold init in a fresh process (Node or Bun): time to import the package entry (read, compile and
// instantiate the wasm, load the glue), then the first index calls. Prints {importMs, firstMs} as JSON.
//
//   node|bun tests/bench/child-init.mjs <pkg dir> [build]
//   The package entry (index-node.js: the one wasm, which the pi extension loads too). `build` only labels the run.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { FIRST_SESSION } from "./first-calls.mjs";

const url = pathToFileURL(join(process.argv[2], "index-node.js")).href;
const t0 = performance.now();
const core = await import(url);
const t1 = performance.now();
const index = core.SessionIndex.plugin();
index.appendJsonl(FIRST_SESSION);
// the plugin's first question: the anchors with their estimates (the tool's `list`)
const plan = index.toolPlan({ action: "list" }, { callId: "c1", contextWindow: 200000 });
if (plan.kind !== "list") throw new Error(`list plan: ${JSON.stringify(plan)}`);
index.free();
const t2 = performance.now();
console.log(JSON.stringify({ importMs: t1 - t0, firstMs: t2 - t1 }));
