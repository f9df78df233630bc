import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
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

  it('picks up test files under tests/ at any depth, and the folder appearing after the watch started', async () => {
    const dir = await makeTempDir();
    cleanups.push(() => removeTempDir(dir));
    await mkdir(path.join(dir, 'tests'));
    const changes: WorkspaceChange[] = [];
    cleanups.push(watchWorkspace(dir, (change) => changes.push(change), { debounceMs: 30 }));
    await mkdir(path.join(dir, 'tests', 'payments'));
    await writeFile(path.join(dir, 'tests', 'payments', 'refunds.yaml'), 'cases: []\n');
    await waitFor(
      () => changes.find((change) => change.files.includes('tests/payments/refunds.yaml')),
      'a nested test file',
    );
    await writeFile(path.join(dir, 'tests', 'notes.txt'), 'not a test file');
    await writeFile(path.join(dir, 'tests', 'smoke.yml'), 'cases: []\n');
    await waitFor(() => changes.find((change) => change.files.includes('tests/smoke.yml')), 'smoke.yml');
    expect(changes.flatMap((change) => change.files).filter((file) => file.endsWith('.txt'))).toEqual([]);

    // A workspace without tests/ yet: the folder appearing is a change, and files in it are seen after.
    const fresh = await makeTempDir();
    cleanups.push(() => removeTempDir(fresh));
    const later: WorkspaceChange[] = [];
    cleanups.push(watchWorkspace(fresh, (change) => later.push(change), { debounceMs: 30 }));
    await mkdir(path.join(fresh, 'tests'));
    await waitFor(() => later.find((change) => change.files.includes('tests')), 'the tests folder');
    await writeFile(path.join(fresh, 'tests', 'first.yaml'), 'cases: []\n');
    await waitFor(() => later.find((change) => change.files.includes('tests/first.yaml')), 'a file in the new folder');

    // Folders made and filled at once (mkdir -p, then a copy): each file is seen, however deep, and
    // a folder removed with its files is a change too.
    await mkdir(path.join(fresh, 'tests', 'a', 'b', 'c'), { recursive: true });
    await writeFile(path.join(fresh, 'tests', 'a', 'b', 'c', 'deep.yaml'), 'cases: []\n');
    await writeFile(path.join(fresh, 'tests', 'a', 'top.yml'), 'cases: []\n');
    for (const file of ['tests/a/b/c/deep.yaml', 'tests/a/top.yml'])
      await waitFor(() => later.find((change) => change.files.includes(file)), file);
    await writeFile(path.join(fresh, 'tests', 'a', 'b', 'c', 'deep.yaml'), 'cases: [] # edited\n');
    const edited = later.length;
    await waitFor(
      () => later.slice(edited).find((change) => change.files.includes('tests/a/b/c/deep.yaml')),
      'an edit deep inside',
    );
    await rm(path.join(fresh, 'tests', 'a'), { recursive: true });
    await waitFor(() => later.find((change) => change.files.includes('tests/a')), 'the folder removed');
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
