import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PendingElicitation, PendingSampling } from '../../../common/mcp-person.js';
import type { RunEvent } from '../../../common/run-events.js';
import { MAX_SAMPLING_TOKENS } from '../../../main/core/mcp/mcp-session.js';
import { startScriptedServer, type ScriptedServer } from '../../fixtures/scripted-openai-server.js';
import { contractStudio, type ContractStudio } from './contract-studio.js';

/**
 * The studio's side of an MCP server's questions, through the contract as the renderer reaches it:
 * a hostile server (test/node/mcp/fixtures/asking-server.mjs) asks during a run's call, the
 * question is pushed and listed, the person's answer (here, the test's) goes back through
 * `mcp:answer` / `mcp:decide-sampling`, and the transcript records it. A sampling round is
 * answered by a scripted OpenAI-compatible model on loopback.
 */
const ASKING = path.resolve(import.meta.dirname, '../mcp/fixtures/asking-server.mjs');

let root: string;
let model: ScriptedServer;
beforeAll(async () => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'pf-studio-questions-')));
  mkdirSync(path.join(root, 'agents'));
  model = await startScriptedServer(() => ({ content: 'The sky is blue.' }));
  writeFileSync(
    path.join(root, 'tools.yaml'),
    `ask:\n  kind: mcp\n  command: ${JSON.stringify(process.execPath)}\n  args: [${JSON.stringify(ASKING)}]\n  approval: auto\n  timeoutMs: 60000\n`,
  );
  writeFileSync(
    path.join(root, 'models.yaml'),
    `m:\n  provider: openai-compatible\n  model: scripted\n  baseUrl: ${model.url}\n`,
  );
  writeFileSync(path.join(root, 'promptforge.yaml'), 'defaultModel: m\n');
});
afterAll(async () => {
  await model.close();
  rmSync(root, { recursive: true, force: true });
});

/** A studio with the asking server's workspace open and trusted (the person said yes in main's dialog). */
async function trustedStudio(): Promise<ContractStudio> {
  const studio = contractStudio();
  await studio.openFolder(root);
  const { digest } = await studio.call('trust:status', {});
  expect(await studio.call('trust:grant', { digest })).toMatchObject({ granted: true });
  return studio;
}

/** Starts agent `name` with `script`; returns its run id. */
async function start(studio: ContractStudio, script: string, name: string): Promise<string> {
  writeFileSync(path.join(root, 'agents', `${name}.lua`), script);
  return (await studio.call('run:start', { script: `agents/${name}.lua` })).runId;
}

function logs(events: RunEvent[]): string[] {
  return events.flatMap((event) => (event.type === 'log' ? [event.text] : []));
}

describe('an MCP server’s elicitation in the studio', () => {
  it('pushes the form naming the server and the call, checks answers at their fields, and sends the person’s answer', async () => {
    const studio = await trustedStudio();
    const runId = await start(studio, `print(tools.call('ask.elicit', { variant = 'form' }))`, 'form');
    const pending: PendingElicitation = await studio.next('elicitation-pending', (p) => p.runId === runId);
    expect(pending).toMatchObject({ runId, server: 'ask', alias: 'ask.elicit', mode: 'form' });
    expect(pending.callId).toMatch(/^call-\d+$/);
    expect(pending.message).toContain('Who are you?');
    expect(await studio.call('mcp:questions', {})).toEqual({ elicitations: [pending], samplings: [] });

    // The core's verdict, each problem at its field, while the person fills it in.
    expect(await studio.call('mcp:check-answer', { id: pending.id, content: {} })).toEqual({
      valid: false,
      problems: [{ pointer: '/age', message: 'field "age" is required', fix: '' }],
    });
    expect(await studio.call('mcp:check-answer', { id: pending.id, content: { age: 200, color: 'blue' } })).toEqual({
      valid: false,
      problems: [
        { pointer: '/age', message: 'field "age" must be at most 150', fix: '' },
        { pointer: '/color', message: 'field "color" must be one of the offered options', fix: '' },
      ],
    });
    expect(
      (await studio.call('mcp:check-answer', { id: pending.id, content: { age: 3, extra: 'x' } })).problems,
    ).toEqual([
      { pointer: '', message: '"extra" is not a field of this form', fix: 'Answer only the fields of the form.' },
    ]);

    // A wrong answer is refused and the question stays.
    const wrong = await studio.fail('mcp:answer', {
      id: pending.id,
      answer: { action: 'accept', content: { age: -1 } },
    });
    expect(wrong).toEqual({ code: 'invalid-answer', message: 'field "age" must be at least 0; the question waits' });
    expect((await studio.call('mcp:questions', {})).elicitations).toHaveLength(1);

    const resolved = studio.next('elicitation-resolved', (p) => p.id === pending.id);
    expect(
      await studio.call('mcp:answer', { id: pending.id, answer: { action: 'accept', content: { age: 36 } } }),
    ).toEqual({ ok: true });
    expect(await resolved).toEqual({ id: pending.id, runId });
    expect((await studio.ended(runId)).status).toBe('ok');
    expect(logs(studio.runEvents(runId))[0]).toContain(
      '"content":{"name":"Ada","age":36,"agree":false,"color":"green"}',
    );
    expect(studio.runEvents(runId).find((event) => event.type === 'mcp-elicitation')).toMatchObject({
      action: 'accept',
      source: 'studio',
      content: { name: 'Ada', age: 36, agree: false, color: 'green' },
    });
    // Answered once: a second answer finds nothing waiting.
    expect(await studio.fail('mcp:answer', { id: pending.id, answer: { action: 'decline' } })).toMatchObject({
      code: 'not-found',
    });
    expect(await studio.call('mcp:questions', {})).toEqual({ elicitations: [], samplings: [] });
  });

  it('declines and cancels as the person says, recorded as theirs', async () => {
    const studio = await trustedStudio();
    for (const action of ['decline', 'cancel'] as const) {
      const runId = await start(studio, `print(tools.call('ask.elicit', { variant = 'form' }))`, `answer-${action}`);
      const pending = await studio.next('elicitation-pending', (p) => p.runId === runId);
      await studio.call('mcp:answer', { id: pending.id, answer: { action } });
      await studio.ended(runId);
      expect(logs(studio.runEvents(runId))[0]).toContain(`"action":"${action}"`);
      expect(studio.runEvents(runId).find((event) => event.type === 'mcp-elicitation')).toMatchObject({
        action,
        source: 'studio',
      });
    }
  });

  it('opens an https URL through main only when the person accepts; javascript:, file: and data: never reach anyone', async () => {
    const studio = await trustedStudio();
    const variants = ['url-js', 'url-file', 'url-data', 'url-http-remote', 'url-https'];
    const script = variants.map((variant) => `print(tools.call('ask.elicit', { variant = '${variant}' }))`).join('\n');
    const runId = await start(studio, script, 'urls');
    const pending = await studio.next('elicitation-pending', (p) => p.runId === runId);
    expect(pending).toMatchObject({ mode: 'url', url: 'https://example.com/consent?x=1', urlHost: 'example.com' });
    expect(studio.browser.opened).toEqual([]);
    // A URL question takes no values.
    expect(
      await studio.fail('mcp:answer', { id: pending.id, answer: { action: 'accept', content: { x: 'y' } } }),
    ).toMatchObject({ code: 'invalid-answer' });
    expect(studio.browser.opened).toEqual([]);
    // A browser that fails leaves the question waiting.
    studio.browser.visit = async () => {
      throw new Error('no browser here');
    };
    expect(await studio.fail('mcp:answer', { id: pending.id, answer: { action: 'accept' } })).toEqual({
      code: 'open-failed',
      message: 'the URL was not opened (no browser here); the question waits',
    });
    studio.browser.visit = async () => undefined;
    await studio.call('mcp:answer', { id: pending.id, answer: { action: 'accept' } });
    await studio.ended(runId);
    expect(studio.browser.opened).toEqual(['https://example.com/consent?x=1', 'https://example.com/consent?x=1']);
    expect(studio.pushed.filter((entry) => entry.name === 'elicitation-pending')).toHaveLength(1);
    expect(
      studio.runEvents(runId).flatMap((event) => (event.type === 'mcp-elicitation' ? [event.action] : [])),
    ).toEqual(['refused', 'refused', 'refused', 'refused', 'accept']);
  });

  it('withdraws a question when its run stops, and every question when trust is revoked', async () => {
    const studio = await trustedStudio();
    const stopped = await start(studio, `print(tools.call('ask.elicit', { variant = 'form' }))`, 'stopped');
    const first = await studio.next('elicitation-pending', (p) => p.runId === stopped);
    await studio.call('run:stop', { runId: stopped });
    await studio.next('elicitation-resolved', (p) => p.id === first.id);
    expect((await studio.call('mcp:questions', {})).elicitations).toEqual([]);
    const revoked = await start(studio, `print(tools.call('ask.elicit', { variant = 'form' }))`, 'revoked');
    const second = await studio.next('elicitation-pending', (p) => p.runId === revoked);
    await studio.call('trust:revoke', { path: root });
    await studio.next('elicitation-resolved', (p) => p.id === second.id);
    expect(await studio.call('mcp:questions', {})).toEqual({ elicitations: [], samplings: [] });
    await studio.ended(revoked);
  });
});

describe('an MCP server’s sampling request in the studio', () => {
  it('is approved, approved edited or denied by the person, each recorded in the transcript', async () => {
    const studio = await trustedStudio();
    const script = `print(tools.call('ask.sample', {}))`;
    const decide = async (name: string, decision: (pending: PendingSampling) => Promise<void>) => {
      const runId = await start(studio, script, name);
      const pending = await studio.next('sampling-pending', (p) => p.runId === runId);
      expect(pending).toMatchObject({
        server: 'ask',
        alias: 'ask.sample',
        messages: [{ role: 'user', text: 'Summarise: the sky is blue.' }],
        systemPrompt: 'You are a summariser.',
        model: { alias: 'm', provider: 'openai-compatible', modelId: 'scripted' },
        maxTokens: 100,
      });
      expect((await studio.call('mcp:questions', {})).samplings).toEqual([pending]);
      await decision(pending);
      await studio.ended(runId);
      return studio.runEvents(runId);
    };

    const approved = await decide('approve', async (pending) => {
      await studio.call('mcp:decide-sampling', { id: pending.id, decision: { kind: 'approve' } });
    });
    expect(approved.find((event) => event.type === 'mcp-sampling')).toMatchObject({
      decision: 'approve',
      source: 'studio',
      content: 'The sky is blue.',
    });
    expect(logs(approved)[0]).toContain('The sky is blue.');

    const edited = await decide('edit', async (pending) => {
      // Past the host's limit, or empty: refused, and the request waits.
      for (const decision of [
        { kind: 'approve-edited' as const, maxTokens: MAX_SAMPLING_TOKENS + 1 },
        { kind: 'approve-edited' as const, messages: [{ role: 'user' as const, text: '   ' }] },
        { kind: 'deny' as const, reason: '  ' },
      ])
        expect(await studio.fail('mcp:decide-sampling', { id: pending.id, decision })).toMatchObject({
          code: 'invalid-answer',
        });
      await studio.call('mcp:decide-sampling', {
        id: pending.id,
        decision: { kind: 'approve-edited', messages: [{ role: 'user', text: 'Say hi.' }], maxTokens: 20 },
      });
    });
    expect(edited.find((event) => event.type === 'mcp-sampling')).toMatchObject({
      decision: 'approve-edited',
      messages: [{ role: 'user', text: 'Say hi.' }],
      maxTokens: 20,
      source: 'studio',
    });
    // The person's words went as they are, with the limit they set.
    const sent = model.requests.at(-1) as {
      messages: { content: string }[];
      max_tokens?: number;
      max_completion_tokens?: number;
    };
    expect(sent.messages.at(-1)?.content).toBe('Say hi.');
    expect(sent.max_tokens ?? sent.max_completion_tokens).toBe(20);

    const denied = await decide('deny', async (pending) => {
      await studio.call('mcp:decide-sampling', { id: pending.id, decision: { kind: 'deny', reason: 'not now' } });
    });
    expect(denied.find((event) => event.type === 'mcp-sampling')).toMatchObject({
      decision: 'deny',
      reason: 'not now',
      source: 'studio',
    });
    expect(logs(denied)[0]).toMatch(/the person declined the sampling request: not now/);
  });
});
