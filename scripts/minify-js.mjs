// The shipped JavaScript, minified by terser: no comments, no layout, variables renamed — but every function
// and class keeps its name (stack traces still name them, `.name` reads the same), exports keep theirs. terser's
// compressor rewrites the code only where no literal moves: constants are not folded or inlined (`evaluate`,
// `reduce_vars`, `collapse_vars`, `inline` off; with them on, texts are joined and copied, which the check below
// refuses), the rest of its safe defaults on (−0.5 kB packed). 11.1 kB of the packed package before (issue 38's
// cap): the repo's js/ is the source to read and debug; pkg/ is an artifact. The build stops unless the result
// exports the same names and holds the same string and template texts as the input.
import ts from "typescript";
import { minify } from "terser";

/** terser's options for every shipped .js (the wasm-bindgen glue included); a module's top-level variables are renamed too. */
export const MINIFY_OPTIONS = Object.freeze({
  module: true,
  compress: { keep_fnames: true, keep_classnames: true, evaluate: false, reduce_vars: false, collapse_vars: false, inline: false },
  mangle: { keep_classnames: true, keep_fnames: true },
  format: { comments: false },
});

/** What minifying must keep of a module: its export names, and the text of every string and template. */
function surface(source, fileName) {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const exports = [];
  const texts = [];
  for (const node of file.statements) {
    const exported = ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (exported && ts.isVariableStatement(node)) for (const d of node.declarationList.declarations) exports.push(d.name.getText(file));
    else if (exported && node.name) exports.push(node.name.text);
    else if (ts.isExportDeclaration(node) && node.exportClause && ts.isNamedExports(node.exportClause)) {
      for (const e of node.exportClause.elements) exports.push(e.name.text);
    } else if (ts.isExportAssignment(node)) exports.push("default");
  }
  const visit = (node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node)) texts.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { exports: exports.sort(), texts };
}

const counts = (xs) => xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map());

/** Throws unless `code`, the minified `source`, exports the same names and holds the same literal texts. */
export function checkMinified(source, code, fileName) {
  const before = surface(source, fileName);
  const after = surface(code, fileName);
  if (before.exports.join() !== after.exports.join()) {
    throw new Error(`${fileName}: minifying changed its exports (${before.exports} → ${after.exports})`);
  }
  const had = counts(before.texts);
  const has = counts(after.texts);
  for (const [text, n] of has) {
    if ((had.get(text) ?? 0) < n) throw new Error(`${fileName}: minifying made up the literal ${JSON.stringify(text)}`);
  }
  // A quoted property key may come out bare (`{"a": 1}` → `{a:1}`); any other literal must stay.
  for (const [text, n] of had) {
    if ((has.get(text) ?? 0) < n && !/^[A-Za-z_$][\w$]*$/.test(text)) {
      throw new Error(`${fileName}: minifying lost the literal ${JSON.stringify(text)}`);
    }
  }
}

/** `source` (a module named `fileName`) minified; throws when [`checkMinified`] finds a difference. */
export async function minifyJs(source, fileName) {
  const { code } = await minify({ [fileName]: source }, MINIFY_OPTIONS);
  checkMinified(source, code, fileName);
  return code;
}
