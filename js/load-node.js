// Node / Bun loader: synchronous wasm init from the bytes next to this file (no top-level await, so
// `require()` of the package works too on Node >= 20.19). Lives in pkg/ beside the wasm-bindgen glue.
import { readFileSync } from "node:fs";
import { initSync } from "./pi_tree_navigator.js";

/** The compiled module: the resume worker (resume.js) instantiates it again without compiling it twice. */
export const wasmModule = new WebAssembly.Module(readFileSync(new URL("./pi_tree_navigator_bg.wasm", import.meta.url)));
initSync({ module: wasmModule });

export * from "./pi_tree_navigator.js";
/** Already resolved: the module is ready as soon as it is imported. Same shape as the web entry. */
export const ready = Promise.resolve();
