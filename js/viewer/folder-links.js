// What the folder page and a session's page share (`view <folder>`): the folder's report as the server hands it
// over (`?list=`: the core's `stats <folder> --json`, with each session's URL on this server), and the links
// between them. No rules: names and URLs only.
import { h } from "./dom.js";

/** The folder's report `?list=` names (same origin only), or null without one. */
export async function fetchFolder(loc) {
  const list = new URLSearchParams(loc.search).get("list");
  if (!list) return null;
  const url = new URL(list, loc.href);
  if (url.origin !== loc.origin) throw new Error("the folder list is not on this server");
  const res = await fetch(url, { credentials: "same-origin", cache: "no-store" });
  if (!res.ok) throw new Error(`HTTP ${res.status} ${res.statusText}`);
  return { list: url.pathname, report: await res.json() };
}

/** The viewer's page of the session at `url`, which links back to the folder list `list`. */
export const sessionPage = (url, list, host) =>
  `index.html?file=${encodeURIComponent(url)}&list=${encodeURIComponent(list)}${host ? `&host=${encodeURIComponent(host)}` : ""}`;

/** The folder page of the list `list`. */
export const folderPage = (list, host) => `folder.html?list=${encodeURIComponent(list)}${host ? `&host=${encodeURIComponent(host)}` : ""}`;

/** What a session is called in a link: its first message, else its file's name. */
export const sessionName = (s) => s.firstMessage || s.file.split(/[\\/]/).pop();

/**
 * A link to one of the viewer's own pages (`index.html` or `folder.html` on this server): the one place the viewer
 * sets a URL (dom.js refuses `href`), so it checks that the URL is nothing else — never a session's text.
 */
export function pageLink(url, attrs, ...children) {
  const u = new URL(url, location.href);
  if (u.origin !== location.origin || !/\/viewer\/(index|folder)\.html$/.test(u.pathname)) throw new Error(`not a page of this viewer: ${u.pathname}`);
  const a = h("a", attrs, ...children);
  a.href = u.href;
  return a;
}
