import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../common/json.js';
import { ApprovalGateImpl, type GateEvent } from '../../../main/core/approval/approval-gate.js';
import { approvedArguments } from '../../../main/core/approval/decision-scope.js';
import type { TaintSpan } from '../../../common/run-events.js';
import type { ApprovalRequest } from '../../../main/core/approval/approval-types.js';
import type { Approver, PendingCall, PersonDecision } from '../../../main/core/approval/approver.js';
import { PolicyApprover } from '../../../main/core/approval/policy-approver.js';
import { createBuiltinCatalog } from '../../../main/core/catalog/tool-catalog.js';
import { toolDefinitionDigest } from '../../../main/core/tools/tool-definition.js';

const AT = new Date('2025-05-06T07:08:09.000Z');
const taint: TaintSpan[] = [{ path: '/text', start: 0, end: 30, sourceOutputId: 'call-1' }];

function request(overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    runId: 'run-1',
    callId: 'call-2',
    alias: 'echo',
    description: 'Echo',
    arguments: { text: 'hi' },
    policy: 'ask',
    taint: [],
    ...overrides,
  };
}

/** An approver that answers from a script and records what it was asked. */
class ScriptedApprover implements Approver {
  readonly asked: PendingCall[] = [];
  constructor(private readonly answers: PersonDecision[]) {}
  async ask(pending: PendingCall): Promise<PersonDecision> {
    this.asked.push(pending);
    const answer = this.answers.shift();
    if (!answer) throw new Error('no scripted answer left');
    return answer;
  }
}

function gate(approver: Approver, events: GateEvent[] = []) {
  return new ApprovalGateImpl({
    approver,
    catalog: createBuiltinCatalog(),
    now: () => AT,
    onEvent: (event) => events.push(event),
  });
}
const signal = () => new AbortController().signal;
/** The builtin echo's definition digest: every decision that lets an echo call run is bound to it. */
const definitionDigest = toolDefinitionDigest(createBuiltinCatalog().get('echo')!);

describe('policy decisions', () => {
  it('deny is refused by policy without asking', async () => {
    const approver = new ScriptedApprover([{ kind: 'approve' }]);
    const decision = await gate(approver).decide(request({ policy: 'deny' }), signal());
    expect(decision).toEqual({
      kind: 'deny',
      reason: 'tool "echo" has approval: deny',
      source: 'policy',
      at: AT.toISOString(),
      decidedBy: 'policy',
    });
    expect(approver.asked).toHaveLength(0);
  });

  it('auto and untainted is approved by policy without asking', async () => {
    const approver = new ScriptedApprover([]);
    const decision = await gate(approver).decide(request({ policy: 'auto' }), signal());
    expect(decision).toEqual({
      kind: 'approve',
      reason: 'approval: auto',
      source: 'policy',
      at: AT.toISOString(),
      scope: 'this call (tool "echo" has approval: auto)',
      definitionDigest,
      decidedBy: 'policy',
    });
    expect(approver.asked).toHaveLength(0);
  });

  it('auto and tainted asks the person, with reason tainted', async () => {
    const approver = new ScriptedApprover([{ kind: 'approve' }]);
    const decision = await gate(approver).decide(request({ policy: 'auto', taint }), signal());
    expect(decision).toEqual({
      kind: 'approve',
      source: 'studio',
      at: AT.toISOString(),
      scope: 'this call only (its arguments carry untrusted text)',
      definitionDigest,
      decidedBy: 'approver',
    });
    expect(approver.asked[0]?.reason).toBe('tainted');
  });

  it('auto and tainted with taintCheck off is approved by policy (from the request, or from the catalog)', async () => {
    const approver = new ScriptedApprover([]);
    expect((await gate(approver).decide(request({ policy: 'auto', taint, taintCheck: false }), signal())).kind).toBe(
      'approve',
    );
    const echo = createBuiltinCatalog().get('echo')!;
    const catalog = { get: () => ({ ...echo, taintCheck: false }), validateArguments: () => undefined };
    const fromCatalog = new ApprovalGateImpl({ approver, catalog });
    expect((await fromCatalog.decide(request({ policy: 'auto', taint }), signal())).source).toBe('policy');
    expect(approver.asked).toHaveLength(0);
  });

  it('ask asks the person, with reason policy', async () => {
    const approver = new ScriptedApprover([{ kind: 'deny', reason: 'not now' }]);
    const decision = await gate(approver).decide(request(), signal());
    expect(decision).toEqual({
      kind: 'deny',
      reason: 'not now',
      source: 'studio',
      at: AT.toISOString(),
      decidedBy: 'approver',
    });
    expect(approver.asked[0]?.reason).toBe('policy');
  });
});

describe('allow for this run', () => {
  it('approves this call, then later untainted calls of that alias in that run by policy', async () => {
    const approver = new ScriptedApprover([
      { kind: 'allow-for-run' },
      { kind: 'deny', reason: 'tainted!' },
      { kind: 'approve' },
    ]);
    const subject = gate(approver);
    // The decision says exactly what it allows, so the studio and the transcript can say it.
    expect(await subject.decide(request(), signal())).toMatchObject({
      kind: 'allow-for-run',
      taintCheck: true,
      scope:
        'this call; every later untainted call of tool "echo" in this run runs without asking, while the tool\'s definition stays as it is now; calls whose arguments carry untrusted text still ask',
    });
    expect(await subject.decide(request({ callId: 'call-3' }), signal())).toEqual({
      kind: 'approve',
      reason: 'allowed for this run',
      source: 'policy',
      at: AT.toISOString(),
      scope: 'this untainted call of tool "echo", under an earlier "allow for this run"; tainted calls still ask',
      decidedBy: 'allowed-for-run',
      definitionDigest,
    });
    // A tainted call still asks.
    expect((await subject.decide(request({ callId: 'call-4', taint }), signal())).kind).toBe('deny');
    // Another alias, or another run, asks.
    expect((await subject.decide(request({ alias: 'now', callId: 'call-5' }), signal())).kind).toBe('approve');
    expect(approver.asked.map((pending) => pending.request.callId)).toEqual(['call-2', 'call-4', 'call-5']);
    expect(subject.isAllowedForRun('run-2', 'echo')).toBe(false);
    subject.forgetRun('run-1');
    expect(subject.isAllowedForRun('run-1', 'echo')).toBe(false);
  });
});

describe('approve with edits', () => {
  it('valid edits run and the decision keeps both versions', async () => {
    const events: GateEvent[] = [];
    const approver = new ScriptedApprover([{ kind: 'approve-edited', arguments: { text: 'edited' } }]);
    const req = request();
    const decision = await gate(approver, events).decide(req, signal());
    expect(decision).toEqual({
      kind: 'approve-edited',
      arguments: { text: 'edited' },
      proposed: { text: 'hi' },
      source: 'studio',
      at: AT.toISOString(),
      scope: 'this call only, with the edited arguments',
      definitionDigest,
      decidedBy: 'approver',
    });
    expect(approvedArguments(req, decision)).toEqual({ text: 'edited' });
    const resolved = events.find((event) => event.type === 'approval-resolved');
    expect(resolved).toMatchObject({
      proposed: { text: 'hi' },
      asked: true,
      decision: { arguments: { text: 'edited' } },
    });
  });

  it('invalid edits are rejected back to the person; after three the call is denied, never run', async () => {
    const events: GateEvent[] = [];
    const bad: PersonDecision = { kind: 'approve-edited', arguments: { text: 42 } as unknown as JsonObject };
    const approver = new ScriptedApprover([bad, { kind: 'approve-edited', arguments: { text: 'fixed' } }]);
    const decision = await gate(approver, events).decide(request(), signal());
    expect(decision.kind).toBe('approve-edited');
    expect(approver.asked[1]?.rejectedEdit).toBe('invalid arguments: field "text" must be a string');
    expect(events.filter((event) => event.type === 'approval-edit-rejected')).toHaveLength(1);

    const stubborn = new ScriptedApprover([bad, bad, bad]);
    const denied = await gate(stubborn).decide(request(), signal());
    expect(denied).toMatchObject({
      kind: 'deny',
      reason: 'edited arguments were rejected: invalid arguments: field "text" must be a string',
    });
    expect(approvedArguments(request(), denied)).toBeUndefined();
  });

  it('pending.validateEdit checks against the tool schema', async () => {
    const approver = new ScriptedApprover([{ kind: 'approve' }]);
    await gate(approver).decide(request({ alias: 'read_file', arguments: { path: 'a' } }), signal());
    const pending = approver.asked[0] as PendingCall;
    expect(pending.validateEdit({ path: 'b' })).toBeUndefined();
    expect(pending.validateEdit({})).toBe('invalid arguments: missing required field "path"');
    expect(pending.validateEdit([] as unknown as JsonObject)).toBe('edited arguments must be a JSON object');
  });
});

describe('cancellation and failures', () => {
  it('an already aborted signal is cancelled, never asked', async () => {
    const controller = new AbortController();
    controller.abort(new Error('run stopped by the person'));
    const approver = new ScriptedApprover([{ kind: 'approve' }]);
    expect(await gate(approver).decide(request({ policy: 'auto' }), controller.signal)).toEqual({
      kind: 'cancelled',
      reason: 'run stopped by the person',
      source: 'policy',
      at: AT.toISOString(),
      decidedBy: 'cancelled',
    });
    expect(approver.asked).toHaveLength(0);
  });

  it('aborting while the person decides resolves cancelled', async () => {
    const controller = new AbortController();
    const never: Approver = { ask: () => new Promise(() => undefined) };
    const pending = gate(never).decide(request(), controller.signal);
    controller.abort();
    expect((await pending).kind).toBe('cancelled');
  });

  it('an approver that fails counts as a denial', async () => {
    const broken: Approver = {
      source: 'cli-prompt',
      ask: async () => Promise.reject(new Error('the terminal input closed')),
    };
    expect(await gate(broken).decide(request(), signal())).toMatchObject({
      kind: 'deny',
      reason: 'no decision could be obtained: the terminal input closed',
      source: 'cli-prompt',
    });
  });
});

describe('PolicyApprover', () => {
  it('--approve auto approves ask calls by policy', async () => {
    expect(await gate(new PolicyApprover('auto')).decide(request(), signal())).toEqual({
      kind: 'approve',
      reason:
        "approved without asking anyone: the run was started with the terminal's --approve auto, whatever the tool's policy",
      source: 'policy',
      at: AT.toISOString(),
      scope: 'this call only',
      definitionDigest,
      decidedBy: 'approver',
    });
  });

  it('--approve deny denies them with reason "denied by --approve deny"', async () => {
    expect(await gate(new PolicyApprover('deny')).decide(request(), signal())).toEqual({
      kind: 'deny',
      reason: 'denied by --approve deny',
      source: 'policy',
      at: AT.toISOString(),
      decidedBy: 'approver',
    });
  });
});

describe('events', () => {
  it('reports pending when asking and resolved for every decision, with the proposed arguments', async () => {
    const events: GateEvent[] = [];
    const subject = gate(new ScriptedApprover([{ kind: 'approve' }]), events);
    await subject.decide(request({ policy: 'auto' }), signal());
    await subject.decide(request({ callId: 'call-9' }), signal());
    expect(events.map((event) => event.type)).toEqual(['approval-resolved', 'approval-pending', 'approval-resolved']);
    expect(events[0]).toMatchObject({ asked: false, proposed: { text: 'hi' } });
    expect(events[2]).toMatchObject({ asked: true, request: { callId: 'call-9' } });
  });
});
