// The `serde_json` floor (tests/bench/serde-floor): a tiny wasm module with the core's serde_json, features
// and release profile that checks every line of a file (`check_lines`) or reads every string of it
// (`count_units`), building nothing. `npm run bench` (row 2) and `cli-process.mjs --serde` set it beside ours:
// what is left between it and us is the core's own work.
import { copyFileSync, readFileSync, rmSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ptnCache } from "../../scripts/hosts.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));

/** Builds the module (cargo for wasm32 with the repo's lock file, then `wasm-opt -Os` as the package's build
 * does) into the cache; its path. */
export function buildSerdeFloor() {
  const crate = join(HERE, "serde-floor");
  const target = join(ptnCache(), "serde-floor-target");
  copyFileSync(join(HERE, "../../Cargo.lock"), join(crate, "Cargo.lock"));
  try {
    execFileSync("cargo", ["build", "--release", "--target", "wasm32-unknown-unknown"], { cwd: crate, env: { ...process.env, CARGO_TARGET_DIR: target }, stdio: ["ignore", "ignore", "inherit"] });
  } finally {
    rmSync(join(crate, "Cargo.lock"), { force: true });
  }
  const out = join(target, "ptn_serde_floor.wasm");
  const wasmOpt = join(HERE, "../../node_modules/.bin/wasm-opt");
  const features = ["--enable-bulk-memory", "--enable-nontrapping-float-to-int", "--enable-sign-ext", "--enable-mutable-globals"];
  execFileSync(wasmOpt, ["-Os", ...features, join(target, "wasm32-unknown-unknown", "release", "ptn_serde_floor.wasm"), "-o", out]);
  return out;
}

/** An instance of the module at `path`: `place(bytes)` copies a file into its memory, `checkLines()` and
 * `countUnits()` run over it. */
export async function serdeFloor(path) {
  const { instance } = await WebAssembly.instantiate(readFileSync(path));
  const { memory, room, check_lines: checkLines, count_units: countUnits } = instance.exports;
  return {
    place(bytes) {
      const at = room(bytes.length); // grows the memory: its buffer is taken after
      new Uint8Array(memory.buffer, at, bytes.length).set(bytes);
    },
    checkLines,
    countUnits,
  };
}
