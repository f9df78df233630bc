import type { JsonObject } from '../../../common/json.js';
import type { ArgumentProblem } from '../../../common/studio-schemas.js';
import type { ApprovalDecision, ApprovalGate, ApprovalRequest } from '../approval/approval-types.js';
import { ToolCatalogImpl } from '../catalog/tool-catalog.js';
import type { Workspace } from '../catalog/workspace.js';
import type { McpServerSpec } from '../catalog/mcp-spec.js';
import {
  ToolFailure,
  type ApprovalPolicy,
  type ToolCatalog,
  type ToolRunner,
  type ToolSpec,
  type Trust,
} from '../tools/tool-spec.js';
import { builtinDefaultsOf } from './workspace-manifest.js';
import { wordsFor, type Surface } from '../surface-words.js';

/** The builtins whose output is the workspace's own files. */
const WORKSPACE_READERS = new Set(['read_file', 'list_files']);

/** Why a tool of a restricted workspace does not run, or undefined when it may (asking first). */
export function restrictedRefusal(tool: ToolSpec, surface?: Surface): string | undefined {
  const settings = tool.settings;
  const howToTrust = wordsFor(surface).trustWorkspace;
  if (settings.kind === 'command')
    return `the workspace is restricted (not trusted), and its command tools do not run until you ${howToTrust}`;
  if (settings.kind === 'mcp')
    return `the workspace is restricted (not trusted), and its MCP servers do not start until you ${howToTrust}`;
  if (settings.kind === 'http' && Object.values(settings.headers ?? {}).some((value) => typeof value !== 'string'))
    return `the workspace is restricted (not trusted), and its http tools that send a secret do not run until you ${howToTrust}`;
  return undefined;
}

/**
 * `tool` as a restricted workspace gets it: the workspace's own `approval: auto` becomes `ask`,
 * `trust: trusted` becomes `untrusted` and `taintCheck: false` becomes true. PromptForge's own
 * builtins (and a builtin declared in tools.yaml that keeps their trust) keep their defaults
 * except that every call asks. `deny` stays.
 */
export function restrictTool(tool: ToolSpec): ToolSpec {
  // A builtin keeps the trust PromptForge gives it, declared in tools.yaml or not; a label the
  // workspace chose is dropped (see the manifest's policy items).
  // Builtins that read the workspace's files hand the model text the workspace wrote: untrusted here.
  const readsWorkspace = tool.settings.kind === 'builtin' && WORKSPACE_READERS.has(tool.settings.builtin);
  const ownTrust =
    !readsWorkspace &&
    tool.settings.kind === 'builtin' &&
    (tool.source === '<builtin>' || tool.trust === builtinDefaultsOf(tool)?.trust);
  // A restricted workspace can make things stricter (sinks) but never looser (tolerant arguments).
  const { tolerant: _dropped, ...kept } = tool;
  return {
    ...kept,
    approval: tool.approval === 'deny' ? 'deny' : 'ask',
    trust: ownTrust ? tool.trust : 'untrusted',
    taintCheck: true,
  };
}

/**
 * The workspace a restricted run sees: the same catalogs, shown and editable, with every tool
 * restricted ({@link restrictTool}). Its MCP servers stay listed (for the stand-ins of
 * {@link RestrictedCatalog}) but nothing starts them.
 */
export function restrictWorkspace(workspace: Workspace): Workspace {
  return {
    ...workspace,
    tools: new ToolCatalogImpl(workspace.tools.list().map(restrictTool)),
    // A server's own policies (its replayed stand-ins take them) are ignored like a tool's.
    ...(workspace.mcpServers && { mcpServers: workspace.mcpServers.map(restrictServer) }),
  };
}

function restrictServer(server: McpServerSpec): McpServerSpec {
  const policy = <T extends { trust?: Trust; approval?: ApprovalPolicy; taintCheck?: boolean }>(entry: T): T => ({
    ...entry,
    ...(entry.trust !== undefined && { trust: 'untrusted' }),
    ...(entry.approval !== undefined && { approval: entry.approval === 'deny' ? 'deny' : 'ask' }),
    ...(entry.taintCheck !== undefined && { taintCheck: true }),
  });
  return {
    ...policy(server),
    overrides: Object.fromEntries(Object.entries(server.overrides).map(([name, override]) => [name, policy(override)])),
  };
}

/**
 * A restricted run's catalog: the restricted tools, plus a stand-in for any alias one of the
 * workspace's MCP servers could own, so a script that advertises or calls it gets the refusal
 * that names workspace trust instead of "unknown tool". Stand-ins accept any arguments object.
 */
export class RestrictedCatalog implements ToolCatalog {
  private readonly standIns = new Map<string, ToolSpec>();

  constructor(
    private readonly base: ToolCatalog,
    private readonly servers: readonly McpServerSpec[],
  ) {}

  get(alias: string): ToolSpec | undefined {
    return this.base.get(alias) ?? this.standIn(alias);
  }

  list(): ToolSpec[] {
    return this.base.list();
  }

  validateArguments(alias: string, args: JsonObject): string | undefined {
    return this.standIn(alias) && !this.base.get(alias) ? undefined : this.base.validateArguments(alias, args);
  }

  argumentProblems(alias: string, args: unknown): ArgumentProblem[] | undefined {
    return this.standIn(alias) && !this.base.get(alias) ? [] : this.base.argumentProblems(alias, args);
  }

  validateOutput(alias: string, output: unknown): string | undefined {
    return this.base.validateOutput(alias, output);
  }

  private standIn(alias: string): ToolSpec | undefined {
    const known = this.standIns.get(alias);
    if (known) return known;
    const server =
      this.servers.find((candidate) => candidate.prefix !== '' && alias.startsWith(candidate.prefix)) ??
      this.servers.find((candidate) => candidate.prefix === '');
    if (!server) return undefined;
    const spec: ToolSpec = {
      alias,
      description: `[from MCP server "${server.name}", not started: the workspace is not trusted]`,
      parameters: { type: 'object' },
      trust: 'untrusted',
      approval: 'ask',
      taintCheck: true,
      settings: {
        kind: 'mcp',
        server: server.name,
        tool: alias.slice(server.prefix.length),
        timeoutMs: server.timeoutMs,
      },
      source: `${server.location.file} (MCP server "${server.name}")`,
    };
    this.standIns.set(alias, spec);
    return spec;
  }
}

/**
 * A restricted run's gate: a call of a tool that does not run in restricted mode is denied before
 * anyone is asked, with the reason that names workspace trust; every other call goes to `gate`.
 */
export function refusingGate(gate: ApprovalGate, catalog: Pick<ToolCatalog, 'get'>, surface?: Surface): ApprovalGate {
  return {
    async decide(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
      const tool = catalog.get(request.alias);
      const refusal = tool && restrictedRefusal(tool, surface);
      if (refusal) return { kind: 'deny', source: 'policy', at: new Date().toISOString(), reason: refusal };
      return gate.decide(request, signal);
    },
  };
}

/** A restricted run's runner: the second lock on the same door, should any path reach it. */
export function refusingRunner(runner: ToolRunner, surface?: Surface): ToolRunner {
  return {
    run(tool, args, signal) {
      const refusal = restrictedRefusal(tool, surface);
      if (refusal) return Promise.reject(new ToolFailure(refusal));
      return runner.run(tool, args, signal);
    },
  };
}
