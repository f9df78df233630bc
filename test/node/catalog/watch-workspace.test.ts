import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { watchWorkspace, type WorkspaceChange } from '../../../main/core/catalog/watch-workspace.js';
import { makeTempDir, removeTempDir, waitFor } from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('watchWorkspace', () => {
  it('picks up real edits to tools.yaml, models.yaml and agents, reloading the workspace', async () => {
    const dir = await makeTempDir();
    cleanups.push(() => removeTempDir(dir));
    await mkdir(path.join(dir, 'agents'));
    const changes: WorkspaceChange[] = [];
    const close = watchWorkspace(dir, (change) => changes.push(change), { debounceMs: 50 });
    cleanups.push(close);

    await writeFile(path.join(dir, 'tools.yaml'), 'greet:\n  description: Greets\n  kind: builtin\n  builtin: echo\n');
    const first = await waitFor(
      () => changes.find((change) => change.workspace.tools.get('greet')),
      'tools.yaml reload',
    );
    expect(first.files).toContain('tools.yaml');

    // Editors often save by writing a temp file and renaming it over the original.
    await writeFile(path.join(dir, 'models.yaml.tmp'), 'm:\n  provider: openai\n  model: gpt-4o\n');
    await rename(path.join(dir, 'models.yaml.tmp'), path.join(dir, 'models.yaml'));
    const second = await waitFor(
      () => changes.find((change) => change.workspace.models.get('m')),
      'models.yaml reload',
    );
    expect(second.files).toContain('models.yaml');

    await writeFile(path.join(dir, 'agents', 'a.lua'), 'log(1)\n');
    const third = await waitFor(() => changes.find((change) => change.files.includes('agents/a.lua')), 'agent change');
    expect(third.workspace.agents).toEqual(['agents/a.lua']);

    await writeFile(path.join(dir, 'tools.yaml'), 'x:\n  kind: mcp\n');
    const broken = await waitFor(() => changes.find((change) => change.workspace.problems.length > 0), 'broken reload');
    expect(broken.workspace.problems[0]?.message).toContain('needs "command" (a stdio server) or "url"');
    expect(broken.workspace.tools.get('greet')).toBeUndefined();
  });

  it('ignores unrelated files and stops after close', async () => {
    const dir = await makeTempDir();
    cleanups.push(() => removeTempDir(dir));
    const changes: WorkspaceChange[] = [];
    const close = watchWorkspace(dir, (change) => changes.push(change), { debounceMs: 30 });
    await writeFile(path.join(dir, 'notes.txt'), 'hello');
    await writeFile(path.join(dir, 'promptforge.yaml'), 'builtins: false\n');
    const change = await waitFor(() => changes[0], 'promptforge.yaml reload');
    expect(change.files).toEqual(['promptforge.yaml']);
    expect(change.workspace.tools.list()).toEqual([]);
    close();
    const count = changes.length;
    // A second watcher with the same debounce sees the next edit: once it has delivered it, the
    // closed one had every chance to deliver it too. Nothing may be delivered after close.
    const control: WorkspaceChange[] = [];
    cleanups.push(watchWorkspace(dir, (seen) => control.push(seen), { debounceMs: 30 }));
    await writeFile(path.join(dir, 'promptforge.yaml'), 'builtins: true\n');
    await waitFor(() => control.find((seen) => seen.files.includes('promptforge.yaml')), 'the control watcher');
    expect(changes.length).toBe(count);
  });
});
