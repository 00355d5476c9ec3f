// Browser loader: fetches and instantiates the wasm next to this file once (memoized). The package ships it
// gzip-compressed (js/wasm-bytes.js says why): unzipped as it streams in (DecompressionStream), so any static
// server that serves the file as it is will do. `await load()` before using the API, or import the package
// entry, which awaits it for you.
import init from "./pi_tree_navigator.js";

let loading;
/** Initialise the wasm module once; later calls return the same promise. */
export function load() {
  loading ??= init({ module_or_path: fetch(new URL("./pi_tree_navigator_bg.wasm.gz", import.meta.url)).then(unzipped) }).then(() => undefined);
  return loading;
}

/** The module's response unzipped, typed as wasm so that it is compiled while it streams in. */
function unzipped(response) {
  if (!response.ok) throw new Error(`pi_tree_navigator_bg.wasm.gz: HTTP ${response.status}`);
  return new Response(response.body.pipeThrough(new DecompressionStream("gzip")), { headers: { "Content-Type": "application/wasm" } });
}

export * from "./pi_tree_navigator.js";
