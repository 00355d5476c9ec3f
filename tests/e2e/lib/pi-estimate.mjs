// pi's own context estimator, reached in each host, for the moments its getContextUsage() reports `null`
// (right after a compaction, until a reply with usage arrives): what pi would compute there if it did not bail out.
//
// - pi 0.74/0.75: `estimateContextTokens(messages)` (dist/core/compaction/compaction.js, not a root export) on the
//   context at the leaf (`buildSessionContext(entries, leaf)`; their getContextUsage() runs it on the agent's
//   messages, which are that context), with the usage the tool never takes as a baseline taken off (see below).
// - pi 0.87.1: `estimateProjectedContextTokens(buildSessionProjection(entries, leaf), getBranch(leaf))`, the same
//   file; usage recorded before a later compaction or context_edit is not trusted.
// - pi 0.99.1 … 1.5.2: the same function inside the bundle (a chunk of dist/bundle/chunks, not exported): its
//   source and the functions it calls are cut out of that chunk and evaluated, so this is pi's code, not a copy.
//   `getCurrentSystemMessage` comes from the bundle's pi-ai (the faux bridge hands it over).
//
// Checked against pi itself: the e2e files compare it with getContextUsage() wherever pi has a number.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { hostEntryPath, packageDir } from "./hosts.mjs";

/** Returns `(sm, leafId) => tokens`: pi's estimate of the context at `leafId` of the session `sm`. */
export async function piEstimator(host) {
  const { pca, version } = host;
  if (!host.bundle) {
    const file = join(packageDir(version, "pi-coding-agent"), "dist/core/compaction/compaction.js");
    const c = await import(pathToFileURL(file).href);
    if (typeof c.estimateProjectedContextTokens === "function") {
      return (sm, leafId) => c.estimateProjectedContextTokens(pca.buildSessionProjection(sm.getEntries(), leafId), sm.getBranch(leafId)).tokens;
    }
    // The tool's rules on every host (docs/hosts.md, like the zero-usage rule): a usage whose total is not > 0, or
    // one recorded at or before the path's latest compaction or context_edit, is no baseline. pi 0.74/0.75 show
    // `null` in exactly those states (no number to match); their own function is given the messages with such a
    // usage taken off (buildSessionContext returns each entry's message object itself), which is what pi ≥0.87's
    // estimateProjectedContextTokens computes (tests/diff/reference.mjs does the same).
    return (sm, leafId) => {
      const branch = sm.getBranch(leafId);
      const last = branch.findLastIndex((e) => e.type === "compaction" || e.type === "context_edit");
      const distrusted = new Set(branch.slice(0, last + 1).filter((e) => e.type === "message").map((e) => e.message));
      const messages = pca.buildSessionContext(sm.getEntries(), leafId).messages.map((m) =>
        m?.role === "assistant" && m.usage && (!(pca.calculateContextTokens(m.usage) > 0) || distrusted.has(m)) ? { ...m, usage: undefined } : m);
      return c.estimateContextTokens(messages).tokens;
    };
  }
  const estimate = bundleFunction(host);
  return (sm, leafId) => estimate(pca.buildSessionProjection(sm.getEntries(), leafId), sm.getBranch(leafId)).tokens;
}

/**
 * `estimateProjectedContextTokens` of a bundle host, evaluated from the chunk that defines it together with the
 * functions and numeric constants it reaches there (the bundler may rename them, e.g. `estimateTokens2`).
 */
function bundleFunction(host) {
  const chunks = join(dirname(hostEntryPath(host.version)), "chunks");
  const name = readdirSync(chunks).find((f) => f.endsWith(".js") && readFileSync(join(chunks, f), "utf8").includes("function estimateProjectedContextTokens("));
  if (!name) throw new Error(`pi ${host.version}: no chunk defines estimateProjectedContextTokens`);
  const src = readFileSync(join(chunks, name), "utf8");
  const where = `pi ${host.version} ${name}`;
  const bodies = new Map();
  const imported = new Set();
  const want = ["estimateProjectedContextTokens"];
  while (want.length) {
    const fn = want.pop();
    if (bodies.has(fn) || imported.has(fn)) continue;
    if (/^getCurrentSystemMessage\d*$/.test(fn)) {
      imported.add(fn); // pi-ai's, imported by the chunk: taken from the bundle's pi-ai below
      continue;
    }
    const body = cutFunction(src, fn, where);
    bodies.set(fn, body);
    // Plain calls (not methods) of functions this chunk defines.
    for (const [, callee] of body.matchAll(/(?<![.\w$])([A-Za-z_$][\w$]*)\(/g)) {
      if (callee !== fn && (src.includes(`function ${callee}(`) || /^getCurrentSystemMessage\d*$/.test(callee))) want.push(callee);
    }
  }
  const code = [...bodies.values()].join("\n");
  const constants = [];
  for (const [, k] of code.matchAll(/(?<![.\w$])([A-Z][A-Z0-9_]{3,})(?![\w$(.])/g)) {
    if (constants.some((c) => c.startsWith(`const ${k} `))) continue;
    const def = src.match(new RegExp(`(?<![.\\w$])${k}=(\\d+(?:e\\d+)?)[,;]`));
    if (!def) throw new Error(`${where}: constant ${k} not found`);
    constants.push(`const ${k} = ${def[1]};`);
  }
  const getCurrentSystemMessage = host.ai.getCurrentSystemMessage;
  if (imported.size && typeof getCurrentSystemMessage !== "function") throw new Error(`pi ${host.version}: the bundle's pi-ai has no getCurrentSystemMessage`);
  const names = [...imported];
  return new Function(...names, `"use strict";\n${constants.join("\n")}\n${code}\nreturn estimateProjectedContextTokens;`)(...names.map(() => getCurrentSystemMessage));
}

/** The text of `function name(…){…}` in minified source (braces matched; string literals skipped). */
function cutFunction(src, name, where) {
  const start = src.indexOf(`function ${name}(`);
  if (start < 0 || src.indexOf(`function ${name}(`, start + 1) >= 0) throw new Error(`${where}: function ${name} not found exactly once`);
  let depth = 0;
  let quote = null;
  for (let i = src.indexOf("{", start); i < src.length; i++) {
    const ch = src[i];
    if (quote) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'" || ch === "`") quote = ch;
    else if (ch === "{") depth++;
    else if (ch === "}" && --depth === 0) return src.slice(start, i + 1);
  }
  throw new Error(`${where}: function ${name} has no end`);
}
