export {
  BUILTIN_TOOL_NAMES,
  type BuiltinToolName,
  builtinToolSpec,
  builtinToolSpecs,
  HTTP_GET_MAX_BYTES,
  HTTP_GET_TIMEOUT_MS,
  LIST_FILES_MAX_ENTRIES,
  READ_FILE_MAX_BYTES,
} from './builtin-tools.js';
export { DEFAULT_COMMAND_MAX_OUTPUT_BYTES, DEFAULT_COMMAND_TIMEOUT_MS } from './command-runner.js';
export { DEFAULT_HTTP_TIMEOUT_MS, type FetchLike, HTTP_TOOL_MAX_BYTES, type SecretSource } from './http-runner.js';
export { createToolRunner, type ToolRunnerOptions } from './tool-runner.js';
export type { ApprovalPolicy, ToolCatalog, ToolKindSettings, ToolRunner, ToolSpec, Trust } from './tool-spec.js';
export { ToolFailure } from './tool-spec.js';
