import { describe, expect, it } from 'vitest';
import { clip } from '../../../main/core/run/replay.js';

describe('clip: the excerpts a divergence error quotes', () => {
  it('leaves a short text alone', () => {
    expect(clip('{"role":"tool"}', 200)).toBe('{"role":"tool"}');
  });

  it('cuts before the word the limit falls in, and marks the cut', () => {
    const text = `${'x'.repeat(180)} <untrusted_input_NONCE>hello</untrusted_input_NONCE>`;
    const cut = clip(text, 200);
    expect(cut).toBe(`${'x'.repeat(180)} <…`);
    expect(cut).not.toMatch(/untrusted_input_NONC…/);
  });

  it('cuts a very long word between characters, never inside one', () => {
    expect(clip('a'.repeat(300), 10)).toBe(`${'a'.repeat(10)}…`);
    expect(clip(`${'-'.repeat(9)}😀😀`, 10)).toBe(`${'-'.repeat(9)}😀…`);
  });
});
