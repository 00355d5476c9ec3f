// Archived branches in the viewer, loaded on demand: the session's archive (`pi-tree-navigator archive`; its format
// is described in archive.js) merged back into the session's bytes in memory — the same merge `restore` writes —
// with the ids of what came back: "move" (an entry off the active path) or "stub" (a path entry's content).

const NL = new Uint8Array([10]);

/** The archive's header (first line) and index (last line); throws for anything else. */
function ends(archive) {
  const dec = new TextDecoder();
  const first = archive.indexOf(10);
  const last = archive.lastIndexOf(10, archive.length - 2);
  let header, index;
  try {
    header = JSON.parse(dec.decode(archive.subarray(0, first)));
    index = JSON.parse(dec.decode(archive.subarray(last + 1)));
  } catch {
    header = null;
  }
  if (header?.type !== "pi-tree-navigator-archive" || header.version !== 1 || index?.type !== "index") throw new Error("not a pi-tree-navigator archive");
  return { header, index };
}

const hex = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");

/**
 * `main` (the session's bytes) with `archive` (its archive's bytes) merged back: `{bytes, archived}`, `archived` the
 * kind of each entry id that came back. Throws when the session is not the file `archive` wrote (plus appends).
 */
export async function mergeArchive(main, archive) {
  const { header, index } = ends(archive);
  const prefix = hex(await crypto.subtle.digest("SHA-256", main.subarray(0, index.main.bytes)));
  if (main.length < index.main.bytes || prefix !== index.main.sha256) throw new Error("the session changed since it was archived (other than by appends)");
  let pos = 0;
  const nextLine = () => {
    const at = main.indexOf(10, pos);
    const end = at === -1 ? main.length : at;
    const line = main.subarray(pos, end);
    pos = end + 1;
    return line;
  };
  const parts = [];
  const archived = new Map();
  let k = 0;
  for (let i = 0; i < header.original.lines; i++) {
    if (i > 0) parts.push(NL);
    const e = index.entries[k];
    if (e && e[0] === i) {
      k++;
      parts.push(archive.subarray(e[1], e[1] + e[2]));
      archived.set(e[3], e[4]);
      if (e[4] === "stub") nextLine();
    } else parts.push(nextLine());
  }
  // Lines pi appended after archiving.
  while (pos <= main.length) parts.push(NL, nextLine());
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return { bytes, archived };
}
