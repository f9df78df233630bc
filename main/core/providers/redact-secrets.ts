/** What a redacted secret is replaced with. */
export const REDACTED = '[REDACTED]';

/**
 * Fragments of a secret this long or longer are redacted too. Providers echo keys back partly
 * masked ("Incorrect API key provided: sk-canar*****XXXX"), and a long fragment of a key is
 * still a leak. Shorter runs are common text ("sk-", "key") and are left alone.
 */
const MIN_FRAGMENT_LENGTH = 8;

/**
 * Returns `text` with every occurrence of each secret (and of its URL-encoded form, and of any
 * fragment of it at least 8 characters long) replaced by `[REDACTED]`. Empty secrets and
 * `undefined` are ignored. Use it on every user-facing message an adapter builds from data that
 * could hold a key: provider error bodies, URLs, raw stream lines.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let result = text;
  for (const secret of secrets) {
    if (!secret) continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) {
      result = result.split(form).join(REDACTED);
    }
    if (secret.length >= MIN_FRAGMENT_LENGTH + 4) result = redactFragments(result, secret);
  }
  return result;
}

function redactFragments(text: string, secret: string): string {
  let output = '';
  let index = 0;
  while (index < text.length) {
    const length = longestFragmentAt(text, index, secret);
    if (length >= MIN_FRAGMENT_LENGTH) {
      output += REDACTED;
      index += length;
    } else {
      output += text[index];
      index += 1;
    }
  }
  return output;
}

/** Length of the longest substring of `secret` that starts at `text[index]`. */
function longestFragmentAt(text: string, index: number, secret: string): number {
  let best = 0;
  for (
    let start = secret.indexOf(text[index] ?? '');
    start !== -1;
    start = secret.indexOf(text[index] ?? '', start + 1)
  ) {
    let length = 0;
    while (
      index + length < text.length &&
      start + length < secret.length &&
      text[index + length] === secret[start + length]
    ) {
      length += 1;
    }
    if (length > best) best = length;
  }
  return best;
}
