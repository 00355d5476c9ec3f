// One part of a resumed session's file read into a facts stream (the core's `ChunkReader`): the code the
// resume worker (resume-worker.js) and the main thread (resume.js) share. Plain Node, no pi imports: the
// worker loads it natively.
import { readSync } from "node:fs";

/** Bytes per part: small enough that the main thread, when it helps, yields to pi's loop often. */
export const CHUNK_BYTES = 4 << 20;

/** How far past a part's end a line is read at a time, to find where it ends. */
const SPILL_BYTES = 64 << 10;

/** The parts of a file of `size` bytes: `[start, end)` byte ranges (cut anywhere; lines go to the part they start in). */
export function planChunks(size, chunkBytes = CHUNK_BYTES) {
  const out = [];
  for (let start = 0; start < size; start += chunkBytes) out.push([start, Math.min(size, start + chunkBytes)]);
  return out;
}

/** `len` bytes of the file at `position` (fewer at its end). */
function readAt(fd, position, len) {
  const buf = Buffer.allocUnsafe(len);
  let got = 0;
  while (got < len) {
    const n = readSync(fd, buf, got, len - got, position + got);
    if (n <= 0) break;
    got += n;
  }
  return got < len ? buf.subarray(0, got) : buf;
}

/**
 * Reads part `[start, end)` of the file open as `fd`, whose first `size` bytes are the session, into a
 * `ChunkReader` of `api` (pi `version`'s rules) and returns `{facts, entries, problem}` (its facts stream, how many
 * entries it holds, why the part cannot stand for its lines or null). A part holds the
 * lines that start inside it: the rest of a line the part before began is skipped, and the part's last line is
 * read to its newline past `end` (or to the file's end).
 */
export function readChunk(api, fd, [start, end], size, version) {
  const reader = new api.ChunkReader(start === 0, version);
  try {
    // One byte before the part: whether a line starts right at `start`.
    const from = start > 0 ? start - 1 : 0;
    const bytes = readAt(fd, from, end - from);
    let first = 0;
    if (start > 0) {
      const nl = bytes.indexOf(10);
      first = nl < 0 ? bytes.length : nl + 1;
    }
    let last = end >= size;
    if (first < bytes.length) {
      const parts = [bytes.subarray(first)];
      if (bytes[bytes.length - 1] !== 10) {
        // The part's last line goes on past `end`: read it to its newline, or to the file's end.
        for (let at = from + bytes.length; at < size; ) {
          const more = readAt(fd, at, Math.min(SPILL_BYTES, size - at));
          if (more.length === 0) break;
          const nl = more.indexOf(10);
          parts.push(nl < 0 ? more : more.subarray(0, nl + 1));
          at += more.length;
          if (nl >= 0) break;
        }
      }
      const body = parts.length === 1 ? parts[0] : Buffer.concat(parts);
      last = from + first + body.length >= size;
      reader.push(body);
    }
    const facts = reader.finish(last);
    return { facts, entries: reader.entries, problem: reader.problem ?? null };
  } finally {
    reader.free();
  }
}
