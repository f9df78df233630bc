import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Workspace } from '../catalog/workspace.js';
import type { McpServerSpec } from '../catalog/mcp-spec.js';
import type { ToolSpec } from '../tools/tool-spec.js';
import { builtinDefaults, isBuiltinToolName } from '../tools/builtin-tools.js';
import { isInside } from '../tools/workspace-path.js';
import { providerPreset } from '../providers/presets.js';
import { canonicalJson } from '../tools/tool-definition.js';

/** What a manifest item is about. */
export type ManifestItemKind = 'command' | 'mcp-server' | 'key-origin' | 'secret' | 'policy';

/**
 * One thing a trusted workspace would run, or a place a key or secret would go, or a policy of its
 * own that restricted mode ignores. `facts` are what the digest covers; `details` say them in words.
 */
export interface ManifestItem {
  /** Stable within a workspace: `command:ALIAS`, `mcp:NAME`, `key-origin:ALIAS`, `secret:NAME`, `policy:…`. */
  id: string;
  kind: ManifestItemKind;
  /** One line: what it is, e.g. `Command tool "build"`. */
  title: string;
  /** Facts, each a short "label: value" line, in a fixed order. */
  details: string[];
  /** Things to look at twice: a loader variable, an unpinned package runner, a key leaving its provider. */
  warnings: string[];
  /** Where it is written (`tools.yaml:12`); not part of the digest, so moving an entry keeps trust. */
  source: string;
}

/** A workspace file a command or server runs, by its bytes. */
export interface ManifestFile {
  /** Workspace-relative, with `/`. */
  path: string;
  /** sha256 of its bytes; null when it could not be read (too big, not a regular file). */
  sha256: string | null;
}

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

/** Largest workspace file hashed into the digest; a bigger one is named with no hash. */
const MAX_HASHED_FILE_BYTES = 256 << 20;

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

/** Package runners that fetch and run a package by name. */
const PACKAGE_RUNNERS: Record<string, { skip: number }> = {
  npx: { skip: 0 },
  bunx: { skip: 0 },
  uvx: { skip: 0 },
  pnpx: { skip: 0 },
};
const PACKAGE_RUNNER_SUBCOMMANDS: Record<string, string> = {
  pnpm: 'dlx',
  yarn: 'dlx',
  bun: 'x',
  pipx: 'run',
  npm: 'exec',
};

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

/**
 * The workspace files a stdio MCP server runs (its command, arguments, literal variables, and a
 * package runner's local copy), by their bytes now; `warnings` gets the local-copy warnings.
 */
export function mcpServerFiles(
  root: string,
  server: McpServerSpec,
  budget = hashBudget(),
  warnings: string[] = [],
): ManifestFile[] {
  if (server.transport.type !== 'stdio') return [];
  const realRoot = safeRealpath(root) ?? root;
  const transport = server.transport;
  const cwd = path.resolve(realRoot, transport.cwd ?? '.');
  const argv = [transport.command, ...transport.args];
  const local = localRunnerPackages(argv, cwd, realRoot);
  warnings.push(...local.warnings);
  const literal = Object.values(transport.env).filter((value): value is string => typeof value === 'string');
  return namedFiles(realRoot, cwd, [...argv, ...literal, ...local.folders], budget);
}

/**
 * The workspace files a command tool runs (named in its argv), by their bytes now: what a trusted
 * run pins when it starts (see pinned-runner.ts).
 */
export function commandToolFiles(root: string, tool: ToolSpec): ManifestFile[] {
  if (tool.settings.kind !== 'command') return [];
  const realRoot = safeRealpath(root) ?? root;
  const cwd = path.resolve(realRoot, tool.settings.cwd ?? '.');
  const local = localRunnerPackages(tool.settings.command, cwd, realRoot);
  return namedFiles(realRoot, cwd, [...tool.settings.command, ...local.folders]);
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

/** One line of a manifest's difference, in words (a screen reader reads it as it is). */
export interface ManifestChange {
  change: 'added' | 'removed' | 'changed';
  id: string;
  /** E.g. `Added: Command tool "build". runs: node build.mjs.` */
  text: string;
}

/**
 * What changed from `before` to `after`, item by item and file by file, as sentences: what was
 * added, what was removed, and for a changed item each line that differs, old then new.
 */
export function manifestDiff(before: WorkspaceManifest, after: WorkspaceManifest): ManifestChange[] {
  const changes: ManifestChange[] = [];
  const old = new Map(before.items.map((item) => [item.id, item]));
  const now = new Map(after.items.map((item) => [item.id, item]));
  for (const item of after.items) {
    const was = old.get(item.id);
    if (!was) {
      changes.push({
        change: 'added',
        id: item.id,
        text: `Added: ${item.title}. ${sentences([...item.details, ...item.warnings])}`,
      });
      continue;
    }
    const lines: string[] = [];
    for (const line of was.details) if (!item.details.includes(line)) lines.push(`was ${line}`);
    for (const line of item.details) if (!was.details.includes(line)) lines.push(`now ${line}`);
    for (const line of item.warnings) if (!was.warnings.includes(line)) lines.push(`new warning: ${line}`);
    if (item.title !== was.title) lines.unshift(`was titled ${was.title}`);
    if (lines.length > 0)
      changes.push({ change: 'changed', id: item.id, text: `Changed: ${item.title}: ${sentences(lines)}` });
  }
  for (const item of before.items)
    if (!now.has(item.id)) changes.push({ change: 'removed', id: item.id, text: `Removed: ${item.title}.` });
  const oldFiles = new Map(before.files.map((file) => [file.path, file.sha256]));
  const newFiles = new Map(after.files.map((file) => [file.path, file.sha256]));
  for (const [file, hash] of newFiles) {
    if (!oldFiles.has(file))
      changes.push({ change: 'added', id: `file:${file}`, text: `Added: the file ${visible(file)} is now run.` });
    else if (oldFiles.get(file) !== hash)
      changes.push({
        change: 'changed',
        id: `file:${file}`,
        text: `Changed: the contents of ${visible(file)}, which is run.`,
      });
  }
  for (const file of oldFiles.keys())
    if (!newFiles.has(file))
      changes.push({
        change: 'removed',
        id: `file:${file}`,
        text: `Removed: the file ${visible(file)} is no longer run.`,
      });
  return changes;
}

/** The manifest as plain text, for the terminal: one block per item, warnings marked. */
export function manifestText(manifest: WorkspaceManifest): string[] {
  const lines: string[] = [];
  for (const item of manifest.items) {
    lines.push(`- ${item.title} (${item.source})`);
    for (const detail of item.details) lines.push(`    ${detail}`);
    for (const warning of item.warnings) lines.push(`    warning: ${warning}`);
  }
  if (manifest.files.length > 0)
    lines.push(`- Files it runs, covered by the trust: ${manifest.files.map((file) => file.path).join(', ')}`);
  return lines;
}

/** The origin (`scheme://host:port`) of a URL, or undefined when it is not one. */
export function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** Control and direction characters spelled out, so a name cannot hide or reorder what is shown. */
export function visible(text: string): string {
  return text.replace(
    // eslint-disable-next-line no-control-regex -- spelling control characters out is the point
    /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g,
    (character) => `\\u{${character.charCodeAt(0).toString(16)}}`,
  );
}

function sentences(lines: readonly string[]): string {
  return lines.map((line) => (/[.!?]$/.test(line) ? line : `${line}.`)).join(' ');
}

function quoteArg(arg: string): string {
  const shown = visible(arg);
  return /^[A-Za-z0-9@%+=:,./_-]+$/.test(shown) ? shown : `'${shown.replace(/'/g, `'\\''`)}'`;
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
export function secretUses(workspace: Workspace): Map<string, string[]> {
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

/** Warnings for a package runner given a package name with no exact version. */
function packageRunnerWarnings(argv: readonly string[]): string[] {
  const { program, packages } = runnerPackages(argv);
  return packages
    .filter((spec) => !isPinned(spec))
    .map(
      (spec) =>
        `${program} fetches and runs "${visible(spec)}" with no exact version: whatever its registry serves that day runs`,
    );
}

/**
 * A package runner's own copy in the workspace: `npx pkg@1.2.3` runs `node_modules/pkg` from its
 * folder or any folder above it before it fetches anything, so a pinned, official-looking name
 * can run the repository's code. Returns the warnings and the folders to hash.
 */
function localRunnerPackages(
  argv: readonly string[],
  cwd: string,
  realRoot: string,
): { warnings: string[]; folders: string[] } {
  const result = { warnings: [] as string[], folders: [] as string[] };
  for (const spec of runnerPackages(argv).packages) {
    const at = spec.lastIndexOf('@');
    const name = at > 0 ? spec.slice(0, at) : spec;
    if (name === '' || name.startsWith('.') || name.startsWith('/')) continue;
    for (let folder = cwd; isInside(realRoot, folder) || folder === realRoot; folder = path.dirname(folder)) {
      const copy = path.join(folder, 'node_modules', ...name.split('/'));
      if (isDirectory(copy)) {
        result.warnings.push(
          `runs the workspace's own copy of "${visible(name)}" in ${visible(path.relative(realRoot, copy).split(path.sep).join('/'))}, not the registry's`,
        );
        result.folders.push(copy);
        break;
      }
      if (folder === realRoot) break;
    }
  }
  return result;
}

function runnerPackages(argv: readonly string[]): { program: string; packages: string[] } {
  const program = path
    .basename(argv[0] ?? '')
    .replace(/\.(cmd|exe|bat)$/i, '')
    .toLowerCase();
  let rest: readonly string[] | undefined;
  if (Object.hasOwn(PACKAGE_RUNNERS, program)) rest = argv.slice(1);
  else if (Object.hasOwn(PACKAGE_RUNNER_SUBCOMMANDS, program) && argv[1] === PACKAGE_RUNNER_SUBCOMMANDS[program])
    rest = argv.slice(2);
  const packages: string[] = [];
  if (!rest) return { program, packages };
  for (let index = 0; index < rest.length; index += 1) {
    const arg = rest[index]!;
    if (arg === '--') {
      if (rest[index + 1] !== undefined && packages.length === 0) packages.push(rest[index + 1]!);
      break;
    }
    if (arg === '-p' || arg === '--package' || arg === '--from' || arg === '--with') {
      if (rest[index + 1] !== undefined) packages.push(rest[index + 1]!);
      index += 1;
      continue;
    }
    const joined = /^--(package|from|with)=(.+)$/.exec(arg);
    if (joined) {
      packages.push(joined[2]!);
      continue;
    }
    if (arg.startsWith('-')) continue;
    if (packages.length === 0) packages.push(arg);
    break;
  }
  return { program, packages };
}

/** `name@1.2.3`, `@scope/name@1.2.3`, `name==1.2.3`: an exact version. A local path counts as pinned. */
function isPinned(spec: string): boolean {
  if (spec.startsWith('.') || spec.startsWith('/') || spec.includes('\\')) return true;
  const python = /==\s*\d+(\.\d+)*$/.test(spec);
  if (python) return true;
  const at = spec.lastIndexOf('@');
  if (at <= 0) return false;
  return /^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.test(spec.slice(at + 1));
}

/** How many bytes one manifest hashes at most; past it, files are named unhashed (and cannot be trusted). */
const MAX_MANIFEST_HASHED_BYTES = 1 << 30;
/** Extensions and folder entries Node (and most runners) try for a bare module path. */
const MODULE_SUFFIXES = ['', '.js', '.mjs', '.cjs', '.json', '.node', '.ts', '.py', '.sh'];

/**
 * Workspace files named by `tokens` (argv items, `--require=./x.cjs`, the words of a shell string
 * or of `NODE_OPTIONS`, quoted or not): each word, or its part after `=`, that is a file inside the
 * workspace from `cwd` or the root, tried as Node resolves a module (`tool` finds `tool.js`, a
 * folder its package.json `main` or `index.js`). A name inside the workspace whose link leads
 * outside it is named by its real path and hashed too. Hashed by content, once each, within a cap.
 */
function namedFiles(realRoot: string, cwd: string, tokens: readonly string[], budget = hashBudget()): ManifestFile[] {
  const found = new Map<string, ManifestFile>();
  for (const word of tokens.flatMap(wordsOf)) {
    if (word === '' || word.length > 4096 || word.includes('\0')) continue;
    for (const base of new Set([cwd, realRoot])) {
      const lexical = path.resolve(base, word);
      if (!isInside(realRoot, lexical) && !isInside(realRoot, safeRealpath(lexical) ?? lexical)) continue;
      for (const real of moduleFiles(lexical)) {
        if (real === realRoot) continue;
        const shown = isInside(realRoot, real)
          ? path.relative(realRoot, real).split(path.sep).join('/')
          : `${path.relative(realRoot, lexical).split(path.sep).join('/')} -> ${real} (outside the workspace)`;
        if (found.has(shown)) continue;
        const hash = budget.hash(real);
        if (hash === 'not-a-file') continue;
        found.set(shown, { path: shown, sha256: hash });
      }
    }
  }
  return [...found.values()];
}

/** A token's words: itself, its value after `=`, and the words of a shell string or option list, unquoted. */
function wordsOf(token: string): string[] {
  const words = new Set<string>([token]);
  for (const part of token.split(/[\s;&|()<>`]+/)) {
    const unquoted = part.replace(/^['"]+|['"]+$/g, '');
    if (unquoted === '') continue;
    words.add(unquoted);
    const equals = unquoted.indexOf('=');
    if (equals >= 0) words.add(unquoted.slice(equals + 1).replace(/^['"]+|['"]+$/g, ''));
  }
  return [...words];
}

/** The real files `lexical` may load as a module: itself, with a suffix, or a folder's entry. */
function moduleFiles(lexical: string): string[] {
  const files: string[] = [];
  for (const suffix of MODULE_SUFFIXES) {
    const real = safeRealpath(lexical + suffix);
    if (real && isRegularFile(real)) {
      files.push(real);
      break;
    }
  }
  const folder = safeRealpath(lexical);
  if (folder && isDirectory(folder)) {
    const entries = ['package.json', 'index.js', 'index.mjs', 'index.cjs', 'index.ts', '__main__.py', '__init__.py'];
    try {
      const pkg = JSON.parse(readSmallText(path.join(folder, 'package.json'))) as { main?: unknown; bin?: unknown };
      if (typeof pkg.main === 'string') entries.push(pkg.main, `${pkg.main}.js`, path.join(pkg.main, 'index.js'));
      // What a package runner runs: its `bin` entries.
      if (typeof pkg.bin === 'string') entries.push(pkg.bin);
      else if (pkg.bin && typeof pkg.bin === 'object')
        for (const bin of Object.values(pkg.bin)) if (typeof bin === 'string') entries.push(bin);
    } catch {
      // No package.json, or not JSON: the index files are what a runner tries.
    }
    for (const entry of entries) {
      const real = safeRealpath(path.join(folder, entry));
      if (real && isRegularFile(real) && !files.includes(real)) files.push(real);
    }
  }
  return files;
}

/** Hashes files once each by real path, and stops hashing past {@link MAX_MANIFEST_HASHED_BYTES}. */
function hashBudget(): { hash(file: string): string | null | 'not-a-file' } {
  const done = new Map<string, string | null | 'not-a-file'>();
  let spent = 0;
  return {
    hash(file) {
      const known = done.get(file);
      if (known !== undefined) return known;
      let size = 0;
      try {
        size = statSync(file).size;
      } catch {
        // Reported as not a file below.
      }
      const result = spent + size > MAX_MANIFEST_HASHED_BYTES ? null : hashRegularFile(file);
      spent += size;
      done.set(file, result);
      return result;
    },
  };
}

function isRegularFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

function readSmallText(file: string): string {
  if (!isRegularFile(file) || statSync(file).size > 1 << 20) throw new Error('not a small file');
  return readFileSync(file, 'utf8');
}

function hashRegularFile(file: string): string | null | 'not-a-file' {
  let fd: number | undefined;
  try {
    // Only regular files are opened, and without blocking: a FIFO named in argv must not hang it.
    if (!statSync(file).isFile()) return 'not-a-file';
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const stat = fstatSync(fd);
    if (!stat.isFile()) return 'not-a-file';
    if (stat.size > MAX_HASHED_FILE_BYTES) return null;
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(1 << 16);
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
    }
    return hash.digest('hex');
  } catch {
    return 'not-a-file';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function safeRealpath(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}
