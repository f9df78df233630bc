import type { JsonObject, JsonValue } from '../../../common/json.js';
import type { RecordedDecision, RunEvent } from '../../../common/run-events.js';
import {
  ProviderError,
  type ChatMessage,
  type ModelEvent,
  type ModelProvider,
  type ModelRequest,
} from '../providers/model-provider.js';
import { blankNonces } from '../../../common/envelope.js';
import { readTranscript, TranscriptError, type LocatedEvent } from '../transcript/transcript-reader.js';
import { canonicalJson } from './canonical-json.js';
import { FatalRunError } from './run-errors.js';

type RoundRequest = Extract<RunEvent, { type: 'round-request' }> & { line: number };
type RoundResponse = Extract<RunEvent, { type: 'round-response' }>;
type ToolErrorStage = Extract<RunEvent, { type: 'tool-error' }>['stage'];

/** How a recorded dispatch ended. */
export type RecordedOutcome =
  | { kind: 'output'; output: string; trust: 'trusted' | 'untrusted'; structured: boolean }
  | { kind: 'error'; stage: ToolErrorStage; message: string };

interface RecordedRound {
  line: number;
  request: RoundRequest;
  response: RoundResponse;
}

interface RecordedDispatch {
  line: number;
  alias: string;
  arguments: JsonValue;
  decision?: RecordedDecision;
  outcome: RecordedOutcome;
}

// The nonce differs between the recording and the replay; envelopes are compared without it.
function canonical(value: unknown): string {
  return blankNonces(canonicalJson(value));
}

function describeCall(alias: string, args: JsonValue): string {
  return `tools.call('${alias}', ${JSON.stringify(args)})`;
}

/**
 * A transcript read back for replay: the model rounds and tool dispatches in the order they
 * happened. Replay answers `models.chat` and `tools.call` from it, offline, and stops the run with
 * an error that says where as soon as the script asks for something the recording does not hold.
 */
export class ReplayRecording {
  private readonly rounds: RecordedRound[] = [];
  private readonly dispatches: RecordedDispatch[] = [];
  private nextRound = 0;
  private nextCall = 0;
  readonly start: Extract<RunEvent, { type: 'run-start' }>;

  constructor(
    readonly path: string,
    events: LocatedEvent[],
  ) {
    const start = events[0];
    if (start?.type !== 'run-start')
      throw new TranscriptError(`${path}:1: a transcript must begin with a run-start event`);
    this.start = start;
    const requests = new Map<number, RoundRequest>();
    const answered = new Set<number>();
    const byCall = new Map<string, RecordedDispatch>();
    const requestedCalls = new Set<string>();
    const fail = (event: LocatedEvent, message: string): never => {
      throw new TranscriptError(`${path}:${event.line}: ${message}`);
    };
    const dispatchOf = (event: LocatedEvent & { callId: string; alias: string }): RecordedDispatch => {
      const dispatch = byCall.get(event.callId);
      if (!dispatch)
        return fail(
          event,
          `${event.type} for call "${event.callId}", but no tool-dispatch before it started that call`,
        );
      if (dispatch.alias !== event.alias)
        return fail(
          event,
          `${event.type} for call "${event.callId}" names tool "${event.alias}", but the call was to "${dispatch.alias}"`,
        );
      return dispatch;
    };
    for (const event of events) {
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
          this.rounds.push({ line: event.line, request, response: event });
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
          this.dispatches.push(dispatch);
          break;
        }
        case 'approval-pending':
          dispatchOf(event);
          break;
        case 'approval-decision':
          dispatchOf(event).decision = event.decision;
          break;
        case 'tool-output':
          dispatchOf(event).outcome = {
            kind: 'output',
            output: event.output,
            trust: event.trust,
            structured: event.structured,
          };
          break;
        case 'tool-error':
          dispatchOf(event).outcome = { kind: 'error', stage: event.stage, message: event.message };
          break;
        default:
          break;
      }
    }
  }

  /** Every tool alias the recording used: advertised to a model in a round, or dispatched. */
  recordedAliases(): string[] {
    const names = new Set<string>();
    for (const round of this.rounds) for (const name of round.request.tools) names.add(name);
    for (const dispatch of this.dispatches) names.add(dispatch.alias);
    return [...names];
  }

  /** Reads and checks a transcript file; throws a TranscriptError naming the line on bad input. */
  static fromFile(path: string): ReplayRecording {
    return new ReplayRecording(path, readTranscript(path));
  }

  /** The recorded model round answering `request`, or a divergence error saying where. */
  nextRoundFor(request: ModelRequest): RoundResponse {
    const index = this.nextRound++;
    const recorded = this.rounds[index];
    if (!recorded)
      throw new ProviderError(
        'replay-divergence',
        `replay diverged at model round ${index + 1}: the script called models.chat again, but ${this.path} holds only ${this.rounds.length} round(s)`,
      );
    const where = `replay diverged at model round ${index + 1} (${this.path}:${recorded.request.line})`;
    const tools = request.tools.map((tool) => tool.name);
    if (canonical(tools) !== canonical(recorded.request.tools))
      throw new ProviderError(
        'replay-divergence',
        `${where}: the script advertised tools ${JSON.stringify(tools)}, the recording ${JSON.stringify(recorded.request.tools)}`,
      );
    const messages: ChatMessage[] = request.messages;
    const expected = recorded.request.messages;
    if (messages.length !== expected.length)
      throw new ProviderError(
        'replay-divergence',
        `${where}: the script sent ${messages.length} message(s), the recording ${expected.length}`,
      );
    messages.forEach((message, i) => {
      if (canonical(message) !== canonical(expected[i]))
        throw new ProviderError(
          'replay-divergence',
          `${where}: message ${i + 1} differs: the script sent ${canonical(message).slice(0, 200)}, the recording has ${canonical(expected[i]).slice(0, 200)}`,
        );
    });
    return recorded.response;
  }

  /** The recorded outcome of the next dispatch; a different alias or arguments end the run. */
  nextDispatch(alias: string, args: JsonObject): { decision?: RecordedDecision; outcome: RecordedOutcome } {
    const index = this.nextCall++;
    const recorded = this.dispatches[index];
    if (!recorded)
      throw new FatalRunError(
        `replay diverged at tool call ${index + 1}: the script called ${describeCall(alias, args)}, but ${this.path} holds only ${this.dispatches.length} tool call(s)`,
      );
    if (recorded.alias !== alias || canonical(recorded.arguments) !== canonical(args))
      throw new FatalRunError(
        `replay diverged at tool call ${index + 1} (${this.path}:${recorded.line}): the script called ${describeCall(alias, args)}, the recording has ${describeCall(recorded.alias, recorded.arguments)}`,
      );
    return recorded;
  }
}

/** A ModelProvider that answers every round from a recording, without a network or keys. */
export class ReplayProvider implements ModelProvider {
  readonly id = 'replay';

  constructor(private readonly recording: ReplayRecording) {}

  async *chat(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    if (signal.aborted) throw new ProviderError('aborted', 'the run was stopped');
    const response = this.recording.nextRoundFor(request);
    if (response.content) yield { type: 'text-delta', text: response.content };
    for (const call of response.toolCalls)
      yield { type: 'tool-call', id: call.id, name: call.name, rawArguments: call.rawArguments };
    yield { type: 'finish', finishReason: response.finishReason, usage: response.usage };
  }
}
