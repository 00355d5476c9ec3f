// What changed in pi's public surface between two installed pi packages, limited to what the shim touches: the
// names the package exports (dist/index.d.ts) and the `.d.ts` declarations of the classes, interfaces, types and
// functions js/host.js, js/extension.js, js/agent.js, js/summarize.js, js/cache-summary.js and js/doctor.js use.
// Reads only the unpacked packages (no network, nothing is run): `npm run probe` prints it for the newest pi against
// the newest tested one; tests/js/surface.test.js runs it on two cached hosts.
//   node scripts/surface.mjs <old pi package dir> <new pi package dir>
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The exports the shim reads from the package (`import * as piPackage`, doctor's checks): a missing one breaks it.
 */
export const USED_EXPORTS = Object.freeze(["AgentSession", "SessionManager", "ModelRegistry", "ExtensionRunner", "generateBranchSummary"]);

/**
 * The declarations the shim touches, each with the members it uses (`uses`: marked in the report; every public
 * member's change is reported, a used one's is the one to read first).
 */
export const TOUCHED = Object.freeze([
  // host.js: tree moves, the rewind's paired messages, the context it rebuilds; cache-summary.js, agent.js: reads.
  { name: "SessionManager", uses: ["appendMessage", "appendLabelChange", "branch", "branchWithSummary", "buildSessionContext",
    "buildSessionProjection", "getBranch", "getEntries", "getEntry", "getLeafId", "getSessionId", "resetLeaf"] },
  // host.js: the prompt() wrapper, the captured agent; agent.js / doctor.js: getContextUsage.
  { name: "AgentSession", uses: ["prompt", "agent", "sessionManager", "getContextUsage"] },
  // host.js: the summarizer's stream function and credentials.
  { name: "ModelRegistry", uses: ["streamSimple", "getApiKeyAndHeaders"] },
  // doctor.js: the context event is there.
  { name: "ExtensionRunner", uses: ["emitContext"] },
  // extension.js, agent.js, host.js, cache-summary.js: the extension API and the context of a call / an event.
  { name: "ExtensionAPI", uses: [...["context", "context_with_system", "tool_call", "tool_result", "session_start", "before_agent_start",
    "turn_end", "agent_end", "session_shutdown"].map((e) => `on("${e}")`), "registerTool", "sendMessage", "setLabel", "getActiveTools", "getThinkingLevel"] },
  { name: "ExtensionContext", uses: ["sessionManager", "model", "modelRegistry", "getContextUsage", "getSystemPrompt", "ui", "isProjectTrusted"] },
  { name: "ToolDefinition", uses: ["name", "label", "description", "parameters", "execute", "promptSnippet", "promptGuidelines"] },
  // The events the shim handles.
  { name: "ContextEvent", uses: ["messages"] },
  { name: "ContextWithSystemEvent", uses: [] },
  { name: "ToolResultEvent", uses: [] },
  { name: "SessionStartEvent", uses: [] },
  { name: "BeforeAgentStartEvent", uses: [] },
  { name: "TurnEndEvent", uses: [] },
  { name: "AgentEndEvent", uses: [] },
  { name: "SessionShutdownEvent", uses: [] },
  { name: "ContextUsage", uses: ["tokens", "contextWindow", "percent"] },
  // summarize.js: the summarizer and what it is given / returns.
  { name: "generateBranchSummary", uses: [] },
  { name: "GenerateBranchSummaryOptions", uses: [] },
  { name: "BranchSummaryResult", uses: ["summary", "aborted", "error", "readFiles", "modifiedFiles"] },
  { name: "collectEntriesForBranchSummary", uses: [] },
  { name: "BranchSummaryEntry", uses: [] },
]);

/** `src` without comments; string and template literals are kept as they are (a `//` in a URL type stays). */
export function stripComments(src) {
  let out = "";
  for (let i = 0; i < src.length; ) {
    const c = src[i];
    if (c === "/" && src[i + 1] === "/") {
      while (i < src.length && src[i] !== "\n") i++;
    } else if (c === "/" && src[i + 1] === "*") {
      const end = src.indexOf("*/", i + 2);
      i = end < 0 ? src.length : end + 2;
    } else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < src.length && src[j] !== c) j += src[j] === "\\" ? 2 : 1;
      out += src.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Index just past the bracket closing the one at `open` ((), [], {}), or the text's end. */
function closeOf(src, open) {
  let depth = 0;
  for (let i = open; i < src.length; i++) {
    const c = src[i];
    if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < src.length && src[j] !== c) j += src[j] === "\\" ? 2 : 1;
      i = j;
    } else if ("([{".includes(c)) depth++;
    else if (")]}".includes(c) && --depth === 0) return i + 1;
  }
  return src.length;
}

/** Index of the first `ch` at bracket depth 0 from `from`, or the text's end. */
function atDepth0(src, from, ch) {
  for (let i = from; i < src.length; i++) {
    const c = src[i];
    if (c === ch) return i;
    if ("([{\"'`".includes(c)) i = (c === '"' || c === "'" || c === "`" ? closeString(src, i) : closeOf(src, i)) - 1;
  }
  return src.length;
}
function closeString(src, i) {
  let j = i + 1;
  while (j < src.length && src[j] !== src[i]) j += src[j] === "\\" ? 2 : 1;
  return j + 1;
}

const squash = (s) => s.replace(/\s+/g, " ").replace(/\s*([(){}[\]<>,;:?|&=])\s*/g, "$1").trim();

/** The members of a class or interface body (text between its braces) by name; private members left out. */
function membersOf(body) {
  const members = new Map();
  for (let i = 0; i < body.length; ) {
    const end = atDepth0(body, i, ";");
    const text = body.slice(i, end).trim();
    i = end + 1;
    if (!text || /^private\b|^#/.test(text)) continue;
    const m = text.match(/^(?:(?:readonly|static|public|protected|abstract|declare|get|set|async)\s+)*([A-Za-z_$][\w$]*|\[[^\]]*\]|"[^"]*"|'[^']*')?/);
    let name = m?.[1] ?? (text.startsWith("new") ? "new()" : "()");
    // An overload per event (`on(event: "context", …)`) is a member of its own: `on("context")`.
    const event = text.slice(name.length).match(/^\??\s*(?:<[^>]*>)?\(\s*\w+\s*:\s*("[^"]*")/);
    if (event) name = `${name}(${event[1]})`;
    members.set(name, [...(members.get(name) ?? []), squash(text)]);
  }
  return members;
}

/** Every top-level declaration in `src` (comments stripped) named `name`: {kind, text, members?}. */
export function declarationsIn(src, name) {
  const found = [];
  const re = new RegExp(`^[ \\t]*(?:export\\s+)?(?:declare\\s+)?(?:abstract\\s+)?(class|interface|type|function|const)\\s+${name.replace(/\$/g, "\\$")}(?![\\w$])`, "gm");
  for (let m; (m = re.exec(src)); ) {
    const kind = m[1];
    if (kind === "class" || kind === "interface") {
      const open = src.indexOf("{", m.index + m[0].length);
      const close = closeOf(src, open);
      found.push({ kind, text: squash(src.slice(m.index, open)), members: membersOf(src.slice(open + 1, close - 1)) });
    } else {
      const end = atDepth0(src, m.index + m[0].length, ";");
      found.push({ kind, text: squash(src.slice(m.index, end)) });
    }
  }
  return found;
}

function dtsFiles(dir) {
  const files = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) {
        if (name !== "bundle" && name !== "node_modules") walk(p);
      } else if (name.endsWith(".d.ts")) files.push(p);
    }
  };
  walk(dir);
  return files;
}

/** The names `dist/index.d.ts` exports (`export {…}`, `export type {…}`, `export declare …`; `export *` followed). */
export function exportedNames(file, seen = new Set()) {
  if (seen.has(file)) return new Set();
  seen.add(file);
  let src;
  try {
    src = stripComments(readFileSync(file, "utf8"));
  } catch {
    return new Set();
  }
  const names = new Set();
  for (const m of src.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const part of m[1].split(",")) {
      const p = part.trim().replace(/^type\s+/, "");
      if (p) names.add(p.split(/\s+as\s+/).pop().trim());
    }
  }
  for (const m of src.matchAll(/^export\s+(?:declare\s+)?(?:abstract\s+)?(?:class|interface|type|function|const|let|enum|namespace)\s+([\w$]+)/gm)) names.add(m[1]);
  for (const m of src.matchAll(/^export\s+\*\s+from\s+["'](\.[^"']+)["']/gm)) {
    const target = join(dirname(file), m[1]).replace(/\.(ts|js)$/, ".d.ts");
    for (const n of exportedNames(target, seen)) names.add(n);
  }
  return names;
}

/**
 * The surface of one installed pi package: version, exported names, and per touched declaration its kind, head
 * text and members (merged over the `.d.ts` files that declare it, each file named).
 */
export function readSurface(pkgDir) {
  const version = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")).version;
  const dist = join(pkgDir, "dist");
  const sources = dtsFiles(dist).map((f) => ({ file: relative(dist, f), src: stripComments(readFileSync(f, "utf8")) }));
  const declarations = {};
  for (const { name } of TOUCHED) {
    const found = [];
    for (const { file, src } of sources) for (const d of declarationsIn(src, name)) found.push({ ...d, file });
    if (!found.length) continue;
    const members = new Map();
    for (const d of found) for (const [k, v] of d.members ?? []) members.set(k, [...(members.get(k) ?? []), ...v]);
    declarations[name] = {
      kind: found[0].kind,
      files: [...new Set(found.map((d) => d.file))],
      head: found.map((d) => d.text).sort(),
      members: found.some((d) => d.members) ? members : null,
    };
  }
  const files = new Map(sources.map(({ file, src }) => [file, squash(src)]));
  return { version, exports: exportedNames(join(dist, "index.d.ts")), declarations, files };
}

const same = (a, b) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

/**
 * What changed from surface `a` to `b` (readSurface): `{from, to, exports: {added, removed, usedMissing},
 * declarations: [{name, change: "added"|"removed"|"changed", head?, members?: {added, removed, changed}}], files}`;
 * `empty` when nothing the shim touches changed (other exported names may have come or gone: listed, not counted).
 */
export function diffSurfaces(a, b) {
  const added = [...b.exports].filter((n) => !a.exports.has(n)).sort();
  const removed = [...a.exports].filter((n) => !b.exports.has(n)).sort();
  const usedMissing = USED_EXPORTS.filter((n) => !b.exports.has(n));
  const declarations = [];
  for (const { name, uses } of TOUCHED) {
    const da = a.declarations[name], db = b.declarations[name];
    if (!da && !db) continue;
    if (!da || !db) {
      declarations.push({ name, change: da ? "removed" : "added", used: da ? uses.length > 0 : false });
      continue;
    }
    const entry = { name, change: "changed" };
    if (!same(da.head, db.head)) entry.head = { from: da.head, to: db.head };
    if (da.members && db.members) {
      const m = { added: [], removed: [], changed: [] };
      for (const [k, v] of db.members) {
        if (!da.members.has(k)) m.added.push({ member: k, text: v, used: uses.includes(k) });
        else if (!same(da.members.get(k), v)) m.changed.push({ member: k, from: da.members.get(k), to: v, used: uses.includes(k) });
      }
      for (const [k, v] of da.members) if (!db.members.has(k)) m.removed.push({ member: k, text: v, used: uses.includes(k) });
      if (m.added.length || m.removed.length || m.changed.length) entry.members = m;
    }
    if (entry.head || entry.members) declarations.push(entry);
  }
  const touched = usedMissing.length > 0 || declarations.length > 0;
  // Every .d.ts file whose declarations differ (comments aside): where the rest of the change is.
  const files = [...new Set([...a.files.keys(), ...b.files.keys()])].sort()
    .filter((f) => a.files.get(f) !== b.files.get(f))
    .map((f) => (a.files.has(f) ? (b.files.has(f) ? f : `-${f}`) : `+${f}`));
  return { from: a.version, to: b.version, exports: { added, removed, usedMissing }, declarations, files, empty: !touched };
}

/** The diff as text for a maintainer. */
export function formatSurfaceDiff(d) {
  const lines = [`Public surface the shim touches, pi ${d.from} → ${d.to}:`];
  if (d.empty) lines.push("  same as tested: no change in the exports and declarations the shim touches.");
  if (d.exports.usedMissing.length) lines.push(`  MISSING exports the shim uses: ${d.exports.usedMissing.join(", ")}`);
  const used = (x) => (x.used ? "  (used by the shim)" : "");
  for (const e of d.declarations) {
    if (e.change !== "changed") {
      lines.push(`  ${e.name}: ${e.change}${used(e)}`);
      continue;
    }
    lines.push(`  ${e.name}:`);
    if (e.head) lines.push(`    declaration: ${e.head.from.join(" | ")}  →  ${e.head.to.join(" | ")}`);
    for (const x of e.members?.removed ?? []) lines.push(`    - ${x.text.join(" | ")}${used(x)}`);
    for (const x of e.members?.added ?? []) lines.push(`    + ${x.text.join(" | ")}${used(x)}`);
    for (const x of e.members?.changed ?? []) lines.push(`    ~ ${x.from.join(" | ")}  →  ${x.to.join(" | ")}${used(x)}`);
  }
  const other = [...d.exports.added.map((n) => `+${n}`), ...d.exports.removed.map((n) => `-${n}`)];
  lines.push(other.length ? `  other exported names (not used by the shim): ${other.join(" ")}` : "  exported names: unchanged");
  const shown = d.files.slice(0, 12).join(" ") + (d.files.length > 12 ? ` … and ${d.files.length - 12} more` : "");
  lines.push(d.files.length ? `  .d.ts files that changed (comments aside; +added -removed; ${d.files.length}): ${shown}` : "  .d.ts files: unchanged");
  return lines.join("\n");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [from, to] = process.argv.slice(2);
  if (!from || !to) {
    console.error("usage: node scripts/surface.mjs <old pi package dir> <new pi package dir>");
    process.exit(2);
  }
  console.log(formatSurfaceDiff(diffSurfaces(readSurface(from), readSurface(to))));
}
