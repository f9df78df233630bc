import { isMap, isNode, isPair, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { isPlainObject } from '../../../common/json.js';
import type { CatalogFileName } from './catalog-files.js';
import { type CatalogProblem, LocatedYaml, scalarKey } from './catalog-problem.js';
import { errorMessage } from '../../../common/error-message.js';

/** Alias expansions a catalog file may make (the yaml library's own default, made explicit). */
const MAX_YAML_ALIAS_COUNT = 100;

/**
 * Parses a catalog file (or another workspace YAML file, such as a test file); reports syntax
 * errors (with line and column) and returns undefined on any.
 */
export function parseCatalogYaml(
  file: CatalogFileName | (string & {}),
  text: string | undefined,
  problems: CatalogProblem[],
): LocatedYaml | undefined {
  if (text === undefined) return undefined;
  const lineCounter = new LineCounter();
  // uniqueKeys off: duplicate aliases are reported by the checks below, which can name them.
  const document = parseDocument(text, { lineCounter, uniqueKeys: false, prettyErrors: false });
  /** A problem at a character offset of the file, for the whole file (pointer ``). */
  const report = (
    severity: CatalogProblem['severity'],
    offset: number,
    message: string,
    fix: (at: string) => string,
  ) => {
    const { line, col: column } = lineCounter.linePos(offset);
    problems.push({ severity, file, pointer: '', line, column, message, fix: fix(`line ${line}, column ${column}`) });
  };
  for (const error of document.errors) {
    report(
      'error',
      error.pos[0],
      `YAML syntax error: ${error.message.split('\n')[0]}`,
      (at) => `Fix the YAML at ${at}; nothing in ${file} is loaded until it parses.`,
    );
  }
  if (document.errors.length > 0) return undefined;
  // Expanding aliases once here turns a "billion laughs" alias bomb into a located problem,
  // instead of an exception from a later toJS() that would lose the whole catalog.
  try {
    document.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
  } catch (error) {
    problems.push({
      severity: 'error',
      file,
      pointer: '',
      line: 1,
      column: 1,
      message: `YAML cannot be loaded: ${errorMessage(error)}`,
      fix: `Use fewer alias references (*name) in ${file}: at most ${MAX_YAML_ALIAS_COUNT} expansions; nothing in ${file} is loaded until then.`,
    });
    return undefined;
  }
  for (const warning of document.warnings) {
    report(
      'warning',
      warning.pos[0],
      `YAML warning: ${warning.message.split('\n')[0]}`,
      () => 'Check the YAML at this position.',
    );
  }
  const located = new LocatedYaml(file, document, lineCounter);
  dropDuplicateKeys(located, problems);
  return located;
}

/** A node still to visit in {@link dropDuplicateKeys}, with the way to it. */
interface Visit {
  node: unknown;
  parent: Visit | undefined;
  segment: string | number | undefined;
}

function segmentsOf(visit: Visit): (string | number)[] {
  const segments: (string | number)[] = [];
  for (let at = visit; at.parent; at = at.parent) segments.unshift(at.segment!);
  return segments;
}

/**
 * Reports every key written twice in one mapping (YAML requires the keys of a mapping to differ)
 * and drops the later ones, so that the first is the one loaded, as with duplicate aliases. The
 * aliases at the top of tools.yaml and models.yaml are left to {@link firstOfAlias}, which names
 * them as tools or models. Alias references (`*name`) are not followed.
 */
function dropDuplicateKeys(located: LocatedYaml, problems: CatalogProblem[]): void {
  const pending: Visit[] = [{ node: located.document.contents, parent: undefined, segment: undefined }];
  while (pending.length > 0) {
    const visit = pending.pop()!;
    const { node } = visit;
    if (isMap(node)) {
      const aliases = visit.parent === undefined && located.file !== 'promptforge.yaml';
      const firstAt = new Map<string, number | undefined>();
      node.items = node.items.filter((pair) => {
        const key = scalarKey(pair.key);
        if (key === undefined || aliases) return true;
        const offset = isNode(pair.key) ? pair.key.range?.[0] : undefined;
        if (!firstAt.has(key)) {
          firstAt.set(key, offset);
          return true;
        }
        const first = firstAt.get(key);
        const parent = segmentsOf(visit);
        const under = parent.length === 0 ? '' : ` under "${parent.join('.')}"`;
        const firstLine = first === undefined ? '' : ` (the first is on line ${located.position(first).line})`;
        problems.push(
          located.problem(
            'error',
            [...parent, key],
            `the key "${key}" is written more than once${under}`,
            `Remove or rename this "${key}"${firstLine}; only the first is loaded.`,
            { preferKey: true, ...(offset !== undefined ? { offset } : {}) },
          ),
        );
        return false;
      });
      for (const pair of node.items)
        pending.push({ node: pair.value, parent: visit, segment: scalarKey(pair.key) ?? '?' });
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => pending.push({ node: item, parent: visit, segment: index }));
    }
  }
}

/** One entry of a catalog file, with where its alias is written. */
export interface RawEntry {
  alias: string | undefined;
  /** JSON pointer segments of the entry. */
  segments: (string | number)[];
  /** Where the alias is written (the key, or `alias` inside a list item). */
  aliasSegments: (string | number)[];
  /** Offset of the alias in the text, so duplicates point at the right occurrence. */
  aliasOffset: number | undefined;
  value: unknown;
}

/** The entries of a mapping (alias -> entry) or, when `allowList`, of a list of entries with `alias`. */
export function rawEntries(
  located: LocatedYaml,
  allowList: boolean,
  problems: CatalogProblem[],
  what: string,
): RawEntry[] | undefined {
  const contents = located.document.contents;
  if (contents === null || (isScalar(contents) && contents.value === null)) return [];
  const document = located.document;
  if (isMap(contents)) {
    return contents.items.filter(isPair).map((pair) => {
      const alias = scalarKey(pair.key);
      return {
        alias,
        segments: [alias ?? '?'],
        aliasSegments: [alias ?? '?'],
        aliasOffset: isNode(pair.key) ? pair.key.range?.[0] : undefined,
        value: isNode(pair.value) ? pair.value.toJS(document) : pair.value,
      };
    });
  }
  if (allowList && isSeq(contents)) {
    return contents.items.map((item, index) => {
      const value: unknown = isNode(item) ? item.toJS(document) : item;
      const alias = isPlainObject(value) && typeof value['alias'] === 'string' ? value['alias'] : undefined;
      const aliasNode = isMap(item) ? item.get('alias', true) : undefined;
      return {
        alias,
        segments: [index],
        aliasSegments: [index, 'alias'],
        aliasOffset: isNode(aliasNode) ? aliasNode.range?.[0] : undefined,
        value,
      };
    });
  }
  problems.push(
    located.problem(
      'error',
      [],
      `${located.file} must be a mapping from alias to ${what}${allowList ? ` (or a list of ${what}s)` : ''}`,
      allowList
        ? `Write entries as "name:" followed by indented fields, or as a list of items with "alias:".`
        : `Write entries as "name:" followed by indented fields.`,
    ),
  );
  return undefined;
}

/**
 * Reports an entry whose alias is already taken (the first one wins) and remembers `alias`.
 * Returns false for the duplicate.
 */
export function firstOfAlias(
  located: LocatedYaml,
  entry: RawEntry & { alias: string },
  seen: Set<string>,
  what: 'tool' | 'model',
  problems: CatalogProblem[],
): boolean {
  if (!seen.has(entry.alias)) {
    seen.add(entry.alias);
    return true;
  }
  problems.push(
    located.problem(
      'error',
      entry.aliasSegments,
      `${what} "${entry.alias}" is defined more than once`,
      'Rename or remove one of the entries; only the first is loaded.',
      { preferKey: true, ...(entry.aliasOffset !== undefined ? { offset: entry.aliasOffset } : {}) },
    ),
  );
  return false;
}
