// One part of a resumed session's file read into a facts stream (the core's `ChunkReader`): the code the
// resume worker (resume-worker.js) and the main thread (resume.js) share. Plain Node, no pi imports: the
// worker loads it natively.
import { readSync } from "node:fs";

/**
 * Bytes per part: small enough that the main thread, when it helps, yields to pi's loop often, and that what a
 * part holds in flight stays small — a thread's read buffer, the copy in its wasm instance (whose memory never
 * shrinks) and the line pieces each hold about a part. With 4 MB parts pi 1.6.0 peaked ~15 MB higher on a resumed
 * 100 MB session whose first tool call needs the index than with 1 MB parts, in the same wall time
 * (docs/benchmarks.md, "Where a resume's peak RSS goes").
 */
export const CHUNK_BYTES = 1 << 20;

/** How far past a part's end a line is read at a time, to find where it ends. */
const SPILL_BYTES = 64 << 10;

/** The parts of a file of `size` bytes: `[start, end)` byte ranges (cut anywhere; lines go to the part they start in). */
export function planChunks(size, chunkBytes = CHUNK_BYTES) {
  const out = [];
  for (let start = 0; start < size; start += chunkBytes) out.push([start, Math.min(size, start + chunkBytes)]);
  return out;
}

/** Reads `len` bytes of the file at `position` into `buf` at `at`; returns how many (fewer at the file's end). */
function readInto(fd, buf, at, position, len) {
  let got = 0;
  while (got < len) {
    const n = readSync(fd, buf, at + got, len - got, position + got);
    if (n <= 0) break;
    got += n;
  }
  return got;
}

/** A read buffer of at least `len` bytes (`scratch.buf`, grown when too small; reused from part to part). */
function room(scratch, len, keep = 0) {
  if (!scratch.buf || scratch.buf.length < len) {
    const bigger = Buffer.allocUnsafe(Math.max(len, 2 * (scratch.buf?.length ?? 0)));
    if (keep) scratch.buf.copy(bigger, 0, 0, keep);
    scratch.buf = bigger;
  }
  return scratch.buf;
}

/**
 * Reads part `[start, end)` of the file open as `fd`, whose first `size` bytes are the session, into a
 * `ChunkReader` of `api` (pi `version`'s rules) and returns `{facts, entries, problem}` (its facts stream, how many
 * entries it holds, why the part cannot stand for its lines or null). A part holds the lines that start inside it:
 * the rest of a line the part before began is skipped, and the part's last line is read to its newline past `end`
 * (or to the file's end). `scratch` (`{buf}`) is the caller's read buffer, reused from part to part.
 */
export function readChunk(api, fd, [start, end], size, version, scratch = {}) {
  const reader = new api.ChunkReader(start === 0, version);
  try {
    // One byte before the part: whether a line starts right at `start`.
    const from = start > 0 ? start - 1 : 0;
    let buf = room(scratch, end - from + SPILL_BYTES);
    let len = readInto(fd, buf, 0, from, end - from);
    let first = 0;
    if (start > 0) {
      const nl = buf.subarray(0, len).indexOf(10);
      first = nl < 0 ? len : nl + 1;
    }
    if (first < len && buf[len - 1] !== 10) {
      // The part's last line goes on past `end`: read it to its newline, or to the file's end.
      for (let scanned = len; from + len < size; scanned = len) {
        buf = room(scratch, len + SPILL_BYTES, len);
        const n = readInto(fd, buf, len, from + len, Math.min(SPILL_BYTES, size - from - len));
        if (n === 0) break;
        len += n;
        const nl = buf.subarray(scanned, len).indexOf(10);
        if (nl >= 0) {
          len = scanned + nl + 1;
          break;
        }
      }
    }
    let last = end >= size;
    if (first < len) {
      last = from + len >= size;
      reader.push(buf.subarray(first, len));
    }
    const facts = reader.finish(last);
    return { facts, entries: reader.entries, problem: reader.problem ?? null };
  } finally {
    reader.free();
  }
}
