/**
 * What an MCP server says of its tool, in words: its annotations are the server's claims, which
 * nothing checks, so the studio always says who claims them ("the server says: read-only").
 */
import type { ToolAnnotations } from '../../../common/studio-schemas.js';

/** Each hint the server gave, in words (`read-only`, `not destructive`...), in a fixed order. */
export function claimWords(annotations: ToolAnnotations | undefined): string[] {
  if (annotations === undefined) return [];
  const words: string[] = [];
  const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = annotations;
  if (readOnlyHint !== undefined) words.push(readOnlyHint ? 'read-only' : 'changes things');
  if (destructiveHint !== undefined) words.push(destructiveHint ? 'destructive' : 'not destructive');
  if (idempotentHint !== undefined) words.push(idempotentHint ? 'idempotent' : 'not idempotent');
  if (openWorldHint !== undefined) words.push(openWorldHint ? 'reaches the outside world' : 'stays in its own world');
  return words;
}

/** The claims as one line: "The server says: read-only, stays in its own world", or '' without any. */
export function claimsSentence(annotations: ToolAnnotations | undefined): string {
  const words = claimWords(annotations);
  return words.length === 0 ? '' : `The server says: ${words.join(', ')}`;
}

/** Whether the person's rules may use the claims, in words. */
export function claimsTrustSentence(trusted: boolean | undefined): string {
  return trusted
    ? 'You listed this server under trustedServers in your rules, so rules with annotation conditions use these claims.'
    : 'Nothing checks these claims, and your rules ignore them: you have not listed this server under trustedServers.';
}
