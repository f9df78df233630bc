/**
 * The person's side of a server's elicitation and sampling requests: the ports a run asks through
 * (an {@link Elicitor}, a {@link SamplingApprover}), and the queues the studio lists and answers
 * (as main/core/approval/pending-approvals.ts does for tool calls).
 */
import type {
  ElicitationAnswer,
  PendingElicitation,
  PendingSampling,
  PersonSource,
  SamplingDecision,
} from '../../../common/mcp-person.js';
import { answerProblem } from './mcp-form.js';
import { samplingDecisionProblem } from './mcp-sampling.js';

/** Who answers a server's elicitation for a run: the studio's queue or the terminal. */
export interface Elicitor {
  /** Recorded with the answer. Default `studio`. */
  readonly source?: PersonSource;
  /** The person's answer; should stop waiting when `signal` aborts (the answer is then `cancel`). */
  ask(pending: PendingElicitation, signal: AbortSignal): Promise<ElicitationAnswer>;
}

/** Who approves a server's sampling request for a run. */
export interface SamplingApprover {
  readonly source?: PersonSource;
  ask(pending: PendingSampling, signal: AbortSignal): Promise<SamplingDecision>;
}

/** Questions waiting at once in one queue; more are declined at once. */
const MAX_PENDING_QUESTIONS = 16;

/** What a queue reports to the studio. */
export type PendingQuestionEvent<P, A> =
  { type: 'pending'; pending: P } | { type: 'resolved'; pending: P; answer: A | { cancelled: string } };

export type QuestionResolveResult = { ok: true } | { ok: false; error: string };

interface Entry<P, A> {
  pending: P;
  settle(answer: A): void;
}

/**
 * Questions waiting for the person, across runs: listed, resolved by id, withdrawn when their
 * run's call ends. Bounded: past {@link MAX_PENDING_QUESTIONS} a new question is refused at once
 * (its asker declines it). An answer `check` finds wrong is refused with the reason and the
 * question stays.
 */
export class PendingQuestions<P extends { id: string }, A> {
  private readonly entries: Entry<P, A>[] = [];
  private readonly listeners = new Set<(event: PendingQuestionEvent<P, A>) => void>();

  constructor(
    private readonly check: (pending: P, answer: A) => string | undefined = () => undefined,
    private readonly limit = MAX_PENDING_QUESTIONS,
  ) {}

  list(): P[] {
    return this.entries.map((entry) => entry.pending);
  }

  subscribe(listener: (event: PendingQuestionEvent<P, A>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  resolve(id: string, answer: A): QuestionResolveResult {
    const entry = this.entries.find((candidate) => candidate.pending.id === id);
    if (!entry) return { ok: false, error: `no question "${id}" is waiting` };
    const problem = this.check(entry.pending, answer);
    if (problem !== undefined) return { ok: false, error: problem };
    this.remove(entry);
    entry.settle(answer);
    this.emit({ type: 'resolved', pending: entry.pending, answer });
    return { ok: true };
  }

  /** Waits for the person's answer; rejects when `signal` aborts or the queue is full. */
  enqueue(pending: P, signal: AbortSignal): Promise<A> {
    return new Promise<A>((resolve, reject) => {
      if (signal.aborted) return reject(new Error('cancelled: the call ended'));
      if (this.entries.length >= this.limit)
        return reject(new Error(`${this.limit} questions are already waiting for the person; this one is declined`));
      const onAbort = () => {
        if (!this.remove(entry)) return;
        const reason = signal.reason instanceof Error ? signal.reason.message : 'the call ended';
        this.emit({ type: 'resolved', pending, answer: { cancelled: reason } });
        reject(new Error(`cancelled: ${reason}`));
      };
      const entry: Entry<P, A> = {
        pending,
        settle: (answer) => {
          signal.removeEventListener('abort', onAbort);
          resolve(answer);
        },
      };
      this.entries.push(entry);
      signal.addEventListener('abort', onAbort, { once: true });
      this.emit({ type: 'pending', pending });
    });
  }

  private remove(entry: Entry<P, A>): boolean {
    const index = this.entries.indexOf(entry);
    if (index < 0) return false;
    this.entries.splice(index, 1);
    return true;
  }

  private emit(event: PendingQuestionEvent<P, A>): void {
    for (const listener of this.listeners) listener(event);
  }
}

/** The studio's pending elicitations: an accepted form is checked against its fields before it goes. */
export class PendingElicitations extends PendingQuestions<PendingElicitation, ElicitationAnswer> {
  constructor(limit?: number) {
    super(answerProblem, limit);
  }
}

/** The studio's pending sampling requests: a decision is checked before it goes (see samplingDecisionProblem). */
export class PendingSamplings extends PendingQuestions<PendingSampling, SamplingDecision> {
  constructor(limit?: number) {
    super((_pending, decision) => samplingDecisionProblem(decision), limit);
  }
}

/** The person is whoever answers the queue (the studio). */
export class QueueElicitor implements Elicitor {
  constructor(
    private readonly queue: PendingQuestions<PendingElicitation, ElicitationAnswer>,
    readonly source: PersonSource = 'studio',
  ) {}
  ask(pending: PendingElicitation, signal: AbortSignal): Promise<ElicitationAnswer> {
    return this.queue.enqueue(pending, signal);
  }
}

export class QueueSamplingApprover implements SamplingApprover {
  constructor(
    private readonly queue: PendingQuestions<PendingSampling, SamplingDecision>,
    readonly source: PersonSource = 'studio',
  ) {}
  ask(pending: PendingSampling, signal: AbortSignal): Promise<SamplingDecision> {
    return this.queue.enqueue(pending, signal);
  }
}
