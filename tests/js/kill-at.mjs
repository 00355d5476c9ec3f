// Preload for the archiver's kill test (tests/js/archive-kill.test.js; `node --import`): counts the process's
// calls that change files — opening for writing, writes, fsyncs, chmods, closes, renames, removals — and kills the
// process with SIGKILL right before call number PTN_KILL_AT (none when 0). At exit it writes the count it reached to
// PTN_KILL_COUNT (a file), so a first run learns how many there are.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

const at = Number(process.env.PTN_KILL_AT ?? 0);
const countFile = process.env.PTN_KILL_COUNT;
let calls = 0;
const writes = (flags) => typeof flags === "string" && /[wa+]/.test(flags);
for (const name of ["openSync", "writeSync", "fsyncSync", "fchmodSync", "closeSync", "renameSync", "rmSync", "appendFileSync"]) {
  const real = fs[name];
  fs[name] = function (...args) {
    if (name !== "openSync" || writes(args[1])) {
      calls++;
      if (calls === at) process.kill(process.pid, "SIGKILL");
    }
    return real.apply(this, args);
  };
}
syncBuiltinESMExports();
if (countFile) process.on("exit", () => fs.writeFileSync(countFile, String(calls)));
