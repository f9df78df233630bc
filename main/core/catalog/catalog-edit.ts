import path from 'node:path';
import { type Document, isMap, isNode, isPair, isSeq, parseDocument, type Pair, type YAMLMap } from 'yaml';
import type { CatalogFileName, ModelEntryYaml, ToolEntryYaml } from './catalog-file-schemas.js';
import { toPointer } from '../../../common/json-pointer.js';
import type { CatalogProblem } from './catalog-problem.js';
import { writeFileAtomic } from './atomic-write.js';
import { FileReadError } from '../files/regular-file.js';
import { buildWorkspace, readCatalogFile, readCatalogTexts, readProblem } from './workspace.js';

/** The result of a catalog write. Nothing is written when `ok` is false. */
export type CatalogWriteResult =
  | { ok: true; /** Warnings for the written file. */ problems: CatalogProblem[] }
  | { ok: false; /** The errors (and warnings) that refused the write. */ problems: CatalogProblem[] };

// Writes to one file are serialized so that two quick edits from the studio cannot interleave
// their read-modify-write cycles.
const writeQueues = new Map<string, Promise<unknown>>();

function serialized<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = writeQueues.get(key) ?? Promise.resolve();
  const next = previous.then(work, work);
  writeQueues.set(
    key,
    next.catch(() => undefined),
  );
  return next;
}

/**
 * Validates `text` as `file` of the workspace at `root` (in the context of the other files on
 * disk) and writes it atomically only when the file has no errors. A refused write returns the
 * problems and leaves the file untouched.
 */
export function writeCatalogFile(root: string, file: CatalogFileName, text: string): Promise<CatalogWriteResult> {
  return serialized(path.join(path.resolve(root), file), async () => {
    const problems = await problemsFor(root, file, text);
    if (problems.some((problem) => problem.severity === 'error')) return { ok: false, problems };
    await writeFileAtomic(path.join(root, file), text);
    return { ok: true, problems };
  });
}

async function problemsFor(root: string, file: CatalogFileName, text: string): Promise<CatalogProblem[]> {
  const texts = await readCatalogTexts(root);
  texts[file] = text;
  return buildWorkspace(path.resolve(root), texts).problems.filter((problem) => problem.file === file);
}

/**
 * Adds or replaces tool `alias` in tools.yaml, editing the YAML document so comments and the
 * order of other entries survive. Unchanged fields keep their comments too. With
 * `previousAlias`, the entry is renamed in place. Refused (nothing written) when the new entry has
 * errors or the file does not parse; problems elsewhere in the file do not block the edit.
 */
export function saveToolEntry(
  root: string,
  alias: string,
  entry: ToolEntryYaml,
  options: { previousAlias?: string } = {},
): Promise<CatalogWriteResult> {
  const { alias: _ignored, ...fields } = entry;
  return editEntry(root, 'tools.yaml', alias, fields as Record<string, unknown>, options.previousAlias);
}

/** Removes tool `alias` from tools.yaml (comments elsewhere survive). `ok: false` when absent. */
export function deleteToolEntry(root: string, alias: string): Promise<CatalogWriteResult> {
  return editEntry(root, 'tools.yaml', alias, undefined, undefined);
}

/** Adds or replaces model `alias` in models.yaml; see {@link saveToolEntry}. */
export function saveModelEntry(
  root: string,
  alias: string,
  entry: ModelEntryYaml,
  options: { previousAlias?: string } = {},
): Promise<CatalogWriteResult> {
  return editEntry(root, 'models.yaml', alias, entry as unknown as Record<string, unknown>, options.previousAlias);
}

/** Removes model `alias` from models.yaml. */
export function deleteModelEntry(root: string, alias: string): Promise<CatalogWriteResult> {
  return editEntry(root, 'models.yaml', alias, undefined, undefined);
}

function editEntry(
  root: string,
  file: 'tools.yaml' | 'models.yaml',
  alias: string,
  fields: Record<string, unknown> | undefined,
  previousAlias: string | undefined,
): Promise<CatalogWriteResult> {
  const filePath = path.join(path.resolve(root), file);
  return serialized(filePath, async () => {
    let original = '';
    try {
      original = await readCatalogFile(filePath, file);
    } catch (error) {
      if (!(error instanceof FileReadError && error.reason === 'missing'))
        return { ok: false, problems: [readProblem(file, error)] };
    }
    const document = parseDocument(original, { uniqueKeys: false });
    if (document.errors.length > 0) {
      const problems = await problemsFor(root, file, original);
      return { ok: false, problems: problems.filter((problem) => problem.pointer === '') };
    }
    const found = applyEdit(document, file, alias, fields, previousAlias ?? alias);
    if (!found.ok) {
      return {
        ok: false,
        problems: [
          {
            severity: 'error',
            file,
            pointer: toPointer([alias]),
            line: 1,
            column: 1,
            message: found.message,
            fix: found.fix,
          },
        ],
      };
    }
    const text = document.toString();
    const problems = await problemsFor(root, file, text);
    const entryPointer = found.pointer;
    const mine = problems.filter(
      (problem) =>
        problem.pointer === entryPointer || problem.pointer.startsWith(`${entryPointer}/`) || problem.pointer === '',
    );
    if (mine.some((problem) => problem.severity === 'error')) return { ok: false, problems: mine };
    await writeFileAtomic(filePath, text);
    return { ok: true, problems: mine };
  });
}

type EditOutcome = { ok: true; pointer: string } | { ok: false; message: string; fix: string };

function applyEdit(
  document: Document,
  file: string,
  alias: string,
  fields: Record<string, unknown> | undefined,
  lookupAlias: string,
): EditOutcome {
  if (document.contents === null || (!isMap(document.contents) && !isSeq(document.contents))) {
    if (fields === undefined) return { ok: false, message: `"${alias}" is not in ${file}`, fix: 'Nothing to delete.' };
    document.contents = document.createNode({}) as unknown as typeof document.contents;
  }
  const contents = document.contents;
  if (isSeq(contents)) {
    const index = contents.items.findIndex((item) => isMap(item) && item.get('alias') === lookupAlias);
    if (fields === undefined) {
      if (index < 0) return { ok: false, message: `"${alias}" is not in ${file}`, fix: 'Nothing to delete.' };
      contents.items.splice(index, 1);
      return { ok: true, pointer: toPointer([index]) };
    }
    if (index < 0) {
      contents.items.push(document.createNode({ alias, ...fields }));
      return { ok: true, pointer: toPointer([contents.items.length - 1]) };
    }
    const item = contents.items[index] as YAMLMap;
    updateMap(document, item, { alias, ...fields });
    return { ok: true, pointer: toPointer([index]) };
  }
  const map = contents as YAMLMap;
  const pairIndex = map.items.findIndex((pair) => isPair(pair) && keyText(pair) === lookupAlias);
  if (fields === undefined) {
    if (pairIndex < 0) return { ok: false, message: `"${alias}" is not in ${file}`, fix: 'Nothing to delete.' };
    map.items.splice(pairIndex, 1);
    return { ok: true, pointer: toPointer([alias]) };
  }
  if (lookupAlias !== alias && map.items.some((pair) => keyText(pair) === alias)) {
    return {
      ok: false,
      message: `"${alias}" already exists in ${file}`,
      fix: 'Pick another name or delete the other entry first.',
    };
  }
  if (pairIndex < 0) {
    map.add(document.createPair(alias, fields));
    return { ok: true, pointer: toPointer([alias]) };
  }
  const pair = map.items[pairIndex] as Pair;
  if (lookupAlias !== alias) {
    const newKey = document.createNode(alias);
    if (isNode(pair.key)) {
      newKey.commentBefore = pair.key.commentBefore;
      newKey.spaceBefore = pair.key.spaceBefore;
    }
    pair.key = newKey;
  }
  if (isMap(pair.value)) updateMap(document, pair.value, fields);
  else pair.value = document.createNode(fields);
  return { ok: true, pointer: toPointer([alias]) };
}

/** Sets changed fields, removes dropped ones and leaves equal ones (and their comments) alone. */
function updateMap(document: Document, map: YAMLMap, fields: Record<string, unknown>): void {
  for (const pair of [...map.items]) {
    const key = keyText(pair);
    if (key !== undefined && !(key in fields)) map.delete(key);
  }
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) {
      map.delete(key);
      continue;
    }
    const existing = map.get(key, true);
    const current: unknown = isNode(existing) ? existing.toJSON() : existing;
    if (existing !== undefined && JSON.stringify(current) === JSON.stringify(value)) continue;
    map.set(key, document.createNode(value));
  }
}

function keyText(pair: unknown): string | undefined {
  if (!isPair(pair)) return undefined;
  const key = pair.key;
  if (isNode(key) && 'value' in key) return String((key as { value: unknown }).value);
  return typeof key === 'string' ? key : undefined;
}
