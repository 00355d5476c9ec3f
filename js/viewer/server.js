// The local server behind `pi-tree-navigator view <file>` (Node only; never served itself). It listens on
// 127.0.0.1 only and serves exactly: the viewer's files, the wasm loader and module of this package, and the
// one session file. Every response carries the viewer's Content-Security-Policy; the page can reach nothing but
// this server.
//
// A session holds code, tool output and secrets, and any local process or user can reach a port on 127.0.0.1:
// as notebook servers do, every URL starts with a random token (`/<token>/viewer/…`) and a request without it
// is refused (403). The token is a path prefix rather than a cookie: the page's relative URLs (its assets, the
// module imports, the wasm next to `load-web.js`) and the `?file=` path carry it with no change to the page,
// and it stays with this one server; a cookie for 127.0.0.1 would be sent to every port on the host and be
// overwritten by a second viewer. `Referrer-Policy: no-referrer` keeps it out of Referer headers.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createReadStream, existsSync, readdirSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { basename, extname, join } from "node:path";

/** The page's CSP (also in index.html as a meta tag; frame-ancestors only works as a header). */
export const CSP = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join("; ");

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".gz": "application/gzip", // the wasm module, which load-web.js unzips (js/wasm-bytes.js)
  ".jsonl": "application/x-ndjson; charset=utf-8",
};
const HEADERS = {
  "Content-Security-Policy": CSP,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Cache-Control": "no-store",
};
/** Package files the page needs besides viewer/: the browser loader, the wasm-bindgen glue and the module. */
const PACKAGE_FILES = ["load-web.js", "pi_tree_navigator.js", "pi_tree_navigator_bg.wasm.gz"];
const NOT_SERVED = new Set(["server.js"]);

/** A fresh token: 32 random bytes from the OS's CSPRNG, base64url (43 URL-safe characters). */
export const newToken = () => randomBytes(32).toString("base64url");

/**
 * Starts the server. Resolves to `{ server, url }` once listening; `url` opens the viewer on the file and carries
 * the token every request needs. `hostVersion` (a pi version, the CLI's `--host`) goes into the page's URL: the
 * viewer then estimates with that pi's rules instead of inferring them from the session.
 * `folder` (`view <folder>`: `{ root, report }`, the core's `stats <folder> --json` report) serves the folder's
 * list page instead, its report at `/folder.json` and each of its sessions (only those) at `/session/<n>/<name>`.
 * @param {{pkgDir: string, file?: string, folder?: {root: string, report: object}, port?: number, host?: string, hostVersion?: string}} options
 */
export function serveViewer({ pkgDir, file, folder, port = 0, host = "127.0.0.1", hostVersion }) {
  const prefix = `/${newToken()}`;
  const prefixBytes = Buffer.from(prefix);
  /** The request target after the token (`/viewer/…`, `?…` or ``), or null when it does not start with it. */
  const afterToken = (target) => {
    const raw = Buffer.from(target);
    // Compared in constant time: how long a refusal takes says nothing about how much of the token was right.
    if (raw.length < prefixBytes.length || !timingSafeEqual(raw.subarray(0, prefixBytes.length), prefixBytes)) return null;
    const rest = raw.subarray(prefixBytes.length).toString();
    return rest === "" || rest[0] === "/" || rest[0] === "?" ? rest : null;
  };
  const routes = new Map();
  const viewerDir = join(pkgDir, "viewer");
  for (const name of readdirSync(viewerDir)) {
    if (!NOT_SERVED.has(name) && TYPES[extname(name)]) routes.set(`/viewer/${name}`, join(viewerDir, name));
  }
  routes.set("/viewer/", join(viewerDir, "index.html"));
  for (const name of PACKAGE_FILES) routes.set(`/${name}`, join(pkgDir, name));
  const hostParam = hostVersion ? `&host=${encodeURIComponent(hostVersion)}` : "";
  // The session files served, by path: the one file, or every session of the folder (by position: two sessions
  // of a folder may share a name).
  const files = folder ? folder.report.sessions.map((s) => s.file) : [file];
  const sessionPaths = files.map((f, i) => `/session/${folder ? `${i}/` : ""}${encodeURIComponent(basename(f))}`);
  const sessions = new Map(sessionPaths.flatMap((p, i) => [[p, files[i]], [`${p}.archive`, `${files[i]}.archive`]]));
  const listPath = "/folder.json";
  const list = folder && Buffer.from(JSON.stringify({ ...folder.report, root: folder.root, urls: sessionPaths.map((p) => prefix + p) }));
  const page = folder
    ? `${prefix}/viewer/folder.html?list=${encodeURIComponent(prefix + listPath)}${hostParam}`
    : `${prefix}/viewer/?file=${encodeURIComponent(prefix + sessionPaths[0])}${hostParam}`;

  const server = createServer((req, res) => {
    const send = (status, body, headers = {}) => {
      res.writeHead(status, { ...HEADERS, "Content-Type": "text/plain; charset=utf-8", ...headers });
      res.end(req.method === "HEAD" ? undefined : body);
    };
    // A page on another site cannot reach us through DNS rebinding: only our own host names are answered.
    const hostName = (req.headers.host ?? "").replace(/:\d+$/, "");
    if (hostName !== "127.0.0.1" && hostName !== "localhost") return send(421, "wrong host\n");
    const rest = afterToken(req.url ?? "");
    if (rest === null) return send(403, "forbidden: open the URL that `pi-tree-navigator view` printed\n");
    if (req.method !== "GET" && req.method !== "HEAD") return send(405, "method not allowed\n", { Allow: "GET, HEAD" });
    let path;
    try {
      path = new URL(rest || "/", "http://127.0.0.1").pathname;
    } catch {
      return send(400, "bad request\n");
    }
    if (path === "/" || path === "/viewer") return send(302, "", { Location: page });
    if (list && path === listPath) return send(200, list, { "Content-Type": "application/json; charset=utf-8" });
    // A session, or its archive (`pi-tree-navigator archive`), which the page loads when asked to.
    const session = sessions.get(path);
    const target = session ?? routes.get(path);
    if (!target) return send(404, "not found\n");
    let st;
    try {
      st = statSync(target);
    } catch {
      return send(404, "not found\n");
    }
    if (!st.isFile()) return send(404, "not found\n");
    res.writeHead(200, {
      ...HEADERS,
      "Content-Type": session ? TYPES[".jsonl"] : TYPES[extname(target)],
      "Content-Length": st.size,
    });
    if (req.method === "HEAD") return res.end();
    createReadStream(target, { highWaterMark: 1 << 20 }).on("error", () => res.destroy()).pipe(res);
  });

  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const { port: actual } = server.address();
      resolve({ server, url: `http://${host}:${actual}${page}` });
    });
  });
}

/** Whether the package holds the viewer (a build from before js/viewer/ existed does not). */
export const hasViewer = (pkgDir) => existsSync(join(pkgDir, "viewer", "index.html"));
