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
    await s.call('workspace:open', { path: root });

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
    await s.call('workspace:open', { path: root });

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
    await s.call('workspace:open', { path: root });
    // Renamed (the stale entry replaced or kept apart) or refused naming the entry: either is fine.
    await s.call('file:rename', { path: 'agents/echo-loop.lua', name: 'moved' }).catch(() => undefined);
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
    await s.call('workspace:open', { path: root });
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
