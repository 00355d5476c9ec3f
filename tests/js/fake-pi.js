// For shim tests that run without a real host: make `@earendil-works/pi-coding-agent` resolve to a small
// module of the test's own (node:module's resolve hook), and load files of the built package.
import { truncateSync, writeFileSync } from "node:fs";
import { register } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** pi-tui's components as far as the renderers use them (tests; the real ones come from the host). */
const FAKE_TUI = `export class Text { constructor(text = "") { this.text = text; } render() { return this.text.split("\\n"); } invalidate() {} }
export class Container { render() { return []; } invalidate() {} }`;
export const FAKE_TUI_URL = `data:text/javascript,${encodeURIComponent(FAKE_TUI)}`;

/** From now on, imports of pi's package in this process get a module with the source `source`. */
export function fakePi(source) {
  const url = `data:text/javascript,${encodeURIComponent(source)}`;
  register(
    `data:text/javascript,${encodeURIComponent(`export async function resolve(s, c, next) {
  if (s === "@earendil-works/pi-tui") return { url: ${JSON.stringify(FAKE_TUI_URL)}, shortCircuit: true };
  if (s === "@earendil-works/pi-coding-agent") return { url: ${JSON.stringify(url)}, shortCircuit: true };
  return next(s, c);
}`)}`,
  );
}

/** The built package the tests load (`PTN_PKG_DIR`, else the repo's pkg/). */
export const pkgDir = process.env.PTN_PKG_DIR ?? fileURLToPath(new URL("../../pkg/", import.meta.url));

/** Imports `name` from the built package (`npm run build` first). */
export const loadPkg = (name) => import(pathToFileURL(join(pkgDir, name)).href);

/** A file of `bytes` bytes at `file` that takes no room (sparse): for code that only `stat`s it. Returns `file`. */
export function sparseFile(file, bytes) {
  writeFileSync(file, "");
  truncateSync(file, bytes);
  return file;
}
