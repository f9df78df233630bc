/**
 * Which run a server's request belongs to: a run lends each MCP call (or read) it makes an
 * {@link McpRunSession}, and a server's elicitation or sampling request is charged to the one run
 * that has a call in flight to that server, or declined.
 */
import type { CreateMessageResult, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitationRequest } from './mcp-elicitation.js';
import type { SamplingRequest } from './mcp-sampling.js';

export { MAX_SAMPLING_TOKENS } from '../../../common/mcp-sampling-limit.js';

/** The JSON-RPC code of a request the person (or the host for them) declined, as the specification's examples use. */
export const DECLINED_CODE = -1;

/**
 * The error answer to a server's request: the SDK sends `code` and `message` back to the server.
 * (Defined here, not the SDK's McpError, so a run loads no MCP client until it uses a server.)
 */
export class McpRequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'McpRequestError';
  }
}

/** The run's call a server request came with. */
export interface McpCallRef {
  callId: string;
  alias: string;
}

/** A server request routed to a run: which server, during which call. */
export interface McpAsk<R> {
  server: string;
  call: McpCallRef | undefined;
  request: R;
}

/** What a run offers the MCP client while one of its calls to a server is in flight. */
export interface McpRunSession {
  readonly runId: string;
  /** The run's call in flight, as its dispatcher set it. */
  currentCall(): McpCallRef | undefined;
  /** Asks the person through the run's elicitor and records the outcome in the run's transcript. */
  elicit(ask: McpAsk<ElicitationRequest>, signal: AbortSignal): Promise<ElicitResult>;
  /**
   * Asks the person through the run's sampling approver; on approval answers with the run's
   * model, counted and recorded as a sampling round. A refusal throws an error whose message
   * the server receives.
   */
  sample(ask: McpAsk<SamplingRequest>, signal: AbortSignal): Promise<CreateMessageResult>;
  /** Records a request the host refused before anyone was asked (too large, a bad URL, tools...). */
  refused(kind: 'elicitation' | 'sampling', server: string, call: McpCallRef | undefined, reason: string): void;
}

interface InFlightEntry {
  session: McpRunSession | undefined;
  call: McpCallRef | undefined;
  /** Aborts when the call ends: a question it raised is withdrawn then. Made when a question is routed to the call. */
  ended?: AbortController;
}

/** The routing of a server request: the run it is charged to, or why it is declined. */
export type McpRoute =
  | { ok: true; session: McpRunSession; call: McpCallRef | undefined; ended: AbortSignal }
  | { ok: false; reason: string };

/** The calls in flight to one server, by run. */
export class InFlightCalls {
  private readonly entries = new Set<InFlightEntry>();

  /** Registers a call for the time `work` runs. */
  async during<T>(session: McpRunSession | undefined, work: () => Promise<T>): Promise<T> {
    const entry: InFlightEntry = { session, call: session?.currentCall() };
    this.entries.add(entry);
    try {
      return await work();
    } finally {
      this.entries.delete(entry);
      entry.ended?.abort(new Error('the call it came with ended'));
    }
  }

  /**
   * The run a server request is charged to: exactly one run must have calls in flight to the
   * server. None (the call already ended, or the server asks on its own), or calls of two runs
   * (the host cannot tell which one asks), and the request is declined.
   */
  route(): McpRoute {
    const entries = [...this.entries];
    const runs = new Set(entries.map((entry) => entry.session?.runId));
    if (entries.length === 0) return { ok: false, reason: 'no run has a call in flight to this server' };
    if (runs.size > 1)
      return {
        ok: false,
        reason: 'several runs have calls in flight to this server, so the host cannot tell which one it asks for',
      };
    const entry = entries[entries.length - 1]!;
    if (!entry.session) return { ok: false, reason: 'the call in flight belongs to no run (nobody to ask)' };
    entry.ended ??= new AbortController();
    return { ok: true, session: entry.session, call: entry.call, ended: entry.ended.signal };
  }
}
