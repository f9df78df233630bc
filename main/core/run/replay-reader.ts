// A transcript read back for replay: its model rounds, tool dispatches, MCP reads and the steps a fork may start from, each checked as it is read.
import type { JsonValue } from '../../../common/json.js';
import type { RecordedDecision, RunEvent } from '../../../common/run-events.js';
import { TranscriptError } from '../transcript/transcript-error.js';
import type { LocatedEvent } from '../transcript/transcript-reader.js';

type RoundRequest = Extract<RunEvent, { type: 'round-request' }> & { line: number };
type RoundResponse = Extract<RunEvent, { type: 'round-response' }>;
type ToolErrorStage = Extract<RunEvent, { type: 'tool-error' }>['stage'];

/** How a recorded dispatch ended. */
export type RecordedOutcome =
  | { kind: 'output'; output: string; trust: 'trusted' | 'untrusted'; structured: boolean }
  | { kind: 'error'; stage: ToolErrorStage; message: string };

export interface RecordedRound {
  line: number;
  request: RoundRequest;
  response: RoundResponse;
}

export interface RecordedDispatch {
  line: number;
  alias: string;
  arguments: JsonValue;
  decision?: RecordedDecision;
  outcome: RecordedOutcome;
  /** The seq of the tool-output or tool-error event that ended the call. */
  outcomeSeq?: number;
}

/** A recorded `mcp.read_resource` or `mcp.get_prompt`. */
export interface RecordedRead {
  line: number;
  kind: 'resource' | 'prompt';
  server: string;
  target: string;
  arguments: Record<string, string>;
  outcome: { kind: 'output'; output: JsonValue; trust: 'trusted' | 'untrusted' } | { kind: 'error'; message: string };
  outcomeSeq?: number;
}

/**
 * A point a fork may start from: a model round (its `round-response` event) or the outcome of a
 * tool call (its `tool-output` or `tool-error` event), named by that event's `seq`.
 */
export interface ReplayStep {
  seq: number;
  kind: 'model' | 'tool';
  /** `model round 2`, `tool call 3 (echo) output`. */
  label: string;
}

/** What a transcript recorded, in the order it happened. */
export interface RecordedRun {
  start: Extract<RunEvent, { type: 'run-start' }>;
  rounds: RecordedRound[];
  dispatches: RecordedDispatch[];
  reads: RecordedRead[];
  /** The steps a fork may start from, in order. */
  steps: ReplayStep[];
  /** The type of each event by seq, for a fork point that names an event that is not a step. */
  typeBySeq: Map<number, RunEvent['type']>;
}

/**
 * Reads `events`, the transcript at `path`: throws a TranscriptError naming the line of an event
 * that does not fit what came before it (a response without a request, an output for a call never
 * dispatched...).
 */
export function readRecording(path: string, events: LocatedEvent[]): RecordedRun {
  const start = events[0];
  if (start?.type !== 'run-start')
    throw new TranscriptError(`${path}:1: a transcript must begin with a run-start event`);
  const recorded: RecordedRun = { start, rounds: [], dispatches: [], reads: [], steps: [], typeBySeq: new Map() };
  const requests = new Map<number, RoundRequest>();
  const answered = new Set<number>();
  const byCall = new Map<string, RecordedDispatch>();
  const byRead = new Map<string, RecordedRead>();
  const requestedCalls = new Set<string>();
  const fail = (event: LocatedEvent, message: string): never => {
    throw new TranscriptError(`${path}:${event.line}: ${message}`);
  };
  const dispatchOf = (event: LocatedEvent & { callId: string; alias: string }): RecordedDispatch => {
    const dispatch = byCall.get(event.callId);
    if (!dispatch)
      return fail(event, `${event.type} for call "${event.callId}", but no tool-dispatch before it started that call`);
    if (dispatch.alias !== event.alias)
      return fail(
        event,
        `${event.type} for call "${event.callId}" names tool "${event.alias}", but the call was to "${dispatch.alias}"`,
      );
    return dispatch;
  };
  const noteOutcome = (dispatch: RecordedDispatch, seq: number, what: string): void => {
    dispatch.outcomeSeq = seq;
    const call = recorded.dispatches.indexOf(dispatch) + 1;
    recorded.steps.push({ seq, kind: 'tool', label: `tool call ${call} (${dispatch.alias}) ${what}` });
  };
  for (const event of events) {
    recorded.typeBySeq.set(event.seq, event.type);
    switch (event.type) {
      case 'round-request':
        if (requests.has(event.round)) fail(event, `round ${event.round} is requested twice`);
        requests.set(event.round, event);
        break;
      case 'round-response': {
        const request = requests.get(event.round);
        if (!request) return fail(event, `round ${event.round} has a response but no request before it`);
        if (answered.has(event.round)) fail(event, `round ${event.round} has a second response`);
        answered.add(event.round);
        recorded.rounds.push({ line: event.line, request, response: event });
        recorded.steps.push({ seq: event.seq, kind: 'model', label: `model round ${event.round}` });
        break;
      }
      case 'tool-call-requested':
        requestedCalls.add(event.call.id);
        break;
      case 'tool-dispatch': {
        if (byCall.has(event.callId)) fail(event, `call "${event.callId}" is dispatched twice`);
        if (event.requestedCallId !== undefined && !requestedCalls.has(event.requestedCallId))
          fail(
            event,
            `tool-dispatch answers the model's call "${event.requestedCallId}", but no tool-call-requested before it asked for that call`,
          );
        const dispatch: RecordedDispatch = {
          line: event.line,
          alias: event.alias,
          arguments: event.arguments,
          outcome: {
            kind: 'error',
            stage: 'run',
            message: `the recording ends before tools.call('${event.alias}') finished`,
          },
        };
        byCall.set(event.callId, dispatch);
        recorded.dispatches.push(dispatch);
        break;
      }
      case 'approval-pending':
        dispatchOf(event);
        break;
      case 'approval-decision':
        dispatchOf(event).decision = event.decision;
        break;
      case 'tool-output': {
        const dispatch = dispatchOf(event);
        dispatch.outcome = { kind: 'output', output: event.output, trust: event.trust, structured: event.structured };
        noteOutcome(dispatch, event.seq, 'output');
        break;
      }
      case 'tool-error': {
        const dispatch = dispatchOf(event);
        dispatch.outcome = { kind: 'error', stage: event.stage, message: event.message };
        noteOutcome(dispatch, event.seq, `error (${event.stage})`);
        break;
      }
      case 'mcp-read': {
        if (byRead.has(event.readId)) fail(event, `read "${event.readId}" is started twice`);
        const read: RecordedRead = {
          line: event.line,
          kind: event.kind,
          server: event.server,
          target: event.target,
          arguments: event.arguments ?? {},
          outcome: { kind: 'error', message: `the recording ends before ${event.kind} "${event.target}" was read` },
        };
        byRead.set(event.readId, read);
        recorded.reads.push(read);
        break;
      }
      case 'mcp-read-output':
      case 'mcp-read-error': {
        const read = byRead.get(event.readId);
        if (!read)
          return fail(event, `${event.type} for read "${event.readId}", but no mcp-read before it started that read`);
        read.outcome =
          event.type === 'mcp-read-output'
            ? { kind: 'output', output: event.output, trust: event.trust }
            : { kind: 'error', message: event.message };
        read.outcomeSeq = event.seq;
        break;
      }
      default:
        break;
    }
  }
  return recorded;
}
