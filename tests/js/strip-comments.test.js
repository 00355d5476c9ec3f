// scripts/strip-comments.mjs: the generated .d.ts loses its whole-line comments and nothing else (the shipped
// .js is minified instead: minify-js.test.js).
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
