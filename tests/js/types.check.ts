// Consumer-side type check of the built package (scripts/check-types.mjs compiles this with
// `tsc --noEmit --strict` against pkg/ via the package name). Never executed.
// It pins the wasm API contract of HACKING.md: every public return type is concrete (not `any`),
// absent values are `null`, and the documented argument forms are accepted.
import { SessionIndex, ready, toolDefinition, checkAuth, listFileBytes, FileBytes } from "pi-tree-navigator";

/** Compiles only when T is not `any` (`any` is not assignable to `never`). */
type IsAny<T> = 0 extends 1 & T ? true : false;
declare function concrete<T>(value: IsAny<T> extends true ? never : T): T;

const r: Promise<void> = ready;
void r;

const idx: SessionIndex = SessionIndex.full();
const plugin: SessionIndex = SessionIndex.plugin();

// Ingest
const rep = concrete(idx.appendJsonl('{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}\n'));
const appended: number = concrete(rep.appended);
for (const s of concrete(rep.skipped)) {
  const line: number = concrete(s.line);
  const reason: string = concrete(s.reason);
  void line, reason;
}
for (const w of concrete(rep.warnings)) {
  const text: string = concrete(w);
  void text;
}
const rep2 = concrete(plugin.appendEntries([{ type: "message", id: "a", parentId: null }]));
const appended2: number = rep2.appended;
const rep3 = concrete(plugin.sync([{ type: "message", id: "b", parentId: "a" }], "b"));
const appended3: number = concrete(rep3.appended);
const count: number = concrete(idx.entryCount);

// Leaf and path
const leaf: string | null = concrete(idx.leafId());
idx.setLeaf("a");
idx.setLeaf(null);
const p1: readonly string[] = concrete(idx.path());
const p2: readonly string[] = idx.path(null);
const p3: readonly string[] = idx.path("a");
const first: string | undefined = p1[0];
const label: string | null = concrete(idx.labelOf("a"));
const found: string | null = concrete(idx.findLabel("x"));
const found2: string | null = idx.findLabel("x", null);
const found3: string | null = idx.findLabel("x", "a");
const ca: string | null = concrete(idx.commonAncestor("a", "b"));
const between = concrete(idx.entriesBetween(null, "a"));
const betweenIds: readonly string[] = concrete(between.entryIds);
const betweenCa: string | null = concrete(between.commonAncestorId);
const between2 = idx.entriesBetween("a", "b");

// Context and estimates
const ctx = concrete(idx.buildContext());
const ctx2 = concrete(idx.buildContext(null));
const ctx3 = concrete(idx.buildContext("a"));
const json: string = concrete(idx.contextJson());
const est = concrete(idx.estimate());
const tokens: number = concrete(est.tokens);
const usageTokens: number = concrete(est.usageTokens);
const trailingTokens: number = concrete(est.trailingTokens);
const lastUsageIndex: number | null = concrete(est.lastUsageIndex);
const est2 = idx.estimate(null);
const est3 = idx.estimate("a");

// Anchors, tree, stats
for (const a of concrete(idx.anchors())) {
  const name: string = concrete(a.name);
  const entryId: string = concrete(a.entryId);
  const anchorTokens: number = concrete(a.tokens);
  const hint: string | null = concrete(a.hint);
  void name, entryId, anchorTokens, hint;
}
const anchors2 = concrete(idx.anchors(null));
const rows = concrete(idx.treeRows());
const row = concrete(rows[0]);
const tree: string = concrete(idx.renderTree());
const stats = concrete(idx.stats(1234));
// Each rewind of the tool on the active path and what it saved (the viewer's, stats').
const rewound: { summaryId: string; saved: number; changed: boolean }[] = idx.rewindSavings().map((r) => ({
  summaryId: concrete(r.summaryId),
  saved: concrete(r.saving.savedTokens),
  changed: concrete(r.saving.baselineChanged),
}));

// The tool API: types generated from the Rust result types.
const def = concrete(toolDefinition());
const toolName: string = concrete(def.name);
const mode: "sequential" = concrete(def.executionMode);
const plan = concrete(plugin.toolPlan({ action: "list" }, { callId: "c1", contextWindow: 1000, nowMs: 0 }));
if (plan.kind === "list") {
  const listText: string = concrete(plan.text);
  const hint: string | null = concrete(plan.details.anchors[0]!.hint);
  void listText, hint;
} else if (plan.kind === "anchor") {
  const moveFrom: string | null = concrete(plan.moveFrom);
  void moveFrom;
} else if (plan.kind === "rewind") {
  const ids: string[] = concrete(plan.summarizeIds);
  const total: number = concrete(plan.fallbackSynthetic.usage.totalTokens);
  void ids, total;
  const finish = concrete(plugin.rewindFinish("summary-id", Date.now()));
  for (const w of finish.labels) {
    const entry: string = concrete(w.entryId);
    const newLabel: string | null = concrete(w.label);
    void entry, newLabel;
  }
  const after: number = concrete(finish.afterTokens);
  // What the rewind saved: removed less the summary, and whether the two estimates rest on different models' counts.
  const saved: number = concrete(finish.details.savedTokens);
  const removed: number = concrete(finish.details.removedTokens) - concrete(finish.details.summaryTokens);
  const changed: boolean = concrete(finish.details.baselineChanged);
  void after, saved, removed, changed;
} else if (plan.kind === "recall") {
  const recalled: string[] = concrete(plan.entryIds);
  const page: number = concrete(plan.page);
  void recalled, page;
} else {
  const code: string = concrete(plan.code);
  void code;
}
const auth = checkAuth({ ok: false, error: "no key" });
const authText: string | undefined = auth?.text;
// A rewind's summary (or why there is none): the summarizer's result, with the collapsed entries as pi holds them.
const answer = idx.rewindSummary([], { summary: "## Goal", stopReason: "length", ledgerTokens: 600 });
const summaryCode: string | undefined = answer.kind === "refuse" ? answer.code : undefined;
const summaryText: string | undefined = answer.kind === "summary" ? answer.summary : undefined;
const summaryFiles: string[] | undefined = answer.kind === "summary" ? answer.details.readFiles : undefined;

idx.free();
plugin.free();

export const used = [appended, appended2, count, leaf, p2, p3, first, label, found, found2, found3, ca, betweenIds,
  betweenCa, between2, ctx, ctx2, ctx3, json, tokens, usageTokens, trailingTokens, lastUsageIndex, est2, est3,
  anchors2, row, tree, stats, rewound, toolName, mode, authText, summaryCode, summaryText, summaryFiles, appended3];

// The CLI's list/tokens of a whole file: the load's report and, unless the leaf id is unknown, the list.
const fileList = concrete(listFileBytes(new Uint8Array(), "leaf-id", "1.5.2"));
const problem: string | null = fileList.report.problem;
const skippedLines: number[] = fileList.report.skipped.map((s) => s.line);
const listed = fileList.list;
if (listed !== null) {
  const firstName: string | undefined = concrete(listed.anchors)[0]?.name;
  const leafTokens: number = concrete(listed.estimate.tokens);
  void firstName, leafTokens;
}
void problem, skippedLines, concrete(listFileBytes(new Uint8Array(), null)), concrete(listFileBytes(new Uint8Array(), undefined));
// A file gathered in the module's memory piece by piece goes where the bytes go.
const gathered = new FileBytes(2);
gathered.push(new Uint8Array([123, 125]));
void concrete(listFileBytes(gathered, undefined).report.problem);

