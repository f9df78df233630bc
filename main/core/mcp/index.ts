export { McpAwareCatalog } from './mcp-catalog.js';
export { McpConnection, type McpServerState, McpStartError } from './mcp-connection.js';
export { McpServerManager, type McpServerManagerOptions, type McpServerStatus } from './mcp-manager.js';
export { resultToOutput, contentText } from './mcp-result.js';
export * from './mcp-spec.js';
export { mcpToolSpecs } from './mcp-tools.js';
