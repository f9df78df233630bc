import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeCatalogFile } from '../../../main/core/catalog/catalog-edit.js';
import { loadWorkspace } from '../../../main/core/catalog/workspace.js';
import { writeFileAtomic } from '../../../main/core/catalog/atomic-write.js';
import { copyFixture, makeTempDir, removeTempDir } from './helpers.js';

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map(removeTempDir));
});
async function track(dir: Promise<string>): Promise<string> {
  const value = await dir;
  temps.push(value);
  return value;
}

describe('writeFileAtomic', () => {
  it('replaces the content and leaves no temporary file behind', async () => {
    const dir = await track(makeTempDir());
    const file = path.join(dir, 'tools.yaml');
    await writeFile(file, 'old: content\n');
    await writeFileAtomic(file, 'new: content\n');
    expect(await readFile(file, 'utf8')).toBe('new: content\n');
    await writeFileAtomic(path.join(dir, 'fresh.yaml'), 'a: 1\n');
    expect(await readFile(path.join(dir, 'fresh.yaml'), 'utf8')).toBe('a: 1\n');
    expect((await readdir(dir)).sort()).toEqual(['fresh.yaml', 'tools.yaml']);
  });

  it('on failure removes its temporary file and leaves the target untouched', async () => {
    const dir = await track(makeTempDir());
    // The target is a folder, so the final rename fails.
    const target = path.join(dir, 'blocked');
    await writeFile(path.join(dir, 'keep.txt'), 'x');
    await (await import('node:fs/promises')).mkdir(path.join(target, 'inner'), { recursive: true });
    await expect(writeFileAtomic(target, 'text')).rejects.toThrow();
    expect((await readdir(dir)).sort()).toEqual(['blocked', 'keep.txt']);
  });

  it('keeps the permission bits of the file it replaces', async () => {
    const dir = await track(makeTempDir());
    const file = path.join(dir, 'script.sh');
    await writeFile(file, 'echo 1\n', { mode: 0o750 });
    await writeFileAtomic(file, 'echo 2\n');
    const { stat } = await import('node:fs/promises');
    expect((await stat(file)).mode & 0o777).toBe(0o750);
  });
});

describe('writeCatalogFile', () => {
  it('writes valid text', async () => {
    const dir = await track(makeTempDir());
    const result = await writeCatalogFile(
      dir,
      'tools.yaml',
      'x:\n  description: X\n  kind: command\n  command: [cat]\n',
    );
    expect(result).toEqual({ ok: true, problems: [] });
    expect((await loadWorkspace(dir)).tools.get('x')?.approval).toBe('ask');
  });

  it('refuses invalid text with the problems and leaves the file untouched', async () => {
    const dir = await track(copyFixture('valid'));
    const before = await readFile(path.join(dir, 'tools.yaml'), 'utf8');
    const result = await writeCatalogFile(dir, 'tools.yaml', 'x:\n  kind: mcp\n');
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([expect.objectContaining({ file: 'tools.yaml', pointer: '/x/kind', line: 2 })]);
    expect(await readFile(path.join(dir, 'tools.yaml'), 'utf8')).toBe(before);
  });

  it('checks promptforge.yaml against the models on disk', async () => {
    const dir = await track(copyFixture('valid'));
    expect((await writeCatalogFile(dir, 'promptforge.yaml', 'defaultModel: claude\n')).ok).toBe(true);
    const refused = await writeCatalogFile(dir, 'promptforge.yaml', 'defaultModel: nobody\n');
    expect(refused.ok).toBe(false);
    expect(refused.problems[0]?.message).toBe('model "nobody" is not defined in models.yaml');
  });
});
