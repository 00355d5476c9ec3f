#!/usr/bin/env node
// `npm run demo [-- --host <version>] [-- --long] [-- --out <dir>]`: installs what the demo runs, builds, runs it.
// The host is the newest tested pi (js/tested-hosts.js) unless `--host` names another tested one; only that host
// is installed (scripts/setup-hosts.sh with PI_VERSIONS / PI_BUNDLE_VERSIONS narrowed to it), no Bun, no Chromium.
// `--plan` prints the steps instead of running them.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { NEWEST_TESTED, TESTED_HOSTS } from "../js/tested-hosts.js";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The demo's steps for the command-line `argv`: `{version, steps: [{what, command, args, env}]}`. The chosen
 * host's entry decides which install list it goes in; the other list is " " (setup-hosts.sh reads an empty
 * one as "all"). Throws an Error with a usage message for an unknown or missing version.
 */
export function demoPlan(argv) {
  let version = NEWEST_TESTED;
  const rest = [];
  let plan = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--host" || arg.startsWith("--host=")) {
      const value = arg === "--host" ? argv[++i] : arg.slice("--host=".length);
      if (!value) throw new Error("--host needs a pi version");
      version = value.replace(/^v/, "");
    } else if (arg === "--plan") {
      plan = true;
    } else {
      rest.push(arg);
    }
  }
  const host = TESTED_HOSTS.find((h) => h.version === version);
  if (!host) throw new Error(`pi ${version} is not a tested version; --host takes one of ${TESTED_HOSTS.map((h) => h.version).join(", ")}`);
  const only = (kind) => (host.install === kind ? version : " ");
  const steps = [
    { what: "toolchain (no Bun, no Chromium)", command: "bash", args: ["scripts/setup.sh"], env: { WITH_BUN: "0", WITH_BROWSER: "0" } },
    // Node 22 only for a host that runs on it (js/tested-hosts.js `node`).
    { what: `pi ${version} and its Node`, command: "bash", args: ["scripts/setup-hosts.sh"], env: { PI_VERSIONS: only("npm"), PI_BUNDLE_VERSIONS: only("bundle"), WITH_NODE22: host.node === 22 ? "1" : "0" } },
    { what: "the package (pkg/)", command: "node", args: ["scripts/build.mjs"], env: {} },
    { what: "the demo", command: "node", args: ["tests/e2e/demo.mjs", "--host", version, ...rest], env: {} },
  ];
  return { version, plan, steps };
}

function main() {
  let plan;
  try {
    plan = demoPlan(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`demo: ${err.message}\n`);
    return 2;
  }
  for (const step of plan.steps) {
    const env = Object.entries(step.env).map(([k, v]) => `${k}='${v}' `).join("");
    if (plan.plan) {
      process.stdout.write(`${env}${step.command} ${step.args.join(" ")}\n`);
      continue;
    }
    process.stderr.write(`[demo] ${step.what}: ${env}${step.command} ${step.args.join(" ")}\n`);
    // `node` is the Node running this script; the demo re-runs itself under the Node its pi needs.
    const command = step.command === "node" ? process.execPath : step.command;
    const r = spawnSync(command, step.args, { cwd: REPO, stdio: "inherit", env: { ...process.env, ...step.env } });
    if (r.status !== 0) return r.status ?? 1;
  }
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main();
