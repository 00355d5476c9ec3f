// The first index calls a cold start is timed with (row 6 in Node and Bun: child-init.mjs; Chromium:
// viewer-bench.mjs): a 3-line session with an anchor, fed to a fresh plugin index, then the tool's `list`.

/** The session fed on a cold start. */
export const FIRST_SESSION =
  '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n' +
  '{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}\n' +
  '{"type":"label","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","targetId":"a1","label":"anchor:start"}\n';
