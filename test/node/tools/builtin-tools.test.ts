import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBuiltinCatalog } from '../../../main/core/catalog/tool-catalog.js';
import { READ_FILE_MAX_BYTES } from '../../../main/core/tools/builtin-tools.js';
import { createToolRunner } from '../../../main/core/tools/tool-runner.js';
import type { ToolRunner } from '../../../main/core/tools/tool-spec.js';
import { makeTempDir, removeTempDir } from '../catalog/helpers.js';
import { startServer } from './helpers.js';
import { noSecrets } from '../../fixtures/stubs.js';

const catalog = createBuiltinCatalog();
const tool = (alias: string) => {
  const found = catalog.get(alias);
  if (!found) throw new Error(alias);
  return found;
};
const signal = () => new AbortController().signal;
let root: string;
let outside: string;
let runner: ToolRunner;

beforeEach(async () => {
  root = await makeTempDir('pf-ws-');
  outside = await makeTempDir('pf-outside-');
  await writeFile(path.join(root, 'notes.txt'), 'inside notes');
  await mkdir(path.join(root, 'docs'));
  await writeFile(path.join(root, 'docs', 'a.md'), '# A');
  await writeFile(path.join(outside, 'secret.txt'), 'outside secret');
  runner = createToolRunner({
    workspaceRoot: root,
    secrets: noSecrets,
    now: () => new Date('2025-01-02T03:04:05.000Z'),
  });
});
afterEach(async () => {
  await removeTempDir(root);
  await removeTempDir(outside);
});

describe('echo and now', () => {
  it('echo returns text, or "" when absent', async () => {
    expect(await runner.run(tool('echo'), { text: 'hi there' }, signal())).toBe('hi there');
    expect(await runner.run(tool('echo'), {}, signal())).toBe('');
  });

  it('now returns the ISO time', async () => {
    expect(await runner.run(tool('now'), {}, signal())).toBe('2025-01-02T03:04:05.000Z');
  });
});

describe('read_file and list_files stay inside the workspace', () => {
  it('reads and lists files inside', async () => {
    expect(await runner.run(tool('read_file'), { path: 'notes.txt' }, signal())).toBe('inside notes');
    expect(await runner.run(tool('read_file'), { path: './docs/../docs/a.md' }, signal())).toBe('# A');
    expect(await runner.run(tool('read_file'), { path: path.join(root, 'notes.txt') }, signal())).toBe('inside notes');
    expect(await runner.run(tool('list_files'), {}, signal())).toBe('docs/\nnotes.txt');
    expect(await runner.run(tool('list_files'), { path: 'docs' }, signal())).toBe('a.md');
  });

  it('refuses ".." escapes', async () => {
    const relative = path.relative(root, path.join(outside, 'secret.txt'));
    await expect(runner.run(tool('read_file'), { path: relative }, signal())).rejects.toThrow(
      `path "${relative}" is outside the workspace`,
    );
    await expect(runner.run(tool('read_file'), { path: '../../../../etc/passwd' }, signal())).rejects.toThrow(
      'is outside the workspace',
    );
    await expect(runner.run(tool('list_files'), { path: '..' }, signal())).rejects.toThrow(
      'path ".." is outside the workspace',
    );
  });

  it('refuses absolute paths outside', async () => {
    await expect(runner.run(tool('read_file'), { path: '/etc/passwd' }, signal())).rejects.toThrow(
      'path "/etc/passwd" is outside the workspace',
    );
    await expect(runner.run(tool('list_files'), { path: '/etc' }, signal())).rejects.toThrow(
      'path "/etc" is outside the workspace',
    );
  });

  it('refuses a symlink to /etc/passwd and a symlinked folder that leads outside', async () => {
    await symlink('/etc/passwd', path.join(root, 'passwd-link'));
    await symlink(outside, path.join(root, 'linked-dir'));
    await expect(runner.run(tool('read_file'), { path: 'passwd-link' }, signal())).rejects.toThrow(
      'path "passwd-link" leads outside the workspace (through a symbolic link)',
    );
    await expect(runner.run(tool('read_file'), { path: 'linked-dir/secret.txt' }, signal())).rejects.toThrow(
      'leads outside the workspace',
    );
    await expect(runner.run(tool('list_files'), { path: 'linked-dir' }, signal())).rejects.toThrow(
      'leads outside the workspace',
    );
  });

  it('follows symlinks that stay inside', async () => {
    await symlink(path.join(root, 'notes.txt'), path.join(root, 'alias.txt'));
    expect(await runner.run(tool('read_file'), { path: 'alias.txt' }, signal())).toBe('inside notes');
  });

  it('refuses files over the size cap, folders and missing files with clear messages', async () => {
    await writeFile(path.join(root, 'big.txt'), Buffer.alloc(READ_FILE_MAX_BYTES + 1, 97));
    await expect(runner.run(tool('read_file'), { path: 'big.txt' }, signal())).rejects.toThrow(
      `"big.txt" is ${READ_FILE_MAX_BYTES + 1} bytes, more than the ${READ_FILE_MAX_BYTES}-byte limit`,
    );
    await expect(runner.run(tool('read_file'), { path: 'docs' }, signal())).rejects.toThrow(
      '"docs" is a folder; use list_files',
    );
    await expect(runner.run(tool('read_file'), { path: 'nope.txt' }, signal())).rejects.toThrow(
      'path "nope.txt" does not exist',
    );
  });

  it('with no workspace there is nothing to read', async () => {
    const bare = createToolRunner({ workspaceRoot: undefined, secrets: noSecrets });
    await expect(bare.run(tool('read_file'), { path: 'x' }, signal())).rejects.toThrow('no workspace is open');
  });
});

describe('http_get', () => {
  it('returns the body as text; non-2xx is a ToolFailure; non-http schemes are refused', async () => {
    const server = await startServer((request, _body, response) => {
      if (request.url === '/missing') response.statusCode = 404;
      response.end(request.url === '/missing' ? 'not here' : 'page text');
    });
    try {
      expect(await runner.run(tool('http_get'), { url: `${server.url}/page` }, signal())).toBe('page text');
      expect(server.requests[0]?.method).toBe('GET');
      await expect(runner.run(tool('http_get'), { url: `${server.url}/missing` }, signal())).rejects.toThrow(
        `HTTP 404 from ${server.url}/missing: not here`,
      );
      await expect(runner.run(tool('http_get'), { url: 'file:///etc/passwd' }, signal())).rejects.toThrow(
        'only http and https URLs can be fetched (got "file:")',
      );
    } finally {
      await server.close();
    }
  });

  it('refuses bodies over the cap', async () => {
    const server = await startServer((_request, _body, response) => response.end(Buffer.alloc(2 * 1024 * 1024, 120)));
    try {
      await expect(runner.run(tool('http_get'), { url: server.url }, signal())).rejects.toThrow(
        'exceeded 1048576 bytes',
      );
    } finally {
      await server.close();
    }
  });
});
