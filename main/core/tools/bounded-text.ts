/** Reads a web stream into text, failing once it passes `maxBytes`. */
export async function readBodyCapped(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<{ text: string; exceeded: boolean }> {
  if (!body) return { text: '', exceeded: false };
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return { text: '', exceeded: true };
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return { text: Buffer.concat(chunks).toString('utf8'), exceeded: false };
}

/** The last `maxChars` characters of `text`, trimmed, with an ellipsis when cut. */
export function tail(text: string, maxChars = 500): string {
  const trimmed = text.trim();
  return trimmed.length <= maxChars ? trimmed : `...${trimmed.slice(-maxChars)}`;
}

/** A URL for messages: no user info, no query string or fragment (they may carry tokens). */
export { urlForMessage as displayUrl } from '../net/redirects.js';
