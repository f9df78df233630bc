import path from 'node:path';
import { isMap, parseDocument } from 'yaml';
import { keyText, setYamlValue } from '../../../common/yaml-edit.js';
import type { CatalogFileName } from './catalog-files.js';
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
 * promptforge.yaml) cannot interleave with {@link writeCatalogFile} or {@link setAgentModel}. `work`
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
