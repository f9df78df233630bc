import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { RunEvent } from '../../common/run-events.js';
import type { Approver } from '../core/approval/approver.js';
import { PolicyApprover } from '../core/approval/policy-approver.js';
import { TerminalApprover } from '../core/approval/terminal-approver.js';
import { formatProblem } from '../core/catalog/catalog-problem.js';
import { findWorkspaceRoot, loadWorkspace } from '../core/catalog/workspace.js';
import { KeyringSecretStore } from '../core/credentials/keyring-secret-store.js';
import type { SecretStore } from '../core/credentials/secret-store.js';
import { SecretStoreUnavailableError } from '../core/credentials/secret-store.js';
import { PROVIDER_PRESETS } from '../core/providers/presets.js';
import { prepareRun, RunSetupError } from '../core/run/prepare-run.js';
import { WorkerPool } from '../core/run/worker-pool.js';
import { TranscriptError } from '../core/transcript/transcript-reader.js';

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
}

/** Exit codes (SPEC §7). */
export const EXIT = { ok: 0, scriptError: 1, usage: 2, limit: 3 } as const;

const USAGE = `Usage:
  promptforge run FILE.lua [options]     run an agent script headless
  promptforge keys set PROVIDER          store a key in the OS keychain (read from stdin)
  promptforge keys status                which keys are set (never prints a key)
  promptforge keys delete PROVIDER       remove a key from the OS keychain

Run options:
  --workspace DIR        workspace folder (default: the nearest folder upward from the script,
                         then from the current directory, that holds a catalog)
  --model ALIAS          model alias from models.yaml
  --base-url URL         one-off OpenAI-compatible endpoint (with --model-id; key from the
  --model-id ID          keychain entry "openai-compatible" or OPENAI_API_KEY, if any)
  --approve MODE         ask | auto | deny for tools whose approval is "ask"
                         (default: ask on a terminal, deny otherwise)
  --replay TRANSCRIPT    answer models.chat and tools.call from a recording, offline
  --transcript OUT       write the transcript here (default: <workspace>/runs/<run id>.jsonl)
  --json                 print every run event as a JSON line on stdout
  --cpu-limit SECONDS    Lua compute budget (default 30)
  --memory-limit MIB     Lua heap cap (default 256)
  --timeout SECONDS      wall-clock limit (default none)

Exit codes: 0 success, 1 script error, 2 usage or catalog error, 3 limit exceeded or stopped.`;

class UsageError extends Error {}

function defaultIo(): CliIo {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    onInterrupt(listener) {
      process.on('SIGINT', listener);
      return () => process.off('SIGINT', listener);
    },
    secrets: () => new KeyringSecretStore(),
  };
}

function packageVersion(): string {
  const file = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/** Runs the CLI with `argv` (without node and the script); resolves with the exit code. */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  const say = (text: string) => io.stderr.write(`promptforge: ${text}\n`);
  try {
    const [command, ...rest] = argv;
    switch (command) {
      case 'run':
        return await runCommand(rest, io);
      case 'keys':
        return await keysCommand(rest, io);
      case '--version':
      case '-v':
        io.stdout.write(`${packageVersion()}\n`);
        return EXIT.ok;
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.stdout.write(`${USAGE}\n`);
        return command === undefined ? EXIT.usage : EXIT.ok;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      say(`${error.message}\nRun \`promptforge --help\` for usage.`);
      return EXIT.usage;
    }
    if (
      error instanceof RunSetupError ||
      error instanceof TranscriptError ||
      error instanceof SecretStoreUnavailableError
    ) {
      say(error.message);
      return EXIT.usage;
    }
    say(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return EXIT.scriptError;
  }
}

function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function positiveNumber(flag: string, value: string | undefined, unit: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0)
    throw new UsageError(`${flag} must be a positive number of ${unit}, got "${value}"`);
  return number;
}

async function runCommand(args: string[], io: CliIo): Promise<number> {
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
  if (values.replay !== undefined && (values.model !== undefined || values['base-url'] !== undefined))
    throw new UsageError('--replay answers models.chat from the recording; drop --model / --base-url');
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
  const workspace = await loadWorkspace(root);
  for (const problem of workspace.problems) io.stderr.write(`${problem.severity}: ${formatProblem(problem)}\n`);

  const json = values.json === true;
  const approver: Approver =
    approve === 'ask' ? new TerminalApprover({ input: io.stdin, output: io.stderr }) : new PolicyApprover(approve);
  const pool = new WorkerPool({ size: 1 });
  const reported = new Set<string>();
  const onEvent = (event: RunEvent): void => {
    if (json) io.stdout.write(`${JSON.stringify(event)}\n`);
    else if (event.type === 'log') io.stdout.write(`${event.text}\n`);
  };
  try {
    const run = await prepareRun({
      scriptFile,
      workspace,
      pool,
      approver,
      secrets: io.secrets(),
      allowEnvKeys: true,
      env: io.env,
      ...(values.model !== undefined && { model: values.model }),
      ...(values['base-url'] !== undefined && {
        endpoint: { baseUrl: values['base-url'], modelId: values['model-id']! },
      }),
      ...(values.replay !== undefined && { replayPath: path.resolve(io.cwd, values.replay) }),
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
      onKeySource: (providerId, source) => {
        if (reported.has(providerId)) return;
        reported.add(providerId);
        const where =
          source === 'keychain' ? 'the OS keychain' : source === 'none' ? 'nowhere (no key set)' : source.slice(4);
        io.stderr.write(`promptforge: ${providerId} key from ${where}\n`);
      },
    });
    let interrupts = 0;
    const unsubscribe = io.onInterrupt(() => {
      interrupts += 1;
      if (interrupts === 1) run.stop('interrupted (Ctrl-C)');
    });
    await run.start();
    const result = await run.done;
    unsubscribe();
    if (result.error) {
      const message = /^[^\s:]+:\d+: /.test(result.error.message)
        ? result.error.message
        : `${run.scriptPath}: ${result.error.message}`;
      io.stderr.write(`${message}\n`);
    }
    if (result.transcriptPath && !json) {
      const relative = path.relative(io.cwd, result.transcriptPath);
      io.stderr.write(`promptforge: transcript ${relative.startsWith('..') ? result.transcriptPath : relative}\n`);
    }
    return result.exitCode;
  } finally {
    await pool.close();
  }
}

async function readSecret(io: CliIo, name: string): Promise<string> {
  if (io.stdin.isTTY && io.stdin.setRawMode) {
    io.stderr.write(`Paste the key for ${name} and press Enter (it is not shown): `);
    io.stdin.setRawMode(true);
    return new Promise((resolve, reject) => {
      let text = '';
      const onData = (chunk: Buffer) => {
        for (const char of chunk.toString('utf8')) {
          if (char === '\r' || char === '\n') return done();
          if (char === '\u0003') return done(new UsageError('cancelled'));
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

const SECRET_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

async function keysCommand(args: string[], io: CliIo): Promise<number> {
  const { positionals } = parse(args, {});
  const [action, name, ...extra] = positionals;
  if (action === 'set' || action === 'delete') {
    if (!name) throw new UsageError(`keys ${action} needs a provider, e.g. \`promptforge keys ${action} openai\``);
    if (extra.length > 0)
      throw new UsageError(
        action === 'set'
          ? 'the key is read from stdin, never from the command line (it would land in shell history)'
          : 'keys delete takes one provider',
      );
    if (!SECRET_NAME.test(name)) throw new UsageError(`"${name}" is not a valid key name (letters, digits, . _ -)`);
  }
  const store = io.secrets();
  switch (action) {
    case 'set': {
      const secret = await readSecret(io, name!);
      if (!secret) throw new UsageError('no key given on stdin');
      const existed = await store.has(name!);
      await store.set(name!, secret);
      io.stdout.write(`${existed ? 'Replaced' : 'Stored'} the key for ${name} in the OS keychain.\n`);
      return EXIT.ok;
    }
    case 'delete': {
      const deleted = await store.delete(name!);
      io.stdout.write(deleted ? `Deleted the key for ${name}.\n` : `No key for ${name} was stored.\n`);
      return EXIT.ok;
    }
    case 'status': {
      const rows: string[] = [];
      for (const [id, preset] of Object.entries(PROVIDER_PRESETS)) {
        const set = await store.has(id);
        const env =
          preset.keyEnvVar && io.env[preset.keyEnvVar] ? ` (${preset.keyEnvVar} is also set in the environment)` : '';
        const state = set ? 'set in the OS keychain' : preset.needsKey ? 'not set' : 'not set (not needed)';
        rows.push(`${id.padEnd(18)} ${state}${env}`);
      }
      io.stdout.write(`${rows.join('\n')}\n`);
      return EXIT.ok;
    }
    default:
      throw new UsageError('keys takes set PROVIDER, status or delete PROVIDER');
  }
}
