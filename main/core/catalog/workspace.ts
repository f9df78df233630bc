import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { McpServerSpec } from './mcp-spec.js';
import type { ToolSpec } from '../tools/tool-spec.js';
import { type CatalogFileName, CATALOG_FILES } from './catalog-files.js';
import { type CatalogTexts, checkCatalogs } from './catalog-loader.js';
import type { WorkspaceSettings } from './settings-entry.js';
import type { CatalogProblem } from './catalog-problem.js';
import { UserSchemaCompiler } from './catalog-schemas.js';
import { type ModelCatalog, ModelCatalogImpl } from './model-catalog.js';
import { FileReadError, readRegularFileText } from '../files/regular-file.js';
import { ToolCatalogImpl } from './tool-catalog.js';
import { errorMessage } from '../../../common/error-message.js';

/** A loaded workspace folder: settings, catalogs, scripts and every problem found. */
export interface Workspace {
  /** Absolute path of the workspace folder. */
  root: string;
  settings: WorkspaceSettings;
  tools: ToolCatalogImpl;
  models: ModelCatalog;
  /** Errors (entry or file dropped) and warnings, in file order. */
  problems: CatalogProblem[];
  /** Agent scripts: workspace-relative paths of `agents/*.lua`, sorted. */
  agents: string[];
  /** sha256 of each catalog file that exists, for the transcript's run-start event. */
  catalogVersions: Record<string, string>;
  /** The MCP servers of tools.yaml; their tools join a run's catalog once listed (see main/core/mcp). */
  mcpServers?: McpServerSpec[];
}

/** Folder of agent scripts, relative to the root. */
export const AGENTS_DIR = 'agents';
/** Folder of run transcripts (`*.jsonl`), relative to the root. Written by the run engine. */
export const RUNS_DIR = 'runs';
/** The folder of a workspace where agent test files live (`promptforge test`, docs/testing.md). */
export const TESTS_DIR = 'tests';

/** The largest catalog file read; a bigger one is a problem, not a hang. */
const MAX_CATALOG_FILE_BYTES = 4 << 20;

/**
 * Reads the catalog files that exist under `root`; unreadable ones (a folder, a FIFO, a device, a
 * file over {@link MAX_CATALOG_FILE_BYTES}) become problems. Never blocks on a FIFO or a device.
 */
export async function readCatalogTexts(root: string, problems: CatalogProblem[] = []): Promise<CatalogTexts> {
  const texts: CatalogTexts = {};
  await Promise.all(
    CATALOG_FILES.map(async (file) => {
      try {
        texts[file] = await readCatalogFile(path.join(root, file), file);
      } catch (error) {
        if (error instanceof FileReadError && error.reason === 'missing') return;
        problems.push(readProblem(file, error));
      }
    }),
  );
  return texts;
}

/** One catalog file's text, read safely; throws {@link FileReadError}. */
export function readCatalogFile(file: string, shown = file): Promise<string> {
  return readRegularFileText(file, MAX_CATALOG_FILE_BYTES, 'catalog file', shown);
}

/** The problem for a catalog file that could not be read (see {@link readCatalogFile}). */
export function readProblem(file: CatalogFileName, error: unknown): CatalogProblem {
  const reason = error instanceof FileReadError ? error.reason : 'unreadable';
  return {
    severity: 'error',
    file,
    pointer: '',
    line: 1,
    column: 1,
    message: error instanceof FileReadError ? error.detail : `cannot read ${file}: ${errorMessage(error)}`,
    fix: READ_FIXES[reason].replaceAll('FILE', file),
  };
}

const READ_FIXES: Record<FileReadError['reason'], string> = {
  missing: 'Create FILE.',
  'not-regular':
    'Replace FILE with a regular YAML file (not a folder, pipe, device or link to one); nothing in it is loaded until then.',
  'too-large': `Keep FILE under ${MAX_CATALOG_FILE_BYTES >> 20} MiB; nothing in it is loaded until then.`,
  unreadable: "Check the file's permissions.",
};

/**
 * Loads the workspace at `dir`. Never rejects for bad content: bad entries are dropped and
 * reported in `problems`, and the valid rest is usable. A folder with no catalog files still has
 * the builtin tools. Rejects only when `dir` itself cannot be read.
 */
export async function loadWorkspace(dir: string): Promise<Workspace> {
  const root = path.resolve(dir);
  const stat = await fs.stat(root);
  if (!stat.isDirectory()) throw new Error(`${root} is not a folder`);
  const readProblems: CatalogProblem[] = [];
  const texts = await readCatalogTexts(root, readProblems);
  const workspace = buildWorkspace(root, texts);
  workspace.problems.unshift(...readProblems);
  workspace.agents = await listAgents(root);
  return workspace;
}

/** Builds a workspace from catalog texts already in memory (used to validate before writing). */
export function buildWorkspace(root: string, texts: CatalogTexts): Workspace {
  const compiler = new UserSchemaCompiler();
  const checked = checkCatalogs(texts, compiler);
  const agentModels = new Map<string, string>();
  for (const [agentPath, agentSettings] of Object.entries(checked.settings.agents)) {
    if (agentSettings.model !== undefined) agentModels.set(agentPath, agentSettings.model);
  }
  return {
    root,
    settings: checked.settings,
    tools: new ToolCatalogImpl(checked.tools as ToolSpec[], compiler),
    models: new ModelCatalogImpl(checked.models, root, checked.settings.defaultModel, agentModels),
    problems: checked.problems,
    agents: [],
    catalogVersions: checked.versions,
    mcpServers: checked.mcpServers,
  };
}

async function listAgents(root: string): Promise<string[]> {
  try {
    const entries = await fs.readdir(path.join(root, AGENTS_DIR), { withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile() && entry.name.endsWith('.lua'))
      .map((entry) => `${AGENTS_DIR}/${entry.name}`)
      .sort();
  } catch {
    return [];
  }
}
