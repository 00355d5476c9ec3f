// Browser entry of the session viewer: initialises the same wasm build the package ships (load-web.js) and
// hands its API to the viewer. Served by `pi-tree-navigator view <file>`, or by any static server over the
// package directory (open /viewer/ and pick a file).
import * as api from "../load-web.js";
import { startViewer } from "./app.js";

try {
  await api.load();
  startViewer(document, api);
} catch (err) {
  document.documentElement.dataset.state = "error";
  document.getElementById("status").textContent = `Cannot start the viewer: ${err?.message ?? err}`;
}
