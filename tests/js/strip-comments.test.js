// scripts/strip-comments.mjs: the shipped shim and the generated .d.ts lose their whole-line comments and nothing else.
import { test } from "node:test";
import assert from "node:assert/strict";
import { stripComments } from "../../scripts/strip-comments.mjs";

test("whole-line comments go; code, trailing comments and comment-like text in literals stay", () => {
  // What must survive, in order: code with a trailing comment, a template and a string holding comment-like
  // lines, a regular expression with slashes, a block comment sharing its line with code.
  const kept = [
    "const a = 1; // trailing stays",
    "const t = `line one",
    "// not a comment: template text",
    "/* nor this */",
    "`;",
    'const s = "/* in a string */";',
    "const r = /\\/\\/ x/;",
    "/* a block */ const b = 2;",
  ];
  const comments = ["// a line comment", "/**", " * a block", " */"];
  const source = [...comments, kept[0], "  /* indented block */", ...kept.slice(1), ""].join("\n");
  assert.equal(stripComments(source, "x.js"), [...kept, ""].join("\n"));
});

test("declarations (.d.ts) lose their doc comments; a literal type that looks like one stays", () => {
  const kept = ["export interface A {", '    kind: "/** not a comment */" | "b";', "    n: number; // trailing stays", "}", "export function f(a: A): string;"];
  const source = ["/* tslint:disable */", "/**", " * A thing.", " */", kept[0], "    /**", "     * Its kind.", "     */", ...kept.slice(1), ""].join("\n");
  assert.equal(stripComments(source, "x.d.ts"), [...kept, ""].join("\n"));
});

test("every shipped shim file keeps its program (the build's own check, on js/)", async () => {
  const { readdirSync, readFileSync, statSync } = await import("node:fs");
  const { join } = await import("node:path");
  const dir = new URL("../../js/", import.meta.url).pathname;
  const files = [];
  const walk = (d) => readdirSync(d).forEach((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : n.endsWith(".js") && files.push(join(d, n))));
  walk(dir);
  assert.ok(files.length > 10, `${files.length} files`);
  let saved = 0;
  for (const f of files) {
    const text = readFileSync(f, "utf8");
    saved += text.length - stripComments(text, f).length;
  }
  assert.ok(saved > 10000, `only ${saved} bytes of comments found`);
});
