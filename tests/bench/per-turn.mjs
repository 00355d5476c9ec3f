// The plugin's cost per turn inside a real pi (issue 29: ≤ 1 ms at 100k entries), and one `list` on the same session.
//
//   PTN_HOST_VERSION=1.6.0 <node22> tests/bench/per-turn.mjs <pkg dir> <session.jsonl> [turns] [loop]
//
// The session file (a copy) is opened with pi's SessionManager.open and resumed in a real AgentSession with the
// faux model (pi-host.md §4; pi's startup binds the extensions: session_start), the extension loaded from the
// built package through pi's own loader by a wrapper extension that times every handler the plugin registers
// (`pi.on`: context, turn_end, tool_call, tool_result, before_agent_start, agent_end, context_with_system, …; an
// async handler until it settles). The model first calls `navigate_tree` `list` (the call takes the resumed
// session's index over), then works for `turns` turns (each a call of another tool and its result, as in a long
// autonomous run), then lists again. A turn's cost is the sum of the plugin's handlers between its `turn_start`
// and the next; the first turn (the first list, the start anchor's decision) is shown apart. With `loop`, the same
// call three times follows the turns (the third completes a loop: the loop hint). Each handler's times are also
// kept by its function's name (`byName`: tests/bench/loop-hint.mjs reads the loop hint's). Prints one JSON line:
// {piVersion, node, entries, turns, perTurn, firstTurn, byHook, byName (every time, ms), loopHints, list, firstList,
// listText}.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSession, loadHost, ScriptedModel } from "../e2e/lib/harness.mjs";
import { FIXTURES } from "../e2e/lib/hosts.mjs";
import { stats } from "./timing.mjs";

const [pkg, file, turnsArg, loopArg] = process.argv.slice(2);
const TURNS = Number(turnsArg ?? 40);
const host = await loadHost();
const B = (globalThis[Symbol.for("ptn-bench-turn")] = { turn: -1, perTurn: [], byHook: {}, byName: {}, list: [], count: {} });

const wrapper = join(pkg, "bench-turn-wrapper.js");
writeFileSync(
  wrapper,
  `import navigateTree from "./extension.js";
export default function benchTurnWrapper(pi) {
  const B = globalThis[Symbol.for("ptn-bench-turn")];
  const charge = (event, ms, fn) => {
    (B.byHook[event] ??= []).push(ms);
    if (fn) (B.byName[fn] ??= []).push(ms);
    if (B.turn >= 0) B.perTurn[B.turn] = (B.perTurn[B.turn] ?? 0) + ms;
  };
  pi.on("turn_start", () => { B.turn++; });
  const proxy = new Proxy(pi, {
    get(target, key) {
      if (key === "on") return (event, handler) => {
        // Several handlers of one event are told apart by their order (session_start#1, …).
        const name = B.byHook[event] || B.seen?.has(event) ? event + "#" + ((B.count[event] = (B.count[event] ?? 1) + 1)) : event;
        (B.seen ??= new Set()).add(event);
        // A handler that returns synchronously is charged until it returns: pi awaits every handler's result, and
        // the microtasks that await lets run (pi's own, other extensions') are not the handler's. A promise is
        // charged until it settles.
        return target.on(event, (e, ctx) => {
          const t0 = performance.now();
          let result;
          try {
            result = handler(e, ctx);
          } catch (error) {
            charge(name, performance.now() - t0, handler.name);
            throw error;
          }
          if (typeof result?.then !== "function") {
            charge(name, performance.now() - t0, handler.name);
            return result;
          }
          return result.then(
            (value) => { charge(name, performance.now() - t0, handler.name); return value; },
            (error) => { charge(name, performance.now() - t0, handler.name); throw error; },
          );
        });
      };
      if (key === "registerTool") return (def) => target.registerTool({ ...def, async execute(...args) {
        const t0 = performance.now();
        try { return await def.execute(...args); } finally { B.list.push(performance.now() - t0); }
      } });
      const v = Reflect.get(target, key, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  navigateTree(proxy);
}
`,
);

const dir = mkdtempSync(join(tmpdir(), "ptn-per-turn-"));
try {
  mkdirSync(join(dir, "sessions"), { recursive: true });
  const copy = join(dir, "sessions", "bench.jsonl");
  copyFileSync(file, copy);
  const sm = host.pca.SessionManager.open(copy, join(dir, "sessions"));
  const entries = sm.getEntries().length;
  const m = new ScriptedModel(host);
  const session = await createSession(host, m, {
    extensions: [wrapper, join(FIXTURES, "bulk-ext/index.js")],
    tools: ["navigate_tree", "bulk_read"],
    sessionManager: sm,
    cwd: join(dir, "cwd"),
  });
  // What pi's startup does once the session exists: session_start (the plugin's resume read starts here).
  await session.session.bindExtensions({});
  // The first call takes the resumed session's index over (read from its file, or built): then the turns.
  m.agent.push(m.calls([["navigate_tree", { action: "list" }, "list1"]]));
  for (let t = 0; t < TURNS; t++) m.agent.push(m.calls([["bulk_read", { chars: 2000, tag: `src/mod${t}.rs` }, `b${t}`]]));
  if (loopArg === "loop") for (let t = 0; t < 3; t++) m.agent.push(m.calls([["bulk_read", { chars: 2000, tag: "src/same.rs" }, `same${t}`]]));
  m.agent.push(m.calls([["navigate_tree", { action: "list" }, "list2"]]), m.text("done"));
  await session.session.prompt("Keep going with the parser work.");
  const listMs = B.list[1];
  const firstListMs = B.list[0];
  // The first turn pays for the first list (and the start anchor's decision); the list at the end for the
  // second: the plain turns are the ones between.
  const turns = B.perTurn.slice(1, 1 + TURNS);
  const msgs = session.session.agent?.state?.messages ?? [];
  const loopHints = sm.getEntries().filter((e) => e.type === "custom_message" && e.customType === "tree-navigator-loop").length;
  const listText = JSON.stringify(msgs.filter((x) => x.role === "toolResult" && x.toolName === "navigate_tree").map((x) => x.content?.[0]?.text ?? "")).slice(0, 400);
  session.dispose();
  const byHook = Object.fromEntries(Object.entries(B.byHook).map(([k, v]) => [k, { ...stats(v), calls: v.length }]));
  console.log(JSON.stringify({
    piVersion: host.version,
    node: process.versions.node,
    entries,
    turns: turns.length,
    perTurn: stats(turns),
    firstTurn: B.perTurn[0],
    byHook,
    byName: B.byName,
    loopHints,
    list: listMs,
    firstList: firstListMs,
    listText,
  }));
} finally {
  rmSync(dir, { recursive: true, force: true });
  rmSync(wrapper, { force: true });
}
