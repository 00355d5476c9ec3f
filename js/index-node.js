// Package entry for Node and Bun ("node", "bun", "default" in the exports map).
export * from "./load-node.js";
