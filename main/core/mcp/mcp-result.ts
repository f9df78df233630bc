import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { ToolFailure } from '../tools/tool-spec.js';
import { jsonBoundsProblem, MAX_MCP_OUTPUT_CHARS } from './mcp-bounds.js';

/** Bytes that a base64 text decodes to. */
function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** One content block as text: text as it is; images, audio and resources described, never dropped. */
function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return `[image: ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case 'audio':
      return `[audio: ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case 'resource_link':
      return `[resource link: ${block.uri}${block.mimeType ? `, ${block.mimeType}` : ''}${block.name ? `, "${block.name}"` : ''}${block.size !== undefined ? `, ${block.size} bytes` : ''}]`;
    case 'resource': {
      const resource = block.resource;
      const type = resource.mimeType ? `, ${resource.mimeType}` : '';
      if ('text' in resource && typeof resource.text === 'string')
        return `[resource: ${resource.uri}${type}, ${resource.text.length} characters]\n${resource.text}`;
      const blob = 'blob' in resource && typeof resource.blob === 'string' ? resource.blob : '';
      return `[resource: ${resource.uri}${type}, ${base64Bytes(blob)} bytes]`;
    }
    default:
      return `[content of type "${String((block as { type?: unknown }).type)}"]`;
  }
}

/** The text of a result's content blocks, one block per paragraph. */
export function contentText(result: Pick<CallToolResult, 'content'>): string {
  const content = Array.isArray(result.content) ? result.content : [];
  return content.map(blockText).join('\n');
}

function bounded(text: string): string {
  if (text.length > MAX_MCP_OUTPUT_CHARS)
    throw new ToolFailure(`returned ${text.length} characters, more than the ${MAX_MCP_OUTPUT_CHARS} accepted`);
  return text;
}

/**
 * What a tool call returns to the run, as the ToolRunner's raw text: the JSON text of
 * `structuredContent` when the tool declares an output schema (the dispatcher parses it and checks
 * it with ajv), else the text of the content. `isError` becomes a ToolFailure whose tool-produced
 * part is `toolText`, so an untrusted server's error is wrapped and taint-tracked like its output.
 */
export function resultToOutput(result: CallToolResult, structured: boolean): string {
  if (result.isError === true) {
    const text = bounded(contentText(result) || 'no details');
    throw new ToolFailure(`the server reported an error: ${text}`, text);
  }
  if (structured || (result.content.length === 0 && result.structuredContent !== undefined)) {
    if (result.structuredContent === undefined)
      throw new ToolFailure('declares an output schema but returned no structuredContent');
    const tooBig = jsonBoundsProblem(result.structuredContent);
    if (tooBig) throw new ToolFailure(`returned structuredContent that is refused: ${tooBig}`);
    return bounded(JSON.stringify(result.structuredContent));
  }
  return bounded(contentText(result));
}
