import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MAX_LISTED_FILES, MAX_VIEWED_BYTES } from '../../../main/core/studio/workspace-files.js';
import { contractStudio } from './contract-studio.js';

function workspace(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'pf-files-'));
  mkdirSync(path.join(root, 'agents'));
  mkdirSync(path.join(root, 'tools', 'deep'), { recursive: true });
  mkdirSync(path.join(root, '.git'));
  mkdirSync(path.join(root, 'node_modules', 'pkg'), { recursive: true });
  writeFileSync(path.join(root, 'agents', 'a.lua'), "log('a')\n");
  writeFileSync(path.join(root, 'tools', 'deep', 'x.mjs'), 'console.log(1)\n');
  writeFileSync(path.join(root, 'README.md'), '# notes\nשלום\n');
  writeFileSync(path.join(root, '.git', 'HEAD'), 'ref: x\n');
  writeFileSync(path.join(root, 'node_modules', 'pkg', 'index.js'), '');
  writeFileSync(path.join(root, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13]));
  writeFileSync(path.join(root, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  writeFileSync(path.join(root, 'huge.log'), Buffer.alloc(MAX_VIEWED_BYTES + 1, 0x61));
  const outside = mkdtempSync(path.join(tmpdir(), 'pf-outside-'));
  writeFileSync(path.join(outside, 'secret.txt'), 'not yours\n');
  symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'linked-secret.txt'));
  symlinkSync(outside, path.join(root, 'linked-folder'));
  symlinkSync(root, path.join(root, 'tools', 'loop'));
  symlinkSync('README.md', path.join(root, 'readme-link.md'));
  execFileSync('mkfifo', [path.join(root, 'pipe')]);
  return root;
}

describe('files:list and file:view: the file tree, bounded and inside the workspace', () => {
  it('lists folders then files, skips .git and node_modules, names links that lead out, follows none', async () => {
    const root = workspace();
    const s = contractStudio();
    await s.openFolder(root);
    const { files, truncated } = await s.call('files:list', {});
    expect(truncated).toBe(false);
    const kinds = Object.fromEntries(files.map((file) => [file.path, file.kind]));
    expect(kinds).toMatchObject({
      agents: 'folder',
      tools: 'folder',
      'tools/deep': 'folder',
      'tools/deep/x.mjs': 'file',
      'agents/a.lua': 'file',
      'README.md': 'file',
      'linked-secret.txt': 'link-outside',
      'linked-folder': 'link-outside',
      'readme-link.md': 'file',
      pipe: 'other',
    });
    // The link back to the root is listed, never walked into.
    expect(files.some((file) => file.path.startsWith('tools/loop/'))).toBe(false);
    expect(files.some((file) => file.path.startsWith('.git') || file.path.startsWith('node_modules'))).toBe(false);
    // Folders before files at each level.
    const top = files.filter((file) => !file.path.includes('/'));
    const firstFile = top.findIndex((file) => file.kind !== 'folder');
    expect(top.slice(firstFile).some((file) => file.kind === 'folder')).toBe(false);
  });

  it('shows text (an agent script as editable), and says why it shows no other file', async () => {
    const root = workspace();
    const s = contractStudio();
    await s.openFolder(root);
    expect(await s.call('file:view', { path: 'README.md' })).toEqual({
      kind: 'text',
      text: '# notes\nשלום\n',
      editable: false,
    });
    expect(await s.call('file:view', { path: 'agents/a.lua' })).toEqual({
      kind: 'text',
      text: "log('a')\n",
      editable: true,
    });
    expect(await s.call('file:view', { path: 'image.png' })).toMatchObject({
      kind: 'binary',
      message: expect.stringMatching(/^image\.png is not text/),
    });
    expect(await s.call('file:view', { path: 'latin1.txt' })).toMatchObject({ kind: 'binary' });
    expect(await s.call('file:view', { path: 'huge.log' })).toMatchObject({
      kind: 'too-large',
      message: 'huge.log is larger than 2 MiB, the most the viewer shows; open it in another editor',
    });
    expect(await s.call('file:view', { path: 'pipe' })).toMatchObject({
      kind: 'unreadable',
      message: expect.stringMatching(/named pipe/),
    });
    expect(await s.call('file:view', { path: 'readme-link.md' })).toMatchObject({ kind: 'text' });
    for (const outside of ['linked-secret.txt', 'linked-folder/secret.txt'])
      expect((await s.fail('file:view', { path: outside })).code, outside).toBe('outside-workspace');
    for (const bad of ['../x', '/etc/passwd', 'agents/../../x'])
      expect((await s.fail('file:view', { path: bad })).code, bad).toBe('invalid-payload');
  });

  it(`stops listing at ${MAX_LISTED_FILES} entries and says so`, async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'pf-many-'));
    mkdirSync(path.join(root, 'many'));
    for (let index = 0; index < MAX_LISTED_FILES + 10; index += 1)
      writeFileSync(path.join(root, 'many', `f${index}.txt`), '');
    const s = contractStudio();
    await s.openFolder(root);
    const listing = await s.call('files:list', {});
    expect(listing.truncated).toBe(true);
    expect(listing.files).toHaveLength(MAX_LISTED_FILES);
  }, 60_000);
});
