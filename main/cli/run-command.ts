/** `promptforge run FILE.lua`: checks its flags, loads the workspace, runs the script and reports the result. */
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import type { RunEvent } from '../../common/run-events.js';
import type { Approver } from '../core/approval/approver.js';
import { PolicyApprover } from '../core/approval/policy-approver.js';
import type { Workspace } from '../core/catalog/workspace.js';
import { recordingPathFor } from '../core/catalog/recording-path.js';
import type { ProviderKeySource } from '../core/credentials/resolve-provider-key.js';
import { SecretStoreUnavailableError, type SecretStore } from '../core/credentials/secret-store.js';
import { PROVIDER_PRESETS, providerPreset } from '../core/providers/presets.js';
import type * as PrepareRunModule from '../core/run/prepare-run.js';
import { FORK_GO_LIVE_ADVICE } from '../core/run/run-errors.js';
import { wordsFor } from '../core/surface-words.js';
import type { WorkerPool } from '../core/run/worker-pool.js';
import { parse, positiveNumber } from './cli-args.js';
import { InterruptedError, stopText, untilInterrupted, UsageError } from './cli-errors.js';
import { forLauncher, type CliIo, type Printer } from './cli-io.js';
import { loadCatalogModules, workspaceRoot, type CatalogModules } from './cli-workspace.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { flagText, forkOptions } from './fork-flags.js';
import { TerminalApprover } from './terminal-approver.js';
import { TerminalMcpPerson } from './terminal-mcp-person.js';
import { shellWord, terminalSafeJson } from './terminal-text.js';
import { decideKeyOrigin, decideWorkspaceTrust, type TrustDecision } from './trust-command.js';

/** The wall-clock limit of a run with no terminal and no --timeout, in seconds (30 minutes). */
const UNATTENDED_TIMEOUT_SECONDS = 30 * 60;
/** How long an unattended run goes before the CLI prints its default deadline. */
const DEADLINE_NOTICE_MS = 60_000;

/**
 * The run machinery (worker pool, providers, MCP client) is imported only by the commands that use
 * it, so `keys`, `--help` and `--version` start without loading it.
 */
let prepareRunModule: typeof PrepareRunModule | undefined;
async function loadPrepareRun(): Promise<typeof PrepareRunModule> {
  prepareRunModule ??= await import('../core/run/prepare-run.js');
  return prepareRunModule;
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
  note: { keychainUnavailable: boolean; withheldFrom?: string },
): string | undefined {
  const preset = providerPreset(providerId);
  if (note.withheldFrom !== undefined)
    return `${providerId}: sending requests to ${note.withheldFrom} without your key, which goes there only if you approve it (promptforge trust --allow-key ${providerId} ${note.withheldFrom})`;
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

export async function runCommand(args: string[], io: CliIo, print: Printer, interrupt: AbortSignal): Promise<number> {
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
    'max-run-tokens': { type: 'string' },
    'max-run-cost': { type: 'string' },
    input: { type: 'string' },
    'fork-at': { type: 'string' },
    'edit-output': { type: 'string' },
    'edit-reply': { type: 'string' },
    'edit-calls': { type: 'string' },
    force: { type: 'boolean' },
    restricted: { type: 'boolean' },
    'fail-on-deny': { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new UsageError('run takes exactly one script: promptforge run FILE.lua');
  const scriptFile = path.resolve(io.cwd, positionals[0]!);
  const scriptStat = statSync(scriptFile, { throwIfNoEntry: false });
  if (scriptStat?.isDirectory()) {
    const scripts = readdirSync(scriptFile).filter((name) => name.endsWith('.lua'));
    throw new UsageError(
      `${positionals[0]} is a folder, not a script${
        scripts.length > 0
          ? `; its scripts: ${scripts
              .slice(0, 8)
              .map((name) => shellWord(path.join(positionals[0]!, name)))
              .join(', ')}${scripts.length > 8 ? ', …' : ''}`
          : ''
      }`,
    );
  }
  if (!scriptStat?.isFile()) throw new UsageError(`${positionals[0]}: no such script file`);
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
  const input = values.input === undefined ? undefined : await flagText('--input', values.input, io);
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
  const maxTokens = positiveNumber('--max-run-tokens', values['max-run-tokens'], 'tokens');
  const maxCost = positiveNumber('--max-run-cost', values['max-run-cost'], 'US dollars');
  // Nobody watches a run without a terminal: it gets a deadline unless it names its own.
  const wallSeconds = timeout ?? (io.stdin.isTTY ? undefined : UNATTENDED_TIMEOUT_SECONDS);

  let transcriptDefault: string | false | undefined;
  const found = await workspaceRoot(io, values.workspace, [path.dirname(scriptFile), io.cwd]);
  const root = found ?? io.cwd;
  // Without a workspace there is no runs/ folder to fill: write a transcript only when asked.
  if (!found) transcriptDefault = false;
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
  // An unknown --model is a usage error, said before anyone is asked to trust anything.
  if (values.model !== undefined && !workspace.models.get(values.model)) {
    void ownPool?.then((pool) => pool.close());
    const known = workspace.models.list().map((model) => model.alias);
    throw new UsageError(wordsFor('cli').unknownModel(values.model, known));
  }
  // A replay answers every call and every model round from its recording: nothing of the
  // workspace runs and no key or secret is read, so it never asks for trust, and trust changes
  // nothing in it (a restricted run would relabel the recorded outputs and diverge).
  const offline =
    values.replay !== undefined &&
    (fork === undefined || (values.model === undefined && values['base-url'] === undefined));
  let trust: Pick<TrustDecision, 'state'> & Partial<Pick<TrustDecision, 'store'>>;
  let askedBeforeRun: string | undefined;
  try {
    if (offline) trust = { state: values.restricted ? 'restricted' : 'empty' };
    else {
      const decided = await untilInterrupted(
        decideWorkspaceTrust(workspace, io, print, { restricted: values.restricted === true, what: 'run it' }),
        interrupt,
      );
      trust = decided;
      workspace = decided.workspace;
      if (trust.state === 'restricted')
        print.say('restricted workspace: its command tools, MCP servers and secrets stay off, and every call asks');
      if (values['base-url'] === undefined) {
        const alias = values.model ?? workspace.models.defaultFor(path.relative(workspace.root, scriptFile));
        askedBeforeRun = alias;
        const model = alias === undefined ? undefined : workspace.models.get(alias);
        await untilInterrupted(
          decideKeyOrigin(
            io,
            print,
            decided,
            model && { alias: model.alias, provider: model.provider, ...(model.baseUrl && { baseUrl: model.baseUrl }) },
          ),
          interrupt,
        );
      }
    }
  } catch (error) {
    void ownPool?.then((pool) => pool.close());
    if (!(error instanceof InterruptedError)) throw error;
    print.say(`${stopText(interrupt)} before the run started`);
    io.stdin.destroy(); // A trust question may still be reading it.
    return EXIT.stopped;
  }

  const json = values.json === true;
  const [{ prepareRun }, pool, rules] = await Promise.all([
    loadPrepareRun(),
    io.pool ?? ownPool!,
    import('./rules-command.js'),
  ]);
  const reported = new Set<string>();
  const keys = keyWatch(io.secrets());
  let denied = 0;
  const onEvent = (event: RunEvent): void => {
    if (event.type === 'approval-decision' && event.decision.kind === 'deny') denied += 1;
    if (json) io.stdout.write(`${terminalSafeJson(event)}\n`);
    else if (event.type === 'log') print.out(event.text);
  };
  const approver = approverFor(approve, values.approve !== undefined, io);
  const usage = rules.ruleUsage(io);
  // An MCP server's elicitation and sampling go to a person at the terminal: on a TTY, when
  // approvals are asked there; otherwise (no TTY, --approve deny or auto) they are declined.
  const mcpPerson =
    approver instanceof TerminalApprover && io.stdin.isTTY ? new TerminalMcpPerson(approver) : undefined;
  // On a terminal, a model the script picks mid-run may still ask where its key goes, on the
  // approvals' own lines (a trusted workspace only; a restricted one never asks).
  // The model asked about before the run is not asked about again (a no stays a no).
  const confirmKeyOrigin =
    approver instanceof TerminalApprover && io.stdin.isTTY
      ? async ({ label, origin, model }: { label: string; origin: string; model: string }) =>
          model !== askedBeforeRun &&
          approver.confirm(
            `model "${model}" sends requests to ${origin}. Send them there, with your ${label} key if one is stored?`,
            interrupt,
          )
      : undefined;
  try {
    const run = await prepareRun({
      scriptFile,
      workspace,
      pool,
      approver,
      ...(mcpPerson && { elicitor: mcpPerson.elicitor, sampler: mcpPerson.sampler }),
      secrets: keys.store,
      allowEnvKeys: true,
      env: io.env,
      rules: {
        store: rules.ruleStore(io),
        usage,
        definitions: rules.ruleDefinitions(io),
        onWarning: (text) => print.err(text),
      },
      trust: {
        state: trust.state,
        ...(trust.store && { store: trust.store }),
        ...(confirmKeyOrigin && { confirmKeyOrigin }),
        via: 'terminal',
      },
      ...(values.model !== undefined && { model: values.model }),
      ...(values['base-url'] !== undefined && {
        endpoint: { baseUrl: values['base-url'], modelId: values['model-id']! },
      }),
      ...(values.replay !== undefined && { replayPath: path.resolve(io.cwd, values.replay) }),
      ...(input !== undefined && { input }),
      ...(fork && { fork: { ...fork, transcriptName: values.replay! } }),
      ...(values.transcript !== undefined
        ? { transcriptPath: path.resolve(io.cwd, values.transcript) }
        : transcriptDefault === false
          ? { transcriptPath: false as const }
          : {}),
      limits: {
        ...(cpu !== undefined && { cpuMs: cpu * 1000 }),
        ...(memory !== undefined && { memoryBytes: memory * 1024 * 1024 }),
        ...(wallSeconds !== undefined && { wallMs: wallSeconds * 1000 }),
        ...(maxTokens !== undefined && { maxTokens }),
        ...(maxCost !== undefined && { maxCost }),
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
      print.say(`${stopText(interrupt)} before the run started`);
      return EXIT.stopped;
    }
    const onInterrupt = () => run.stop(stopText(interrupt));
    interrupt.addEventListener('abort', onInterrupt, { once: true });
    // A run still going after a minute with nobody to watch it is told its deadline (short runs,
    // the most, finish first and print nothing more).
    const deadlineNotice =
      timeout === undefined && wallSeconds !== undefined
        ? setTimeout(
            () =>
              print.say(
                `no terminal and no --timeout: this run stops after ${wallSeconds / 60} minutes in all (the default for unattended runs); pass --timeout SECONDS to change it`,
              ),
            DEADLINE_NOTICE_MS,
          )
        : undefined;
    deadlineNotice?.unref();
    try {
      await run.start();
      const result = await run.done;
      // Which rules decided calls, written before the CLI exits.
      await usage.flush();
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
        // Commands the message suggests (keys set, trust --allow-key...) are written as this launcher needs.
        message = forLauncher(message, io.env);
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
      if (
        result.status === 'limit' &&
        timeout === undefined &&
        wallSeconds !== undefined &&
        /wall-clock/.test(result.error?.message ?? '')
      )
        print.say(
          `that is the default limit of a run without a terminal (${wallSeconds / 60} minutes); pass --timeout SECONDS to change it`,
        );
      if (result.transcriptPath && !json) {
        const relative = path.relative(io.cwd, result.transcriptPath);
        print.say(`transcript ${relative.startsWith('..') ? result.transcriptPath : relative}`);
      }
      if (values['fail-on-deny'] === true && denied > 0 && result.status !== 'stopped') {
        print.say(`${denied} call${denied === 1 ? ' was' : 's were'} denied (--fail-on-deny): exit ${EXIT.denied}`);
        return EXIT.denied;
      }
      return exitCodeFor(result.status);
    } finally {
      clearTimeout(deadlineNotice);
      interrupt.removeEventListener('abort', onInterrupt);
      // The prompt stops reading stdin once the run is over: an open pipe no one writes to any
      // more (the person left, the output closed) does not keep the CLI from exiting.
      if (approver instanceof TerminalApprover) approver.close();
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
