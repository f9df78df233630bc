/** A stdio MCP server as a process tree of its own, on the SDK's stdio transport. */
import { childSearchPath } from '../tools/child-path.js';
import { spawn } from 'node:child_process';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CALL_MARKER_VARIABLE, machineForkCount, ProcessTree } from '../tools/process-tree.js';
import { MAX_MCP_MESSAGE_BYTES } from './mcp-bounds.js';
import { canReplaceSpawn, guardInputBacklog, guardReadBuffer, type SdkStdioInternals } from './mcp-stdio-guards.js';

export { HOST_REFUSED, HOST_REFUSED_DATA } from './mcp-stdio-guards.js';

/** How often a busy server's process tree is snapshotted (starting, or a call in flight), as command tools'. */
const MCP_SNAPSHOT_INTERVAL_MS = 100;
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
 * and at the start and end of each call; a snapshot after which the machine created no process
 * costs one read of /proc/stat, see {@link ProcessTree.snapshot}), so a descendant that
 * double-forks, calls `setsid` or clears its environment is still known. {@link kill} sends SIGKILL to all of it, a grandchild
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
    const forksBeforeSpawn = machineForkCount();
    if (process.platform === 'win32' || !canReplaceSpawn(internals)) await super.start();
    else await this.spawnInGroup(internals);
    if (this.pid === null) return;
    this.tree = new ProcessTree(this.pid, this.marker, forksBeforeSpawn);
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
      child.stdin.on('error', (error) => this.onerror?.(error));
      child.stdout.on('data', (chunk: Buffer) => {
        try {
          internals._readBuffer!.append(chunk);
          internals.processReadBuffer!.call(this);
        } catch (error) {
          this.onerror?.(error as Error);
          this.close().catch(() => undefined);
        }
      });
      child.stdout.on('error', (error) => this.onerror?.(error));
      child.stderr.on('error', () => undefined);
      if (internals._stderrStream) child.stderr.pipe(internals._stderrStream);
    });
  }
}

/** `env` with its PATH cut to absolute entries (see {@link childSearchPath}). */
function withSearchPath(env: Record<string, string>): Record<string, string> {
  const searchPath = childSearchPath(env['PATH']);
  return searchPath === undefined ? env : { ...env, PATH: searchPath };
}
