/**
 * The patches of the SDK's stdio transport: the private fields it reads and replaces (its read
 * buffer, its spawn, its send) to bound what a server may make the host hold. Kept in one place so
 * an SDK update that renames a field is found here.
 */
import type { ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
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

/** The fields of the SDK's transport that {@link ServerProcessTransport} takes over. */
export interface SdkStdioInternals {
  /** The SDK sets it back to undefined when the process closes; so does the takeover. */
  _process?: ChildProcess | undefined;
  _readBuffer?: { readMessage(): unknown; append(chunk: Buffer): void; clear(): void };
  _stderrStream?: Writable | null;
  processReadBuffer?: () => void;
}

/** Whether the SDK's transport still has the fields the group spawn takes over. */
export function canReplaceSpawn(internals: SdkStdioInternals): boolean {
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
export function guardReadBuffer(transport: StdioClientTransport, onBroken: (reason: string) => void): void {
  const holder = transport as unknown as SdkStdioInternals;
  const buffer = holder._readBuffer;
  if (!buffer || typeof buffer.readMessage !== 'function' || typeof buffer.append !== 'function') return;
  const inner = buffer as unknown as { _buffer?: Buffer | undefined };
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
      const method = message?.method;
      // A request of the server keeps its id and method and loses its params: the client answers
      // it with an error (the request is not valid), so the server is not left waiting.
      if ((typeof id === 'string' || typeof id === 'number') && typeof method === 'string')
        return { jsonrpc: '2.0', id, method: method.slice(0, 200), params: { refusedByHost: tooDeep } };
      // Only an answer (an id and no method) is turned into an error answer to the host's request.
      if ((typeof id !== 'string' && typeof id !== 'number') || method !== undefined)
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
export function guardInputBacklog(transport: StdioClientTransport, onBroken: (reason: string) => void): void {
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
