// Node / Bun loader: synchronous wasm init from the module next to this file, read by js/wasm-bytes.js (no top-level
// await, so `require()` of the package works too on Node >= 20.19). Lives in pkg/ beside the wasm-bindgen glue.
import { initSync } from "./pi_tree_navigator.js";
import { wasmBytes } from "./wasm-bytes.js";

/** The compiled module: the resume worker (resume.js) instantiates it again without compiling it twice. */
export const wasmModule = new WebAssembly.Module(wasmBytes(import.meta.url));
initSync({ module: wasmModule });

export * from "./pi_tree_navigator.js";
/** Already resolved: the module is ready as soon as it is imported. Same shape as the web entry. */
export const ready = Promise.resolve();
