/**
 * The one IPC contract between the renderer and the main process.
 *
 * Every method the renderer may call, and every event main may push, is a row of the two
 * tables below. main registers its handlers by looping over {@link contractMethods} and the
 * preload builds `window.promptforge` from it (the end-to-end tests run that same preload and
 * registration on stand-ins for Electron). No channel string is written anywhere else.
 *
 * Naming: methods are `domain:verb` (`app:info`, `run:start`), events are `noun-action`
 * (`run-event`, `approval-pending`).
 *
 * This file is plain TypeScript plus zod, so every process (main, preload, renderer types,
 * tests) may import it.
 *
 * @module
 */
import { z } from 'zod';
import {
  AgentFileResultSchema,
  AgentNameSchema,
  AgentTemplateSchema,
  ArgumentsVerdictSchema,
  CatalogFileSchema,
  CatalogProblemSchema,
  ForkRequestSchema,
  RunComparisonSchema,
  KeyStatusSchema,
  WorkspaceSecretStatusSchema,
  McpServersSchema,
  PendingApprovalSchema,
  RelativePathSchema,
  StudioDecisionSchema,
  TranscriptPageSchema,
  RecentWorkspacesSchema,
  WorkspaceStateSchema,
  SpendingCapSettingSchema,
  WorkspaceFilesSchema,
  FileViewSchema,
} from './studio-schemas.js';
import { TrustListSchema, WorkspaceTrustSchema } from './trust-schemas.js';
import {
  CallRefSchema,
  RuleDraftSchema,
  RuleProposalSchema,
  RulesListingSchema,
  RuleWordsSchema,
} from './rules-schemas.js';
import { mcpContractMethods } from './mcp-contract.js';
import { TestsListingSchema } from './test-schemas.js';
import { contractEvents } from './contract-events.js';

export { contractEvents };

/** A path on disk, as the main process sees it (absolute). */
const absolutePath = z.string().min(1);
/** A key or secret value on its way to the keychain (renderer → main only). */
const keyValue = z.string().trim().min(1, 'the key is empty');

/** The request of `app:info`: no fields, and unknown fields are refused. */
const appInfoRequest = z.strictObject({});

/** The response of `app:info`: what the About panel shows. */
const appInfoResponse = z.object({
  /** Product name, e.g. `PromptForge Studio`. */
  name: z.string(),
  /** The app's version, from package.json. */
  version: z.string(),
  /** `process.platform`-`process.arch`, e.g. `linux-x64`. */
  platform: z.string(),
  /** Versions of the runtimes the studio runs on. `null` when that runtime is absent. */
  versions: z.object({
    node: z.string(),
    v8: z.string(),
    /** `null` outside Electron (e.g. in the end-to-end test bridge). */
    electron: z.string().nullable(),
    /** `null` outside Electron. */
    chrome: z.string().nullable(),
    /** The Lua VM's version (wasmoon); `null` when it cannot be found. */
    wasmoon: z.string().nullable(),
  }),
  /** Where the studio keeps its data. */
  paths: z.object({
    /** The per-user data folder (window state, settings). */
    userData: absolutePath,
    /** The open workspace folder, or `null` when no workspace is open. */
    workspace: absolutePath.nullable(),
  }),
});

/**
 * Every IPC method: `domain:verb` mapped to zod schemas of its request and response.
 * Add a method by adding one row here and one handler in `main/core/studio/studio-handlers.ts`.
 */
export const contractMethods = {
  /** Name, version, runtime versions and data folders of the running studio. */
  'app:info': { request: appInfoRequest, response: appInfoResponse },

  /** Asks the person for a folder (the OS dialog in the app); `null` when they cancel. */
  'workspace:choose': { request: z.strictObject({}), response: z.object({ path: absolutePath.nullable() }) },
  /**
   * Opens a workspace folder and starts watching it for external edits. Only a folder main handed
   * out: the exact path `workspace:choose` answered, a recent workspace as `workspace:recent`
   * lists it (still the same folder, and still the person's alone), or the example workspace
   * (else `not-chosen`).
   */
  'workspace:open': { request: z.strictObject({ path: absolutePath }), response: WorkspaceStateSchema },
  /** The workspaces the person opened lately, newest first, with whether each is still there. */
  'workspace:recent': { request: z.strictObject({}), response: RecentWorkspacesSchema },
  /** Drops a workspace from the recent ones (its folder is untouched). */
  'workspace:forget-recent': { request: z.strictObject({ path: z.string().min(1) }), response: RecentWorkspacesSchema },
  /** Copies the example workspace (agents with recordings) into the data folder and opens it. */
  'workspace:open-example': { request: z.strictObject({}), response: WorkspaceStateSchema },
  /** The open workspace, or `null` when none is open. */
  'workspace:state': { request: z.strictObject({}), response: WorkspaceStateSchema.nullable() },

  /** Reads a workspace file (an agent script or a catalog file). */
  'file:read': { request: z.strictObject({ path: RelativePathSchema }), response: z.object({ text: z.string() }) },
  /** Saves an agent script (`*.lua`) atomically. Catalog files go through `catalog:write`. */
  'file:write': {
    request: z.strictObject({ path: RelativePathSchema, text: z.string() }),
    response: z.object({ saved: z.literal(true) }),
  },

  /**
   * Creates `agents/<name>.lua` from a template (atomically). Refused with `name-taken`,
   * `invalid-name` (empty, slash, `.`/`..`/hidden, reserved device name, control character, too
   * long), each with a message saying what to change.
   */
  'file:create': {
    request: z.strictObject({ name: AgentNameSchema, template: AgentTemplateSchema.optional() }),
    response: AgentFileResultSchema,
  },
  /** Writes `text` (the editor's buffer) as a new agent `agents/<name>.lua`; the original stays. */
  'file:save-as': {
    request: z.strictObject({ name: AgentNameSchema, text: z.string() }),
    response: AgentFileResultSchema,
  },
  /**
   * Renames an agent, and its recording (`recordings/<name>.jsonl`) with it. Refused with
   * `agent-running` while a run of it is in progress, and with the same name errors as `file:create`.
   */
  'file:rename': {
    request: z.strictObject({ path: RelativePathSchema, name: AgentNameSchema }),
    response: AgentFileResultSchema,
  },
  /**
   * Deletes an agent and its recording; its past runs stay in History. Refused with
   * `agent-running` while a run of it is in progress.
   */
  'file:delete': {
    request: z.strictObject({ path: RelativePathSchema }),
    response: z.object({ deleted: z.literal(true), recording: z.string().nullable() }),
  },

  /** The workspace's files for the file tree and quick open: bounded, without `.git` and `node_modules`. */
  'files:list': { request: z.strictObject({}), response: WorkspaceFilesSchema },
  /**
   * One file of the workspace as the viewer shows it: its text (at most 2 MiB), or why not
   * (too large, binary, not a regular file). Refused with `outside-workspace` for a path, or a
   * link, that leads outside the workspace.
   */
  'file:view': { request: z.strictObject({ path: RelativePathSchema }), response: FileViewSchema },

  /**
   * Chooses the model of an agent's live runs in the open workspace (`null`: its default again).
   * Kept in the user's config folder, per workspace and agent; no workspace file changes. Refused
   * with `unknown-model` when models.yaml does not define it. `workspace-changed` follows.
   */
  'model:choose': {
    request: z.strictObject({ path: RelativePathSchema, model: z.string().min(1).max(1024).nullable() }),
    response: z.object({ chosen: z.string().nullable() }),
  },
  /**
   * Makes `model` the agent's default for everyone who shares the workspace: writes
   * `agents: { <path>: { model } }` in promptforge.yaml (comments kept), and forgets the person's
   * own choice, which it now equals. Refused with `unknown-model`, or `catalog-invalid` when
   * promptforge.yaml does not parse or the edit would add an error.
   */
  'model:make-default': {
    request: z.strictObject({ path: RelativePathSchema, model: z.string().min(1).max(1024) }),
    response: z.object({ saved: z.literal(true) }),
  },

  /** The spending cap the studio applies to every run it starts (tokens, US dollars), kept in the config folder. */
  'settings:spending-cap': { request: z.strictObject({}), response: SpendingCapSettingSchema },
  /** Sets the spending cap (null: none). A run reaching it ends with status `limit` at that round. */
  'settings:set-spending-cap': {
    request: z.strictObject({
      maxTokens: z.number().positive().max(1e12).nullable(),
      maxCost: z.number().positive().max(1e9).nullable(),
    }),
    response: SpendingCapSettingSchema,
  },

  /**
   * Tries one call of a catalog tool (builtin, command, http or mcp) as a recorded run: the same
   * dispatcher, approval gate, trust rules and envelope as a script's `tools.call`. Events follow
   * as `run-event`, approvals as `approval-pending`; the transcript joins History. Arguments that
   * fail the tool's schema are refused up front with `invalid-arguments`.
   */
  'tool:trial': {
    request: z.strictObject({ alias: z.string().min(1), arguments: z.record(z.string(), z.json()) }),
    response: z.object({ runId: z.string() }),
  },
  /**
   * Checks arguments against a tool's JSON Schema with the core's ajv: the very validator the
   * dispatcher runs, so the studio shows the core's verdict. With `runId`, the tool as that run's
   * catalog has it (an approval card); otherwise the open workspace's.
   */
  'args:check': {
    request: z.strictObject({ alias: z.string().min(1), arguments: z.json(), runId: z.string().min(1).optional() }),
    response: ArgumentsVerdictSchema,
  },

  /** Validates catalog text without saving it (live validation in the editors). */
  'catalog:check': {
    request: z.strictObject({ file: CatalogFileSchema, text: z.string() }),
    response: z.object({ problems: z.array(CatalogProblemSchema) }),
  },
  /** Saves a catalog file atomically when it has no errors; otherwise returns the problems. */
  'catalog:write': {
    request: z.strictObject({ file: CatalogFileSchema, text: z.string() }),
    response: z.object({ saved: z.boolean(), problems: z.array(CatalogProblemSchema) }),
  },

  /** Starts a run of an agent; `text` runs the editor's unsaved buffer. Events follow as `run-event`. */
  'run:start': {
    request: z.strictObject({
      script: RelativePathSchema,
      text: z.string().optional(),
      model: z.string().min(1).optional(),
      /**
       * The person's message to the agent: the script receives it as `...` (`local message = ...`),
       * and its run-start records it. At most 100,000 characters.
       */
      input: z.string().max(100_000).optional(),
      /** A workspace-relative transcript to replay offline. */
      replay: RelativePathSchema.optional(),
      /** Lower limits for this run; the studio refuses to raise them above the defaults (30 s, 256 MiB). */
      cpuLimitSeconds: z.number().positive().optional(),
      memoryLimitMiB: z.number().positive().optional(),
      timeoutSeconds: z.number().positive().optional(),
    }),
    response: z.object({ runId: z.string() }),
  },
  /**
   * Forks a run at a step: a new run of the same script, answered from the parent's transcript up
   * to the step (with the edit applied there), then live with `model` or on replay while the
   * recording matches. Refused with `fork-past-end` (naming the last step), `fork-not-a-step`,
   * `fork-bad-edit`, or `script-changed` (the script differs from the parent's; `force` forks anyway).
   */
  'run:fork': { request: ForkRequestSchema, response: z.object({ runId: z.string() }) },
  /** Stops a run at once; its pending calls are cancelled. */
  'run:stop': { request: z.strictObject({ runId: z.string().min(1) }), response: z.object({ stopped: z.boolean() }) },

  /** Every call waiting for a person. */
  'approval:list': { request: z.strictObject({}), response: z.array(PendingApprovalSchema) },
  /** Approves, approves with edited arguments, denies with a reason, or allows the tool for the run. */
  'approval:decide': {
    request: z.strictObject({ runId: z.string().min(1), callId: z.string().min(1), decision: StudioDecisionSchema }),
    response: z.object({ ok: z.literal(true) }),
  },

  /**
   * Keychain status per provider, and per secret the open workspace's tools.yaml names (empty
   * without a workspace): `set` or not, never the key.
   */
  'keys:status': {
    request: z.strictObject({}),
    response: z.object({
      available: z.boolean(),
      error: z.string().nullable(),
      keys: z.array(KeyStatusSchema),
      secrets: z.array(WorkspaceSecretStatusSchema),
    }),
  },
  /**
   * Stores or replaces a provider key, or a secret the open workspace's tools.yaml names, in the
   * OS keychain (the same entry `promptforge keys set NAME` writes). The key only travels
   * renderer → main. A secret the workspace does not name is refused with `unknown-secret`.
   */
  'keys:set': {
    request: z.union([
      z.strictObject({ provider: z.string().min(1), key: keyValue }),
      z.strictObject({ secret: z.string().min(1), key: keyValue }),
    ]),
    response: z.object({ replaced: z.boolean() }),
  },
  /** Deletes a provider key, or a secret the open workspace's tools.yaml names, from the OS keychain. */
  'keys:delete': {
    request: z.union([z.strictObject({ provider: z.string().min(1) }), z.strictObject({ secret: z.string().min(1) })]),
    response: z.object({ deleted: z.boolean() }),
  },

  /**
   * Saves a copy of a run's transcript where the person chooses: main shows the save dialog
   * (suggesting `<runId>.jsonl`) and copies the file as a stream, so a run of any size exports.
   * `path` is where it was saved; `null` when the person cancelled.
   */
  'history:export': {
    request: z.strictObject({ runId: z.string().min(1) }),
    response: z.object({ path: absolutePath.nullable() }),
  },
  /**
   * A window of a run's transcript: `count` lines from line `from` (0-based). The studio opens a
   * run of any size this way and reads the rest on demand; a live run's later events also arrive
   * as `run-event`. A page past the end is empty, with the real `total`.
   */
  'history:page': {
    request: z.strictObject({
      runId: z.string().min(1),
      from: z.number().int().nonnegative(),
      count: z.number().int().positive().max(5000),
    }),
    response: TranscriptPageSchema,
  },
  /**
   * Two runs side by side, read as streams only as far as needed: without `from`, the rows around
   * the first difference; with `from` (1-based), `count` rows from there. Also says which runs they
   * are (agent, start), whether their scripts differ, and where a fork meets its parent.
   */
  'history:compare': {
    request: z.strictObject({
      left: z.string().min(1),
      right: z.string().min(1),
      from: z.number().int().positive().optional(),
      count: z.number().int().positive().max(1000).optional(),
    }),
    response: RunComparisonSchema,
  },

  /**
   * The workspace's MCP servers, their status and tools; starts each server that is not running.
   * Only the person's explicit "list" asks this: opening a folder or a file changing never does.
   */
  'mcp:list': { request: z.strictObject({}), response: McpServersSchema },
  /** The MCP servers as they are now, starting none. */
  'mcp:status': { request: z.strictObject({}), response: McpServersSchema },
  /** Stops an MCP server (and its process tree) and starts it again. */
  'mcp:restart': { request: z.strictObject({ server: z.string().min(1) }), response: McpServersSchema },
  /** Stops an MCP server and its process tree; the next use starts it again. */
  'mcp:stop': { request: z.strictObject({ server: z.string().min(1) }), response: McpServersSchema },
  /** The servers' questions, resources, prompts and sign-in (common/mcp-contract.ts). */
  ...mcpContractMethods,

  /**
   * The open workspace's test files (every .yaml under `tests/`) with their cases, or the mistakes in each
   * (file, line, field, fix), and this session's latest suite run with its results so far.
   */
  'tests:list': { request: z.strictObject({}), response: TestsListingSchema },
  /**
   * Runs the cases (all of them, one file's, or one case by id) with `promptforge test`'s runner on
   * the studio's workers, recorded under `runs/tests/SUITE/` (never in History). Progress and each
   * result follow as `tests-progress`. Refused with `workspace-restricted` when the workspace is
   * not trusted and a case would run anything of it (tests never run restricted), `tests-running`
   * while a suite runs, `no-tests` when nothing matches, and `test-file-problems` when a selected
   * file has mistakes.
   */
  'tests:run': {
    request: z.strictObject({ file: RelativePathSchema.optional(), case: z.string().min(1).max(1000).optional() }),
    response: z.object({ suiteRunId: z.string(), total: z.number().int().nonnegative() }),
  },
  /** Stops the running suite: its running cases stop, the rest do not start. */
  'tests:stop': { request: z.strictObject({}), response: z.object({ stopped: z.boolean() }) },
  /**
   * Writes a new test file `tests/<name>.yaml` (`.yaml` added when missing) with a starter case for
   * `agent` (an agent of the workspace; without it, the first). Runs nothing, so a restricted
   * workspace may too. Refused with `invalid-name` (empty, a slash, hidden or `..`, a control or
   * invisible character, too long…), `name-taken` (never overwrites), `not-found` (no such agent,
   * or none) and `outside-workspace` (tests/ leads outside through a link), each saying what to change.
   */
  'tests:create': {
    request: z.strictObject({ name: z.string().max(4096), agent: RelativePathSchema.optional() }),
    response: z.object({ file: RelativePathSchema }),
  },

  /** The open workspace's trust: restricted or trusted, its manifest, and what changed since. */
  'trust:status': { request: z.strictObject({}), response: WorkspaceTrustSchema },
  /**
   * Asks the person, in main's own dialog (never the page), whether to trust the open workspace
   * as shown: `digest` is the manifest the page showed. A workspace that changed meanwhile is
   * refused with `trust-changed` and must be shown again. `granted` is false when the person
   * said no.
   */
  'trust:grant': {
    request: z.strictObject({ digest: z.string().min(1) }),
    response: z.object({ granted: z.boolean(), trust: WorkspaceTrustSchema }),
  },
  /** Trusted workspaces and approved key origins. */
  'trust:list': { request: z.strictObject({}), response: TrustListSchema },
  /** Stops trusting a workspace: its MCP servers stop and its pending calls are refused. */
  'trust:revoke': { request: z.strictObject({ path: z.string().min(1) }), response: TrustListSchema },
  /**
   * Asks the person, in main's own dialog, whether the open workspace's model `model` may send
   * its requests (with its provider's key) to the origin its `baseUrl` names; kept as an approved
   * key origin for that provider. `allowed` is false when the person said no. `unknown-model`
   * when models.yaml has no such model.
   */
  'trust:allow-key-origin': {
    request: z.strictObject({ model: z.string().min(1) }),
    response: z.object({ allowed: z.boolean(), list: TrustListSchema }),
  },
  /** Withdraws an approved key origin. */
  'trust:revoke-key-origin': {
    request: z.strictObject({ provider: z.string().min(1), origin: z.string().min(1) }),
    response: TrustListSchema,
  },

  /** The person's approval rules (the file in their config folder), for the Rules view. */
  'rules:list': { request: z.strictObject({}), response: RulesListingSchema },
  /**
   * The narrowest allow rule covering a waiting call (this tool, these argument values, this
   * workspace, this definition), and the ways the core found to widen it. `not-found` when the call
   * no longer waits.
   */
  'rules:propose': { request: CallRefSchema, response: RuleProposalSchema },
  /**
   * A rule in words, its problems, and with `call` whether it covers that waiting call; `replaces`
   * names the rule it would replace (its confirmed definitions stay).
   */
  'rules:describe': {
    request: z.strictObject({
      rule: z.unknown(),
      call: CallRefSchema.optional(),
      replaces: z.string().min(1).optional(),
    }),
    response: RuleWordsSchema,
  },
  /**
   * Saves a rule (new, or in place of rule `replaces`) to the rules file in the person's config
   * folder, never a workspace, if the person says yes in main's own dialog, which names the rule.
   * With `approve`, a waiting call the rule covers (and that carries no untrusted text) runs too;
   * the rule is confirmed on the definition that call's card showed. `saved` is false when the
   * person said no; `rules-changed` (`revision` differs from the file's), `rules-file-broken`.
   */
  'rules:save': {
    request: z.strictObject({
      rule: RuleDraftSchema,
      replaces: z.string().min(1).optional(),
      revision: z.string().optional(),
      approve: CallRefSchema.optional(),
    }),
    response: z.object({ saved: z.boolean(), approved: z.boolean(), note: z.string(), listing: RulesListingSchema }),
  },
  /**
   * Turns rule `id` on or off. A change that may let calls run without asking (turning an allow
   * rule on, a deny or ask rule off) happens only with the person's yes in main's dialog.
   */
  'rules:set-enabled': {
    request: z.strictObject({ id: z.string().min(1), enabled: z.boolean(), revision: z.string().optional() }),
    response: z.object({ changed: z.boolean(), listing: RulesListingSchema }),
  },
  /** Deletes rule `id`, with the person's yes in main's dialog. */
  'rules:delete': {
    request: z.strictObject({ id: z.string().min(1), revision: z.string().optional() }),
    response: z.object({ deleted: z.boolean(), listing: RulesListingSchema }),
  },
} as const satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;

/** The name of an IPC method, e.g. `app:info`. */
export type ContractMethodName = keyof typeof contractMethods;

/** The name of a pushed event, e.g. `run-event`. */
export type ContractEventName = keyof typeof contractEvents;

/** The request payload type of method `M` (what the renderer sends). */
export type ContractRequest<M extends ContractMethodName> = z.input<(typeof contractMethods)[M]['request']>;

/** The response type of method `M` (what main returns on success). */
export type ContractResponse<M extends ContractMethodName> = z.output<(typeof contractMethods)[M]['response']>;

/**
 * A keychain entry the page may write or delete: a provider's key, or a secret the open
 * workspace's tools.yaml names (the entry `promptforge keys set NAME` writes).
 */
export type KeyTarget = ContractRequest<'keys:delete'>;

/** The payload type of event `E`. */
export type ContractEventPayload<E extends ContractEventName> = z.output<(typeof contractEvents)[E]>;

/** The response of `app:info`. */
export type AppInfo = ContractResponse<'app:info'>;

/** Every method name, in table order. Used to build `window.promptforge` and register handlers. */
export const contractMethodNames = Object.keys(contractMethods) as ContractMethodName[];

/** Every event name, in table order. */
export const contractEventNames = Object.keys(contractEvents) as ContractEventName[];

/** Whether `name` is a method of the contract (a runtime guard for untrusted strings). */
export function isContractMethodName(name: unknown): name is ContractMethodName {
  return typeof name === 'string' && Object.hasOwn(contractMethods, name);
}

/** Whether `name` is an event of the contract (a runtime guard for untrusted strings). */
export function isContractEventName(name: unknown): name is ContractEventName {
  return typeof name === 'string' && Object.hasOwn(contractEvents, name);
}
