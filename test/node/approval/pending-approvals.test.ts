import { describe, expect, it } from 'vitest';
import { ApprovalGateImpl } from '../../../main/core/approval/approval-gate.js';
import type { ApprovalRequest } from '../../../main/core/approval/approval-types.js';
import {
  type PendingApprovalEvent,
  PendingApprovals,
  QueueApprover,
} from '../../../main/core/approval/pending-approvals.js';
import { createBuiltinCatalog } from '../../../main/core/catalog/tool-catalog.js';
import { waitFor } from '../catalog/helpers.js';

function request(callId: string, runId = 'run-1'): ApprovalRequest {
  return {
    runId,
    callId,
    alias: 'read_file',
    description: 'Reads a file',
    arguments: { path: 'a.txt' },
    policy: 'ask',
    taint: [],
  };
}

describe('PendingApprovals with QueueApprover (the studio)', () => {
  it('lists pending calls and resolves them; events report pending and resolved', async () => {
    const events: PendingApprovalEvent[] = [];
    const queue = new PendingApprovals({ onEvent: (event) => events.push(event) });
    const gate = new ApprovalGateImpl({ approver: new QueueApprover(queue), catalog: createBuiltinCatalog() });
    const first = gate.decide(request('call-1'), new AbortController().signal);
    const second = gate.decide(request('call-2'), new AbortController().signal);
    await waitFor(() => (queue.list().length === 2 ? true : undefined), 'two pending calls');
    expect(
      queue.list().map((pending) => [pending.request.callId, pending.request.description, pending.request.arguments]),
    ).toEqual([
      ['call-1', 'Reads a file', { path: 'a.txt' }],
      ['call-2', 'Reads a file', { path: 'a.txt' }],
    ]);
    expect(queue.resolve('call-2', { kind: 'deny', reason: 'no reading today' })).toEqual({ ok: true });
    expect(await second).toMatchObject({ kind: 'deny', reason: 'no reading today', source: 'studio' });
    expect(queue.resolve('call-1', { kind: 'approve' })).toEqual({ ok: true });
    expect(await first).toMatchObject({ kind: 'approve', source: 'studio' });
    expect(queue.list()).toEqual([]);
    expect(events.map((event) => event.type)).toEqual([
      'approval-pending',
      'approval-pending',
      'approval-resolved',
      'approval-resolved',
    ]);
  });

  it('refuses invalid edited arguments and keeps the call pending', async () => {
    const queue = new PendingApprovals();
    const gate = new ApprovalGateImpl({ approver: new QueueApprover(queue), catalog: createBuiltinCatalog() });
    const decision = gate.decide(request('call-1'), new AbortController().signal);
    await waitFor(() => queue.list()[0], 'pending call');
    expect(queue.resolve('call-1', { kind: 'approve-edited', arguments: { file: 'b.txt' } })).toEqual({
      ok: false,
      error:
        'edited arguments for "read_file" rejected: invalid arguments: missing required field "path"; unknown field "file"',
    });
    expect(queue.list()).toHaveLength(1);
    expect(queue.resolve('call-1', { kind: 'approve-edited', arguments: { path: 'b.txt' } })).toEqual({ ok: true });
    expect(await decision).toMatchObject({
      kind: 'approve-edited',
      arguments: { path: 'b.txt' },
      proposed: { path: 'a.txt' },
    });
  });

  it('unknown and ambiguous call ids are refused', async () => {
    const queue = new PendingApprovals();
    const gate = new ApprovalGateImpl({ approver: new QueueApprover(queue) });
    expect(queue.resolve('call-1', { kind: 'approve' })).toEqual({
      ok: false,
      error: 'no call "call-1" is waiting for approval',
    });
    const a = gate.decide(request('call-1', 'run-a'), new AbortController().signal);
    const b = gate.decide(request('call-1', 'run-b'), new AbortController().signal);
    await waitFor(() => (queue.list().length === 2 ? true : undefined), 'two pending');
    expect(queue.resolve('call-1', { kind: 'approve' }).ok).toBe(false);
    expect(queue.resolve('call-1', { kind: 'approve' }, 'run-b')).toEqual({ ok: true });
    expect(queue.resolve('call-1', { kind: 'allow-for-run' }, 'run-a')).toEqual({ ok: true });
    expect((await a).kind).toBe('allow-for-run');
    expect((await b).kind).toBe('approve');
  });

  it('stopping the run removes the call from the queue and resolves cancelled', async () => {
    const events: PendingApprovalEvent[] = [];
    const queue = new PendingApprovals({ onEvent: (event) => events.push(event) });
    const gate = new ApprovalGateImpl({ approver: new QueueApprover(queue) });
    const controller = new AbortController();
    const decision = gate.decide(request('call-1'), controller.signal);
    await waitFor(() => queue.list()[0], 'pending call');
    controller.abort();
    expect((await decision).kind).toBe('cancelled');
    expect(queue.list()).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'approval-resolved', decision: { kind: 'cancelled' } });
    expect(queue.resolve('call-1', { kind: 'approve' }).ok).toBe(false);
  });
});
