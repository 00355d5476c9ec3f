// The loop hint's cost per tool result inside a real pi (issue 41: ≤ 0.05 ms at 10k entries), as a table row.
//
//   node tests/bench/loop-hint.mjs [--pkg <built pkg>] [--quick] [--entries N] [--results N]
//
// A generated session (tests/bench/gen.mjs, 10k entries, 10 anchors) is opened with pi's SessionManager.open and
// resumed in a real AgentSession of pi 1.6.0 with the faux model (as tests/bench/per-turn.mjs), the extension loaded
// from the built package through a wrapper that times the loop hint's own handlers (js/loop-hint.js names them
// `loopHint…`). The model then makes `results` tool calls whose results all differ (no loop: what every result
// costs), then the same call three times (the third completes a loop: the hint, with the index's anchors). Run in
// a child under pi 1.6.0's Node; prints the table (markdown) and a JSON line. `uptime` beside it: the numbers mean
// something only on a quiet machine.
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { stats, uptime } from "./timing.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "../..");
const HOST = "1.6.0";
const args = process.argv.slice(2);
const arg = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);

if (process.env.PTN_LOOP_BENCH_CHILD) {
  await child();
} else {
  const { hostAvailable, nodeFor } = await import("../../scripts/hosts.mjs");
  if (!hostAvailable(HOST)) throw new Error(`pi ${HOST} is missing: npm run setup`);
  const pkg = resolve(arg("--pkg", join(REPO, "pkg")));
  const quick = args.includes("--quick");
  const entries = Number(arg("--entries", 10_000));
  const results = Number(arg("--results", quick ? 100 : 400));
  const work = mkdtempSync(join(tmpdir(), "ptn-bench-loop-"));
  try {
    const gen = JSON.parse(execFileSync(process.execPath, [join(HERE, "gen.mjs"), String(entries), "10", work], { encoding: "utf8", maxBuffer: 1 << 24 }));
    const before = uptime();
    const r = spawnSync(nodeFor(HOST), [fileURLToPath(import.meta.url), pkg, gen[10].file, String(results)], {
      env: { ...process.env, PTN_HOST_VERSION: HOST, PTN_LOOP_BENCH_CHILD: "1" },
      encoding: "utf8",
      maxBuffer: 1 << 26,
    });
    if (r.status !== 0) throw new Error(`loop-hint bench on pi ${HOST}: ${r.stderr.slice(-2000)}`);
    const d = JSON.parse(r.stdout.trim().split("\n").pop());
    if (!(d.results > 0 && d.found > 0 && d.hints === 1)) throw new Error(`loop-hint bench: nothing measured or no hint: ${r.stdout.slice(-400)}`);
    const ms = (x) => `${x.toFixed(4)} ms`;
    console.log("### The loop hint per tool result (issue 41)");
    console.log();
    console.log(`Its \`tool_result\` handler inside real pi ${d.piVersion} (tests/bench/loop-hint.mjs): a resumed session of ${d.entries.toLocaleString("en-US")} entries, then`);
    console.log(`${d.results} tool results that all differ (2,000 characters each: no loop), then the same call three times (the third completes a`);
    console.log("loop: the hint, its anchor read from the index). Goal ≤ 0.05 ms per result.");
    console.log(`Load before: \`${before}\`; after: \`${uptime()}\`.`);
    console.log();
    console.log("| pi | entries | per result (median) | p90 | max | results | the result that completes a loop (hint sent) |");
    console.log("|---|---:|---:|---:|---:|---:|---:|");
    console.log(`| ${d.piVersion} | ${d.entries.toLocaleString("en-US")} | **${ms(d.perResult.median)}** | ${ms(d.perResult.p90)} | ${ms(d.perResult.max)} | ${d.results} | ${d.found.toFixed(2)} ms |`);
    console.log(JSON.stringify(d));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function child() {
  const [pkg, file, resultsArg] = args;
  const RESULTS = Number(resultsArg);
  const { createSession, loadHost, ScriptedModel } = await import("../e2e/lib/harness.mjs");
  const { FIXTURES } = await import("../e2e/lib/hosts.mjs");
  const host = await loadHost();
  const B = (globalThis[Symbol.for("ptn-bench-loop")] = { times: [] });
  const wrapper = join(pkg, "bench-loop-wrapper.js");
  writeFileSync(
    wrapper,
    `import navigateTree from "./extension.js";
export default function benchLoopWrapper(pi) {
  const B = globalThis[Symbol.for("ptn-bench-loop")];
  const proxy = new Proxy(pi, {
    get(target, key) {
      // The loop hint's own handler of each tool result, timed until it settles.
      if (key === "on") return (event, handler) => target.on(event, handler.name !== "loopHintToolResult" ? handler : async (e, ctx) => {
        const t0 = performance.now();
        try { return await handler(e, ctx); } finally { B.times.push(performance.now() - t0); }
      });
      const v = Reflect.get(target, key, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  navigateTree(proxy);
}
`,
  );
  const dir = mkdtempSync(join(tmpdir(), "ptn-loop-bench-"));
  try {
    mkdirSync(join(dir, "sessions"), { recursive: true });
    const copy = join(dir, "sessions", "bench.jsonl");
    copyFileSync(file, copy);
    const sm = host.pca.SessionManager.open(copy, join(dir, "sessions"));
    const entries = sm.getEntries().length;
    const m = new ScriptedModel(host);
    const s = await createSession(host, m, { extensions: [wrapper, join(FIXTURES, "bulk-ext/index.js")], tools: ["navigate_tree", "bulk_read"], sessionManager: sm, cwd: join(dir, "cwd") });
    await s.session.bindExtensions({});
    // The resumed index first (the hint reads its anchors), then the results.
    m.agent.push(m.calls([["navigate_tree", { action: "list" }, "list1"]]));
    for (let i = 0; i < RESULTS; i++) m.agent.push(m.calls([["bulk_read", { chars: 2000, tag: `src/mod${i}.rs` }, `b${i}`]]));
    for (let i = 0; i < 3; i++) m.agent.push(m.calls([["bulk_read", { chars: 2000, tag: "src/same.rs" }, `same${i}`]]));
    m.agent.push(m.text("done"));
    await s.session.prompt("Keep going.");
    const hints = s.sm.getEntries().filter((e) => e.type === "custom_message" && e.customType === "tree-navigator-loop").length;
    s.dispose();
    // times: the list's result, the RESULTS plain ones, then the three identical (the last found the loop).
    const plain = B.times.slice(1, 1 + RESULTS);
    const sorted = [...plain].sort((a, b) => a - b);
    const p90 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))];
    console.log(JSON.stringify({ piVersion: host.version, node: process.versions.node, entries, results: plain.length, perResult: { ...stats(plain), p90 }, found: B.times.at(-1), hints }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(wrapper, { force: true });
  }
}
