/** Every page of a server's `tools/list`, bounded in pages and tools, each tool checked on its own. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type Tool, ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import { MAX_MCP_INVALID_TOOL_NOTES, MAX_MCP_LIST_PAGES, MAX_MCP_TOOLS } from './mcp-bounds.js';

/** A `tools/list` page checked loosely: each tool is checked on its own, so one bad tool drops alone. */
const LooseListSchema = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/**
 * Every page of `tools/list`, bounded in pages and tools: entries past the first
 * {@link MAX_MCP_TOOLS} + 1 are only counted (`total`), and the first
 * {@link MAX_MCP_INVALID_TOOL_NOTES} entries that are not valid tools are described.
 */
export async function listAll(
  client: Client,
  timeout?: number,
): Promise<{ tools: Tool[]; invalid: string[]; total: number }> {
  const tools: Tool[] = [];
  const invalid: string[] = [];
  let entries = 0;
  let moreInvalid = 0;
  let skipped = 0;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_MCP_LIST_PAGES; page += 1) {
    const result = await client.request(
      { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
      LooseListSchema,
      timeout ? { timeout } : {},
    );
    for (const [index, entry] of result.tools.entries()) {
      // One past the limit is enough to say the list was cut (see mcpToolSpecs).
      if (entries > MAX_MCP_TOOLS) {
        skipped += result.tools.length - index;
        break;
      }
      entries += 1;
      const parsed = ToolSchema.safeParse(entry);
      if (parsed.success) tools.push(parsed.data);
      else if (invalid.length >= MAX_MCP_INVALID_TOOL_NOTES) moreInvalid += 1;
      else {
        const name = (entry as { name?: unknown } | null)?.name;
        const issue = parsed.error.issues[0];
        const where = issue ? `${issue.path.join('.') || 'the entry'}: ${issue.message}` : 'invalid';
        invalid.push(
          `tool ${typeof name === 'string' ? `"${name.slice(0, 80)}"` : `#${index + 1}`} is dropped: it is not a valid MCP tool (${where.slice(0, 200)})`,
        );
      }
    }
    cursor = result.nextCursor;
    if (cursor === undefined || entries > MAX_MCP_TOOLS) break;
    if (page === MAX_MCP_LIST_PAGES - 1)
      invalid.push(`the tool list goes on past ${MAX_MCP_LIST_PAGES} pages; the rest is ignored`);
  }
  if (moreInvalid > 0) invalid.push(`${moreInvalid} more entries are dropped: they are not valid MCP tools`);
  return { tools, invalid, total: entries + skipped };
}
