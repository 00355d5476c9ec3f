// A real pi AgentSession driven by pi-ai's scripted faux provider (pi-host.md §4, recipes A and B).
//
// The host is imported from its install directory by file URL, so the classes the extension sees through
// pi's loader (jiti aliases) are the very same module instances the test uses. Every provider request is
// captured: agent requests in `requests`, branch-summary requests in `summaryRequests`.
import { mkdtempSync, rmSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { hostEntryPath, isBundleHost, packageDir, FIXTURES } from "./hosts.mjs";

const SUMMARIZER_MARK = "context summarization assistant";

/**
 * Load one pi host (version = PTN_HOST_VERSION) once per process. npm hosts: the packages' dist/index.js
 * (recipe A); bundle hosts (pi >= 0.99): the tarball's dist/bundle/index.js, and pi-ai as extensions see it,
 * fetched through pi's own loader by the faux-bridge fixture (recipe B).
 */
export async function loadHost(version = process.env.PTN_HOST_VERSION) {
  if (!version) throw new Error("PTN_HOST_VERSION is not set (run tests/e2e/e2e.test.mjs)");
  const [major, minor] = version.split(".").map(Number);
  const bundle = isBundleHost(version);
  let pca, ai;
  if (bundle) {
    pca = await import(pathToFileURL(hostEntryPath(version)).href);
    const root = mkdtempSync(join(tmpdir(), `ptn-e2e-bridge-`));
    try {
      const loader = new pca.DefaultResourceLoader({
        cwd: root, agentDir: root, settingsManager: pca.SettingsManager.inMemory({}),
        additionalExtensionPaths: [join(FIXTURES, "faux-bridge/index.js")],
        noSkills: true, noPromptTemplates: true, noThemes: true, noContextFiles: true,
      });
      await loader.reload();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    ai = globalThis[Symbol.for("ptn.e2e.pi-ai")];
    if (!ai?.fauxProvider) throw new Error(`pi ${version}: the bundle's pi-ai has no fauxProvider`);
  } else {
    const entry = (name) => pathToFileURL(join(packageDir(version, name), "dist/index.js")).href;
    pca = await import(entry("pi-coding-agent"));
    ai = await import(entry("pi-ai"));
  }
  const runtimeHost = typeof pca.ModelRuntime === "function"; // ≥0.80: ModelRuntime replaces AuthStorage
  return { version, pca, ai, major, minor, runtimeHost, bundle };
}

/**
 * Messages of a provider context without `role:"system"` entries, the system text, and the tool names
 * the model is offered (pi ≤0.79: `context.tools`; 0.87+: `toolsAdded`/`toolsRemoved` of system messages).
 */
function splitSystem(context) {
  const messages = [];
  let system = context.systemPrompt ?? "";
  const tools = (context.tools ?? []).map((t) => t.name);
  for (const m of context.messages ?? []) {
    if (m.role !== "system") {
      messages.push(m);
      continue;
    }
    system += JSON.stringify(m);
    for (const t of m.toolsAdded ?? []) tools.push(t.name);
    for (const t of m.toolsRemoved ?? []) {
      const at = tools.indexOf(typeof t === "string" ? t : t.name);
      if (at >= 0) tools.splice(at, 1);
    }
  }
  return { system, messages, tools };
}

/**
 * A scripted model shared by every session of one test: `agent` steps answer the agent's requests,
 * `summary` steps answer branch-summary requests. A step is an AssistantMessage, or a function
 * `(request, host) => AssistantMessage` evaluated when the request arrives.
 */
export class ScriptedModel {
  /**
   * `provider`: how the faux model reaches the host. "native" (default on hosts with a model runtime, pi ≥0.80):
   * registered only in the session's ModelRuntime (`registerNativeProvider`), the path of providers that exist
   * nowhere else. "registered": pi-ai's compat API registry (`registerFauxProvider`) plus a provider config with
   * an API key — the only path on pi <0.80 (AuthStorage/ModelRegistry), `ModelRuntime.registerProvider` on newer hosts.
   */
  constructor(host, { provider } = {}) {
    this.host = host;
    this.provider = provider ?? (host.runtimeHost ? "native" : "registered");
    this.agent = [];
    this.summary = [];
    this.requests = [];
    this.summaryRequests = [];
    this.onRequest = null;
    /** Optional `(request) => key`: agent steps are then taken from `agentBy[key]` (several sessions). */
    this.router = null;
    this.agentBy = {};
    this.register();
  }

  /**
   * (Re)registers the faux provider. pi ≤0.79 keeps API providers in pi-ai's global registry, which a
   * session reload resets (extensions re-register theirs); tests call this after `session.reload()`.
   */
  register() {
    const ai = this.host.ai;
    const dispatch = async (context, options) => this.#answer(context, options);
    const options = { provider: "faux", api: "faux", models: [{ id: "faux-1", contextWindow: 128000, maxTokens: 16384 }] };
    if (this.provider === "native") {
      this.faux ??= ai.fauxProvider(options);
    } else if (typeof ai.registerFauxProvider === "function") {
      this.faux = ai.registerFauxProvider(options);
    } else {
      // pi 0.87.1's pi-ai has no compat registration: the provider config then carries the stream function.
      this.faux ??= ai.createFauxCore(options);
    }
    this.faux.setResponses(Array.from({ length: 500 }, () => dispatch));
  }

  get model() {
    return this.faux.getModel();
  }

  #answer(context, options) {
    const { system, messages, tools } = splitSystem(context);
    const request = { system, messages: structuredClone(messages), tools };
    request.rawMessages = structuredClone(context.messages ?? []);
    request.options = { apiKey: options?.apiKey, maxTokens: options?.maxTokens };
    const isSummary = system.includes(SUMMARIZER_MARK);
    (isSummary ? this.summaryRequests : this.requests).push(request);
    this.onRequest?.(request, isSummary);
    const queue = isSummary ? this.summary : this.router ? (this.agentBy[this.router(request)] ??= []) : this.agent;
    const step = queue.shift();
    if (step === undefined) {
      return this.host.ai.fauxAssistantMessage(isSummary ? "## Goal\n(no scripted summary)" : "(script exhausted)");
    }
    return typeof step === "function" ? step(request, this.host) : step;
  }

  /** Convenience builders over the host's faux helpers. */
  call(name, args, id) {
    const { fauxAssistantMessage, fauxToolCall } = this.host.ai;
    return fauxAssistantMessage(fauxToolCall(name, args, { id }), { stopReason: "toolUse" });
  }
  calls(list) {
    const { fauxAssistantMessage, fauxToolCall } = this.host.ai;
    return fauxAssistantMessage(list.map(([name, args, id]) => fauxToolCall(name, args, { id })), { stopReason: "toolUse" });
  }
  text(text) {
    return this.host.ai.fauxAssistantMessage(text);
  }
  error(message) {
    return this.host.ai.fauxAssistantMessage([], { stopReason: "error", errorMessage: message });
  }
  aborted() {
    return this.host.ai.fauxAssistantMessage([], { stopReason: "aborted", errorMessage: "Request was aborted" });
  }
  /** The first user message's text of a request (routes requests of concurrent sessions). */
  static firstUserText(request) {
    const u = request.messages.find((m) => m.role === "user");
    return typeof u?.content === "string" ? u.content : (u?.content ?? []).map((c) => c.text ?? "").join("");
  }
}

/**
 * Points pi's agent dir (`PI_CODING_AGENT_DIR`, which `getAgentDir()` reads: the config's global layer) at `agentDir`
 * for test `t`, with `config` as its `tree-navigator.json` when given; restored after the test.
 */
export function useAgentDir(t, agentDir, config = null) {
  if (config) writeFileSync(join(agentDir, "tree-navigator.json"), JSON.stringify(config));
  const before = process.env.PI_CODING_AGENT_DIR;
  process.env.PI_CODING_AGENT_DIR = agentDir;
  t.after(() => (before === undefined ? delete process.env.PI_CODING_AGENT_DIR : (process.env.PI_CODING_AGENT_DIR = before)));
}

/**
 * A ScriptedModel whose requests are routed to `agentBy.main` or `agentBy.live` (`isLive(request)`: a request the
 * plugin sent itself from the live prefix) and logged in `order` as `{request, kind}`, kind `"main"`, `"live"` or
 * `"cold"` (pi's own summarizer's).
 */
export function routedModel(host, isLive) {
  const m = new ScriptedModel(host);
  const order = [];
  m.onRequest = (request, isSummary) => order.push({ request, kind: isSummary ? "cold" : isLive(request) ? "live" : "main" });
  m.router = (request) => (isLive(request) ? "live" : "main");
  return { m, order };
}

// Every temporary folder made here is removed where its test ends, and once more when the process exits: pi ≥1.x
// starts a background read of its auth file with the session (agent/auth.json, created when missing), and one
// still in flight when a short or failed test removes the folder writes it again.
const tempDirs = new Set();
process.on("exit", () => tempDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

/**
 * A temporary folder (`mkdtemp` with `prefix`) that test `t` removes when it ends, passed or failed — also when
 * its session never started. Set `.session` to the session made in it: it is disposed first (it may still write
 * there). Returns `{ dir, session }`.
 */
export function testDir(t, prefix) {
  const made = { dir: tempDir(prefix), session: null };
  t.after(() => {
    made.session?.dispose();
    rmSync(made.dir, { recursive: true, force: true });
  });
  return made;
}

/**
 * Create a real AgentSession with the given extension paths loaded through pi's own resource loader.
 * `compaction`: compaction settings for `session.compact()` (automatic compaction stays off).
 * Returns `{ session, sm, loader, dispose }`.
 */
export async function createSession(host, model, options = {}) {
  const root = tempDir(`ptn-e2e-${host.version}-`);
  try {
    return await sessionIn(root, host, model, options);
  } catch (err) {
    rmSync(root, { recursive: true, force: true }); // a session that failed to start has no dispose to remove it
    throw err;
  }
}

async function sessionIn(root, host, model, { extensions = [], tools, sessionManager, cwd, compaction, settings }) {
  const { pca } = host;
  const workDir = cwd ?? join(root, "cwd");
  const agentDir = join(root, "agent");
  mkdirSync(workDir, { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  // Automatic compaction off; `compaction` adds settings for manual ones (e.g. keepRecentTokens).
  const settingsManager = pca.SettingsManager.inMemory({ compaction: { enabled: false, ...compaction }, retry: { enabled: false }, ...settings });
  const loader = new pca.DefaultResourceLoader({
    cwd: workDir,
    agentDir,
    settingsManager,
    additionalExtensionPaths: extensions,
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true,
    systemPromptOverride: () => "You are a test agent.",
  });
  await loader.reload();
  const sm = sessionManager ?? pca.SessionManager.inMemory(workDir);
  const common = {
    cwd: workDir,
    agentDir,
    settingsManager,
    resourceLoader: loader,
    model: model.model,
    thinkingLevel: "off",
    tools,
    sessionManager: sm,
  };
  let created;
  if (host.runtimeHost) {
    const modelRuntime = await pca.ModelRuntime.create({ authPath: join(agentDir, "auth.json"), modelsPath: null, refreshOnCreate: false });
    if (model.provider === "native") modelRuntime.registerNativeProvider(model.faux.provider);
    else if (model.provider === "wire") {
      // pi's own provider (anthropic-messages, openai-*) pointed at a local mock server (lib/wire.mjs).
      modelRuntime.registerProvider(model.providerId, model.providerConfig());
      common.model = modelRuntime.getModel(model.providerId, model.modelId);
    } else {
      const m = model.model;
      const streamSimple = typeof model.faux.streamSimple === "function" ? model.faux.streamSimple : undefined;
      modelRuntime.registerProvider("faux", { baseUrl: "http://localhost:0", apiKey: "offline", api: model.faux.api, streamSimple, models: [{ id: m.id, name: m.name ?? m.id, reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: m.contextWindow, maxTokens: m.maxTokens }] });
    }
    created = await pca.createAgentSession({ ...common, modelRuntime });
  } else {
    const authStorage = pca.AuthStorage.inMemory();
    authStorage.setRuntimeApiKey("faux", "offline");
    const modelRegistry = pca.ModelRegistry.inMemory(authStorage);
    if (model.provider === "wire") {
      modelRegistry.registerProvider(model.providerId, model.providerConfig());
      common.model = modelRegistry.find(model.providerId, model.modelId);
    }
    created = await pca.createAgentSession({ ...common, authStorage, modelRegistry });
  }
  const loadErrors = (created.extensionsResult?.errors ?? []).map((e) => `${e.path}: ${e.error}`);
  if (loadErrors.length) throw new Error(`extension load failed:\n${loadErrors.join("\n")}`);
  const session = created.session;
  return {
    session,
    sm: session.sessionManager,
    root,
    dispose() {
      try {
        session.dispose?.();
      } catch {}
      rmSync(root, { recursive: true, force: true });
    },
  };
}
