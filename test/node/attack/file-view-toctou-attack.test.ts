/**
 * file:view and files:list check a path inside the workspace, then open it: a link swapped in
 * between (a sync client, git, a tool the agent runs) must not make them read outside. The race is
 * made deterministic here: the swap happens inside the open itself, just before it runs.
 */
import * as realFs from 'node:fs';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';

const hooks: { beforeOpen?: ((file: string) => void) | undefined } = {};

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const open = (file: realFs.PathLike, ...rest: unknown[]) => {
    hooks.beforeOpen?.(String(file));
    return (actual.promises.open as (...a: unknown[]) => unknown)(file, ...rest);
  };
  const promises = { ...actual.promises, open };
  return { ...actual, promises, default: { ...actual, promises } };
});

const { viewWorkspaceFile, listWorkspaceFiles } = await import('../../../main/core/studio/workspace-files.js');

function setup() {
  const root = realFs.realpathSync(mkdtempSync(path.join(tmpdir(), 'pf-toctou-ws-')));
  const outside = realFs.realpathSync(mkdtempSync(path.join(tmpdir(), 'pf-toctou-out-')));
  writeFileSync(path.join(outside, 'id_rsa'), 'PRIVATE KEY OUTSIDE THE WORKSPACE\n');
  writeFileSync(path.join(outside, 'only-outside-name.txt'), 'x');
  return { root, outside };
}

describe('file:view / files:list: a link swapped in after the check', () => {
  it('file:view never returns the bytes of a file outside the workspace (file swapped for a link)', async () => {
    const { root, outside } = setup();
    writeFileSync(path.join(root, 'notes.txt'), 'harmless\n');
    hooks.beforeOpen = (file) => {
      if (!file.endsWith('notes.txt')) return;
      hooks.beforeOpen = undefined;
      // What a process racing the studio does (a tool the agent calls, a sync client, a git checkout).
      rmSync(file);
      symlinkSync(path.join(outside, 'id_rsa'), file);
    };
    let view: unknown;
    try {
      view = await viewWorkspaceFile(root, 'notes.txt');
    } catch (error) {
      view = { threw: String(error) };
    } finally {
      hooks.beforeOpen = undefined;
    }
    expect(JSON.stringify(view)).not.toContain('PRIVATE KEY');
    expect(view).toMatchObject({ kind: 'unreadable' });
  });

  it('file:view never returns a file outside through a folder swapped for a link', async () => {
    const { root, outside } = setup();
    mkdirSync(path.join(root, 'docs'));
    writeFileSync(path.join(root, 'docs', 'id_rsa'), 'inside copy\n');
    hooks.beforeOpen = (file) => {
      if (!file.endsWith(path.join('docs', 'id_rsa'))) return;
      hooks.beforeOpen = undefined;
      renameSync(path.join(root, 'docs'), path.join(root, 'docs-old'));
      symlinkSync(outside, path.join(root, 'docs'));
    };
    let view: unknown;
    try {
      view = await viewWorkspaceFile(root, 'docs/id_rsa');
    } catch (error) {
      view = { threw: String(error) };
    } finally {
      hooks.beforeOpen = undefined;
    }
    expect(JSON.stringify(view)).not.toContain('PRIVATE KEY');
  });

  it('files:list never lists the names in a folder outside (folder swapped for a link while listing)', async () => {
    const { root, outside } = setup();
    mkdirSync(path.join(root, 'sub'));
    writeFileSync(path.join(root, 'sub', 'a.txt'), 'a');
    hooks.beforeOpen = (dir) => {
      if (path.basename(dir) !== 'sub') return;
      hooks.beforeOpen = undefined;
      renameSync(path.join(root, 'sub'), path.join(root, 'sub-old'));
      symlinkSync(outside, path.join(root, 'sub'));
    };
    try {
      const { files } = await listWorkspaceFiles(root);
      expect(files.map((f) => f.path)).not.toContain('sub/only-outside-name.txt');
      expect(files.map((f) => f.path)).not.toContain('sub/id_rsa');
    } finally {
      hooks.beforeOpen = undefined;
    }
  });
});
