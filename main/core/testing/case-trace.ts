import type { JsonObject, JsonValue } from '../../../common/json.js';
import type { RunEvent } from '../../../common/run-events.js';
import type { TestStep as Step } from '../../../common/test-schemas.js';
import type { Trust } from '../tools/tool-spec.js';

/** One tool call of a run, as a case's assertions see it. */
export interface TracedCall {
  /** 1-based: the run's n-th call. */
  n: number;
  /** The seq of its tool-dispatch event (the step a replay or fork names). */
  seq: number;
  /** The model round it followed (0: before any round). */
  round: number;
  alias: string;
  arguments: JsonObject;
  /** A person (or the case's approval policy in their place) was asked. */
  asked: boolean;
  /** Its arguments carried untrusted text. */
  tainted: boolean;
  decision?: string;
  outcome?: 'output' | 'error';
  /** The output text, or the error message. */
  output?: string;
  trust?: Trust;
}

/** Most bytes of log text a trace keeps (the rest is dropped; the transcript has it all). */
const MAX_TRACE_LOG_CHARS = 1 << 20;

/**
 * What a case's assertions need of a run, gathered from its events as they come (nothing else is
 * kept, so thousands of cases run in bounded memory).
 */
export class CaseTrace {
  readonly calls: TracedCall[] = [];
  private readonly byId = new Map<string, TracedCall>();
  readonly rounds: { seq: number; round: number; content: string; tokens: number; cost?: number }[] = [];
  readonly advertised = new Set<string>();
  readonly logs: string[] = [];
  private logChars = 0;
  end: Extract<RunEvent, { type: 'run-end' }> | undefined;
  runId: string | undefined;

  readonly onEvent = (event: RunEvent): void => {
    this.runId ??= event.runId;
    switch (event.type) {
      case 'round-request':
        for (const tool of event.tools) this.advertised.add(tool);
        break;
      case 'round-response':
        this.rounds.push({
          seq: event.seq,
          round: event.round,
          content: event.content,
          tokens: event.usage.inputTokens + event.usage.outputTokens,
          ...(event.cost !== undefined && { cost: event.cost }),
        });
        break;
      case 'tool-dispatch': {
        const call: TracedCall = {
          n: this.calls.length + 1,
          seq: event.seq,
          round: this.rounds.at(-1)?.round ?? 0,
          alias: event.alias,
          arguments: (event.arguments ?? {}) as JsonObject,
          asked: false,
          tainted: false,
        };
        this.calls.push(call);
        this.byId.set(event.callId, call);
        break;
      }
      case 'approval-pending': {
        const call = this.byId.get(event.callId);
        if (call) {
          call.asked = true;
          call.tainted ||= event.taint.length > 0;
        }
        break;
      }
      case 'approval-decision': {
        const call = this.byId.get(event.callId);
        if (call) call.decision = event.decision.kind;
        break;
      }
      case 'tool-output': {
        const call = this.byId.get(event.callId);
        if (call) {
          call.outcome = 'output';
          call.output = event.output;
          call.trust = event.trust;
          call.tainted ||= (event.taintedBy?.length ?? 0) > 0;
        }
        break;
      }
      case 'tool-error': {
        const call = this.byId.get(event.callId);
        if (call) {
          call.outcome = 'error';
          call.output = event.message;
          if (event.trust) call.trust = event.trust;
          call.tainted ||= (event.taintedBy?.length ?? 0) > 0;
        }
        break;
      }
      case 'log':
        if (this.logChars < MAX_TRACE_LOG_CHARS) {
          this.logs.push(event.text);
          this.logChars += event.text.length;
        }
        break;
      case 'run-end':
        this.end = event;
        break;
      default:
        break;
    }
  };

  /** The model's last reply text, or null when no round answered. */
  get finalText(): string | null {
    return this.rounds.at(-1)?.content ?? null;
  }

  get tokens(): number {
    return this.end ? this.end.usage.inputTokens + this.end.usage.outputTokens : 0;
  }

  /** Calls as an environment check sees them. */
  checkCalls(): Array<{ alias: string; arguments: JsonObject; approved: boolean; output: string | null }> {
    return this.calls.map((call) => ({
      alias: call.alias,
      arguments: call.arguments,
      approved: call.decision === 'approve' || call.decision === 'approve-edited' || call.decision === 'allow-for-run',
      output: call.outcome === 'output' ? (call.output ?? '') : null,
    }));
  }
}

/**
 * Where in a run something happened, for a failure, in words: `event 12 (round 2, call 3)`. An
 * assertion on what the whole run left behind (the environment's state, a check, the log, the
 * cost, the tools advertised) is judged after the run: its step is the run-end event, with `afterRun`.
 */
export function stepText(step: Step): string {
  if (step.afterRun) return `after the run (event ${step.seq}, its end)`;
  const parts = [
    ...(step.round !== undefined ? [`round ${step.round}`] : []),
    ...(step.call !== undefined ? [`call ${step.call}`] : []),
  ];
  return `event ${step.seq}${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

export function callStep(call: TracedCall): Step {
  return { seq: call.seq, round: call.round, call: call.n };
}

/** A value as a failure message shows it: JSON, cut at 300 characters. */
export function shown(value: JsonValue | undefined): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}
