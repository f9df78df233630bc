import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { buildWorkspace } from '../../../main/core/catalog/workspace.js';
import type { McpServerSpec } from '../../../main/core/catalog/mcp-spec.js';
import { McpServerManager } from '../../../main/core/mcp/mcp-manager.js';
import { ToolFailure } from '../../../main/core/tools/tool-spec.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repo = path.resolve(here, '../../..');
/** The hostile server of the workspace-is-an-input attacks (fixtures/workspace-attack-server.mjs). */
const WORKSPACE_ATTACK_SERVER = path.join(here, 'fixtures/workspace-attack-server.mjs');

/** A tools.yaml entry for the server, named `name`, in `mode`, with more YAML lines (indented by two). */
export function attackEntry(name: string, mode = 'normal', extra = ''): string {
  return `${name}:\n  kind: mcp\n  description: the workspace attack server\n  command: ${JSON.stringify(process.execPath)}\n  args: [${JSON.stringify(WORKSPACE_ATTACK_SERVER)}, ${mode}]\n${extra}`;
}

/** The MCP server specs of `yaml` (tools.yaml text) in `root`, which must load without problems. */
export function specsOf(yaml: string, root = repo): McpServerSpec[] {
  const workspace = buildWorkspace(root, { 'tools.yaml': yaml });
  expect(workspace.problems.filter((problem) => problem.severity === 'error').map((p) => p.message)).toEqual([]);
  return workspace.mcpServers ?? [];
}

/** A manager for `yaml` in `root`, closed by the caller (pushed on `made`). */
export function attackManager(
  yaml: string,
  made: McpServerManager[],
  options: { root?: string; secrets?: Record<string, string>; reserved?: string[] } = {},
): McpServerManager {
  const root = options.root ?? repo;
  const manager = new McpServerManager({
    workspaceRoot: root,
    servers: specsOf(yaml, root),
    secrets: { get: async (name) => options.secrets?.[name] },
    ...(options.reserved && { reservedAliases: options.reserved }),
  });
  made.push(manager);
  return manager;
}

/** The ToolFailure `promise` rejects with (fails the test when it resolves or throws anything else). */
export async function toolFailure(promise: Promise<unknown>): Promise<ToolFailure> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ToolFailure);
  return error as ToolFailure;
}

/** Calls `tool` of `server` with no time limit worth the name (tests wait on events, not time). */
export function callOf(manager: McpServerManager, server: string, tool: string, args = {}): Promise<string> {
  return manager.callTool(server, tool, args, new AbortController().signal, 600_000);
}

/** Resolves once the `server`'s stderr tail (as the manager exposes it) contains `text`. */
export function stderrOf(manager: McpServerManager, server: string, text: string): Promise<string> {
  return new Promise((resolve) => {
    const tailOf = () => manager.statuses().find((status) => status.name === server)?.stderrTail ?? '';
    const check = () => {
      const tail = tailOf();
      if (!tail.includes(text)) return;
      stop();
      resolve(tail);
    };
    const stop = manager.onChange(check);
    check();
  });
}

/** Whether process `pid` is gone: not in the table, or a zombie nobody reaps (killed, waiting for init). */
export function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state === 'Z' || state === 'X';
  } catch {
    return true;
  }
}

/** Every string and key in `value`, with its JSON pointer. */
export function stringsOf(value: unknown, pointer = ''): [string, string][] {
  if (typeof value === 'string') return [[pointer, value]];
  if (Array.isArray(value)) return value.flatMap((item, index) => stringsOf(item, `${pointer}/${index}`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) => [
    [`${pointer}/${key} (key)`, key] as [string, string],
    ...stringsOf(item, `${pointer}/${key}`),
  ]);
}

/**
 * Characters no server text may carry to the model: controls other than tab and newline, format
 * and default-ignorable characters (bidi, zero-width, tags, variation selectors), line and
 * paragraph separators, lone surrogates.
 */
export const MODEL_UNSAFE = /(?![\t\n])[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;

/** A JSON value to read in tests without a type for each shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test reads of JSON of any shape
export type Loose = any;

/** `value` as a {@link Loose} tree. */
export function loose(value: unknown): Loose {
  return value as Loose;
}
