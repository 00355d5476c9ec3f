// Browser loader: fetches and instantiates the wasm next to this file once (memoized).
// `await load()` before using the API, or import the package entry, which awaits it for you.
import init from "./pi_tree_navigator.js";

let loading;
/** Initialise the wasm module once; later calls return the same promise. */
export function load() {
  loading ??= init({ module_or_path: new URL("./pi_tree_navigator_bg.wasm", import.meta.url) }).then(() => undefined);
  return loading;
}

export * from "./pi_tree_navigator.js";
