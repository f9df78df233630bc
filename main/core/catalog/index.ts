export { writeFileAtomic } from './atomic-write.js';
export {
  type CatalogWriteResult,
  deleteModelEntry,
  deleteToolEntry,
  saveModelEntry,
  saveToolEntry,
  writeCatalogFile,
} from './catalog-edit.js';
export {
  ALIAS_PATTERN,
  CATALOG_FILES,
  type CatalogFileName,
  type CatalogTexts,
  checkCatalogs,
  type ModelEntryYaml,
  type ToolEntryYaml,
  type WorkspaceSettings,
} from './catalog-loader.js';
export { type CatalogProblem, formatProblem } from './catalog-problem.js';
export { CATALOG_SCHEMAS } from './catalog-schemas.js';
export {
  DEFAULT_BASE_URLS,
  MODEL_PROVIDERS,
  type ModelCatalog,
  type ModelProviderId,
  type ModelSpec,
} from './model-catalog.js';
export { createBuiltinCatalog, ToolCatalogImpl } from './tool-catalog.js';
export { type WatchWorkspaceOptions, watchWorkspace, type WorkspaceChange } from './watch-workspace.js';
export { AGENTS_DIR, buildWorkspace, findWorkspaceRoot, loadWorkspace, RUNS_DIR, type Workspace } from './workspace.js';
