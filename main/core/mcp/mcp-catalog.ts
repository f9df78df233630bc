import type { JsonObject, JsonValue } from '../../../common/json.js';
import type { ArgumentProblem } from '../../../common/studio-schemas.js';
import type { CatalogProblem } from '../catalog/catalog-problem.js';
import { ToolCatalogImpl } from '../catalog/tool-catalog.js';
import type { ToolCatalog, ToolSpec, ToolUnavailable } from '../tools/tool-spec.js';
import type { McpServerManager } from './mcp-manager.js';
import type { McpServerSpec } from '../catalog/mcp-spec.js';

/** MCP tools whose definition changed in a rebuild of the catalog (see {@link McpAwareCatalog.onDefinitionsChanged}). */
export interface McpDefinitionChange {
  /** Aliases still listed whose description, schemas, trust, approval, taint check or settings differ. */
  changed: string[];
  /** Aliases no longer listed (the server dropped the tool, stopped listing it, or lost the alias to another server). */
  removed: string[];
}

/**
 * A run's tool catalog: the workspace's tools plus the MCP tools listed so far. When a server says
 * its tools changed (`notifications/tools/list_changed`), restarts, or starts for the first time,
 * the MCP part is rebuilt, so later calls see the new list. Argument and output validation are the
 * ordinary catalog's.
 *
 * With servers started lazily, the run makes an alias available before it looks it up: `await
 * catalog.prepare([alias, ...])` when a script first advertises aliases to a model or calls one;
 * {@link get} stays synchronous and only sees what is listed. {@link onDefinitionsChanged} tells
 * when a listed tool's definition changed or went away, so an approval gate can withdraw calls
 * waiting on the definition the person would no longer be shown.
 */
export class McpAwareCatalog implements ToolCatalog {
  private current: ToolCatalogImpl;
  /** The fingerprint of each MCP tool in {@link current}, by alias. */
  private fingerprints: Map<string, string>;
  private readonly unsubscribe: () => void;
  private readonly definitionListeners = new Set<(change: McpDefinitionChange) => void>();
  private known: number;
  /** The problems {@link prepare} returned, so that each is returned once. */
  private readonly reported = new Set<string>();

  constructor(
    private readonly base: readonly ToolSpec[],
    private readonly manager: McpServerManager,
  ) {
    const listed = manager.currentTools();
    this.current = new ToolCatalogImpl([...base, ...listed]);
    this.fingerprints = fingerprintsOf(listed);
    this.known = manager.toolsVersion;
    this.unsubscribe = manager.onChange(() => this.refresh());
  }

  get(alias: string): ToolSpec | undefined {
    return this.current.get(alias);
  }

  list(): ToolSpec[] {
    return this.current.list();
  }

  validateArguments(alias: string, args: JsonObject): string | undefined {
    return this.current.validateArguments(alias, args);
  }

  /** See {@link ToolCatalogImpl.argumentProblems}. */
  argumentProblems(alias: string, args: unknown): ArgumentProblem[] | undefined {
    return this.current.argumentProblems(alias, args);
  }

  validateOutput(alias: string, output: unknown): string | undefined {
    return this.current.validateOutput(alias, output);
  }

  /**
   * Makes `aliases` available before they are looked up: for each alias the catalog does not hold,
   * the servers that may own it are started and listed (McpServerManager.ensureFor; a server
   * already started or failed is not started again). Resolves, never rejects, once they are
   * settled and the catalog is rebuilt: {@link get} then returns each alias some server lists.
   * Returns the problems of those servers (a failed start, dropped tools) that this catalog has
   * not returned before, for the run to report once each; an alias no server lists is simply
   * still unknown.
   */
  async prepare(aliases: Iterable<string>): Promise<CatalogProblem[]> {
    const missing = [...new Set(aliases)].filter((alias) => this.current.get(alias) === undefined);
    if (missing.length === 0) return [];
    const results = await Promise.all(missing.map((alias) => this.manager.ensureFor(alias)));
    this.refresh();
    const problems: CatalogProblem[] = [];
    for (const problem of results.flatMap((result) => result.problems)) {
      const key = `${problem.file}\u0000${problem.pointer}\u0000${problem.message}`;
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      problems.push(problem);
    }
    return problems;
  }

  /** Why an alias the catalog does not hold is missing, when a server that may own it failed (see McpServerManager.unavailable). */
  unavailable(alias: string): ToolUnavailable | undefined {
    return this.current.get(alias) === undefined ? this.manager.unavailable(alias) : undefined;
  }

  /**
   * Calls `listener` each time a rebuild changes or removes MCP tools that were listed before (a
   * tool that only appears is not a change), with their aliases. It runs synchronously inside the
   * rebuild, before any later lookup sees the new definitions. Returns the unsubscribe.
   */
  onDefinitionsChanged(listener: (change: McpDefinitionChange) => void): () => void {
    this.definitionListeners.add(listener);
    return () => this.definitionListeners.delete(listener);
  }

  /** Stops following the manager. */
  dispose(): void {
    this.unsubscribe();
    this.definitionListeners.clear();
  }

  /** Rebuilds the MCP part when the manager's entries changed, and tells who listens what changed. */
  private refresh(): void {
    if (this.manager.toolsVersion === this.known) return;
    this.known = this.manager.toolsVersion;
    const listed = this.manager.currentTools();
    this.current = new ToolCatalogImpl([...this.base, ...listed]);
    const before = this.fingerprints;
    this.fingerprints = fingerprintsOf(listed);
    const change: McpDefinitionChange = { changed: [], removed: [] };
    for (const [alias, print] of before) {
      const now = this.fingerprints.get(alias);
      if (now === undefined) change.removed.push(alias);
      else if (now !== print) change.changed.push(alias);
    }
    if (change.changed.length === 0 && change.removed.length === 0) return;
    for (const listener of [...this.definitionListeners]) listener(change);
  }
}

/** A canonical text of everything a person approves a call against, for each MCP tool. */
function fingerprintsOf(tools: readonly ToolSpec[]): Map<string, string> {
  const prints = new Map<string, string>();
  for (const tool of tools) {
    const { alias, description, parameters, outputSchema, trust, approval, taintCheck, settings } = tool;
    prints.set(
      alias,
      canonical({
        description,
        parameters,
        outputSchema: outputSchema ?? null,
        trust,
        approval,
        taintCheck,
        settings: settings as unknown as JsonValue,
      }),
    );
  }
  return prints;
}

/** JSON text with object keys sorted, so a server that reorders keys changes nothing. */
function canonical(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key]!)}`).join(',')}}`;
}

/**
 * Catalog entries for a replay, which starts no server: each alias the recording used that is
 * not a catalog tool and carries an MCP server's prefix becomes a stand-in entry, so a replayed
 * script may still advertise it to `models.chat`. Replay answers the calls from the recording.
 *
 * Only the alias comes from the recording. Trust, approval, taint check and timeout are the
 * catalog's for that tool (the server's entry and its per-tool override in tools.yaml), so a
 * recording can never raise a tool's trust; a tool the entry leaves out (`include`, `exclude`)
 * gets no stand-in.
 */
export function replayedMcpTools(
  servers: readonly McpServerSpec[],
  recordedAliases: readonly string[],
  known: ReadonlySet<string>,
): ToolSpec[] {
  const tools: ToolSpec[] = [];
  const added = new Set<string>();
  for (const alias of recordedAliases) {
    if (known.has(alias) || added.has(alias)) continue;
    const server = servers.find(
      (candidate) =>
        candidate.prefix !== '' && alias.startsWith(candidate.prefix) && alias.length > candidate.prefix.length,
    );
    if (!server) continue;
    const tool = alias.slice(server.prefix.length);
    if ((server.include && !server.include.includes(tool)) || server.exclude.includes(tool)) continue;
    const override = Object.hasOwn(server.overrides, tool) ? server.overrides[tool]! : {};
    added.add(alias);
    tools.push({
      alias,
      description: `[from MCP server "${server.name}", replayed]`,
      parameters: { type: 'object' },
      trust: override.trust ?? server.trust,
      approval: override.approval ?? server.approval,
      taintCheck: override.taintCheck ?? server.taintCheck,
      settings: {
        kind: 'mcp',
        server: server.name,
        tool,
        timeoutMs: override.timeoutMs ?? server.timeoutMs,
      },
      source: `${server.location.file} (MCP server "${server.name}", replayed)`,
    });
  }
  return tools;
}
