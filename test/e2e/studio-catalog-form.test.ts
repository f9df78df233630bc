import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { expectNoSeriousAxeViolations } from './axe.js';
import { repositoryRoot, StudioHarness } from './bridge.js';

type Entries = Record<string, Record<string, unknown>>;

describe('studio: the catalog form edits every field, adds, duplicates and removes entries, and keeps comments', () => {
  const studio = new StudioHarness({ viewport: { width: 1440, height: 900 } });
  let root = '';
  let originalTools = '';
  let originalModels = '';

  beforeAll(async () => {
    await studio.open();
    studio.page.setDefaultTimeout(15_000);
    await studio.openExampleWorkspace();
    root = studio.service.workspaceRoot!;
    originalTools = await readFile(path.join(root, 'tools.yaml'), 'utf8');
    originalModels = await readFile(path.join(root, 'models.yaml'), 'utf8');
  });
  afterAll(async () => {
    await studio.close();
  });

  const editor = (file: string) => studio.page.getByRole('region', { name: `Catalog editor ${file}` });
  const card = (file: string, noun: string, alias: string) =>
    editor(file).getByRole('region', { name: `${noun} ${alias}`, exact: true });
  const problemsOf = async (file: string, noun: string, alias: string, label: string): Promise<string> => {
    const control = card(file, noun, alias).getByLabel(`${alias} ${label}`, { exact: true });
    const ids = ((await control.getAttribute('aria-describedby')) ?? '').split(' ');
    const problems = ids.find((id) => id.endsWith('-problems'))!;
    return (await studio.page.locator(`[id="${problems}"]`).textContent()) ?? '';
  };
  /** No errors (warnings, such as an untrusted tool's, may remain). */
  const waitValid = (file: string) =>
    editor(file)
      .locator('.validation-status')
      .filter({ hasText: /^(Valid|\d+ warning)/ })
      .waitFor();
  const save = async (file: string): Promise<string> => {
    await studio.page.getByRole('button', { name: `Save ${file}` }).click();
    await editor(file).getByText('Saved', { exact: true }).waitFor();
    return readFile(path.join(root, file), 'utf8');
  };

  it('shows each tool with the controls of its kind, filled from the file', async () => {
    await studio.page.getByRole('button', { name: /^Tools tools\.yaml/ }).click();
    await editor('tools.yaml').getByRole('button', { name: 'Form' }).click();
    const weather = card('tools.yaml', 'tool', 'weather');
    expect(await weather.getByLabel('weather kind').inputValue()).toBe('command');
    expect(await weather.getByLabel('weather approval', { exact: true }).inputValue()).toBe('auto');
    expect(await weather.getByLabel('weather trust', { exact: true }).inputValue()).toBe('');
    expect(await weather.getByLabel('weather command (argv) item 1', { exact: true }).inputValue()).toBe('node');
    expect(await weather.getByLabel('weather command (argv) item 2', { exact: true }).inputValue()).toBe(
      'tools/weather.mjs',
    );
    expect(JSON.parse(await weather.getByLabel('weather parameters (json schema)').inputValue())).toMatchObject({
      required: ['city'],
    });
    // Fields of other kinds are not offered; help comes from the schema.
    expect(await weather.getByLabel('weather url', { exact: true }).count()).toBe(0);
    expect(await weather.locator('.field-help').first().textContent()).toMatch(/\S/);
  });

  it('adds an http tool: the core locates each problem next to its field until it is filled in', async () => {
    const form = editor('tools.yaml');
    await form.getByLabel('New tool alias').fill('fetch_status');
    await form.getByLabel('New tool kind').selectOption('http');
    await form.getByRole('button', { name: 'Add tool' }).click();
    const entry = card('tools.yaml', 'tool', 'fetch_status');
    await expect.poll(() => problemsOf('tools.yaml', 'tool', 'fetch_status', 'url')).toMatch(/url/);
    expect(await entry.getByLabel('fetch_status url', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await entry.getByLabel('fetch_status url', { exact: true }).fill('http://127.0.0.1:9/status');
    await entry.getByLabel('fetch_status description', { exact: true }).fill('Reads the status page');
    await entry.getByRole('button', { name: 'Add fetch_status headers header' }).click();
    expect(await entry.getByLabel('fetch_status headers header 1 name', { exact: true }).inputValue()).toBe(
      'Authorization',
    );
    expect(await entry.getByLabel('fetch_status headers header 1 source', { exact: true }).inputValue()).toBe('secret');
    await entry.getByLabel('fetch_status headers header 1 keychain entry name', { exact: true }).fill('STATUS_TOKEN');
    await entry.getByRole('button', { name: 'Add fetch_status headers header' }).click();
    await entry.getByLabel('fetch_status headers header 2 name', { exact: true }).fill('Accept');
    await entry.getByLabel('fetch_status headers header 2 source', { exact: true }).selectOption('literal');
    await entry.getByLabel('fetch_status headers header 2 value', { exact: true }).fill('application/json');
    await entry.getByLabel('fetch_status timeout (ms)').fill('5000');
    await entry.getByLabel('fetch_status approval', { exact: true }).selectOption('ask');
    await entry.getByLabel('fetch_status trust', { exact: true }).selectOption('untrusted');
    await entry.getByLabel('fetch_status taint check').selectOption('true');
    await waitValid('tools.yaml');
    expect(await problemsOf('tools.yaml', 'tool', 'fetch_status', 'url')).toBe('');
  });

  it('adds a command tool with its argv, env allow-list and output cap; a bad timeout shows at its field', async () => {
    const form = editor('tools.yaml');
    await form.getByLabel('New tool alias').fill('lint');
    await form.getByLabel('New tool kind').selectOption('command');
    await form.getByRole('button', { name: 'Add tool' }).click();
    const entry = card('tools.yaml', 'tool', 'lint');
    // One problem, in the catalog's words, with one fix (not the validator's two about two branches).
    await expect
      .poll(() => problemsOf('tools.yaml', 'tool', 'lint', 'command (argv)'))
      .toBe('tool "lint": "command" is an empty list Fix: Add an item, e.g. [node, tools/search.js].');
    await entry.getByRole('button', { name: 'Add item to lint command (argv)' }).click();
    await entry.getByLabel('lint command (argv) item 1', { exact: true }).fill('node');
    await entry.getByRole('button', { name: 'Add item to lint command (argv)' }).click();
    await entry.getByLabel('lint command (argv) item 2', { exact: true }).fill('tools/lint.mjs');
    await entry.getByRole('button', { name: 'Add name to lint environment allow-list' }).click();
    await entry.getByLabel('lint environment allow-list name 1', { exact: true }).fill('HOME');
    await entry.getByLabel('lint working directory').fill('tools');
    await entry.getByLabel('lint max output (bytes)').fill('2048');
    await entry.getByLabel('lint timeout (ms)').fill('0');
    await expect.poll(() => problemsOf('tools.yaml', 'tool', 'lint', 'timeout (ms)')).toMatch(/>= 1|minimum|at least/i);
    await entry.getByLabel('lint timeout (ms)').fill('');
    await waitValid('tools.yaml');
  });

  it('duplicates and renames a tool, removes another, saves, and the file keeps its comments and formatting', async () => {
    await card('tools.yaml', 'tool', 'weather').getByRole('button', { name: 'Duplicate tool weather' }).click();
    const copy = card('tools.yaml', 'tool', 'weather-copy');
    const alias = copy.getByLabel('Alias of tool weather-copy');
    await alias.fill('forecast');
    await alias.press('Enter');
    await card('tools.yaml', 'tool', 'forecast').waitFor();
    await card('tools.yaml', 'tool', 'read_page').getByRole('button', { name: 'Remove tool read_page' }).click();
    await card('tools.yaml', 'tool', 'read_page').waitFor({ state: 'detached' });
    await waitValid('tools.yaml');
    await studio.screenshot('catalog-form');
    const saved = await save('tools.yaml');
    const entries = parse(saved) as Entries;
    expect(Object.keys(entries)).toEqual(['weather', 'forecast', 'fetch_status', 'lint']);
    expect(entries['forecast']).toEqual(entries['weather']);
    expect(entries['fetch_status']).toEqual({
      kind: 'http',
      url: 'http://127.0.0.1:9/status',
      description: 'Reads the status page',
      headers: { Authorization: { secret: 'STATUS_TOKEN' }, Accept: 'application/json' },
      timeoutMs: 5000,
      approval: 'ask',
      trust: 'untrusted',
      taintCheck: true,
    });
    expect(entries['lint']).toEqual({
      kind: 'command',
      command: ['node', 'tools/lint.mjs'],
      cwd: 'tools',
      env: ['HOME'],
      maxOutputBytes: 2048,
    });
    // Comments and the untouched entry's text survive as written (flow collections included).
    const weatherText = originalTools.slice(originalTools.indexOf('weather:'), originalTools.indexOf('\nread_page:'));
    expect(saved.startsWith(originalTools.slice(0, originalTools.indexOf('weather:')))).toBe(true);
    expect(saved).toContain(weatherText);
    expect(saved).toContain('# yaml-language-server: $schema=../schemas/tools.schema.json');
    await editor('tools.yaml').getByRole('button', { name: 'Raw' }).click();
    expect(await editor('tools.yaml').locator('.cm-content').textContent()).toContain('# echo, read_file, list_files');
    // The explorer follows the saved catalog.
    await studio.page
      .getByRole('region', { name: 'Tools' })
      .getByRole('button', { name: /^fetch_status\b/ })
      .waitFor();
  });

  it('edits models: the provider select lists exactly the providers of the schema; every field of a model', async () => {
    await studio.page.getByRole('button', { name: /^Models models\.yaml/ }).click();
    await editor('models.yaml').getByRole('button', { name: 'Form' }).click();
    const schema = JSON.parse(await readFile(path.join(repositoryRoot, 'schemas', 'models.schema.json'), 'utf8')) as {
      $defs: { model: { properties: { provider: { enum: string[] } } } };
    };
    const providers = schema.$defs.model.properties.provider.enum;
    const fast = card('models.yaml', 'model', 'fast');
    await expect.poll(() => fast.getByLabel('fast provider').locator('option').allTextContents()).toEqual(providers);
    expect(await fast.getByLabel('fast temperature').inputValue()).toBe('0.2');
    expect(await fast.getByLabel('fast max tokens').inputValue()).toBe('1024');
    expect(await fast.getByLabel('fast input price per million').inputValue()).toBe('0.15');

    // A temperature out of range: the core's problem shows at the field, and Save is refused.
    await fast.getByLabel('fast temperature').fill('5');
    await expect.poll(() => problemsOf('models.yaml', 'model', 'fast', 'temperature')).toMatch(/must be at most 2/);
    await studio.page.getByRole('button', { name: 'Save models.yaml' }).click();
    await editor('models.yaml').getByText('Not saved: fix the 1 error first').waitFor();
    expect(await readFile(path.join(root, 'models.yaml'), 'utf8')).toBe(originalModels);
    await fast.getByLabel('fast temperature').fill('0.2');

    // A new model on a self-hosted endpoint: baseUrl is required, and asked for at its field.
    const form = editor('models.yaml');
    await form.getByLabel('New model alias').fill('lan');
    await form.getByLabel('New model provider').selectOption('openai-compatible');
    await form.getByRole('button', { name: 'Add model' }).click();
    const lan = card('models.yaml', 'model', 'lan');
    await expect.poll(() => problemsOf('models.yaml', 'model', 'lan', 'base url')).toMatch(/baseUrl/);
    await lan.getByLabel('lan base url').fill('http://127.0.0.1:8080/v1');
    await lan.getByLabel('lan model', { exact: true }).fill('qwen2.5-7b');
    await lan.getByLabel('lan temperature').fill('0.3');
    await lan.getByLabel('lan max tokens').fill('512');
    await lan.getByLabel('lan input price per million').fill('0');
    await lan.getByLabel('lan output price per million').fill('0');
    await lan.getByLabel('lan currency').fill('EUR');
    await card('models.yaml', 'model', 'local').getByRole('button', { name: 'Duplicate model local' }).click();
    await card('models.yaml', 'model', 'local-copy').getByLabel('local-copy provider').selectOption('lmstudio');
    await card('models.yaml', 'model', 'claude').getByRole('button', { name: 'Remove model claude' }).click();
    await waitValid('models.yaml');
    for (const theme of ['light', 'dark'] as const) {
      await studio.page.getByRole('button', { name: `Switch to ${theme} theme` }).click();
      await expectNoSeriousAxeViolations(studio.page, `catalog form (${theme})`);
    }
    const saved = await save('models.yaml');
    const models = parse(saved) as Entries;
    expect(Object.keys(models)).toEqual(['fast', 'local', 'local-copy', 'lan']);
    expect(models['lan']).toEqual({
      provider: 'openai-compatible',
      model: 'qwen2.5-7b',
      baseUrl: 'http://127.0.0.1:8080/v1',
      defaults: { temperature: 0.3, maxTokens: 512 },
      price: { inputPerMillion: 0, outputPerMillion: 0, currency: 'EUR' },
    });
    expect(models['local-copy']).toEqual({ provider: 'lmstudio', model: 'llama3.1' });
    // The header comment and fast's flow maps are as they were.
    expect(saved.startsWith('# yaml-language-server: $schema=../schemas/models.schema.json\nfast:\n')).toBe(true);
    expect(saved).toContain('  defaults: { temperature: 0.2, maxTokens: 1024 }\n');
    expect(saved).toContain('  price: { inputPerMillion: 0.15, outputPerMillion: 0.6 }\n');
  });

  it('refuses to add an entry whose name is taken, and says so', async () => {
    const form = editor('models.yaml');
    await form.getByLabel('New model alias').fill('fast');
    await form.getByRole('button', { name: 'Add model' }).click();
    expect(await form.getByRole('alert').filter({ hasText: 'There is already a model named "fast"' }).count()).toBe(1);
  });

  it('ran without console errors or CSP violations', () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
