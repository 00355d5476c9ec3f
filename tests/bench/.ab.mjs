// scratch: interleaved A/B of builds: node .ab.mjs runs pkgA,pkgB,...
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { generateBase, withAnchors } from "./gen.mjs";
import { node22Path } from "../../scripts/hosts.mjs";
const [runs, list] = process.argv.slice(2);
const pkgs = list.split(",");
const file = "/tmp/sb/s20k.jsonl";
const base = generateBase(20000);
const s = withAnchors(base, 100);
writeFileSync(file, typeof s === "string" ? s : s.text ?? s.jsonl ?? s);
const res = Object.fromEntries(pkgs.map((p) => [p, []]));
for (let r = 0; r < Number(runs); r++) for (const p of pkgs) res[p].push(JSON.parse(execFileSync(node22Path(), [new URL("./.ab-child.mjs", import.meta.url).pathname, p, file], { encoding: "utf8" })));
const med = (xs) => { const a = [...xs].sort((x, y) => x - y); return a[a.length >> 1]; };
for (const p of pkgs) { const keys = Object.keys(res[p][0]); console.log(p.padEnd(16), keys.map((k) => `${k} ${med(res[p].map((o) => o[k])).toFixed(1)}`).join("  ")); }
