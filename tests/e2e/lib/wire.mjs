// pi's own providers on the wire: a model of pi's built-in APIs (anthropic-messages, openai-responses,
// openai-completions) whose base URL is a local mock server (lib/mock-api.mjs). Passed to createSession in
// place of a ScriptedModel, it is registered as provider "wire" in the session's model runtime (pi ≥0.80) or
// model registry (older), so every request goes through pi's real provider code and HTTP client. For the CLI,
// `modelsJson()` is the same provider as `models.json` (then `--provider wire --model <modelId>`).

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PKG_DIR } from "./hosts.mjs";
import { startAnthropicMock, startChatCompletionsMock, startResponsesMock } from "./mock-api.mjs";

/** A message's content blocks (a string content is one text block). */
export const blocks = (m) => (typeof m?.content === "string" ? [{ type: "text", text: m.content }] : Array.isArray(m?.content) ? m.content : []);
/** A message's text: its text blocks, a tool result's content (as JSON when it is not a string). */
export const textOf = (m) => blocks(m).map((b) => b.text ?? (typeof b.content === "string" ? b.content : JSON.stringify(b.content ?? ""))).join("");
/** JSON without cache_control: what a prompt is (the marker moves to the last message of each request). */
export const canon = (v) => JSON.parse(JSON.stringify(v ?? null, (k, x) => (k === "cache_control" ? undefined : x)));

/**
 * Each API as the wire tests see it: its mock, pi's API name and base URL, the model's compat flags (Anthropic
 * message threads when `threads`; OpenAI's prompt-cache key), a request's conversation (`conv`) and what must
 * stay equal besides it (`head`), the largest output a request asks for, an overload fault, and the mock's cache
 * accounting of a reply (`cache`: prompt tokens read from the cache, of `total`).
 */
export function wireApis({ threads = false } = {}) {
  return {
    anthropic: {
      start: startAnthropicMock,
      api: "anthropic-messages",
      base: (url) => url,
      compat: threads ? { supportsMessageThreads: true } : undefined,
      conv: (r) => r.full.messages,
      head: (r) => ({ system: r.full.system, tools: r.full.tools }),
      maxOut: (r) => r.body.max_tokens,
      overloaded: { error: { status: 529, type: "overloaded_error", message: "Overloaded" } },
      cache: (r) => ({ read: r.usage.cache_read_input_tokens, total: r.usage.input_tokens + r.usage.cache_read_input_tokens + r.usage.cache_creation_input_tokens }),
    },
    responses: {
      start: startResponsesMock,
      api: "openai-responses",
      base: (url) => `${url}/v1`,
      compat: { promptCacheKeyMode: "enabled" },
      conv: (r) => r.full.input,
      head: (r) => ({ instructions: r.full.instructions, tools: r.full.tools, promptCacheKey: r.full.promptCacheKey }),
      maxOut: (r) => r.body.max_output_tokens,
      overloaded: { error: { status: 503, type: "server_error", message: "The server is overloaded" } },
      cache: (r) => ({ read: r.usage.input_tokens_details.cached_tokens, total: r.usage.input_tokens }),
    },
    chat: {
      start: startChatCompletionsMock,
      api: "openai-completions",
      base: (url) => `${url}/v1`,
      compat: { promptCacheKeyMode: "enabled" },
      conv: (r) => r.full.messages,
      head: (r) => ({ tools: r.full.tools, promptCacheKey: r.body.prompt_cache_key }),
      maxOut: (r) => r.body.max_completion_tokens ?? r.body.max_tokens,
      overloaded: { error: { status: 503, type: "server_error", message: "The server is overloaded" } },
      cache: (r) => ({ read: r.usage.prompt_tokens_details.cached_tokens, total: r.usage.prompt_tokens }),
    },
  };
}

/** What `createSession` needs: `provider === "wire"`, the provider id, the model id and the provider config. */
export class WireModel {
  /**
   * `api`: pi's API name; `baseUrl`: the mock's URL (+ "/v1" for OpenAI); `compat`: the model's compat flags
   * (e.g. `{ supportsMessageThreads: true }` turns Anthropic message threads on for a non-Anthropic host);
   * `promptCache`: `{ short, long }` cache lifetimes in seconds; `moreModels`: ids of further models of the same
   * provider (e.g. to switch to with `session.setModel`).
   */
  constructor({ api, baseUrl, compat, promptCache, modelId = "wire-model", contextWindow = 200000, maxTokens = 8192, moreModels = [] }) {
    this.moreModels = moreModels;
    this.promptCache = promptCache;
    this.provider = "wire";
    this.providerId = "wire";
    this.modelId = modelId;
    this.api = api;
    this.baseUrl = baseUrl;
    this.compat = compat;
    this.contextWindow = contextWindow;
    this.maxTokens = maxTokens;
  }

  /** The same provider as pi's `models.json` (`$PI_CODING_AGENT_DIR/models.json`), for the real CLI/TUI. */
  modelsJson() {
    return { providers: { [this.providerId]: this.providerConfig() } };
  }

  providerConfig() {
    return {
      baseUrl: this.baseUrl,
      apiKey: "wire-test-key",
      api: this.api,
      models: [this.modelId, ...this.moreModels].map((id) => ({
        id,
        name: id,
        reasoning: false,
        input: ["text"],
        // Priced like a frontier model so pi's cost-based decisions (cache warming) have numbers to weigh.
        cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
        contextWindow: this.contextWindow,
        maxTokens: this.maxTokens,
        ...(this.compat ? { compat: this.compat } : {}),
        // Prompt-cache lifetimes in seconds (pi ≥0.99 reads them for idle cache warming).
        ...(this.promptCache ? { promptCache: this.promptCache } : {}),
      })),
    };
  }
}

/**
 * A pi agent dir and a work folder under `dir` for the real `pi` CLI or TUI against the Anthropic mock at `url`:
 * models.json with a WireModel there ("mock-model"), settings.json making it the default, the built package loaded,
 * plus `settings`. Returns `{ agent, work, model }`.
 */
export function cliAgent(dir, url, settings = {}) {
  const agent = join(dir, "agent");
  const work = join(dir, "work");
  mkdirSync(agent, { recursive: true });
  mkdirSync(work, { recursive: true });
  const model = new WireModel({ api: "anthropic-messages", baseUrl: url, modelId: "mock-model" });
  writeFileSync(join(agent, "models.json"), JSON.stringify(model.modelsJson()));
  writeFileSync(join(agent, "settings.json"), JSON.stringify({ defaultProvider: model.providerId, defaultModel: model.modelId, packages: [PKG_DIR], ...settings }));
  return { agent, work, model };
}
