// Starts the `?file=` session's fetch as soon as the page is parsed (index.html loads this module `async`,
// ahead of main.js's graph): its bytes then arrive while the viewer's modules and the wasm load. main.js
// imports the same module instance and hands the fetch to the viewer.
import { fetchSession } from "./fetch.js";

export const session = fetchSession(location);
