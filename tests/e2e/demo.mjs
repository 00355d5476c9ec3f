#!/usr/bin/env node
// Demo: a real pi session (offline, scripted model) using navigate_tree from the built package:
// anchor → bulky work → rewind (context % before/after) → list. Prints a readable transcript and leaves
// the session .jsonl for the CLI (`node pkg/cli.js list|tree <file>`).
//
//   node tests/e2e/demo.mjs [--host <tested version>] [--out <dir>]     (default: the newest tested pi)
//
// Needs `npm run build` and the pi host (`npm run demo` = scripts/demo.mjs installs and builds both first).
// Re-runs itself under the Node the chosen pi needs (Node 22 for pi ≥0.75).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { createSession, loadHost, ScriptedModel } from "./lib/harness.mjs";
import { FIXTURES, PKG_DIR, REPO, runDemoUnderHostNode } from "./lib/hosts.mjs";
import { NEWEST_TESTED } from "../../js/tested-hosts.js";

// `--long`: the scripted ≥30-turn run of tests/e2e/demo-long.mjs.
if (process.argv.includes("--long")) {
  await import("./demo-long.mjs");
  process.exit(process.exitCode ?? 0);
}

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const version = arg("--host", process.env.PTN_HOST_VERSION ?? NEWEST_TESTED);
const out = arg("--out", join(tmpdir(), "pi-tree-navigator-demo"));

runDemoUnderHostNode(version, ["--host", version, "--out", out]);

const dim = (s) => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s);
const bold = (s) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
const oneLine = (s, n = 110) => {
  const t = String(s).replace(/\s+/g, " ").trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
};
const approxTokens = (messages) => Math.ceil(JSON.stringify(messages).length / 4);

const host = await loadHost(version);
const m = new ScriptedModel(host);
const FOCUS =
  "User's latest instruction, verbatim: 'Add input validation to the parser, then tell me what changed.' " +
  "Done: read src/parser.rs and its tests. Left: write the validation and report.";
const call = (name, args, id) => m.calls([[name, args, id]]);
// On pi ≥0.87 the rewind's summary request is the agent's last request plus one instruction (cache-preserving):
// it reaches the model like an agent request, so it is routed to the summary script, not the agent's.
const LIVE_SUMMARY = "Stop the task here: do not continue the work";
const isLiveSummary = (req) => JSON.stringify(req.messages.at(-1)?.content ?? "").includes(LIVE_SUMMARY);
m.router = (req) => (isLiveSummary(req) ? "live" : "agent");
m.agentBy.agent = m.agent;
m.agent.push(
  call("navigate_tree", { action: "anchor", name: "read-parser" }, "call_1"),
  call("bulk_read", { chars: 48000, tag: "src/parser.rs" }, "call_2"),
  call("bulk_read", { chars: 24000, tag: "tests/parser_test.rs" }, "call_3"),
  call("navigate_tree", { action: "rewind", labelStart: "read-parser", labelEnd: "parser-read", summaryFocus: FOCUS }, "call_4"),
  call("navigate_tree", { action: "list" }, "call_5"),
  m.text("Validation plan ready: the parser reads tokens in `parse_expr`; I will add checks there next."),
);
const SUMMARY =
  "## Goal\nAdd input validation to the parser and report what changed.\n## Progress\n### Done\n" +
  "- Read src/parser.rs (entry point `parse_expr`) and tests/parser_test.rs\n### In Progress\n- Designing the validation\n" +
  "## Next Steps\n- Add checks in `parse_expr`; report to the user";
m.summary.push(m.text(SUMMARY));
m.agentBy.live = [m.text(SUMMARY)];

mkdirSync(out, { recursive: true });
const cwd = join(out, "cwd");
mkdirSync(cwd, { recursive: true });
const sessionDir = join(out, "sessions");
const sm = host.pca.SessionManager.create(cwd, sessionDir);
const s = await createSession(host, m, {
  extensions: [PKG_DIR, join(FIXTURES, "bulk-ext/index.js")],
  tools: ["navigate_tree", "bulk_read"],
  sessionManager: sm,
  cwd,
});

console.log(bold(`pi-tree-navigator demo · pi ${version} · Node ${process.versions.node} · scripted model, offline\n`));
m.onRequest = (req, isSummary) => {
  if (isSummary) console.log(dim(`    … summarizer request: ${req.messages.length} message(s), focus passed as custom instructions`));
  else if (isLiveSummary(req)) console.log(dim(`    … summary request: the previous request + 1 instruction (${req.messages.length} messages; its prefix can come from the prompt cache)`));
  else console.log(dim(`    → request ${m.requests.filter((r) => !isLiveSummary(r)).length}: ${req.messages.length} messages, ≈${approxTokens(req.messages)} tokens`));
};
s.session.subscribe((event) => {
  if (event.type !== "message_end") return;
  const msg = event.message;
  if (msg.role === "user") console.log(`${bold("user")} ▸ ${oneLine(typeof msg.content === "string" ? msg.content : msg.content.map((c) => c.text ?? "").join(""))}`);
  if (msg.role === "assistant") {
    for (const c of msg.content) {
      if (c.type === "text") console.log(`${bold("assistant")} ▸ ${oneLine(c.text)}`);
      if (c.type === "toolCall") {
        const args = Object.entries(c.arguments).map(([k, v]) => `${k}=${JSON.stringify(v).length > 40 ? `${JSON.stringify(v).slice(0, 38)}…"` : JSON.stringify(v)}`);
        console.log(`${bold("assistant")} ▸ ${c.name}(${args.join(", ")})`);
      }
    }
  }
  if (msg.role === "toolResult") {
    const text = msg.content.map((c) => c.text ?? "").join("");
    const shown = msg.toolName === "bulk_read" ? `(${text.length} characters of ${text.split(":")[0]})` : text;
    for (const line of String(shown).split("\n").filter(Boolean)) console.log(`  ${msg.isError ? "tool ✗" : "tool"} ▸ ${line}`);
    const cache = msg.details?.summaryCache;
    if (cache) {
      const counts = typeof cache.cacheRead === "number" ? `: ${cache.input} fresh input + ${cache.cacheRead} cache-read tokens, as the provider counted them` : "";
      console.log(dim(`    (summary ${cache.mode}${cache.reason ? ` (${cache.reason})` : ""}${counts})`));
    }
  }
});

await s.session.prompt("Add input validation to the parser, then tell me what changed.");

const agentRequests = m.requests.filter((r) => !isLiveSummary(r));
const sizes = agentRequests.map((r) => approxTokens(r.messages));
const at = sizes.length - 3; // the request right before the rewind call's result was sent back
console.log(
  `\n${bold("Context per request")} (≈ tokens): ${sizes.join(" → ")}  ` +
    `${dim(`(request ${at + 1} → ${at + 2}: the very next request of the same prompt() after the rewind)`)}`,
);
const files = existsSync(sessionDir) ? readdirSync(sessionDir, { recursive: true }).filter((f) => String(f).endsWith(".jsonl")) : [];
const file = files.length ? join(sessionDir, String(files[0])) : sm.getSessionFile?.();
console.log(`\n${bold("Session file")}: ${file}`);
const cli = join(PKG_DIR, "cli.js");
if (file && existsSync(cli)) {
  for (const cmd of ["list", "tree"]) {
    console.log(`\n${bold(`$ node ${relative(REPO, cli)} ${cmd} <session file>`)}`);
    const r = spawnSync(process.execPath, [cli, cmd, file], { encoding: "utf8" });
    process.stdout.write(r.stdout || r.stderr);
  }
}
s.dispose();
