/** A server's resources and prompts: their listings, bounded and cleaned, and what a read or a prompt gives a script. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PromptSchema, ResourceSchema, ResourceTemplateSchema } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import type { McpPromptEntry, McpResourceEntry } from '../../../common/mcp-person.js';
import { MAX_MCP_LIST_PAGES } from './mcp-bounds.js';
import { cleanServerText, hasUnsafeCharacter } from './mcp-text.js';

/** Most resources (and templates, and prompts) kept from one server's listing. */
const MAX_MCP_LISTED = 1000;
import { MAX_PROMPT_ARGUMENTS, MAX_TARGET_CHARS } from './mcp-read-values.js';

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
 * The listings of resources and prompts the host holds of one server: listed once asked for, then
 * relisted after the server's `list_changed`, one listing at a time, a flood of notifications
 * coalesced (as for tools).
 */
export class HeldListings {
  private resources: Listed<McpResourceEntry> | undefined;
  private prompts: Listed<McpPromptEntry> | undefined;
  private readonly relisting = new Set<'resources' | 'prompts'>();

  constructor(private readonly timeoutMs: number) {}

  /** Forgets both listings (the server starts again). */
  clear(): void {
    this.resources = undefined;
    this.prompts = undefined;
  }

  /** The server's resources and templates (listed once, then kept up to date by its notifications). */
  async resourcesOf(client: Client): Promise<Listed<McpResourceEntry>> {
    if (!client.getServerCapabilities()?.resources) return { entries: [], dropped: 0 };
    this.resources ??= await listResources(client, this.timeoutMs);
    return this.resources;
  }

  /** The server's prompts (listed once, then kept up to date by its notifications). */
  async promptsOf(client: Client): Promise<Listed<McpPromptEntry>> {
    if (!client.getServerCapabilities()?.prompts) return { entries: [], dropped: 0 };
    this.prompts ??= await listPrompts(client, this.timeoutMs);
    return this.prompts;
  }

  /**
   * Refreshes a listing the host holds after its `list_changed` from `client` (while `current`
   * says it is still the server's), then tells `changed`.
   */
  async listChanged(
    client: Client,
    what: 'resources' | 'prompts',
    current: () => boolean,
    changed: (what: 'resources' | 'prompts') => void,
  ): Promise<void> {
    if (!current() || this.relisting.has(what)) return;
    const held = what === 'resources' ? this.resources : this.prompts;
    if (held === undefined) {
      changed(what);
      return;
    }
    this.relisting.add(what);
    try {
      if (what === 'resources')
        this.resources = await listResources(client, this.timeoutMs).catch(() => held as Listed<McpResourceEntry>);
      else this.prompts = await listPrompts(client, this.timeoutMs).catch(() => held as Listed<McpPromptEntry>);
    } finally {
      this.relisting.delete(what);
    }
    if (current()) changed(what);
  }
}
