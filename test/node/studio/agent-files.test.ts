import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_TEMPLATES } from '../../../main/core/studio/agent-templates.js';
import { contractStudio, type ContractStudio } from './contract-studio.js';

/** A studio with the example workspace open (agents with recordings, tools, models; no keys). */
async function withExample(): Promise<{ studio: ContractStudio; root: string }> {
  const studio = contractStudio();
  const state = await studio.call('workspace:open-example', {});
  return { studio, root: state.root };
}

/** A studio with an empty folder open: no catalogs, no agents. */
async function withEmptyFolder(): Promise<{ studio: ContractStudio; root: string }> {
  const studio = contractStudio();
  const root = mkdtempSync(path.join(tmpdir(), 'pf-empty-'));
  await studio.openFolder(root);
  return { studio, root };
}

function logLines(s: ContractStudio, runId: string): string[] {
  return s.runEvents(runId).flatMap((event) => (event.type === 'log' ? [event.text] : []));
}

describe('file:create: a new agent from the host-api template', () => {
  it('writes agents/<name>.lua, lists it, and the template runs offline with no key through the real engine', async () => {
    const { studio: s, root } = await withExample();
    const created = await s.call('file:create', { name: 'my-agent' });
    expect(created).toEqual({ path: 'agents/my-agent.lua', recording: null });
    const text = readFileSync(path.join(root, 'agents/my-agent.lua'), 'utf8');
    expect(text).toBe(AGENT_TEMPLATES['host-api'].replaceAll('{{name}}', 'my-agent'));
    // It teaches the whole host API.
    for (const word of ['log(', 'tools.call(', 'tools.calls[', 'untrusted(', 'models.chat(', 'pcall('])
      expect(text).toContain(word);
    expect((await s.call('workspace:state', {}))?.agents).toContain('agents/my-agent.lua');
    // No temporary file is left behind by the atomic write.
    expect(readdirSync(path.join(root, 'agents')).filter((name) => name.endsWith('.tmp'))).toEqual([]);

    // The example's default model is OpenAI, and this machine has no key: the template still ends ok.
    const { runId } = await s.call('run:start', { script: created.path });
    const end = await s.ended(runId);
    expect(end.status, JSON.stringify(end.error)).toBe('ok');
    const logs = logLines(s, runId);
    expect(logs).toContain('hello from my-agent');
    expect(logs).toContain('echo returned: hi');
    expect(logs.join('\n')).toMatch(
      /a call with bad arguments fails before it runs: false, .*field "text" must be a string/,
    );
    expect(logs).toContain('echo was dispatched 2 times');
    expect(logs.join('\n')).toMatch(/wrapped text:\n<untrusted_input_[0-9a-f]{32}>\n/);
    expect(logs.join('\n')).toMatch(/no model answered \(.*no key for OpenAI.*\)\. Set a key in Credentials/);
    expect(end.toolCalls).toEqual({ echo: 2 });
  });

  it('runs in a folder with no catalogs at all (builtins only, no model)', async () => {
    const { studio: s } = await withEmptyFolder();
    const created = await s.call('file:create', { name: 'first.lua', template: 'host-api' });
    expect(created.path).toBe('agents/first.lua');
    const { runId } = await s.call('run:start', { script: created.path });
    const end = await s.ended(runId);
    expect(end.status, JSON.stringify(end.error)).toBe('ok');
    expect(logLines(s, runId).join('\n')).toMatch(/no model answered \(.*no model chosen/);
  });

  it('refuses a name that exists, in any case, and leaves the existing agent alone', async () => {
    const { studio: s, root } = await withExample();
    const before = readFileSync(path.join(root, 'agents/echo-loop.lua'), 'utf8');
    for (const name of ['echo-loop', 'Echo-Loop', 'echo-loop.lua']) {
      const error = await s.fail('file:create', { name });
      expect(error.code, name).toBe('name-taken');
      expect(error.message).toMatch(/agents\/echo-loop\.lua already exists; pick another name/);
    }
    expect(readFileSync(path.join(root, 'agents/echo-loop.lua'), 'utf8')).toBe(before);
  });

  it.each([
    ['', /is empty; type a name such as my-agent/],
    ['   ', /is empty/],
    ['a/b', /contains a slash or backslash; agents live directly in agents\/: use - or _ instead/],
    ['a\\b', /contains a slash or backslash/],
    ['../escape', /contains a slash or backslash/],
    ['.', /starts with a dot/],
    ['..', /starts with a dot/],
    ['.hidden', /starts with a dot \(a hidden file, or the folder itself\); start it with a letter or digit/],
    ['CON', /is a reserved device name on Windows .*; pick another name/],
    ['con.lua', /reserved device name/],
    ['nul.txt', /reserved device name/],
    ['Aux', /reserved device name/],
    ['prn', /reserved device name/],
    ['COM1', /reserved device name/],
    ['lpt9.backup', /reserved device name/],
    ['name.', /ends with a dot; remove them/],
    ['name ', /ends with a space/],
    [' name', /begins or ends with a space/],
    ['bell\u0007', /contains a control character; use letters, digits, - or _/],
    ['tab\there', /contains a control character/],
    ['nul\u0000byte', /contains a control character/],
    ['a:b', /contains one of < > : " \| \? \*/],
    ['x'.repeat(101), /is 101 bytes long; keep it to 100 bytes/],
    ['my agent', /contains a space; use letters, digits, - or _ instead \(my-agent, not my agent\)/],
    ['a+b', /contains "\+"; use letters, digits, - or _/],
    ['price$', /contains "\$"/],
    ['robot🤖', /contains "🤖"/],
    ['50%', /contains "%"/],
    ['a\u00a0b', /contains the space character U\+00A0/],
    ['é'.repeat(51), /is 102 bytes long/],
  ])('refuses the name %j with a message that says what to change', async (name, message) => {
    const { studio: s, root } = await withEmptyFolder();
    const error = await s.fail('file:create', { name });
    expect(error.code).toBe('invalid-name');
    expect(error.message).toMatch(message);
    expect(error.message).toContain(JSON.stringify(name));
    expect(existsSync(path.join(root, 'agents')) ? readdirSync(path.join(root, 'agents')) : []).toEqual([]);
  });

  it('accepts ordinary names, including CONSOLE, com10 and non-ASCII ones', async () => {
    const { studio: s } = await withEmptyFolder();
    for (const name of ['CONSOLE', 'com10', 'my_agent', 'ågent-2', 'v1.2', 'вопрос', '質問', 'x'.repeat(100)])
      expect((await s.call('file:create', { name })).path).toBe(`agents/${name}.lua`);
    // A decomposed spelling is kept composed: the same file on every system.
    expect((await s.call('file:create', { name: 'cafe\u0301' })).path).toBe('agents/caf\u00e9.lua');
  });

  it('refuses to follow agents/ when it is a symbolic link that leads outside the workspace', async () => {
    const { studio: s, root } = await withEmptyFolder();
    const outside = mkdtempSync(path.join(tmpdir(), 'pf-outside-'));
    symlinkSync(outside, path.join(root, 'agents'));
    const error = await s.fail('file:create', { name: 'sneaky' });
    expect(error.code).toBe('outside-workspace');
    expect(error.message).toMatch(/leads outside the workspace/);
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe('file:save-as', () => {
  it("writes the editor's text as a new agent and leaves the original as it was", async () => {
    const { studio: s, root } = await withExample();
    const original = readFileSync(path.join(root, 'agents/echo-loop.lua'), 'utf8');
    const saved = await s.call('file:save-as', { name: 'echo-copy', text: '-- edited\nlog("copy")\n' });
    expect(saved).toEqual({ path: 'agents/echo-copy.lua', recording: null });
    expect(readFileSync(path.join(root, 'agents/echo-copy.lua'), 'utf8')).toBe('-- edited\nlog("copy")\n');
    expect(readFileSync(path.join(root, 'agents/echo-loop.lua'), 'utf8')).toBe(original);
    expect((await s.fail('file:save-as', { name: 'weather-report', text: 'x' })).code).toBe('name-taken');
    expect((await s.fail('file:save-as', { name: 'a/b', text: 'x' })).code).toBe('invalid-name');
  });
});

describe('file:rename', () => {
  it('renames an agent and its recording, and the renamed agent still runs offline from it', async () => {
    const { studio: s, root } = await withExample();
    const text = readFileSync(path.join(root, 'agents/echo-loop.lua'), 'utf8');
    const renamed = await s.call('file:rename', { path: 'agents/echo-loop.lua', name: 'echo-twice' });
    expect(renamed).toEqual({ path: 'agents/echo-twice.lua', recording: 'recordings/echo-twice.jsonl' });
    expect(existsSync(path.join(root, 'agents/echo-loop.lua'))).toBe(false);
    expect(existsSync(path.join(root, 'recordings/echo-loop.jsonl'))).toBe(false);
    expect(readFileSync(path.join(root, 'agents/echo-twice.lua'), 'utf8')).toBe(text);
    const state = await s.call('workspace:state', {});
    expect(state?.agents).toContain('agents/echo-twice.lua');
    expect(state?.agents).not.toContain('agents/echo-loop.lua');
    expect(state?.recordings['agents/echo-twice.lua']).toBe('recordings/echo-twice.jsonl');

    const { runId } = await s.call('run:start', { script: renamed.path, replay: renamed.recording! });
    expect((await s.ended(runId)).status).toBe('ok');
  });

  it("moves the agent's settings in promptforge.yaml with it, comments and all, and delete removes them", async () => {
    const { studio: s, root } = await withExample();
    writeFileSync(
      path.join(root, 'promptforge.yaml'),
      [
        '# my workspace',
        'defaultModel: fast',
        'agents:',
        '  # the careful one',
        '  agents/echo-loop.lua:',
        '    model: claude # slower, better',
        '  agents/weather-report.lua:',
        '    model: local',
        '',
      ].join('\n'),
    );
    await s.call('file:rename', { path: 'agents/echo-loop.lua', name: 'echo-twice' });
    expect(readFileSync(path.join(root, 'promptforge.yaml'), 'utf8')).toBe(
      [
        '# my workspace',
        'defaultModel: fast',
        'agents:',
        '  # the careful one',
        '  agents/echo-twice.lua:',
        '    model: claude # slower, better',
        '  agents/weather-report.lua:',
        '    model: local',
        '',
      ].join('\n'),
    );
    await s.call('file:delete', { path: 'agents/weather-report.lua' });
    expect(readFileSync(path.join(root, 'promptforge.yaml'), 'utf8')).toBe(
      [
        '# my workspace',
        'defaultModel: fast',
        'agents:',
        '  # the careful one',
        '  agents/echo-twice.lua:',
        '    model: claude # slower, better',
        '',
      ].join('\n'),
    );
  });

  it('renames in case only, and an agent with no recording', async () => {
    const { studio: s, root } = await withExample();
    await s.call('file:create', { name: 'draft' });
    expect(await s.call('file:rename', { path: 'agents/draft.lua', name: 'Draft' })).toEqual({
      path: 'agents/Draft.lua',
      recording: null,
    });
    expect(readdirSync(path.join(root, 'agents'))).toContain('Draft.lua');
    expect(readdirSync(path.join(root, 'agents'))).not.toContain('draft.lua');
  });

  it('refuses a taken name, a bad name, a missing agent, an orphan recording in the way, and a path outside', async () => {
    const { studio: s, root } = await withExample();
    const taken = await s.fail('file:rename', { path: 'agents/echo-loop.lua', name: 'weather-report' });
    expect(taken).toMatchObject({ code: 'name-taken' });
    expect(taken.message).toMatch(/agents\/weather-report\.lua already exists/);
    expect((await s.fail('file:rename', { path: 'agents/echo-loop.lua', name: 'LPT1' })).code).toBe('invalid-name');
    const missing = await s.fail('file:rename', { path: 'agents/nope.lua', name: 'other' });
    expect(missing.code).toBe('not-found');
    expect(missing.message).toMatch(/agents\/nope\.lua is not an agent of this workspace/);
    expect((await s.fail('file:rename', { path: 'tools.yaml', name: 'other' })).code).toBe('not-found');
    // The zod schema refuses a path that leaves the workspace before any handler runs.
    const outside = await s.fail('file:rename', { path: '../agents/echo-loop.lua', name: 'x' });
    expect(outside.code).toBe('invalid-payload');
    expect(outside.message).toMatch(/path/);

    writeFileSync(path.join(root, 'recordings/lonely.jsonl'), '');
    const orphan = await s.fail('file:rename', { path: 'agents/echo-loop.lua', name: 'lonely' });
    expect(orphan.code).toBe('name-taken');
    expect(orphan.message).toMatch(/recordings\/lonely\.jsonl already exists \(a recording without its agent\)/);
    // Nothing moved.
    expect(existsSync(path.join(root, 'agents/echo-loop.lua'))).toBe(true);
    expect(existsSync(path.join(root, 'recordings/echo-loop.jsonl'))).toBe(true);
  });
});

describe('file:delete', () => {
  it('deletes an agent and its recording; its past runs stay in History', async () => {
    const { studio: s, root } = await withExample();
    const { runId } = await s.call('run:start', {
      script: 'agents/echo-loop.lua',
      replay: 'recordings/echo-loop.jsonl',
    });
    await s.ended(runId);
    expect(await s.call('file:delete', { path: 'agents/echo-loop.lua' })).toEqual({
      deleted: true,
      recording: 'recordings/echo-loop.jsonl',
    });
    expect(existsSync(path.join(root, 'agents/echo-loop.lua'))).toBe(false);
    expect(existsSync(path.join(root, 'recordings/echo-loop.jsonl'))).toBe(false);
    const state = await s.call('workspace:state', {});
    expect(state?.agents).not.toContain('agents/echo-loop.lua');
    expect(state?.runs.map((run) => run.runId)).toContain(runId);
    expect((await s.fail('file:delete', { path: 'agents/echo-loop.lua' })).code).toBe('not-found');
  });

  it('never deletes through a symbolic link in agents/ (only regular files are agents)', async () => {
    const { studio: s, root } = await withEmptyFolder();
    const outside = mkdtempSync(path.join(tmpdir(), 'pf-outside-'));
    writeFileSync(path.join(outside, 'precious.lua'), 'log("keep me")');
    mkdirSync(path.join(root, 'agents'));
    symlinkSync(path.join(outside, 'precious.lua'), path.join(root, 'agents/link.lua'));
    await s.openFolder(root);
    expect((await s.fail('file:delete', { path: 'agents/link.lua' })).code).toBe('not-found');
    expect((await s.fail('file:rename', { path: 'agents/link.lua', name: 'moved' })).code).toBe('not-found');
    expect(readFileSync(path.join(outside, 'precious.lua'), 'utf8')).toBe('log("keep me")');
  });
});

describe('an agent that is running', () => {
  it('cannot be renamed or deleted until its run stops', async () => {
    const { studio: s, root } = await withEmptyFolder();
    // http_get asks a person first, so the run waits, in progress, on the approval card.
    await s.call('file:save-as', {
      name: 'waiting',
      text: "tools.call('http_get', { url = 'http://127.0.0.1:9/' })\n",
    });
    const { runId } = await s.call('run:start', { script: 'agents/waiting.lua' });
    await s.next('approval-pending', (pending) => pending.runId === runId);

    for (const [method, request] of [
      ['file:rename', { path: 'agents/waiting.lua', name: 'moved' }],
      ['file:delete', { path: 'agents/waiting.lua' }],
    ] as const) {
      const error = await s.fail(method, request);
      expect(error.code).toBe('agent-running');
      expect(error.message).toMatch(/agents\/waiting\.lua is running; stop the run first/);
    }
    expect(existsSync(path.join(root, 'agents/waiting.lua'))).toBe(true);

    await s.call('run:stop', { runId });
    await s.ended(runId);
    expect(await s.call('file:delete', { path: 'agents/waiting.lua' })).toMatchObject({ deleted: true });
  });
});
