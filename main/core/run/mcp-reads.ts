/**
 * The host side of `mcp.read_resource(server, uri)` and `mcp.get_prompt(server, name, args)`:
 * checked, recorded and replayed like tool calls, and their text (the server's) untrusted by
 * default, wrapped in the run's envelope and recorded for the taint rule like tool output.
 */
import { wrapUntrusted } from '../../../common/envelope.js';
import { errorMessage } from '../../../common/error-message.js';
import { isPlainObject, type JsonObject, type JsonValue } from '../../../common/json.js';
import type { RunEventBody } from '../../../common/run-events.js';
import type { McpRequestOptions } from '../mcp/mcp-connection.js';
import {
  MAX_TARGET_CHARS,
  promptArguments,
  promptValue,
  resourceText,
  resourceUriProblem,
} from '../mcp/mcp-read-values.js';
import type { McpCallRef, McpRunSession } from '../mcp/mcp-session.js';
import { cleanServerText, hasUnsafeCharacter } from '../mcp/mcp-text.js';
import { ToolFailure, type Trust } from '../tools/tool-spec.js';
import type { GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { ReplayRecording } from './replay.js';
import { ScriptError } from './run-errors.js';
import type { TaintChecker } from './tool-dispatcher.js';

/** What reads need of the workspace's MCP servers (the McpServerManager), live. */
export interface McpReadSource {
  readResource(server: string, uri: string, options: McpRequestOptions): Promise<ReadResourceResult>;
  getPrompt(
    server: string,
    name: string,
    args: Record<string, string>,
    options: McpRequestOptions,
  ): Promise<GetPromptResult>;
}

/** A server of the workspace as reads see it. */
export interface McpReadServer {
  trust: Trust;
  timeoutMs: number;
}

export interface McpReadsOptions {
  nonce: string;
  workspaceRoot: string | undefined;
  emit(event: RunEventBody): void;
  /** The workspace's MCP servers by name (the run's catalog's): a read names one of them. */
  servers: ReadonlyMap<string, McpReadServer>;
  /** The live servers; undefined when none may run (a restricted workspace, a replay). */
  source?: McpReadSource;
  /** Why no server may run, when `source` is undefined and the run is not a replay. */
  offReason?: string;
  session?: McpRunSession;
  taint?: TaintChecker;
  replay?: ReplayRecording;
  /** Tells the run which read is in flight (for the server's questions during it). */
  onRunning?(call: McpCallRef | undefined): void;
}

type Kind = 'resource' | 'prompt';

/** A prompt as the script receives it: the description and each message's content wrapped, the roles as they are. */
function wrapPrompt(value: JsonValue, nonce: string): JsonValue {
  if (!isPlainObject(value)) return value;
  const messages = Array.isArray(value['messages']) ? value['messages'] : [];
  return {
    ...(typeof value['description'] === 'string' && { description: wrapUntrusted(value['description'], nonce) }),
    messages: messages.map((message) =>
      isPlainObject(message)
        ? { role: message['role'] ?? null, content: wrapUntrusted(String(message['content'] ?? ''), nonce) }
        : message,
    ),
  };
}

/** The server's texts of a prompt: its description and each message's content. */
function promptTexts(value: JsonValue): JsonValue {
  if (!isPlainObject(value)) return value;
  const messages = Array.isArray(value['messages']) ? value['messages'] : [];
  return [
    ...(typeof value['description'] === 'string' ? [value['description']] : []),
    ...messages.map((message) => (isPlainObject(message) ? String(message['content'] ?? '') : '')),
  ];
}

/** The script's reads of MCP resources and prompts, for one run. */
export class McpReads {
  private sequence = 0;

  constructor(private readonly options: McpReadsOptions) {}

  async call(
    method: 'mcp.read_resource' | 'mcp.get_prompt',
    payload: JsonObject,
    signal: AbortSignal,
  ): Promise<JsonValue> {
    const kind: Kind = method === 'mcp.read_resource' ? 'resource' : 'prompt';
    const server = payload['server'];
    const target = kind === 'resource' ? payload['uri'] : payload['name'];
    const what = kind === 'resource' ? 'uri' : 'name';
    if (typeof server !== 'string')
      throw new ScriptError(`${method}: the server name must be a string, got ${typeof server}`);
    if (typeof target !== 'string')
      throw new ScriptError(`${method}: the ${what} must be a string, got ${typeof target}`);
    const spec = this.options.servers.get(server);
    if (!spec)
      throw new ScriptError(
        `${method}: "${server.slice(0, 100)}" is not an MCP server of this workspace (${[...this.options.servers.keys()].join(', ') || 'it has none'})`,
      );
    let args: Record<string, string> = {};
    if (kind === 'prompt' && (target.length === 0 || target.length > MAX_TARGET_CHARS || hasUnsafeCharacter(target)))
      throw new ScriptError(
        `${method}('${server}'): a prompt name is 1 to ${MAX_TARGET_CHARS} characters, without control characters`,
      );
    if (kind === 'prompt') {
      const checked = promptArguments(payload['args']);
      if (!checked.ok) throw new ScriptError(`${method}('${server}', '${target.slice(0, 100)}'): ${checked.problem}`);
      args = checked.args;
    } else if (this.options.workspaceRoot !== undefined) {
      const problem = resourceUriProblem(target, this.options.workspaceRoot);
      if (problem) throw new ScriptError(`${method}('${server}'): ${problem}`);
    }
    const readId = `read-${++this.sequence}`;
    const { emit } = this.options;
    emit({
      type: 'mcp-read',
      readId,
      server,
      kind,
      target,
      ...(kind === 'prompt' && { arguments: args }),
    });
    const label = `${method}('${server}', '${cleanServerText(target, 100)}')`;
    // Taint follows the data: a read whose URI or arguments repeat untrusted text gives untrusted text.
    const spans = this.options.taint?.check({ target, ...args }) ?? [];
    const taintedBy = [...new Set(spans.map((span) => span.sourceOutputId))];
    const trust: Trust = spec.trust === 'untrusted' || taintedBy.length > 0 ? 'untrusted' : 'trusted';
    const fail = (message: string, serverText?: string): never => {
      const quoted = serverText !== undefined && trust === 'untrusted';
      if (quoted) this.options.taint?.recordUntrustedOutput(readId, serverText);
      const text = quoted ? message.replace(serverText, wrapUntrusted(serverText, this.options.nonce)) : message;
      emit({ type: 'mcp-read-error', readId, server, kind, message: text, ...(quoted && { trust }) });
      throw new ScriptError(text);
    };

    const replay = this.options.replay;
    if (replay?.answersNextRead()) {
      const recorded = replay.nextRead(kind, server, target, args);
      if (recorded.kind === 'error') return fail(recorded.message);
      // A recorded label only lowers trust.
      return this.deliver(
        readId,
        server,
        kind,
        recorded.trust === 'untrusted' ? 'untrusted' : trust,
        taintedBy,
        recorded.output,
        0,
      );
    }
    const source = this.options.source;
    if (!source) return fail(`${label} failed: ${this.options.offReason ?? 'no MCP server runs in this run'}`);
    const started = performance.now();
    const options: McpRequestOptions = {
      signal,
      timeoutMs: spec.timeoutMs,
      ...(this.options.session && { session: this.options.session }),
    };
    this.options.onRunning?.({ callId: readId, alias: label });
    let output: JsonValue;
    try {
      output =
        kind === 'resource'
          ? resourceText(await source.readResource(server, target, options))
          : (promptValue(await source.getPrompt(server, target, args, options)) as unknown as JsonValue);
    } catch (error) {
      if (error instanceof ToolFailure) {
        const cut = error.toolText !== undefined && error.message.endsWith(error.toolText);
        return fail(`${label} failed: ${error.message}`, cut ? error.toolText : undefined);
      }
      return fail(`${label} failed: ${errorMessage(error)}`);
    } finally {
      this.options.onRunning?.(undefined);
    }
    return this.deliver(readId, server, kind, trust, taintedBy, output, performance.now() - started);
  }

  private deliver(
    readId: string,
    server: string,
    kind: Kind,
    trust: Trust,
    taintedBy: string[],
    output: JsonValue,
    durationMs: number,
  ): JsonValue {
    this.options.emit({
      type: 'mcp-read-output',
      readId,
      server,
      kind,
      trust,
      output,
      ...(taintedBy.length > 0 && { taintedBy }),
      durationMs,
    });
    if (trust === 'trusted') return output;
    // The server's words are recorded for the taint rule; a prompt's roles are the protocol's.
    this.options.taint?.recordUntrustedOutput(readId, typeof output === 'string' ? output : promptTexts(output));
    return typeof output === 'string'
      ? wrapUntrusted(output, this.options.nonce)
      : wrapPrompt(output, this.options.nonce);
  }
}
