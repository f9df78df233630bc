import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  addYamlEntry,
  duplicateYamlEntry,
  parseYamlDocument,
  removeYamlEntry,
  renameYamlEntry,
  setYamlValue,
  yamlEntries,
} from '../../../common/yaml-edit.js';

const examples = path.resolve(import.meta.dirname, '..', '..', '..', 'examples');
const tools = readFileSync(path.join(examples, 'tools.yaml'), 'utf8');
const models = readFileSync(path.join(examples, 'models.yaml'), 'utf8');

/** The lines of `after` that are not in `before` (a cheap diff: edits here touch few lines). */
function changedLines(before: string, after: string): string[] {
  const old = new Set(before.split('\n'));
  return after.split('\n').filter((line) => !old.has(line));
}

const entryOf = (text: string, alias: string) => {
  const entry = yamlEntries(parseYamlDocument(text)).find((candidate) => candidate.alias === alias);
  if (!entry) throw new Error(`no ${alias}`);
  return entry;
};

describe('YAML edits through the document model touch only what they change', () => {
  it('replaces a scalar in place and keeps the comment after it', () => {
    const text = 'a:\n  x: 1 # the x\n  y: two\n';
    expect(setYamlValue(text, ['a', 'x'], 5)).toBe('a:\n  x: 5 # the x\n  y: two\n');
    expect(setYamlValue(text, ['a', 'y'], 'true')).toBe('a:\n  x: 1 # the x\n  y: "true"\n');
  });

  it('replaces a flow list keeping its style, and leaves every other line of tools.yaml as written', () => {
    const next = setYamlValue(tools, ['weather', 'command'], ['node', 'tools/weather.mjs', '--celsius']);
    expect(changedLines(tools, next)).toEqual(['  command: [node, tools/weather.mjs, --celsius]']);
    expect(parse(next).weather.command).toEqual(['node', 'tools/weather.mjs', '--celsius']);
  });

  it('adds a field after the last one of its entry, and a nested one into a flow map with its padding', () => {
    const next = setYamlValue(tools, ['weather', 'timeoutMs'], 5000);
    expect(changedLines(tools, next)).toEqual(['  timeoutMs: 5000']);
    expect(parse(next).weather.timeoutMs).toBe(5000);
    const priced = setYamlValue(models, ['fast', 'price', 'currency'], 'EUR');
    expect(changedLines(models, priced)).toEqual([
      '  price: { inputPerMillion: 0.15, outputPerMillion: 0.6, currency: EUR }',
    ]);
    const tight = setYamlValue(
      'm:\n  price: {inputPerMillion: 1, outputPerMillion: 2}\n',
      ['m', 'price', 'currency'],
      'EUR',
    );
    expect(tight).toBe('m:\n  price: {inputPerMillion: 1, outputPerMillion: 2, currency: EUR}\n');
  });

  it('adds a map field as block lines and removes a field with its line', () => {
    const next = setYamlValue(tools, ['read_page', 'headers'], { Authorization: { secret: 'PAGES_TOKEN' } });
    expect(parse(next).read_page.headers).toEqual({ Authorization: { secret: 'PAGES_TOKEN' } });
    expect(next).toContain('  headers:\n    Authorization:\n      secret: PAGES_TOKEN\n');
    const removed = setYamlValue(next, ['read_page', 'headers'], undefined);
    expect(removed).toBe(tools);
    expect(setYamlValue(tools, ['weather', 'approval'], undefined)).toBe(tools.replace('  approval: auto\n', ''));
  });

  it('adds, duplicates, renames and removes entries; the file header comment survives each', () => {
    const added = addYamlEntry(tools, 'clock', { kind: 'builtin', builtin: 'now' });
    expect(added).toBe(`${tools}\nclock:\n  kind: builtin\n  builtin: now\n`);
    const copied = duplicateYamlEntry(added, entryOf(added, 'weather'), 'weather-copy');
    const parsed = parse(copied) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['weather', 'weather-copy', 'read_page', 'clock']);
    expect(parsed['weather-copy']).toEqual(parsed['weather']);
    // The copy keeps the original's formatting, flow collections and all.
    expect(copied.split('{ type: string }').length).toBe(added.split('{ type: string }').length + 2);
    const renamed = renameYamlEntry(copied, entryOf(copied, 'weather-copy'), 'forecast');
    expect(Object.keys(parse(renamed) as object)).toEqual(['weather', 'forecast', 'read_page', 'clock']);
    const removed = removeYamlEntry(renamed, entryOf(renamed, 'forecast'));
    expect(removed).toBe(added);
    const first = removeYamlEntry(tools, entryOf(tools, 'weather'));
    expect(first.startsWith('# yaml-language-server: $schema=../schemas/tools.schema.json\n# echo, read_file')).toBe(
      true,
    );
    expect(Object.keys(parse(first) as object)).toEqual(['read_page']);
  });

  it('works on the list form, where the alias is a field', () => {
    const list = '# tools\n- alias: a\n  kind: builtin\n  builtin: echo\n';
    const added = addYamlEntry(list, 'b', { kind: 'builtin', builtin: 'now' });
    expect(parse(added)).toEqual([
      { alias: 'a', kind: 'builtin', builtin: 'echo' },
      { alias: 'b', kind: 'builtin', builtin: 'now' },
    ]);
    const copied = duplicateYamlEntry(added, entryOf(added, 'a'), 'a2');
    expect((parse(copied) as { alias: string }[]).map((item) => item.alias)).toEqual(['a', 'a2', 'b']);
    const edited = setYamlValue(copied, [1, 'description'], 'The copy');
    expect((parse(edited) as Record<string, unknown>[])[1]).toEqual({
      alias: 'a2',
      kind: 'builtin',
      builtin: 'echo',
      description: 'The copy',
    });
    const removed = removeYamlEntry(edited, entryOf(edited, 'a2'));
    expect(removed).toBe(added);
    expect(removed.startsWith('# tools\n')).toBe(true);
  });

  it('adds the first entry to an empty or comment-only file', () => {
    expect(addYamlEntry('', 'm', { provider: 'ollama', model: 'llama3.1' })).toBe(
      'm:\n  provider: ollama\n  model: llama3.1\n',
    );
    expect(addYamlEntry('# models\n', 'm', { provider: 'replay' })).toBe('# models\nm:\n  provider: replay\n');
  });

  it('refuses text that does not parse, with the parser message', () => {
    expect(() => setYamlValue('a: [\n', ['a'], 1)).toThrow(/flow|end|expected/i);
  });
});
