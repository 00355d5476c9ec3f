// A resumed session's index read from its file, off the thread pi runs on (issue 29).
//
// pi parses a resumed session's file before any extension loads and holds every entry as an object; feeding
// those objects to the index (a `JSON.stringify` per entry, then the copy into wasm) costs far more than pi's
// own load. The file on disk is what pi parsed, so at `session_start` a worker thread (resume-worker.js, its own
// instance of the wasm core, at the lowest priority) starts reading it part by part into facts streams.
// Nothing waits for it: pi's first request goes out at once. What needs the index — a tool call, a
// context-pressure crossing, /anchors — awaits `settle(sm)` first: the main thread then reads the parts still
// unclaimed, from the back, while the worker reads from the front; every part's facts go into a fresh index in
// file order, kept only when the core finds it agrees with pi's entries (`disagreement`: count, ids, parents,
// types). Otherwise — a part that cannot decide its lines alone, a line pi could not parse, a file replaced
// since pi read it, a worker that failed — the navigator builds the index from pi's objects as before, and a
// debug line says why (PI_TREE_NAVIGATOR_DEBUG; never a word to the model). Entries pi appends after
// `session_start` come from its objects: the navigator feeds everything after the count handed over here.
import { appendFileSync, closeSync, fstatSync, openSync, statSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { envFlag } from "./agent.js";
import { CHUNK_BYTES, planChunks, readChunk } from "./resume-chunk.js";
import { wasmBytes } from "./wasm-bytes.js";

/** Env switch: always build a resumed session's index from pi's objects (the path before issue 29). */
export const ENV_NO_RESUME_READ = "PI_TREE_NAVIGATOR_NO_RESUME_READ";
/** Env: debug lines on stderr; a value holding a "/" names a file they are appended to instead. */
export const ENV_DEBUG = "PI_TREE_NAVIGATOR_DEBUG";
/** Files below this are fed from pi's objects: starting a worker costs more than it saves. */
export const MIN_FILE_BYTES = 8 << 20;

/** `debug(line)` for `env`: silent unless PI_TREE_NAVIGATOR_DEBUG is set. */
export function debugLog(env = process.env) {
  const to = env[ENV_DEBUG];
  if (!to || to === "0" || to === "false") return () => {};
  return (line) => {
    const text = `[pi-tree-navigator] ${line}\n`;
    try {
      if (to.includes("/")) appendFileSync(to, text);
      else process.stderr.write(text);
    } catch {
      // a debug line is never worth a failure
    }
  };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

/**
 * Installs the resume read. `core()`: the live wasm API; `host`: js/host.js's adapter; `adopt(sm, api, index,
 * fed, cursor)`: hands a verified index of pi's first `fed` entries to the navigator (returns false when it no
 * longer wants it; the index is then freed here); `wasmBase`: a URL next to the package's wasm module (js/wasm-bytes.js) (the worker's module when the API has none compiled).
 * `minBytes` / `chunkBytes`: the smallest file read this way and the size of its parts (tests make them small).
 * Returns `{ settle(sm), stop(sm), reading(sm), ready(sm), readDone(sm) }`.
 */
export function installResume({ pi, core, host, adopt, wasmBase, env = process.env, minBytes = MIN_FILE_BYTES, chunkBytes = CHUNK_BYTES }) {
  /** SessionManager → the read in progress. */
  const builds = new WeakMap();
  const debug = debugLog(env);
  let compiled = null;

  function wasmModule(api) {
    if (api.wasmModule instanceof WebAssembly.Module) return api.wasmModule;
    compiled ??= new WebAssembly.Module(wasmBytes(wasmBase));
    return compiled;
  }

  /** Starts reading `sm`'s file when it is big enough to be worth a worker. */
  function start(sm) {
    if (!sm || builds.has(sm) || envFlag(ENV_NO_RESUME_READ, env)) return;
    const api = core();
    const file = sm.getSessionFile?.();
    if (!api?.ChunkReader || !host.version || typeof file !== "string") return;
    let st;
    try {
      st = statSync(file);
    } catch {
      return; // no file yet (a new session): nothing to read
    }
    if (st.size < minBytes) return;
    const t0 = performance.now();
    const chunks = planChunks(st.size, chunkBytes);
    const build = {
      file,
      size: st.size,
      identity: { dev: st.dev, ino: st.ino },
      count: host.entryCount(sm),
      cursor: null,
      chunks,
      claims: new Int32Array(new SharedArrayBuffer(4 * chunks.length)),
      results: new Array(chunks.length).fill(null),
      worker: null,
      workerFinished: false,
      workerFile: null,
      workerFailure: null,
      workerDone: null,
      outcome: null,
      t0,
    };
    try {
      const worker = new Worker(new URL("./resume-worker.js", import.meta.url), {
        workerData: { module: wasmModule(api), file, size: st.size, chunks, claims: build.claims, version: host.version },
      });
      worker.unref(); // pi's exit never waits for it
      build.worker = worker;
      build.workerDone = new Promise((resolve) => {
        const finished = () => {
          build.workerFinished = true;
          resolve();
        };
        worker.on("message", (m) => {
          if (m?.part !== undefined) build.results[m.part] = m;
          else if (m?.done) {
            build.workerFile = m.file;
            finished();
          } else if (m?.error) {
            build.workerFailure = m.error;
            finished();
          }
        });
        worker.on("error", (e) => {
          build.workerFailure ??= e instanceof Error ? e.message : String(e);
          finished();
        });
        worker.on("exit", () => finished());
      });
    } catch (e) {
      build.workerFailure = e instanceof Error ? e.message : String(e);
      build.workerFinished = true;
      build.workerDone = Promise.resolve();
    }
    // Where pi's own entry list stands now (with the count): the navigator's sync goes on from here.
    build.cursor = host.cursorAt(sm, build.count);
    builds.set(sm, build);
    debug(`resume: reading ${file} (${mb(st.size)}, ${build.count} entries, ${chunks.length} parts)${build.workerFailure ? `, no worker (${build.workerFailure})` : " in a worker"}`);
  }

  /** Reads the parts not claimed yet on this thread (from the back; the worker reads from the front). Returns how many. */
  async function help(build, api) {
    let fd;
    let read = 0;
    const scratch = {};
    try {
      for (let part = build.chunks.length - 1; part >= 0; part--) {
        if (Atomics.compareExchange(build.claims, part, 0, 1) !== 0) continue;
        fd ??= openSync(build.file, "r");
        build.results[part] = readChunk(api, fd, build.chunks[part], build.size, host.version, scratch);
        read++;
        await nextTurn(); // pi's loop runs between parts
      }
      if (fd !== undefined) {
        const st = fstatSync(fd);
        build.mainFile = { dev: st.dev, ino: st.ino, size: st.size };
      }
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    return read;
  }

  /** Why the read cannot stand for pi's entries, or null. */
  function problemOf(build) {
    const missing = build.results.findIndex((r) => r === null);
    if (missing >= 0) return `part ${missing + 1} of ${build.results.length} was not read (${build.workerFailure ?? "the worker stopped"})`;
    const part = build.results.findIndex((r) => r.problem);
    if (part >= 0) return `part ${part + 1}: ${build.results[part].problem}`;
    for (const seen of [build.workerFile, build.mainFile]) {
      if (seen && (seen.dev !== build.identity.dev || seen.ino !== build.identity.ino || seen.size < build.size)) {
        return "the file was replaced or cut since pi read it";
      }
    }
    return null;
  }

  async function finish(sm, build) {
    const api = core();
    if (!api) return;
    const asked = performance.now();
    let here = await help(build, api);
    await build.workerDone;
    if (build.results.includes(null) && build.workerFailure) {
      // The worker failed after claiming parts it never sent: read them here.
      build.claims.fill(0);
      for (let i = 0; i < build.results.length; i++) if (build.results[i] !== null) build.claims[i] = 1;
      here += await help(build, api);
    }
    const problem = problemOf(build);
    if (problem) {
      debug(`resume: file not used (${problem}); index from pi's entries`);
      return;
    }
    const index = api.SessionIndex.plugin();
    let kept = false;
    try {
      index.setHostVersion(host.version);
      let taken = 0;
      const read = performance.now();
      for (const r of build.results) taken += index.appendFacts(r.facts);
      const why = index.disagreement(host.structure(sm, build.count));
      if (why) {
        debug(`resume: file disagrees with pi's entries (${why}); index from pi's entries`);
        return;
      }
      kept = adopt(sm, api, index, build.count, build.cursor);
      const ms = (a, b = performance.now()) => (b - a).toFixed(0);
      debug(`resume: ${taken} entries from the file ${ms(build.t0)} ms after session_start${kept ? "" : " (not needed)"}; asked at ${ms(build.t0, asked)} ms, ${here}/${build.chunks.length} parts read here, taken and checked in ${ms(read)} ms`);
    } catch (e) {
      debug(`resume: reading the file failed (${e instanceof Error ? e.message : String(e)}); index from pi's entries`);
    } finally {
      if (!kept) {
        try {
          index.free();
        } catch {
          // an instance that trapped: the navigator retires it with everything in it
        }
      }
    }
  }

  /** Waits for `sm`'s read, if one is under way, and hands its index to the navigator (or gives it up). */
  async function settle(sm) {
    const build = builds.get(sm);
    if (!build) return;
    build.outcome ??= finish(sm, build)
      .catch((e) => debug(`resume: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => stop(sm));
    await build.outcome;
  }

  /** Ends `sm`'s read (session end, or done): the worker stops, its parts are dropped. */
  function stop(sm) {
    const build = sm && builds.get(sm);
    if (!build) return;
    builds.delete(sm);
    build.worker?.terminate().catch(() => {});
  }

  pi.on("session_start", (_event, ctx) => {
    try {
      start(ctx?.sessionManager);
    } catch (e) {
      debug(`resume: not started (${e instanceof Error ? e.message : String(e)})`);
    }
  });
  pi.on("session_shutdown", (_event, ctx) => stop(ctx?.sessionManager));

  /**
   * Settles when `sm`'s read no longer reads the file (its worker is done or stopped; at once when there is none):
   * other background reads of the file wait for it (the archive notice), so they never share the spare core.
   */
  const readDone = (sm) => builds.get(sm)?.workerDone ?? Promise.resolve();

  return {
    settle,
    stop,
    /** Whether `sm`'s file is still being read by the worker (`settle` would read the rest on this thread). */
    reading: (sm) => builds.has(sm) && !builds.get(sm).workerFinished,
    /** Whether `sm` has a read that `settle` would hand over (or give up) without reading more on this thread. */
    ready: (sm) => builds.has(sm) && builds.get(sm).workerFinished,
    readDone,
  };
}
