import type { Trust } from '../tools/tool-spec.js';

/**
 * Characters a server's text must not carry to the model, a terminal or the UI: control
 * characters other than tab and newline (ESC, NUL, CR...), format and default-ignorable characters
 * (bidi embeddings, overrides, isolates and marks; zero-width spaces and joiners; soft hyphens;
 * the invisible tag characters U+E0000-E0FFF; variation selectors; the BOM), line and paragraph
 * separators, and lone surrogates.
 */
const SERVER_UNSAFE = /(?![\t\n])[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/gu;

/** Whether `text` holds a character of {@link SERVER_UNSAFE}. */
export function hasUnsafeCharacter(text: string): boolean {
  SERVER_UNSAFE.lastIndex = 0;
  const found = SERVER_UNSAFE.test(text);
  SERVER_UNSAFE.lastIndex = 0;
  return found;
}

/** `text` cut to `max` UTF-16 code units without splitting a surrogate pair. */
function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** A server's text for the model: {@link SERVER_UNSAFE} characters removed, then cut to `max`. */
export function cleanServerText(text: string, max: number): string {
  return cutText(text.replace(SERVER_UNSAFE, ''), max);
}

/**
 * `text` safe to show in a terminal or the UI: {@link SERVER_UNSAFE} characters become visible
 * `\u{..}` escapes (a tool name can hold them), and it is cut after `max` characters.
 */
export function shownText(text: string, max: number): string {
  const cut = text.length > max ? `${cutText(text, max)}…` : text;
  return cut.replace(SERVER_UNSAFE, (character) => `\\u{${character.codePointAt(0)!.toString(16)}}`);
}

/**
 * The label that starts every text of `server` the model sees (a tool's description, each
 * description and title in its schemas): `[from MCP server "x", untrusted]`, or without
 * "untrusted" for a tool the workspace trusts. The name is the workspace's (tools.yaml), never the
 * server's.
 */
export function serverLabel(server: string, trust: Trust): string {
  return trust === 'untrusted' ? `[from MCP server "${server}", untrusted]` : `[from MCP server "${server}"]`;
}
