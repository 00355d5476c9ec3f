// Package entry for browsers ("browser" in the exports map): the API is usable once the import resolves.
import { load } from "./load-web.js";

export * from "./load-web.js";
/** Resolves when the wasm module is instantiated (already awaited by this module). */
export const ready = load();
await ready;
