import { createHash } from 'node:crypto';
import type { McpServerSpec } from './mcp-spec.js';
import { builtinToolSpecs } from '../tools/builtin-tools.js';
import type { ToolSpec } from '../tools/tool-spec.js';
import { CATALOG_FILES, type CatalogFileName } from './catalog-files.js';
import type { CatalogProblem } from './catalog-problem.js';
import { UserSchemaCompiler } from './catalog-schemas.js';
import { parseCatalogYaml } from './catalog-yaml.js';
import type { ModelSpec } from './model-catalog.js';
import { checkModels } from './model-entries.js';
import { checkSettings, defaultSettings, type WorkspaceSettings } from './settings-entry.js';
import { checkTools } from './tool-entries.js';

/** The raw text of each catalog file; undefined when the file does not exist. */
export type CatalogTexts = Partial<Record<CatalogFileName, string>>;

/** Everything derived from the catalog texts. */
export interface CheckedCatalogs {
  settings: WorkspaceSettings;
  tools: ToolSpec[];
  models: ModelSpec[];
  problems: CatalogProblem[];
  /** sha256 (hex) of each existing file's text, for transcripts. */
  versions: Record<string, string>;
  /** The `kind: mcp` entries: servers whose tools join the catalog once they are listed. */
  mcpServers: McpServerSpec[];
}

/**
 * Validates all catalog texts of one workspace. Never throws for content: every problem is in
 * `problems`, bad entries are dropped and the rest is returned. The parts: YAML with positions
 * (catalog-yaml.ts), settings (settings-entry.ts), tools (tool-entries.ts, mcp-entry.ts), models
 * (model-entries.ts) and the messages for schema errors (schema-messages.ts).
 */
export function checkCatalogs(
  texts: CatalogTexts,
  compiler: UserSchemaCompiler = new UserSchemaCompiler(),
): CheckedCatalogs {
  const problems: CatalogProblem[] = [];
  const versions: Record<string, string> = {};
  for (const file of CATALOG_FILES) {
    const text = texts[file];
    if (text !== undefined) versions[file] = createHash('sha256').update(text).digest('hex');
  }

  const settingsFile = parseCatalogYaml('promptforge.yaml', texts['promptforge.yaml'], problems);
  const toolsFile = parseCatalogYaml('tools.yaml', texts['tools.yaml'], problems);
  const modelsFile = parseCatalogYaml('models.yaml', texts['models.yaml'], problems);

  const models = modelsFile ? checkModels(modelsFile, problems) : [];
  const modelAliases = new Set(models.map((model) => model.alias));
  const settings = settingsFile ? checkSettings(settingsFile, modelAliases, problems) : defaultSettings();
  const mcpServers: McpServerSpec[] = [];
  const fileTools = toolsFile ? checkTools(toolsFile, compiler, problems, mcpServers) : [];

  const tools: ToolSpec[] = [];
  const fileAliases = new Set(fileTools.map((tool) => tool.alias));
  if (settings.builtins) tools.push(...builtinToolSpecs().filter((tool) => !fileAliases.has(tool.alias)));
  tools.push(...fileTools);
  const fileOrder = (file: string) => (CATALOG_FILES as readonly string[]).indexOf(file);
  problems.sort((a, b) => fileOrder(a.file) - fileOrder(b.file) || a.line - b.line || a.column - b.column);
  return { settings, tools, models, problems, versions, mcpServers };
}
