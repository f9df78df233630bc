import path from 'node:path';
import { type Document, isMap, isSeq, parseDocument } from 'yaml';
import {
  addYamlEntry,
  keyText,
  parseYamlDocument,
  removeYamlEntry,
  renameYamlEntry,
  setYamlValue,
  yamlEntries,
} from '../../../common/yaml-edit.js';
import type { ModelEntryYaml, ToolEntryYaml } from './catalog-file-schemas.js';
import type { CatalogFileName } from './catalog-files.js';
import { toPointer } from '../../../common/json-pointer.js';
import type { CatalogProblem } from './catalog-problem.js';
import { writeFileAtomic } from './atomic-write.js';
import { FileReadError } from '../files/regular-file.js';
import { buildWorkspace, readCatalogFile, readCatalogTexts, readProblem } from './workspace.js';
import { normalizeAgentPath } from './model-catalog.js';

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
 * Runs `work` in the queue of writes to `file` of the workspace at `root`, so that a
 * read-modify-write of that file made elsewhere (an agent rename moves the agent's settings in
 * promptforge.yaml) cannot interleave with {@link writeCatalogFile} or the entry edits. `work`
 * must not call those for the same file: it would wait for itself.
 */
export function withCatalogFileQueue<T>(root: string, file: CatalogFileName, work: () => Promise<T>): Promise<T> {
  return serialized(path.join(path.resolve(root), file), work);
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

/**
 * Writes `model` as the default of the agent at `agentPath` (`agents/x.lua`) in promptforge.yaml:
 * `agents: { <agentPath>: { model } }`, reusing the agent's entry however its key is spelled
 * (`./agents/x.lua`), creating the file or the `agents:` map when missing. Only that value's text
 * changes: comments and everything else stay. Refused (nothing written) when the file does not
 * parse or the edit would add an error there.
 */
export function setAgentModel(root: string, agentPath: string, model: string): Promise<CatalogWriteResult> {
  const file = 'promptforge.yaml';
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
      return { ok: false, problems: problems.filter((problem) => problem.severity === 'error') };
    }
    const agents = document.get('agents', true);
    const key =
      (isMap(agents) &&
        agents.items
          .map((pair) => keyText(pair))
          .find((written) => written !== undefined && normalizeAgentPath(written, undefined) === agentPath)) ||
      agentPath;
    // A file holding no mapping (empty, a comment, a lone scalar) starts over as one.
    const base = isMap(document.contents) ? original : '';
    const text = setYamlValue(base, ['agents', key, 'model'], model);
    const before = (await problemsFor(root, file, original)).filter((problem) => problem.severity === 'error');
    const after = await problemsFor(root, file, text);
    const added = after.filter(
      (problem) => problem.severity === 'error' && !before.some((old) => old.message === problem.message),
    );
    if (added.length > 0) return { ok: false, problems: added };
    await writeFileAtomic(filePath, text);
    return { ok: true, problems: after };
  });
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
    const found = editEntryText(original, document, file, alias, fields, previousAlias ?? alias);
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
    const text = found.text;
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

type EditOutcome = { ok: true; text: string; pointer: string } | { ok: false; message: string; fix: string };

/**
 * The text of `file` with entry `lookupAlias` deleted (`fields` undefined), added, or replaced and
 * renamed to `alias`. The edits go through common/yaml-edit.ts, the same text-splicing edits as the
 * studio's catalog form: only what changes is rewritten, so comments, order and formatting of
 * everything else (unchanged fields of the entry included) stay as written.
 */
function editEntryText(
  text: string,
  document: Document,
  file: string,
  alias: string,
  fields: Record<string, unknown> | undefined,
  lookupAlias: string,
): EditOutcome {
  const contents = document.contents;
  const entries = yamlEntries(document);
  const entry = entries.find((candidate) => candidate.alias === lookupAlias);
  if (fields === undefined) {
    if (!entry) return { ok: false, message: `"${alias}" is not in ${file}`, fix: 'Nothing to delete.' };
    return { ok: true, text: removeYamlEntry(text, entry), pointer: toPointer(entry.path) };
  }
  if (lookupAlias !== alias && entries.some((candidate) => candidate.alias === alias)) {
    return {
      ok: false,
      message: `"${alias}" already exists in ${file}`,
      fix: 'Pick another name or delete the other entry first.',
    };
  }
  if (!entry) {
    // A file that holds no collection (empty, or a lone scalar) starts over as a mapping.
    const collection = isMap(contents) || isSeq(contents);
    const path = isSeq(contents) ? [contents.items.length] : [alias];
    return { ok: true, text: addYamlEntry(collection ? text : '', alias, fields), pointer: toPointer(path) };
  }
  let next = lookupAlias === alias ? text : renameYamlEntry(text, entry, alias);
  const path = typeof entry.path[0] === 'number' ? entry.path : [alias];
  const current = parseYamlDocument(next).getIn(path, true);
  if (!isMap(current)) return { ok: true, text: setYamlValue(next, path, fields), pointer: toPointer(path) };
  // Fields the new entry drops go; the list form keeps its `alias` field.
  for (const pair of current.items) {
    const key = keyText(pair);
    if (key !== undefined && !(key in fields) && !(typeof path[0] === 'number' && key === 'alias'))
      next = setYamlValue(next, [...path, key], undefined);
  }
  for (const [key, value] of Object.entries(fields)) next = setYamlValue(next, [...path, key], value);
  return { ok: true, text: next, pointer: toPointer(path) };
}
