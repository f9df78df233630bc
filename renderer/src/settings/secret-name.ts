/**
 * A workspace secret's scoped name, `NAME@DESTINATION`, read for people: the name tools.yaml
 * writes, and where its value goes (an origin such as `https://search.example.com`, or
 * `mcp:SERVER` for a stdio MCP server's environment). The same name for another destination is
 * another keychain entry.
 */

/** The parts of a scoped secret name; `destination` is null for a name without one. */
export interface ScopedSecretName {
  name: string;
  destination: string | null;
  /** The destination in words: `https://search.example.com`, `MCP server github`. */
  destinationText: string | null;
}

/** A destination: `mcp:SERVER`, or an origin (`scheme://host:port`, which holds no `@` or path). */
const DESTINATION = /^(mcp:.+|[a-z][a-z0-9+.-]*:\/\/[^@/?#\s]+)$/i;

/** Splits `NAME@DESTINATION`; the name may hold an `@` itself: the first `@` a destination follows wins. */
export function parseScopedSecretName(scoped: string): ScopedSecretName {
  let at = -1;
  for (let index = scoped.indexOf('@', 1); index > 0; index = scoped.indexOf('@', index + 1))
    if (DESTINATION.test(scoped.slice(index + 1))) {
      at = index;
      break;
    }
  if (at < 0) return { name: scoped, destination: null, destinationText: null };
  const name = scoped.slice(0, at);
  const destination = scoped.slice(at + 1);
  const destinationText = destination.startsWith('mcp:')
    ? `MCP server ${destination.slice('mcp:'.length)}`
    : destination;
  return { name, destination, destinationText };
}

/** `search-proxy secret for https://search.example.com`: how buttons and messages name it. */
export function secretNoun(scoped: string): string {
  const parsed = parseScopedSecretName(scoped);
  return parsed.destinationText === null
    ? `${parsed.name} secret`
    : `${parsed.name} secret for ${parsed.destinationText}`;
}
