import type { JsonObject } from '../../../common/json.js';
import type { ToolCatalog } from '../tools/tool-spec.js';
import type { ApprovalDecision, ApprovalGate, ApprovalRequest, DecisionSource } from './approval-types.js';
import type { Approver, PendingCall, PersonDecision } from './approver.js';
import { errorMessage } from '../../../common/error-message.js';

/** What the gate reports, for the transcript and the studio. */
export type GateEvent =
  | { type: 'approval-pending'; pending: PendingCall }
  | { type: 'approval-edit-rejected'; request: ApprovalRequest; arguments: JsonObject; message: string }
  | {
      type: 'approval-resolved';
      request: ApprovalRequest;
      decision: ApprovalDecision;
      /** The arguments the script proposed (an approve-edited decision also holds the edited ones). */
      proposed: JsonObject;
      /** Whether a person (or the approver standing in for one) was asked. */
      asked: boolean;
    };

/** Options of {@link ApprovalGateImpl}. */
export interface ApprovalGateOptions {
  approver: Approver;
  onEvent?(event: GateEvent): void;
  /**
   * The run's catalog: edited arguments are validated against the tool's schema, and a request
   * without `taintCheck` gets the tool's setting. Without it, edits are only checked to be objects.
   */
  catalog?: Pick<ToolCatalog, 'get' | 'validateArguments'>;
  /** Clock for decision times. Default: the system clock. */
  now?: () => Date;
  /** How many invalid edits in a row before the call is denied. Default 3. */
  maxRejectedEdits?: number;
}

/**
 * The approval gate. Policy, in order:
 * - the signal is already aborted: `cancelled`;
 * - `deny`: denied by policy, the person is never asked;
 * - `auto` and not tainted: approved by policy;
 * - `ask`, not tainted, and the person chose "allow for this run" for this alias earlier in this
 *   run: approved by policy with reason `allowed for this run`;
 * - otherwise (`ask`, or tainted `auto`/allowed `ask` with taintCheck on): the person decides.
 * A tool with taintCheck off is treated as untainted. Every decision carries its time and source
 * and is reported with the proposed arguments.
 */
export class ApprovalGateImpl implements ApprovalGate {
  private readonly allowedForRun = new Map<string, Set<string>>();
  private readonly now: () => Date;

  constructor(private readonly options: ApprovalGateOptions) {
    this.now = options.now ?? (() => new Date());
  }

  async decide(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    const policy = (kind: 'approve' | 'deny', reason: string): ApprovalDecision =>
      kind === 'approve'
        ? { kind: 'approve', source: 'policy', at: this.timestamp(), reason }
        : { kind: 'deny', source: 'policy', at: this.timestamp(), reason };

    if (signal.aborted) return this.finish(request, this.cancelled(signal), false);
    const tainted = this.taintCheckOf(request) && request.taint.length > 0;
    switch (request.policy) {
      case 'deny':
        return this.finish(request, policy('deny', `tool "${request.alias}" has approval: deny`), false);
      case 'auto':
        if (!tainted) return this.finish(request, policy('approve', 'approval: auto'), false);
        break;
      case 'ask':
        if (!tainted && this.isAllowedForRun(request.runId, request.alias)) {
          return this.finish(request, policy('approve', 'allowed for this run'), false);
        }
        break;
      default:
        return this.finish(request, policy('deny', `unknown approval policy "${String(request.policy)}"`), false);
    }
    return this.askPerson(request, tainted ? 'tainted' : 'policy', signal);
  }

  /** Whether the person chose "allow for this run" for `alias` in run `runId`. */
  isAllowedForRun(runId: string, alias: string): boolean {
    return this.allowedForRun.get(runId)?.has(alias) ?? false;
  }

  /** Drops a finished run's "allow for this run" memory. */
  forgetRun(runId: string): void {
    this.allowedForRun.delete(runId);
  }

  private async askPerson(
    request: ApprovalRequest,
    reason: PendingCall['reason'],
    signal: AbortSignal,
  ): Promise<ApprovalDecision> {
    const approver = this.options.approver;
    const maxRejected = this.options.maxRejectedEdits ?? 3;
    let rejectedEdit: string | undefined;
    for (let attempt = 0; ; attempt += 1) {
      const pending: PendingCall = {
        request,
        reason,
        askedAt: this.timestamp(),
        ...(rejectedEdit !== undefined ? { rejectedEdit } : {}),
        taintCheck: this.taintCheckOf(request),
        validateEdit: (args) => this.validateEdit(request.alias, args),
      };
      this.options.onEvent?.({ type: 'approval-pending', pending });
      let person: PersonDecision | 'aborted';
      try {
        person = await raceAbort(approver.ask(pending, signal), signal);
      } catch (error) {
        if (signal.aborted) return this.finish(request, this.cancelled(signal), true);
        return this.finish(
          request,
          {
            kind: 'deny',
            reason: `no decision could be obtained: ${errorMessage(error)}`,
            source: approver.source ?? 'studio',
            at: this.timestamp(),
          },
          true,
        );
      }
      if (person === 'aborted' || signal.aborted) return this.finish(request, this.cancelled(signal), true);
      const source: DecisionSource = person.source ?? approver.source ?? 'studio';
      const at = this.timestamp();
      switch (person.kind) {
        case 'approve':
          return this.finish(
            request,
            { kind: 'approve', source, at, ...(person.reason !== undefined ? { reason: person.reason } : {}) },
            true,
          );
        case 'deny':
          return this.finish(request, { kind: 'deny', reason: person.reason.trim() || 'denied', source, at }, true);
        case 'allow-for-run': {
          let aliases = this.allowedForRun.get(request.runId);
          if (!aliases) {
            aliases = new Set();
            this.allowedForRun.set(request.runId, aliases);
          }
          aliases.add(request.alias);
          return this.finish(request, { kind: 'allow-for-run', source, at }, true);
        }
        case 'approve-edited': {
          const problem = this.validateEdit(request.alias, person.arguments);
          if (problem === undefined) {
            return this.finish(
              request,
              {
                kind: 'approve-edited',
                arguments: structuredClone(person.arguments),
                proposed: request.arguments,
                source,
                at,
              },
              true,
            );
          }
          this.options.onEvent?.({
            type: 'approval-edit-rejected',
            request,
            arguments: person.arguments,
            message: problem,
          });
          rejectedEdit = problem;
          if (attempt + 1 >= maxRejected) {
            return this.finish(
              request,
              { kind: 'deny', reason: `edited arguments were rejected: ${problem}`, source, at },
              true,
            );
          }
          break;
        }
        default:
          return this.finish(
            request,
            { kind: 'deny', reason: 'the approver gave an unknown decision', source, at },
            true,
          );
      }
    }
  }

  private validateEdit(alias: string, args: unknown): string | undefined {
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      return 'edited arguments must be a JSON object';
    return this.options.catalog?.validateArguments(alias, args as JsonObject);
  }

  private cancelled(signal: AbortSignal): ApprovalDecision {
    const why =
      signal.reason instanceof Error
        ? signal.reason.message
        : typeof signal.reason === 'string'
          ? signal.reason
          : 'the run was stopped';
    return { kind: 'cancelled', reason: why, source: 'policy', at: this.timestamp() };
  }

  private finish(request: ApprovalRequest, given: ApprovalDecision, asked: boolean): ApprovalDecision {
    const decision = withScope(request, given, this.taintCheckOf(request));
    this.options.onEvent?.({ type: 'approval-resolved', request, decision, proposed: request.arguments, asked });
    return decision;
  }

  private taintCheckOf(request: ApprovalRequest): boolean {
    return request.taintCheck ?? this.options.catalog?.get(request.alias)?.taintCheck ?? true;
  }

  private timestamp(): string {
    return this.now().toISOString();
  }
}

/**
 * Adds `scope` to a decision that lets the call run: exactly what it allows, in words, for the
 * transcript, the studio and the CLI. "Allow for this run" covers the tool's later untainted calls
 * only; a later call carrying untrusted text still asks (unless the tool has taintCheck off).
 */
export function withScope(request: ApprovalRequest, decision: ApprovalDecision, taintCheck: boolean): ApprovalDecision {
  const tool = `tool "${request.alias}"`;
  const tainted = taintCheck && request.taint.length > 0;
  const thisCall = tainted ? 'this call only (its arguments carry untrusted text)' : 'this call only';
  switch (decision.kind) {
    case 'approve':
      if (decision.source === 'policy' && decision.reason === 'allowed for this run')
        return {
          ...decision,
          scope: `this untainted call of ${tool}, under an earlier "allow for this run"; tainted calls still ask`,
        };
      if (decision.source === 'policy' && request.policy === 'auto' && !tainted)
        return { ...decision, scope: `this call (${tool} has approval: auto)` };
      return { ...decision, scope: thisCall };
    case 'approve-edited':
      return { ...decision, scope: `${thisCall}, with the edited arguments` };
    case 'allow-for-run': {
      const later =
        request.policy === 'auto'
          ? `later untainted calls of ${tool} run anyway (approval: auto)`
          : `every later untainted call of ${tool} in this run runs without asking`;
      const still = taintCheck
        ? 'calls whose arguments carry untrusted text still ask'
        : `${tool} has taintCheck off, so tainted calls are covered too`;
      return { ...decision, scope: `this call; ${later}; ${still}`, taintCheck };
    }
    default:
      return decision;
  }
}

/** Whether a decision lets the call run, and with which arguments. */
export function approvedArguments(request: ApprovalRequest, decision: ApprovalDecision): JsonObject | undefined {
  switch (decision.kind) {
    case 'approve':
    case 'allow-for-run':
      return request.arguments;
    case 'approve-edited':
      return decision.arguments;
    default:
      return undefined;
  }
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | 'aborted'> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.resolve('aborted');
  }
  return new Promise<T | 'aborted'>((resolve, reject) => {
    const onAbort = () => resolve('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
