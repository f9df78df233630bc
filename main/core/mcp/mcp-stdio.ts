import { childSearchPath } from '../tools/child-path.js';
import { type ChildProcess, spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { CALL_MARKER_VARIABLE, ProcessTree } from '../tools/process-tree.js';
import {
  jsonBoundsProblem,
  MAX_MCP_INPUT_BACKLOG_BYTES,
  MAX_MCP_JSON_DEPTH,
  MAX_MCP_MESSAGE_BYTES,
} from './mcp-bounds.js';

/** The code of the error answer put in place of a message the host refused (see guardReadBuffer). */
export const HOST_REFUSED = -32099;
/**
 * The `data` of that error answer. Only the host holds this object, so a server that sends the
 * same code with its own message cannot pass its words off as the host's.
 */
export const HOST_REFUSED_DATA = Object.freeze({ refusedBy: 'promptforge' });

/** How often a busy server's process tree is snapshotted (starting, or a call in flight), as command tools'. */
export const MCP_SNAPSHOT_INTERVAL_MS = 100;
/** Snapshots of an idle server's tree are this many intervals apart. */
const IDLE_SNAPSHOT_EVERY = 20;

export interface ServerProcessOptions {
  command: string;
  args: string[];
  /** The real path of the working directory (already checked to be inside the workspace). */
  cwd: string;
  /** The server's variables; the process-tree marker is added here. */
  env: Record<string, string>;
  /** Stops the server when it breaks a bound; `reason` says how, as "it ...". */
  onBroken: (reason: string) => void;
  /** Each chunk of the server's stderr, as text. */
  onStderr: (text: string) => void;
}

/** The fields of the SDK's transport that {@link ServerProcessTransport} takes over. */
interface SdkStdioInternals {
  _process?: ChildProcess;
  _readBuffer?: { readMessage(): unknown; append(chunk: Buffer): void; clear(): void };
  _stderrStream?: Writable | null;
  processReadBuffer?: () => void;
}

/** Trees of servers still running, killed when the host process exits (see {@link killAtExit}). */
const liveTrees = new Set<ProcessTree>();
let exitHookInstalled = false;

/** Kills `tree` when the host exits without stopping the server (a crash of the run, `process.exit`). */
function killAtExit(tree: ProcessTree): void {
  liveTrees.add(tree);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // ProcessTree.kill is synchronous on POSIX: it runs to the end inside the 'exit' handler.
  process.once('exit', () => {
    for (const live of liveTrees) live.kill();
    liveTrees.clear();
  });
}

/**
 * A stdio MCP server as a process tree, like a command tool's (see {@link ProcessTree} and
 * runCommand): on POSIX the server is spawned in a process group of its own (`detached`), every
 * process it starts inherits a marker variable, and the tree is snapshotted (every
 * {@link MCP_SNAPSHOT_INTERVAL_MS} while the server starts or a call runs, less often while idle,
 * and at the start and end of each call), so a descendant that double-forks, calls `setsid` or
 * clears its environment is still known. {@link kill} sends SIGKILL to all of it, a grandchild
 * that ignores SIGTERM included; trees still alive when the host process exits are killed then.
 *
 * The SDK's transport parses and writes the messages; only its spawn is replaced (on Windows it
 * is kept: cross-spawn finds `.cmd` shims, and taskkill /T walks the tree). Lines the server
 * writes are bounded by {@link guardReadBuffer}, its unread input by {@link guardInputBacklog}.
 */
export class ServerProcessTransport extends StdioClientTransport {
  /** The server's tree, once it was spawned. */
  tree: ProcessTree | undefined;
  private readonly marker: string;
  private watch: NodeJS.Timeout | undefined;
  private ticks = 0;
  private busyCount = 0;
  private dead = false;

  constructor(private readonly options: ServerProcessOptions) {
    const marker = options.env[CALL_MARKER_VARIABLE] ?? '';
    super({
      command: options.command,
      args: options.args,
      cwd: options.cwd,
      env: options.env,
      stderr: 'pipe',
      maxBufferSize: MAX_MCP_MESSAGE_BYTES,
    } as ConstructorParameters<typeof StdioClientTransport>[0]);
    this.marker = marker;
    this.stderr?.on('data', (chunk: Buffer) => options.onStderr(chunk.toString('utf8')));
    guardReadBuffer(this, options.onBroken);
    guardInputBacklog(this, options.onBroken);
  }

  override async start(): Promise<void> {
    const internals = this as unknown as SdkStdioInternals;
    if (process.platform === 'win32' || !canReplaceSpawn(internals)) await super.start();
    else await this.spawnInGroup(internals);
    if (this.pid === null) return;
    this.tree = new ProcessTree(this.pid, this.marker);
    // Stopped while it was being spawned: nothing of it may stay.
    if (this.dead) return this.tree.kill();
    killAtExit(this.tree);
    this.tree.snapshot();
    this.watch = setInterval(() => this.tick(), MCP_SNAPSHOT_INTERVAL_MS);
    this.watch.unref();
  }

  /**
   * Marks the server busy (a call in flight) until the returned function is called: its tree is
   * snapshotted now, at every interval meanwhile, and at the end.
   */
  busy(): () => void {
    this.busyCount += 1;
    this.tree?.snapshot();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.busyCount -= 1;
      this.tree?.snapshot();
    };
  }

  /** Kills the server and every process of its tree (SIGKILL), now. Never throws. */
  kill(): void {
    this.dead = true;
    clearInterval(this.watch);
    this.watch = undefined;
    const tree = this.tree;
    if (!tree) return;
    tree.kill();
    liveTrees.delete(tree);
  }

  private tick(): void {
    this.ticks += 1;
    if (this.busyCount > 0 || this.ticks % IDLE_SNAPSHOT_EVERY === 0) this.tree?.snapshot();
  }

  /** The SDK's start, with the server as the leader of a new process group. */
  private spawnInGroup(internals: SdkStdioInternals): Promise<void> {
    if (internals._process) throw new Error('the server process was already started');
    const options = this.options;
    return new Promise((resolve, reject) => {
      const child = spawn(options.command, options.args, {
        env: withSearchPath({ ...getDefaultEnvironment(), ...options.env }),
        cwd: options.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        detached: true,
      });
      internals._process = child;
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on('spawn', () => resolve());
      child.on('close', () => {
        internals._process = undefined;
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => {
        try {
          internals._readBuffer!.append(chunk);
          internals.processReadBuffer!.call(this);
        } catch (error) {
          this.onerror?.(error as Error);
          this.close().catch(() => undefined);
        }
      });
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stderr?.on('error', () => undefined);
      if (internals._stderrStream && child.stderr) child.stderr.pipe(internals._stderrStream);
    });
  }
}

/** Whether the SDK's transport still has the fields the group spawn takes over. */
function canReplaceSpawn(internals: SdkStdioInternals): boolean {
  return (
    typeof internals._readBuffer?.append === 'function' &&
    typeof internals.processReadBuffer === 'function' &&
    '_stderrStream' in internals
  );
}

/**
 * Bounds what the host reads from a stdio server. The SDK's buffer refuses more than
 * {@link MAX_MCP_MESSAGE_BYTES} unread bytes, but then clears itself and reads on from the middle
 * of the line, and waits seconds for a server that ignores the end of its input and SIGTERM; here
 * the first overflow stops the server at once (`onBroken`) and everything after it is dropped.
 *
 * The SDK also parses each line with zod, which recurses: a hostile 10,000-deep message would
 * overflow the stack and take the connection down. Lines are parsed here first: an answer nested
 * deeper than {@link MAX_MCP_JSON_DEPTH} becomes an error answer to its request, and any other
 * message that deep is refused.
 */
function guardReadBuffer(transport: StdioClientTransport, onBroken: (reason: string) => void): void {
  const holder = transport as unknown as SdkStdioInternals;
  const buffer = holder._readBuffer;
  if (!buffer || typeof buffer.readMessage !== 'function' || typeof buffer.append !== 'function') return;
  const inner = buffer as unknown as { _buffer?: Buffer };
  let overflowed = false;
  const append = buffer.append.bind(buffer);
  buffer.append = (chunk: Buffer) => {
    if (overflowed) return;
    try {
      append(chunk);
    } catch (error) {
      overflowed = true;
      inner._buffer = undefined;
      onBroken(`it sent a message over ${MAX_MCP_MESSAGE_BYTES} bytes (or a line that does not end) on stdout`);
      throw error;
    }
  };
  buffer.readMessage = () => {
    const data = inner._buffer;
    if (!data || overflowed) return null;
    const index = data.indexOf('\n');
    if (index === -1) return null;
    const line = data.toString('utf8', 0, index).replace(/\r$/, '');
    inner._buffer = data.subarray(index + 1);
    const value: unknown = JSON.parse(line);
    const tooDeep = jsonBoundsProblem(value, MAX_MCP_JSON_DEPTH + 8, Number.MAX_SAFE_INTEGER);
    if (tooDeep) {
      const message = value as { id?: unknown; method?: unknown } | null;
      const id = message?.id;
      // Only an answer (an id and no method) is turned into an error answer to the host's request.
      if ((typeof id !== 'string' && typeof id !== 'number') || message?.method !== undefined)
        throw new Error(`refused a message: ${tooDeep}`);
      return {
        jsonrpc: '2.0',
        id,
        error: { code: HOST_REFUSED, message: `the host refused the answer: ${tooDeep}`, data: HOST_REFUSED_DATA },
      };
    }
    return JSONRPCMessageSchema.parse(value);
  };
}

/**
 * Stops a stdio server that does not read its input: a server flooding requests (pings, requests
 * the client does not offer) and never reading the answers would make them pile up in the host.
 * A message is refused and the server stopped once {@link MAX_MCP_INPUT_BACKLOG_BYTES} wait unread.
 */
function guardInputBacklog(transport: StdioClientTransport, onBroken: (reason: string) => void): void {
  const holder = transport as unknown as SdkStdioInternals;
  const send = transport.send.bind(transport);
  transport.send = async (message) => {
    const waiting = (holder._process?.stdin as { writableLength?: number } | null | undefined)?.writableLength ?? 0;
    if (waiting > MAX_MCP_INPUT_BACKLOG_BYTES) {
      const reason = `it does not read its input (more than ${MAX_MCP_INPUT_BACKLOG_BYTES} bytes of messages to it wait unread)`;
      onBroken(reason);
      throw new Error(`refused to send: ${reason}`);
    }
    return send(message);
  };
}

/** `env` with its PATH cut to absolute entries (see {@link childSearchPath}). */
function withSearchPath(env: Record<string, string>): Record<string, string> {
  const searchPath = childSearchPath(env['PATH']);
  return searchPath === undefined ? env : { ...env, PATH: searchPath };
}
