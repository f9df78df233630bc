// The workspace manifest: what trusting a folder allows (command tools, MCP servers, key origins,
// secrets and its own policies), built from the parsed catalogs, and its digest.
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { ManifestItem } from '../../../common/trust-schemas.js';
import type { Workspace } from '../catalog/workspace.js';
import type { McpServerSpec } from '../catalog/mcp-spec.js';
import type { ToolSpec } from '../tools/tool-spec.js';
import { builtinDefaults, isBuiltinToolName } from '../tools/builtin-tools.js';
import { providerPreset } from '../providers/presets.js';
import { canonicalJson } from '../tools/tool-definition.js';
import { quoteArg, visible } from './manifest-words.js';
import {
  hashBudget,
  localRunnerPackages,
  mcpServerFiles,
  namedFiles,
  packageRunnerWarnings,
  safeRealpath,
  type ManifestFile,
} from './runner-files.js';

/** What trusting a workspace allows. Built by {@link workspaceManifest}; compared by {@link manifestDiff}. */
export interface WorkspaceManifest {
  items: ManifestItem[];
  files: ManifestFile[];
  /**
   * The parsed values the items describe (argv, cwd, env, headers, URLs, policies), as they are:
   * the digest covers these, not the shown text, so two values shown alike (a real newline and
   * the text `\u{a}`) never share a digest. Not kept in the trust file.
   */
  raw?: unknown;
}

/**
 * Variables that change how a program loads code: set by a workspace, they run code of its choice
 * inside a program that looks harmless (`npx @official/server` with `NODE_OPTIONS=--require ./x.cjs`).
 * Matched without regard to case (Windows variables are case-insensitive).
 */
const LOADER_VARIABLE =
  /^(NODE_OPTIONS|NODE_PATH|NODE_EXTRA_CA_CERTS|NODE_REPL_EXTERNAL_MODULE|LD_.*|DYLD_.*|PATH|PATHEXT|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PYTHONUSERBASE|PERL5LIB|PERL5OPT|RUBYLIB|RUBYOPT|CLASSPATH|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|BASH_ENV|ENV|ZDOTDIR|GIT_.*|NPM_CONFIG_.*|COMSPEC|ELECTRON_RUN_AS_NODE|GCONV_PATH|HOME|TMPDIR)$/i;

/** Variables a workspace may set without a second look (locale, colour, log level). */
const HARMLESS_VARIABLE =
  /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|NO_COLOR|FORCE_COLOR|TERM|COLUMNS|LINES|DEBUG|LOG_LEVEL|RUST_LOG|NODE_ENV)$/i;

/**
 * The manifest of `workspace`: its command tools (argv, cwd, env), MCP servers (command or URL,
 * env, headers), the non-default base URLs its models send a provider key to, the secrets it names
 * and where each goes, and its own `approval: auto`, `trust: trusted` and `taintCheck: false`.
 * Built from the parsed catalogs, so YAML spelling (anchors, aliases, quoting, key order) does not
 * change it; the bytes of the workspace files a command or server names are hashed in. Pure apart
 * from reading those files.
 */
export function workspaceManifest(workspace: Workspace): WorkspaceManifest {
  const items: ManifestItem[] = [];
  const files = new Map<string, ManifestFile>();
  const realRoot = safeRealpath(workspace.root) ?? workspace.root;
  const budget = hashBudget();
  const noteFiles = (tokens: readonly string[], cwd: string): void => {
    for (const file of namedFiles(realRoot, cwd, tokens, budget)) files.set(file.path, file);
  };

  for (const tool of workspace.tools.list()) {
    const settings = tool.settings;
    if (settings.kind === 'command') {
      const cwd = path.resolve(realRoot, settings.cwd ?? '.');
      const local = localRunnerPackages(settings.command, cwd, realRoot);
      const warnings = [...packageRunnerWarnings(settings.command), ...local.warnings];
      items.push({
        id: `command:${tool.alias}`,
        kind: 'command',
        title: `Command tool "${visible(tool.alias)}"`,
        details: [
          `runs: ${settings.command.map(quoteArg).join(' ')}`,
          `in: ${visible(settings.cwd ?? '.')}`,
          `gets your variables: ${settings.env?.length ? settings.env.map(visible).join(', ') : 'none'}`,
        ],
        warnings,
        source: tool.source,
      });
      noteFiles([...settings.command, ...local.folders], cwd);
    }
    policyItems(items, tool);
  }
  for (const server of workspace.mcpServers ?? []) {
    const item = mcpItem(server);
    items.push(item);
    for (const file of mcpServerFiles(realRoot, server, budget, item.warnings)) files.set(file.path, file);
    serverPolicyItems(items, server);
  }
  for (const model of workspace.models.list()) {
    if (model.provider === 'replay' || model.baseUrl === undefined) continue;
    const preset = providerPreset(model.provider);
    const origin = originOf(model.baseUrl);
    const home = preset?.defaultBaseUrl === undefined ? undefined : originOf(preset.defaultBaseUrl);
    if (origin !== undefined && origin === home) continue;
    items.push({
      id: `key-origin:${model.alias}`,
      kind: 'key-origin',
      title: `Model "${visible(model.alias)}" sends requests to ${visible(model.baseUrl)}`,
      details: [`provider: ${model.provider}`, `base URL: ${visible(model.baseUrl)}`],
      warnings: [
        `Your ${preset?.label ?? model.provider} key is sent there only if you approve ${visible(origin ?? model.baseUrl)} for it`,
      ],
      source: model.source,
    });
  }
  for (const [name, uses] of secretUses(workspace)) {
    items.push({
      id: `secret:${name}`,
      kind: 'secret',
      title: `Secret "${visible(name)}"`,
      details: uses.map((use) => `goes to: ${use}`),
      warnings: [],
      source: 'tools.yaml',
    });
  }
  items.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return {
    items,
    files: [...files.values()].sort((a, b) => (a.path < b.path ? -1 : 1)),
    raw: rawFacts(workspace, items),
  };
}

/** The manifest's digest: sha256 over its items (without their `source`) and the named files' bytes. */
export function manifestDigest(manifest: WorkspaceManifest): string {
  const covered = {
    version: 2,
    items: manifest.items.map(({ source: _source, ...item }) => item),
    files: manifest.files,
    raw: manifest.raw ?? null,
  };
  return createHash('sha256').update(canonicalJson(covered)).digest('hex');
}

/**
 * Whether trusting changes nothing: nothing to run, no secret to send, no policy of its own. Base
 * URLs alone need no workspace trust: a key goes to one only when the person approved that origin
 * for that key (see key-origins.ts), trusted workspace or not.
 */
export function manifestIsEmpty(manifest: WorkspaceManifest): boolean {
  return manifest.items.every((item) => item.kind === 'key-origin');
}

/** The origin (`scheme://host:port`) of a URL, or undefined when it is not one. */
export function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

function mcpItem(server: McpServerSpec): ManifestItem {
  const transport = server.transport;
  const warnings: string[] = [];
  const details: string[] = [];
  if (transport.type === 'stdio') {
    details.push(`runs: ${[transport.command, ...transport.args].map(quoteArg).join(' ')}`);
    details.push(`in: ${visible(transport.cwd ?? '.')}`);
    for (const [name, value] of Object.entries(transport.env).sort(([a], [b]) => (a < b ? -1 : 1))) {
      const shown =
        value === null
          ? 'your own value'
          : typeof value === 'string'
            ? quoteArg(value)
            : `the secret "${visible(value.secret)}"`;
      details.push(`env ${visible(name)}: ${shown}`);
      if (typeof value === 'string' && LOADER_VARIABLE.test(name))
        warnings.push(`sets ${visible(name)}, which changes what code the program loads`);
      else if (typeof value === 'string' && !HARMLESS_VARIABLE.test(name))
        warnings.push(`sets ${visible(name)}: a variable the program may read to load code or reach a host; check it`);
    }
    warnings.push(...packageRunnerWarnings([transport.command, ...transport.args]));
  } else {
    details.push(`connects to: ${visible(transport.url)}`);
    for (const [name, value] of Object.entries(transport.headers).sort(([a], [b]) => (a < b ? -1 : 1)))
      details.push(
        `header ${visible(name)}: ${typeof value === 'string' ? quoteArg(value) : `the secret "${visible(value.secret)}"`}`,
      );
  }
  details.push(`tool names start with: ${server.prefix === '' ? '(any name)' : visible(server.prefix)}`);
  return {
    id: `mcp:${server.name}`,
    kind: 'mcp-server',
    title: `MCP server "${visible(server.name)}"`,
    details,
    warnings,
    source: `${server.location.file}:${server.location.line}`,
  };
}

function policyItems(items: ManifestItem[], tool: ToolSpec): void {
  // Builtins come with PromptForge's own defaults, not the workspace's.
  if (tool.settings.kind === 'builtin' && tool.source === '<builtin>') return;
  const add = (what: string, words: string): void => {
    items.push({
      id: `policy:${tool.alias}:${what}`,
      kind: 'policy',
      title: `Tool "${visible(tool.alias)}" says ${words}`,
      details: [],
      warnings: [],
      source: tool.source,
    });
  };
  // A builtin declared in tools.yaml keeps PromptForge's defaults for what it does not say: only
  // what differs from them is the workspace's own policy.
  const defaults = builtinDefaultsOf(tool);
  if (tool.approval === 'auto' && defaults?.approval !== 'auto')
    add('approval', 'approval: auto (runs without asking)');
  if (tool.trust === 'trusted' && defaults?.trust !== 'trusted')
    add('trust', 'trust: trusted (its output is not marked as untrusted)');
  if (!tool.taintCheck) add('taintCheck', 'taintCheck: false (untrusted text in its arguments does not make it ask)');
}

/** PromptForge's defaults for a builtin tool (declared in tools.yaml or not), else undefined. */
export function builtinDefaultsOf(tool: ToolSpec): ReturnType<typeof builtinDefaults> | undefined {
  return tool.settings.kind === 'builtin' && isBuiltinToolName(tool.settings.builtin)
    ? builtinDefaults(tool.settings.builtin)
    : undefined;
}

function serverPolicyItems(items: ManifestItem[], server: McpServerSpec): void {
  const source = `${server.location.file}:${server.location.line}`;
  const add = (scope: string, what: string, words: string): void => {
    items.push({
      id: `policy:mcp:${server.name}${scope}:${what}`,
      kind: 'policy',
      title: `MCP server "${visible(server.name)}"${scope === '' ? '' : ` tool "${visible(scope.slice(1))}"`} says ${words}`,
      details: [],
      warnings: [],
      source,
    });
  };
  const check = (scope: string, policy: { approval?: string; trust?: string; taintCheck?: boolean }): void => {
    if (policy.approval === 'auto') add(scope, 'approval', 'approval: auto (its tools run without asking)');
    if (policy.trust === 'trusted') add(scope, 'trust', 'trust: trusted (its output is not marked as untrusted)');
    if (policy.taintCheck === false) add(scope, 'taintCheck', 'taintCheck: false');
  };
  check('', server);
  for (const [tool, override] of Object.entries(server.overrides)) check(`/${tool}`, override);
}

/**
 * What the items say, as parsed values (see {@link WorkspaceManifest.raw}): the same things and no
 * more, so an edit the manifest does not show (a new builtin, an http tool without secrets) does
 * not make the workspace restricted again.
 */
function rawFacts(workspace: Workspace, items: readonly ManifestItem[]): unknown {
  const shown = new Set(items.map((item) => item.id));
  const tools = workspace.tools.list().filter((tool) => tool.source !== '<builtin>');
  return {
    commands: tools.flatMap((tool) =>
      tool.settings.kind === 'command'
        ? [
            {
              alias: tool.alias,
              command: tool.settings.command,
              cwd: tool.settings.cwd ?? null,
              env: tool.settings.env ?? [],
            },
          ]
        : [],
    ),
    policies: tools.flatMap((tool) =>
      ['approval', 'trust', 'taintCheck'].some((what) => shown.has(`policy:${tool.alias}:${what}`))
        ? [{ alias: tool.alias, approval: tool.approval, trust: tool.trust, taintCheck: tool.taintCheck }]
        : [],
    ),
    servers: (workspace.mcpServers ?? []).map(
      ({ location: _location, description: _description, ...server }) => server,
    ),
    models: workspace.models
      .list()
      .filter((model) => shown.has(`key-origin:${model.alias}`))
      .map((model) => ({ alias: model.alias, provider: model.provider, baseUrl: model.baseUrl ?? null })),
    secrets: tools.flatMap((tool) =>
      tool.settings.kind === 'http' &&
      Object.values(tool.settings.headers ?? {}).some((value) => typeof value !== 'string')
        ? [{ alias: tool.alias, url: tool.settings.url, headers: tool.settings.headers ?? {} }]
        : [],
    ),
  };
}

/** Each secret name with where its value would go (an origin, or an MCP server). */
function secretUses(workspace: Workspace): Map<string, string[]> {
  const uses = new Map<string, string[]>();
  const add = (name: string, where: string): void => {
    const list = uses.get(name) ?? [];
    if (!list.includes(where)) list.push(where);
    uses.set(name, list);
  };
  for (const tool of workspace.tools.list()) {
    if (tool.settings.kind !== 'http') continue;
    for (const [header, value] of Object.entries(tool.settings.headers ?? {}))
      if (typeof value !== 'string')
        add(
          value.secret,
          `${visible(originOf(tool.settings.url) ?? tool.settings.url)} (tool "${visible(tool.alias)}", header ${visible(header)})`,
        );
  }
  for (const server of workspace.mcpServers ?? []) {
    const transport = server.transport;
    if (transport.type === 'http') {
      for (const [header, value] of Object.entries(transport.headers))
        if (typeof value !== 'string')
          add(
            value.secret,
            `${visible(originOf(transport.url) ?? transport.url)} (MCP server "${visible(server.name)}", header ${visible(header)})`,
          );
    } else {
      for (const [variable, value] of Object.entries(transport.env))
        if (value !== null && typeof value !== 'string')
          add(value.secret, `MCP server "${visible(server.name)}" (env ${visible(variable)})`);
    }
  }
  return uses;
}
