/** A server's resources and prompts: their listings, bounded and cleaned, and what a read or a prompt gives a script. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type GetPromptResult,
  PromptSchema,
  type ReadResourceResult,
  ResourceSchema,
  ResourceTemplateSchema,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import type { JsonObject } from '../../../common/json.js';
import type { McpPromptEntry, McpResourceEntry } from '../../../common/mcp-person.js';
import { checkInsideWorkspace } from '../tools/workspace-path.js';
import { ToolFailure } from '../tools/tool-spec.js';
import { MAX_MCP_LIST_PAGES, MAX_MCP_OUTPUT_CHARS } from './mcp-bounds.js';
import { contentText } from './mcp-result.js';
import { cleanServerText, hasUnsafeCharacter } from './mcp-text.js';

/** Most resources (and templates, and prompts) kept from one server's listing. */
export const MAX_MCP_LISTED = 1000;
/** Longest resource URI or prompt name a script may ask for, in characters. */
const MAX_TARGET_CHARS = 4096;
/** Most arguments of one prompt, and the longest value of one, in characters. */
const MAX_PROMPT_ARGUMENTS = 64;
const MAX_PROMPT_ARGUMENT_CHARS = 64 * 1024;

/** What one listing holds, and how many entries the server listed beyond what is kept. */
export interface Listed<T> {
  entries: T[];
  dropped: number;
}

const LoosePage = (key: string) =>
  z.looseObject({ [key]: z.array(z.unknown()), nextCursor: z.string().optional() }) as z.ZodType<
    Record<string, unknown[]> & { nextCursor?: string }
  >;

/** Every page of a list method, bounded in pages and entries; an entry that is not valid is dropped. */
async function listPages<T>(
  client: Client,
  method: 'resources/list' | 'resources/templates/list' | 'prompts/list',
  key: string,
  parse: (entry: unknown) => T | undefined,
  timeout: number,
): Promise<Listed<T>> {
  const entries: T[] = [];
  let dropped = 0;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_MCP_LIST_PAGES; page += 1) {
    const result = await client.request({ method, params: cursor === undefined ? {} : { cursor } }, LoosePage(key), {
      timeout,
    });
    for (const entry of result[key] ?? []) {
      const parsed = entries.length < MAX_MCP_LISTED ? parse(entry) : undefined;
      if (parsed === undefined) dropped += 1;
      else entries.push(parsed);
    }
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return { entries, dropped };
}

const shortText = (value: string | undefined, max: number) =>
  value === undefined ? undefined : cleanServerText(value, max) || undefined;

/** The server's resources and templates, as the studio's explorer lists them. */
export async function listResources(client: Client, timeout: number): Promise<Listed<McpResourceEntry>> {
  const resource = (entry: unknown): McpResourceEntry | undefined => {
    const parsed = ResourceSchema.safeParse(entry);
    if (!parsed.success || parsed.data.uri.length > MAX_TARGET_CHARS || hasUnsafeCharacter(parsed.data.uri))
      return undefined;
    const r = parsed.data;
    return {
      uri: r.uri,
      name: cleanServerText(r.name, 200),
      ...(r.title !== undefined && { title: shortText(r.title, 200) }),
      ...(r.description !== undefined && { description: shortText(r.description, 1000) }),
      ...(r.mimeType !== undefined && { mimeType: cleanServerText(r.mimeType, 100) }),
      ...(typeof r.size === 'number' && { size: r.size }),
    };
  };
  const template = (entry: unknown): McpResourceEntry | undefined => {
    const parsed = ResourceTemplateSchema.safeParse(entry);
    if (
      !parsed.success ||
      parsed.data.uriTemplate.length > MAX_TARGET_CHARS ||
      hasUnsafeCharacter(parsed.data.uriTemplate)
    )
      return undefined;
    const r = parsed.data;
    return {
      uri: r.uriTemplate,
      template: true,
      name: cleanServerText(r.name, 200),
      ...(r.title !== undefined && { title: shortText(r.title, 200) }),
      ...(r.description !== undefined && { description: shortText(r.description, 1000) }),
      ...(r.mimeType !== undefined && { mimeType: cleanServerText(r.mimeType, 100) }),
    };
  };
  const resources = await listPages(client, 'resources/list', 'resources', resource, timeout);
  const templates = await listPages(client, 'resources/templates/list', 'resourceTemplates', template, timeout).catch(
    () => ({ entries: [], dropped: 0 }),
  );
  return {
    entries: [...resources.entries, ...templates.entries].slice(0, MAX_MCP_LISTED),
    dropped: resources.dropped + templates.dropped,
  };
}

/** The server's prompts. */
export async function listPrompts(client: Client, timeout: number): Promise<Listed<McpPromptEntry>> {
  return listPages(
    client,
    'prompts/list',
    'prompts',
    (entry) => {
      const parsed = PromptSchema.safeParse(entry);
      if (!parsed.success || parsed.data.name.length > 200 || hasUnsafeCharacter(parsed.data.name)) return undefined;
      const p = parsed.data;
      return {
        name: p.name,
        ...(p.title !== undefined && { title: shortText(p.title, 200) }),
        ...(p.description !== undefined && { description: shortText(p.description, 1000) }),
        arguments: (p.arguments ?? []).slice(0, MAX_PROMPT_ARGUMENTS).map((argument) => ({
          name: cleanServerText(argument.name, 100),
          ...(argument.description !== undefined && { description: shortText(argument.description, 500) }),
          required: argument.required === true,
        })),
      };
    },
    timeout,
  );
}

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
