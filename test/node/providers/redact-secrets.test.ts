import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../../main/core/providers/redact-secrets.js';
import { CANARY_KEY } from './loopback-server.js';

describe('redactSecrets', () => {
  it('replaces every occurrence of the key', () => {
    expect(redactSecrets(`a ${CANARY_KEY} b ${CANARY_KEY}`, [CANARY_KEY])).toBe('a [REDACTED] b [REDACTED]');
  });

  it('replaces the URL-encoded form', () => {
    const key = 'k3y/with+chars=and-more-stuff';
    expect(redactSecrets(`?key=${encodeURIComponent(key)}`, [key])).toBe('?key=[REDACTED]');
  });

  it('replaces long fragments, such as the partly masked key providers echo back', () => {
    const key = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
    const masked = 'Incorrect API key provided: sk-proj-********************************6789.';
    expect(redactSecrets(masked, [key])).toBe(
      'Incorrect API key provided: [REDACTED]********************************6789.',
    );
    expect(redactSecrets('prefix abcdefghijkl suffix', [key])).toBe('prefix [REDACTED] suffix');
  });

  it('leaves unrelated text and short common fragments alone, and ignores empty secrets', () => {
    expect(redactSecrets('sk- is a prefix; the key was rejected', [CANARY_KEY, '', undefined])).toBe(
      'sk- is a prefix; the key was rejected',
    );
  });
});
