/**
 * Turns the events of one run (live `run-event`s or transcript pages from `history:page`) into the
 * flat list of items the conversation view shows, plus the per-round usage and the log. Pure and
 * incremental: `apply` one event at a time; `snapshot` hands React a new array only when asked
 * (once per animation frame while a run streams), so thousands of events stay cheap.
 */
import type { RunEvent } from '../../../common/run-events.js';

type EventOf<T extends RunEvent['type']> = Extract<RunEvent, { type: T }>;

/** Where a dispatched call is. `running` is derived in the view (approved and no output yet). */
export type DispatchState =
  'requested' | 'awaiting approval' | 'approved' | 'edited' | 'denied' | 'done' | 'failed' | 'cancelled';

export type ConversationItem =
  | { kind: 'run-start'; key: string; event: EventOf<'run-start'> }
  | {
      /** A script's `mcp.read_resource` or `mcp.get_prompt`: what it asked, then the server's text. */
      kind: 'mcp-read';
      key: string;
      read: EventOf<'mcp-read'>;
      output?: EventOf<'mcp-read-output'>;
      error?: EventOf<'mcp-read-error'>;
    }
  | { kind: 'message'; key: string; round: number; role: string; text: string; toolCallIds: string[] }
  | { kind: 'request'; key: string; round: number; model: string; tools: string[] }
  | {
      kind: 'assistant';
      key: string;
      round: number;
      text: string;
      streaming: boolean;
      finishReason?: string;
      usage?: { inputTokens: number; outputTokens: number };
      durationMs?: number;
      /** The seq of the round's response: the step a fork starts from (docs/host-api.md#forks). */
      step?: number;
    }
  | {
      kind: 'requested-call';
      key: string;
      round: number;
      call: EventOf<'tool-call-requested'>['call'];
      /** The dispatch that answered it (`call-N`), once the script dispatched it. */
      dispatchedAs?: string;
    }
  | {
      kind: 'dispatch';
      key: string;
      callId: string;
      alias: string;
      arguments: unknown;
      state: DispatchState;
      decision?: EventOf<'approval-decision'>['decision'];
      taint: EventOf<'approval-pending'>['taint'];
      output?: { text: string; trust: 'trusted' | 'untrusted'; structured: boolean; durationMs: number };
      /** `signIn`: the MCP server whose sign-in the host said the call failed for want of. */
      error?: { stage: string; message: string; signIn?: string };
      /** The seq of the call's tool-output or tool-error: the step a fork starts from. */
      step?: number;
    }
  | { kind: 'log'; key: string; text: string; t: string }
  /** An MCP server's question during a call, and its answer (renderer/src/mcp/McpQuestionRow.tsx). */
  | { kind: 'mcp-question'; key: string; event: EventOf<'mcp-elicitation'> | EventOf<'mcp-sampling'> }
  | { kind: 'run-end'; key: string; event: EventOf<'run-end'> };

/** One row of the Usage/Timing tab. */
export interface RoundUsage {
  round: number;
  model: string;
  inputTokens: number;
  outputTokens: number;
  durationMs: number;
  cost?: number;
  /** The price the cost was reckoned at, and where it came from. */
  price?: NonNullable<EventOf<'round-response'>['price']>;
}

/** A snapshot of a run for the views. */
export interface ConversationSnapshot {
  runId: string;
  items: ConversationItem[];
  rounds: RoundUsage[];
  logs: Array<{ seq: number; t: string; text: string; level: 'log' | 'error' }>;
  started?: EventOf<'run-start'>;
  ended?: EventOf<'run-end'>;
  /** How many dispatched calls wait for a decision right now. */
  awaiting: number;
}

function messageText(message: unknown): { role: string; text: string; toolCallIds: string[] } {
  if (message === null || typeof message !== 'object')
    return { role: 'message', text: String(message), toolCallIds: [] };
  const record = message as Record<string, unknown>;
  const role = typeof record['role'] === 'string' ? record['role'] : 'message';
  const content = record['content'];
  const text = typeof content === 'string' ? content : content === undefined ? '' : JSON.stringify(content, null, 2);
  const calls = record['toolCalls'] ?? record['tool_calls'];
  const toolCallIds = Array.isArray(calls)
    ? calls.map((c: unknown) => String((c as Record<string, unknown> | null)?.['id'] ?? '?'))
    : [];
  const answering = record['toolCallId'] ?? record['tool_call_id'];
  return {
    role: typeof answering === 'string' ? `${role} → ${answering}` : role,
    text,
    toolCallIds,
  };
}

/** Builds the conversation of one run from its events, in order. */
export class ConversationBuilder {
  private readonly items: ConversationItem[] = [];
  private readonly dispatchIndex = new Map<string, number>();
  /** Where each MCP read's item is, by its read id. */
  private readonly readIndex = new Map<string, number>();
  /** Where each requested call (by the model's id) sits in `items`. */
  private readonly requestedIndex = new Map<string, number>();
  private readonly assistantIndex = new Map<number, number>();
  private readonly rounds: RoundUsage[] = [];
  private readonly logs: ConversationSnapshot['logs'] = [];
  private readonly seen = new Set<number>();
  /** The previous round's messages, serialised, to tell what a request adds. */
  private previousMessages: string[] = [];
  private readonly roundModels = new Map<number, string>();
  private started: EventOf<'run-start'> | undefined;
  private ended: EventOf<'run-end'> | undefined;

  constructor(readonly runId: string) {}

  /** Adds one event; events seen before (same `seq`) are ignored, so live + history can overlap. */
  apply(event: RunEvent): void {
    if (event.runId !== this.runId || this.seen.has(event.seq)) return;
    this.seen.add(event.seq);
    const key = `e${event.seq}`;
    switch (event.type) {
      case 'run-start':
        this.started = event;
        this.items.push({ kind: 'run-start', key, event });
        break;
      case 'round-request': {
        this.roundModels.set(event.round, event.model.alias);
        this.items.push({ kind: 'request', key, round: event.round, model: event.model.alias, tools: event.tools });
        // Each request usually repeats the history; show what is new since the previous round's
        // messages. A script may also start a fresh list: then everything after the common start is new.
        const texts = event.messages.map((message) => JSON.stringify(message));
        let common = 0;
        while (
          common < texts.length &&
          common < this.previousMessages.length &&
          texts[common] === this.previousMessages[common]
        )
          common += 1;
        const fresh = event.messages.slice(common);
        this.previousMessages = texts;
        fresh.forEach((message, index) => {
          this.items.push({ kind: 'message', key: `${key}m${index}`, round: event.round, ...messageText(message) });
        });
        break;
      }
      case 'message-delta': {
        const at = this.assistantIndex.get(event.round);
        if (at === undefined) {
          this.assistantIndex.set(event.round, this.items.length);
          this.items.push({ kind: 'assistant', key, round: event.round, text: event.text, streaming: true });
        } else {
          const item = this.items[at] as Extract<ConversationItem, { kind: 'assistant' }>;
          this.items[at] = { ...item, text: item.text + event.text };
        }
        break;
      }
      case 'round-response': {
        const at = this.assistantIndex.get(event.round);
        const finished = {
          kind: 'assistant' as const,
          round: event.round,
          text: event.content,
          streaming: false,
          finishReason: event.finishReason,
          usage: event.usage,
          durationMs: event.durationMs,
          step: event.seq,
        };
        if (at === undefined) {
          this.assistantIndex.set(event.round, this.items.length);
          this.items.push({ ...finished, key });
        } else {
          this.items[at] = { ...finished, key: this.items[at]!.key };
        }
        this.rounds.push({
          round: event.round,
          model: this.roundModels.get(event.round) ?? this.started?.model?.alias ?? '',
          inputTokens: event.usage.inputTokens,
          outputTokens: event.usage.outputTokens,
          durationMs: event.durationMs,
          ...(event.cost !== undefined && { cost: event.cost }),
          ...(event.price !== undefined && { price: event.price }),
        });
        break;
      }
      case 'tool-call-requested':
        this.requestedIndex.set(event.call.id, this.items.length);
        this.items.push({ kind: 'requested-call', key, round: event.round, call: event.call });
        break;
      case 'tool-dispatch': {
        const requested =
          event.requestedCallId === undefined ? undefined : this.requestedIndex.get(event.requestedCallId);
        const item = requested === undefined ? undefined : this.items[requested];
        if (item?.kind === 'requested-call') this.items[requested!] = { ...item, dispatchedAs: event.callId };
        this.dispatchIndex.set(event.callId, this.items.length);
        this.items.push({
          kind: 'dispatch',
          key,
          callId: event.callId,
          alias: event.alias,
          arguments: event.arguments,
          state: 'requested',
          taint: [],
        });
        break;
      }
      case 'approval-pending':
        this.updateDispatch(event.callId, { state: 'awaiting approval', taint: event.taint });
        break;
      case 'approval-decision': {
        const kind = event.decision.kind;
        const state: DispatchState =
          kind === 'deny'
            ? 'denied'
            : kind === 'cancelled'
              ? 'cancelled'
              : kind === 'approve-edited'
                ? 'edited'
                : 'approved';
        this.updateDispatch(event.callId, { state, decision: event.decision });
        break;
      }
      case 'tool-output':
        this.updateDispatch(event.callId, {
          state: 'done',
          step: event.seq,
          output: {
            text: event.output,
            trust: event.trust,
            structured: event.structured,
            durationMs: event.durationMs,
          },
        });
        break;
      case 'tool-error': {
        const state: DispatchState =
          event.stage === 'denied' ? 'denied' : event.stage === 'cancelled' ? 'cancelled' : 'failed';
        if (!this.dispatchIndex.has(event.callId)) {
          this.dispatchIndex.set(event.callId, this.items.length);
          this.items.push({
            kind: 'dispatch',
            key,
            callId: event.callId,
            alias: event.alias,
            arguments: null,
            state,
            taint: [],
          });
        }
        this.updateDispatch(event.callId, {
          state,
          error: {
            stage: event.stage,
            message: event.message,
            ...(event.signIn !== undefined && { signIn: event.signIn }),
          },
          step: event.seq,
        });
        this.logs.push({
          seq: event.seq,
          t: event.t,
          text: `${event.alias} (${event.callId}): ${event.message}`,
          level: 'error',
        });
        break;
      }
      case 'log':
        this.items.push({ kind: 'log', key, text: event.text, t: event.t });
        this.logs.push({ seq: event.seq, t: event.t, text: event.text, level: 'log' });
        break;
      case 'run-end':
        this.ended = event;
        for (const at of this.dispatchIndex.values()) {
          const item = this.items[at] as Extract<ConversationItem, { kind: 'dispatch' }>;
          if (item.state === 'awaiting approval' || item.state === 'requested')
            this.items[at] = { ...item, state: 'cancelled' };
        }
        this.items.push({ kind: 'run-end', key, event });
        if (event.error)
          this.logs.push({
            seq: event.seq,
            t: event.t,
            text: `${event.error.kind}: ${event.error.message}`,
            level: 'error',
          });
        break;
      case 'mcp-elicitation':
      case 'mcp-sampling':
        this.items.push({ kind: 'mcp-question', key, event });
        break;
      case 'provider-raw':
        break;
      case 'mcp-read':
        this.readIndex.set(event.readId, this.items.length);
        this.items.push({ kind: 'mcp-read', key, read: event });
        break;
      case 'mcp-read-output':
        this.updateRead(event.readId, { output: event });
        break;
      case 'mcp-read-error':
        this.updateRead(event.readId, { error: event });
        break;
    }
  }

  /** Whether the run's run-end has been applied (cheaper than a snapshot). */
  get hasEnded(): boolean {
    return this.ended !== undefined;
  }

  snapshot(): ConversationSnapshot {
    let awaiting = 0;
    for (const at of this.dispatchIndex.values()) {
      if ((this.items[at] as Extract<ConversationItem, { kind: 'dispatch' }>).state === 'awaiting approval')
        awaiting += 1;
    }
    return {
      runId: this.runId,
      items: [...this.items],
      rounds: [...this.rounds],
      logs: [...this.logs],
      ...(this.started && { started: this.started }),
      ...(this.ended && { ended: this.ended }),
      awaiting,
    };
  }

  private updateRead(
    readId: string,
    change: { output?: EventOf<'mcp-read-output'>; error?: EventOf<'mcp-read-error'> },
  ): void {
    const at = this.readIndex.get(readId);
    if (at === undefined) return;
    const item = this.items[at] as Extract<ConversationItem, { kind: 'mcp-read' }>;
    this.items[at] = { ...item, ...change };
  }

  private updateDispatch(callId: string, change: Partial<Extract<ConversationItem, { kind: 'dispatch' }>>): void {
    const at = this.dispatchIndex.get(callId);
    if (at === undefined) return;
    const item = this.items[at] as Extract<ConversationItem, { kind: 'dispatch' }>;
    this.items[at] = { ...item, ...change };
  }
}

/**
 * The index of the item that shows event `seq` (the step a test's failure names: a tool call's
 * tool-dispatch, a model round's round-response, or the run-end), or -1 while that event is not
 * read yet.
 */
export function itemIndexForStep(items: readonly ConversationItem[], seq: number): number {
  const key = `e${seq}`;
  return items.findIndex(
    (item) => item.key === key || ((item.kind === 'assistant' || item.kind === 'dispatch') && item.step === seq),
  );
}

/** A piece of text: plain, or an `<untrusted_input_…>` envelope marker to highlight. */
export interface TextSegment {
  text: string;
  marker: boolean;
}

const envelopeMarker = /<\/?untrusted_input_[0-9A-Za-z_-]*>/g;

/** Splits text around the run's envelope tags so the view can highlight them (as text, never markup). */
export function splitEnvelopeMarkers(text: string): TextSegment[] {
  const segments: TextSegment[] = [];
  let last = 0;
  for (const match of text.matchAll(envelopeMarker)) {
    if (match.index > last) segments.push({ text: text.slice(last, match.index), marker: false });
    segments.push({ text: match[0], marker: true });
    last = match.index + match[0].length;
  }
  if (last < text.length) segments.push({ text: text.slice(last), marker: false });
  return segments;
}

/**
 * The key of the item a fork edited at its step, or undefined when the run is no fork with an
 * edit. The fork's run-start names the parent's step (a seq of the parent, not of the fork), so the
 * row is found by what the edit put there: the first tool outcome with the edited output, or the
 * first model round with the edited reply (or, for an edit of the calls alone, the same calls).
 */
export function forkEditedKey(
  items: readonly ConversationItem[],
  forkOf: EventOf<'run-start'>['forkOf'],
): string | undefined {
  const edit = forkOf?.edit;
  if (!forkOf || !edit) return undefined;
  if (forkOf.kind === 'tool') {
    if (edit.output === undefined) return undefined;
    const output = edit.output;
    // An untrusted tool's output is recorded inside its envelope: the edited text is then within it.
    return (
      items.find((item) => item.kind === 'dispatch' && item.output?.text === output) ??
      items.find((item) => item.kind === 'dispatch' && output !== '' && item.output?.text.includes(output) === true)
    )?.key;
  }
  const callNames = edit.calls?.map((call) => call.name).join('\n');
  for (let index = 0; index < items.length; index++) {
    const item = items[index]!;
    if (item.kind !== 'assistant' || item.streaming) continue;
    if (edit.reply !== undefined) {
      if (item.text === edit.reply) return item.key;
      continue;
    }
    const names: string[] = [];
    for (let next = index + 1; next < items.length; next++) {
      const following = items[next]!;
      if (following.kind !== 'requested-call' || following.round !== item.round) break;
      names.push(following.call.name);
    }
    if (names.join('\n') === callNames) return item.key;
  }
  return undefined;
}
