// Browser entry of the session viewer: initialises the same wasm build the package ships (load-web.js) and
// hands its API to the viewer. Served by `pi-tree-navigator view <file>`, or by any static server over the
// package directory (open /viewer/ and pick a file).
import * as api from "../load-web.js";
import { startViewer } from "./app.js";
// The session's fetch, started by early.js before this module graph and the wasm loaded.
import { session } from "./early.js";
try {
  await api.load();
  performance.mark("ptn:wasm-ready");
  startViewer(document, api, session);
  // Opened from a folder's list (`view <folder>`): links to the list, the parent and the children.
  import("./family.js").then(({ showFamily }) => showFamily(document, document.getElementById("family"))).catch(() => {});
} catch (err) {
  document.documentElement.dataset.state = "error";
  document.getElementById("status").textContent = `Cannot start the viewer: ${err?.message ?? err}`;
}
