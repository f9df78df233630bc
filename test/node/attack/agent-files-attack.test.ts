import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contractStudio, type ContractStudio } from '../studio/contract-studio.js';

/**
 * Defects found by red-teaming the agent file operations (file:create, file:rename, file:delete,
 * file:write) through the contract. Each test fails while its defect is there.
 */

async function withExample(): Promise<{ s: ContractStudio; root: string }> {
  const s = contractStudio();
  const state = await s.call('workspace:open-example', {});
  return { s, root: state.root };
}

describe('file:rename in case only', () => {
  it('never overwrites another agent (and its recording) whose name differs only in case', async () => {
    const { s, root } = await withExample();
    // On a case-sensitive file system both files exist side by side.
    writeFileSync(path.join(root, 'agents/ECHO-LOOP.lua'), '-- another agent, not a copy\n');
    writeFileSync(path.join(root, 'recordings/ECHO-LOOP.jsonl'), 'another recording\n');
    await s.openFolder(root);

    const result = await s
      .call('file:rename', { path: 'agents/echo-loop.lua', name: 'ECHO-LOOP' })
      .then(() => 'renamed')
      .catch((error: unknown) => String(error));
    // Refused (name-taken) or not, the other agent and its recording must survive.
    expect(readFileSync(path.join(root, 'agents/ECHO-LOOP.lua'), 'utf8')).toBe('-- another agent, not a copy\n');
    expect(readFileSync(path.join(root, 'recordings/ECHO-LOOP.jsonl'), 'utf8')).toBe('another recording\n');
    expect(result).toMatch(/name-taken/);
  });
});

describe('file:rename and file:delete that fail half-way', () => {
  it('a refused rename or delete leaves the agent where it was', async () => {
    const { s, root } = await withExample();
    // recordings/ leads outside the workspace: the operation is refused with outside-workspace...
    const outside = mkdtempSync(path.join(tmpdir(), 'pf-attack-recordings-'));
    renameSync(path.join(root, 'recordings'), path.join(outside, 'recordings'));
    symlinkSync(path.join(outside, 'recordings'), path.join(root, 'recordings'));
    await s.openFolder(root);

    const renamed = await s.fail('file:rename', { path: 'agents/echo-loop.lua', name: 'moved' });
    expect(renamed.code).toBe('outside-workspace');
    const deleted = await s.fail('file:delete', { path: 'agents/weather-report.lua' });
    expect(deleted.code).toBe('outside-workspace');
    // ...so nothing may have changed: the person was told it failed.
    expect(readdirSync(path.join(root, 'agents')).sort()).toEqual([
      'echo-loop.lua',
      'summarize-page.lua',
      'weather-report.lua',
    ]);
  });
});

describe("file:rename and the agent's settings in promptforge.yaml", () => {
  it('does not write a duplicate key, nor let a stale entry replace the renamed agent’s settings', async () => {
    const { s, root } = await withExample();
    writeFileSync(
      path.join(root, 'promptforge.yaml'),
      'defaultModel: fast\nagents:\n  agents/echo-loop.lua:\n    model: claude\n  agents/moved.lua:\n    model: local\n',
    );
    await s.openFolder(root);
    // Renamed (the stale entry replaced or kept apart) or refused naming the entry: either is fine.
    // This workspace refuses, naming the stale entry and the fix.
    const refused = await s.fail('file:rename', { path: 'agents/echo-loop.lua', name: 'moved' }).catch(() => undefined);
    if (refused) {
      expect(refused.code).toBe('name-taken');
      expect(refused.message).toMatch(
        /promptforge\.yaml still has settings for agents\/moved\.lua .*remove that entry from promptforge\.yaml, or pick another name/,
      );
    }
    const text = readFileSync(path.join(root, 'promptforge.yaml'), 'utf8');
    // One entry for agents/moved.lua, whatever happened.
    expect(text.match(/agents\/moved\.lua:/g) ?? []).toHaveLength(1);
    if (existsSync(path.join(root, 'agents/moved.lua'))) {
      const { runId } = await s.call('run:start', { script: 'agents/moved.lua' });
      const start = s.runEvents(runId).find((event) => event.type === 'run-start');
      await s.ended(runId);
      expect(start?.type === 'run-start' && start.model?.alias).toBe('claude');
    }
  });

  it('does not report success while leaving the settings under the old name', async () => {
    const { s, root } = await withExample();
    // Another entry has an error, so the catalog check refuses every write of the file.
    writeFileSync(
      path.join(root, 'promptforge.yaml'),
      'defaultModel: fast\nagents:\n  agents/echo-loop.lua:\n    model: claude\n  agents/gone.lua:\n    model: nosuchmodel\n',
    );
    await s.openFolder(root);
    const outcome = await s
      .call('file:rename', { path: 'agents/echo-loop.lua', name: 'moved' })
      .then(() => 'renamed')
      .catch(() => 'refused');
    const text = readFileSync(path.join(root, 'promptforge.yaml'), 'utf8');
    if (outcome === 'renamed') {
      expect(text).toContain('agents/moved.lua:');
      expect(text).not.toContain('agents/echo-loop.lua:');
    } else {
      expect(existsSync(path.join(root, 'agents/echo-loop.lua'))).toBe(true);
    }
  });
});

describe('file:rename onto an orphan recording', () => {
  it('is refused, as for an agent with a recording, instead of silently adopting it', async () => {
    const { s, root } = await withExample();
    await s.call('file:create', { name: 'draft' });
    // A recording of another script, left without its agent.
    writeFileSync(
      path.join(root, 'recordings/lonely.jsonl'),
      readFileSync(path.join(root, 'recordings/weather-report.jsonl')),
    );
    const error = await s.fail('file:rename', { path: 'agents/draft.lua', name: 'lonely' }).catch((e: unknown) => {
      // It was renamed: the result must at least say which recording the agent now has.
      return { code: 'renamed', message: String(e) };
    });
    expect(error.code).toBe('name-taken');
  });
});

describe('file:write', () => {
  it('never writes outside the workspace through a folder that is a symbolic link', async () => {
    const { s, root } = await withExample();
    const outside = mkdtempSync(path.join(tmpdir(), 'pf-attack-outside-'));
    symlinkSync(outside, path.join(root, 'linked'));
    await s.fail('file:write', { path: 'linked/x.lua', text: 'written outside' }).catch(() => undefined);
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe('file:rename in case only, of an agent to its own other case', () => {
  it('still works, and its recording and settings follow it', async () => {
    const { s, root } = await withExample();
    writeFileSync(path.join(root, 'promptforge.yaml'), 'agents:\n  agents/echo-loop.lua:\n    model: claude\n');
    await s.openFolder(root);
    expect(await s.call('file:rename', { path: 'agents/echo-loop.lua', name: 'Echo-Loop' })).toEqual({
      path: 'agents/Echo-Loop.lua',
      recording: 'recordings/Echo-Loop.jsonl',
    });
    expect(readdirSync(path.join(root, 'agents'))).toContain('Echo-Loop.lua');
    expect(readdirSync(path.join(root, 'agents'))).not.toContain('echo-loop.lua');
    expect(readdirSync(path.join(root, 'recordings'))).toContain('Echo-Loop.jsonl');
    expect(readdirSync(path.join(root, 'recordings'))).not.toContain('echo-loop.jsonl');
    expect(readFileSync(path.join(root, 'promptforge.yaml'), 'utf8')).toBe(
      'agents:\n  agents/Echo-Loop.lua:\n    model: claude\n',
    );
  });
});

describe('file:rename when the settings cannot follow the agent', () => {
  it('is refused, naming promptforge.yaml and the problem, and nothing moves', async () => {
    const { s, root } = await withExample();
    // The agent is named in a file that does not parse: its settings cannot be moved.
    const broken = 'agents:\n  agents/echo-loop.lua:\n    model: [claude\n';
    writeFileSync(path.join(root, 'promptforge.yaml'), broken);
    await s.openFolder(root);
    const error = await s.fail('file:rename', { path: 'agents/echo-loop.lua', name: 'moved' });
    expect(error.code).toBe('catalog-invalid');
    expect(error.message).toMatch(/promptforge\.yaml has a YAML error .*fix promptforge\.yaml first/);
    expect(readdirSync(path.join(root, 'agents'))).toContain('echo-loop.lua');
    expect(readdirSync(path.join(root, 'recordings'))).toContain('echo-loop.jsonl');
    expect(readFileSync(path.join(root, 'promptforge.yaml'), 'utf8')).toBe(broken);
  });
});

describe('agent names with invisible or direction-changing characters', () => {
  it.each([
    ['\u202a', 'U+202A'],
    ['\u202b', 'U+202B'],
    ['\u202c', 'U+202C'],
    ['\u202d', 'U+202D'],
    ['\u202e', 'U+202E'],
    ['\u2066', 'U+2066'],
    ['\u2067', 'U+2067'],
    ['\u2068', 'U+2068'],
    ['\u2069', 'U+2069'],
    ['\u200b', 'U+200B'],
    ['\u200c', 'U+200C'],
    ['\u200d', 'U+200D'],
    ['\u200e', 'U+200E'],
    ['\u200f', 'U+200F'],
    ['\ufeff', 'U+FEFF'],
    ['\u061c', 'U+061C'],
    ['\u2060', 'U+2060'],
    ['\u00ad', 'U+00AD'],
    ['\u2028', 'U+2028'],
    ['\ud800', 'U+D800'],
  ])('refuses a name with %j, naming its code point', async (character, code) => {
    const { s, root } = await withExample();
    for (const name of [`evil${character}gol.lua`, `${character}agent`]) {
      const created = await s.fail('file:create', { name });
      expect(created.code).toBe('invalid-name');
      expect(created.message).toContain(`invisible or direction-changing character ${code}`);
      expect((await s.fail('file:rename', { path: 'agents/echo-loop.lua', name })).code).toBe('invalid-name');
    }
    expect(readdirSync(path.join(root, 'agents')).sort()).toEqual([
      'echo-loop.lua',
      'summarize-page.lua',
      'weather-report.lua',
    ]);
  });

  it('refuses the Windows console device names CONIN$ and CONOUT$', async () => {
    const { s } = await withExample();
    for (const name of ['CONIN$', 'conout$', 'Conin$.lua', 'CONOUT$.txt']) {
      const error = await s.fail('file:create', { name });
      expect(error.code, name).toBe('invalid-name');
      expect(error.message).toMatch(/reserved device name on Windows/);
    }
    expect((await s.call('file:create', { name: 'conin' })).path).toBe('agents/conin.lua');
  });
});

describe('duplicate keys in the catalog files', () => {
  it('are reported in promptforge.yaml, with the line, and the first entry is the one used', async () => {
    const { s, root } = await withExample();
    const text =
      'defaultModel: fast\nagents:\n  agents/echo-loop.lua:\n    model: claude\n  agents/echo-loop.lua:\n    model: local\n';
    const { problems } = await s.call('catalog:check', { file: 'promptforge.yaml', text });
    expect(problems).toContainEqual(
      expect.objectContaining({
        severity: 'error',
        file: 'promptforge.yaml',
        line: 5,
        message: 'the key "agents/echo-loop.lua" is written more than once under "agents"',
        fix: 'Remove or rename this "agents/echo-loop.lua" (the first is on line 3); only the first is loaded.',
      }),
    );
    // Written anyway (by hand), the first entry wins.
    writeFileSync(path.join(root, 'promptforge.yaml'), text);
    await s.openFolder(root);
    const { runId } = await s.call('run:start', { script: 'agents/echo-loop.lua' });
    const start = s.runEvents(runId).find((event) => event.type === 'run-start');
    await s.ended(runId);
    expect(start?.type === 'run-start' && start.model?.alias).toBe('claude');
  });

  it('are reported at any depth, and two spellings of one agent path too', async () => {
    const { s } = await withExample();
    const settings = await s.call('catalog:check', {
      file: 'promptforge.yaml',
      text: 'defaultModel: fast\ndefaultModel: claude\nagents:\n  agents/a.lua: {}\n  ./agents/a.lua: {}\n',
    });
    expect(settings.problems.map((problem) => [problem.line, problem.message])).toEqual([
      [2, 'the key "defaultModel" is written more than once'],
      [5, 'the settings of agents/a.lua are written twice, as "agents/a.lua" and as "./agents/a.lua"'],
    ]);
    const tools = await s.call('catalog:check', {
      file: 'tools.yaml',
      text: 'shout:\n  kind: command\n  command: [echo]\n  description: one\n  description: two\n',
    });
    expect(tools.problems).toContainEqual(
      expect.objectContaining({
        line: 5,
        pointer: '/shout/description',
        message: 'the key "description" is written more than once under "shout"',
      }),
    );
  });
});

describe('file:rename and file:delete of one agent at once', () => {
  it('run one after the other: the second finds the agent gone and says so', async () => {
    const { s, root } = await withExample();
    const [renamed, deleted] = await Promise.all([
      s.call('file:rename', { path: 'agents/echo-loop.lua', name: 'first' }),
      s.fail('file:delete', { path: 'agents/echo-loop.lua' }),
    ]);
    expect(renamed).toEqual({ path: 'agents/first.lua', recording: 'recordings/first.jsonl' });
    expect(deleted.code).toBe('not-found');
    expect(deleted.message).toMatch(/agents\/echo-loop\.lua no longer exists; refresh the explorer/);
    expect(readdirSync(path.join(root, 'agents'))).toContain('first.lua');
    expect(readdirSync(path.join(root, 'recordings'))).toContain('first.jsonl');
  });
});
