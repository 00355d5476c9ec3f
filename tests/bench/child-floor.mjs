// The floor any Node CLI pays for a session file: start Node, load one ES module, read the file's bytes.
// tests/bench/cli-process.mjs times this process next to `cli.js list --json` on the same file.
//
//   node tests/bench/child-floor.mjs <file>
import { readFileSync } from "node:fs";

process.stdout.write(String(readFileSync(process.argv[2]).length));
