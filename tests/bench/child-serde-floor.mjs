// The floor plus what `serde_json` alone costs: start Node, instantiate the tiny module of
// tests/bench/serde-floor (built by `cli-process.mjs --serde`), read the file straight into its memory (no
// JavaScript buffer, no copy) and have it check every line once — the least a CLI that reads pi's session
// files with `serde_json` in wasm pays before building anything.
//
//   node tests/bench/child-serde-floor.mjs <floor.wasm> <file>
import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";

const { instance } = await WebAssembly.instantiate(readFileSync(process.argv[2]));
const { memory, room, check_lines: checkLines } = instance.exports;
const fd = openSync(process.argv[3], "r");
const size = fstatSync(fd).size;
const at = room(size); // grows the memory: its buffer is taken after
const view = new Uint8Array(memory.buffer, at, size);
for (let got = 0, n; got < size && (n = readSync(fd, view, got, size - got, null)) > 0; got += n);
closeSync(fd);
process.stdout.write(String(checkLines()));
