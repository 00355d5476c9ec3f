// Reads the two `tree-navigator.json` layers and hands them to the core, which parses, validates and
// merges them (see src/config.rs). Only file reading happens here.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as piPackage from "@earendil-works/pi-coding-agent";

export const CONFIG_FILE = "tree-navigator.json";

/** What one layer holds: `{state: "missing"}`, `{state: "unreadable", path, error}` or `{state: "text", path, text}`. */
export function readLayer(path) {
  if (!path) return { state: "missing" };
  try {
    return { state: "text", path, text: readFileSync(path, "utf8") };
  } catch (e) {
    if (e?.code === "ENOENT" || e?.code === "ENOTDIR") return { state: "missing" };
    return { state: "unreadable", path, error: e instanceof Error ? e.message : String(e) };
  }
}

/** pi's agent dir (honours PI_CODING_AGENT_DIR), or undefined when this pi does not say. */
export function agentDir(pkg = piPackage) {
  try {
    return typeof pkg.getAgentDir === "function" ? pkg.getAgentDir() : process.env.PI_CODING_AGENT_DIR;
  } catch {
    return undefined;
  }
}

/**
 * Whether the project layer may be read. pi ≥1.x asks `ctx.isProjectTrusted()`; older pi has no trust
 * gate (it loads `.pi/` extensions and settings unconditionally), so the project counts as trusted there.
 */
function projectTrusted(ctx) {
  try {
    return typeof ctx?.isProjectTrusted === "function" ? ctx.isProjectTrusted() === true : true;
  } catch {
    return false;
  }
}

/** `{config, warnings}` for the session `ctx` belongs to (the core's `loadConfig`). */
export function loadConfig(core, ctx, { pkg } = {}) {
  const dir = agentDir(pkg);
  const global = readLayer(dir ? join(dir, CONFIG_FILE) : undefined);
  const cwd = ctx?.cwd ?? process.cwd();
  const project = projectTrusted(ctx) ? readLayer(join(cwd, ".pi", CONFIG_FILE)) : { state: "missing" };
  return core.loadConfig(global, project);
}
