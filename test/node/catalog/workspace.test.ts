import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBuiltinCatalog } from '../../../main/core/catalog/tool-catalog.js';
import { loadWorkspace } from '../../../main/core/catalog/workspace.js';
import { findWorkspaceRoot } from '../../../main/core/catalog/workspace-root.js';
import { formatProblem } from '../../../main/core/catalog/catalog-problem.js';
import { CATALOG_FIXTURES, copyFixture, makeTempDir, removeTempDir } from './helpers.js';

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map(removeTempDir));
});
async function temp(): Promise<string> {
  const dir = await makeTempDir();
  temps.push(dir);
  return dir;
}

describe('loadWorkspace: the valid example workspace', () => {
  it('loads every tool and model with no problems', async () => {
    const workspace = await loadWorkspace(path.join(CATALOG_FIXTURES, 'valid'));
    expect(workspace.problems).toEqual([]);
    expect(workspace.tools.list().map((tool) => tool.alias)).toEqual([
      'echo',
      'read_file',
      'list_files',
      'http_get',
      'now',
      'search',
      'word_count',
      'fetch_page',
    ]);
    expect(workspace.models.list().map((model) => model.alias)).toEqual(['fast', 'local', 'claude', 'recorded']);
    expect(workspace.agents).toEqual(['agents/hello.lua']);
    expect(Object.keys(workspace.catalogVersions).sort()).toEqual(['models.yaml', 'promptforge.yaml', 'tools.yaml']);
    expect(workspace.catalogVersions['tools.yaml']).toMatch(/^[0-9a-f]{64}$/);
  });

  it('applies the documented defaults: http is untrusted and ask, parameters default to an empty object schema', async () => {
    const workspace = await loadWorkspace(path.join(CATALOG_FIXTURES, 'valid'));
    const search = workspace.tools.get('search');
    expect(search).toMatchObject({
      trust: 'untrusted',
      approval: 'ask',
      taintCheck: true,
      source: 'tools.yaml',
      settings: {
        kind: 'http',
        url: 'https://search.example.com/v1/query',
        headers: { Authorization: { secret: 'search-proxy' } },
      },
    });
    const wordCount = workspace.tools.get('word_count');
    expect(wordCount).toMatchObject({
      trust: 'trusted',
      approval: 'auto',
      settings: { kind: 'command', command: ['node', 'word-count.mjs'], cwd: 'tools', env: ['LANG'], timeoutMs: 5000 },
    });
    expect(wordCount?.outputSchema).toEqual({
      type: 'object',
      properties: { words: { type: 'integer' } },
      required: ['words'],
    });
  });

  it('a builtin under another alias keeps its implementation, parameters and trust, with its own approval', async () => {
    const workspace = await loadWorkspace(path.join(CATALOG_FIXTURES, 'valid'));
    const fetchPage = workspace.tools.get('fetch_page');
    expect(fetchPage).toMatchObject({
      trust: 'untrusted',
      approval: 'deny',
      settings: { kind: 'builtin', builtin: 'http_get' },
    });
    expect(workspace.tools.validateArguments('fetch_page', {})).toContain('missing required field "url"');
  });

  it('models: defaults, base URL defaults for OpenAI-compatible providers, prices default to USD', async () => {
    const workspace = await loadWorkspace(path.join(CATALOG_FIXTURES, 'valid'));
    expect(workspace.models.get('fast')).toEqual({
      alias: 'fast',
      provider: 'openai',
      model: 'gpt-4o-mini',
      defaults: { temperature: 0.2, maxTokens: 1024 },
      price: { inputPerMillion: 0.15, outputPerMillion: 0.6, currency: 'USD' },
      source: 'models.yaml',
    });
    expect(workspace.models.get('local')?.baseUrl).toBe('http://localhost:11434/v1');
    expect(workspace.models.get('claude')?.baseUrl).toBeUndefined();
    expect(workspace.models.get('recorded')).toMatchObject({ provider: 'replay', model: '' });
  });

  it('defaultFor: agent setting, then workspace defaultModel, then undefined', async () => {
    const workspace = await loadWorkspace(path.join(CATALOG_FIXTURES, 'valid'));
    expect(workspace.models.defaultFor('agents/hello.lua')).toBe('local');
    expect(workspace.models.defaultFor('./agents/hello.lua')).toBe('local');
    expect(workspace.models.defaultFor(path.join(workspace.root, 'agents', 'hello.lua'))).toBe('local');
    expect(workspace.models.defaultFor('agents/other.lua')).toBe('fast');
    expect(workspace.models.defaultFor()).toBe('fast');
    const bare = await loadWorkspace(await temp());
    expect(bare.models.defaultFor('agents/hello.lua')).toBeUndefined();
  });
});

describe('loadWorkspace: builtins', () => {
  it('a folder with no catalog files still has the builtins', async () => {
    const workspace = await loadWorkspace(await temp());
    expect(workspace.problems).toEqual([]);
    expect(workspace.tools.list().map((tool) => tool.alias)).toEqual([
      'echo',
      'read_file',
      'list_files',
      'http_get',
      'now',
    ]);
    expect(workspace.models.list()).toEqual([]);
    expect(workspace.settings).toEqual({ builtins: true, agents: {} });
  });

  it('echo: parameters { text?: string }, trusted, approval auto', () => {
    const echo = createBuiltinCatalog().get('echo');
    expect(echo).toMatchObject({ trust: 'trusted', approval: 'auto', taintCheck: true, source: '<builtin>' });
    expect(echo?.parameters).toMatchObject({ type: 'object', properties: { text: { type: 'string' } } });
    const catalog = createBuiltinCatalog();
    expect(catalog.validateArguments('echo', {})).toBeUndefined();
    expect(catalog.validateArguments('echo', { text: 'hi' })).toBeUndefined();
    expect(catalog.validateArguments('echo', { text: 3 })).toBe('invalid arguments: field "text" must be a string');
  });

  it('builtin defaults: http_get untrusted + ask; read_file, list_files, now trusted + auto', () => {
    const catalog = createBuiltinCatalog();
    expect(catalog.get('http_get')).toMatchObject({ trust: 'untrusted', approval: 'ask' });
    for (const alias of ['read_file', 'list_files', 'now'])
      expect(catalog.get(alias)).toMatchObject({ trust: 'trusted', approval: 'auto' });
  });

  it('builtins: false turns them off, and an explicit builtin entry still works', async () => {
    const dir = await temp();
    await writeFile(path.join(dir, 'promptforge.yaml'), 'builtins: false\n');
    expect((await loadWorkspace(dir)).tools.list()).toEqual([]);
    await writeFile(path.join(dir, 'tools.yaml'), 'say:\n  description: Says it\n  kind: builtin\n  builtin: echo\n');
    const workspace = await loadWorkspace(dir);
    expect(workspace.tools.list().map((tool) => tool.alias)).toEqual(['say']);
    expect(workspace.tools.get('say')).toMatchObject({
      trust: 'trusted',
      approval: 'auto',
      settings: { kind: 'builtin', builtin: 'echo' },
    });
  });

  it('a command tool named like a builtin replaces it, with a warning', async () => {
    const dir = await temp();
    await writeFile(
      path.join(dir, 'tools.yaml'),
      'echo:\n  description: Custom echo\n  kind: command\n  command: [cat]\n',
    );
    const workspace = await loadWorkspace(dir);
    expect(workspace.tools.get('echo')?.settings.kind).toBe('command');
    expect(workspace.tools.list().filter((tool) => tool.alias === 'echo')).toHaveLength(1);
    expect(workspace.problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        pointer: '/echo',
        message: 'tool "echo" replaces the builtin of the same name',
      }),
    ]);
  });
});

describe('loadWorkspace: file forms', () => {
  it('tools.yaml may be a list of entries with alias', async () => {
    const dir = await temp();
    await writeFile(
      path.join(dir, 'tools.yaml'),
      '- alias: a\n  description: A\n  kind: command\n  command: [cat]\n- alias: b\n  description: B\n  kind: http\n  url: http://127.0.0.1:9/x\n',
    );
    const workspace = await loadWorkspace(dir);
    expect(workspace.problems).toEqual([]);
    expect(workspace.tools.get('a')?.approval).toBe('ask');
    expect(workspace.tools.get('b')?.trust).toBe('untrusted');
  });

  it('empty and comment-only files are fine', async () => {
    const dir = await temp();
    await writeFile(path.join(dir, 'tools.yaml'), '# nothing yet\n');
    await writeFile(path.join(dir, 'models.yaml'), '');
    await writeFile(path.join(dir, 'promptforge.yaml'), '~\n');
    const workspace = await loadWorkspace(dir);
    expect(workspace.problems).toEqual([]);
    expect(workspace.tools.list()).toHaveLength(5);
  });

  it('a missing description is a warning and the tool loads', async () => {
    const dir = await temp();
    await writeFile(path.join(dir, 'tools.yaml'), 'x:\n  kind: command\n  command: [cat]\n');
    const workspace = await loadWorkspace(dir);
    expect(workspace.tools.get('x')).toBeDefined();
    expect(workspace.problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        file: 'tools.yaml',
        pointer: '/x',
        line: 1,
        column: 1,
        message: 'tool "x" has no description',
      }),
    ]);
  });

  it('a tools.yaml that is a folder is reported, the rest loads', async () => {
    const dir = await temp();
    await mkdir(path.join(dir, 'tools.yaml'));
    await writeFile(path.join(dir, 'models.yaml'), 'm:\n  provider: openai\n  model: gpt-4o\n');
    const workspace = await loadWorkspace(dir);
    expect(workspace.problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        file: 'tools.yaml',
        message: 'tools.yaml: cannot read the catalog file: it is a folder, not a regular file',
      }),
    ]);
    expect(workspace.models.get('m')).toBeDefined();
  });

  it('formatProblem gives file:line:column: severity: message (fix: ...)', async () => {
    const dir = await temp();
    await writeFile(path.join(dir, 'tools.yaml'), 'x:\n  kind: mcp\n');
    const [problem] = (await loadWorkspace(dir)).problems;
    expect(problem && formatProblem(problem)).toBe(
      'tools.yaml:2:9: error: MCP server "x" needs "command" (a stdio server) or "url" (a Streamable HTTP server) (fix: Add e.g. "command: npx" with "args: [-y, @modelcontextprotocol/server-filesystem, ./data]", or "url: http://127.0.0.1:3001/mcp".)',
    );
  });
});

describe('findWorkspaceRoot', () => {
  it('walks upward to the nearest folder with promptforge.yaml, tools.yaml or models.yaml', async () => {
    const dir = await temp();
    const deep = path.join(dir, 'a', 'b', 'c');
    await mkdir(deep, { recursive: true });
    expect(await findWorkspaceRoot(deep)).toBeUndefined();
    for (const file of ['models.yaml', 'tools.yaml', 'promptforge.yaml']) {
      const marked = path.join(dir, 'a', file === 'models.yaml' ? '' : file === 'tools.yaml' ? 'b' : 'b/c');
      await writeFile(path.join(marked, file), '');
      expect(await findWorkspaceRoot(deep)).toBe(path.resolve(marked));
    }
  });

  it('a folder named like a catalog file does not count', async () => {
    const dir = await temp();
    await mkdir(path.join(dir, 'tools.yaml'));
    expect(await findWorkspaceRoot(dir)).toBeUndefined();
  });
});

describe('the copy helper keeps fixtures intact', () => {
  it('copies the valid workspace', async () => {
    const dir = await copyFixture('valid');
    temps.push(dir);
    expect(await readFile(path.join(dir, 'tools.yaml'), 'utf8')).toContain('# Tools for the example workspace.');
  });
});
