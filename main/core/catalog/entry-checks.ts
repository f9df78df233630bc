import path from 'node:path';
import type { CatalogProblem, LocatedYaml } from './catalog-problem.js';

/**
 * Checks that tool entries and MCP server entries share: a working directory inside the workspace,
 * an http(s) URL without credentials, header names, and literal secrets in committed files.
 */

/** A header or variable name that usually holds a credential. */
export const SECRET_LOOKING_NAME = /authorization|api[-_]?key|token|secret|password|cookie/i;

/** An HTTP header name (RFC 9110 token). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** True when `cwd` leaves the workspace (absolute, or `..` after normalizing). */
export function cwdLeavesWorkspace(cwd: string): boolean {
  const normalized = path.posix.normalize(cwd.replaceAll('\\', '/'));
  return (
    path.isAbsolute(cwd) || path.posix.isAbsolute(normalized) || normalized === '..' || normalized.startsWith('../')
  );
}

/** What is wrong with an endpoint URL (message and fix), or undefined when it is a plain http(s) URL. */
export function httpUrlProblem(url: string, example: string): { message: string; fix: string } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { message: `url "${url}" is not a valid URL`, fix: `Use an absolute http or https URL, e.g. "${example}".` };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return { message: `url must be http or https (got "${parsed.protocol}")`, fix: 'Use an http:// or https:// URL.' };
  if (parsed.username || parsed.password)
    return {
      message: 'url must not carry a user name or password',
      fix: 'Move the credential to a header with "{ secret: NAME }".',
    };
  return undefined;
}

/**
 * The warning for a literal (non-empty string) value under a name that looks like a credential, in
 * a file that may be committed; undefined when there is nothing to warn about.
 */
export function literalSecretWarning(
  located: LocatedYaml,
  where: readonly (string | number)[],
  subject: string,
  what: 'header' | 'variable',
  name: string,
  value: unknown,
): CatalogProblem | undefined {
  if (typeof value !== 'string' || value.length === 0 || !SECRET_LOOKING_NAME.test(name)) return undefined;
  return located.problem(
    'warning',
    where,
    `${subject}: ${what} "${name}" holds a literal value in a file that may be committed`,
    `Store it in the keychain and write "${name}: { secret: NAME }".`,
  );
}
