// Public types of the package entry (both the Node/Bun and the browser entry).
export * from "./pi_tree_navigator.js";
/** Resolves once the wasm module is instantiated. The Node/Bun entry is ready on import; the browser entry awaits it. */
export declare const ready: Promise<void>;
