/** Largest JSON-RPC line a stdio server may send (and largest HTTP response body), in bytes. */
export const MAX_MCP_MESSAGE_BYTES = 8 * 1024 * 1024;
/** Largest output text one call returns to the run, in UTF-16 code units of the text. */
export const MAX_MCP_OUTPUT_CHARS = 4 * 1024 * 1024;
/** Deepest nesting accepted in structured results and tool schemas. */
export const MAX_MCP_JSON_DEPTH = 64;
/** Most values (objects, arrays and scalars) in one structured result or schema. */
const MAX_MCP_JSON_NODES = 200_000;
/** Most tools one server may expose; more is a problem and the rest are dropped. */
export const MAX_MCP_TOOLS = 512;
/** Most `tools/list` pages read from one server. */
export const MAX_MCP_LIST_PAGES = 20;
/** Longest tool description kept, in characters. */
export const MAX_MCP_DESCRIPTION_CHARS = 4096;
/**
 * Bytes of messages to a stdio server that may wait unread in its input pipe's buffer; a server
 * that lets more pile up (it floods requests and never reads the answers) is stopped.
 */
export const MAX_MCP_INPUT_BACKLOG_BYTES = 8 * 1024 * 1024;
/** Entries of an invalid tool list described one by one; the rest are counted in one sentence. */
export const MAX_MCP_INVALID_TOOL_NOTES = 20;
/** Bytes of a server's stderr kept for the UI. */
const MCP_STDERR_TAIL_BYTES = 64 * 1024;
/**
 * A call's progress notifications restart its `timeoutMs`, but only up to this many times
 * `timeoutMs` in all: a server that reports progress forever cannot keep a run (a CLI run with
 * nobody to stop it) waiting forever.
 */
export const MCP_PROGRESS_TIMEOUT_FACTOR = 10;

/**
 * Why `value` is too deep or too large to hand on, or undefined when it is within bounds. Walks
 * iteratively, so a hostile 10,000-deep value cannot overflow the stack here.
 */
export function jsonBoundsProblem(
  value: unknown,
  maxDepth = MAX_MCP_JSON_DEPTH,
  maxNodes = MAX_MCP_JSON_NODES,
): string | undefined {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
  let nodes = 0;
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    nodes += 1;
    if (nodes > maxNodes) return `it holds more than ${maxNodes} values`;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > maxDepth) return `it nests deeper than ${maxDepth} levels`;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) stack.push({ value: child, depth: depth + 1 });
  }
  return undefined;
}

/** Keeps the last `maxBytes` of a stream of text chunks (a server's stderr). */
export class BoundedTail {
  private chunks: string[] = [];
  private size = 0;

  constructor(private readonly maxBytes = MCP_STDERR_TAIL_BYTES) {}

  push(chunk: string): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.maxBytes && this.chunks.length > 1) this.size -= this.chunks.shift()!.length;
    if (this.size > this.maxBytes) {
      const only = this.chunks[0]!.slice(-this.maxBytes);
      this.chunks = [only];
      this.size = only.length;
    }
  }

  text(): string {
    return this.chunks.join('');
  }
}
