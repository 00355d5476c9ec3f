// pi's own providers on the wire: a model of pi's built-in APIs (anthropic-messages, openai-responses,
// openai-completions) whose base URL is a local mock server (lib/mock-api.mjs). Passed to createSession in
// place of a ScriptedModel, it is registered as provider "wire" in the session's model runtime (pi ≥0.80) or
// model registry (older), so every request goes through pi's real provider code and HTTP client. For the CLI,
// `modelsJson()` is the same provider as `models.json` (then `--provider wire --model <modelId>`).

/** What `createSession` needs: `provider === "wire"`, the provider id, the model id and the provider config. */
export class WireModel {
  /**
   * `api`: pi's API name; `baseUrl`: the mock's URL (+ "/v1" for OpenAI); `compat`: the model's compat flags
   * (e.g. `{ supportsMessageThreads: true }` turns Anthropic message threads on for a non-Anthropic host);
   * `promptCache`: `{ short, long }` cache lifetimes in seconds.
   */
  constructor({ api, baseUrl, compat, promptCache, modelId = "wire-model", contextWindow = 200000, maxTokens = 8192 }) {
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
      models: [
        {
          id: this.modelId,
          name: this.modelId,
          reasoning: false,
          input: ["text"],
          // Priced like a frontier model so pi's cost-based decisions (cache warming) have numbers to weigh.
          cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
          contextWindow: this.contextWindow,
          maxTokens: this.maxTokens,
          ...(this.compat ? { compat: this.compat } : {}),
          // Prompt-cache lifetimes in seconds (pi ≥0.99 reads them for idle cache warming).
          ...(this.promptCache ? { promptCache: this.promptCache } : {}),
        },
      ],
    };
  }
}
