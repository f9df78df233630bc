import path from 'node:path';

/** The model providers a catalog entry may name. */
export const MODEL_PROVIDERS = [
  'openai',
  'anthropic',
  'gemini',
  'openai-compatible',
  'ollama',
  'lmstudio',
  'openrouter',
  'groq',
  'vllm',
  'replay',
] as const;

/** A provider id. */
export type ModelProviderId = (typeof MODEL_PROVIDERS)[number];

/**
 * Base URLs used when an OpenAI-compatible provider's entry gives none. `openai-compatible` has no
 * default and must name one.
 */
export const DEFAULT_BASE_URLS: Partial<Record<ModelProviderId, string>> = {
  ollama: 'http://localhost:11434/v1',
  lmstudio: 'http://localhost:1234/v1',
  vllm: 'http://localhost:8000/v1',
  openrouter: 'https://openrouter.ai/api/v1',
  groq: 'https://api.groq.com/openai/v1',
};

/** A validated models.yaml entry. */
export interface ModelSpec {
  alias: string;
  provider: ModelProviderId;
  /** The provider's model id. For `replay` it may be empty. */
  model: string;
  /** From the entry, else {@link DEFAULT_BASE_URLS}; undefined for providers with a fixed API. */
  baseUrl?: string;
  defaults?: { temperature?: number; maxTokens?: number };
  /** Prices per million tokens; `currency` defaults to USD. */
  price?: { inputPerMillion: number; outputPerMillion: number; currency: string };
  /** Where the entry was defined (`models.yaml`). */
  source: string;
}

/** The models a workspace defines, and which one a script gets by default. */
export interface ModelCatalog {
  get(alias: string): ModelSpec | undefined;
  list(): ModelSpec[];
  /**
   * The default model alias for an agent: its `agents:` setting in promptforge.yaml, else the
   * workspace's `defaultModel`, else undefined. `agentPath` may be absolute or workspace-relative.
   */
  defaultFor(agentPath?: string): string | undefined;
}

/** The {@link ModelCatalog} built by the workspace loader. */
export class ModelCatalogImpl implements ModelCatalog {
  private readonly models = new Map<string, ModelSpec>();

  constructor(
    specs: readonly ModelSpec[],
    private readonly root: string | undefined,
    private readonly defaultModel: string | undefined,
    private readonly agentModels: ReadonlyMap<string, string> = new Map(),
  ) {
    for (const spec of specs) this.models.set(spec.alias, spec);
  }

  get(alias: string): ModelSpec | undefined {
    return this.models.get(alias);
  }

  list(): ModelSpec[] {
    return [...this.models.values()];
  }

  defaultFor(agentPath?: string): string | undefined {
    if (agentPath !== undefined) {
      const key = normalizeAgentPath(agentPath, this.root);
      const agentModel = this.agentModels.get(key);
      if (agentModel !== undefined) return agentModel;
    }
    return this.defaultModel;
  }
}

/** `agents/x.lua`-style key for an agent path: workspace-relative, forward slashes, no `./`. */
export function normalizeAgentPath(agentPath: string, root: string | undefined): string {
  let relative = agentPath;
  if (root !== undefined && path.isAbsolute(agentPath)) relative = path.relative(root, agentPath);
  return path.posix.normalize(relative.split(path.sep).join('/')).replace(/^\.\//, '');
}
