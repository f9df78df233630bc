/** What a resource read or a prompt gives a script, and the checks of what a script asks for (no MCP client needed). */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '../../../common/json.js';
import { checkInsideWorkspace } from '../tools/workspace-path.js';
import { ToolFailure } from '../tools/tool-spec.js';
import { MAX_MCP_OUTPUT_CHARS } from './mcp-bounds.js';
import { contentText } from './mcp-result.js';
import { hasUnsafeCharacter } from './mcp-text.js';

/** Longest resource URI or prompt name a script may ask for, in characters. */
export const MAX_TARGET_CHARS = 4096;
/** Most arguments of one prompt, and the longest value of one, in characters. */
export const MAX_PROMPT_ARGUMENTS = 64;
const MAX_PROMPT_ARGUMENT_CHARS = 64 * 1024;

/**
 * Why the host does not ask for `uri`: it is not a URI, holds control characters, or is a `file:`
 * URI outside the workspace, the only root the host gives servers (following symbolic links).
 * Other schemes are the server's own namespace and are asked for as they are.
 */
export function resourceUriProblem(uri: string, workspaceRoot: string): string | undefined {
  if (uri.length === 0 || uri.length > MAX_TARGET_CHARS) return `a resource URI is 1 to ${MAX_TARGET_CHARS} characters`;
  if (hasUnsafeCharacter(uri)) return 'the resource URI holds control characters';
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return `"${uri.slice(0, 200)}" is not a URI`;
  }
  if (parsed.protocol !== 'file:') return undefined;
  let file: string;
  try {
    file = fileURLToPath(parsed);
  } catch {
    return `"${uri.slice(0, 200)}" is not a local file URI`;
  }
  const checked = checkInsideWorkspace(workspaceRoot, path.resolve(file), { missing: 'nearest' });
  if (!checked.ok && checked.problem !== 'missing')
    return `${uri.slice(0, 200)} is outside the workspace, the only root the host gives MCP servers; a file: resource must be inside it`;
  return undefined;
}

/** Bytes that a base64 text decodes to. */
function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/**
 * What a script gets from `mcp.read_resource`: the text of each text content, and each binary
 * content described (`[binary resource: URI, MIME, N bytes]`), never decoded into text.
 */
export function resourceText(result: ReadResourceResult): string {
  const parts = result.contents.map((content) => {
    if ('text' in content && typeof content.text === 'string') return content.text;
    const blob = 'blob' in content && typeof content.blob === 'string' ? content.blob : '';
    return `[binary resource: ${content.uri.slice(0, 500)}${content.mimeType ? `, ${content.mimeType.slice(0, 100)}` : ''}, ${base64Bytes(blob)} bytes]`;
  });
  const text = parts.join('\n');
  if (text.length > MAX_MCP_OUTPUT_CHARS)
    throw new ToolFailure(`the resource is ${text.length} characters, more than the ${MAX_MCP_OUTPUT_CHARS} accepted`);
  return text;
}

/** A prompt as a script gets it: its description and its messages, each message's content as text. */
export function promptValue(result: GetPromptResult): {
  description?: string;
  messages: { role: string; content: string }[];
} {
  const messages = result.messages.map((message) => ({
    role: message.role,
    content: contentText({ content: [message.content] }),
  }));
  const total = messages.reduce((sum, message) => sum + message.content.length, result.description?.length ?? 0);
  if (total > MAX_MCP_OUTPUT_CHARS)
    throw new ToolFailure(`the prompt is ${total} characters, more than the ${MAX_MCP_OUTPUT_CHARS} accepted`);
  return { ...(result.description !== undefined && { description: result.description }), messages };
}

/** A script's prompt arguments: a table of strings (numbers and booleans are written as text), bounded. */
export function promptArguments(
  args: unknown,
): { ok: true; args: Record<string, string> } | { ok: false; problem: string } {
  if (args === undefined || args === null) return { ok: true, args: {} };
  if (typeof args !== 'object' || Array.isArray(args))
    return Array.isArray(args) && args.length === 0
      ? { ok: true, args: {} }
      : { ok: false, problem: 'args must be a table of named strings' };
  const entries = Object.entries(args as JsonObject);
  if (entries.length > MAX_PROMPT_ARGUMENTS)
    return { ok: false, problem: `more than ${MAX_PROMPT_ARGUMENTS} arguments` };
  const out: Record<string, string> = {};
  for (const [name, value] of entries) {
    const text = typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
    if (typeof text !== 'string') return { ok: false, problem: `argument "${name.slice(0, 100)}" must be a string` };
    if (text.length > MAX_PROMPT_ARGUMENT_CHARS)
      return {
        ok: false,
        problem: `argument "${name.slice(0, 100)}" is longer than ${MAX_PROMPT_ARGUMENT_CHARS} characters`,
      };
    out[name] = text;
  }
  return { ok: true, args: out };
}
