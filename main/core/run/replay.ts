import type { JsonObject, JsonValue } from '../../../common/json.js';
import type { ForkEdit, ForkOrigin, RecordedDecision, RunEvent } from '../../../common/run-events.js';
import {
  ProviderError,
  type ChatMessage,
  type ModelEvent,
  type ModelProvider,
  type ModelRequest,
} from '../providers/model-provider.js';
import { blankNonces } from '../../../common/envelope.js';
import type { LocatedEvent } from '../transcript/transcript-reader.js';
import { canonicalJson } from './canonical-json.js';
import { shownName } from '../did-you-mean.js';
import { FatalRunError, FORK_GO_LIVE_ADVICE, ForkError } from './run-errors.js';
import { errorMessage } from '../../../common/error-message.js';
import {
  readRecording,
  type RecordedDispatch,
  type RecordedOutcome,
  type RecordedRead,
  type RecordedRound,
  type ReplayStep,
} from './replay-reader.js';

type RoundResponse = RecordedRound['response'];

/** Where a fork leaves the recording, once {@link ReplayRecording.forkAt} has checked it. */
interface ForkPoint {
  origin: ForkOrigin;
  /** Model rounds answered from the recording, the step's own included for a model step. */
  rounds: number;
  /** Tool calls answered from the recording, the step's own included for a tool step. */
  dispatches: number;
  /** MCP reads answered from the recording: those that ended before the step. */
  reads: number;
  /** The edited outcome of the step's tool call, for a tool step with an output edit. */
  output?: RecordedOutcome;
}

/**
 * What a fork needs to know of a tool it edits the output of, from the catalog of the run (its
 * trust, structured output); undefined for a tool the catalog does not have.
 */
export type ForkToolInfo = (alias: string) => { trust: 'trusted' | 'untrusted'; structured: boolean } | undefined;

/** Steps listed in a "not a step" message before it says how many more there are. */
const LISTED_STEPS = 30;

// The nonce differs between the recording and the replay; envelopes are compared without it.
function canonical(value: unknown): string {
  return blankNonces(canonicalJson(value));
}

/** Longest excerpt of a message a divergence error quotes. */
const QUOTED_CHARS = 200;

/** A word at the cut shorter than this is dropped whole; a longer one is cut between characters. */
const LONGEST_WORD_DROPPED = 40;

/**
 * `text` cut to at most `max` characters, with "…" marking the cut: at the start of the word the
 * cut falls in (unless that word is long), never inside a character.
 */
export function clip(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  let head = chars.slice(0, max).join('');
  const word = /[\p{L}\p{N}\p{M}_]+$/u.exec(head);
  if (word && /^[\p{L}\p{N}\p{M}_]/u.test(chars[max]!) && word[0].length < LONGEST_WORD_DROPPED && word.index > 0)
    head = head.slice(0, word.index);
  return `${head.trimEnd()}…`;
}

/** `1 round`, `2 rounds`. */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function describeCall(alias: string, args: JsonValue): string {
  return `tools.call('${alias}', ${JSON.stringify(args)})`;
}

/**
 * A transcript read back for replay: the model rounds and tool dispatches in the order they
 * happened. Replay answers `models.chat` and `tools.call` from it, offline, and stops the run with
 * an error that says where as soon as the script asks for something the recording does not hold.
 *
 * The file is an input, never an authority: its `trust` labels and approval decisions are what the
 * recorded run claims. The dispatcher takes trust from the run's catalog (a recorded label only
 * lowers it) and reports a recorded decision without letting it decide any live call.
 */
export class ReplayRecording {
  private readonly rounds: RecordedRound[];
  private readonly dispatches: RecordedDispatch[];
  private readonly reads: RecordedRead[];
  private nextRound = 0;
  private nextCall = 0;
  private nextReadIndex = 0;
  private readonly stepList: ReplayStep[];
  /** The type of each event by seq, for a fork point that names an event that is not a step. */
  private readonly typeBySeq: Map<number, RunEvent['type']>;
  private fork: ForkPoint | undefined;
  /** The script this run runs, when it is told ({@link replaysFor}): a divergence names both. */
  private running: { path: string; sha256: string } | undefined;
  readonly start: Extract<RunEvent, { type: 'run-start' }>;

  constructor(
    readonly path: string,
    events: LocatedEvent[],
  ) {
    const recorded = readRecording(path, events);
    this.start = recorded.start;
    this.rounds = recorded.rounds;
    this.dispatches = recorded.dispatches;
    this.reads = recorded.reads;
    this.stepList = recorded.steps;
    this.typeBySeq = recorded.typeBySeq;
  }

  /**
   * Tells the recording which script replays it (the path as the run names it, and the sha256 of
   * its text), so that a divergence says when it is not the script the recording was made from.
   */
  replaysFor(script: { path: string; sha256: string }): void {
    this.running = script;
  }

  /**
   * What ends every divergence message when the running script is not the recorded one: which
   * script the recording was made from, which runs now, and the two ways out.
   */
  private scriptNote(): string {
    const now = this.running;
    const then = this.start.script;
    if (!now) return '';
    if (now.path !== then.path)
      return `. The recording was made from ${shownName(then.path)}, and the script running now is ${shownName(now.path)}: replay it with ${shownName(then.path)}, or record ${shownName(now.path)} again to get a recording of its own`;
    if (now.sha256 !== then.sha256)
      return `. ${shownName(now.path)} changed since the recording was made (script sha256 ${then.sha256.slice(0, 12)}… then, ${now.sha256.slice(0, 12)}… now): record it again, or put back the script as it was`;
    return '';
  }

  /** A divergence: `message`, then what {@link scriptNote} says. */
  private diverged(message: string): string {
    return `${message}${this.scriptNote()}`;
  }

  /** Where this recording's fork starts, once {@link forkAt} was called. */
  get forkOrigin(): ForkOrigin | undefined {
    return this.fork?.origin;
  }

  /** The steps a fork may start from, in order. */
  steps(): readonly ReplayStep[] {
    return this.stepList;
  }

  /**
   * Makes this recording answer only up to `step` (a step's seq, see {@link steps}), with `edit`
   * applied at the step. Past the step, a `live` fork's rounds and calls go to the chosen model and
   * the real tools ({@link answersNextRound}); otherwise replay goes on while the script still
   * matches. Throws a {@link ForkError} saying what to change for a step past the end, an event
   * that is not a step, or an edit that does not fit the step.
   */
  forkAt(
    step: number,
    options: { edit?: ForkEdit; live: boolean; transcript?: string; tool?: ForkToolInfo; scriptChanged?: boolean },
  ): ForkOrigin {
    const name = options.transcript ?? this.path;
    const last = this.stepList.at(-1);
    if (!last)
      throw new ForkError(
        'fork-past-end',
        `${name} has no step to fork from: it holds no model round and no tool output`,
      );
    if (step > last.seq) {
      const lastEvent = Math.max(...this.typeBySeq.keys());
      throw new ForkError(
        'fork-past-end',
        `fork point ${step} is past the end of ${name}: its last step is ${last.seq} (${last.label})` +
          (lastEvent > last.seq ? `; the events after it (up to ${lastEvent}) are not steps` : '') +
          (this.typeBySeq.get(lastEvent) === 'run-end'
            ? ''
            : '; the run has not ended (it is still running, or it was cut off), so a later step may not be recorded yet') +
          `. Steps: ${this.listSteps()}`,
      );
    }
    const at = this.stepList.find((s) => s.seq === step);
    if (!at) {
      const type = this.typeBySeq.get(step);
      throw new ForkError(
        'fork-not-a-step',
        `${type ? `event ${step} of ${name} is ${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}` : `${name} has no event ${step}`}, not a step; a step is the seq of a model round or a tool output: ${this.listSteps()}`,
      );
    }
    const rounds = this.rounds.filter((round) => round.response.seq <= step).length;
    const dispatches = this.dispatches.filter((d) => d.outcomeSeq !== undefined && d.outcomeSeq <= step).length;
    const reads = this.reads.filter((read) => read.outcomeSeq !== undefined && read.outcomeSeq <= step).length;
    const edit =
      options.edit && Object.values(options.edit).some((value) => value !== undefined) ? options.edit : undefined;
    const point: ForkPoint = {
      rounds,
      dispatches,
      reads,
      origin: {
        runId: this.start.runId,
        transcript: name,
        step,
        kind: at.kind,
        ...(edit && { edit }),
        then: options.live ? 'live' : 'replay',
        ...(options.scriptChanged && { scriptChanged: true }),
      },
    };
    if (edit) this.checkEdit(at, edit, point, options.tool);
    this.fork = point;
    return point.origin;
  }

  private listSteps(): string {
    const shown = this.stepList.slice(0, LISTED_STEPS).map((s) => `${s.seq} (${s.label})`);
    const more = this.stepList.length - shown.length;
    return `${shown.join(', ')}${more > 0 ? `, and ${more} more` : ''}`;
  }

  private checkEdit(at: ReplayStep, edit: ForkEdit, point: ForkPoint, tool: ForkToolInfo | undefined): void {
    const bad = (message: string): never => {
      throw new ForkError('fork-bad-edit', `step ${at.seq} is ${at.label}: ${message}`);
    };
    if (at.kind === 'tool') {
      if (edit.reply !== undefined || edit.calls !== undefined)
        bad("a tool step's edit is its output; a model step's reply or calls are edited at a model round");
      const recorded = this.dispatches[point.dispatches - 1]!;
      const info = tool?.(recorded.alias);
      // An edited output is as trusted as the tool is in the catalog, and no more than the recorded
      // output was; a failed call's takes its tool's (untrusted if the catalog does not know it).
      // The dispatcher lowers it again to the run's catalog (which also knows MCP tools).
      const was = recorded.outcome.kind === 'output' ? recorded.outcome.trust : undefined;
      const trust =
        was === 'untrusted' || info?.trust === 'untrusted' ? 'untrusted' : (was ?? info?.trust ?? 'untrusted');
      point.output = {
        kind: 'output',
        output: edit.output!,
        trust,
        structured: recorded.outcome.kind === 'output' ? recorded.outcome.structured : (info?.structured ?? false),
      };
      if (point.output.structured) {
        try {
          JSON.parse(edit.output!);
        } catch (error) {
          bad(
            `${recorded.alias} returns structured output, so the edited output must be JSON (${errorMessage(error)})`,
          );
        }
      }
      return;
    }
    if (edit.output !== undefined)
      bad("a model step's edit is its reply or its calls; an output is edited at a tool step");
    const round = this.rounds[point.rounds - 1]!;
    const ids = new Set<string>();
    edit.calls?.forEach((call, i) => {
      if (!round.request.tools.includes(call.name))
        bad(
          `edited call ${i + 1} names tool "${call.name}", which round ${round.response.round} did not offer the model (it offered ${round.request.tools.length ? round.request.tools.join(', ') : 'no tools'})`,
        );
      const id = call.id ?? round.response.toolCalls[i]?.id ?? `call_fork_${i + 1}`;
      if (ids.has(id)) bad(`edited calls ${i + 1} and an earlier one share the id "${id}"; give each its own`);
      ids.add(id);
    });
  }

  /** Whether the next model round is answered from the recording (false past a live fork's step). */
  answersNextRound(): boolean {
    return this.fork?.origin.then !== 'live' || this.nextRound < this.fork.rounds;
  }

  /** Whether the next tool call is answered from the recording (false past a live fork's step). */
  answersNextDispatch(): boolean {
    return this.fork?.origin.then !== 'live' || this.nextCall < this.fork.dispatches;
  }

  /** Whether the next MCP read is answered from the recording (false past a live fork's step). */
  answersNextRead(): boolean {
    return this.fork?.origin.then !== 'live' || this.nextReadIndex < this.fork.reads;
  }

  /**
   * The recorded outcome of the next `mcp.read_resource` / `mcp.get_prompt`; another kind, server,
   * target or arguments end the run, as a diverging tool call does.
   */
  nextRead(
    kind: 'resource' | 'prompt',
    server: string,
    target: string,
    args: Record<string, string>,
  ): RecordedRead['outcome'] {
    const index = this.nextReadIndex++;
    const recorded = this.reads[index];
    const fork = this.pastFork(index, this.fork?.reads ?? 0);
    const method = kind === 'resource' ? 'mcp.read_resource' : 'mcp.get_prompt';
    const described = `${method}('${server}', ${JSON.stringify(target)}${kind === 'prompt' ? `, ${canonicalJson(args)}` : ''})`;
    if (!recorded)
      throw new FatalRunError(
        this.diverged(
          `replay diverged at MCP read ${index + 1}: the script called ${described}, but ${this.path} holds only ${count(this.reads.length, 'MCP read')}${fork}`,
        ),
      );
    const recordedMethod = recorded.kind === 'resource' ? 'mcp.read_resource' : 'mcp.get_prompt';
    if (
      recorded.kind !== kind ||
      recorded.server !== server ||
      recorded.target !== target ||
      canonical(recorded.arguments) !== canonical(args)
    )
      throw new FatalRunError(
        this.diverged(
          `replay diverged at MCP read ${index + 1} (${this.path}:${recorded.line})${fork}: the script called ${described}, the recording has ${recordedMethod}('${recorded.server}', ${JSON.stringify(recorded.target)}${recorded.kind === 'prompt' ? `, ${canonicalJson(recorded.arguments)}` : ''})`,
        ),
      );
    if (this.fork && recorded.outcomeSeq === undefined)
      throw new FatalRunError(
        `replay reached MCP read ${index + 1} (${this.path}:${recorded.line}), ${described}, but the recording holds no outcome for it${fork}`,
      );
    return recorded.outcome;
  }

  /** A note for a divergence past a replaying fork's step: past it, a model makes the run go on. */
  private pastFork(index: number, answered: number): string {
    const fork = this.fork;
    if (!fork || index < answered) return '';
    return ` (after the fork's step ${fork.origin.step}: ${FORK_GO_LIVE_ADVICE})`;
  }

  /** The step's reply with the fork's edit applied. */
  private editedResponse(response: RoundResponse): RoundResponse {
    const edit = this.fork?.origin.edit;
    if (!edit) return response;
    const toolCalls =
      edit.calls?.map((call, i) => ({
        id: call.id ?? response.toolCalls[i]?.id ?? `call_fork_${i + 1}`,
        name: call.name,
        rawArguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
      })) ?? response.toolCalls;
    return {
      ...response,
      content: edit.reply ?? response.content,
      toolCalls,
      finishReason: edit.calls ? (toolCalls.length > 0 ? 'tool_calls' : 'stop') : response.finishReason,
    };
  }

  /** Every tool alias the recording used: advertised to a model in a round, or dispatched. */
  recordedAliases(): string[] {
    const names = new Set<string>();
    for (const round of this.rounds) for (const name of round.request.tools) names.add(name);
    for (const dispatch of this.dispatches) names.add(dispatch.alias);
    return [...names];
  }

  /** The recorded model round answering `request`, or a divergence error saying where. */
  nextRoundFor(request: ModelRequest): RoundResponse {
    const index = this.nextRound++;
    const recorded = this.rounds[index];
    const fork = this.pastFork(index, this.fork?.rounds ?? 0);
    if (!recorded)
      throw new ProviderError(
        'replay-divergence',
        this.diverged(
          `replay diverged at model round ${index + 1}: the script called models.chat again, but ${this.path} holds only ${count(this.rounds.length, 'round')}${fork}`,
        ),
      );
    const where = `replay diverged at model round ${index + 1} (${this.path}:${recorded.request.line})${fork}`;
    const tools = request.tools.map((tool) => tool.name);
    if (canonical(tools) !== canonical(recorded.request.tools))
      throw new ProviderError(
        'replay-divergence',
        this.diverged(
          `${where}: the script advertised tools ${JSON.stringify(tools)}, the recording ${JSON.stringify(recorded.request.tools)}`,
        ),
      );
    const messages: ChatMessage[] = request.messages;
    const expected = recorded.request.messages;
    if (messages.length !== expected.length)
      throw new ProviderError(
        'replay-divergence',
        this.diverged(
          `${where}: the script sent ${count(messages.length, 'message')}, the recording ${expected.length}`,
        ),
      );
    messages.forEach((message, i) => {
      if (canonical(message) !== canonical(expected[i]))
        throw new ProviderError(
          'replay-divergence',
          this.diverged(
            `${where}: message ${i + 1} differs: the script sent ${clip(canonical(message), QUOTED_CHARS)}, the recording has ${clip(canonical(expected[i]), QUOTED_CHARS)}`,
          ),
        );
    });
    if (this.fork?.origin.kind === 'model' && index === this.fork.rounds - 1)
      return this.editedResponse(recorded.response);
    return recorded.response;
  }

  /** The recorded outcome of the next dispatch; a different alias or arguments end the run. */
  nextDispatch(alias: string, args: JsonObject): { decision?: RecordedDecision; outcome: RecordedOutcome } {
    const index = this.nextCall++;
    const recorded = this.dispatches[index];
    const fork = this.pastFork(index, this.fork?.dispatches ?? 0);
    if (!recorded)
      throw new FatalRunError(
        this.diverged(
          `replay diverged at tool call ${index + 1}: the script called ${describeCall(alias, args)}, but ${this.path} holds only ${count(this.dispatches.length, 'tool call')}${fork}`,
        ),
      );
    if (recorded.alias !== alias || canonical(recorded.arguments) !== canonical(args))
      throw new FatalRunError(
        this.diverged(
          `replay diverged at tool call ${index + 1} (${this.path}:${recorded.line})${fork}: the script called ${describeCall(alias, args)}, the recording has ${describeCall(recorded.alias, recorded.arguments)}`,
        ),
      );
    // A fork of a run in progress: its parent may still be waiting on this call (for a person's
    // approval, say). What the call will return is not known, so the replay cannot answer it.
    if (this.fork && recorded.outcomeSeq === undefined)
      throw new FatalRunError(
        `replay reached tool call ${index + 1} (${this.path}:${recorded.line}), ${describeCall(alias, args)}, but the recording holds no outcome for it: the run it records had not finished the call (still waiting on it, or cut off)${fork}`,
      );
    const edited = this.fork?.output;
    if (edited && index === this.fork!.dispatches - 1) {
      // A denied or cancelled call whose outcome is edited ran, as far as the fork is concerned.
      const decision =
        recorded.decision?.kind === 'deny' || recorded.decision?.kind === 'cancelled' ? undefined : recorded.decision;
      return { ...(decision && { decision }), outcome: edited };
    }
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
