// `archive <file> --after-exit <pid>`: the process js/archive-on-exit.js starts, detached, when pi quits. It waits
// until that pi has exited, makes sure no other process has the session file open, then archives it with all of
// archive's guarantees (js/archive.js) and writes how it ended — the report, or why it skipped or failed — as one
// entry of the log (`--log`, `<agentDir>/tree-navigator.log`). Every sentence is the core's (src/cli_text.rs).
//
// "Open elsewhere": on Linux every process's /proc/<pid>/fd; where there is no /proc, `lsof` when it is on the
// PATH; with neither, the min-idle rule: the archive waits until the file has not changed for `minIdle` seconds
// and refuses a file changed since (archive's own check). pi itself keeps no session file open between writes,
// so once it has exited the file is normally closed everywhere.
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { setPriority } from "node:os";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { ArchiveError, ArchiveSkipped, DEFAULT_MIN_IDLE, alive, archiveFile } from "./archive.js";

/** How long the archiver waits for pi to exit before it gives up. */
export const MAX_WAIT_MINUTES = 10;
const POLL_MS = 100;

/** The kernel's start time of process `pid` (/proc/<pid>/stat), "Z" for a zombie, or null (no /proc, or gone). */
function startOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[0] === "Z" ? "Z" : fields[19];
  } catch {
    return null;
  }
}

/** Resolves true once process `pid` has exited (a zombie counts; a new process with its pid too), false after `ms`. */
export async function waitForExit(pid, ms = MAX_WAIT_MINUTES * 60_000) {
  const start = startOf(pid);
  const end = Date.now() + ms;
  for (;;) {
    const now = startOf(pid);
    if (!alive(pid) || now === "Z" || (start !== null && now !== start)) return true;
    if (Date.now() > end) return false;
    await sleep(POLL_MS);
  }
}

/**
 * The other processes that have `file` open, as "pid command" each, or null when this system cannot say.
 * `proc`: where /proc is (tests).
 */
export function openElsewhere(file, { proc = "/proc" } = {}) {
  const target = realpathSync(file);
  if (existsSync(`${proc}/self/fd`)) {
    const holders = [];
    for (const pid of readdirSync(proc)) {
      if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
      let fds;
      try {
        fds = readdirSync(`${proc}/${pid}/fd`);
      } catch {
        continue; // gone, or another user's
      }
      for (const fd of fds) {
        let link;
        try {
          link = readlinkSync(`${proc}/${pid}/fd/${fd}`);
        } catch {
          continue;
        }
        if (link === target) {
          let comm = "";
          try {
            comm = readFileSync(`${proc}/${pid}/comm`, "utf8").trim();
          } catch {}
          holders.push(`${pid} ${comm}`.trim());
          break;
        }
      }
    }
    return holders;
  }
  const r = spawnSync("lsof", ["-t", "--", target], { encoding: "utf8" });
  if (r.error || (r.status !== 0 && r.status !== 1)) return null;
  return r.stdout.split(/\s+/).filter((p) => p && Number(p) !== process.pid);
}

/** Waits until `file` has not changed for `seconds` (or `maxMs` passed): the min-idle rule's wait. */
async function waitIdle(file, seconds, maxMs) {
  const end = Date.now() + maxMs;
  for (;;) {
    const idle = (Date.now() - statSync(file).mtimeMs) / 1000;
    if (idle >= seconds || Date.now() > end) return;
    await sleep(Math.min((seconds - idle) * 1000 + 50, 5_000));
  }
}

/**
 * Archives `file` once pi `pid` has exited (see the header); returns the exit status (0 archived or skipped by
 * rule, 1 refused or failed). `opts`: {log (a file; else stdout), minMb (`--if-worth`: the exit rule, else any
 * file with something to archive), minIdle (given: the min-idle rule as well), cli (the words that run the CLI)}.
 */
export async function archiveAfterExit(api, file, pid, { log, minMb, minIdle, cli }) {
  try {
    setPriority(19); // the user's next pi comes first
  } catch {}
  const write = (outcome, text) => {
    const entry = `${api.exitLogEntry(new Date().toISOString(), pid, outcome, file, text)}\n`;
    if (!log) return process.stdout.write(entry);
    mkdirSync(dirname(log), { recursive: true });
    appendFileSync(log, entry);
  };
  try {
    if (!(await waitForExit(pid))) {
      write("skipped", api.exitSkipRunning(pid, MAX_WAIT_MINUTES));
      return 0;
    }
    const holders = openElsewhere(file);
    if (holders?.length) {
      write("skipped", api.exitSkipOpen(holders));
      return 0;
    }
    // Where no one can say who has the file open: the min-idle rule (`--min-idle`: always).
    const idle = minIdle ?? (holders === null ? DEFAULT_MIN_IDLE : 0);
    if (idle > 0) await waitIdle(file, idle, MAX_WAIT_MINUTES * 60_000);
    const worth = minMb === undefined ? () => true : (bytes, saved) => api.exitArchiveDue(bytes, saved, minMb);
    const r = archiveFile(api, file, { minIdle: idle, cli, worth });
    write(r.nothing ? "skipped" : "archived", r.text);
    return 0;
  } catch (err) {
    if (err instanceof ArchiveSkipped) {
      write("skipped", api.exitSkipNotWorth(err.fileBytes, err.savedBytes, minMb));
      return 0;
    }
    const refused = err instanceof ArchiveError;
    write(refused ? "refused" : "failed", refused ? err.message : `${err.code ? `[${err.code}] ` : ""}${err.message}`);
    return 1;
  }
}
