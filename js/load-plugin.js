// Node / Bun loader of the plugin's own wasm (the crate built without the viewer/CLI exports): what the pi
// extension runs on. Synchronous init from the bytes next to this file, like load-node.js.
import { readFileSync } from "node:fs";
import { initSync } from "./pi_tree_navigator_plugin.js";

initSync({ module: readFileSync(new URL("./pi_tree_navigator_plugin_bg.wasm", import.meta.url)) });

export * from "./pi_tree_navigator_plugin.js";
