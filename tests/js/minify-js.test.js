// scripts/minify-js.mjs: the shipped .js is minified with every function, class and export keeping its name and
// every string and template text as it was; the build's check refuses a result that lost or changed one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { checkMinified, minifyJs } from "../../scripts/minify-js.mjs";

const SOURCE = `#!/usr/bin/env node
// a comment that goes
import { readFileSync as readText } from "node:fs";
/** Doc that goes. */
export function greet(personName) {
  const greeting = \`hello \${personName} // not a comment\`;
  return greeting + " /* nor this */";
}
export class Greeter {
  constructor(defaultName) {
    this.defaultName = defaultName;
  }
  run() {
    return greet(this.defaultName);
  }
}
const helper = { "quoted-key": 1, plain: 2 };
export { helper as table, readText };
`;

test("names, literals and the shebang stay; comments and layout go", async () => {
  const out = await minifyJs(SOURCE, "x.js");
  assert.ok(out.startsWith("#!/usr/bin/env node\n"), out);
  assert.ok(out.length < SOURCE.length * 0.8, out);
  assert.doesNotMatch(out, /a comment that goes|Doc that goes/);
  for (const kept of ["function greet(", "class Greeter", "hello ", " // not a comment", " /* nor this */", '"quoted-key"', "as table", "readText"]) {
    assert.ok(out.includes(kept), `${kept} in ${out}`);
  }
  const url = `data:text/javascript,${encodeURIComponent(out.replace(/^#!.*\n/, ""))}`;
  const m = await import(url);
  assert.equal(m.greet("ann"), "hello ann // not a comment /* nor this */");
  assert.equal(new m.Greeter("bo").run(), "hello bo // not a comment /* nor this */");
  assert.equal(m.Greeter.name, "Greeter");
  assert.equal(m.greet.name, "greet");
  assert.deepEqual(m.table, { "quoted-key": 1, plain: 2 });
});

test("the check refuses a result with another export or literal", () => {
  const good = 'export function f(){return"a b"}export const g=1;';
  const source = 'export function f() { return "a b"; }\nexport const g = 1;\n';
  checkMinified(source, good, "x.js");
  assert.throws(() => checkMinified(source, 'export function f(){return"a b"}const g=1;', "x.js"), /changed its exports/);
  assert.throws(() => checkMinified(source, 'export function f(){return"a c"}export const g=1;', "x.js"), /made up the literal "a c"/);
  assert.throws(() => checkMinified(source, 'export function f(){return"x"+"y"}export const g=1;', "x.js"), /made up|lost/);
});

test("every shim file minifies and passes the build's check", async () => {
  const dir = new URL("../../js/", import.meta.url).pathname;
  const files = [];
  const walk = (d) => readdirSync(d).forEach((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : n.endsWith(".js") && !n.includes(".test.") && files.push(join(d, n))));
  walk(dir);
  assert.ok(files.length > 10, `${files.length} files`);
  let before = 0;
  let after = 0;
  for (const f of files) {
    const text = readFileSync(f, "utf8");
    before += text.length;
    after += (await minifyJs(text, f)).length;
  }
  assert.ok(after < before * 0.6, `${before} → ${after} bytes`);
});
