import { mkdtempSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNSAFE_FOR_TERMINAL } from '../cli/spawn-cli.js';
import type {
  ElicitationAnswer,
  PendingElicitation,
  PendingSampling,
  SamplingDecision,
} from '../../../common/mcp-person.js';
import type { RunEvent } from '../../../common/run-events.js';
import type { Approver } from '../../../main/core/approval/approver.js';
import { loadWorkspace } from '../../../main/core/catalog/workspace.js';
import { MAX_QUESTIONS_PER_SERVER } from '../../../main/core/mcp/mcp-client-handlers.js';
import { MAX_SAMPLING_TOKENS } from '../../../common/mcp-person.js';
import {
  PendingElicitations,
  PendingSamplings,
  QueueElicitor,
  QueueSamplingApprover,
} from '../../../main/core/mcp/pending-questions.js';
import { prepareRun } from '../../../main/core/run/prepare-run.js';
import { WorkerPool } from '../../../main/core/run/worker-pool.js';
import { startScriptedServer, type ScriptedServer } from '../../fixtures/scripted-openai-server.js';

/**
 * Whole runs against a hostile server that asks things of the host (fixtures/asking-server.mjs):
 * its questions reach the person through the studio's real queues (the test answers them, as the
 * person would), its sampling requests the run's model (a scripted OpenAI-compatible server on
 * loopback), and its resources and prompts the script through mcp.read_resource / mcp.get_prompt.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const ASKING = path.join(here, 'fixtures/asking-server.mjs');

let pool: WorkerPool;
let root: string;
let model: ScriptedServer;
beforeAll(async () => {
  pool = new WorkerPool({ size: 2 });
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'pf-mcp-person-')));
  mkdirSync(path.join(root, 'agents'));
  model = await startScriptedServer(() => ({ content: 'The sky is blue.' }));
  writeFileSync(
    path.join(root, 'tools.yaml'),
    `ask:\n  kind: mcp\n  command: ${JSON.stringify(process.execPath)}\n  args: [${JSON.stringify(ASKING)}]\n  approval: auto\n  timeoutMs: 60000\n`,
  );
  writeFileSync(
    path.join(root, 'models.yaml'),
    `m:\n  provider: openai-compatible\n  model: scripted\n  baseUrl: ${model.url}\n  price: { inputPerMillion: 1000000, outputPerMillion: 2000000 }\n`,
  );
  writeFileSync(path.join(root, 'promptforge.yaml'), 'defaultModel: m\n');
});
afterAll(async () => {
  await pool.close();
  await model.close();
  rmSync(root, { recursive: true, force: true });
});

const approveAll: Approver = { ask: async () => ({ kind: 'approve' }) };

interface Person {
  elicitations?: PendingElicitations;
  samplings?: PendingSamplings;
}

async function run(script: string, person: Person = {}, replayPath?: string, name = 'a') {
  const file = path.join(root, 'agents', `${name}.lua`);
  writeFileSync(file, script);
  const workspace = await loadWorkspace(root);
  const events: RunEvent[] = [];
  const prepared = await prepareRun({
    scriptFile: file,
    workspace,
    pool,
    approver: approveAll,
    ...(person.elicitations && { elicitor: new QueueElicitor(person.elicitations) }),
    ...(person.samplings && { sampler: new QueueSamplingApprover(person.samplings) }),
    // The subject is the server's questions, not workspace trust: the workspace is trusted.
    trust: { state: 'trusted' },
    ...(replayPath && { replayPath }),
    onEvent: (event) => events.push(event),
  });
  await prepared.start();
  const result = await prepared.done;
  const logs = events.flatMap((event) => (event.type === 'log' ? [event.text] : []));
  const of = <T extends RunEvent['type']>(type: T) =>
    events.filter((event): event is Extract<RunEvent, { type: T }> => event.type === type);
  return { result, events, logs, of };
}

/** Answers each elicitation as it arrives, as the person at the studio would. */
function answerElicitations(queue: PendingElicitations, answer: (pending: PendingElicitation) => ElicitationAnswer[]) {
  const seen: PendingElicitation[] = [];
  const refusals: string[] = [];
  queue.subscribe((event) => {
    if (event.type !== 'pending') return;
    seen.push(event.pending);
    for (const attempt of answer(event.pending)) {
      const result = queue.resolve(event.pending.id, attempt);
      if (result.ok) return;
      refusals.push(result.error);
    }
  });
  return { seen, refusals };
}

function answerSamplings(queue: PendingSamplings, decide: (pending: PendingSampling) => SamplingDecision) {
  const seen: PendingSampling[] = [];
  queue.subscribe((event) => {
    if (event.type !== 'pending') return;
    seen.push(event.pending);
    expect(queue.resolve(event.pending.id, decide(event.pending))).toEqual({ ok: true });
  });
  return seen;
}

describe('elicitation through the person', () => {
  it('a form reaches the person with the server and the call named, a wrong answer is refused, the right one goes with its defaults', async () => {
    const elicitations = new PendingElicitations();
    const { seen, refusals } = answerElicitations(elicitations, (): ElicitationAnswer[] => [
      { action: 'accept', content: { age: -5 } },
      { action: 'accept', content: { age: 36, color: 'purple' } },
      { action: 'accept', content: { age: 36 } },
    ]);
    const { result, logs, of } = await run(`print(tools.call('ask.elicit', { variant = 'form' }))`, { elicitations });
    expect(result.error).toBeUndefined();
    expect(seen).toHaveLength(1);
    const pending = seen[0]!;
    expect(pending).toMatchObject({ server: 'ask', alias: 'ask.elicit', mode: 'form' });
    expect(pending.callId).toMatch(/^call-\d+$/);
    // The server's words, without its terminal controls; marked untrusted where it is shown.
    expect(pending.message).toContain('Who are you?');
    expect(pending.message).not.toMatch(UNSAFE_FOR_TERMINAL);
    expect(pending.fields?.map((field) => [field.name, field.kind, field.required])).toEqual([
      ['name', 'string', false],
      ['age', 'number', true],
      ['agree', 'boolean', false],
      ['color', 'choice', false],
    ]);
    expect(refusals).toEqual(['field "age" must be at least 0', 'field "color" must be one of the offered options']);
    // The server got the person's value and each default.
    expect(logs[0]).toContain('"action":"accept"');
    expect(logs[0]).toContain('"content":{"name":"Ada","age":36,"agree":false,"color":"green"}');
    const recorded = of('mcp-elicitation');
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({
      server: 'ask',
      callId: pending.callId,
      alias: 'ask.elicit',
      action: 'accept',
      source: 'studio',
      content: { name: 'Ada', age: 36, agree: false, color: 'green' },
      fields: ['name', 'age', 'agree', 'color'],
    });
  });

  it('nobody to ask: declined, and the transcript says why', async () => {
    const { result, logs, of } = await run(`print(tools.call('ask.elicit', { variant = 'form' }))`);
    expect(result.error).toBeUndefined();
    expect(logs[0]).toContain('"action":"decline"');
    expect(of('mcp-elicitation')[0]).toMatchObject({ action: 'decline', source: 'policy' });
    expect(of('mcp-elicitation')[0]?.reason).toMatch(/nobody is there to answer/);
  });

  it('a URL goes to the person only when it is https (or http on this machine): javascript:, file:, data: and remote http are refused', async () => {
    const elicitations = new PendingElicitations();
    const { seen } = answerElicitations(elicitations, () => [{ action: 'decline' }]);
    const variants = ['url-js', 'url-file', 'url-data', 'url-http-remote', 'url-https'];
    const script = variants.map((variant) => `print(tools.call('ask.elicit', { variant = '${variant}' }))`).join('\n');
    const { result, logs, of } = await run(script, { elicitations });
    expect(result.error).toBeUndefined();
    for (const line of logs.slice(0, 4)) expect(line).toMatch(/the host refused the elicitation: the URL/);
    expect(logs[0]).toMatch(/scheme \\"javascript:\\" is not https/);
    expect(logs[1]).toMatch(/scheme \\"file:\\" is not https/);
    expect(logs[2]).toMatch(/scheme \\"data:\\" is not https/);
    expect(logs[3]).toMatch(/plain http to another machine/);
    expect(logs[4]).toContain('"action":"decline"');
    // Only the https URL reached the person, with its host shown; it is never opened by the host.
    expect(seen.map((pending) => [pending.mode, pending.url, pending.urlHost])).toEqual([
      ['url', 'https://example.com/consent?x=1', 'example.com'],
    ]);
    expect(of('mcp-elicitation').map((event) => event.action)).toEqual([
      'refused',
      'refused',
      'refused',
      'refused',
      'decline',
    ]);
  });

  it('forms too deep, too wide or with too many options are refused before anyone is asked', async () => {
    const elicitations = new PendingElicitations();
    const { seen } = answerElicitations(elicitations, () => [{ action: 'decline' }]);
    const script = ['deep', 'wide', 'many-options']
      .map((variant) => `print(tools.call('ask.elicit', { variant = '${variant}' }))`)
      .join('\n');
    const { result, logs } = await run(script, { elicitations });
    expect(result.error).toBeUndefined();
    expect(seen).toEqual([]);
    expect(logs[0]).toMatch(/"error"/);
    expect(logs[1]).toMatch(/the form has 100 fields, more than the 32 accepted/);
    expect(logs[2]).toMatch(/offers 5000 options \(1 to 200 accepted\)/);
  });

  it(`a thousand questions at once: never more than ${MAX_QUESTIONS_PER_SERVER} wait for the person, the rest are declined at once`, async () => {
    const elicitations = new PendingElicitations();
    const held: PendingElicitation[] = [];
    let seen = 0;
    let mostWaiting = 0;
    elicitations.subscribe((event) => {
      if (event.type !== 'pending') return;
      seen += 1;
      mostWaiting = Math.max(mostWaiting, elicitations.list().length);
      // The person answers once the first questions fill the queue, then each as it comes.
      held.push(event.pending);
      if (held.length < MAX_QUESTIONS_PER_SERVER && seen <= MAX_QUESTIONS_PER_SERVER) return;
      for (const pending of held.splice(0)) elicitations.resolve(pending.id, { action: 'accept', content: { age: 1 } });
    });
    const { result, logs, of } = await run(`print(tools.call('ask.flood', { count = 1000 }))`, { elicitations });
    expect(result.error).toBeUndefined();
    const counts = JSON.parse(/\{"[^}]*\}/.exec(logs[0]!)![0]) as { accept?: number; decline?: number };
    expect(mostWaiting).toBeLessThanOrEqual(MAX_QUESTIONS_PER_SERVER);
    expect(counts.accept).toBe(seen);
    expect(counts.decline).toBe(1000 - seen);
    expect(counts.decline).toBeGreaterThan(0);
    expect(of('mcp-elicitation').filter((event) => event.action === 'refused')).toHaveLength(1000 - seen);
  });
});

describe('sampling under approval', () => {
  it("approved: the run's model answers, counted and priced like a model round; the server's words go inside the envelope", async () => {
    const samplings = new PendingSamplings();
    const seen = answerSamplings(samplings, () => ({ kind: 'approve' }));
    const before = model.requests.length;
    const { result, logs, of, events } = await run(`print(tools.call('ask.sample', { variant = 'tags' }))`, {
      samplings,
    });
    expect(result.error).toBeUndefined();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      server: 'ask',
      alias: 'ask.sample',
      model: { alias: 'm', provider: 'openai-compatible', modelId: 'scripted' },
      maxTokens: 100,
    });
    expect(logs[0]).toContain('The sky is blue.');
    // What the model got: every server text inside one envelope, its tags only text.
    const sent = model.requests.slice(before) as {
      messages: { role: string; content: string }[];
      max_tokens?: number;
    }[];
    expect(sent).toHaveLength(1);
    const body = JSON.stringify(sent[0]!.messages);
    expect(body).not.toContain('</untrusted_input_0123>');
    expect(body).toContain('&lt;/untrusted_input_0123>');
    for (const message of sent[0]!.messages.slice(1)) {
      expect(message.content.match(/<untrusted_input_[0-9a-f]{32}>/g)).toHaveLength(1);
      expect(message.content.match(/<\/untrusted_input_[0-9a-f]{32}>/g)).toHaveLength(1);
    }
    const round = of('mcp-sampling')[0]!;
    expect(round).toMatchObject({ decision: 'approve', source: 'studio', content: 'The sky is blue.', maxTokens: 100 });
    expect(round.usage!.inputTokens).toBeGreaterThan(0);
    expect(round.cost).toBeGreaterThan(0);
    // The run's totals include the sampling round.
    const end = events.at(-1) as Extract<RunEvent, { type: 'run-end' }>;
    expect(end.usage).toEqual(round.usage);
    expect(end.cost).toBeCloseTo(round.cost!, 6);
  });

  it('an enormous maxTokens is clamped and the person is told; an edit is the person’s words and limit', async () => {
    const samplings = new PendingSamplings();
    const seen = answerSamplings(samplings, () => ({
      kind: 'approve-edited',
      messages: [{ role: 'user', text: 'Say hello.' }],
      maxTokens: 50,
    }));
    const before = model.requests.length;
    const { result, of } = await run(`print(tools.call('ask.sample', { variant = 'huge' }))`, { samplings });
    expect(result.error).toBeUndefined();
    expect(seen[0]).toMatchObject({ maxTokens: MAX_SAMPLING_TOKENS, requestedMaxTokens: 1_000_000_000 });
    const sent = model.requests.slice(before) as {
      messages: { role: string; content: string }[];
      max_tokens?: number;
    }[];
    expect(sent[0]!.max_tokens).toBe(50);
    // The person's edit is sent as it is (no envelope: it is the person's text).
    expect(sent[0]!.messages.at(-1)).toEqual({ role: 'user', content: 'Say hello.' });
    expect(of('mcp-sampling')[0]).toMatchObject({
      decision: 'approve-edited',
      maxTokens: 50,
      requestedMaxTokens: 1_000_000_000,
    });
  });

  it('denied: the server gets the reason; asking for tools or smuggling a tool call is refused before anyone is asked', async () => {
    const samplings = new PendingSamplings();
    const seen = answerSamplings(samplings, () => ({ kind: 'deny', reason: 'not now' }));
    const before = model.requests.length;
    const script = ['ok', 'tools', 'tool-use']
      .map((variant) => `print(tools.call('ask.sample', { variant = '${variant}' }))`)
      .join('\n');
    const { result, logs, of } = await run(script, { samplings });
    expect(result.error).toBeUndefined();
    expect(seen).toHaveLength(1);
    expect(logs[0]).toMatch(/the person declined the sampling request: not now/);
    expect(logs[1]).toMatch(/asks for tools, and the host never lets a server run tools through sampling/);
    expect(logs[2]).toMatch(/carries tool calls or tool results/);
    expect(model.requests.length).toBe(before);
    expect(of('mcp-sampling').map((event) => event.decision)).toEqual(['deny', 'refused', 'refused']);
  });

  it('without a person (no terminal, --approve deny) sampling is declined and no model is called', async () => {
    const before = model.requests.length;
    const { logs, of } = await run(`print(tools.call('ask.sample', { variant = 'ok' }))`);
    expect(logs[0]).toMatch(/declined the sampling request: nobody is there to approve it/);
    expect(model.requests.length).toBe(before);
    expect(of('mcp-sampling')[0]).toMatchObject({ decision: 'declined', source: 'policy' });
  });
});

describe('roots', () => {
  it("roots/list answers the workspace's root and nothing above it", async () => {
    const { logs } = await run(`print(tools.call('ask.roots', {}))`);
    const roots = JSON.parse(logs[0]!.slice(logs[0]!.indexOf('{"roots"'), logs[0]!.lastIndexOf('}') + 1)) as {
      roots: { uri: string; name: string }[];
    };
    expect(roots.roots).toEqual([{ uri: pathToFileURL(root).href, name: 'workspace' }]);
  });
});

describe('resources and prompts from Lua', () => {
  it('text is wrapped and tainting, binary is described, file: outside the workspace is refused, a prompt keeps its roles; a replay answers them from the recording', async () => {
    const script = [
      `local text = mcp.read_resource('ask', 'text://hello')`,
      `print(text)`,
      `print(mcp.read_resource('ask', 'bin://blob'))`,
      `print(pcall(mcp.read_resource, 'ask', 'file:///etc/passwd'))`,
      `print(pcall(mcp.read_resource, 'nope', 'text://hello'))`,
      `local p = mcp.get_prompt('ask', 'greet', { name = 'Bob' })`,
      `print(p.messages[1].role, p.messages[2].role, p.messages[1].content)`,
      `print(pcall(mcp.get_prompt, 'ask', 'greet', { name = { 'not', 'a', 'string' } }))`,
      `print(pcall(function() mcp.read_resource = nil end))`,
    ].join('\n');
    const live = await run(script);
    expect(live.result.error).toBeUndefined();
    const [text, binary, passwd, unknown, prompt, badArgs, readOnly] = live.logs;
    expect(text).toMatch(/^<untrusted_input_[0-9a-f]{32}>\n/);
    expect(text).toContain('hello from the server.');
    expect(text).toContain('&lt;/untrusted_input_0123>');
    expect(binary).toMatch(/\[binary resource: bin:\/\/blob, application\/octet-stream, 7 bytes\]/);
    expect(passwd).toMatch(/^false\t.*file:\/\/\/etc\/passwd is outside the workspace/);
    expect(unknown).toMatch(/^false\t.*"nope" is not an MCP server of this workspace \(ask\)/);
    expect(prompt).toMatch(/^user\tassistant\t<untrusted_input_[0-9a-f]{32}>\n/);
    expect(prompt).toContain('Hello Bob.');
    expect(badArgs).toMatch(/^false\t.*argument "name" must be a string/);
    expect(readOnly).toMatch(/^false\t.*mcp is read-only/);
    expect(live.of('mcp-read').map((event) => [event.kind, event.target])).toEqual([
      ['resource', 'text://hello'],
      ['resource', 'bin://blob'],
      ['prompt', 'greet'],
    ]);
    expect(live.of('mcp-read-output').every((event) => event.trust === 'untrusted')).toBe(true);

    // Replay: no server is started (its command is gone), and the same values come back.
    writeFileSync(path.join(root, 'tools.yaml.bak'), '');
    const yaml = path.join(root, 'tools.yaml');
    const saved = (await import('node:fs')).readFileSync(yaml, 'utf8');
    writeFileSync(yaml, 'ask:\n  kind: mcp\n  command: no-such-mcp-binary-anywhere\n');
    try {
      const replayed = await run(script, {}, live.result.transcriptPath);
      expect(replayed.result.error).toBeUndefined();
      const blank = (lines: string[]) => lines.map((line) => line.replace(/untrusted_input_[0-9a-f]{32}/g, 'N'));
      expect(blank(replayed.logs)).toEqual(blank(live.logs));
    } finally {
      writeFileSync(yaml, saved);
    }
  });

  it('a script that reads something else than the recording diverges, naming the read', async () => {
    const live = await run(`print(mcp.read_resource('ask', 'text://hello'))`);
    const replayed = await run(`print(mcp.read_resource('ask', 'text://other'))`, {}, live.result.transcriptPath);
    expect(replayed.result.status).toBe('error');
    expect(replayed.result.error?.message).toMatch(
      /replay diverged at MCP read 1 .*mcp\.read_resource\('ask', "text:\/\/other"\), the recording has mcp\.read_resource\('ask', "text:\/\/hello"\)/,
    );
  });

  it('a gigabyte resource over stdio is refused with the limit named, and the server is stopped', async () => {
    const { result, logs } = await run(`print(pcall(mcp.read_resource, 'ask', 'huge://stdio'))`);
    expect(result.error).toBeUndefined();
    expect(logs[0]).toMatch(/^false\t.*over 8388608 bytes/);
  });
});
