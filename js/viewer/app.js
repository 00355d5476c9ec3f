// The session viewer's controller: loads a session into the wasm core and wires the views together.
// It takes the wasm API as a parameter (main.js supplies the browser build), so nothing here imports wasm.
import { bytes, fill, h, int, textEl } from "./dom.js";
import { renderContext } from "./messages.js";
import { FILTERS, SessionModel } from "./model.js";
import { Timeline } from "./timeline.js";
import { TreeView } from "./tree.js";
import { fetchOk, fetchSession } from "./fetch.js";

const SEARCH_LIMIT = 10000;
const MAX_SHOWN_ERRORS = 50;
const WINDOWS = [0, 128000, 200000, 272000, 400000, 1000000];
/** The "Context as" choice that plots the money spent instead of the context. */
const COST_LENS = "cost";
/** How many bytes arrive between two updates of the loading progress. */
const PROGRESS_STEP = 4 << 20;

/**
 * Starts the viewer in `doc` (the page in index.html).
 * @param {Document} doc
 * @param {typeof import("../load-web.js")} api the wasm API, initialised
 * @param {ReturnType<typeof fetchSession>} [session] the `?file=` session's fetch, if started already
 */
export function startViewer(doc, api, session = fetchSession(doc.location)) {
  const $ = (id) => doc.getElementById(id);
  const root = doc.documentElement;
  const el = {
    fileName: $("file-name"), profile: $("profile"), fileInput: $("file-input"), search: $("search"), hits: $("hits"),
    hitPrev: $("hit-prev"), hitNext: $("hit-next"), filter: $("filter"), window: $("window"),
    stats: $("stats"), errors: $("errors"), tree: $("tree"), treeInfo: $("tree-info"), unfold: $("unfold-all"),
    fold: $("fold-abandoned"), timeline: $("timeline"), context: $("context"), contextHead: $("context-head"),
    expand: $("expand-all"), collapse: $("collapse-all"), status: $("status"), drop: $("drop"),
    showArchived: $("show-archived"),
  };

  for (const f of FILTERS) el.filter.append(h("option", { value: f }, f));
  for (const w of WINDOWS) el.window.append(h("option", { value: w }, w ? `% of ${api.formatWindow(w)}` : "tokens"));
  // The cost lens: the money spent along the path instead of the context (a session without prices has none).
  el.window.append(h("option", { value: COST_LENS, title: "USD spent up to each entry, as pi priced each request" }, "cumulative cost"));
  const params = new URLSearchParams(location.search);
  if (params.has("window") && WINDOWS.includes(Number(params.get("window")))) el.window.value = String(Number(params.get("window")));
  if (params.get("window") === COST_LENS) el.window.value = COST_LENS;
  // `?host=<pi version>` (the CLI's `view --host`): estimate with that pi's rules instead of inferring them.
  const hostVersion = params.get("host");

  let model = null;
  let filter = "default";
  let folds = new Set();
  let hits = { rows: [], set: new Set(), query: "" };
  let selected = -1;
  let pinned = -1; // a selected row the filter hides, shown anyway
  let contextTimer = 0;
  let contextView = null;
  const windowTokens = () => Number(el.window.value) || 0;
  const costLens = () => el.window.value === COST_LENS && model?.cost.priced === true;

  const setState = (state, message) => {
    root.dataset.state = state;
    el.status.textContent = message ?? "";
  };

  const tree = new TreeView(el.tree, {
    onSelect: (row) => select(row, { from: "tree" }),
    onToggle: (row) => toggleFold(row),
  });
  const timeline = new Timeline(el.timeline, {
    onPick: (row) => {
      if (model && row !== undefined) select(row, { scroll: true });
    },
    format: (value, win) => (costLens() ? api.formatUsd(value) : api.formatPct1(value, win)),
    saving: (saving) => savingText(saving),
  });

  /**
   * A rewind's or compaction's saving, for its marker (`saving`: the cost model's item): the tokens it took out
   * (in the plot's unit: tokens or % of the window), then the money.
   */
  function savingText(saving) {
    const tokens = saving.tokensRemoved === null ? "saving not known" : `saved ${api.formatPct1(saving.tokensRemoved, windowTokens())}`;
    if (!model.cost.priced) return `${tokens} · no prices recorded`;
    if (saving.usd === null) return `${tokens} · ${int(saving.requestsAfter)} requests after it`;
    return `${tokens} · at least ${api.formatUsd(saving.usd)} over ${int(saving.requestsAfter)} requests after it`;
  }

  /** The timeline's data: the context (or, in the cost lens, the money spent) at each entry of the active path. */
  function timelineData() {
    return { pathRows: model.pathRows, idOf: (row) => model.id(row), series: costLens() ? model.costs : model.series, markers: model.markers(), lens: costLens() ? "cost" : "context" };
  }

  // ---- loading --------------------------------------------------------------------------------------
  /**
   * Loads a session into a fresh core index and shows it. `source`: the file's bytes, or a stream of them (a
   * fetch's body, a dropped file's), which the core indexes while it arrives — reading and indexing a large
   * file overlap. `size`: the file's size when known (0: not known before the stream ends). `archived`: the ids
   * merged back from the session's archive (archived.js), shown greyed.
   */
  async function loadData(source, name, size, archived = null) {
    const streamed = !(source instanceof Uint8Array);
    setState("loading", `${streamed ? "Loading" : "Parsing"} ${name}${size ? ` (${bytes(size)})` : ""}…`);
    await nextFrame();
    performance.mark("ptn:parse-start");
    const index = api.SessionIndex.full();
    // The loops (`wasteView`) are read in the same one read of each line as the rest.
    index.collectLoops();
    const hostSet = hostVersion ? index.setHostVersion(hostVersion) : undefined;
    let report;
    try {
      if (streamed) ({ report, size } = await streamInto(index, source, name, size));
      else report = index.loadFileBytes(source);
    } catch (err) {
      index.free();
      showErrors([`${name}: ${err.message}`]);
      setState("error", `Could not load ${name}.`);
      return false;
    }
    performance.mark("ptn:indexed");
    model?.dispose();
    model = new SessionModel(index, size);
    model.archived = archived;
    el.showArchived.hidden = true;
    performance.mark("ptn:parsed");
    el.fileName.textContent = name;
    showProfile(index.profile());
    doc.title = `${name} · pi session viewer`;
    folds = model.defaultFolds();
    hits = { rows: [], set: new Set(), query: "" };
    selected = -1;
    pinned = -1;
    const problems = [];
    for (const s of report.skipped.slice(0, MAX_SHOWN_ERRORS)) problems.push(`line ${s.line}: ${s.reason}`);
    if (report.skipped.length > MAX_SHOWN_ERRORS) problems.push(`… ${int(report.skipped.length - MAX_SHOWN_ERRORS)} more malformed lines`);
    for (const w of report.warnings) problems.push(`warning: ${w}`);
    if (hostVersion && hostSet === undefined) problems.push(`warning: ?host=${hostVersion} is no pi version; the estimate profile was chosen without it`);
    showErrors(problems, report.skipped.length ? `${int(report.skipped.length)} malformed line${report.skipped.length === 1 ? "" : "s"} skipped (as pi skips them); the rest loaded.` : null);
    refreshTree();
    const leafRow = model.leafRow;
    const fromHash = decodeHash();
    const first = fromHash !== undefined ? fromHash : leafRow;
    // The tree goes on screen first; the context of the selection is drawn after that frame.
    if (first >= 0) select(first, { scroll: true, from: "load" });
    await nextFrame();
    performance.mark("ptn:tree");
    renderSelection();
    renderStats();
    // The cost lens only for a session with prices.
    el.window.querySelector(`option[value="${COST_LENS}"]`).disabled = !model.cost.priced;
    timeline.set(timelineData(), windowTokens());
    if (el.search.value.trim()) runSearch();
    const empty = model.count === 0;
    setState(empty ? "empty" : "ready", empty ? `${name}: no entries.` : "");
    performance.mark("ptn:ready");
    return true;
  }

  /**
   * Feeds a stream of the file's bytes into `index` as they arrive (the core holds only a line still
   * arriving), with the progress on the status line: the core's report for the whole file and its size.
   */
  async function streamInto(index, stream, name, size) {
    index.beginFile(size || undefined);
    const reader = stream.getReader();
    let received = 0;
    let shown = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      index.feedFile(value);
      received += value.byteLength;
      if (received - shown >= PROGRESS_STEP) {
        shown = received;
        el.status.textContent = `Loading ${name}: ${bytes(received)}${size ? ` of ${bytes(size)}` : ""}…`;
      }
    }
    performance.mark("ptn:fetched");
    return { report: index.endFile(), size: received };
  }

  /** Loads the session `fetchSession` started fetching. */
  async function loadUrl({ param, url, response }) {
    if (!url) {
      showErrors([`?file= must name a file on this server, got ${param}`]);
      setState("error", "Nothing loaded.");
      return;
    }
    const name = decodeURIComponent(url.pathname.split("/").pop() || "session.jsonl");
    setState("loading", `Fetching ${name}…`);
    let res;
    try {
      res = await response;
    } catch (err) {
      showErrors([`${name}: cannot fetch: ${err.message}`]);
      setState("error", "Nothing loaded.");
      return;
    }
    const size = Number(res.headers.get("content-length")) || 0;
    if (await loadData(res.body, name, size)) offerArchive(url, name);
  }

  /**
   * When the session at `url` has an archive next to it, a button that loads it (on demand) with the session
   * (fetched again: the first load streamed it into the core without keeping its bytes).
   */
  async function offerArchive(url, name) {
    const archiveUrl = new URL(`${url.pathname}.archive`, url);
    let res;
    try {
      res = await fetch(archiveUrl, { method: "HEAD", credentials: "same-origin", cache: "no-store" });
    } catch {
      return;
    }
    if (!res.ok) return;
    el.showArchived.textContent = `Show archived (${bytes(Number(res.headers.get("content-length")) || 0)})`;
    el.showArchived.hidden = false;
    el.showArchived.onclick = async () => {
      el.showArchived.hidden = true;
      setState("loading", `Fetching ${name}.archive…`);
      try {
        const bytesOf = async (u) => new Uint8Array(await (await fetchOk(u)).arrayBuffer());
        const [data, archive] = await Promise.all([bytesOf(url), bytesOf(archiveUrl)]);
        const { mergeArchive } = await import("./archived.js");
        const merged = await mergeArchive(data, archive);
        await loadData(merged.bytes, `${name} + archive`, merged.bytes.length, merged.archived);
      } catch (err) {
        showErrors([`${name}.archive: ${err.message}`]);
        setState("ready", "");
      }
    };
  }

  async function loadFile(file) {
    performance.mark("ptn:fetch-start");
    await loadData(file.stream(), file.name, file.size);
  }

  /** Which estimate profile the core used: its name and how it was chosen (the core's words). */
  function showProfile(p) {
    el.profile.textContent = `profile ${p.name} (${p.source === "set" ? `--host ${hostVersion}` : p.source})`;
    el.profile.dataset.profile = p.name;
    el.profile.dataset.source = p.source;
  }

  function showErrors(lines, headline) {
    if (!lines.length) {
      el.errors.hidden = true;
      el.errors.replaceChildren();
      return;
    }
    el.errors.hidden = false;
    el.errors.replaceChildren(
      h("strong", null, headline ?? "Problems while loading"),
      h("ul", null, ...lines.map((l) => textEl("li", null, l))),
    );
  }

  // ---- tree -----------------------------------------------------------------------------------------
  function refreshTree() {
    const vis = model.visible(filter, folds, pinned);
    tree.setRows(model, vis, folds);
    tree.setHits(hits.set, hits.query);
    el.treeInfo.textContent = `${int(vis.rows.length)} of ${int(model.count)} entries shown`;
    el.treeInfo.dataset.total = model.count;
    el.treeInfo.dataset.shown = vis.rows.length;
    el.filter.value = filter;
  }

  function toggleFold(row) {
    if (!model?.foldable[row]) return;
    if (folds.has(row)) folds.delete(row);
    else folds.add(row);
    refreshTree();
    if (selected >= 0 && tree.position(selected) < 0) select(row, { scroll: true });
  }

  /** Makes row `i` displayable: pins it when the filter hides it, unfolds what hides it. */
  function reveal(i) {
    const want = model.filtered(filter).includes(i) ? -1 : i;
    if (want !== pinned) {
      pinned = want;
      refreshTree();
    }
    if (tree.position(i) >= 0) return;
    for (const f of model.foldsAround(i, folds)) folds.delete(f);
    refreshTree();
  }

  function select(row, { scroll = false, from } = {}) {
    if (!model || row < 0 || row >= model.count) return;
    reveal(row);
    selected = row;
    const id = model.id(row);
    const pathRows = model.index.pathRows(id);
    tree.setSelected(row, new Set(pathRows));
    const pos = tree.position(row);
    if (scroll && pos >= 0) tree.scrollToPosition(pos);
    const onActive = model.pathPos[row];
    timeline.select(onActive, onActive < 0 ? { pathRows, series: costLens() ? model.index.pathCosts(id) : model.index.pathEstimates(id) } : null);
    history.replaceState(null, "", `#${encodeURIComponent(id)}`);
    clearTimeout(contextTimer);
    // Keyboard moves render the context once the key rests, so holding an arrow key stays fluid.
    // On load the caller draws it after the tree's first frame.
    if (from === "load") return;
    if (from !== "key") renderSelection();
    else contextTimer = setTimeout(renderSelection, 90);
  }

  function renderSelection() {
    if (!model || selected < 0) return;
    const leafId = model.id(selected);
    performance.mark("ptn:context-start");
    let est;
    try {
      est = model.index.estimate(leafId);
      contextView = renderContext(el.context, {
        index: model.index,
        leafId,
        query: hits.query,
        oneLine: (t) => api.toOneLine(t, 160) ?? "",
      });
    } catch (err) {
      contextView = null;
      el.contextHead.replaceChildren(h("span", { class: "ctx-title" }, "No context for ", textEl("code", null, leafId)));
      el.context.replaceChildren(textEl("p", { class: "errors" }, `${err.code ? `[${err.code}] ` : ""}${err.message}`));
      el.context.dataset.leaf = leafId;
      return;
    }
    const win = windowTokens();
    // `fill`, not `replaceChildren`: the model and thinking pills are null when nothing set them.
    fill(
      el.contextHead,
      h("span", { class: "ctx-title" }, "What the model saw with ", textEl("code", null, leafId), " as leaf"),
      h("span", { class: "pill", dataset: { messages: contextView.total } }, `${int(contextView.total)} messages`),
      h("span", { class: "pill tokens", dataset: { tokens: est.tokens }, title: est.lastUsageIndex === null ? "every message estimated" : `usage ${int(est.usageTokens)} from message #${est.lastUsageIndex} + ${int(est.trailingTokens)} estimated after it` },
        `${int(est.tokens)} tokens${win ? ` · ${api.formatPct1(est.tokens, win)} of ${api.formatWindow(win)}` : ""}`),
      contextView.model ? textEl("span", { class: "pill", title: "model in force at this entry" }, [contextView.model.provider, contextView.model.modelId].filter((x) => typeof x === "string").join("/")) : null,
      typeof contextView.thinkingLevel === "string" ? textEl("span", { class: "pill", title: "thinking level in force at this entry" }, `thinking ${contextView.thinkingLevel}`) : null,
      costPill(leafId),
    );
    el.context.dataset.leaf = leafId;
    el.context.scrollTop = el.context.scrollHeight;
    performance.mark("ptn:context");
  }

  function decodeHash() {
    if (!location.hash || location.hash.length < 2) return undefined;
    try {
      return model.rowOfId(decodeURIComponent(location.hash.slice(1)));
    } catch {
      return undefined;
    }
  }

  /** What the selected entry's request cost, as pi recorded it (null: it records no usage). */
  function costPill(id) {
    const c = model.index.entryCost(id, model.cost.priced);
    if (!c) return null;
    const tokens = `${int(c.input ?? 0)} in · ${int(c.cacheRead ?? 0)} cache read · ${int(c.cacheWrite ?? 0)} cache write · ${int(c.output ?? 0)} out`;
    const money = c.usd === null ? (model.cost.priced ? "cost unreadable" : "no prices recorded") : api.formatUsd(c.usd);
    return h("span", { class: "pill cost", dataset: { usd: c.usd ?? "" }, title: `this request's usage: ${tokens}` }, `request ${money}`);
  }

  // ---- stats ----------------------------------------------------------------------------------------
  function renderStats() {
    const s = model.stats();
    const win = windowTokens();
    const stat = (key, value, label, title) => h("span", { class: "stat", dataset: { stat: key }, title }, h("b", null, value), ` ${label}`);
    const w = model.waste();
    const loops = w.waste.loops;
    // Each loop (the core's line: its call, how often, its requests and money) selects the request it started with.
    const loopList = loops.length
      ? h("details", { class: "loops", dataset: { count: loops.length } }, h("summary", null, textEl("span", null, w.summary)), h("ol", null,
          loops.map((l, i) => h("li", null, textEl("button", { type: "button", class: "loop", dataset: { entry: l.requestIds[0] }, on: { click: () => selectId(l.requestIds[0]) } }, w.lines[i])))))
      : null;
    fill(
      el.stats,
      stat("entries", int(s.entries), "entries"),
      stat("branches", int(s.tips), s.tips === 1 ? "branch" : "branches", `${int(s.branchPoints)} branch points`),
      stat("abandoned", `${(s.abandonedShare * 100).toFixed(1)}%`, "abandoned", "share of entries off the active path"),
      stat("labels", int(s.labels), `labels (${int(s.anchors)} anchors)`),
      stat("size", bytes(s.fileBytes), "file"),
      stat("estimate", win ? api.formatPct1(s.estimate.tokens, win) : int(s.estimate.tokens), win ? `of ${api.formatWindow(win)} at the leaf` : "tokens at the leaf"),
      ...costStats(stat),
      stat("loops", int(loops.length), loops.length === 1 ? "loop" : "loops", w.summary),
      loopList,
    );
  }

  /** The money chips: spent, of it on abandoned branches, cache misses, saved by rewinds and by compactions. */
  function costStats(stat) {
    const c = model.cost;
    const usd = (x) => api.formatUsd(x);
    if (!c.priced) return [stat("spent", "no prices", "recorded", `${int(c.messages.requests)} requests, none priced (a subscription, a local model)`)];
    const saved = (key, block, what) =>
      block.items.length ? [stat(key, block.usd === null ? "?" : block.usd < 0.005 ? usd(block.usd) : `≥${usd(block.usd)}`, `saved by ${what}`, `${block.items.length} on the active path; at least what each took out, at the cache-read price of every request after it, less its summary's cost`)] : [];
    return [
      stat("spent", usd(c.total.usd), "spent", `${int(c.messages.requests)} requests; every usage pi recorded, every branch${c.unpriced ? ` (${c.unpriced} unreadable, left out)` : ""}`),
      stat("abandoned-cost", usd(c.abandoned.usd), "on abandoned branches", "spent off the active path"),
      stat("cache-misses", int(c.cacheMisses.count), `${c.cacheMisses.count === 1 ? "cache miss" : "cache misses"} (${usd(c.cacheMisses.usd)})`, `${int(c.cacheMisses.tokens)} prompt tokens billed again (pi's rule)`),
      ...saved("saved-rewinds", c.savings.rewinds, "rewinds"),
      ...saved("saved-compactions", c.savings.compactions, "compactions"),
    ];
  }

  /** Selects the entry `id` (when it is a row) and scrolls to it. */
  function selectId(id) {
    const row = model?.rowOfId(id);
    if (row !== undefined && row !== null) select(row, { scroll: true });
  }

  // ---- search ---------------------------------------------------------------------------------------
  function runSearch() {
    if (!model) return;
    const q = el.search.value;
    if (!q.trim()) {
      hits = { rows: [], set: new Set(), query: "" };
      el.hits.textContent = "";
    } else {
      const ids = model.index.search(q, SEARCH_LIMIT);
      const rows = [...new Set(ids.map((id) => model.rowOfId(id)).filter((r) => r !== undefined))].sort((a, b) => a - b);
      hits = { rows, set: new Set(rows), query: q };
      el.hits.textContent = rows.length ? `${int(rows.length)}${ids.length >= SEARCH_LIMIT ? "+" : ""} hit${rows.length === 1 ? "" : "s"}` : "no hits";
    }
    el.hits.dataset.count = hits.rows.length;
    tree.setHits(hits.set, hits.query);
    if (selected >= 0) renderSelection();
  }

  function jumpHit(dir) {
    if (!hits.rows.length) return;
    const cur = selected;
    let next = dir > 0 ? hits.rows.find((r) => r > cur) : hits.rows.findLast((r) => r < cur);
    if (next === undefined) next = dir > 0 ? hits.rows[0] : hits.rows[hits.rows.length - 1];
    select(next, { scroll: true });
  }

  let searchTimer = 0;
  el.search.addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(runSearch, 250);
  });
  el.search.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") {
      ev.preventDefault();
      clearTimeout(searchTimer);
      if (hits.query !== el.search.value) runSearch();
      jumpHit(ev.shiftKey ? -1 : 1);
    } else if (ev.key === "Escape") {
      el.search.value = "";
      runSearch();
      el.tree.focus();
    }
  });
  el.hitNext.addEventListener("click", () => jumpHit(1));
  el.hitPrev.addEventListener("click", () => jumpHit(-1));

  // ---- controls -------------------------------------------------------------------------------------
  el.filter.addEventListener("change", () => {
    filter = el.filter.value;
    if (!model) return;
    pinned = selected >= 0 && !model.filtered(filter).includes(selected) ? selected : -1;
    refreshTree();
    if (selected >= 0 && tree.position(selected) >= 0) tree.scrollToPosition(tree.position(selected));
  });
  el.window.addEventListener("change", () => {
    if (!model) return;
    timeline.set(timelineData(), windowTokens());
    renderStats();
    renderSelection();
  });
  el.unfold.addEventListener("click", () => {
    if (!model) return;
    folds = new Set();
    refreshTree();
  });
  el.fold.addEventListener("click", () => {
    if (!model) return;
    folds = model.defaultFolds();
    refreshTree();
    if (selected >= 0 && tree.position(selected) < 0) reveal(selected);
  });
  el.expand.addEventListener("click", () => {
    contextView?.showAll();
    for (const d of el.context.querySelectorAll("details")) d.open = true;
  });
  el.collapse.addEventListener("click", () => {
    for (const d of el.context.querySelectorAll("details")) d.open = false;
  });
  el.context.addEventListener("click", (ev) => {
    const link = ev.target.closest?.(".entry-link");
    const row = link && model?.rowOfId(link.dataset.entry);
    if (row !== undefined && row !== null) select(row, { scroll: true });
  });
  el.fileInput.addEventListener("change", () => {
    const f = el.fileInput.files?.[0];
    if (f) loadFile(f);
  });

  // Keyboard: in the tree, arrows/j/k move, ←/→ fold and unfold (or go to parent / next), Home/End, PageUp/Down,
  // Enter toggles a fold. Anywhere: "/" focuses the search, n/N go to the next/previous hit.
  el.tree.addEventListener("keydown", (ev) => {
    if (!model || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const vis = tree.visible;
    const pos = tree.position(selected);
    const go = (p) => {
      if (!vis.length) return;
      select(vis[Math.max(0, Math.min(vis.length - 1, p))], { scroll: true, from: "key" });
    };
    const foldRow = selected >= 0 ? tree.handleOf.get(selected) ?? selected : -1;
    switch (ev.key) {
      case "ArrowDown": case "j": go(pos < 0 ? 0 : pos + 1); break;
      case "ArrowUp": case "k": go(pos < 0 ? 0 : pos - 1); break;
      case "PageDown": go(pos + tree.pageSize()); break;
      case "PageUp": go(pos - tree.pageSize()); break;
      case "Home": go(0); break;
      case "End": go(vis.length - 1); break;
      case "ArrowLeft": case "h":
        if (foldRow >= 0 && model.foldable[foldRow] && !folds.has(foldRow)) toggleFold(foldRow);
        else if (selected >= 0) {
          // nearest displayed ancestor
          for (let r = model.parent[selected]; r >= 0; r = model.parent[r]) {
            if (tree.position(r) >= 0) {
              select(r, { scroll: true, from: "key" });
              break;
            }
          }
        }
        break;
      case "ArrowRight": case "l":
        if (foldRow >= 0 && folds.has(foldRow)) toggleFold(foldRow);
        else go(pos + 1);
        break;
      case "Enter": case " ":
        if (foldRow >= 0) toggleFold(foldRow);
        break;
      default:
        return;
    }
    ev.preventDefault();
  });
  doc.addEventListener("keydown", (ev) => {
    const typing = ev.target instanceof HTMLInputElement || ev.target instanceof HTMLSelectElement;
    if (typing || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (ev.key === "/") {
      ev.preventDefault();
      el.search.focus();
      el.search.select();
    } else if (ev.key === "n" || ev.key === "N") {
      jumpHit(ev.key === "n" ? 1 : -1);
    }
  });

  // Drag and drop anywhere on the page.
  let dragDepth = 0;
  doc.addEventListener("dragenter", (ev) => {
    ev.preventDefault();
    dragDepth++;
    el.drop.hidden = false;
  });
  doc.addEventListener("dragleave", () => {
    if (--dragDepth <= 0) el.drop.hidden = true;
  });
  doc.addEventListener("dragover", (ev) => ev.preventDefault());
  doc.addEventListener("drop", (ev) => {
    ev.preventDefault();
    dragDepth = 0;
    el.drop.hidden = true;
    const f = ev.dataTransfer?.files?.[0];
    if (f) loadFile(f);
  });

  if (session) loadUrl(session);
  else setState("idle", "Open a pi session file (.jsonl) or drop it here.");
  return { loadData };
}

const nextFrame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
