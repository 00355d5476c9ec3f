// The viewer's index.html preloads its whole module graph (and the wasm) so the browser fetches them side by
// side instead of one import level at a time: the preload list must be exactly the modules main.js and
// early.js import, directly or not, so that none is found late and none is fetched for nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const VIEWER = resolve(dirname(fileURLToPath(import.meta.url)), "../../js/viewer");
const html = readFileSync(join(VIEWER, "index.html"), "utf8");

/** The modules `file` imports statically (relative specifiers), resolved. */
function importsOf(file) {
  const src = readFileSync(file, "utf8");
  const specs = [...src.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+"(\.{1,2}\/[^"]+)"|^\s*import\s+"(\.{1,2}\/[^"]+)"/gm)].map((m) => m[1] ?? m[2]);
  return specs.map((s) => resolve(dirname(file), s));
}

test("index.html preloads exactly the viewer's module graph, and the wasm the loader fetches", () => {
  const scripts = [...html.matchAll(/<script type="module"[^>]*\bsrc="([^"]+)"/g)].map((m) => resolve(VIEWER, m[1]));
  assert.deepEqual(scripts.map((f) => relative(VIEWER, f)).sort(), ["early.js", "main.js"]);
  const graph = new Set();
  const walk = (f) => {
    for (const dep of importsOf(f)) {
      if (graph.has(dep)) continue;
      graph.add(dep);
      // The wasm-bindgen glue exists only in the built package (pkg/pi_tree_navigator.js, next to load-web.js).
      if (existsSync(dep)) walk(dep);
    }
  };
  scripts.forEach(walk);
  for (const f of scripts) graph.delete(f);
  const preloaded = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => resolve(VIEWER, m[1]));
  const names = (xs) => [...xs].map((f) => relative(VIEWER, f)).sort();
  assert.deepEqual(names(preloaded), names(graph));
  assert.deepEqual(names([...graph].filter((f) => !existsSync(f))), ["../pi_tree_navigator.js"]);
  const wasm = [...html.matchAll(/<link rel="preload" href="([^"]+)" as="fetch" crossorigin>/g)].map((m) => m[1]);
  assert.deepEqual(wasm, ["../pi_tree_navigator_bg.wasm.gz"]);
  assert.match(readFileSync(join(VIEWER, "../load-web.js"), "utf8"), /new URL\("\.\/pi_tree_navigator_bg\.wasm\.gz", import\.meta\.url\)/);
});
