// The folder page of `pi-tree-navigator view <folder>`: every session with the columns `stats <folder>` prints
// (start, first message, entries, size, cost, saved, with children, parent), children under their parents, each
// session opened in the viewer from its row, and the files left out with their reasons. The numbers are the core's
// (the report is `stats <folder> --json`); money is written by the core's `formatUsd`.
import * as api from "../load-web.js";
import { bytes, fill, h, int } from "./dom.js";
import { fetchFolder, pageLink, sessionName, sessionPage } from "./folder-links.js";

const $ = (id) => document.getElementById(id);
const root = document.documentElement;
try {
  await api.load();
  const folder = await fetchFolder(location);
  if (!folder) throw new Error("no folder: open the URL `pi-tree-navigator view <folder>` printed");
  const { report, list } = folder;
  const host = new URLSearchParams(location.search).get("host");
  const money = (usd) => (usd === null ? "—" : api.formatUsd(usd));
  const t = report.totals;
  $("folder-name").textContent = report.root ?? "";
  fill(
    $("folder-totals"),
    h("span", null, h("b", null, int(t.sessions)), " sessions"),
    h("span", null, h("b", null, bytes(t.bytes)), ", ", h("b", null, int(t.entries)), " entries"),
    h("span", null, "cost ", h("b", null, t.usd === null ? "no prices recorded" : money(t.usd)), ` (${int(t.requests)} requests)`),
    t.saved === null ? "" : h("span", null, "saved at least ", h("b", null, money(t.saved))),
    t.skipped ? h("span", null, h("b", null, int(t.skipped)), " files skipped") : "",
  );
  const byFile = new Map(report.sessions.map((s, i) => [s.file, i]));
  const rowOf = (s, i, depth) => {
    const parent = s.parent !== null ? report.sessions[byFile.get(s.parent)] : null;
    const parentCell = parent
      ? pageLink(sessionPage(report.urls[byFile.get(s.parent)], list, host), { class: "parent-link", title: s.parent }, sessionName(parent))
      : s.parentProblem ?? (s.parentSession ? "?" : "—");
    const family = s.withChildren.sessions > 1 ? `${money(s.withChildren.usd)} (${s.withChildren.sessions})` : "";
    return h(
      "tr",
      { "data-file": s.file, "data-depth": String(depth) },
      h("td", { class: "start" }, `${"  ".repeat(depth)}${depth ? "└ " : ""}${(s.start ?? "—").slice(0, 16).replace("T", " ")}`),
      h("td", { class: "first" }, pageLink(sessionPage(report.urls[i], list, host), { class: "session-link", title: s.file }, sessionName(s))),
      h("td", { class: "num" }, int(s.entries)),
      h("td", { class: "num" }, bytes(s.bytes)),
      h("td", { class: "num cost" }, money(s.cost.total.usd)),
      h("td", { class: "num" }, money(s.saved.usd)),
      h("td", { class: "num family" }, family),
      h("td", { class: "parent" }, parentCell),
    );
  };
  // Roots (and sessions whose parent is not followed) in the folder's order, each followed by its children.
  const rows = [];
  const stack = report.sessions.map((s, i) => [i, 0]).filter(([i]) => report.sessions[i].parent === null).reverse();
  while (stack.length) {
    const [i, depth] = stack.pop();
    const s = report.sessions[i];
    rows.push(rowOf(s, i, depth));
    for (const c of [...s.children].reverse()) stack.push([byFile.get(c), depth + 1]);
  }
  fill(document.querySelector("#sessions tbody"), ...rows);
  if (report.skipped.length) {
    $("skipped").hidden = false;
    fill($("skipped").querySelector("ul"), ...report.skipped.map((k) => h("li", { "data-file": k.file }, `${k.file}: ${k.reason}`)));
  }
  root.dataset.state = "ready";
} catch (err) {
  root.dataset.state = "error";
  $("status").textContent = `Cannot show the folder: ${err?.message ?? err}`;
}
