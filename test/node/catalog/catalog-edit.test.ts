import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  deleteModelEntry,
  deleteToolEntry,
  saveModelEntry,
  saveToolEntry,
  writeCatalogFile,
} from '../../../main/core/catalog/catalog-edit.js';
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

describe('entry helpers keep comments', () => {
  it('saveToolEntry updates a field and keeps every comment and the other entries', async () => {
    const dir = await track(copyFixture('valid'));
    const result = await saveToolEntry(dir, 'search', {
      description: 'Search the web (v2)',
      kind: 'http',
      url: 'https://search.example.com/v1/query',
      headers: { Authorization: { secret: 'search-proxy' } },
      parameters: { type: 'object', properties: { query: { type: 'string', minLength: 1 } }, required: ['query'] },
    });
    expect(result).toEqual({ ok: true, problems: [] });
    const text = await readFile(path.join(dir, 'tools.yaml'), 'utf8');
    expect(text).toContain('# Tools for the example workspace. Comments survive edits made in the studio.');
    expect(text).toContain('# read from the keychain');
    expect(text).toContain('# A builtin under another name, with a stricter policy.');
    expect(text).toContain('description: Search the web (v2)');
    const workspace = await loadWorkspace(dir);
    expect(workspace.tools.get('search')?.description).toBe('Search the web (v2)');
    expect(workspace.tools.get('word_count')).toBeDefined();
  });

  it('saveToolEntry adds a new entry, refuses an invalid one, renames and deletes', async () => {
    const dir = await track(copyFixture('valid'));
    expect((await saveToolEntry(dir, 'stamp', { kind: 'builtin', builtin: 'now', description: 'Time' })).ok).toBe(true);
    expect((await loadWorkspace(dir)).tools.get('stamp')?.settings).toEqual({ kind: 'builtin', builtin: 'now' });

    const refused = await saveToolEntry(dir, 'broken', { kind: 'command', description: 'no argv', command: [] });
    expect(refused.ok).toBe(false);
    expect(refused.problems[0]).toMatchObject({ pointer: '/broken/command' });
    expect(await readFile(path.join(dir, 'tools.yaml'), 'utf8')).not.toContain('broken');

    expect(
      (
        await saveToolEntry(
          dir,
          'clock',
          { kind: 'builtin', builtin: 'now', description: 'Time' },
          { previousAlias: 'stamp' },
        )
      ).ok,
    ).toBe(true);
    let workspace = await loadWorkspace(dir);
    expect(workspace.tools.get('stamp')).toBeUndefined();
    expect(workspace.tools.get('clock')).toBeDefined();

    expect((await deleteToolEntry(dir, 'clock')).ok).toBe(true);
    expect((await deleteToolEntry(dir, 'clock')).ok).toBe(false);
    workspace = await loadWorkspace(dir);
    expect(workspace.tools.get('clock')).toBeUndefined();
    expect(await readFile(path.join(dir, 'tools.yaml'), 'utf8')).toContain('# read from the keychain');
  });

  it('saveModelEntry and deleteModelEntry', async () => {
    const dir = await track(copyFixture('valid'));
    expect((await saveModelEntry(dir, 'groq-fast', { provider: 'groq', model: 'llama-3.1-8b-instant' })).ok).toBe(true);
    expect((await loadWorkspace(dir)).models.get('groq-fast')?.baseUrl).toBe('https://api.groq.com/openai/v1');
    const refused = await saveModelEntry(dir, 'bad', { provider: 'openai-compatible', model: 'x' });
    expect(refused.ok).toBe(false);
    expect(refused.problems[0]?.message).toContain('missing required field "baseUrl"');
    expect((await deleteModelEntry(dir, 'groq-fast')).ok).toBe(true);
    const text = await readFile(path.join(dir, 'models.yaml'), 'utf8');
    expect(text).toContain('# Model aliases');
    expect(text).not.toContain('groq-fast');
  });

  it('creates tools.yaml when there is none', async () => {
    const dir = await track(makeTempDir());
    expect((await saveToolEntry(dir, 'say', { kind: 'builtin', builtin: 'echo', description: 'Say' })).ok).toBe(true);
    expect((await loadWorkspace(dir)).tools.get('say')).toBeDefined();
  });

  it('concurrent saves do not lose each other', async () => {
    const dir = await track(makeTempDir());
    await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        saveToolEntry(dir, `t${index}`, { kind: 'builtin', builtin: 'echo', description: `T${index}` }),
      ),
    );
    const workspace = await loadWorkspace(dir);
    for (let index = 0; index < 8; index += 1) expect(workspace.tools.get(`t${index}`)).toBeDefined();
  });
});
