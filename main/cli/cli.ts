import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
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
import { recordingPathFor } from '../core/catalog/recording-path.js';
import { KeyringSecretStore } from '../core/credentials/keyring-secret-store.js';
import type { ProviderKeySource } from '../core/credentials/resolve-provider-key.js';
import type { SecretStore } from '../core/credentials/secret-store.js';
import { workspaceSecrets } from '../core/catalog/workspace-secrets.js';
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
import { nestingDepth, parseExactJson } from '../../common/json.js';
import { MAX_LUA_DEPTH } from '../core/run/worker-protocol.js';
import { FORK_GO_LIVE_ADVICE } from '../core/run/run-errors.js';

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
        throw new UsageError(unknownWord('command', command, COMMANDS, `commands: ${COMMANDS.join(', ')}`));
    }
  } catch (error) {
    if (error instanceof UsageError) {
      print.say(`${error.message}\n${USAGE_HINT}`);
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
    // A fork step or edit that does not fit the recording is a bad flag value: a usage error.
    if (prepareRunModule !== undefined && error instanceof prepareRunModule.ForkError) {
      print.say(`${error.message}\n${USAGE_HINT}`);
      return EXIT.usage;
    }
    // Setup errors are about files and the machine (a transcript, models.yaml, the keychain), not
    // the command line: their message says what to fix, and the usage would not help.
    if (
      (prepareRunModule !== undefined &&
        (error instanceof prepareRunModule.RunSetupError || error instanceof prepareRunModule.TranscriptError)) ||
      error instanceof SecretStoreUnavailableError
    ) {
      print.say(error instanceof SecretStoreUnavailableError ? forLauncher(error.message, io.env) : error.message);
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

/** The line after every usage error. */
const USAGE_HINT = 'Run `promptforge --help` for usage.';

const COMMANDS = ['run', 'keys', 'mcp', 'help'];

/** What each flag's value is, for "--flag needs a value (...)". */
const FLAG_VALUES: Record<string, string> = {
  workspace: 'a folder',
  model: 'a model alias from models.yaml',
  'base-url': 'an endpoint URL',
  'model-id': 'the model id to send',
  approve: 'ask, auto or deny',
  replay: 'a transcript file',
  transcript: 'the file to write the transcript to',
  'cpu-limit': 'a number of seconds',
  'memory-limit': 'a number of MiB',
  timeout: 'a number of seconds',
  'fork-at': 'a step number',
  'edit-output': 'the text, or @FILE',
  'edit-reply': 'the text, or @FILE',
  'edit-calls': 'a JSON list of calls, or @FILE',
};

/** Flags whose value is free text, which may start with "-" when written as --flag=-text. */
const TEXT_FLAGS = new Set(['edit-output', 'edit-reply', 'edit-calls']);

/**
 * The number of single-character edits (insert, delete, replace, swap two neighbours) that turn
 * `a` into `b`, or `limit + 1` once it is known to be more than `limit`.
 */
export function editDistance(a: string, b: string, limit = 2): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      row.push(best);
    }
    if (Math.min(...row) > limit) return limit + 1;
    before = previous;
    previous = row;
  }
  return Math.min(previous[b.length]!, limit + 1);
}

/** The known word nearest to `word` (at most 2 edits away), if one is. */
function nearest(word: string, known: readonly string[]): string | undefined {
  let best: { word: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(word.toLowerCase(), candidate);
    if (distance <= 2 && (!best || distance < best.distance)) best = { word: candidate, distance };
  }
  return best?.word;
}

/** `unknown command "runn"; did you mean run?`, or `otherwise` when no known word is near. */
function unknownWord(what: string, word: string, known: readonly string[], otherwise: string): string {
  const guess = nearest(word, known);
  return `unknown ${what} "${word}"; ${guess ? `did you mean ${guess}?` : otherwise}`;
}

/**
 * Checks `args` against `options` before parseArgs does, so that each mistake gets a one-line
 * message that names the flag, says what is wrong and how to fix it: an unknown flag (with the
 * nearest known one), a flag missing its value, a value on a flag that takes none. A negative
 * number after a flag is taken as its value (`--fork-at -3`), for the flag's own check to refuse.
 * Returns the arguments for parseArgs.
 */
function checkFlags(command: string, args: string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const names = Object.keys(options);
  const checked: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      checked.push(...args.slice(i));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      checked.push(arg);
      continue;
    }
    const long = arg.startsWith('--');
    const equals = arg.indexOf('=');
    const name = long ? arg.slice(2, equals === -1 ? undefined : equals) : arg.slice(1);
    const option = long && Object.hasOwn(options, name) ? options[name] : undefined;
    if (!option) {
      const guess = nearest(long ? name : `-${name}`, names);
      throw new UsageError(
        `${command} has no option ${long ? `--${name}` : arg}; ` +
          (guess ? `did you mean --${guess}?` : `\`promptforge ${command} --help\` lists its options`),
      );
    }
    if (option.type === 'boolean') {
      if (equals !== -1) throw new UsageError(`--${name} takes no value; write just --${name}`);
      checked.push(arg);
      continue;
    }
    if (equals !== -1) {
      checked.push(arg);
      continue;
    }
    const value = args[i + 1];
    const needs = `--${name} needs a value (${FLAG_VALUES[name] ?? 'see the help'})`;
    if (value === undefined) throw new UsageError(`${needs} after it`);
    if (value.startsWith('-') && value !== '-') {
      if (/^-\d/.test(value)) {
        checked.push(`--${name}=${value}`);
        i++;
        continue;
      }
      const flag = value.startsWith('--') ? value.split('=')[0]! : value;
      if (TEXT_FLAGS.has(name) && !(value.startsWith('--') && Object.hasOwn(options, flag.slice(2))))
        throw new UsageError(`${needs}; for a value that starts with "-", write --${name}=${value}`);
      throw new UsageError(`${needs}, but ${flag} follows it; put the value right after --${name}`);
    }
    checked.push(arg, value);
    i++;
  }
  return checked;
}

function parse<T extends NonNullable<ParseArgsConfig['options']>>(command: string, args: string[], options: T) {
  const checked = checkFlags(command, args, options);
  try {
    return parseArgs({ args: checked, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
}

/**
 * `text` with each `promptforge ...` command in it written as `npx promptforge ...` when the CLI
 * was started through npx (or an npm script), where `promptforge` alone may not be on the PATH.
 */
function forLauncher(text: string, env: CliIo['env']): string {
  if (env.npm_command !== 'exec' && !env.npm_lifecycle_event) return text;
  return text.replace(/(?<![\w./-])promptforge (?=keys |run )/g, 'npx promptforge ');
}

/** `file` as one shell word: as is when it is plain, else in single quotes. */
function shellWord(file: string): string {
  return /^[\w./@%+=:,-]+$/.test(file) ? file : `'${file.replaceAll("'", `'\\''`)}'`;
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
  const { values, positionals } = parse('run', args, {
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
  if (isTranscript(scriptFile))
    throw new UsageError(
      `${positionals[0]} is a transcript, not a Lua script; did you mean: ${forLauncher(`promptforge run SCRIPT --replay ${shellWord(positionals[0]!)}`, io.env)}?`,
    );

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
  const keys = keyWatch(io.secrets());
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
      secrets: keys.store,
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
        keys.found(providerId, source);
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
        let message = /^[^\s:]+:\d+: /.test(result.error.message)
          ? result.error.message
          : `${run.scriptPath}: ${result.error.message}`;
        if (fork)
          message = message.replaceAll(
            FORK_GO_LIVE_ADVICE,
            `pass --model ALIAS (or --base-url URL --model-id ID) to go on live ${fork.edit ? 'after the edit' : 'from there'}`,
          );
        const keyless = keys.missing();
        if (keyless) message = forLauncher(message, io.env);
        print.err(message);
        const recording = keyless && values.replay === undefined ? recordingOf(scriptFile, root) : undefined;
        if (recording) {
          const shown = (file: string) => {
            const relative = path.relative(io.cwd, file);
            return shellWord(relative.startsWith('..') || path.isAbsolute(relative) ? file : relative);
          };
          print.err(
            `or run it offline from its recording: ${forLauncher(`promptforge run ${shown(scriptFile)} --replay ${shown(recording)}`, io.env)}`,
          );
        }
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

/**
 * The keychain a run reads provider keys from, watched: `missing()` says whether a provider that
 * needs a key got none (no entry and no variable, or no keychain to ask).
 */
function keyWatch(store: SecretStore): {
  store: SecretStore;
  found(providerId: string, source: ProviderKeySource): void;
  missing(): boolean;
} {
  const unreachable = new Set<string>();
  const resolved = new Set<string>();
  let none = false;
  return {
    store: {
      get: async (name) => {
        try {
          return await store.get(name);
        } catch (error) {
          if (error instanceof SecretStoreUnavailableError) unreachable.add(name);
          throw error;
        }
      },
      set: (name, secret) => store.set(name, secret),
      delete: (name) => store.delete(name),
      has: (name) => store.has(name),
    },
    found(providerId, source) {
      resolved.add(providerId);
      if (source === 'none' && providerPreset(providerId)?.needsKey !== false) none = true;
    },
    missing: () =>
      none || [...unreachable].some((name) => Object.hasOwn(PROVIDER_PRESETS, name) && !resolved.has(name)),
  };
}

/**
 * The recording of the agent `script`, `recordings/<name>.jsonl` in the workspace (the studio's
 * convention, see main/core/studio/agent-files.ts), if there is one.
 */
function recordingOf(script: string, root: string): string | undefined {
  const file = path.join(root, recordingPathFor(script));
  return statSync(file, { throwIfNoEntry: false })?.isFile() ? file : undefined;
}

/** Bytes of a script read to tell whether it is a transcript. */
const TRANSCRIPT_SNIFF_BYTES = 64 << 10;

/** Whether `file` is a transcript: a `.jsonl` file, or one whose first line is a run-start event. */
function isTranscript(file: string): boolean {
  if (file.toLowerCase().endsWith('.jsonl')) return true;
  let head: string;
  try {
    const handle = openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(TRANSCRIPT_SNIFF_BYTES);
      head = buffer.subarray(0, readSync(handle, buffer, 0, buffer.length, 0)).toString('utf8');
    } finally {
      closeSync(handle);
    }
  } catch {
    return false; // An unreadable script is reported when the run reads it.
  }
  if (!head.trimStart().startsWith('{')) return false;
  try {
    const first: unknown = JSON.parse(head.split('\n', 1)[0]!);
    return typeof first === 'object' && first !== null && (first as { type?: unknown }).type === 'run-start';
  } catch {
    return false;
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
      `--fork-at must be a step, a positive integer (the seq of a model round or tool output in the recording), got "${at}"`,
    );
  const edit: ForkEdit = {};
  if (values['edit-output'] !== undefined) edit.output = await flagText('--edit-output', values['edit-output'], io);
  if (values['edit-reply'] !== undefined) edit.reply = await flagText('--edit-reply', values['edit-reply'], io);
  if (values['edit-calls'] !== undefined) {
    const text = await flagText('--edit-calls', values['edit-calls'], io);
    const exact = parseExactJson(text);
    if (!exact.ok) throw new UsageError(`--edit-calls: ${exact.problem}`);
    const parsed = exact.value;
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

/** The keychain entries `keys` manages: provider ids, and the secrets the workspace's catalogs name. */
interface KeyNames {
  providers: string[];
  /** Secret name -> where it is used (see {@link workspaceSecrets}). */
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
  return { providers: Object.keys(PROVIDER_PRESETS), secrets: workspaceSecrets(workspace) };
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
  const { values, positionals } = parse('mcp list', args, { workspace: { type: 'string' } });
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
  const { values, positionals } = parse('keys', args, { workspace: { type: 'string' } });
  const [action, name, ...extra] = positionals;
  if (action === undefined || !KEY_ACTIONS.has(action))
    throw new UsageError(
      action === undefined
        ? 'keys needs set NAME, status or delete NAME'
        : unknownWord('keys command', action, [...KEY_ACTIONS], 'use set NAME, status or delete NAME'),
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
