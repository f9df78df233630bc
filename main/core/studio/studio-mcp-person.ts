/**
 * The studio's side of MCP servers' questions: the elicitations and sampling requests of every run
 * waiting for the person, pushed to the renderer as they come and go, and answered through the
 * contract. Only the person answers (the IPC registration serves `mcp:answer` and
 * `mcp:decide-sampling` only right after their own press); a URL is opened by main, on that press.
 */
import type { ContractEventName, ContractEventPayload } from '../../../common/contract.js';
import { escapePointerSegment } from '../../../common/json-pointer.js';
import type {
  ElicitationAnswer,
  PendingElicitation,
  PendingSampling,
  SamplingDecision,
} from '../../../common/mcp-person.js';
import type { ArgumentsVerdict } from '../../../common/studio-schemas.js';
import { errorMessage } from '../../../common/error-message.js';
import { answerProblem, formProblems } from '../mcp/mcp-form.js';
import {
  PendingElicitations,
  PendingSamplings,
  QueueElicitor,
  QueueSamplingApprover,
  type Elicitor,
  type PendingQuestions,
  type QuestionResolveResult,
  type SamplingApprover,
} from '../mcp/pending-questions.js';
import { ContractError } from './contract-error.js';

/** What the questions part needs from the studio service. */
export interface StudioMcpPersonHost {
  emit: <E extends ContractEventName>(event: E, payload: ContractEventPayload<E>) => void;
  /** Opens a URL in the person's browser (checked by open-external.ts); absent where the host cannot. */
  openExternal?: ((url: string) => Promise<void>) | undefined;
}

export class StudioMcpPerson {
  private readonly elicitations = new PendingElicitations();
  private readonly samplings = new PendingSamplings();
  /** Who answers the elicitations of the studio's runs: the person, through this queue. */
  readonly elicitor: Elicitor = new QueueElicitor(this.elicitations, 'studio');
  /** Who approves the sampling requests of the studio's runs. */
  readonly sampler: SamplingApprover = new QueueSamplingApprover(this.samplings, 'studio');

  constructor(private readonly host: StudioMcpPersonHost) {
    this.elicitations.subscribe((event) => {
      const { id, runId } = event.pending;
      if (event.type === 'pending') host.emit('elicitation-pending', event.pending);
      else host.emit('elicitation-resolved', { id, runId });
    });
    this.samplings.subscribe((event) => {
      const { id, runId } = event.pending;
      if (event.type === 'pending') host.emit('sampling-pending', event.pending);
      else host.emit('sampling-resolved', { id, runId });
    });
  }

  /** Every question waiting, in the order they came. */
  questions(): { elicitations: PendingElicitation[]; samplings: PendingSampling[] } {
    return { elicitations: this.elicitations.list(), samplings: this.samplings.list() };
  }

  /** The core's verdict on `content` as the answer to form `id`, each problem at its field. */
  checkAnswer(id: string, content: Record<string, unknown>): ArgumentsVerdict {
    const pending = this.waiting(this.elicitations, id);
    if (pending.mode !== 'form') return { valid: true, problems: [] };
    const problems = formProblems(pending.fields ?? [], content).map((problem) => ({
      pointer: problem.field === undefined ? '' : `/${escapePointerSegment(problem.field)}`,
      message: problem.message,
      fix: problem.field === undefined ? 'Answer only the fields of the form.' : '',
    }));
    return { valid: problems.length === 0, problems };
  }

  /**
   * The person's answer to elicitation `id`. Accepting a URL opens it in the person's browser
   * first (main's own act, never the page's); when it cannot be opened the question stays.
   */
  async answer(id: string, answer: ElicitationAnswer): Promise<{ ok: true }> {
    const pending = this.waiting(this.elicitations, id);
    if (pending.mode === 'url' && answer.action === 'accept') {
      if (answer.content !== undefined)
        throw new ContractError('invalid-answer', 'a URL question takes no values: accept, decline or cancel');
      const open = this.host.openExternal;
      if (!open)
        throw new ContractError(
          'not-supported',
          'this host cannot open a browser: decline the question, or cancel it and open the URL yourself',
        );
      try {
        await open(pending.url ?? '');
      } catch (error) {
        throw new ContractError('open-failed', `the URL was not opened (${errorMessage(error)}); the question waits`);
      }
    } else {
      const problem = answerProblem(pending, answer);
      if (problem !== undefined) throw new ContractError('invalid-answer', `${problem}; the question waits`);
    }
    return settled(this.elicitations.resolve(id, answer));
  }

  /** The person's decision on sampling request `id`. */
  decide(id: string, decision: SamplingDecision): { ok: true } {
    this.waiting(this.samplings, id);
    return settled(this.samplings.resolve(id, decision));
  }

  /** Answers every waiting question for the person: forms cancelled, sampling denied (trust was revoked). */
  withdrawAll(reason: string): void {
    for (const pending of this.elicitations.list()) this.elicitations.resolve(pending.id, { action: 'cancel' });
    for (const pending of this.samplings.list()) this.samplings.resolve(pending.id, { kind: 'deny', reason });
  }

  private waiting<P extends { id: string }, A>(queue: PendingQuestions<P, A>, id: string): P {
    const pending = queue.list().find((candidate) => candidate.id === id);
    if (!pending)
      throw new ContractError('not-found', `no question "${id}" is waiting: it was answered, or its call ended`);
    return pending;
  }
}

function settled(result: QuestionResolveResult): { ok: true } {
  if (result.ok) return { ok: true };
  if (result.error.startsWith('no question'))
    throw new ContractError('not-found', `${result.error}: it was answered, or its call ended`);
  throw new ContractError('invalid-answer', `${result.error}; the question waits`);
}
