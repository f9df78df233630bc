import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../common/json.js';
import { ApprovalGateImpl } from '../../../main/core/approval/approval-gate.js';
import { approvedArguments } from '../../../main/core/approval/decision-scope.js';
import type { TaintSpan } from '../../../common/run-events.js';
import type { ApprovalDecision } from '../../../main/core/approval/approval-types.js';
import type { Approver, PersonDecision } from '../../../main/core/approval/approver.js';
import { ToolCatalogImpl } from '../../../main/core/catalog/tool-catalog.js';
import type { ApprovalPolicy, ToolSpec } from '../../../main/core/tools/tool-spec.js';

const POLICIES: ApprovalPolicy[] = ['auto', 'ask', 'deny'];
const tools: ToolSpec[] = POLICIES.flatMap((policy) =>
  [true, false].map((taintCheck) => ({
    alias: `${policy}_${taintCheck ? 'checked' : 'unchecked'}`,
    description: '',
    parameters: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false },
    trust: 'trusted' as const,
    approval: policy,
    taintCheck,
    settings: { kind: 'builtin' as const, builtin: 'echo' },
    source: 'test',
  })),
);
const catalog = new ToolCatalogImpl(tools);
const taintSpan: TaintSpan = { path: '/n', start: 0, end: 30, sourceOutputId: 'call-0' };

type Answer = 'approve' | 'edit-valid' | 'edit-invalid' | 'deny' | 'allow' | 'abort' | 'throw';
interface Step {
  tool: number;
  tainted: boolean;
  run: number;
  answers: Answer[];
  preAborted: boolean;
}

const stepArbitrary: fc.Arbitrary<Step> = fc.record({
  tool: fc.integer({ min: 0, max: tools.length - 1 }),
  tainted: fc.boolean(),
  run: fc.integer({ min: 0, max: 1 }),
  answers: fc.array(
    fc.constantFrom<Answer>('approve', 'edit-valid', 'edit-invalid', 'deny', 'allow', 'abort', 'throw'),
    { minLength: 1, maxLength: 4 },
  ),
  preAborted: fc.integer({ min: 0, max: 9 }).map((value) => value === 0),
});

describe('approval gate invariants (property)', () => {
  it('thousands of random sequences: no ask or tainted call runs without a person approving; denied and cancelled calls never run; counts match', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArbitrary, { minLength: 1, maxLength: 30 }), async (steps) => {
        // The scripted person: answers for the current call, in order.
        let answers: Answer[] = [];
        let controller = new AbortController();
        let asks = 0;
        const approver: Approver = {
          async ask(): Promise<PersonDecision> {
            asks += 1;
            const answer = answers.shift() ?? 'deny';
            switch (answer) {
              case 'approve':
                return { kind: 'approve' };
              case 'edit-valid':
                return { kind: 'approve-edited', arguments: { n: 7 } };
              case 'edit-invalid':
                return { kind: 'approve-edited', arguments: { n: 'seven' } as unknown as JsonObject };
              case 'deny':
                return { kind: 'deny', reason: 'no' };
              case 'allow':
                return { kind: 'allow-for-run' };
              case 'abort':
                controller.abort();
                return new Promise(() => undefined);
              case 'throw':
                throw new Error('approver broke');
            }
          },
        };
        const gate = new ApprovalGateImpl({ approver, catalog });
        const ran: { alias: string; args: JsonObject }[] = [];
        const runner = {
          run: async (tool: ToolSpec, args: JsonObject, _signal: AbortSignal) => (
            ran.push({ alias: tool.alias, args }),
            'ok'
          ),
        };
        const counts = new Map<string, number>();
        const allowed = new Set<string>();
        let attempts = 0;

        for (const [index, step] of steps.entries()) {
          const tool = tools[step.tool]!;
          // The engine flow: count, look up, validate, taint, gate, run.
          attempts += 1;
          counts.set(tool.alias, (counts.get(tool.alias) ?? 0) + 1);
          const args: JsonObject = { n: index };
          expect(catalog.validateArguments(tool.alias, args)).toBeUndefined();
          answers = [...step.answers];
          controller = new AbortController();
          if (step.preAborted) controller.abort();
          const asksBefore = asks;
          const ranBefore = ran.length;
          const request = {
            runId: `run-${step.run}`,
            callId: `call-${index}`,
            alias: tool.alias,
            description: '',
            arguments: args,
            policy: tool.approval,
            taint: step.tainted ? [taintSpan] : [],
          };
          const decision: ApprovalDecision = await gate.decide(request, controller.signal);
          const finalArgs = approvedArguments(request, decision);
          if (finalArgs) {
            expect(catalog.validateArguments(tool.alias, finalArgs)).toBeUndefined();
            await runner.run(tool, finalArgs, controller.signal);
          }

          const effectivelyTainted = step.tainted && tool.taintCheck;
          const personAsked = asks > asksBefore;
          const didRun = ran.length > ranBefore;
          if (step.preAborted) {
            expect(decision.kind).toBe('cancelled');
            expect(didRun).toBe(false);
          }
          if (tool.approval === 'deny') {
            expect(personAsked).toBe(false);
            expect(didRun).toBe(false);
          }
          if (decision.kind === 'deny' || decision.kind === 'cancelled') expect(didRun).toBe(false);
          if (didRun && (tool.approval === 'ask' || effectivelyTainted)) {
            const allowedBefore =
              allowed.has(`${request.runId}/${tool.alias}`) && tool.approval === 'ask' && !effectivelyTainted;
            // Ran without a person: only possible through an earlier allow-for-run on an untainted ask call.
            if (!allowedBefore) {
              expect(personAsked).toBe(true);
              expect(['approve', 'approve-edited', 'allow-for-run']).toContain(decision.kind);
              expect(decision.source).not.toBe('policy');
            } else {
              expect(decision).toMatchObject({ kind: 'approve', reason: 'allowed for this run' });
            }
          }
          if (decision.kind === 'approve-edited') expect(ran.at(-1)?.args).toEqual({ n: 7 });
          if (decision.kind === 'allow-for-run') allowed.add(`${request.runId}/${tool.alias}`);
        }
        const totalCounted = [...counts.values()].reduce((sum, count) => sum + count, 0);
        expect(totalCounted).toBe(attempts);
        expect(totalCounted).toBe(steps.length);
      }),
      { numRuns: 2000 },
    );
  });
});
