// The package's one wasm module as Node and Bun read it. The package ships it gzip-compressed by zopfli
// (pi_tree_navigator_bg.wasm.gz, scripts/build.mjs): 15 kB smaller packed than the raw module, whose gzip by
// npm's tarball is not as tight (issue 38). Unzipped once per process or worker, ~2-3 ms.
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";

/** The shipped module's file name, next to the wasm-bindgen glue (`pi_tree_navigator.js`). */
export const WASM_FILE = "pi_tree_navigator_bg.wasm.gz";

/** The module's bytes, from the `.wasm.gz` next to the file at URL `base`. */
export function wasmBytes(base) {
  return gunzipSync(readFileSync(new URL(`./${WASM_FILE}`, base)));
}
