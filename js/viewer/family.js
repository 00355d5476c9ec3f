// A session's page opened from a folder (`view <folder>`, `?list=`): links to the folder's list, the session's
// parent and its children, from the folder's report (the core's families).
import { h, fill } from "./dom.js";
import { fetchFolder, folderPage, pageLink, sessionName, sessionPage } from "./folder-links.js";

/** Fills `nav` (hidden until then) with the family links of the session `?file=` names; nothing without `?list=`. */
export async function showFamily(doc, nav) {
  const params = new URLSearchParams(doc.location.search);
  const folder = await fetchFolder(doc.location);
  if (!folder) return;
  const { report, list } = folder;
  const host = params.get("host");
  const file = new URL(params.get("file") ?? "", doc.location.href).pathname;
  const at = report.urls.findIndex((u) => new URL(u, doc.location.href).pathname === file);
  const s = report.sessions[at];
  if (!s) return;
  const link = (f, cls) => {
    const i = report.sessions.findIndex((x) => x.file === f);
    return pageLink(sessionPage(report.urls[i], list, host), { class: cls, title: f }, sessionName(report.sessions[i]));
  };
  const parts = [pageLink(folderPage(list, host), { class: "folder-link" }, "All sessions")];
  if (s.parent !== null) parts.push(h("span", null, "parent: ", link(s.parent, "parent-link")));
  else if (s.parentProblem) parts.push(h("span", { class: "dim" }, `parent: ${s.parentProblem}`));
  if (s.children.length) parts.push(h("span", null, "children: ", ...s.children.flatMap((c, i) => (i ? [", ", link(c, "child-link")] : [link(c, "child-link")]))));
  fill(nav, ...parts);
  nav.hidden = false;
}
