import { type Document, isMap, isNode, isPair, isScalar, isSeq, type Pair, parseDocument, type YAMLMap } from 'yaml';

/**
 * Edits of YAML text through the document model that touch only the part they change.
 *
 * The `yaml` printer normalises a whole file when it prints it (flow collection padding, line
 * folding), so a one-field edit would reformat every entry. Here the document model finds the
 * node an edit is about, and only that node's text is spliced: a scalar in place, a changed field
 * as its own lines (keeping flow style), a new field after the last one of its map. Every other
 * byte, comments included, stays as written. Each result is parsed again and compared with the
 * same edit made on the model; should the splice not give that value, the whole document is
 * printed instead (comments still survive, formatting may not).
 *
 * @module
 */

/** A path into the document: map keys and sequence indexes. */
export type YamlPath = readonly (string | number)[];

/** Options for printing: no folding of long lines. */
const PRINT = { lineWidth: 0 } as const;

/** The YAML document of `text`; throws with the parser's first message when it does not parse. */
export function parseYamlDocument(text: string): Document {
  const document = parseDocument(text, { uniqueKeys: false });
  const first = document.errors[0];
  if (first) throw new Error(first.message);
  return document;
}

/** The text of a map key as a string (`undefined` for complex keys). */
export function keyText(pair: unknown): string | undefined {
  if (!isPair(pair)) return undefined;
  const key = pair.key;
  if (isScalar(key)) return String(key.value);
  return typeof key === 'string' || typeof key === 'number' ? String(key) : undefined;
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

function lineEnd(text: string, offset: number): number {
  const newline = text.indexOf('\n', offset);
  return newline < 0 ? text.length : newline + 1;
}

/** Where a pair's text ends: after the line its value ends on. */
function pairEnd(text: string, pair: Pair): number | undefined {
  const key = pair.key;
  if (!isNode(key) || !key.range) return undefined;
  const value = pair.value;
  const end = isNode(value) && value.range && value.range[1] > value.range[0] ? value.range[1] : key.range[1];
  return lineEnd(text, Math.max(key.range[1], end - 1));
}

/** Whether the text of a flow collection puts spaces inside its brackets (`{ a: 1 }`). */
function flowPadding(source: string): boolean {
  return /[[{] \S/.test(source);
}

/** A fresh empty document (for printing one pair or entry on its own). */
function emptyDocument(): Document {
  return parseDocument('');
}

/**
 * `key: value` as YAML lines, the first without indentation, the rest indented by `indent`. A
 * value replacing a flow collection (`[a, b]`, `{ a: 1 }`) stays flow, with the same padding.
 */
function printPair(key: string, value: unknown, indent: string, like: unknown, text: string): string {
  const document = emptyDocument();
  const node = document.createNode(value);
  let padding = true;
  if (isNode(like) && (isMap(like) || isSeq(like)) && like.flow && like.range) {
    if (isMap(node) || isSeq(node)) node.flow = true;
    padding = flowPadding(text.slice(like.range[0], like.range[1]));
  }
  const map = document.createNode({}) as YAMLMap;
  map.items.push(document.createPair(key, node));
  document.contents = map;
  const out = document.toString({ ...PRINT, flowCollectionPadding: padding }).replace(/\n$/, '');
  return `${out.split('\n').join(`\n${indent}`)}\n`;
}

function valueAt(document: Document, path: YamlPath): unknown {
  const node = document.getIn(path, true);
  return isNode(node) ? node.toJSON() : node;
}

/** What the model says the edit gives, to check a splice against. */
function expected(text: string, path: YamlPath, value: unknown): string {
  const document = parseYamlDocument(text);
  if (value === undefined) document.deleteIn(path);
  else document.setIn(path, document.createNode(value));
  return JSON.stringify(document.toJS());
}

function same(text: string, wanted: string): boolean {
  try {
    return JSON.stringify(parseYamlDocument(text).toJS()) === wanted;
  } catch {
    return false;
  }
}

/** The whole document printed after the edit: the fallback when a splice is not possible. */
function printed(text: string, path: YamlPath, value: unknown): string {
  const document = parseYamlDocument(text);
  if (value === undefined) document.deleteIn(path);
  else document.setIn(path, document.createNode(value));
  return document.toString(PRINT);
}

function withValue(current: unknown, rest: YamlPath, value: unknown): unknown {
  if (rest.length === 0) return value;
  const [head, ...tail] = rest;
  const base: Record<string | number, unknown> =
    current !== null && typeof current === 'object' ? structuredClone(current as Record<string, unknown>) : {};
  const next = withValue(base[head as string], tail, value);
  if (next === undefined) {
    if (Array.isArray(base) && typeof head === 'number') base.splice(head, 1);
    else delete base[head as string];
  } else base[head as string] = next;
  return base;
}

function splice(text: string, path: YamlPath, value: unknown, document: Document): string | undefined {
  // A scalar replaced by a scalar: only its characters change (a comment after it stays).
  const target = document.getIn(path, true);
  const scalarValue = value === null || ['string', 'number', 'boolean'].includes(typeof value);
  if (isScalar(target) && target.range && scalarValue) {
    const [start, end] = target.range;
    return `${text.slice(0, start)}${printScalar(value)}${text.slice(end)}`;
  }
  // Otherwise the deepest block map on the path takes the edit as one of its pairs.
  let container: unknown = document.contents;
  let depth = 0;
  for (;;) {
    if (isSeq(container) && !container.flow && depth < path.length - 1) {
      const item = container.get(path[depth], true);
      if (!isMap(item) || item.flow) return undefined;
      container = item;
      depth += 1;
      continue;
    }
    if (!isMap(container) || container.flow) return undefined;
    if (depth === path.length - 1) break;
    const child = container.get(path[depth], true);
    if (!isMap(child) || child.flow || child.items.length === 0) break;
    container = child;
    depth += 1;
  }
  const block = container as YAMLMap;
  const key = String(path[depth]);
  const pair = block.items.find((candidate) => keyText(candidate) === key);
  const rest = path.slice(depth + 1);
  const old: unknown = pair ? (isNode(pair.value) ? pair.value.toJSON() : pair.value) : undefined;
  const newValue = withValue(old, rest, value);
  if (pair) {
    if (!isNode(pair.key) || !pair.key.range) return undefined;
    const start = pair.key.range[0];
    const end = pairEnd(text, pair);
    if (end === undefined) return undefined;
    const prefix = text.slice(lineStart(text, start), start);
    if (newValue === undefined) {
      if (prefix.trim() !== '') return undefined;
      return `${text.slice(0, lineStart(text, start))}${text.slice(end)}`;
    }
    const indent = ' '.repeat(prefix.length);
    return `${text.slice(0, start)}${printPair(key, newValue, indent, pair.value, text)}${text.slice(end)}`;
  }
  if (newValue === undefined) return text;
  const last = block.items.at(-1);
  if (!last || !isNode(last.key) || !last.key.range) return undefined;
  const end = pairEnd(text, last);
  if (end === undefined) return undefined;
  const lastStart = last.key.range[0];
  const indent = ' '.repeat(lastStart - lineStart(text, lastStart));
  const before = text.slice(0, end);
  const after = text.slice(end);
  return `${before}${before.endsWith('\n') ? '' : '\n'}${indent}${printPair(key, newValue, indent, undefined, text)}${after}`;
}

/** A scalar as YAML: plain when that reads back as the same value, else JSON (valid YAML). */
function printScalar(value: unknown): string {
  if (typeof value === 'string') {
    const plain =
      /^[A-Za-z_][A-Za-z0-9 _.,()/+-]*$/.test(value) &&
      !value.endsWith(' ') &&
      !/^(true|false|null|yes|no|on|off|y|n|~)$/i.test(value);
    return plain ? value : JSON.stringify(value);
  }
  return JSON.stringify(value);
}

/**
 * Sets the value at `path` (or removes it, with `undefined`), changing only the text of what
 * changed; see the module comment. Throws when `text` does not parse.
 */
export function setYamlValue(text: string, path: YamlPath, value: unknown): string {
  const document = parseYamlDocument(text);
  const current = valueAt(document, path);
  if (JSON.stringify(current) === JSON.stringify(value)) return text;
  const wanted = expected(text, path, value);
  const spliced = splice(text, path, value, document);
  if (spliced !== undefined && same(spliced, wanted)) return spliced;
  return printed(text, path, value);
}

/** One top-level entry of a catalog: its alias and where it sits (key, or index in the list form). */
export interface YamlEntry {
  alias: string;
  /** The path of the entry: `[alias]` in the mapping form, `[index]` in the list form. */
  path: YamlPath;
}

/** The top-level entries of a catalog document (mapping form, or list form with `alias`). */
export function yamlEntries(document: Document): YamlEntry[] {
  const contents = document.contents;
  if (isMap(contents))
    return contents.items.flatMap((pair) => {
      const alias = keyText(pair);
      return alias === undefined ? [] : [{ alias, path: [alias] }];
    });
  if (isSeq(contents))
    return contents.items.map((item, index) => ({
      alias: isMap(item) ? String(item.get('alias') ?? '') : '',
      path: [index],
    }));
  return [];
}

/** The text range of entry `entry` (from its first line to the end of its last line). */
function entryRange(text: string, document: Document, entry: YamlEntry): [number, number] | undefined {
  const contents = document.contents;
  if (isMap(contents)) {
    const pair = contents.items.find((candidate) => keyText(candidate) === entry.alias);
    if (!pair || !isNode(pair.key) || !pair.key.range) return undefined;
    const start = lineStart(text, pair.key.range[0]);
    const end = pairEnd(text, pair);
    return end === undefined || text.slice(start, pair.key.range[0]).trim() !== '' ? undefined : [start, end];
  }
  if (isSeq(contents)) {
    const item = contents.items[entry.path[0] as number];
    if (!isNode(item) || !item.range) return undefined;
    const start = lineStart(text, item.range[0]);
    const end = lineEnd(text, Math.max(item.range[0], item.range[1] - 1));
    return [start, end];
  }
  return undefined;
}

/** Whether entries are separated by blank lines (so a new one gets one too). */
function spacedEntries(document: Document): boolean {
  const contents = document.contents;
  if (!isMap(contents) && !isSeq(contents)) return false;
  return contents.items.slice(1).some((item) => {
    const node = isPair(item) ? item.key : item;
    return isNode(node) && node.spaceBefore === true;
  });
}

/** Renames an entry in place (its key, or its `alias` field in the list form). */
export function renameYamlEntry(text: string, entry: YamlEntry, alias: string): string {
  const document = parseYamlDocument(text);
  if (typeof entry.path[0] === 'number') return setYamlValue(text, [entry.path[0], 'alias'], alias);
  const contents = document.contents;
  const pair = isMap(contents) ? contents.items.find((candidate) => keyText(candidate) === entry.alias) : undefined;
  if (!pair || !isScalar(pair.key) || !pair.key.range) throw new Error(`no entry "${entry.alias}"`);
  const [start, end] = pair.key.range;
  return `${text.slice(0, start)}${printScalar(alias)}${text.slice(end)}`;
}

/** Adds an entry `alias` with `fields` at the end. */
export function addYamlEntry(text: string, alias: string, fields: Record<string, unknown>): string {
  const document = parseYamlDocument(text);
  const contents = document.contents;
  const list = isSeq(contents);
  const model = parseYamlDocument(text);
  addToModel(model, alias, fields);
  const flow = (isMap(contents) || isSeq(contents)) && contents.flow === true;
  if (!flow && (contents === null || isMap(contents) || list)) {
    const fresh = emptyDocument();
    fresh.contents = fresh.createNode(list ? [{ alias, ...fields }] : { [alias]: fields }) as typeof fresh.contents;
    const base = text === '' || text.endsWith('\n') ? text : `${text}\n`;
    const gap = yamlEntries(document).length > 0 && spacedEntries(document) ? '\n' : '';
    const result = `${base}${gap}${fresh.toString(PRINT)}`;
    if (same(result, JSON.stringify(model.toJS()))) return result;
  }
  return model.toString(PRINT);
}

function addToModel(document: Document, alias: string, fields: Record<string, unknown>): void {
  if (isSeq(document.contents)) document.contents.items.push(document.createNode({ alias, ...fields }));
  else document.setIn([alias], document.createNode(fields));
}

/** Removes an entry; a comment above it moves to the entry after it. */
export function removeYamlEntry(text: string, entry: YamlEntry): string {
  const document = parseYamlDocument(text);
  const range = entryRange(text, document, entry);
  const wanted = (() => {
    const copy = parseYamlDocument(text);
    copy.deleteIn(entry.path);
    return JSON.stringify(copy.toJS());
  })();
  if (range) {
    let [start, end] = range;
    // Drop the blank line that separated it from the next entry.
    if (text.slice(end).startsWith('\n') && (start === 0 || text.slice(0, start).endsWith('\n\n'))) end += 1;
    else if (text.slice(end) === '' && text.slice(0, start).endsWith('\n\n')) start -= 1;
    const result = `${text.slice(0, start)}${text.slice(end)}`;
    if (same(result, wanted)) return result;
  }
  const copy = parseYamlDocument(text);
  copy.deleteIn(entry.path);
  return copy.toString(PRINT);
}

/** Copies an entry, as written, right after it under the name `alias`. */
export function duplicateYamlEntry(text: string, entry: YamlEntry, alias: string): string {
  const document = parseYamlDocument(text);
  const range = entryRange(text, document, entry);
  if (range) {
    const [start, end] = range;
    const withNewline = (part: string): string => (part === '' || part.endsWith('\n') ? part : `${part}\n`);
    const gap = spacedEntries(document) ? '\n' : '';
    const copied = `${withNewline(text.slice(0, end))}${gap}${withNewline(text.slice(start, end))}${text.slice(end)}`;
    const renamed =
      typeof entry.path[0] === 'number'
        ? setYamlValue(copied, [entry.path[0] + 1, 'alias'], alias)
        : renameSecond(copied, entry.alias, alias);
    if (renamed !== undefined) return renamed;
  }
  const model = parseYamlDocument(text);
  const value = valueAt(model, entry.path) as Record<string, unknown>;
  if (isSeq(model.contents))
    model.contents.items.splice(Number(entry.path[0]) + 1, 0, model.createNode({ ...value, alias }));
  else model.setIn([alias], model.createNode(value));
  return model.toString(PRINT);
}

/** Renames the second of two keys named `alias` (the fresh copy). */
function renameSecond(text: string, alias: string, next: string): string | undefined {
  const document = parseYamlDocument(text);
  const contents = document.contents;
  if (!isMap(contents)) return undefined;
  const pairs = contents.items.filter((pair) => keyText(pair) === alias);
  const second = pairs[1];
  if (!second || !isScalar(second.key) || !second.key.range) return undefined;
  const [start, end] = second.key.range;
  return `${text.slice(0, start)}${printScalar(next)}${text.slice(end)}`;
}
