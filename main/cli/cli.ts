import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { ForkEdit, RunEvent } from '../../common/run-events.js';
import type { Approver } from '../core/approval/approver.js';
import { PolicyApprover } from '../core/approval/policy-approver.js';
import type * as CatalogProblemModule from '../core/catalog/catalog-problem.js';
import type * as WorkspaceModule from '../core/catalog/workspace.js';
import type { Workspace } from '../core/catalog/workspace.js';
import { findWorkspaceRoot } from '../core/catalog/workspace-root.js';
import { KeyringSecretStore } from '../core/credentials/keyring-secret-store.js';
import type { ProviderKeySource } from '../core/credentials/resolve-provider-key.js';
import type { SecretStore } from '../core/credentials/secret-store.js';
import { FileReadError, readRegularFileText } from '../core/files/regular-file.js';
import { SecretStoreUnavailableError } from '../core/credentials/secret-store.js';
import { PROVIDER_PRESETS, providerPreset } from '../core/providers/presets.js';
import type * as PrepareRunModule from '../core/run/prepare-run.js';
import type { WorkerPool } from '../core/run/worker-pool.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { helpFor, wantsHelp } from './help.js';
import { TerminalApprover } from './terminal-approver.js';
import { terminalSafe, terminalSafeJson } from './terminal-text.js';
import { errorMessage } from '../../common/error-message.js';
import { nestingDepth } from '../../common/json.js';
import { MAX_LUA_DEPTH } from '../core/run/worker-protocol.js';

export { EXIT } from './exit-codes.js';

/** The process around the CLI, injectable for tests. */
export interface CliIo {
  stdin: Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  stdout: Writable;
  stderr: Writable;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Subscribes to Ctrl-C; returns an unsubscribe function. */
  onInterrupt(listener: () => void): () => void;
  secrets(): SecretStore;
  /**
   * Lua workers already warming (the bin starts them before it loads the CLI; tests share one per
   * file). Whoever made the pool closes it. Default: `run` starts a pool of its own.
   */
  pool?: WorkerPool;
}

/** The only way the CLI prints: every line is made terminal-safe first. */
interface Printer {
  /** A line on stdout. */
  out(text: string): void;
  /** A line on stderr. */
  err(text: string): void;
  /** `promptforge: text` on stderr. */
  say(text: string): void;
}

function printer(io: CliIo): Printer {
  const out = (text: string) => void io.stdout.write(`${terminalSafe(text)}\n`);
  const err = (text: string) => void io.stderr.write(`${terminalSafe(text)}\n`);
  return { out, err, say: (text) => err(`promptforge: ${text}`) };
}

class UsageError extends Error {}

/** Ctrl-C arrived before the command could finish. */
class InterruptedError extends Error {}

/** The signals that stop a run the way Ctrl-C does (Windows delivers only SIGINT and SIGHUP). */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** A command failed in a way the person can act on: the message is printed, exit code 1. */
class CommandError extends Error {}

/** The real process's streams, environment, signals and OS keychain. */
export function defaultIo(): CliIo {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    onInterrupt(listener) {
      // Ctrl-C, and also `kill`, `timeout`, a CI job's cancel (SIGTERM) and a closed terminal
      // (SIGHUP): each stops the run cleanly, so its tools' process trees die and run-end is written.
      for (const signal of STOP_SIGNALS) process.on(signal, listener);
      return () => {
        for (const signal of STOP_SIGNALS) process.off(signal, listener);
      };
    },
    secrets: () => new KeyringSecretStore(),
  };
}

/**
 * The run machinery (worker pool, providers, MCP client) is imported only by the commands that use
 * it, so `keys`, `--help` and `--version` start without loading it.
 */
let prepareRunModule: typeof PrepareRunModule | undefined;
async function loadPrepareRun(): Promise<typeof PrepareRunModule> {
  prepareRunModule ??= await import('../core/run/prepare-run.js');
  return prepareRunModule;
}

/**
 * The catalog machinery (YAML, the catalog schemas, ajv) is imported only by the commands that read
 * a workspace, so `keys status` outside a workspace starts without it.
 */
interface CatalogModules {
  loadWorkspace: typeof WorkspaceModule.loadWorkspace;
  formatProblem: typeof CatalogProblemModule.formatProblem;
}
let catalogModules: CatalogModules | undefined;
async function loadCatalogModules(): Promise<CatalogModules> {
  if (catalogModules === undefined) {
    const [{ loadWorkspace }, { formatProblem }] = await Promise.all([
      import('../core/catalog/workspace.js'),
      import('../core/catalog/catalog-problem.js'),
    ]);
    catalogModules = { loadWorkspace, formatProblem };
  }
  return catalogModules;
}

function packageVersion(): string {
  const file = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/** Runs the CLI with `argv` (without node and the script); resolves with the exit code. */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  const print = printer(io);
  // Subscribed first, so a Ctrl-C at any moment is this CLI's to handle (never Node's default).
  const interrupt = new AbortController();
  const unsubscribe = io.onInterrupt(() => interrupt.abort());
  try {
    const [command, ...rest] = argv;
    switch (command) {
      case 'run':
        if (wantsHelp(rest)) return help(print, ['run']);
        return await runCommand(rest, io, print, interrupt.signal);
      case 'keys':
        if (wantsHelp(rest)) return help(print, ['keys', ...rest.filter((arg) => KEY_ACTIONS.has(arg)).slice(0, 1)]);
        return await untilInterrupted(keysCommand(rest, io, print), interrupt.signal);
      case 'mcp':
        if (wantsHelp(rest)) return help(print, rest.includes('list') ? ['mcp', 'list'] : ['mcp']);
        return await mcpCommand(rest, io, print, interrupt.signal);
      case 'help':
        return help(print, rest);
      case '--help':
      case '-h':
        return help(print, []);
      case '--version':
      case '-v':
        print.out(packageVersion());
        return EXIT.ok;
      case undefined:
        print.err(helpFor([])!);
        return EXIT.usage;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      print.say(`${error.message}\nRun \`promptforge --help\` for usage.`);
      return EXIT.usage;
    }
    if (error instanceof CommandError) {
      print.say(error.message);
      return EXIT.scriptError;
    }
    if (error instanceof InterruptedError) {
      print.say('interrupted (Ctrl-C)');
      io.stdin.destroy();
      return EXIT.stopped;
    }
    if (
      (prepareRunModule !== undefined &&
        (error instanceof prepareRunModule.RunSetupError ||
          error instanceof prepareRunModule.ForkError ||
          error instanceof prepareRunModule.TranscriptError)) ||
      error instanceof SecretStoreUnavailableError
    ) {
      print.say(error.message);
      return EXIT.usage;
    }
    print.say(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return EXIT.scriptError;
  } finally {
    unsubscribe();
  }
}

function help(print: Printer, topic: string[]): number {
  const text = helpFor(topic);
  if (text === undefined)
    throw new UsageError(
      `no help for "${topic.join(' ')}"; commands: run, keys set, keys status, keys delete, mcp list`,
    );
  print.out(text);
  return EXIT.ok;
}

/** Settles like `promise`, or rejects with {@link InterruptedError} when `signal` aborts first. */
function untilInterrupted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new InterruptedError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new InterruptedError());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
}

function positiveNumber(flag: string, value: string | undefined, unit: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0)
    throw new UsageError(`${flag} must be a positive number of ${unit}, got "${value}"`);
  return number;
}

/** Why a call was denied when no `--approve` flag was given and stdin is not a terminal. */
const NO_TERMINAL_DENIAL =
  'no terminal to ask on and no --approve flag (run on a terminal, or pass --approve ask to answer on stdin, or --approve auto to allow it)';

function approverFor(mode: 'ask' | 'auto' | 'deny', flagGiven: boolean, io: CliIo): Approver {
  if (mode === 'ask') return new TerminalApprover({ input: io.stdin, output: io.stderr });
  if (mode === 'deny' && !flagGiven)
    return { source: 'policy', ask: async () => ({ kind: 'deny', reason: NO_TERMINAL_DENIAL }) };
  return new PolicyApprover(mode);
}

/** The stderr line saying where a provider's key came from (never the key), if there is one to say. */
function keySourceMessage(
  providerId: string,
  source: ProviderKeySource,
  note: { keychainUnavailable: boolean },
): string | undefined {
  const preset = providerPreset(providerId);
  if (source === 'keychain') return `${providerId} key from the OS keychain`;
  if (source.startsWith('env:'))
    return `${providerId} key from ${source.slice(4)} in the environment${note.keychainUnavailable ? ' (the OS keychain is not available)' : ''}`;
  // No key and one is needed: the run's error says how to set one.
  if (!preset || preset.needsKey) return undefined;
  const where = [`keychain entry "${providerId}"`, ...(preset.keyEnvVar ? [preset.keyEnvVar] : [])].join(' or ');
  return note.keychainUnavailable
    ? `${providerId}: no key (the OS keychain is not available; ${preset.label} needs none); sending requests without one`
    : `${providerId}: no key set (${where}); sending requests without one`;
}

async function runCommand(args: string[], io: CliIo, print: Printer, interrupt: AbortSignal): Promise<number> {
  const { values, positionals } = parse(args, {
    workspace: { type: 'string' },
    model: { type: 'string' },
    'base-url': { type: 'string' },
    'model-id': { type: 'string' },
    approve: { type: 'string' },
    replay: { type: 'string' },
    transcript: { type: 'string' },
    json: { type: 'boolean' },
    'cpu-limit': { type: 'string' },
    'memory-limit': { type: 'string' },
    timeout: { type: 'string' },
    'fork-at': { type: 'string' },
    'edit-output': { type: 'string' },
    'edit-reply': { type: 'string' },
    'edit-calls': { type: 'string' },
    force: { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new UsageError('run takes exactly one script: promptforge run FILE.lua');
  const scriptFile = path.resolve(io.cwd, positionals[0]!);
  if (!statSync(scriptFile, { throwIfNoEntry: false })?.isFile())
    throw new UsageError(`${positionals[0]}: no such script file`);

  const approve = values.approve ?? (io.stdin.isTTY ? 'ask' : 'deny');
  if (approve !== 'ask' && approve !== 'auto' && approve !== 'deny')
    throw new UsageError(`--approve must be ask, auto or deny, got "${approve}"`);
  if ((values['base-url'] === undefined) !== (values['model-id'] === undefined))
    throw new UsageError('--base-url and --model-id go together');
  if (values['base-url'] !== undefined && values.model !== undefined)
    throw new UsageError('use either --model or --base-url with --model-id, not both');
  if (values['base-url'] !== undefined && !URL.canParse(values['base-url']))
    throw new UsageError(`--base-url is not a URL: "${values['base-url']}"`);
  const fork = await forkOptions(values, io);
  if (
    values.replay !== undefined &&
    fork === undefined &&
    (values.model !== undefined || values['base-url'] !== undefined)
  )
    throw new UsageError(
      '--replay answers models.chat from the recording; drop --model / --base-url (or add --fork-at STEP to go on live from a step)',
    );
  const cpu = positiveNumber('--cpu-limit', values['cpu-limit'], 'seconds');
  const memory = positiveNumber('--memory-limit', values['memory-limit'], 'MiB');
  const timeout = positiveNumber('--timeout', values.timeout, 'seconds');

  let root: string;
  let transcriptDefault: string | false | undefined;
  if (values.workspace !== undefined) {
    root = path.resolve(io.cwd, values.workspace);
    if (!statSync(root, { throwIfNoEntry: false })?.isDirectory())
      throw new UsageError(`--workspace ${values.workspace}: no such folder`);
  } else {
    const found = (await findWorkspaceRoot(path.dirname(scriptFile))) ?? (await findWorkspaceRoot(io.cwd));
    root = found ?? io.cwd;
    // Without a workspace there is no runs/ folder to fill: write a transcript only when asked.
    if (!found) transcriptDefault = false;
  }
  // The Lua worker boots (wasmoon's compile) on its own thread while the catalogs load.
  const ownPool = io.pool ? undefined : startWorkerPool();
  let workspace: Workspace;
  let formatProblem: CatalogModules['formatProblem'];
  try {
    const catalog = await loadCatalogModules();
    formatProblem = catalog.formatProblem;
    workspace = await catalog.loadWorkspace(root);
  } catch (error) {
    void ownPool?.then((pool) => pool.close());
    throw error;
  }
  for (const problem of workspace.problems) print.err(formatProblem(problem));

  const json = values.json === true;
  const [{ prepareRun }, pool] = await Promise.all([loadPrepareRun(), io.pool ?? ownPool!]);
  const reported = new Set<string>();
  const onEvent = (event: RunEvent): void => {
    if (json) io.stdout.write(`${terminalSafeJson(event)}\n`);
    else if (event.type === 'log') print.out(event.text);
  };
  try {
    const run = await prepareRun({
      scriptFile,
      workspace,
      pool,
      approver: approverFor(approve, values.approve !== undefined, io),
      secrets: io.secrets(),
      allowEnvKeys: true,
      env: io.env,
      ...(values.model !== undefined && { model: values.model }),
      ...(values['base-url'] !== undefined && {
        endpoint: { baseUrl: values['base-url'], modelId: values['model-id']! },
      }),
      ...(values.replay !== undefined && { replayPath: path.resolve(io.cwd, values.replay) }),
      ...(fork && { fork: { ...fork, transcriptName: values.replay! } }),
      ...(values.transcript !== undefined
        ? { transcriptPath: path.resolve(io.cwd, values.transcript) }
        : transcriptDefault === false
          ? { transcriptPath: false as const }
          : {}),
      limits: {
        ...(cpu !== undefined && { cpuMs: cpu * 1000 }),
        ...(memory !== undefined && { memoryBytes: memory * 1024 * 1024 }),
        ...(timeout !== undefined && { wallMs: timeout * 1000 }),
      },
      onEvent,
      onMcpProblem: (problem) => print.err(formatProblem(problem)),
      onKeySource: (providerId, source, note) => {
        if (reported.has(providerId)) return;
        reported.add(providerId);
        const message = keySourceMessage(providerId, source, note);
        if (message) print.say(message);
      },
    });
    if (interrupt.aborted) {
      print.say('interrupted (Ctrl-C) before the run started');
      return EXIT.stopped;
    }
    const onInterrupt = () => run.stop('interrupted (Ctrl-C)');
    interrupt.addEventListener('abort', onInterrupt, { once: true });
    try {
      await run.start();
      const result = await run.done;
      if (result.error) {
        const message = /^[^\s:]+:\d+: /.test(result.error.message)
          ? result.error.message
          : `${run.scriptPath}: ${result.error.message}`;
        print.err(message);
      }
      if (result.transcriptPath && !json) {
        const relative = path.relative(io.cwd, result.transcriptPath);
        print.say(`transcript ${relative.startsWith('..') ? result.transcriptPath : relative}`);
      }
      return exitCodeFor(result.status);
    } finally {
      interrupt.removeEventListener('abort', onInterrupt);
    }
  } finally {
    if (ownPool) await pool.close();
  }
}

/** A pool of one Lua worker, already warming. */
async function startWorkerPool(): Promise<WorkerPool> {
  const { WorkerPool } = await import('../core/run/worker-pool.js');
  const pool = new WorkerPool({ size: 1 });
  pool.prewarm();
  return pool;
}

/** Largest file an `--edit-*` flag reads with `@FILE`. */
const MAX_EDIT_FILE_BYTES = 16 << 20;

/** An `--edit-*` value: the text itself, `@FILE` for a file's text, `@@...` for text starting with `@`. */
async function flagText(flag: string, value: string, io: CliIo): Promise<string> {
  if (!value.startsWith('@') || value.startsWith('@@')) return value.startsWith('@@') ? value.slice(1) : value;
  const file = path.resolve(io.cwd, value.slice(1));
  try {
    return await readRegularFileText(file, MAX_EDIT_FILE_BYTES, 'file', value.slice(1));
  } catch (error) {
    throw new UsageError(
      `${flag} ${value}: ${error instanceof FileReadError ? error.message : 'cannot read the file'}`,
    );
  }
}

/** The `--fork-at` flags, checked: the step, the edit at it, and `--force`. */
async function forkOptions(
  values: {
    replay?: string | undefined;
    'fork-at'?: string | undefined;
    'edit-output'?: string | undefined;
    'edit-reply'?: string | undefined;
    'edit-calls'?: string | undefined;
    force?: boolean | undefined;
  },
  io: CliIo,
): Promise<{ step: number; edit?: ForkEdit; force: boolean } | undefined> {
  const editFlags = (['edit-output', 'edit-reply', 'edit-calls'] as const).filter((flag) => values[flag] !== undefined);
  const at = values['fork-at'];
  if (at === undefined) {
    const stray = [...editFlags, ...(values.force ? (['force'] as const) : [])];
    if (stray.length > 0) throw new UsageError(`--${stray[0]} goes with --fork-at STEP`);
    return undefined;
  }
  if (values.replay === undefined)
    throw new UsageError('--fork-at needs --replay TRANSCRIPT: the recording of the run to fork');
  if (!/^[1-9]\d*$/.test(at))
    throw new UsageError(
      `--fork-at must be a step: the seq of a model round or tool output in the recording (a whole number from 1), got "${at}"`,
    );
  const edit: ForkEdit = {};
  if (values['edit-output'] !== undefined) edit.output = await flagText('--edit-output', values['edit-output'], io);
  if (values['edit-reply'] !== undefined) edit.reply = await flagText('--edit-reply', values['edit-reply'], io);
  if (values['edit-calls'] !== undefined) {
    const text = await flagText('--edit-calls', values['edit-calls'], io);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`--edit-calls must be JSON (${errorMessage(error)})`);
    }
    // Checked before the schema, whose recursive check would overflow the stack on a deep value.
    if (nestingDepth(parsed, MAX_LUA_DEPTH) > MAX_LUA_DEPTH)
      throw new UsageError(
        `--edit-calls is nested more than ${MAX_LUA_DEPTH} levels deep, deeper than a script can receive; flatten the arguments`,
      );
    const { ForkEditSchema } = await import('../../common/run-events.js');
    const calls = ForkEditSchema.shape.calls.safeParse(parsed);
    if (!calls.success || calls.data === undefined)
      throw new UsageError(
        '--edit-calls must be a JSON list of calls like [{"name": "echo", "arguments": {"text": "hi"}}] ([] for none)',
      );
    edit.calls = calls.data;
  }
  return { step: Number(at), ...(editFlags.length > 0 && { edit }), force: values.force === true };
}

async function readSecret(io: CliIo, name: string): Promise<string> {
  if (io.stdin.isTTY && io.stdin.setRawMode) {
    io.stderr.write(`Paste the key for ${terminalSafe(name)} and press Enter (it is not shown): `);
    io.stdin.setRawMode(true);
    return new Promise((resolve, reject) => {
      let text = '';
      const onData = (chunk: Buffer) => {
        for (const char of chunk.toString('utf8')) {
          if (char === '\r' || char === '\n') return done();
          // In raw mode Ctrl-C arrives as a character, not as SIGINT.
          if (char === '\u0003') return done(new InterruptedError());
          if (char === '\u007f') text = text.slice(0, -1);
          else text += char;
        }
      };
      const done = (error?: Error) => {
        io.stdin.off('data', onData);
        io.stdin.setRawMode?.(false);
        io.stdin.pause();
        io.stderr.write('\n');
        if (error) reject(error);
        else resolve(text.trim());
      };
      io.stdin.on('data', onData);
      io.stdin.resume();
    });
  }
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8').trim();
}

const KEY_ACTIONS = new Set(['set', 'status', 'delete']);

/** The keychain entries `keys` manages: provider ids, and the secrets the workspace's http tools name. */
interface KeyNames {
  providers: string[];
  /** Secret name -> the tools (and headers) that use it. */
  secrets: Map<string, string[]>;
}

async function keyNames(io: CliIo, workspaceFlag: string | undefined): Promise<KeyNames> {
  let workspace: Workspace | undefined;
  if (workspaceFlag !== undefined) {
    const root = path.resolve(io.cwd, workspaceFlag);
    if (!statSync(root, { throwIfNoEntry: false })?.isDirectory())
      throw new UsageError(`--workspace ${workspaceFlag}: no such folder`);
    workspace = await (await loadCatalogModules()).loadWorkspace(root);
  } else {
    const root = await findWorkspaceRoot(io.cwd);
    if (root) workspace = await (await loadCatalogModules()).loadWorkspace(root);
  }
  const secrets = new Map<string, string[]>();
  for (const server of workspace?.mcpServers ?? []) {
    const named =
      server.transport.type === 'http'
        ? Object.entries(server.transport.headers).map(([header, value]) => [`header ${header}`, value] as const)
        : Object.entries(server.transport.env).map(([variable, value]) => [`env ${variable}`, value] as const);
    for (const [where, value] of named) {
      if (value === null || typeof value === 'string') continue;
      secrets.set(value.secret, [...(secrets.get(value.secret) ?? []), `MCP server ${server.name} (${where})`]);
    }
  }
  for (const tool of workspace?.tools.list() ?? []) {
    if (tool.settings.kind !== 'http') continue;
    for (const [header, value] of Object.entries(tool.settings.headers ?? {})) {
      if (typeof value === 'string') continue;
      secrets.set(value.secret, [...(secrets.get(value.secret) ?? []), `${tool.alias} (${header})`]);
    }
  }
  return { providers: Object.keys(PROVIDER_PRESETS), secrets };
}

/**
 * `store`, with failures other than "no keychain" (an odd entry, a name the keychain refuses)
 * turned into {@link CommandError}s, so they print as one clear line instead of an internal error.
 */
function reportingStore(store: SecretStore): SecretStore {
  const wrap =
    <A extends unknown[], R>(operation: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await operation(...args);
      } catch (error) {
        if (error instanceof SecretStoreUnavailableError || !(error instanceof Error)) throw error;
        throw new CommandError(error.message);
      }
    };
  return {
    get: wrap((name) => store.get(name)),
    set: wrap((name, secret) => store.set(name, secret)),
    delete: wrap((name) => store.delete(name)),
    has: wrap((name) => store.has(name)),
  };
}

/** `promptforge mcp list`: starts each MCP server of the workspace, prints its status and tools, stops it. */
async function mcpCommand(args: string[], io: CliIo, print: Printer, interrupt: AbortSignal): Promise<number> {
  const { values, positionals } = parse(args, { workspace: { type: 'string' } });
  const [action, ...extra] = positionals;
  if (action !== 'list')
    throw new UsageError(action === undefined ? 'mcp needs list' : `unknown mcp command "${action}"; use list`);
  if (extra.length > 0) throw new UsageError('mcp list takes no arguments');
  let root: string;
  if (values.workspace !== undefined) {
    root = path.resolve(io.cwd, values.workspace);
    if (!statSync(root, { throwIfNoEntry: false })?.isDirectory())
      throw new UsageError(`--workspace ${values.workspace}: no such folder`);
  } else root = (await findWorkspaceRoot(io.cwd)) ?? io.cwd;
  const { loadWorkspace, formatProblem } = await loadCatalogModules();
  const workspace = await loadWorkspace(root);
  for (const problem of workspace.problems) print.err(formatProblem(problem));
  const servers = workspace.mcpServers ?? [];
  if (servers.length === 0) {
    print.out(`No MCP servers in ${path.join(root, 'tools.yaml')} (add an entry with "kind: mcp").`);
    return EXIT.ok;
  }
  const { McpServerManager } = await import('../core/mcp/mcp-manager.js');
  const manager = new McpServerManager({
    workspaceRoot: root,
    servers,
    secrets: io.secrets(),
    reservedAliases: workspace.tools.list().map((tool) => tool.alias),
  });
  try {
    const listed = await untilInterrupted(manager.listTools(), interrupt);
    for (const problem of listed.problems) print.err(formatProblem(problem));
    for (const status of manager.statuses()) {
      print.out(`${status.name} (${status.transport}): ${status.state}${status.error ? ` - ${status.error}` : ''}`);
      for (const tool of status.tools)
        print.out(`  ${tool.alias}  ${tool.description.split('\n')[0]?.slice(0, 160) ?? ''}`);
      if (status.state !== 'ready' && status.stderrTail.trim())
        print.out(`  stderr: ${status.stderrTail.trim().split('\n').slice(-5).join('\n          ')}`);
    }
    return manager.statuses().every((status) => status.state === 'ready') ? EXIT.ok : EXIT.scriptError;
  } finally {
    await manager.close();
  }
}

async function keysCommand(args: string[], io: CliIo, print: Printer): Promise<number> {
  const { values, positionals } = parse(args, { workspace: { type: 'string' } });
  const [action, name, ...extra] = positionals;
  if (action === undefined || !KEY_ACTIONS.has(action))
    throw new UsageError(
      action === undefined
        ? 'keys needs set NAME, status or delete NAME'
        : `unknown keys command "${action}"; use set NAME, status or delete NAME`,
    );
  if (action === 'status' && name !== undefined) throw new UsageError('keys status takes no NAME');
  const names = await keyNames(io, values.workspace);
  if (action === 'set' || action === 'delete') {
    if (!name) throw new UsageError(`keys ${action} needs a provider, e.g. \`promptforge keys ${action} openai\``);
    if (extra.length > 0)
      throw new UsageError(
        action === 'set'
          ? 'the key is read from stdin, never from the command line (it would land in shell history)'
          : 'keys delete takes one provider',
      );
    if (!names.providers.includes(name) && !names.secrets.has(name)) {
      const secrets = [...names.secrets.keys()];
      throw new UsageError(
        `"${name}" is not a provider id${secrets.length ? ' or a secret named in tools.yaml' : ''}; ` +
          `providers: ${names.providers.join(', ')}` +
          (secrets.length ? `; tools.yaml secrets: ${secrets.join(', ')}` : ''),
      );
    }
  }
  const store = reportingStore(io.secrets());
  switch (action) {
    case 'set': {
      const secret = await readSecret(io, name!);
      if (!secret) throw new UsageError('no key given on stdin');
      const existed = await store.has(name!);
      await store.set(name!, secret);
      print.out(`${existed ? 'Replaced' : 'Stored'} the key for ${name} in the OS keychain.`);
      return EXIT.ok;
    }
    case 'delete': {
      const deleted = await store.delete(name!);
      print.out(deleted ? `Deleted the key for ${name}.` : `No key for ${name} was stored.`);
      return EXIT.ok;
    }
    default: {
      const rows: string[] = [];
      for (const [id, preset] of Object.entries(PROVIDER_PRESETS)) {
        const set = await store.has(id);
        const env =
          preset.keyEnvVar && io.env[preset.keyEnvVar] ? ` (${preset.keyEnvVar} is also set in the environment)` : '';
        const state = set ? 'set in the OS keychain' : preset.needsKey ? 'not set' : 'not set (not needed)';
        rows.push(`${id.padEnd(18)} ${state}${env}`);
      }
      for (const [secret, users] of names.secrets) {
        const state = await store.has(secret).then(
          (set) => (set ? 'set in the OS keychain' : 'not set'),
          (error: unknown) => {
            if (error instanceof CommandError) return `cannot be read: ${error.message}`;
            throw error;
          },
        );
        rows.push(`${secret.padEnd(18)} ${state} (used by ${users.join(', ')})`);
      }
      print.out(rows.join('\n'));
      return EXIT.ok;
    }
  }
}
