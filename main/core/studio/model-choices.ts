/**
 * The model a person picked for each agent in the studio, per workspace, kept in the user's config
 * folder (never in the workspace: choosing a model changes no file git shares), and what each
 * agent's model list shows: its default, the choice, and a choice this workspace cannot honour now.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { AgentModelInfo } from '../../../common/studio-schemas.js';
import type { Workspace } from '../catalog/workspace.js';
import { ConfigFile } from '../trust/config-file.js';
import { wordsFor } from '../surface-words.js';
import { setAgentModel } from '../catalog/catalog-edit.js';
import { ContractError } from './contract-error.js';

/** The file in the config folder that holds the choices. */
export const MODEL_CHOICES_FILE = 'model-choices.json';
/** Workspaces remembered; choosing in another drops the one chosen in longest ago. */
const MAX_CHOICE_WORKSPACES = 200;
/** Agents remembered per workspace. */
const MAX_CHOICE_AGENTS = 2000;
/** Longest alias or agent path kept (models.yaml aliases are at most 64 characters). */
const MAX_NAME = 1024;

const WorkspaceChoicesSchema = z.strictObject({
  /** When a choice in this workspace last changed (ISO 8601): the oldest is dropped first. */
  updated: z.string(),
  /** Agent path (`agents/x.lua`) → model alias. */
  agents: z.record(z.string().max(MAX_NAME), z.string().min(1).max(MAX_NAME)),
});

const FileSchema = z.strictObject({
  version: z.literal(1),
  /** Keyed by the workspace folder's real path. */
  workspaces: z.record(z.string(), WorkspaceChoicesSchema),
});
type ChoicesFile = z.infer<typeof FileSchema>;

/** The real path of a workspace folder: the key its choices are kept under. */
function workspaceKey(root: string): string {
  try {
    return realpathSync.native(root);
  } catch {
    return path.resolve(root);
  }
}

export class ModelChoices {
  private readonly config: ConfigFile<ChoicesFile>;

  constructor(configDirectory: string) {
    this.config = new ConfigFile(
      path.join(configDirectory, MODEL_CHOICES_FILE),
      (value) => FileSchema.parse(value),
      () => ({ version: 1, workspaces: {} }),
    );
  }

  /** Where the choices are kept. */
  get file(): string {
    return this.config.file;
  }

  /**
   * The choices made in the workspace at `root` (agent path → alias). A file that cannot be read
   * reads as no choice, with the reason in `problem`: a run then uses the agent's default.
   */
  async read(root: string): Promise<{ choices: Record<string, string>; problem: string | null }> {
    try {
      const file = await this.config.read();
      const entry = Object.hasOwn(file.workspaces, workspaceKey(root))
        ? file.workspaces[workspaceKey(root)]
        : undefined;
      return { choices: { ...(entry?.agents ?? {}) }, problem: null };
    } catch (error) {
      return { choices: {}, problem: error instanceof Error ? error.message : String(error) };
    }
  }

  /** Remembers `alias` for `agent` in the workspace at `root`; `null` forgets the choice. */
  async choose(root: string, agent: string, alias: string | null, now = new Date()): Promise<Record<string, string>> {
    const key = workspaceKey(root);
    const written = await this.config.update((current) => {
      const workspaces = { ...current.workspaces };
      const agents = { ...(Object.hasOwn(workspaces, key) ? workspaces[key]!.agents : {}) };
      delete agents[agent];
      if (alias !== null) agents[agent] = alias;
      // The newest choices are kept: an agent chosen for again moves to the end.
      const kept = Object.entries(agents).slice(-MAX_CHOICE_AGENTS);
      if (kept.length === 0) delete workspaces[key];
      else workspaces[key] = { updated: now.toISOString(), agents: Object.fromEntries(kept) };
      const newest = Object.entries(workspaces)
        .sort(([, a], [, b]) => b.updated.localeCompare(a.updated))
        .slice(0, MAX_CHOICE_WORKSPACES);
      return { version: 1, workspaces: Object.fromEntries(newest) };
    });
    return { ...(written.workspaces[key]?.agents ?? {}) };
  }

  /** Forgets the choice of `agent` (deleted), or moves it to `renamed`. */
  async moveAgent(root: string, agent: string, renamed: string | null): Promise<void> {
    const { choices } = await this.read(root);
    const alias = choices[agent];
    if (alias === undefined) return;
    await this.choose(root, agent, null);
    if (renamed !== null) await this.choose(root, renamed, alias);
  }
}

/**
 * What each agent's model list shows in `ws`, given the person's `choices`: the default a run gets
 * without a choice (the agent's `model` in promptforge.yaml, else `defaultModel`), and the choice,
 * which counts only while models.yaml defines it; a choice it does not is reported, not used.
 */
function describeAgentModels(ws: Workspace, choices: Record<string, string>): Record<string, AgentModelInfo> {
  const words = wordsFor('studio');
  const modelsBroken = ws.problems.find((problem) => problem.file === 'models.yaml' && problem.severity === 'error');
  const out: Record<string, AgentModelInfo> = {};
  for (const agent of ws.agents) {
    const fromAgent = ws.settings.agents[agent]?.model;
    const agentDefault = fromAgent !== undefined && ws.models.get(fromAgent) ? fromAgent : undefined;
    const fallback = ws.models.defaultFor(agent);
    const defaultAlias = agentDefault ?? (fallback !== undefined && ws.models.get(fallback) ? fallback : undefined);
    const chosen = Object.hasOwn(choices, agent) ? choices[agent]! : undefined;
    const usable = chosen !== undefined && ws.models.get(chosen) !== undefined;
    out[agent] = {
      default: defaultAlias ?? null,
      defaultFrom: defaultAlias === undefined ? null : agentDefault !== undefined ? 'agent' : 'workspace',
      chosen: usable ? chosen : null,
      unavailable:
        chosen !== undefined && !usable
          ? {
              alias: chosen,
              message: words.unavailableChoice(
                chosen,
                modelsBroken && `models.yaml has an error at line ${modelsBroken.line}: ${modelsBroken.message}`,
              ),
            }
          : null,
    };
  }
  return out;
}

/**
 * The studio's side of model choices for the open workspace: the choices read when it opens (so
 * describing it stays synchronous), choosing, and making a choice the agent's default.
 */
export class StudioModelChoices {
  private cached: { root: string; choices: Record<string, string>; problem: string | null } | undefined;

  constructor(private readonly store: ModelChoices) {}

  /** Reads the choices of the workspace at `root` (when it opens, and after files change). */
  async load(root: string): Promise<void> {
    this.cached = { root, ...(await this.store.read(root)) };
  }

  /** The model lists of `ws`'s agents, and why the choices could not be read (or null). */
  describe(ws: Workspace): { agentModels: Record<string, AgentModelInfo>; modelChoicesProblem: string | null } {
    const cached = this.cached?.root === ws.root ? this.cached : undefined;
    return {
      agentModels: describeAgentModels(ws, cached?.choices ?? {}),
      modelChoicesProblem: cached?.problem ?? null,
    };
  }

  /** Chooses `alias` for `agent` (null: its default again); refused for a model models.yaml does not define. */
  async choose(ws: Workspace, agent: string, alias: string | null): Promise<{ chosen: string | null }> {
    requireAgent(ws, agent);
    if (alias !== null) requireModel(ws, alias);
    // Choosing the default is no choice: the agent follows its default when that changes.
    const kept = alias !== null && alias === ws.models.defaultFor(agent) ? null : alias;
    let choices: Record<string, string>;
    try {
      choices = await this.store.choose(ws.root, agent, kept);
    } catch (error) {
      throw new ContractError(
        'config-unwritable',
        `the model choice was not kept: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    this.cached = { root: ws.root, choices, problem: null };
    return { chosen: kept };
  }

  /** Writes `alias` as `agent`'s default in promptforge.yaml, then forgets the person's own choice. */
  async makeDefault(ws: Workspace, agent: string, alias: string): Promise<{ saved: true }> {
    requireAgent(ws, agent);
    requireModel(ws, alias);
    const result = await setAgentModel(ws.root, agent, alias);
    if (!result.ok) {
      const problem = result.problems[0];
      throw new ContractError(
        'catalog-invalid',
        problem
          ? `promptforge.yaml was not changed: line ${problem.line}: ${problem.message} (${problem.fix})`
          : 'promptforge.yaml was not changed',
      );
    }
    await this.store.choose(ws.root, agent, null).catch(() => undefined);
    await this.load(ws.root);
    return { saved: true };
  }

  /** An agent renamed (`renamed`) or deleted (`null`): its choice follows it. */
  async agentMoved(root: string, agent: string, renamed: string | null): Promise<void> {
    await this.store.moveAgent(root, agent, renamed).catch(() => undefined);
    await this.load(root);
  }
}

function requireAgent(ws: Workspace, agent: string): void {
  if (!ws.agents.includes(agent))
    throw new ContractError('not-found', `${agent} is not an agent of this workspace (agents are agents/*.lua)`);
}

function requireModel(ws: Workspace, alias: string): void {
  if (!ws.models.get(alias))
    throw new ContractError(
      'unknown-model',
      wordsFor('studio').unknownModel(
        alias,
        ws.models.list().map((model) => model.alias),
      ),
    );
}
