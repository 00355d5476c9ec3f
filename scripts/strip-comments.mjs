// The generated TypeScript declarations without their whole-line comments: their doc comments, copied from
// the core's `///` docs, were ~14 kB of the packed package (issue 38); src/ and HACKING.md are where those docs
// are read. (It served the shipped .js too until that was minified: scripts/minify-js.mjs.) Only
// comments that fill their lines are removed (`// …` lines and `/* … */` blocks), never one inside a string,
// template or regular expression literal — and the result must print to the same program as the input
// (TypeScript's printer, comments off), or the build stops.
import ts from "typescript";

/** `source` without its whole-line comments; throws when that would change the program. */
export function stripComments(source, fileName) {
  const kind = /\.[cm]?ts$/.test(fileName) ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const parse = (text) => ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const original = parse(source);
  // Where literals are: a comment-like line inside one is text, not a comment.
  const literals = [];
  const visit = (node) => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateExpression(node) || ts.isRegularExpressionLiteral(node) || ts.isJsxText?.(node)) {
      literals.push([node.getStart(original), node.end]);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(original);
  const inLiteral = (from, to) => literals.some(([a, b]) => from < b && to > a);
  // A `/* … */` block ends at its first `*/`; either kind must be all that is on its lines.
  const comment = /^[ \t]*(?:\/\/[^\n]*|\/\*(?:[^*]|\*(?!\/))*\*\/[ \t]*)\n/gm;
  const stripped = source.replace(comment, (match, at) => (inLiteral(at, at + match.length) ? match : ""));
  const print = (file) => ts.createPrinter({ removeComments: true }).printFile(file);
  if (print(parse(stripped)) !== print(original)) throw new Error(`${fileName}: removing its comments would change the program`);
  return stripped;
}
