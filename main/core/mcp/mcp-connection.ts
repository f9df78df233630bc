/** One MCP server's connection: its life (start, backoff, stop), its tool listing, and its calls. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  type GetPromptResult,
  PromptListChangedNotificationSchema,
  type ReadResourceResult,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '../../../common/json.js';
import type { McpPromptEntry, McpResourceEntry } from '../../../common/mcp-person.js';
import type { SecretStore } from '../credentials/secret-store.js';
import { CLIENT_CAPABILITIES, installServerRequestHandlers } from './mcp-client-handlers.js';
import { HeldListings, type Listed } from './mcp-resources.js';
import { InFlightCalls, type McpRunSession } from './mcp-session.js';
import type { McpLoginState, McpOAuth, OAuthLoginPort } from './oauth/mcp-oauth.js';
import type { SignOutOutcome } from './oauth/oauth-revoke.js';
import type { SecretSource } from '../tools/http-runner.js';
import { ToolFailure } from '../tools/tool-spec.js';
import { BoundedTail, MCP_PROGRESS_TIMEOUT_FACTOR } from './mcp-bounds.js';
import { listAll } from './mcp-listing.js';
import { callFailure, describeStartError, startFailure, type FailureContext } from './mcp-failures.js';
import { resultToOutput } from './mcp-result.js';
import { McpSecretList } from './mcp-secrets.js';
import { noSignIn, serverOAuth } from './mcp-sign-in.js';
import { ServerProcessTransport } from './mcp-stdio.js';
import { abortableDelay, untilAborted } from './mcp-waits.js';
import { McpStartError, serverTransport } from './mcp-transport.js';
import type { McpServerSpec } from '../catalog/mcp-spec.js';
import type { Surface } from '../surface-words.js';

/** Where a server is in its life. */
export type McpServerState = 'stopped' | 'starting' | 'ready' | 'error';

/** Malformed or unexpected messages tolerated before a server is stopped as broken. */
const MAX_PROTOCOL_ERRORS = 100;
/** First and largest wait before a crashed server is started again. */
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 30_000;

export interface McpConnectionOptions {
  workspaceRoot: string;
  /** The keychain: `{ secret: NAME }` env values and headers are read here, in main. */
  secrets: SecretSource;
  /**
   * The secrets every server of the workspace knows: this connection adds the keychain values and
   * pass-through values it starts the server with, and redacts them all from what it exposes.
   */
  secretList?: McpSecretList;
  /** Where the person reads start failures (default `cli`). */
  surface?: Surface;
  /** Told whenever state or tools change (`tools`), or stderr grows (`stderr`). */
  onChange: (what: 'tools' | 'stderr') => void;
  /** Told when the server's resources or prompts change (a listing refreshed, or `resources/updated` for `uri`). */
  onListChanged?: (what: 'resources' | 'prompts' | 'resource-updated', uri?: string) => void;
  /** The OS keychain itself (not a workspace's view of it), where sign-ins to Streamable HTTP servers are kept. */
  keychain?: SecretStore;
  /** When set, a sign-in a server asks for mid-use happens at once, with the person (see McpOAuth). */
  login?: OAuthLoginPort;
  /** Bounds of sign-in requests and of the wait for the browser (tests shorten them). */
  oauthTimeouts?: { requestMs?: number; loginMs?: number };
}

/** Options of a server request that a run (or the studio) makes: a resource read or a prompt. */
export interface McpRequestOptions {
  signal: AbortSignal;
  timeoutMs: number;
  /** The run the request is made for: a server request during it is charged to that run. */
  session?: McpRunSession;
}

/**
 * One MCP server, through the official SDK client: started on demand, with an initialisation
 * timeout; restarted with backoff after a crash; stopped with its whole process tree (see
 * {@link ServerProcessTransport}) on stop, restart, close, a crash and a broken bound. What it
 * exposes (the stderr tail, errors, the server's words in call failures) has every secret of
 * {@link McpConnectionOptions.secretList} redacted.
 */
export class McpConnection {
  state: McpServerState = 'stopped';
  lastError: string | undefined;
  /** Whether the last start failed because the person has to sign in (host-made, from the sign-in's state). */
  needsSignIn = false;
  /** The server's own words that end `lastError`, when it quotes any (see McpStartError.quoted). */
  lastQuoted: string | undefined;
  /** The last listing; undefined until the server has answered `tools/list`. */
  tools: Tool[] | undefined;
  /** Listed entries that are not valid tools, each as a sentence naming the tool. */
  invalidTools: string[] = [];
  /** How many entries the last listing held, valid or not, read or not. */
  listedCount = 0;
  private readonly stderr = new BoundedTail();
  /** Grows with each stderr chunk: the redacted tail is cached per version. */
  private stderrVersion = 0;
  private redactedTail: { version: number; secrets: number; text: string } | undefined;
  private readonly secretList: McpSecretList;
  /** Whether a start was ever begun (see {@link attempted}). */
  private everStarted = false;
  private client: Client | undefined;
  /** The stdio server's process tree, while it runs. */
  private process: ServerProcessTransport | undefined;
  private starting: Promise<Client> | undefined;
  private closing = false;
  private failures = 0;
  private nextStartAt = 0;
  private protocolErrors = 0;
  private generation = 0;
  /** Why the host stopped the running server (it broke a bound), for the errors that follow. */
  private stopReason: string | undefined;
  /** A `tools/list` refresh is running; `refreshAgain` asks for one more after it. */
  private refreshing = false;
  private refreshAgain = false;
  /** The calls and reads in flight, by run: a server request is charged to the one run among them. */
  private readonly inFlight = new InFlightCalls();
  /** Sign-in, for a Streamable HTTP server that is not given an Authorization header. */
  readonly oauth: McpOAuth | undefined;
  /** The last listings of resources and prompts, once asked for (the explorer), refreshed on list_changed. */
  private readonly listings: HeldListings;

  constructor(
    readonly spec: McpServerSpec,
    private readonly options: McpConnectionOptions,
  ) {
    this.secretList = options.secretList ?? new McpSecretList();
    this.secretList.addServers([spec]);
    this.listings = new HeldListings(spec.timeoutMs);
    this.oauth = serverOAuth(spec, options, this.secretList);
  }

  /** The last 64 KiB of the server's stderr, with the secrets the host knows redacted. */
  stderrTail(): string {
    const cached = this.redactedTail;
    if (cached && cached.version === this.stderrVersion && cached.secrets === this.secretList.version)
      return cached.text;
    // The whole tail is redacted at once: a secret split across chunks is caught.
    const text = this.redact(this.stderr.text());
    this.redactedTail = { version: this.stderrVersion, secrets: this.secretList.version, text };
    return text;
  }

  /** `text` with the secrets the host knows redacted. */
  redact(text: string): string {
    return this.secretList.redact(text);
  }

  /** Whether a start was ever begun: the server was started (or failed to start) at least once. */
  get attempted(): boolean {
    return this.everStarted;
  }

  /** Starts the server if it is not running (waiting out a backoff) and lists its tools. */
  async ensureStarted(signal?: AbortSignal): Promise<Client> {
    if (this.client && this.state === 'ready') return this.client;
    // Each caller waits out the backoff on its own signal; the start itself is shared.
    const wait = this.nextStartAt - Date.now();
    if (wait > 0 && !this.starting) await abortableDelay(wait, signal);
    if (this.client && this.state === 'ready') return this.client;
    this.starting ??= this.start().finally(() => (this.starting = undefined));
    return this.starting;
  }

  /** Resolves once no start is in flight (a start that fails resolves it too). */
  async settled(): Promise<void> {
    await this.starting?.then(
      () => undefined,
      () => undefined,
    );
  }

  /** The server's tools, starting it when needed. */
  async listTools(): Promise<Tool[]> {
    await this.ensureStarted();
    return this.tools ?? [];
  }

  async callTool(
    name: string,
    args: JsonObject,
    signal: AbortSignal,
    timeoutMs: number,
    structured: boolean,
    session?: McpRunSession,
  ): Promise<string> {
    const result = await this.request({ signal, timeoutMs, ...(session && { session }) }, (client, options) =>
      client.callTool({ name, arguments: args }, undefined, {
        ...options,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: timeoutMs * MCP_PROGRESS_TIMEOUT_FACTOR,
        onprogress: () => undefined,
      }),
    );
    return resultToOutput(result as CallToolResult, structured);
  }

  /** `resources/read` of `uri`, for a run (or the studio). */
  readResource(uri: string, options: McpRequestOptions): Promise<ReadResourceResult> {
    return this.request(options, (client, request) => client.readResource({ uri }, request));
  }

  /** `prompts/get` of `name` with `args`, for a run (or the studio). */
  getPrompt(name: string, args: Record<string, string>, options: McpRequestOptions): Promise<GetPromptResult> {
    return this.request(options, (client, request) => client.getPrompt({ name, arguments: args }, request));
  }

  /** The server's resources and templates (listed once, then kept up to date by its notifications). */
  async listResources(): Promise<Listed<McpResourceEntry>> {
    return this.listings.resourcesOf(await this.ensureStarted());
  }

  /** The server's prompts (listed once, then kept up to date by its notifications). */
  async listPrompts(): Promise<Listed<McpPromptEntry>> {
    return this.listings.promptsOf(await this.ensureStarted());
  }

  /** Signs in to the server now, with the person on `port` (a Streamable HTTP server only). */
  async login(port: OAuthLoginPort, options: { scopes?: string[]; signal?: AbortSignal } = {}): Promise<McpLoginState> {
    if (!this.oauth) throw new McpStartError(noSignIn(this.spec));
    const state = await this.oauth.login(port, options);
    // A server that failed for want of a sign-in is started again at once, not after its backoff.
    if (this.state === 'error') {
      this.failures = 0;
      this.nextStartAt = 0;
    }
    return state;
  }

  async logout(): Promise<SignOutOutcome> {
    if (!this.oauth) throw new McpStartError(noSignIn(this.spec));
    const outcome = await this.oauth.logout();
    await this.stop();
    return outcome;
  }

  /** The server's sign-in, or undefined for a server that does not sign in (stdio, or an Authorization header). */
  async loginState(): Promise<McpLoginState | undefined> {
    return this.oauth?.state();
  }

  /**
   * One request to the server for a run: the server is started when needed, the request is
   * registered as in flight for `session` (so the server's questions during it are charged to
   * that run), cancelled when `signal` aborts, and its failure described.
   */
  private async request<T>(
    options: McpRequestOptions,
    send: (client: Client, request: { signal: AbortSignal; timeout: number }) => Promise<T>,
  ): Promise<T> {
    const { signal, timeoutMs } = options;
    let client: Client;
    // A ready server is used at once, without the start's wait.
    if (this.client && this.state === 'ready' && !signal.aborted) client = this.client;
    else
      try {
        // The start is shared and ends by itself (startTimeoutMs); this request stops waiting on stop.
        client = await untilAborted(this.ensureStarted(signal), signal);
      } catch (error) {
        if (signal.aborted) throw new ToolFailure('cancelled before it started');
        throw startFailure(error);
      }
    // A signal per request: the SDK listens on it, and the run's signal must not collect a listener per request.
    const call = new AbortController();
    const forward = () => call.abort();
    signal.addEventListener('abort', forward, { once: true });
    if (signal.aborted) call.abort();
    let release: (() => void) | undefined;
    try {
      const answer = this.inFlight.during(options.session, () =>
        send(client, { signal: call.signal, timeout: timeoutMs }),
      );
      // The tree is snapshotted while the request runs and at its end (a server forks most while it
      // works). The SDK has written the request by now: the first snapshot is taken while the
      // server works on it, not before.
      release = this.process?.busy();
      const result = await answer;
      this.failures = 0;
      return result;
    } catch (error) {
      throw callFailure(error, signal, timeoutMs, this.failureContext());
    } finally {
      release?.();
      signal.removeEventListener('abort', forward);
    }
  }

  /** Stops the server and its process tree; the next use starts it again. */
  async stop(): Promise<void> {
    this.closing = true;
    this.generation += 1;
    const client = this.client;
    this.client = undefined;
    this.killTree();
    await client?.close().catch(() => undefined);
    this.state = 'stopped';
    this.closing = false;
    this.options.onChange('tools');
  }

  /** Stops the server and starts it again now (the studio's restart action). */
  async restart(): Promise<void> {
    await this.stop();
    this.failures = 0;
    this.nextStartAt = 0;
    await this.ensureStarted();
  }

  private async start(): Promise<Client> {
    this.everStarted = true;
    this.state = 'starting';
    this.lastError = undefined;
    this.lastQuoted = undefined;
    this.needsSignIn = false;
    this.protocolErrors = 0;
    this.stopReason = undefined;
    this.refreshAgain = false;
    const generation = ++this.generation;
    this.options.onChange('tools');
    let transport: Transport | undefined;
    let own: ServerProcessTransport | undefined;
    let release: (() => void) | undefined;
    try {
      const client = new Client({ name: 'promptforge', version: '1' }, { capabilities: CLIENT_CAPABILITIES });
      installServerRequestHandlers(client, {
        server: this.spec.name,
        workspaceRoot: this.options.workspaceRoot,
        inFlight: this.inFlight,
        note: (text) => this.pushStderr(text),
      });
      transport = await this.transport((reason) => this.broken(client, reason));
      own = transport instanceof ServerProcessTransport ? transport : undefined;
      if (generation !== this.generation)
        throw new McpStartError(`MCP server "${this.spec.name}" was stopped while starting`);
      this.process = own;
      release = own?.busy();
      client.onerror = (error) => this.protocolError(client, error);
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.toolsChanged(client));
      const relist = (what: 'resources' | 'prompts') =>
        this.listings.listChanged(
          client,
          what,
          () => this.client === client,
          (changed) => this.options.onListChanged?.(changed),
        );
      client.setNotificationHandler(ResourceListChangedNotificationSchema, () => relist('resources'));
      client.setNotificationHandler(PromptListChangedNotificationSchema, () => relist('prompts'));
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) =>
        this.options.onListChanged?.('resource-updated', notification.params.uri.slice(0, 4096)),
      );
      this.listings.clear();
      client.onclose = () => this.closed(client, generation);
      this.client = client;
      await client.connect(transport, { timeout: this.spec.startTimeoutMs });
      await this.refreshTools(client, this.spec.startTimeoutMs);
      if (generation !== this.generation)
        throw new McpStartError(`MCP server "${this.spec.name}" was stopped while starting`);
      this.state = 'ready';
      this.options.onChange('tools');
      return client;
    } catch (error) {
      const failure = describeStartError(error, this.failureContext());
      if (generation === this.generation) {
        const client = this.client;
        this.client = undefined;
        this.killTree();
        await client?.close().catch(() => undefined);
        await transport?.close().catch(() => undefined);
        this.noteFailure(failure.message, failure.signIn !== undefined, failure.quoted);
      } else {
        // A start the person stopped (or restarted) meanwhile: its process goes, the newer one stays.
        own?.kill();
        await transport?.close().catch(() => undefined);
      }
      throw failure;
    } finally {
      release?.();
    }
  }

  private async refreshTools(client: Client, timeout?: number): Promise<void> {
    const listed = await listAll(client, timeout);
    this.tools = listed.tools;
    this.invalidTools = listed.invalid;
    this.listedCount = listed.total;
  }

  /**
   * Refreshes the tools after `notifications/tools/list_changed`. A flood of notifications makes
   * one `tools/list` at a time, plus one more after it, never one per notification.
   */
  private async toolsChanged(client: Client): Promise<void> {
    if (this.client !== client) return;
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = true;
    try {
      do {
        this.refreshAgain = false;
        await this.refreshTools(client).catch(() => undefined);
        if (this.client !== client) return;
        this.options.onChange('tools');
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a notification during the refresh sets it
      } while (this.refreshAgain);
    } finally {
      this.refreshing = false;
    }
  }

  /**
   * Stops a server that broke a bound (`reason` says how, as "it ..."): its process tree is killed
   * at once, so the calls in flight fail now with the reason, and the next call starts it again.
   */
  private broken(client: Client, reason: string): void {
    if (this.client !== client || this.stopReason !== undefined) return;
    this.stopReason = reason;
    this.pushStderr(`[promptforge] stopping the server: ${reason}\n`);
    this.killTree();
    void client.close().catch(() => undefined);
  }

  private noteFailure(message: string, needsSignIn = false, quoted?: string): void {
    this.failures += 1;
    this.needsSignIn = needsSignIn;
    this.nextStartAt = Date.now() + Math.min(FIRST_BACKOFF_MS * 2 ** (this.failures - 1), MAX_BACKOFF_MS);
    this.state = 'error';
    this.lastError = this.redact(message);
    this.lastQuoted = quoted === undefined ? undefined : this.redact(quoted);
    this.options.onChange('tools');
  }

  private closed(client: Client, generation: number): void {
    if (this.client !== client || this.closing || generation !== this.generation) return;
    this.client = undefined;
    this.killTree();
    // A server that was ready and stopped by itself crashed; one that was starting is reported by start().
    if (this.state === 'ready')
      this.noteFailure(
        this.stopReason !== undefined
          ? `MCP server "${this.spec.name}" was stopped: ${this.stopReason}`
          : `MCP server "${this.spec.name}" exited unexpectedly`,
      );
  }

  private protocolError(client: Client, error: Error): void {
    this.pushStderr(`[promptforge] protocol error: ${error.message.slice(0, 500)}\n`);
    this.protocolErrors += 1;
    if (this.protocolErrors === MAX_PROTOCOL_ERRORS)
      this.broken(client, `it sent ${MAX_PROTOCOL_ERRORS} malformed or unexpected messages`);
  }

  /** The transport to the server; `onBroken` stops the server when it breaks a bound. */
  private transport(onBroken: (reason: string) => void): Promise<Transport> {
    return serverTransport({
      spec: this.spec,
      workspaceRoot: this.options.workspaceRoot,
      secrets: this.options.secrets,
      secretList: this.secretList,
      onBroken,
      onStderr: (text) => this.pushStderr(text),
      ...(this.oauth && { oauth: this.oauth }),
      surface: this.options.surface,
    });
  }

  private pushStderr(text: string): void {
    this.stderr.push(text);
    this.stderrVersion += 1;
    this.options.onChange('stderr');
  }

  /** Kills the stdio server's whole process tree (SIGKILL), now. */
  private killTree(): void {
    this.process?.kill();
    this.process = undefined;
  }

  /** What a failure's words need of this connection, now. */
  private failureContext(): FailureContext {
    return {
      spec: this.spec,
      redact: (text) => this.redact(text),
      stderrTail: () => this.stderrTail(),
      stopReason: this.stopReason,
      closed: this.client === undefined,
    };
  }
}
