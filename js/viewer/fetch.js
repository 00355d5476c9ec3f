// The session's fetch, apart from the rest of the viewer so that it can start first: early.js runs it as soon
// as the page is parsed, while the viewer's modules and the wasm still load. No imports here.

/**
 * Starts fetching the session `?file=` names, when it names one on this server: what `startViewer` loads.
 * @param {Location} loc the page's location
 * @returns {{ param: string, url: URL | null, response: Promise<Response> | null } | null} null without `?file=`
 */
export function fetchSession(loc) {
  const param = new URLSearchParams(loc.search).get("file");
  if (!param) return null;
  let url;
  try {
    url = new URL(param, loc.href);
  } catch {
    url = null;
  }
  if (!url || url.origin !== loc.origin) return { param, url: null, response: null };
  performance.mark("ptn:fetch-start");
  const response = fetchOk(url);
  // Awaited (and its failure shown) by the viewer once the wasm is ready.
  response.catch(() => {});
  return { param, url, response };
}

/** A same-origin fetch of `url` that rejects with the HTTP status when the answer is not ok. */
export async function fetchOk(url) {
  const res = await fetch(url, { credentials: "same-origin", cache: "no-store" });
  if (!res.ok) throw new Error(`HTTP ${res.status} ${res.statusText}`);
  return res;
}
