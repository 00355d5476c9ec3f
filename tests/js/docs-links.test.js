// The documents a reader follows: README.md (also the npm package's page, so at most 20,000 characters), HACKING.md
// and docs/*.md. Every link into the repository must reach a file that exists, and a #fragment on a markdown file
// a heading of that file (GitHub's anchors). The npm page shows README.md without the repository around it, so a
// README link into the repository names its path in its text ("docs/tool.md"): the reader knows where to look.
// A link may also be absolute to the repository (Cargo.toml's `repository` + /blob|tree|raw/<ref>/<path>): it is
// checked as the local path.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const REPO = join(import.meta.dirname, "../..");
const README_CAP = 20_000;

/** The repository URL Cargo.toml names (wasm-pack copies it into the package), without a trailing slash. */
function repositoryUrl() {
  const m = readFileSync(join(REPO, "Cargo.toml"), "utf8").match(/^repository\s*=\s*"([^"]+)"/m);
  return m ? m[1].replace(/\/+$/, "") : null;
}

/** The lines outside fenced code blocks (blank inside them), and with `spans` inline code spans blanked too. */
function proseLines(markdown, { spans = true } = {}) {
  const out = [];
  let fence = null;
  for (const line of markdown.split("\n")) {
    const f = line.match(/^\s*(`{3,}|~{3,})/);
    if (fence) {
      if (f && f[1][0] === fence[0] && f[1].length >= fence.length) fence = null;
      out.push("");
      continue;
    }
    if (f) {
      fence = f[1];
      out.push("");
      continue;
    }
    out.push(spans ? line.replace(/(`+)[^`]*?\1/g, (m) => " ".repeat(m.length)) : line);
  }
  return out;
}

/** `[text](target)` and `![alt](target)` links outside code: `{ text, target, line }` (target without a "title"). */
export function linksOf(markdown) {
  const prose = proseLines(markdown).join("\n");
  const lineAt = (offset) => prose.slice(0, offset).split("\n").length;
  // A link's text may wrap onto the next line.
  return [...prose.matchAll(/!?\[((?:[^\]\\]|\\.)*)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => ({
    text: m[1].replace(/\s+/g, " "),
    target: m[2],
    line: lineAt(m.index),
  }));
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces → "-"; repeats get -1, -2, … */
export function anchorsOf(markdown) {
  const seen = new Map();
  const anchors = new Set();
  for (const line of proseLines(markdown, { spans: false })) {
    const h = line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/);
    if (!h) continue;
    const base = h[1]
      .replace(/<[^>]+>/g, "")
      .replace(/`/g, "")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

/**
 * The problems of `file`'s links (repository-relative path of a markdown file under `root`): each a string
 * naming the line. `repo`: the repository URL whose /blob|tree|raw/<ref>/ links are local paths.
 */
export function linkProblems(root, file, repo, { namePaths = false } = {}) {
  const text = readFileSync(join(root, file), "utf8");
  const problems = [];
  for (const { text: label, target, line } of linksOf(text)) {
    let path = target;
    if (repo && (target === repo || target.startsWith(`${repo}/`))) {
      const m = target.slice(repo.length).match(/^\/(?:blob|tree|raw)\/[^/]+\/([^#?]*)(#.*)?$/);
      if (!m) {
        problems.push(`${file}:${line}: ${target} is in the repository but names no file (…/blob/<ref>/<path>)`);
        continue;
      }
      path = "/" + m[1] + (m[2] ?? "");
    } else if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) {
      continue; // another site
    }
    const [pathPart, fragment] = path.split("#");
    const local = pathPart === "" ? join(root, file) : pathPart.startsWith("/") ? join(root, pathPart) : resolve(dirname(join(root, file)), pathPart);
    const shown = relative(root, local) || ".";
    if (relative(root, local).startsWith("..")) {
      problems.push(`${file}:${line}: ${target} leaves the repository`);
      continue;
    }
    if (!existsSync(local)) {
      problems.push(`${file}:${line}: ${target} → ${shown} does not exist`);
      continue;
    }
    if (namePaths && pathPart !== "" && !label.includes(shown)) {
      problems.push(`${file}:${line}: [${label}](${target}) does not name ${shown} in its text (on the npm page the reader needs the path)`);
    }
    if (fragment !== undefined && statSync(local).isFile() && local.endsWith(".md") && !anchorsOf(readFileSync(local, "utf8")).has(decodeURIComponent(fragment))) {
      problems.push(`${file}:${line}: ${target}: ${shown} has no heading with the anchor #${fragment}`);
    }
  }
  return problems;
}

const documents = () => [
  "README.md",
  "HACKING.md",
  ...readdirSync(join(REPO, "docs"))
    .filter((n) => n.endsWith(".md"))
    .sort()
    .map((n) => `docs/${n}`),
];

test("README.md is at most 20,000 characters", () => {
  const chars = [...readFileSync(join(REPO, "README.md"), "utf8")].length;
  assert.ok(chars <= README_CAP, `README.md has ${chars} characters (cap ${README_CAP}): move depth into docs/`);
});

test("every link of README.md, HACKING.md and docs/*.md into the repository resolves, #fragments to headings", () => {
  const repo = repositoryUrl();
  const files = documents();
  assert.ok(files.length > 10, `documents found: ${files.join(", ")}`);
  const checked = files.reduce((n, f) => n + linksOf(readFileSync(join(REPO, f), "utf8")).length, 0);
  assert.ok(checked > 50, `${checked} links found`);
  const problems = files.flatMap((f) => linkProblems(REPO, f, repo, { namePaths: f === "README.md" }));
  assert.deepEqual(problems, []);
});

test("every docs/… file the documents name in their text exists", () => {
  const problems = [];
  for (const f of documents()) {
    readFileSync(join(REPO, f), "utf8").split("\n").forEach((line, i) => {
      for (const m of line.matchAll(/(?<![\w/.-])docs\/[\w.-]+\.(?:md|png)\b/g)) {
        if (!existsSync(join(REPO, m[0]))) problems.push(`${f}:${i + 1}: ${m[0]} does not exist`);
      }
    });
  }
  assert.deepEqual(problems, []);
});

test("the checker finds a missing file, a missing heading, a link that hides its path and one that wraps; code is no link", async (t) => {
  const { mkdtempSync, mkdirSync, writeFileSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const root = mkdtempSync(join(tmpdir(), "ptn-links-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, "docs"));
  writeFileSync(join(root, "docs/a.md"), "# A page\n\n## Its part: `x` (y), z\n\n## Its part: `x` (y), z\n");
  writeFileSync(
    join(root, "README.md"),
    [
      "[docs/a.md](docs/a.md#its-part-x-y-z) [docs/a.md](docs/a.md#its-part-x-y-z-1) [docs/a.md](https://r.example/x/blob/main/docs/a.md#a-page)",
      "[docs/b.md](docs/b.md) [docs/a.md](docs/a.md#nope) [a page](docs/a.md) [docs/a.md](https://r.example/x/issues)",
      "`[docs/c.md](docs/c.md)` [elsewhere](https://example.org/c.md) [a link that",
      "wraps](docs/e.md)",
      "```",
      "[docs/d.md](docs/d.md)",
      "```",
    ].join("\n"),
  );
  assert.deepEqual(linkProblems(root, "README.md", "https://r.example/x", { namePaths: true }), [
    "README.md:2: docs/b.md → docs/b.md does not exist",
    "README.md:2: docs/a.md#nope: docs/a.md has no heading with the anchor #nope",
    "README.md:2: [a page](docs/a.md) does not name docs/a.md in its text (on the npm page the reader needs the path)",
    "README.md:2: https://r.example/x/issues is in the repository but names no file (…/blob/<ref>/<path>)",
    "README.md:3: docs/e.md → docs/e.md does not exist",
  ]);
});
