/**
 * The one decision on what main opens in the person's browser (a server's URL elicitation, a
 * sign-in page): https, or http on this machine; never `javascript:`, `file:`, `data:` or any other
 * scheme, nor credentials or control characters in the URL. Pure: main/app hands it Electron's
 * `shell.openExternal`, the tests a recording stand-in.
 */
import { elicitationUrlProblem } from '../mcp/mcp-elicitation.js';

/** What may be opened: the URL as the browser will get it (parsed and written out again), or why not. */
export type ExternalUrlVerdict = { ok: true; href: string } | { ok: false; problem: string };

/** Whether `url` may be opened in the person's browser (see the module comment). */
export function externalUrlVerdict(url: unknown): ExternalUrlVerdict {
  if (typeof url !== 'string') return { ok: false, problem: 'the URL is not text' };
  const problem = elicitationUrlProblem(url);
  if (problem !== undefined) return { ok: false, problem };
  // What the browser gets is the parsed URL written out again: no second reading of the raw text.
  return { ok: true, href: new URL(url).href };
}

/** A URL main refused to open, with the reason. */
export class ExternalUrlRefused extends Error {
  constructor(readonly problem: string) {
    super(`the studio does not open this URL: ${problem}`);
    this.name = 'ExternalUrlRefused';
  }
}

/**
 * `open` (the system browser) behind {@link externalUrlVerdict}: a URL it refuses never reaches
 * `open`, and the call rejects with {@link ExternalUrlRefused}.
 */
export function checkedOpener(open: (href: string) => Promise<void>): (url: string) => Promise<void> {
  return async (url) => {
    const verdict = externalUrlVerdict(url);
    if (!verdict.ok) throw new ExternalUrlRefused(verdict.problem);
    await open(verdict.href);
  };
}
