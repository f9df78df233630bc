/** The sampling token limit, on its own so a run loads it without the MCP person's shapes (mcp-person.ts). */

/** The largest token limit a server's sampling request gets (and a person's edit sets); more is clamped, and the person is told. */
export const MAX_SAMPLING_TOKENS = 4096;
